"""`matchbox card`: the printable table card, in the players' language, as a PDF.

Two pages (one sheet, both sides): the four displays and what each shows, every key in a game
and in the setup menu, the setup menu's items and the box's other words; then every refusal
code with its rule, and what each card can become at what matchstick cost, for the base game
and with G/H. The words are host_tools.words'; the codes, keys, setup items and costs come
from the firmware's and the engine's own tables, so the card cannot disagree with the box. The
displays' words are drawn as seven segments (host_tools.virtual.display_svg's segment
outlines, the firmware's font), not set in a font's letters.

matplotlib draws it and writes the PDF (its PDF backend, the fonts embedded as TrueType). The
text is set in matplotlib's own DejaVu Sans, the Japanese in IPAexGothic (the PyPI package
matplotlib-fontja; it has one weight, so its bold is its outline stroked under it); every string is held against its font's character map before anything is
drawn, so a glyph cannot go missing. The lines are broken here (matplotlib does not wrap to a
width), between words, or between characters in Japanese.
"""
import io
import math
import os
import re

from host_tools import words as vocabulary
from host_tools.errors import MatchboxError
from host_tools.files import print_path, write_whole
from host_tools.virtual import display_svg

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4), "a5": (148.0, 210.0)}
PT = 25.4 / 72          # millimetres in a point

INK = "#1a1a1a"
GREY = "#666666"
RULE = "#bbbbbb"
SHADE = "#f0f0f0"
LIT = "#c4161c"         # a lit segment: red, dark enough for a grey printer
UNLIT = "#ececec"
FACE = "#fbfbfb"
# the cost table's corner, over the cards' column: the values across, the cards down
ACROSS = "%s \u2192"
DOWN = "%s \u2193"
FAUX_BOLD = 0.05        # the stroke that thickens a font with one weight, in ems (see Page.font)


def font_files(lang):
    """(regular, bold) font files for a language's text: matplotlib's DejaVu Sans; the regular
    one in Japanese IPAexGothic (which has one weight: bold is DejaVu's, where it has the
    characters, see Page.font)."""
    import matplotlib
    folder = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
    regular = os.path.join(folder, "DejaVuSans.ttf")
    if lang == "ja":
        regular = vocabulary.resources.japanese_font()
        if regular is None:
            raise MatchboxError("--lang ja", "the Japanese font is not installed (it comes "
                                "with the package: pip install matplotlib-fontja)")
    return regular, os.path.join(folder, "DejaVuSans-Bold.ttf")


def cmap(path):
    """{character code: glyph name} of a font file."""
    from fontTools.ttLib import TTFont
    with TTFont(path, lazy=True) as font:
        return font["cmap"].getBestCmap()


def missing_glyphs(texts, path):
    """The characters of `texts` that the font file at `path` has no glyph for (sorted)."""
    have = cmap(path)
    return sorted({ch for text in texts for ch in text if ch.strip() and ord(ch) not in have})


# --- the card's content, from the firmware's tables ------------------------------------------

def content(lang):
    """Every text of the card in a language, as the pages' sections use them."""
    w = vocabulary.words(lang)
    cards = vocabulary.resources.firmware_module("tycoon.cards")
    return {
        "w": w,
        "displays": list(zip(vocabulary.DISPLAY_EXAMPLES, w["display_names"], w["display_shows"])),
        "keys": [(vocabulary.key_label(row, lang), w["key_game"][row], w["key_setup"][row])
                 for row in vocabulary.key_rows()],
        "setup": [(vocabulary.SETUP_SHOWN[item], w["setup_items"][item])
                  for item in vocabulary.setup_items()],
        "status": [(shown, w["status_says"][shown]) for shown in vocabulary.STATUS],
        "codes": [(text, vocabulary.code_rule(code, lang)) for code, text in vocabulary.codes()],
        "costs": [[cards.cost(face, value) for value in range(cards.VALUES)]
                  for face in range(cards.VALUES)],
        "base": 16,
    }


