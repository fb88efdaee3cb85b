"""Our HT16K33 driver against Adafruit's CircuitPython driver as an independent oracle.

Both drivers write to their own virtual chip; the RAM images (and the decoded setup
commands) must agree for the same content: the segments' bytes, RAM 0 to 13. Our driver keeps
a canary in RAM 14 and 15 (COM7, wired to no segment on the backpack), which it reads back to
tell a chip that lost power.
"""
import pytest

from adafruit_ht16k33.segments import Seg7x4
from box import panels
from box.ht16k33 import HT16K33
from host_tools.virtual.ht16k33 import VirtualBus, VirtualHT16K33

# Where our glyph is deliberately not Adafruit's: Adafruit lowercases every character and
# keeps one shape per letter, our font keeps both shapes where a lowercase one exists.
INTENDED_DIFFERENCES = {
    "c": "lowercase c (d e g), Adafruit shows C",
    "h": "lowercase h (c e f g), Adafruit shows H",
    "i": "lowercase i (e only), Adafruit shows I",
    "u": "lowercase u (c d e), Adafruit shows U",
    "O": "uppercase O is the full ring, Adafruit shows lowercase o",
}
# Characters of our font that Seg7x4 leaves blank.
ADAFRUIT_CANNOT_SHOW = {"_", "="}

RULINGS_CARDS = {
    "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66, "5": 0x6D, "6": 0x7D, "7": 0x07,
    "8": 0x7F, "9": 0x6F, "A": 0x77, "b": 0x7C, "C": 0x39, "d": 0x5E, "E": 0x79, "F": 0x71,
    "G": 0x3D, "H": 0x76,
}


class AdafruitBus:
    """The busio.I2C surface adafruit_bus_device uses: locking and writeto with slices."""

    def __init__(self, chip):
        self.chip = chip

    def try_lock(self):
        return True

    def unlock(self):
        pass

    def writeto(self, address, buf, *, start=0, end=None):
        assert address == self.chip.address
        if not self.chip.write(bytes(buf[start:end])):
            raise OSError(19)

    def readfrom_into(self, address, buf, *, start=0, end=None):
        raise OSError(19)


def adafruit():
    chip = VirtualHT16K33(0x70)
    disp = Seg7x4(AdafruitBus(chip), address=0x70, auto_write=False)
    return disp, chip


SEGMENT_BYTES = 14   # RAM 0..13: the backpack's segments (and unused bytes between them)


def ours(brightness=15):
    chip = VirtualHT16K33(0x70)
    return HT16K33(VirtualBus([chip]), 0x70, brightness), chip


def panel(s):
    """A panel as box.screens draws one with box.panels: the characters of s left-aligned
    (panels.text), a '.' lighting the point of the character before it (panels.dot), a ':'
    the colon (panels.colon)."""
    buf = bytearray(panels.SIZE)
    panels.text(buf, 0, s.replace(".", "").replace(":", "").encode())
    pos = -1
    for ch in s:
        if ch == ".":
            panels.dot(buf, 0, pos)
        elif ch == ":":
            panels.colon(buf, 0)
        else:
            pos += 1
    return buf


def our_ram(buf):
    """The chip's segment bytes once the driver has the panel `buf`, sent as box.app sends a
    panel: raw() for each digit, colon(), show()."""
    d, chip = ours()
    for pos in range(4):
        d.raw(pos, buf[pos])
    d.colon(buf[4])
    d.show()
    return bytes(chip.ram[:SEGMENT_BYTES])


def right(ch):
    """A panel with the one character `ch` in the last digit (Adafruit's print() fills from
    the right)."""
    buf = bytearray(panels.SIZE)
    panels.char(buf, 0, 3, ch)
    return buf


def test_our_canary_lights_no_segment():
    d, chip = ours()
    for pos in range(4):
        d.raw(pos, 0xFF)
    d.colon(True)
    d.show()
    assert bytes(chip.ram[SEGMENT_BYTES:]) == b"\xa5\x5a" and chip.text() == "8.8.:8.8."
    assert not any(bytes(adafruit_ram("8.8.:8.8."))[SEGMENT_BYTES:])


def adafruit_ram(s):
    disp, chip = adafruit()
    disp.fill(0)
    disp.print(s)
    disp.show()
    return bytes(chip.ram[:SEGMENT_BYTES])


def test_card_shapes_equal_the_rulings():
    for ch, m in RULINGS_CARDS.items():
        assert panels.mask(ch) == m
        assert our_ram(panel(ch))[0] == m
    assert [panels.face(v) for v in range(18)] == list(RULINGS_CARDS.values())


def test_every_glyph_adafruit_can_show_matches():
    compared, blank, differ = [], set(), {}
    for ch in panels.chars():
        theirs = adafruit_ram(ch)
        if ch != " " and not any(theirs):
            blank.add(ch)
            continue
        mine = our_ram(right(ch))
        if mine != theirs:
            differ[ch] = (mine[8], theirs[8])
        compared.append(ch)
    assert blank == ADAFRUIT_CANNOT_SHOW
    assert set(differ) == set(INTENDED_DIFFERENCES), differ
    assert len(compared) > 40
    assert set("0123456789ABCDEFGHbd-") <= set(compared)


@pytest.mark.parametrize("s", ["12:34", "1.2.3.4.", "F.2:5.0", "8.8.:8.8.", "b.d.E.F", "10:00",
                               "A-bC", "HELP", "ProG", "tURn", "-1.50", "GH:Ab", "rEtn", "-9:12"])
def test_panels_with_points_and_colon_match(s):
    assert our_ram(panel(s)) == adafruit_ram(s)


def test_colon_and_raw_digits_match():
    disp, theirs = adafruit()
    d, mine = ours()
    for pos, m in enumerate((0x12, 0xFF, 0x80, 0x3D)):
        disp.set_digit_raw(pos, m)
        d.raw(pos, m)
    disp.colon = True
    d.colon(True)
    disp.show()
    d.show()
    assert mine.ram[:SEGMENT_BYTES] == theirs.ram[:SEGMENT_BYTES]
    disp.colon = False
    d.colon(False)
    disp.show()
    d.show()
    assert mine.ram[:SEGMENT_BYTES] == theirs.ram[:SEGMENT_BYTES]


def state(chip):
    return (chip.oscillator, chip.on, chip.blink, chip.brightness, chip.unknown)


def test_setup_commands_match():
    disp, theirs = adafruit()
    d, mine = ours()
    disp.show()
    assert state(mine) == state(theirs) == (True, True, 0, 15, [])


@pytest.mark.parametrize("level", range(16))
def test_brightness_at_setup_matches(level):
    disp, theirs = adafruit()
    disp.brightness = level / 15
    _d, mine = ours(level)
    assert state(mine) == state(theirs)
