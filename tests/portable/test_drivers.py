"""Drivers (font, HT16K33, keys, buzzer, pin map) against fake hardware; CPython and MicroPython."""
import sys

from box import buzzer, panels, keys, pincheck, pins, runtime
from box.ht16k33 import HT16K33, RETRY_MS

# What init() writes to a blank display: the RAM address, 14 blank bytes, the canary in
# RAM 14 and 15 (COM7, wired to no segment).
CANARY_RAM = bytes(15) + b"\xa5\x5a"

MPY = sys.implementation.name == "micropython"

# The card shapes of the rules (segments a = bit 0 ... g = bit 6), faces 0-F, G, H.
RULINGS_CARDS = (
    ("0", 0x3F), ("1", 0x06), ("2", 0x5B), ("3", 0x4F), ("4", 0x66), ("5", 0x6D),
    ("6", 0x7D), ("7", 0x07), ("8", 0x7F), ("9", 0x6F), ("A", 0x77), ("b", 0x7C),
    ("C", 0x39), ("d", 0x5E), ("E", 0x79), ("F", 0x71), ("G", 0x3D), ("H", 0x76),
)


def no_alloc(fn):
    """Call fn(); under MicroPython report whether it ran with the heap locked."""
    if not MPY:
        fn()
        return True
    import micropython
    ok = False
    micropython.heap_lock()
    try:
        fn()
        ok = True
    except MemoryError:
        pass
    finally:
        micropython.heap_unlock()
    return ok


def raises(exc, fn, *args):
    try:
        fn(*args)
    except exc:
        return True
    return False


# ---------------------------------------------------------------- fakes

class FakeChip:
    """An I2C bus with one HT16K33 that applies RAM writes; can record, fail or NACK."""

    def __init__(self, address=0x70):
        self.address = address
        self.ram = bytearray(16)
        self.log = []
        self.record = True
        self.fail = False
        self.short_ack = False
        self.noread = False  # answers writes, not reads
        self.reads = 0
        self.attempts = 0
        self.bytes = 0

    def writeto(self, addr, buf):
        self.attempts += 1
        if self.fail or addr != self.address:
            raise OSError(19)  # ENODEV
        if self.short_ack:
            return 0
        self.bytes += len(buf)
        if self.record:
            self.log.append(bytes(buf))
        if len(buf) and buf[0] < 16:
            for i in range(1, len(buf)):
                self.ram[(buf[0] + i - 1) & 15] = buf[i]
        return len(buf)

    def readfrom_mem_into(self, addr, reg, buf):
        self.attempts += 1
        if self.fail or self.noread or addr != self.address:
            raise OSError(5)  # EIO
        self.reads += 1
        for i in range(len(buf)):
            buf[i] = self.ram[(reg + i) & 15]

    def take(self):
        out = self.log
        self.log = []
        return out


class FakeHw:
    """A 4x4 matrix and buttons; rows read back their level, columns see pressed keys."""

    def __init__(self):
        self.level = bytearray(b"\x01\x01\x01\x01")
        self.down = bytearray(16)  # row * 4 + col
        self.rows = [RowPin(self, r) for r in range(4)]
        self.cols = [ColPin(self, c) for c in range(4)]


class RowPin:
    def __init__(self, board, r):
        self.board = board
        self.r = r

    def value(self, v=None):
        if v is None:
            return self.board.level[self.r]
        self.board.level[self.r] = v


class ColPin:
    def __init__(self, board, c):
        self.board = board
        self.c = c

    def value(self, v=None):
        b = self.board
        for r in range(4):
            if b.level[r] == 0 and b.down[r * 4 + self.c]:
                return 0
        return 1


class ButtonPin:
    def __init__(self):
        self.level = 1

    def value(self, v=None):
        return self.level


class Clock:
    def __init__(self, t=0):
        self.t = t

    def __call__(self):
        return self.t


BUTTON_NAMES = ("AS", "PLAY", "PASS", "DEL", "UNDO", "MENU", "G", "H")


def make_keys(long_keys=None, t=0):
    board = FakeHw()
    btns = [(n, ButtonPin()) for n in BUTTON_NAMES]
    clock = Clock(t)
    codes = pins.key_codes(("123A", "456B", "789C", "E0FD"), btns, 16)
    k = keys.Keys(board.rows, board.cols, btns, codes, clock)
    if long_keys is not None:   # only those report long presses, as App sets its own
        for c in range(keys.COUNT):
            k.set_long(c, c in long_keys)
    return k, board, dict(btns), clock