def texts(c):
    """Every string the card sets in a font (not the seven-segment ones)."""
    w = c["w"]
    out = [w[k] for k in ("title", "sheet", "displays", "entry", "keys", "key", "in_game",
                          "in_setup", "setup", "codes", "status", "costs", "costs_note",
                          "expansion", "order", "power")]
    out += [t for _, name, shows in c["displays"] for t in (name, shows)]
    out += [t for row in c["keys"] for t in row]
    out += [t for _, t in c["setup"] + c["status"] + c["codes"]]
    out += ["%d" % n for n in range(10)] + ["%d  " % n for n in range(1, 5)]
    out += [ACROSS % w["value"], DOWN % w["face"]]
    return out


# --- seven segments --------------------------------------------------------------------------

def glyphs(shown):
    """(masks of the 4 digits, colon) of one display's text as the box shows it: '.' lights
    the point of the digit before it, ':' the colon."""
    glyph = vocabulary.resources.firmware_module("box.panels")
    masks = []
    colon = False
    for ch in shown:
        if ch == "." and masks:
            masks[-1] |= glyph.DP
        elif ch == ":":
            colon = True
        else:
            masks.append(glyph.mask(ch))
    if len(masks) > 4:
        raise ValueError("more than 4 digits: %r" % shown)
    return masks + [0] * (4 - len(masks)), colon


