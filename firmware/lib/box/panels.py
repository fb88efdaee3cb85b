"""Panels: what the box shows, as 4-digit segment images drawn without allocating, and the
seven-segment glyphs they are drawn with (segment masks with a = bit 0 ... g = bit 6 and
dp = bit 7).

A panel is 5 bytes in a shared bytearray: four digit masks (bit 7 = decimal point) and a
colon flag. Texts are bytes constants, so drawing on a key press creates no objects.
"""
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

from tycoon.cards import CHARS, SHAPES

DP = 0x80

# Card faces in value order 0-F, G, H: the engine's shapes of the rules (tycoon.cards).
FACES = CHARS
CARDS = SHAPES

# The mask of each ASCII code 32..127 (the character above it), 0 for a character without a
# glyph: both cases of a letter share one shape except C/c, H/h, I/i, O/o and U/u. A constant:
# nothing to build at power-up, nothing of it in the heap.
_TABLE = const(
    # sp  !   "   #   $   %   &   '   (   )   *   +   ,   -   .   /
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x40\x00\x00"
    # 0   1   2   3   4   5   6   7   8   9   :   ;   <   =   >   ?
    b"\x3f\x06\x5b\x4f\x66\x6d\x7d\x07\x7f\x6f\x00\x00\x00\x48\x00\x00"
    # @   A   B   C   D   E   F   G   H   I   J   K   L   M   N   O
    b"\x00\x77\x7c\x39\x5e\x79\x71\x3d\x76\x30\x1e\x00\x38\x00\x54\x3f"
    # P   Q   R   S   T   U   V   W   X   Y   Z   [   \   ]   ^   _
    b"\x73\x67\x50\x6d\x78\x3e\x00\x00\x00\x6e\x00\x00\x00\x00\x00\x08"
    # `   a   b   c   d   e   f   g   h   i   j   k   l   m   n   o
    b"\x00\x77\x7c\x58\x5e\x79\x71\x3d\x74\x10\x1e\x00\x38\x00\x54\x5c"
    # p   q   r   s   t   u   v   w   x   y   z   {   |   }   ~   DEL
    b"\x73\x67\x50\x6d\x78\x1c\x00\x00\x00\x6e\x00\x00\x00\x00\x00\x00"
)


def mask(ch):
    """Segment mask of a character (a 1-char str or its code); 0 when it has no glyph."""
    c = ch if isinstance(ch, int) else ord(ch)
    if 32 <= c < 128:
        return _TABLE[c - 32]
    return 0


def face(value):
    """Segment mask of the card face with value 0..17 (0-F, G, H)."""
    return CARDS[value]


def chars():
    """All characters that have a glyph (for tests and the simulator)."""
    return " " + "".join(chr(c) for c in range(33, 128) if _TABLE[c - 32])


SIZE = 5  # bytes per panel: 4 digits, then the colon flag
DASH = 0x40


def clear(buf, p):
    o = p * SIZE
    for i in range(SIZE):
        buf[o + i] = 0


def text(buf, p, s, at=0):
    """Draw a bytes constant of up to 4 characters (those from `at` on), left-aligned, colon
    off."""
    clear(buf, p)
    o = p * SIZE
    for i in range(min(len(s) - at, 4)):
        buf[o + i] = mask(s[at + i])


def put(buf, p, pos, mask):
    buf[p * SIZE + pos] = mask


def char(buf, p, pos, ch):
    buf[p * SIZE + pos] = mask(ch)


def card(buf, p, pos, value):
    buf[p * SIZE + pos] = face(value) if value >= 0 else DASH


def dot(buf, p, pos):
    buf[p * SIZE + pos] |= DP


def colon(buf, p, on=True):
    buf[p * SIZE + 4] = 1 if on else 0


def number(buf, p, pos, width, n):
    """Draw n right-aligned in `width` digits ending before pos + width; '-' for negatives."""
    o = p * SIZE + pos
    neg = n < 0
    if neg:
        n = -n
    i = width - 1
    while i >= 0:
        buf[o + i] = face(n % 10)
        n //= 10
        i -= 1
        if not n:
            break
    if neg and i >= 0:
        buf[o + i] = DASH
        i -= 1
    while i >= 0:
        buf[o + i] = 0
        i -= 1