def run(k, clock, t, collect):
    clock.t = t
    n = k.poll()
    for i in range(n):
        collect.append((t, k.events[i]))
    return n


# ---------------------------------------------------------------- font

def test_card_shapes_are_the_rulings_masks():
    for ch, m in RULINGS_CARDS:
        assert panels.mask(ch) == m, ch
        assert panels.mask(ch.upper()) == m, ch  # the keypad legend and FACES are uppercase
    assert panels.mask("a") == 0x77 and panels.mask("B") == 0x7C and panels.mask("D") == 0x5E
    for v in range(18):
        assert panels.face(v) == RULINGS_CARDS[v][1]
        assert panels.FACES[v] == RULINGS_CARDS[v][0].upper()


def test_font_cases_codes_and_unknowns():
    assert panels.mask("c") != panels.mask("C") and panels.mask("o") != panels.mask("O")
    assert panels.mask("r") == panels.mask("R") == 0x50
    assert panels.mask(ord("7")) == 0x07
    assert panels.mask(" ") == 0 and panels.mask("K") == 0 and panels.mask("~") == 0
    assert panels.mask("\u00e9") == 0
    assert panels.mask("-") == 0x40 and panels.mask("_") == 0x08
    for ch in panels.chars():
        assert panels.mask(ch) < 0x80, ch  # no glyph lights the point
        assert ch == " " or panels.mask(ch), ch


def test_font_mask_does_not_allocate():
    out = bytearray(1)

    def f():
        out[0] = panels.mask("E") | panels.mask(57)
    f()
    assert no_alloc(f)
    assert out[0] == 0x79 | 0x6F


# ---------------------------------------------------------------- HT16K33

def panel(s):
    """A panel as box.screens draws one with box.panels, from bytes: each character a digit
    (panels.mask), a '.' lighting the point of the one before it, a ':' the colon."""
    buf = bytearray(panels.SIZE)
    pos = -1
    for c in s:
        if c == 46:
            panels.dot(buf, 0, pos)
        elif c == 58:
            panels.colon(buf, 0)
        else:
            pos += 1
            panels.put(buf, 0, pos, panels.mask(c))
    return buf


def send(d, buf):
    """Hand a panel to the driver as box.app does: raw() for each digit, then colon()."""
    for pos in range(4):
        d.raw(pos, buf[pos])
    d.colon(buf[4])


def test_init_sequence():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)
    assert d.online
    assert chip.take() == [b"\x21", CANARY_RAM, b"\x81", b"\xef"]
    assert d.bytes_written == 1 + 17 + 1 + 1


def test_show_writes_only_changed_bytes():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)
    chip.take()
    send(d, panel(b"12"))
    assert d.show()
    assert chip.take() == [b"\x00\x06\x00\x5b"]  # RAM 0 and 2: one write
    d.show()
    assert chip.take() == []
    send(d, panel(b"13"))
    d.show()
    assert chip.take() == [b"\x02\x4f"]
    d.colon(True)
    d.show()
    assert chip.take() == [b"\x04\x02"]
    assert chip.ram == d.ram
    assert d.bytes_written == chip.bytes


def bus_bytes(writes):
    """Bytes on the wire: each write's address byte, then its register and data bytes."""
    return sum(1 + len(w) for w in writes)


def test_one_changed_digit_is_one_write_of_3_bus_bytes():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)
    chip.take()
    d.raw(1, 0x06)
    d.show()
    writes = chip.take()
    assert writes == [b"\x02\x06"] and bus_bytes(writes) == 3


def test_digits_one_position_apart_share_a_write_far_apart_do_not():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)
    d.colon(True)
    d.show()
    chip.take()
    d.raw(1, 0x06)   # RAM 2
    d.raw(2, 0x5B)   # RAM 6: the colon (RAM 4) between them is unchanged, and so is RAM 3, 5
    d.show()
    assert chip.take() == [b"\x02\x06", b"\x06\x5b"]  # 3 + 3 bus bytes, not 2 + 5
    d.raw(2, 0x4F)   # RAM 6
    d.raw(3, 0x66)   # RAM 8: only RAM 7 between them
    d.show()
    assert chip.take() == [b"\x06\x4f\x00\x66"]  # 5 bus bytes, not 3 + 3
    d.raw(0, 0x3F)   # RAM 0
    d.raw(3, 0x7F)   # RAM 8
    d.show()
    assert chip.take() == [b"\x00\x3f", b"\x08\x7f"]
    d.raw(1, 0x07)   # RAM 2, 4 (colon off), 6: one write, the gaps are single bytes
    d.colon(False)
    d.raw(2, 0x6D)
    d.show()
    assert chip.take() == [b"\x02\x07\x00\x00\x00\x6d"]
    assert chip.ram == d.ram