class Page:
    """One page in millimetres from its top left corner, drawn with matplotlib."""

    def __init__(self, figure, size, fonts, scale, margin):
        from matplotlib.font_manager import FontProperties
        self.width, self.height = size
        self.margin = margin
        self.full = self.width - 2 * margin   # the width inside the margins
        self.ax = figure.add_axes((0, 0, 1, 1))
        self.ax.set_xlim(0, self.width)
        self.ax.set_ylim(self.height, 0)
        self.ax.set_axis_off()
        self.fonts = [FontProperties(fname=f) for f in fonts]
        self.bold_cmap = cmap(fonts[1])
        self.scale = scale
        from matplotlib.backends.backend_agg import RendererAgg
        # measured at 720 dpi: at 72 the glyphs' hinting makes small text narrower than print
        self._measure = RendererAgg(10, 10, 720).get_text_width_height_descent

    def text_width(self, text, size, bold=False):
        prop = self.font(text, bold).copy()
        prop.set_size(size * self.scale)
        return self._measure(text, prop, ismath=False)[0] / 10 * PT

    def lines(self, text, width, size, bold=False):
        """Text broken into lines no wider than `width` mm: between words, or in Japanese
        between characters (never before a closing mark), and without a last line of one or
        two characters where narrower lines avoid it in as many lines."""
        out = self._fill(text, width, size, bold)
        for narrower in (0.95, 0.9, 0.85, 0.8):
            if len(out) < 2 or len(out[-1]) > 2:
                break
            trial = self._fill(text, width * narrower, size, bold)
            if len(trial) == len(out) and len(trial[-1]) > 2:
                return trial
        return out

    def _fill(self, text, width, size, bold):
        tokens = re.findall(r"[^\s\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]+|\s+|.", text)
        out = [""]
        for token in tokens:
            trial = out[-1] + token
            if out[-1].strip() and not token.isspace() and token not in "、。）」：，" \
                    and self.text_width(trial.rstrip(), size, bold) > width:
                out.append(token)
            elif trial.strip() or out[-1]:
                out[-1] = trial
        return [line.strip() for line in out]

    def write(self, x, y, text, width, size, bold=False, color=INK, leading=1.25):
        """Text wrapped to `width` mm from (x, y) down; returns the height it took (mm)."""
        step = size * self.scale * PT * leading
        lines = self.lines(text, width, size, bold)
        for i, line in enumerate(lines):
            self.text(x, y + i * step, line, size, bold, color, va="top", ha="left")
        return step * len(lines)

    def centre(self, x, y, text, size, bold=False, color=INK):
        self.text(x, y, text, size, bold, color, va="center", ha="center")

    def text(self, x, y, text, size, bold, color, **align):
        """One line of text at (x, y) mm, bold as font() sets it."""
        font = self.font(text, bold)
        if bold and font is self.fonts[0]:
            # a font with one weight: its outline stroked under the text thickens it (the text
            # itself stays text in the PDF, to search and copy)
            from matplotlib import patheffects
            self.ax.text(x, y, text, fontproperties=font, fontsize=size * self.scale,
                         color=color, zorder=2.9, path_effects=[patheffects.Stroke(
                             linewidth=FAUX_BOLD * size * self.scale, foreground=color)], **align)
        self.ax.text(x, y, text, fontproperties=font, fontsize=size * self.scale, color=color,
                     **align)

    def font(self, text, bold):
        """The bold font when asked for and it has every character of the text, else the
        regular one (IPAexGothic has one weight: Japanese bold text, a key's long press
        `DEL 長押し` too, is the regular font thickened by a stroke of its own colour, text())."""
        if bold and all(ord(ch) in self.bold_cmap for ch in text if ch.strip()):
            return self.fonts[1]
        return self.fonts[0]

    def rule(self, x0, x1, y, color=RULE, width=0.4):
        self.ax.plot((x0, x1), (y, y), color=color, linewidth=width, solid_capstyle="butt")

    def box(self, x, y, w, h, color):
        from matplotlib.patches import Rectangle
        self.ax.add_patch(Rectangle((x, y), w, h, facecolor=color, edgecolor="none"))

    def digit(self, x, y, height, mask):
        """One seven-segment digit whose top left corner (unslanted) is at (x, y)."""
        from matplotlib.patches import Circle, Polygon
        k = height / display_svg.DIGIT_H
        lean = math.tan(math.radians(display_svg.SKEW))

        def at(px, py):
            return (x + k * (px + (display_svg.DIGIT_H - py) * lean), y + k * py)

        for bit, outline in enumerate(display_svg.SEGMENTS):
            on = mask >> bit & 1
            self.ax.add_patch(Polygon([at(px, py) for px, py in outline], closed=True,
                                      facecolor=LIT if on else UNLIT, edgecolor="none"))
        cx, cy = at(display_svg.DIGIT_W + 1.55, display_svg.DIGIT_H + 0.15)
        self.ax.add_patch(Circle((cx, cy), display_svg.POINT_R * k,
                                 facecolor=LIT if mask & 0x80 else UNLIT, edgecolor="none"))

    def display(self, x, y, height, shown):
        """One 4-digit display showing `shown` (see glyphs), `height` mm high; returns its
        width."""
        from matplotlib.patches import Circle, FancyBboxPatch
        k = height / display_svg.MODULE_H
        width = display_svg.MODULE_W * k
        self.ax.add_patch(FancyBboxPatch((x, y), width, height,
                                         boxstyle="round,pad=0,rounding_size=%g" % (1.2 * k),
                                         facecolor=FACE, edgecolor=GREY, linewidth=0.5))
        masks, colon = glyphs(shown)
        top = y + display_svg.DIGIT_Y * k
        for i, mask in enumerate(masks):
            self.digit(x + display_svg.DIGIT_X[i] * k, top, display_svg.DIGIT_H * k, mask)
        lean = math.tan(math.radians(display_svg.SKEW))
        for frac in (1 / 3.0, 2 / 3.0):
            cy = display_svg.DIGIT_Y + display_svg.DIGIT_H * frac
            cx = display_svg.COLON_X + (display_svg.DIGIT_Y + display_svg.DIGIT_H - cy) * lean
            self.ax.add_patch(Circle((x + cx * k, y + cy * k), display_svg.POINT_R * k,
                                     facecolor=LIT if colon else UNLIT, edgecolor="none"))
        return width

    def displays(self, x, y, height, shown, gap=1.5):
        """The displays of `shown` ('|' between them) side by side; returns their width."""
        for i, part in enumerate(shown.split("|")):
            x += (gap if i else 0) + self.display(x, y, height, part)
        return x


# --- the two pages ---------------------------------------------------------------------------

def heading(page, x, y, width, text):
    h = page.write(x, y, text, width, 10.5, bold=True)
    page.rule(x, x + width, y + h + 0.4, INK, 0.6)
    return h + 2.4


