"""A small SVG-to-PNG renderer for the plots of `matchbox report` (standard library only).

It draws the subset of SVG that report_plot writes: <svg width height>, <g>, <rect>, <line>,
<polyline>, <polygon>, <circle> and <text>, with fill, stroke, stroke-width,
stroke-dasharray, font-size, font-weight and text-anchor given as attributes (inherited
through <g>), colours as #rgb or #rrggbb. Text uses the 5x7 bitmap font of report_font.
No anti-aliasing: the picture is drawn at `scale` times the SVG size to keep edges fine.
"""
import math
import struct
import xml.etree.ElementTree as ET
import zlib

from host_tools.reports import font as report_font

NAMED = {"white": (255, 255, 255), "black": (0, 0, 0)}
INHERITED = ("fill", "stroke", "stroke-width", "stroke-dasharray", "font-size", "font-weight",
             "text-anchor")
DEFAULTS = {"fill": "#000", "stroke": "none", "stroke-width": "1", "stroke-dasharray": "none",
            "font-size": "12", "font-weight": "normal", "text-anchor": "start"}


def colour(text):
    """(r, g, b) of a colour attribute, or None for 'none'."""
    text = text.strip().lower()
    if text == "none":
        return None
    if text in NAMED:
        return NAMED[text]
    if text.startswith("#") and len(text) == 4:
        return tuple(int(c * 2, 16) for c in text[1:])
    if text.startswith("#") and len(text) == 7:
        return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))
    raise ValueError("unsupported colour %r" % text)


class Canvas:
    """An RGB picture in a bytearray, with the few drawing operations the plots need."""

    def __init__(self, width, height, background=(255, 255, 255)):
        self.width = width
        self.height = height
        self.pixels = bytearray(bytes(background) * (width * height))

    def rect(self, x0, y0, x1, y1, rgb):
        """Fill the pixels whose centres lie inside [x0, x1) x [y0, y1)."""
        x0 = max(0, int(math.floor(x0 + 0.5)))
        x1 = min(self.width, int(math.floor(x1 + 0.5)))
        y0 = max(0, int(math.floor(y0 + 0.5)))
        y1 = min(self.height, int(math.floor(y1 + 0.5)))
        if x0 >= x1 or y0 >= y1:
            return
        row = bytes(rgb) * (x1 - x0)
        for y in range(y0, y1):
            start = (y * self.width + x0) * 3
            self.pixels[start:start + len(row)] = row

    def segment(self, x0, y0, x1, y1, width, rgb):
        """A straight stroke with square ends."""
        half = max(width, 1.0) / 2
        if x0 == x1 or y0 == y1:
            self.rect(min(x0, x1) - half, min(y0, y1) - half, max(x0, x1) + half,
                      max(y0, y1) + half, rgb)
            return
        steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        for i in range(steps + 1):
            t = i / steps
            x = x0 + (x1 - x0) * t
            y = y0 + (y1 - y0) * t
            self.rect(x - half, y - half, x + half, y + half, rgb)

    def line(self, x0, y0, x1, y1, width, rgb, dashes=None):
        """A stroke, dashed when `dashes` lists on/off lengths."""
        if not dashes:
            self.segment(x0, y0, x1, y1, width, rgb)
            return
        length = math.hypot(x1 - x0, y1 - y0)
        pos = 0.0
        i = 0
        while pos < length:
            end = min(length, pos + dashes[i % len(dashes)])
            if i % 2 == 0 and end > pos:
                a, b = pos / length, end / length
                self.segment(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a,
                             x0 + (x1 - x0) * b, y0 + (y1 - y0) * b, width, rgb)
            pos = end
            i += 1

    def polygon(self, points, rgb):
        """Fill a polygon (even-odd rule), scanline by scanline."""
        ys = [p[1] for p in points]
        for y in range(max(0, int(min(ys))), min(self.height, int(max(ys)) + 1)):
            cy = y + 0.5
            xs = []
            for (ax, ay), (bx, by) in zip(points, points[1:] + points[:1]):
                if (ay <= cy < by) or (by <= cy < ay):
                    xs.append(ax + (cy - ay) * (bx - ax) / (by - ay))
            xs.sort()
            for a, b in zip(xs[::2], xs[1::2]):
                self.rect(a, y, b, y + 1, rgb)

    def ring(self, cx, cy, outer, inner, rgb):
        """Fill the pixels between two circles (inner <= 0: a disc)."""
        for y in range(max(0, int(cy - outer)), min(self.height, int(cy + outer) + 1)):
            dy = y + 0.5 - cy
            if abs(dy) > outer:
                continue
            wo = math.sqrt(outer * outer - dy * dy)
            if inner > 0 and abs(dy) < inner:
                wi = math.sqrt(inner * inner - dy * dy)
                self.rect(cx - wo, y, cx - wi, y + 1, rgb)
                self.rect(cx + wi, y, cx + wo, y + 1, rgb)
            else:
                self.rect(cx - wo, y, cx + wo, y + 1, rgb)

    def text(self, x, y, text, size, rgb, anchor="start", bold=False):
        """Bitmap text with its baseline at y; `size` is the SVG font size in pixels."""
        unit = max(1, int(round(size * 0.72 / report_font.ASCENT)))
        advance = (report_font.WIDTH + 1) * unit
        width = advance * len(text) - unit
        if anchor == "middle":
            x -= width / 2
        elif anchor == "end":
            x -= width
        x = int(round(x))
        top = int(round(y)) - report_font.ASCENT * unit
        for i, char in enumerate(text):
            left = x + i * advance
            for px, py in report_font.pixels(char):
                gx = left + px * unit
                gy = top + py * unit
                self.rect(gx, gy, gx + unit + (max(1, unit // 2) if bold else 0), gy + unit, rgb)

    def png(self):
        """The picture as PNG bytes (8-bit RGB, no interlace)."""
        stride = self.width * 3
        view = memoryview(self.pixels)
        raw = b"".join(b"\x00" + view[y * stride:(y + 1) * stride].tobytes()
                       for y in range(self.height))
        return (b"\x89PNG\r\n\x1a\n"
                + _chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0))
                + _chunk(b"IDAT", zlib.compress(raw, 9))
                + _chunk(b"IEND", b""))


def _chunk(tag, data):
    return (struct.pack(">I", len(data)) + tag + data
            + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))


