"""Seven-segment glyphs: segment masks with a = bit 0 ... g = bit 6 and dp = bit 7."""
from tycoon.cards import CHARS, SHAPES

DP = 0x80

# Card faces in value order 0-F, G, H: the engine's shapes of the rules (tycoon.cards).
FACES = CHARS
CARDS = SHAPES

# (characters, mask): every character in the string gets the mask. Both cases of a letter
# share one shape except C/c, H/h, I/i, O/o and U/u.
_GLYPHS = (
    ("0", 0x3F), ("1", 0x06), ("2", 0x5B), ("3", 0x4F), ("4", 0x66),
    ("5Ss", 0x6D), ("6", 0x7D), ("7", 0x07), ("8", 0x7F), ("9", 0x6F),
    ("Aa", 0x77), ("Bb", 0x7C), ("C", 0x39), ("Dd", 0x5E), ("Ee", 0x79),
    ("Ff", 0x71), ("Gg", 0x3D), ("H", 0x76),
    ("c", 0x58), ("h", 0x74), ("I", 0x30), ("i", 0x10), ("Jj", 0x1E), ("Ll", 0x38),
    ("Nn", 0x54), ("O", 0x3F), ("o", 0x5C), ("Pp", 0x73), ("Qq", 0x67), ("Rr", 0x50),
    ("Tt", 0x78), ("U", 0x3E), ("u", 0x1C), ("Yy", 0x6E),
    (" ", 0x00), ("-", 0x40), ("_", 0x08), ("=", 0x48),
)

# One byte per ASCII code 32..127; characters without a glyph are blank.
_TABLE = bytearray(96)
for _chars, _m in _GLYPHS:
    for _ch in _chars:
        _TABLE[ord(_ch) - 32] = _m


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
    return "".join(c for c, _ in _GLYPHS)