def test_a_whole_new_content_is_one_write_of_11_bus_bytes():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)
    send(d, panel(b"12:34"))
    d.show()
    chip.take()
    send(d, panel(b"5.67.8"))   # every digit and the colon change
    d.show()
    writes = chip.take()
    assert len(writes) == 1 and writes[0][0] == 0 and bus_bytes(writes) == 11
    assert chip.ram == d.ram


def test_the_gap_sent_again_carries_what_the_chip_holds():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)
    for a in range(16):
        d.ram[a] = 0x10 + a
    d.show()
    chip.take()
    for a in (5, 6, 7, 9):
        d.ram[a] = a
    d.show()
    assert chip.take() == [b"\x05\x05\x06\x07\x18\x09"]  # RAM 8 unchanged, sent again
    d.ram[3] = 0
    d.ram[6] = 1   # 2 unchanged between: the same bytes either way, one write
    d.ram[10] = 2  # 3 unchanged between: a new write costs less
    d.show()
    assert chip.take() == [b"\x03\x00\x14\x05\x01", b"\x0a\x02"]
    assert chip.ram == d.ram


def fewest(changed):
    """(bus bytes, writes) of the best grouping of the changed RAM addresses, by trying every
    split into consecutive groups (a write costs its address and register bytes + its span)."""
    best = [(0, 0)]
    for j in range(1, len(changed) + 1):
        options = []
        for i in range(j):
            b, w = best[i]
            options.append((b + 2 + changed[j - 1] - changed[i] + 1, w + 1))
        best.append(min(options))
    return best[-1]


def test_show_sends_the_fewest_bus_bytes_in_the_fewest_writes():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)
    x = 12345
    for _ in range(300):
        chip.take()
        changed = []
        for a in range(16):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            if (x >> 16) % 3 == 0:
                d.ram[a] ^= 1 + (x >> 8) % 255
                changed.append(a)
        d.show()
        writes = chip.take()
        assert (bus_bytes(writes), len(writes)) == fewest(changed), (changed, writes)
        assert chip.ram == d.ram


def test_brightness_is_set_with_the_chip():
    chip = FakeChip(0x71)
    HT16K33(chip, 0x71, brightness=4)
    assert chip.take() == [b"\x21", CANARY_RAM, b"\x81", b"\xe4"]
    HT16K33(chip, 0x71, brightness=0x13)   # 0..15: the low four bits
    assert chip.take() == [b"\x21", CANARY_RAM, b"\x81", b"\xe3"]


def test_digit_colon_and_clear_layout():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)

    def digits():
        return [d.ram[a] for a in (0, 2, 6, 8)]
    send(d, panel(b"F.2:5"))
    assert digits() == [0x71 | 0x80, 0x5B, 0x6D, 0] and d.ram[4] == 0x02
    send(d, panel(b"1.2.3.4."))
    assert digits() == [0x86, 0xDB, 0xCF, 0xE6] and d.ram[4] == 0
    d.raw(3, 0x1FF)
    assert digits() == [0x86, 0xDB, 0xCF, 0xFF]
    d.colon(True)
    d.colon(False)
    assert d.ram[4] == 0
    d.clear()
    assert d.ram == bytearray(CANARY_RAM[1:])   # blank: nothing but the canary


def test_check_reads_the_canary_and_writes_nothing_while_it_is_there():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)
    send(d, panel(b"12"))
    d.show()
    chip.take()
    assert d.check() is True
    assert chip.reads == 1 and chip.take() == []


def test_check_re_sends_a_chip_that_lost_power():
    chip = FakeChip()
    d = HT16K33(chip, 0x70, brightness=7)
    send(d, panel(b"3"))
    d.show()
    chip.ram[:] = bytes(16)   # powered up again: blank, oscillator off
    chip.take()
    assert d.check() is True
    image = bytearray(CANARY_RAM)
    image[1] = 0x4F
    assert chip.take() == [b"\x21", bytes(image), b"\x81", b"\xe7"]
    assert d.check() is True and chip.take() == []   # the canary is back


