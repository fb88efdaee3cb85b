"""SVG pictures of the box's displays: 0.56" 4-digit seven-segment backpacks, drawn from RAM.

Each display is given as (masks, colon, lit): the four digit masks left to right
(a = bit 0 ... g = bit 6, the decimal point = bit 7), whether the colon is on, and whether
the display shows anything at all (False: unplugged or dark, drawn dim with a note).
`from_chip` reads that from a VirtualHT16K33. `picture` lays out one or more displays in a
row, each with a label under it, and returns the SVG text; the output depends only on its
arguments, so generated pictures can be checked for staleness byte for byte. The elements
are written with host_tools.svg. With `ident` (the web page's markup, host_tools/commands/web.py)
every display, segment, point and colon dot also gets an id, so a page can light segments by
toggling a class instead of drawing digits.

Geometry in millimetres, close to the real part: a 50 x 19 mm module, 12 mm high italic
digits, lit segments red with a soft glow, unlit segments faint.
"""
import math

from host_tools import svg
from host_tools.svg import number

SCALE = 4          # pixels per millimetre in the width/height attributes
MODULE_W = 50.0
MODULE_H = 19.0
GAP = 6.0          # between modules
MARGIN = 5.0
LABEL_H = 9.0      # room under each module for its label
CAPTION_H = 8.0

DIGIT_W = 6.4      # segment centre lines: x 0..DIGIT_W, y 0..DIGIT_H
DIGIT_H = 11.2
STROKE = 1.45
SEG_GAP = 0.28
SKEW = 8           # degrees of italic lean
DIGIT_X = (4.0, 14.8, 27.2, 38.0)   # left centre line (at the baseline) of each digit
DIGIT_Y = 3.9
COLON_X = 25.0     # the colon's centre at the baseline
POINT_R = 0.8

LIT = "#ff3b1c"
UNLIT = "#3a1712"
OFF = "#261512"
FACE = "#0c0c0c"
BODY = "#1d1d1d"
BACKGROUND = "#2a2a2e"
LABEL = "#d8d8d8"
NOTE = "#8a8a8a"


def _hsegment(x0, x1, y):
    h = STROKE / 2
    pts = ((x0, y), (x0 + h, y - h), (x1 - h, y - h), (x1, y), (x1 - h, y + h), (x0 + h, y + h))
    return pts


def _vsegment(x, y0, y1):
    h = STROKE / 2
    pts = ((x, y0), (x + h, y0 + h), (x + h, y1 - h), (x, y1), (x - h, y1 - h), (x - h, y0 + h))
    return pts


def _segments():
    """The seven segment outlines a..g in digit coordinates (centre lines from 0,0)."""
    w, h, g = DIGIT_W, DIGIT_H, SEG_GAP
    m = h / 2
    return (
        _hsegment(g, w - g, 0),        # a
        _vsegment(w, g, m - g),        # b
        _vsegment(w, m + g, h - g),    # c
        _hsegment(g, w - g, h),        # d
        _vsegment(0, m + g, h - g),    # e
        _vsegment(0, g, m - g),        # f
        _hsegment(g, w - g, m),        # g
    )


SEGMENTS = _segments()


def from_chip(chip):
    """(masks, colon, lit) of a VirtualHT16K33 (host_tools.virtual.ht16k33)."""
    return (tuple(chip.digits()), chip.colon, bool(chip.plugged and chip.lit))


