"""One HT16K33 4-digit 7-segment backpack (Adafruit 0.56" layout) on an injected I2C bus.

The I2C object needs `writeto(addr, buf)` and `readfrom_mem_into(addr, reg, buf)`
(MicroPython's machine.I2C). Drawing calls (raw, colon, clear) change a RAM image in memory;
show() sends only the bytes that changed, in as few writes as make the fewest bytes on the
bus. Each write costs 2 bytes besides its data (the chip's I2C address and the RAM address),
so two changed runs share one write, the unchanged bytes between them sent again, when that
gap is at most 2 bytes (at 2 the bus bytes are the same, and one write fewer is quicker): one
changed digit is a write of 3 bus bytes, two neighbouring digits (RAM 0 and 2) one write of 5,
a whole new content one write of 11. A bus error never reaches the caller: the display goes
offline, and service(now_ms) tries again at most every RETRY_MS, re-initialising the chip and
rewriting its RAM once it answers. The brightness is set once, when the chip is set up; the
box draws its text with box.panels and never blinks (a text or blink method here would be
code in the box's heap that nothing calls).

A display unplugged and plugged back while nothing changed raises no error, yet comes back
dark (a chip powers up off, its RAM not ours). check() finds that out cheaply: the last two
RAM bytes (COM7, which the backpack does not wire to any segment) hold a canary that init()
writes with the rest; check() reads them back (5 bytes on the bus) and calls init() (4
writes, 24 bytes) only when they are gone. A chip that answers writes but not reads is
re-initialised at each check instead. The app calls check() for one display in turn every
few seconds (box.app REFRESH_MS).
"""
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

from box import ticks_diff

_OSC_ON = const(0x21)
_DISPLAY_ON = const(0x81)  # not blinking
_DIMMING = const(0xE0)  # | brightness 0..15
_COLON_ADDR = const(4)
_COLON_BIT = const(0x02)
RETRY_MS = const(1000)
_MERGE_GAP = const(2)  # unchanged bytes between two changed runs still sent in one write
_CANARY_AT = const(14)  # RAM 14 and 15 (COM7): lit by nothing, read back by check()
_CANARY_0 = const(0xA5)
_CANARY_1 = const(0x5A)
POSITIONS = (0, 2, 6, 8)  # RAM address of digits 0..3, left to right

# One write's bytes (the register, then up to 16 of RAM) and its prefixes, so that writes
# never allocate; with the read-back buffer, shared by every display: a write or read is done
# before the next begins, and on the official MicroPython each set costs about 400 B of heap.
_TX = bytearray(17)
_VIEWS = tuple(memoryview(_TX)[:n] for n in range(18))
_BACK = bytearray(2)  # the canary as read back



class HT16K33:
    """A 4-digit display at `address`; `online` tells whether the chip answered last time.
    `lit` False leaves the chip dark (and offline) until init(): power-up makes its displays
    so, and the app lights them once the journal is read, when it takes keys (box.app)."""

    def __init__(self, i2c, address, brightness=15, lit=True):
        self.i2c = i2c
        self.address = address
        self.online = False
        self.bytes_written = 0  # payload bytes accepted by the bus (commands and RAM)
        self.errors = 0  # bus errors seen
        self.ram = bytearray(16)  # wanted RAM image; read it, draw with the methods below
        self.ram[_CANARY_AT] = _CANARY_0
        self.ram[_CANARY_AT + 1] = _CANARY_1
        self._chip = bytearray(16)  # what the chip holds as far as we know
        self._readable = True  # the chip answered reads (or has not been asked yet)
        self._brightness = brightness & 15
        self._last_try = None
        if lit:
            self.init()

    def init(self):
        """Send the setup and the RAM (4 writes); returns online. Never raises OSError."""
        try:
            self._command(_OSC_ON)
            tx = _TX
            tx[0] = 0
            for i in range(16):
                tx[i + 1] = self.ram[i]
            self._send(17)
            for i in range(16):
                self._chip[i] = self.ram[i]
            self._command(_DISPLAY_ON)
            self._command(_DIMMING | self._brightness)
            self.online = True
        except OSError:
            self._fail()
        return self.online

    def service(self, now_ms):
        """Call from the main loop: show() while online, else retry at most every RETRY_MS."""
        if self.online:
            return self.show()
        if self._last_try is None:
            self._last_try = now_ms  # the retry clock starts at the first call after a failure
            return False
        if ticks_diff(now_ms, self._last_try) < RETRY_MS:
            return False
        ok = self.init()
        self._last_try = now_ms  # init() failing clears it
        return ok

    def show(self):
        """Write the RAM bytes that changed since the last successful write; returns online."""
        if not self.online:
            return False
        ram = self.ram
        chip = self._chip
        if ram == chip:
            return True   # nothing changed: the usual pass of the main loop
        tx = _TX
        try:
            # One pass: each changed byte joins the pending write, or starts one; unchanged
            # bytes after it are copied too while at most _MERGE_GAP of them lie between two
            # changed ones (a new write costs 2 bytes); one more and the write goes out
            # through its last changed byte. The chip's image is updated as bytes are read:
            # if a write fails, the display goes offline and init() rewrites it all.
            n = 0  # bytes in tx, the register first; 0: no write pending
            end = 0  # bytes of tx through the last changed one
            for i in range(16):
                v = ram[i]
                if v != chip[i]:
                    chip[i] = v
                    if not n:
                        tx[0] = i
                        n = 1
                    tx[n] = v
                    n += 1
                    end = n
                elif n:
                    if n - end < _MERGE_GAP:
                        tx[n] = v
                        n += 1
                    else:
                        self._send(end)
                        n = 0
            if n:
                self._send(end)
        except OSError:
            self._fail()
        return self.online

    def check(self):
        """Make sure a display that is online still holds its setup and RAM: read the canary
        back and re-initialise the chip when it is gone; returns online. Never raises."""
        if not self.online:
            return False
        if self._readable:
            try:
                back = _BACK
                self.i2c.readfrom_mem_into(self.address, _CANARY_AT, back)
                if back[0] == _CANARY_0 and back[1] == _CANARY_1:
                    return True
            except OSError:
                if self.init():
                    self._readable = False  # answers writes, not reads: re-send at each check
                return self.online
        return self.init()

    def raw(self, pos, mask):
        """Set digit pos (0 = leftmost) to a segment mask (bit 7 = its decimal point)."""
        self.ram[POSITIONS[pos]] = mask & 0xFF

    def colon(self, on):
        """Light or clear the colon between digits 1 and 2."""
        if on:
            self.ram[_COLON_ADDR] |= _COLON_BIT
        else:
            self.ram[_COLON_ADDR] &= ~_COLON_BIT & 0xFF

    def clear(self):
        """Blank every digit, point and the colon."""
        for i in range(_CANARY_AT):
            self.ram[i] = 0

    def _fail(self):
        self.online = False
        self.errors += 1
        self._last_try = None

    def _command(self, byte):
        _TX[0] = byte
        self._send(1)

    def _send(self, n):
        acked = self.i2c.writeto(self.address, _VIEWS[n])
        # machine.I2C returns the number of ACKed bytes; fakes may return None.
        if acked is not None and acked < n:
            raise OSError(5)  # EIO
        self.bytes_written += n