def test_check_re_sends_a_chip_that_cannot_be_read_and_stays_online():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)
    chip.noread = True
    chip.take()
    for _ in range(2):
        assert d.check() is True and d.online
        assert [w[:1] for w in chip.take()] == [b"\x21", b"\x00", b"\x81", b"\xef"]
    assert chip.reads == 0


def test_check_of_a_chip_that_went_away_takes_it_offline():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)
    chip.fail = True
    assert d.check() is False and not d.online and d.errors == 1
    chip.fail = False
    assert d.service(0) is False   # the retry clock starts
    assert d.service(RETRY_MS) is True
    assert d.check() is True and chip.reads == 1   # still read, not re-sent


def test_offline_then_recovery_rewrites_everything():
    chip = FakeChip()
    d = HT16K33(chip, 0x70, brightness=7)
    send(d, panel(b"12"))
    d.show()
    chip.fail = True
    send(d, panel(b"34"))
    assert d.show() is False  # no exception reaches the caller
    assert not d.online and d.errors == 1
    tries = chip.attempts
    assert d.service(1000) is False  # starts the retry clock
    assert d.service(1000 + RETRY_MS - 1) is False
    assert chip.attempts == tries
    assert d.service(1000 + RETRY_MS) is False  # one try, still unplugged
    assert chip.attempts == tries + 1
    assert d.service(1000 + RETRY_MS + 500) is False
    assert chip.attempts == tries + 1
    chip.fail = False
    chip.ram[:] = b"\xaa" * 16  # a chip that lost power holds garbage
    chip.take()
    assert d.service(1000 + 2 * RETRY_MS) is True
    assert d.online
    image = bytearray(CANARY_RAM)
    image[1] = 0x4F  # "3" at RAM 0
    image[3] = 0x66  # "4" at RAM 2
    assert chip.take() == [b"\x21", bytes(image), b"\x81", b"\xe7"]   # brightness 7 again
    assert chip.ram == d.ram
    d.service(1000 + 2 * RETRY_MS + 1)
    assert chip.take() == []


def test_offline_at_power_up_and_short_ack():
    chip = FakeChip()
    chip.fail = True
    d = HT16K33(chip, 0x70)
    assert not d.online and d.show() is False
    chip.fail = False
    d.service(0)
    assert not d.online
    d.service(RETRY_MS)
    assert d.online
    chip.short_ack = True  # the chip NACKs data bytes
    send(d, panel(b"8"))
    assert d.show() is False and not d.online


def test_retry_survives_tick_wraparound():
    chip = FakeChip()
    d = HT16K33(chip, 0x70)
    chip.fail = True
    send(d, panel(b"1"))
    d.show()
    start = (1 << 30) - 300
    d.service(start)
    chip.fail = False
    assert d.service(100) is False  # 400 ms later, wrapped
    assert d.service(start + RETRY_MS - (1 << 30)) is True


def test_show_raw_and_colon_do_not_allocate():
    chip = FakeChip()
    chip.record = False
    d = HT16K33(chip, 0x70)
    msgs = tuple(panel(s) for s in (b"12:34", b"F.2.", b"  -1", b"bEEF"))
    state = [0]

    def step():
        send(d, msgs[state[0] & 3])
        state[0] += 1
        d.show()
    step()
    step()
    assert no_alloc(d.show)
    for _ in range(6):
        assert no_alloc(step)
    assert chip.ram == d.ram


# ---------------------------------------------------------------- keys

def test_key_names_and_codes():
    assert len(keys.NAMES) == keys.COUNT == 24
    assert keys.code("a") == 10 and keys.code("F") == 15
    assert keys.code("G") == keys.G == 16 and keys.code("H") == keys.H == 17
    for name in ("AS", "PLAY", "PASS", "DEL", "UNDO", "MENU"):
        assert keys.NAMES[keys.code(name)] == name
    assert keys.MENU == 23 and keys.AS == 18
    assert raises(ValueError, keys.code, "X")


def test_key_codes_from_the_legend_and_button_names():
    btns = [("MENU", None), ("g", None)]
    assert pins.key_codes(("12", "aF"), btns, 4) == bytes([1, 2, 10, 15, keys.MENU, keys.G])
    assert raises(ValueError, pins.key_codes, ("12", "3"), btns, 4)   # a key short
    assert raises(ValueError, pins.key_codes, ("12", "3X"), btns, 4)  # X names no key
    assert raises(ValueError, pins.key_codes, ("12", "34"), [("OK", None)], 4)


