"""4x4 hex keypad matrix plus direct buttons: debounced press and long-press events.

Hardware is injected: row pins (outputs, best open drain, idle high), column pins (inputs
with pull-ups), button pins (inputs with pull-ups, pressed = 0) and a ticks_ms-like clock.
Key codes: 0..15 = faces 0-F, 16 = G, 17 = H, then AS, PLAY, PASS, DEL, UNDO, MENU.

poll() scans once and returns how many events it found; they are in `events[0:n]`, each
a key code, or LONG | code for a long press. A key's state must be stable for DEBOUNCE_MS
before it counts, so a bouncing contact gives one press and shorter glitches none. A long
press is reported once, when a key with long presses enabled has been down for LONG_MS.
"""
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

from box import ticks_diff
from tycoon.cards import G, H   # a face key's code is its value
AS = const(18)
PLAY = const(19)
PASS = const(20)
DEL = const(21)
UNDO = const(22)
MENU = const(23)
COUNT = const(24)
LONG = const(0x80)  # flag on a long-press event
CODE = const(0x1F)  # event & CODE = key code
DEBOUNCE_MS = const(20)
LONG_MS = const(700)
_UP = bytes(COUNT)   # every key up

NAMES = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F",
         "G", "H", "AS", "PLAY", "PASS", "DEL", "UNDO", "MENU")


def code(name):
    """Key code of a name from NAMES (hex faces in either case); ValueError if unknown."""
    return NAMES.index(name.upper())



class Keys:
    """Scanner for the keypad matrix (rows x cols) and the direct buttons."""

    def __init__(self, rows, cols, buttons, codes, ticks_ms):
        """rows, cols: the matrix's pins; buttons: list of (name, pin); codes: the key code of
        each matrix key, row by row and left to right, then of each button (box.pins.key_codes
        makes them from the pin map at power-up). Every key reports long presses until
        set_long() says otherwise."""
        self.rows = tuple(rows)
        self.cols = tuple(cols)
        self.buttons = tuple(p for _, p in buttons)
        n = len(self.rows) * len(self.cols)
        self._mcode = codes[:n]  # matrix index -> code
        self._bcode = codes[n:]
        self._clock = ticks_ms
        self._raw = bytearray(COUNT)  # last reading, 1 = down
        self._state = bytearray(COUNT)  # debounced state
        self._long_sent = bytearray(COUNT)
        self._long_ok = bytearray(b"\x01" * COUNT)
        self._changed = [0] * COUNT  # time of the last raw change
        self.events = bytearray(COUNT)  # a key gives at most one event per poll
        for p in self.rows:
            p.value(1)

    def set_long(self, key, on):
        """Enable or disable long-press events for one key code."""
        self._long_ok[key] = 1 if on else 0

    def poll(self, now_ms=None):
        """Scan once; returns the number of new events in self.events."""
        now = self._clock() if now_ms is None else now_ms
        raw = self._raw
        changed = self._changed
        # Read every contact, noting when one changes. The loops are flat and use locals:
        # on the Pico this scan runs every pass of the main loop (docs/performance.md).
        mcode = self._mcode
        cols = self.cols
        i = 0
        for row in self.rows:
            row.value(0)
            for col in cols:
                k = mcode[i]
                i += 1
                d = 0 if col.value() else 1
                if d != raw[k]:
                    raw[k] = d
                    changed[k] = now
            row.value(1)
        bcode = self._bcode
        i = 0
        for pin in self.buttons:
            k = bcode[i]
            i += 1
            d = 0 if pin.value() else 1
            if d != raw[k]:
                raw[k] = d
                changed[k] = now
        state = self._state
        if raw == state and state == _UP:
            return 0   # nothing down and nothing changing: the usual pass
        n = 0
        long_sent = self._long_sent
        for k in range(COUNT):
            r = raw[k]
            if r != state[k]:
                if ticks_diff(now, changed[k]) >= DEBOUNCE_MS:
                    state[k] = r
                    long_sent[k] = 0
                    if r:
                        self.events[n] = k
                        n += 1
            elif r and self._long_ok[k] and not long_sent[k] \
                    and ticks_diff(now, changed[k]) >= LONG_MS:
                long_sent[k] = 1
                self.events[n] = LONG | k
                n += 1
        return n

    def held(self, key):
        """Whether a key is down after debouncing (as of the last poll)."""
        return self._state[key] == 1