def _number(text):
    return float(text.strip().rstrip("px"))


def _points(text):
    numbers = [float(n) for n in text.replace(",", " ").split()]
    return list(zip(numbers[::2], numbers[1::2]))


def _draw(canvas, node, style, k):
    tag = node.tag.rsplit("}", 1)[-1]
    style = dict(style)
    for name in INHERITED:
        if name in node.attrib:
            style[name] = node.attrib[name]
    get = node.attrib.get
    fill = colour(style["fill"])
    stroke = colour(style["stroke"])
    width = _number(style["stroke-width"]) * k
    dashes = None
    if style["stroke-dasharray"] != "none":
        dashes = [float(d) * k for d in style["stroke-dasharray"].replace(",", " ").split()]
    if tag in ("svg", "g"):
        for child in node:
            _draw(canvas, child, style, k)
    elif tag == "rect":
        x, y = _number(get("x", "0")) * k, _number(get("y", "0")) * k
        w, h = _number(get("width")) * k, _number(get("height")) * k
        if fill:
            canvas.rect(x, y, x + w, y + h, fill)
        if stroke:
            corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y)]
            for a, b in zip(corners, corners[1:]):
                canvas.line(a[0], a[1], b[0], b[1], width, stroke, dashes)
    elif tag == "line":
        if stroke:
            canvas.line(_number(get("x1", "0")) * k, _number(get("y1", "0")) * k,
                        _number(get("x2", "0")) * k, _number(get("y2", "0")) * k,
                        width, stroke, dashes)
    elif tag in ("polyline", "polygon"):
        points = [(x * k, y * k) for x, y in _points(get("points", ""))]
        if tag == "polygon" and fill and len(points) > 2:
            canvas.polygon(points, fill)
        if stroke:
            if tag == "polygon":
                points = points + points[:1]
            for a, b in zip(points, points[1:]):
                canvas.line(a[0], a[1], b[0], b[1], width, stroke, dashes)
    elif tag == "circle":
        cx, cy, r = _number(get("cx", "0")) * k, _number(get("cy", "0")) * k, _number(get("r")) * k
        if fill:
            canvas.ring(cx, cy, r, 0, fill)
        if stroke:
            canvas.ring(cx, cy, r + width / 2, r - width / 2, stroke)
    elif tag == "text" and fill and node.text:
        canvas.text(_number(get("x", "0")) * k, _number(get("y", "0")) * k, node.text,
                    _number(style["font-size"]) * k, fill, style["text-anchor"],
                    style["font-weight"] == "bold")


def render(svg_text, scale=2):
    """PNG bytes of an SVG document in the supported subset, `scale` pixels per SVG unit."""
    root = ET.fromstring(svg_text)
    width = int(round(_number(root.attrib["width"]) * scale))
    height = int(round(_number(root.attrib["height"]) * scale))
    canvas = Canvas(width, height)
    _draw(canvas, root, DEFAULTS, scale)
    return canvas.png()
