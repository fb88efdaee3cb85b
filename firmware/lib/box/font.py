"""Seven-segment glyphs: segment masks with a = bit 0 ... g = bit 6 and dp = bit 7."""
from tycoon.cards import CHARS, SHAPES

DP = 0x80

# Card faces in value order 0-F, G, H: the engine's shapes of the rules (tycoon.cards).
FACES = CHARS
CARDS = SHAPES

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

# Characters, a space, then the mask in hex: every character of a group gets its mask. Both
# cases of a letter share one shape except C/c, H/h, I/i, O/o and U/u. One string: a table of
# tuples would stay in the heap, 38 tuples of it, for as long as the box runs.
_GLYPHS = const("0 3f|1 06|2 5b|3 4f|4 66|5Ss 6d|6 7d|7 07|8 7f|9 6f|"
                "Aa 77|Bb 7c|C 39|Dd 5e|Ee 79|Ff 71|Gg 3d|H 76|"
                "c 58|h 74|I 30|i 10|Jj 1e|Ll 38|Nn 54|O 3f|o 5c|Pp 73|Qq 67|Rr 50|"
                "Tt 78|U 3e|u 1c|Yy 6e|  00|- 40|_ 08|= 48")


def _table():
    # One byte per ASCII code 32..127; characters without a glyph are blank.
    t = bytearray(96)
    for group in _GLYPHS.split("|"):
        for ch in group[:-3]:
            t[ord(ch) - 32] = int(group[-2:], 16)
    return t


_TABLE = _table()


def mask(ch):
    """Segment mask of a character (a 1-char str or its code); 0 when it has no glyph."""
    c = ch if isinstance(ch, int) else ord(ch)
    if 32 <= c < 128:
        return _TABLE[c - 32]
    return 0


def card(value):
    """Segment mask of the card face with value 0..17 (0-F, G, H)."""
    return CARDS[value]


def chars():
    """All characters that have a glyph (for tests and the simulator)."""
    return "".join(group[:-3] for group in _GLYPHS.split("|"))
