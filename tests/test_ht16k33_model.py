"""The virtual HT16K33: command decoding, RAM writes, reading the digits, plugging."""
import errno

import pytest

from box import panels
from box.ht16k33 import HT16K33
from host_tools.virtual.ht16k33 import READING, VirtualBus, VirtualHT16K33


def test_power_on_state():
    chip = VirtualHT16K33(0x72)
    assert chip.address == 0x72
    assert chip.ram == bytearray(16)
    assert not chip.oscillator and not chip.on and not chip.lit
    assert chip.blink == 0 and chip.brightness == 15
    assert chip.text() == "    "


def test_setup_commands():
    chip = VirtualHT16K33()
    chip.write(b"\x21")
    assert chip.oscillator and not chip.lit
    chip.write(b"\x81")
    assert chip.on and chip.blink == 0 and chip.lit
    chip.write(b"\x85")
    assert chip.on and chip.blink == 2
    chip.write(b"\x86")
    assert not chip.on and chip.blink == 3
    chip.write(b"\xe0")
    assert chip.brightness == 0
    chip.write(b"\xe9")
    assert chip.brightness == 9
    chip.write(b"\x20")
    assert not chip.oscillator and not chip.lit
    chip.write(b"\xa0")
    assert chip.unknown == []
    chip.write(b"\x55")
    chip.write(b"\x81\x00")
    assert chip.unknown == [0x55, 0x00]
    assert chip.transactions == 10


def test_ram_writes_auto_increment_and_wrap():
    chip = VirtualHT16K33()
    chip.write(bytes([0x00]) + bytes(range(1, 17)))
    assert chip.ram == bytearray(range(1, 17))
    chip.write(b"\x06\xaa")
    assert chip.ram[6] == 0xAA and chip.ram[5] == 6 and chip.ram[7] == 8
    chip.write(b"\x0e\x01\x02\x03")
    assert chip.ram[14] == 1 and chip.ram[15] == 2 and chip.ram[0] == 3
    assert chip.bytes_received == 17 + 2 + 4


def test_digits_colon_and_text():
    chip = VirtualHT16K33()
    chip.write(b"\x00\xf1\x00\x5b\x00\x02\x00\x6d\x00\x00")
    assert chip.digits() == [0xF1, 0x5B, 0x6D, 0x00]
    assert chip.colon
    assert chip.text() == "F.2:5 "
    chip.write(b"\x04\x00")
    assert not chip.colon and chip.text() == "F.25 "
    chip.write(b"\x00\x80\x00\x7c\x00\x00\x00\x5e\x00\x2a")
    assert chip.text() == " .bd?"  # 0x2a is no shape anyone can name


def test_reading_table_has_one_name_per_shape():
    names = list(READING.values())
    assert len(names) == len(set(names))
    assert all(0 < m < 0x80 for m in READING)


def test_unplugged_chip_nacks_and_replug_is_power_on():
    chip = VirtualHT16K33()
    chip.write(b"\x21")
    chip.write(b"\x00\x06")
    chip.plugged = False
    assert chip.write(b"\x02\x06") is False
    assert chip.ram[2] == 0 and chip.transactions == 2
    chip.plugged = True
    assert not chip.oscillator and chip.ram == bytearray(16)
    assert chip.write(b"") is True


def test_bus_raises_oserror_for_missing_or_unplugged_chips():
    chip = VirtualHT16K33(0x70)
    bus = VirtualBus([chip])
    assert bus.writeto(0x70, b"\x21") == 1
    with pytest.raises(OSError) as e:
        bus.writeto(0x71, b"\x21")
    assert e.value.errno == errno.ENODEV
    chip.plugged = False
    with pytest.raises(OSError):
        bus.writeto(0x70, b"\x21")


def test_bus_scan_lists_the_chips_plugged_in():
    chips = [VirtualHT16K33(0x72), VirtualHT16K33(0x70), VirtualHT16K33(0x71)]
    bus = VirtualBus(chips)
    assert bus.scan() == [0x70, 0x71, 0x72]
    chips[2].plugged = False
    assert bus.scan() == [0x70, 0x72]


def test_firmware_driver_on_the_model_round_trips_panels():
    chip = VirtualHT16K33(0x70)
    d = HT16K33(VirtualBus([chip]), 0x70, brightness=6)
    assert chip.lit and chip.brightness == 6 and chip.unknown == []
    for s in ("F.2:5 ", "12:34", "bEEF", " .8.  ", "-1.  ", "HG d", "Err ", "    ", "c.h.o.u."):
        draw(d, s)
        d.show()
        assert chip.text() == s
        assert chip.ram == d.ram
    chip.plugged = False
    draw(d, "7")
    d.show()
    assert not d.online
    chip.plugged = True
    d.service(0)
    d.service(1000)
    assert d.online and chip.lit and chip.blink == 0 and chip.brightness == 6
    assert chip.text() == "7   "
    assert chip.bytes_received == d.bytes_written


def draw(d, s):
    """Put s on the display as the box does: a panel of box.panels (a character a digit, a '.'
    the point of the one before it, or a digit of its own, a ':' the colon), then raw() for
    each digit and colon() (box.app)."""
    buf = bytearray(panels.SIZE)
    pos = 0
    for ch in s:
        if ch == ":":
            panels.colon(buf, 0)
        elif ch == "." and pos and not buf[pos - 1] & panels.DP:
            panels.dot(buf, 0, pos - 1)
        else:
            panels.put(buf, 0, pos, panels.DP if ch == "." else panels.mask(ch))
            pos += 1
    for i in range(4):
        d.raw(i, buf[i])
    d.colon(buf[4])