def test_every_matrix_key_gives_its_legend_code():
    k, board, _, clock = make_keys()
    legend = "123A456B789CE0FD"
    t = 0
    for i in range(16):
        board.down[i] = 1
        got = []
        run(k, clock, t, got)
        run(k, clock, t + 25, got)
        board.down[i] = 0
        run(k, clock, t + 50, got)
        run(k, clock, t + 75, got)
        assert got == [(t + 25, keys.code(legend[i]))], (legend[i], got)
        t += 100
    assert board.level == bytearray(b"\x01\x01\x01\x01")  # rows released after the scan


def test_debounce_one_press_per_bouncy_press():
    k, board, _, clock = make_keys()
    got = []
    for t in range(0, 10, 2):  # contact bounces for 8 ms
        board.down[5] = (t // 2) % 2 == 0
        run(k, clock, t, got)
    board.down[5] = 1
    for t in range(10, 40):
        run(k, clock, t, got)
    for t in range(40, 50, 2):  # bouncing release
        board.down[5] = (t // 2) % 2
        run(k, clock, t, got)
    board.down[5] = 0
    for t in range(50, 120):
        run(k, clock, t, got)
    assert got == [(28, 5)]  # 20 ms after the last bounce
    assert not k.held(5)


def test_short_glitch_is_ignored():
    k, board, btns, clock = make_keys()
    got = []
    board.down[0] = 1
    btns["PASS"].level = 0
    for t in range(0, 19):
        run(k, clock, t, got)
    board.down[0] = 0
    btns["PASS"].level = 1
    for t in range(19, 100):
        run(k, clock, t, got)
    assert got == []


def test_buttons_held_and_read():
    k, board, btns, clock = make_keys()
    btns["MENU"].level = 0
    assert runtime.held_now(k, keys.MENU) and not runtime.held_now(k, keys.DEL)
    board.down[13] = 1  # row 3 col 1 = '0'
    assert runtime.held_now(k, 0) and not runtime.held_now(k, 1)
    got = []
    run(k, clock, 0, got)
    assert not k.held(keys.MENU)
    run(k, clock, 20, got)
    assert k.held(keys.MENU) and k.held(0)
    assert sorted(e for _, e in got) == [0, keys.MENU]


def test_long_press_once_while_held():
    k, board, btns, clock = make_keys()
    got = []
    btns["DEL"].level = 0
    for t in range(0, 2000, 5):
        run(k, clock, t, got)
    btns["DEL"].level = 1
    for t in range(2000, 2100, 5):
        run(k, clock, t, got)
    assert got == [(20, keys.DEL), (700, keys.LONG | keys.DEL)]
    assert got[1][1] & keys.CODE == keys.DEL
    btns["DEL"].level = 0  # a second press gets its own events
    for t in range(2100, 2900, 5):
        run(k, clock, t, got)
    assert got[2:] == [(2120, keys.DEL), (2800, keys.LONG | keys.DEL)]


def test_long_press_only_for_enabled_keys():
    k, board, btns, clock = make_keys(long_keys=(keys.UNDO,))
    got = []
    board.down[0] = 1
    btns["UNDO"].level = 0
    for t in range(0, 1000, 10):
        run(k, clock, t, got)
    assert [e for _, e in got] == [1, keys.UNDO, keys.LONG | keys.UNDO]
    k.set_long(1, True)
    board.down[0] = 0
    for t in range(1000, 1100, 10):
        run(k, clock, t, got)
    board.down[0] = 1
    for t in range(1100, 2000, 10):
        run(k, clock, t, got)
    assert [e for _, e in got[3:]] == [1, keys.LONG | 1]


def test_keys_survive_tick_wraparound():
    start = (1 << 30) - 10
    k, board, _, clock = make_keys(t=start)
    got = []
    run(k, clock, start, got)
    board.down[3] = 1
    run(k, clock, start + 5, got)
    run(k, clock, 5, got)  # wrapped: 10 ms later
    run(k, clock, 15, got)  # 20 ms later
    assert got == [(15, 10)]


def test_poll_does_not_allocate():
    k, board, btns, clock = make_keys()
    for t in range(0, 40, 5):
        clock.t = t
        k.poll()
    assert no_alloc(k.poll)
    board.down[7] = 1
    btns["H"].level = 0
    counts = []
    for t in range(40, 800, 5):
        clock.t = t
        n = [0]

        def once():
            n[0] = k.poll()
        assert no_alloc(once), t
        if n[0]:
            counts.append((t, n[0], k.events[0], k.events[1] if n[0] > 1 else None))
    assert counts == [(60, 2, 11, keys.H), (740, 2, keys.LONG | 11, keys.LONG | keys.H)]


# ---------------------------------------------------------------- buzzer

class FakePWM:
    def __init__(self):
        self.hz = 0
        self.duty = None
        self.calls = 0

    def freq(self, hz):
        self.hz = hz
        self.calls += 1

    def duty_u16(self, d):
        self.duty = d
        self.calls += 1


def test_buzzer_absent_is_a_no_op():
    b = buzzer.Buzzer()
    b.play(buzzer.ACCEPT, 0)
    b.service(10)
    b.stop()
    assert not b.busy()


def test_buzzer_sequence_is_non_blocking():
    pwm = FakePWM()
    b = buzzer.Buzzer(pwm, Clock(0))
    assert pwm.duty == 0
    b.play(buzzer.REJECT, 1000)
    assert (pwm.hz, pwm.duty) == (220, 32768) and b.busy()
    b.service(1119)
    assert pwm.duty == 32768
    b.service(1120)
    assert pwm.duty == 0 and b.busy()  # the rest
    b.service(1170)
    assert (pwm.hz, pwm.duty) == (220, 32768)
    b.service(1329)
    assert b.busy()
    b.service(1330)
    assert pwm.duty == 0 and not b.busy()


def test_buzzer_mute_clock_and_no_allocation():
    pwm = FakePWM()
    clock = Clock(50)
    b = buzzer.Buzzer(pwm, clock)
    b.enabled = False
    b.play(buzzer.REVOLUTION)
    assert not b.busy() and pwm.hz == 0
    b.enabled = True
    b.play(buzzer.REVOLUTION)
    heard = [pwm.hz]
    for t in range(50, 600, 10):
        clock.t = t
        assert no_alloc(b.service)
        if b.busy() and pwm.hz != heard[-1]:
            heard.append(pwm.hz)
    assert heard == [523, 659, 784, 1047] and not b.busy()


# ---------------------------------------------------------------- pin map

def _map_path():
    here = __file__.replace("\\", "/")
    tests = here[: here.rfind("/")]
    return tests + "/../../firmware/pinmap.json"


def test_pin_map_is_consistent():
    m = pins.load(_map_path())
    assert pincheck.problems(m) == []
    gpios = [g for g, _ in pincheck.used(m)]
    assert len(gpios) == len(set(gpios)) == 19
    assert pins.addresses(m) == [0x70, 0x71, 0x72, 0x73]
    assert [n for n, _ in pins.buttons(m)] == list(BUTTON_NAMES)
    assert m["i2c"]["freq"] == 400000
    assert pins.buzzer_gpio(m) is not None
    assert "".join(sorted("".join(m["keypad"]["legend"]))) == "0123456789ABCDEF"
    assert m["maintenance_key"] == "MENU"


def test_pin_map_is_read_from_the_littlefs_alone():
    here = _map_path()
    assert pins.load(here)["i2c"]["sda"] == 4
    assert raises(OSError, pins.load, here[: here.rfind("/")] + "/no-such-pinmap.json")


def test_pin_map_problems_are_found():
    m = pins.load(_map_path())
    m["buttons"][0]["gpio"] = m["i2c"]["sda"]
    m["i2c"]["scl"] = 6
    m["displays"][1]["address"] = 0x70
    m["keypad"]["legend"][3] = "E0FF"
    m["buzzer"] = None
    errs = pincheck.problems(m)
    assert len(errs) == 5, errs
    assert pins.buzzer_gpio(m) is None


def test_display_kinds_come_from_the_map():
    """A display without a kind is an HT16K33; a kind with no driver is a problem the
    self-test names, and the runtime refuses to build it."""
    from box import runtime
    m = pins.load(_map_path())
    assert pins.displays(m) == [("ht16k33", a) for a in pins.addresses(m)]
    m["displays"][0]["kind"] = "ht16k33"
    m["displays"][2]["kind"] = "max7219"
    assert pins.displays(m)[2] == ("max7219", 0x72)
    errs = pincheck.problems(m)
    assert len(errs) == 1 and "max7219" in errs[0], errs
    bus = FakeChip(0x71)
    d = runtime.display("ht16k33", bus, 0x71)
    assert isinstance(d, HT16K33) and not d.online and not bus.log   # dark until the app
    assert d.init() and d.online and bus.log                         # lights it, on that bus
    assert raises(ValueError, runtime.display, "max7219", bus, 0x72)
