"""The terminal simulator's keyboard: a key from curses becomes a box key, a power cycle, an
unplugged display or a quit (`action`); the key map shown on screen; the keypad's legend as the
pin map lays it out."""
import curses
import functools

from host_tools import resources
from host_tools.virtual.board_link import BUTTONS, HOLD_MS, LONG_MS
from host_tools.virtual.display_text import face_text

def action(key):
    """What a key from curses get_wch() does: ("key", NAME, hold_ms) for a box key,
    ("quit",), ("power",) for a power cycle, ("plug", i) to unplug/replug display i (0-3),
    ("resize",), or None."""
    if isinstance(key, int):
        if key == curses.KEY_RESIZE:
            return ("resize",)
        if key == curses.KEY_ENTER:
            return ("key", "PLAY", HOLD_MS)
        if key == curses.KEY_BACKSPACE:
            return ("key", "DEL", HOLD_MS)
        if key == curses.KEY_DC:
            return ("key", "DEL", LONG_MS)
        for i in range(4):
            if key == curses.KEY_F0 + 1 + i:
                return ("plug", i)
        return None
    if key in ("q", "Q", "\x03"):
        return ("quit",)
    if key == "\x12":
        return ("power",)
    if key in (" ", "\n", "\r"):
        return ("key", "PLAY", HOLD_MS)
    if key in ("\x7f", "\x08"):
        return ("key", "DEL", HOLD_MS)
    if key in "0123456789abcdefghABCDEFGH" and len(key) == 1:
        return ("key", key.upper(), HOLD_MS)
    simple = {"s": "AS", "S": "AS", "=": "AS", "p": "PASS", "P": "PASS", "u": "UNDO",
              "U": "UNDO", "m": "MENU", "x": "DEL"}
    if key in simple:
        return ("key", simple[key], HOLD_MS)
    long = {"M": "MENU", "X": "DEL"}
    if key in long:
        return ("key", long[key], LONG_MS)
    return None


# (box key, keyboard keys) for the on-screen key map, in two columns.
KEYMAP = (
    (("0-F G H", "0-9 a-h"), ("PLAY", "Space Enter")),
    (("AS", "s ="), ("PASS", "p")),
    (("DEL", "Backspace x"), ("long DEL", "Delete X")),
    (("UNDO", "u"), ("quit", "q")),
    (("MENU", "m"), ("long MENU", "M (setup)")),
)

EXTRAS = "^R power  F1-F4 unplug  q quit"
SHORT_KEYS = ("0-9 a-h faces", "Space PLAY", "p PASS", "s AS", "Bksp DEL", "u UNDO",
              "m MENU", "M setup", "q quit")


def short_keys(cols):
    """The key map as few lines of at most cols - 2 characters."""
    lines = [""]
    for item in SHORT_KEYS:
        if lines[-1] and len(lines[-1]) + 2 + len(item) > cols - 2:
            lines.append("")
        lines[-1] += ("  " if lines[-1] else "") + item
    return lines


@functools.lru_cache(maxsize=1)
def legend():
    """The keypad's rows of faces, as the pin map lays them out."""
    rows = resources.load_pinmap()["keypad"]["legend"]
    return [[face_text(c) for c in row] for row in rows]   # as the displays show them: b, d
