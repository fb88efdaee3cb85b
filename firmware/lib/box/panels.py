"""Panels: what the box shows, as 4-digit segment images drawn without allocating.

A panel is 5 bytes in a shared bytearray: four digit masks (bit 7 = decimal point) and a
colon flag. Texts are bytes constants, so drawing on a key press creates no objects.
"""
from box import font

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
        buf[o + i] = font.mask(s[at + i])


def put(buf, p, pos, mask):
    buf[p * SIZE + pos] = mask


def char(buf, p, pos, ch):
    buf[p * SIZE + pos] = font.mask(ch)


def card(buf, p, pos, value):
    buf[p * SIZE + pos] = font.card(value) if value >= 0 else DASH


def dot(buf, p, pos):
    buf[p * SIZE + pos] |= font.DP


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
        buf[o + i] = font.card(n % 10)
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
