"""Card shapes: seven-segment masks, the 180-degree turn, and what each face can become.

Values are plain ints: 0..15 are 0-F, 16 is G and 17 is H. A segment mask has a = bit 0
up to g = bit 6, the HT16K33 digit layout, so a mask can go straight to a display.
"""
# MicroPython's const (folded in at compile time); on CPython a stand-in. The engine's other
# modules take it from here rather than each carrying the fallback (less .mpy).
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

G = const(16)
H = const(17)
VALUES = const(18)

# Segment masks of 0-F, G, H (RULINGS: lowercase b and d, 6 and 9 with their bars, 7 = a b c).
SHAPES = b"\x3f\x06\x5b\x4f\x66\x6d\x7d\x07\x7f\x6f\x77\x7c\x39\x5e\x79\x71\x3d\x76"
CHARS = "0123456789ABCDEFGH"


def rotate(mask):
    """The mask of a shape turned 180 degrees: a<->d, b<->e, c<->f, g stays."""
    return ((mask & 0x07) << 3) | ((mask >> 3) & 0x07) | (mask & 0x40)


def popcount(mask):
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


def cost(face, value):
    """Matchsticks needed to play a card of `face` as `value`, or None when impossible.

    Sticks are only ever added: the face, upright or turned, must lie inside the value.
    """
    f = SHAPES[face]
    v = SHAPES[value]
    if f & ~v and rotate(f) & ~v:
        return None
    return popcount(v) - popcount(f)


def becomes(face, values=VALUES):
    """(value, cost) for every value among the first `values` that `face` can be played as."""
    out = []
    for v in range(values):
        c = cost(face, v)
        if c is not None:
            out.append((v, c))
    return out


def card_type(face):
    """The physical card type of a face: E is card 3 and 9 is card 6, read the other way up."""
    if face == 14:
        return 3
    if face == 9:
        return 6
    return face


def char(value):
    """One uppercase character for a value: '0'-'9', 'A'-'H'."""
    return CHARS[value]


def parse_char(text):
    """The value named by one character (case-insensitive), or -1."""
    if len(text) != 1:
        return -1
    return CHARS.find(text.upper())