def module(parent, x, y, masks, colon=False, lit=True, ident=None):
    """Add one display module with its top left corner at (x, y) mm to an SVG element. With
    `ident`, ids: the module `ident`, segment b of digit 0 `ident-0b` (a-g), its point
    `ident-0p`, the colon's dots `ident-c1` and `ident-c2`."""
    group = svg.add(parent, "g", transform="translate(%s %s)" % (number(x), number(y)), id=ident)

    def name(part):
        return "%s-%s" % (ident, part) if ident else None

    svg.add(group, "rect", width=MODULE_W, height=MODULE_H, rx=1.2, fill=BODY)
    svg.add(group, "rect", x=1.6, y=1.6, width=MODULE_W - 3.2, height=MODULE_H - 3.2, rx=0.6,
            fill=FACE)
    off = UNLIT if lit else OFF

    def glow(on):
        return "url(#glow)" if on else None

    for i, mask in enumerate(masks):
        if not lit:
            mask = 0
        # skewX leans the digit about its baseline, like the italic digits of the real part
        digit = svg.add(group, "g", transform="translate(%s %s) skewX(-%d) translate(0 %s)" % (
            number(DIGIT_X[i]), number(DIGIT_Y + DIGIT_H), SKEW, number(-DIGIT_H)))
        for bit, pts in enumerate(SEGMENTS):
            on = bool(mask >> bit & 1)
            svg.add(digit, "polygon", points=svg.points(pts), fill=LIT if on else off,
                    filter=glow(on), id=name("%d%s" % (i, "abcdefg"[bit])))
        on = bool(mask & 0x80)
        svg.add(digit, "circle", cx=DIGIT_W + 1.55, cy=DIGIT_H + 0.15, r=POINT_R,
                fill=LIT if on else off, filter=glow(on), id=name("%dp" % i))
    on = bool(colon and lit)
    # the colon's dots sit a third and two thirds of the way down, leaning like the digits
    lean = math.tan(math.radians(SKEW))
    for k, frac in enumerate((1 / 3.0, 2 / 3.0)):
        cy = DIGIT_Y + DIGIT_H * frac
        cx = COLON_X + (DIGIT_Y + DIGIT_H - cy) * lean
        svg.add(group, "circle", cx=cx, cy=cy, r=POINT_R, fill=LIT if on else off,
                filter=glow(on), id=name("c%d" % (k + 1)))
    return group


def picture(displays, labels=None, caption=None, ident=None):
    """The SVG text of displays side by side. `displays`: (masks, colon, lit) per display;
    `labels`: a text under each (unlit displays get "(dark)" appended); `caption`: a line
    under everything; `ident`: one name per display, for the ids of its parts (see module),
    and then the glow filter is `NAME-glow` after the first name, so that several pictures can
    share a page."""
    n = max(len(displays), 1)
    width = 2 * MARGIN + n * MODULE_W + (n - 1) * GAP
    height = 2 * MARGIN + MODULE_H + (LABEL_H if labels else 0) + (CAPTION_H if caption else 0)
    root = svg.document(width * SCALE, height * SCALE, "0 0 %s %s" % (number(width), number(height)),
                        font_family="Helvetica, Arial, sans-serif")
    if caption:
        svg.add(root, "title", caption)
    blur = svg.add(svg.add(root, "defs"), "filter", id=ident[0] + "-glow" if ident else "glow", x="-50%", y="-50%", width="200%",
                   height="200%")
    svg.add(blur, "feGaussianBlur", in_="SourceGraphic", stdDeviation=0.45, result="blur")
    merge = svg.add(blur, "feMerge")
    svg.add(merge, "feMergeNode", in_="blur")
    svg.add(merge, "feMergeNode", in_="SourceGraphic")
    svg.add(root, "rect", width=width, height=height, rx=2.5, fill=BACKGROUND)
    for i, (masks, colon, lit) in enumerate(displays):
        x = MARGIN + i * (MODULE_W + GAP)
        module(root, x, MARGIN, masks, colon, lit, ident[i] if ident else None)
        if labels:
            text = labels[i] if i < len(labels) else ""
            if not lit:
                text = (text + " (dark)").strip()
            svg.add(root, "text", text, x=x + MODULE_W / 2, y=MARGIN + MODULE_H + 5.6,
                    font_size=3.6, text_anchor="middle", fill=LABEL if lit else NOTE)
    if caption:
        svg.add(root, "text", caption, x=width / 2, y=height - MARGIN - 1.2, font_size=3.6,
                text_anchor="middle", fill=NOTE)
    return svg.to_text(root)