def front(page, c):
    w, x0, full, s = c["w"], page.margin, page.full, page.scale
    y = page.margin
    y += page.write(x0, y, w["title"], full, 15, bold=True)
    page.write(x0, y, w["sheet"], full, 9, color=GREY)
    y += 9 * s * PT * 1.25 + 3 * s
    # the four displays
    y += heading(page, x0, y, full, w["displays"])
    gap = 4 * s
    col = (full - 3 * gap) / 4
    tallest = 0
    for i, (shown, name, shows) in enumerate(c["displays"]):
        x = x0 + i * (col + gap)
        height = col * display_svg.MODULE_H / display_svg.MODULE_W
        page.display(x, y, height, shown)
        h = height + 1.5 * s
        h += page.write(x, y + h, "%d  %s" % (i + 1, name), col, 9.5, bold=True)
        h += page.write(x, y + h, shows, col, 8.5)
        tallest = max(tallest, h)
    y += tallest + 2 * s
    y += page.write(x0, y, w["entry"], full, 8.5) + 5 * s
    # the keys
    y += heading(page, x0, y, full, w["keys"])
    widths = (0.17 * full, 0.50 * full, 0.33 * full)
    xs = (x0, x0 + widths[0], x0 + widths[0] + widths[1])
    for i, head in enumerate((w["key"], w["in_game"], w["in_setup"])):
        page.write(xs[i], y, head, widths[i] - 2 * s, 8, bold=True, color=GREY)
    y += 8 * s * PT * 1.3 + 0.8 * s
    for row in c["keys"]:
        h = max(page.write(xs[i] + (1 * s if i else 0), y + 0.6 * s, text, widths[i] - 3 * s, 8.5,
                           bold=(i == 0)) for i, text in enumerate(row))
        page.rule(x0, x0 + full, y + h + 1.2 * s)
        y += h + 1.8 * s
    y += 5 * s
    # the setup menu and the box's other words, side by side
    left = full * 0.36
    right = full - left - 6 * s
    xr = x0 + left + 6 * s
    top = y
    y += heading(page, x0, y, left, w["setup"])
    dh = 6 * s
    for shown, says in c["setup"]:
        dw = page.display(x0, y, dh, shown)
        h = page.write(x0 + dw + 2 * s, y + 0.2 * s, says, left - dw - 2 * s, 8)
        y += max(h, dh) + 1.8 * s
    y = top
    y += heading(page, xr, y, right, w["status"])
    for shown, says in c["status"]:
        dw = page.displays(xr, y, dh, shown, gap=0.8 * s) - xr
        dw = max(dw, 2 * display_svg.MODULE_W * dh / display_svg.MODULE_H + 0.8 * s)
        h = page.write(xr + dw + 2 * s, y + 0.2 * s, says, right - dw - 2 * s, 8)
        y += max(h, dh) + 1.5 * s
    return y


