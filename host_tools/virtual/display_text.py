"""Seven-segment digits as terminal text art, the way an HT16K33 backpack lights them.

A panel is one 4-digit display: four segment masks (a = bit 0 ... g = bit 6, the decimal
point = bit 7) and the colon between the second and third digit. `panel_cells` draws it as
rows of (character, state) cells, state LIT, UNLIT (a segment that is off: the simulator
draws it faint) or BLANK (background), so a terminal UI can colour each cell; `render`
gives plain text lines.

Digits are `width` columns by `height` rows. Height 3 is the classic underscore style::

     _     _
    |_|  | _|
    |_|  ||_ .

Height 5 or more (odd) uses line-drawing characters, one row per vertical segment at
height 5. Every digit is followed by a column for its decimal point; the colon has a column
of its own and a blank one after it (so it sits midway between the second and the third
digit, as on the backpack), so a panel is 4 * (width + 1) + 2 columns wide.
"""

BLANK = 0
UNLIT = 1
LIT = 2

A, B, C, D, E, F, G, DP = 1, 2, 4, 8, 16, 32, 64, 128

# (width, height) of the digit sizes the simulator tries, largest first.
SIZES = ((7, 9), (6, 7), (5, 7), (4, 5), (3, 5), (3, 3))

_UNICODE = {"h": "\u2501", "v": "\u2503", "dot": "\u2022", "bar": "_", "pipe": "|"}
_ASCII = {"h": "-", "v": "|", "dot": ".", "bar": "_", "pipe": "|"}


def panel_width(width):
    """Columns of a panel whose digits are `width` columns wide."""
    return 4 * (width + 1) + 2


def _cell(mask, bit, ch):
    return (ch, LIT if mask & bit else UNLIT)


def digit_cells(mask, width=3, height=5, ascii=False):
    """One digit (without its point) as `height` rows of `width` cells."""
    if width < 3 or height < 3 or (height > 3 and height % 2 == 0):
        raise ValueError("digit size %dx%d: width >= 3, height 3 or odd >= 5" % (width, height))
    g = _ASCII if ascii else _UNICODE
    rows = [[(" ", BLANK)] * width for _ in range(height)]
    inner = range(1, width - 1)
    last = width - 1
    if height == 3:
        for x in inner:
            rows[0][x] = _cell(mask, A, g["bar"])
            rows[1][x] = _cell(mask, G, g["bar"])
            rows[2][x] = _cell(mask, D, g["bar"])
        rows[1][0] = _cell(mask, F, g["pipe"])
        rows[1][last] = _cell(mask, B, g["pipe"])
        rows[2][0] = _cell(mask, E, g["pipe"])
        rows[2][last] = _cell(mask, C, g["pipe"])
        return rows
    mid = height // 2
    for x in inner:
        rows[0][x] = _cell(mask, A, g["h"])
        rows[mid][x] = _cell(mask, G, g["h"])
        rows[height - 1][x] = _cell(mask, D, g["h"])
    for y in range(1, mid):
        rows[y][0] = _cell(mask, F, g["v"])
        rows[y][last] = _cell(mask, B, g["v"])
    for y in range(mid + 1, height - 1):
        rows[y][0] = _cell(mask, E, g["v"])
        rows[y][last] = _cell(mask, C, g["v"])
    return rows


def colon_rows(height):
    """The two rows of a panel that hold the colon's dots."""
    if height == 3:
        return (1, 2)
    top = (height // 2 + 1) // 2
    return (top, height - 1 - top)


def panel_cells(masks, colon=False, width=3, height=5, ascii=False):
    """A 4-digit panel as `height` rows of panel_width(width) (character, state) cells."""
    g = _ASCII if ascii else _UNICODE
    point = "." if height == 3 else g["dot"]
    rows = [[] for _ in range(height)]
    for i, mask in enumerate(masks):
        cells = digit_cells(mask, width, height, ascii)
        for y in range(height):
            rows[y].extend(cells[y])
            rows[y].append(_cell(mask, DP, point) if y == height - 1 else (" ", BLANK))
        if i == 1:
            dots = colon_rows(height)
            for y in range(height):
                rows[y].append((g["dot"], LIT if colon else UNLIT) if y in dots else (" ", BLANK))
                rows[y].append((" ", BLANK))
    return rows


def render(masks, colon=False, width=3, height=5, ascii=False, unlit=False):
    """Plain text lines of a panel: lit segments only, or every segment when `unlit`."""
    lines = []
    for row in panel_cells(masks, colon, width, height, ascii):
        lines.append("".join(ch if state == LIT or (unlit and state == UNLIT) else " "
                             for ch, state in row).rstrip())
    return lines


def face_text(face):
    """A face key's character ('0'-'9', 'A'-'H', either case) as a person reads it on the
    displays: the firmware's shape of the face, read as the chip model reads it (B and D are
    drawn b and d)."""
    from host_tools import resources
    from host_tools.virtual.ht16k33 import READING
    cards = resources.firmware_module("tycoon.cards")
    return READING[cards.SHAPES[cards.parse_char(face)]]