def back(page, c):
    w, x0, full, s = c["w"], page.margin, page.full, page.scale
    y = page.margin
    # the refusal codes, two columns
    y += heading(page, x0, y, full, w["codes"])
    gap = 6 * s
    col = (full - gap) / 2
    dh = 6.6 * s
    half = (len(c["codes"]) + 1) // 2
    bottom = y
    for j, chunk in enumerate((c["codes"][:half], c["codes"][half:])):
        x = x0 + j * (col + gap)
        yy = y
        for shown, rule in chunk:
            dw = page.display(x, yy, dh, shown)
            h = page.write(x + dw + 2 * s, yy + 0.2 * s, rule, col - dw - 2 * s, 8.2)
            yy += max(h, dh) + 1.6 * s
        bottom = max(bottom, yy)
    y = bottom + 4 * s
    # the costs: a row a card, a column a value
    y += heading(page, x0, y, full, w["costs"])
    y += page.write(x0, y, w["costs_note"], full, 8.5) + 5 * s
    values = len(c["costs"])
    head = 0.13 * full
    cell = (full - head) / values
    ch = min(cell * 0.95, 8 * s)
    dgt = ch * 0.62
    dgw = dgt * display_svg.DIGIT_W / display_svg.DIGIT_H
    # the corner: the values across (this row), the cards down (the column under it)
    corner = x0 + head - 4 * s
    step = 7.5 * s * PT * 1.2
    for i, text in enumerate((ACROSS % w["value"], DOWN % w["face"])):
        page.text(corner, y + 0.1 * s + i * step, text, 7.5, True, GREY, va="top", ha="right")
    page.box(x0 + head + c["base"] * cell, y - 1.2 * s, (values - c["base"]) * cell,
             ch * (values + 1) + 2.4 * s, SHADE)
    for v in range(values):
        page.digit(x0 + head + v * cell + (cell - dgw) / 2 - 0.4, y, dgt, c_mask(v))
    page.centre(x0 + head + (c["base"] + values) / 2 * cell, y - 2.8 * s, w["expansion"], 7,
                bold=True, color=GREY)
    y += ch
    page.rule(x0, x0 + full, y - 0.8 * s, INK, 0.5)
    for face, row in enumerate(c["costs"]):
        if face == c["base"]:
            page.rule(x0, x0 + full, y - 0.3 * s, GREY, 0.5)
        page.digit(x0 + head - dgw - 4 * s, y + (ch - dgt) / 2, dgt, c_mask(face))
        for v, cost in enumerate(row):
            if cost is not None:
                page.centre(x0 + head + (v + 0.5) * cell, y + ch / 2, "%d" % cost, 8,
                            bold=True)
        page.rule(x0 + head - dgw - 6 * s, x0 + full, y + ch, RULE, 0.25)
        y += ch
    y += 3 * s
    y += page.write(x0, y, w["order"], full, 9) + 2 * s
    return y + page.write(x0, y, w["power"], full, 9)


def c_mask(value):
    return vocabulary.resources.firmware_module("box.panels").face(value)


def write_pdf(path, lang="en", paper="a4"):
    """Draw the card and write it to `path` as a PDF (two pages): drawn into memory, then
    written whole (a card that fails half-way leaves no half card, and an old one as it
    was)."""
    import matplotlib
    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_pdf import PdfPages
    from matplotlib.figure import Figure
    c = content(lang)
    fonts = font_files(lang)
    # every text is set in the regular font, or in the bold one where that has its characters
    missing = missing_glyphs(texts(c), fonts[0])
    if missing:
        raise MatchboxError("card", "the %s font lacks %s" % (lang, "".join(missing)))
    size = PAPERS[paper]
    scale = min(size[0] / PAPERS["a4"][0], size[1] / PAPERS["a4"][1])
    margin = 12 * scale
    with matplotlib.rc_context({"pdf.fonttype": 42}):
        pdf_bytes = io.BytesIO()
        with PdfPages(pdf_bytes, metadata={"Title": c["w"]["title"], "CreationDate": None,
                                           "Creator": "matchbox card"}) as pdf:
            for draw in (front, back):
                figure = Figure(figsize=(size[0] / 25.4, size[1] / 25.4))
                bottom = draw(Page(figure, size, fonts, scale, margin), c)
                if bottom > size[1] - margin / 2:   # a bug of the layout, not a slip
                    raise RuntimeError("the %s card on %s overflows its page %s by %.1f mm" % (
                        lang, paper, draw.__name__, bottom - size[1] + margin / 2))
                pdf.savefig(figure)
    write_whole(path, pdf_bytes.getvalue())


def add_arguments(parser):
    parser.add_argument("--lang", default=vocabulary.DEFAULT, choices=vocabulary.LANGUAGES,
                        help="the card's language (default: en)")
    parser.add_argument("--paper", default="a4", choices=sorted(PAPERS),
                        help="paper size (default: a4)")
    parser.add_argument("-o", "--output", metavar="FILE.pdf", default="card.pdf",
                        help="where to write the PDF (default: card.pdf here)")


def run(args):
    from host_tools.commands.report import writable
    writable(args.output)
    write_pdf(args.output, args.lang, args.paper)
    print_path(args.output)
    return 0
