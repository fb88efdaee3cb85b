"""`matchbox labels [--lang en|de|ja] [--pinmap FILE] [-o FILE.pdf]`: the sheet of stickers
that puts the players' language on the box: E and F for the keypad's * and # keys, a sticker
for each button the pin map names (its name and what it does, in the language), and one for
each display (its number and name). One page, drawn to scale: print it at 100 %.

The words are host_tools.words' (the same as the table card's); the buttons and displays are
the pin map's, so a box with one display gets one display sticker. matplotlib draws the page
and writes the PDF (fonts embedded as TrueType: DejaVu Sans, Japanese in IPAexGothic from the
matplotlib-fontja package); every string is held against its font before anything is drawn.
The file is written whole through host_tools.files.
"""
import io
import os

from host_tools import errors, files, resources
from host_tools import words as vocabulary
from host_tools.errors import MatchboxError

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PT = 25.4 / 72
INK = "#1a1a1a"
CUT = "#9a9a9a"
KEY = 11.0                  # an E/F sticker, mm square (the keys' printed squares are ~12 mm)
BUTTON = (26.0, 12.0)       # a button sticker, mm
DISPLAY = (50.0, 8.0)       # a display sticker, mm


def button_word(name, w):
    """What a button does, in a few words of the language: its own word, or for a face key
    (G, H) the word for a card and its face."""
    return w["button_words"].get(name, "%s %s" % (w["face"], name))


def content(pinmap, lang):
    """The sheet's texts: title, note, [(E/F)], [(button, word)], [(display number, name)]."""
    w = vocabulary.words(lang)
    return dict(
        w=w,
        keys=["E", "F"],
        buttons=[(b["name"], button_word(b["name"], w)) for b in pinmap["buttons"]],
        displays=[("%d" % (i + 1), w["display_names"][i]) for i in range(len(pinmap["displays"]))])


def font_files(lang):
    import matplotlib
    folder = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
    regular = os.path.join(folder, "DejaVuSans.ttf")
    if lang == "ja":
        regular = resources.japanese_font()
        if regular is None:
            raise MatchboxError("--lang ja", "the Japanese font is not installed (it comes with "
                                "the package: pip install matplotlib-fontja)")
    return regular, os.path.join(folder, "DejaVuSans-Bold.ttf")


def _cmap(path):
    from fontTools.ttLib import TTFont
    with TTFont(path, lazy=True) as font:
        return set(font["cmap"].getBestCmap())


def texts(c):
    w = c["w"]
    out = [w["labels_title"], w["labels_note"], w["labels_keypad"], w["labels_buttons"],
           w["labels_displays"]] + c["keys"]
    out += [t for pair in c["buttons"] + c["displays"] for t in pair]
    return out


def draw(pinmap, lang="en", paper="a4"):
    """The sheet as PDF bytes."""
    import matplotlib
    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_pdf import PdfPages
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.patches import FancyBboxPatch

    c = content(pinmap, lang)
    regular, bold = font_files(lang)
    have_regular, have_bold = _cmap(regular), _cmap(bold)
    missing = sorted({ch for t in texts(c) for ch in t if ch.strip() and ord(ch) not in have_regular
                      and ord(ch) not in have_bold})
    if missing:
        raise MatchboxError("labels", "the %s font lacks %s" % (lang, "".join(missing)))
    fonts = (FontProperties(fname=regular), FontProperties(fname=bold))
    width, height = PAPERS[paper]
    figure = Figure(figsize=(width / 25.4, height / 25.4))
    ax = figure.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_axis_off()

    def text(x, y, s, size, want_bold=False, ha="left", va="top", color=INK):
        use_bold = want_bold and all(ord(ch) in have_bold for ch in s if ch.strip())
        ax.text(x, y, s, fontproperties=fonts[1 if use_bold else 0], fontsize=size, ha=ha, va=va,
                color=color)

    def sticker(x, y, w, h):
        ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=1.2",
                                    facecolor="none", edgecolor=CUT, linewidth=0.4))

    m = 15.0
    text(m, m, c["w"]["labels_title"], 15, True)
    y = m + 9
    for line in _wrap(c["w"]["labels_note"], 95 if lang != "ja" else 48):
        text(m, y, line, 9)
        y += 5
    y += 6
    gap = 4.0
    text(m, y, c["w"]["labels_keypad"], 11, True)
    y += 7
    for i in range(8):
        x = m + i * (KEY + gap)
        sticker(x, y, KEY, KEY)
        text(x + KEY / 2, y + KEY / 2, c["keys"][i // 4], 20, True, "center", "center")
    y += KEY + 10
    text(m, y, c["w"]["labels_buttons"], 11, True)
    y += 7
    per_row = int((width - 2 * m + gap) // (BUTTON[0] + gap))
    items = c["buttons"] * 2          # a spare of each
    for i, (name, word) in enumerate(items):
        row, col = divmod(i, per_row)
        x, yy = m + col * (BUTTON[0] + gap), y + row * (BUTTON[1] + gap)
        sticker(x, yy, BUTTON[0], BUTTON[1])
        text(x + BUTTON[0] / 2, yy + 3.8, name, 10, True, "center", "center")
        text(x + BUTTON[0] / 2, yy + 8.6, word, 8, False, "center", "center")
    y += ((len(items) + per_row - 1) // per_row) * (BUTTON[1] + gap) + 6
    text(m, y, c["w"]["labels_displays"], 11, True)
    y += 7
    per_row = int((width - 2 * m + gap) // (DISPLAY[0] + gap))
    for i, (number, name) in enumerate(c["displays"] * 2):
        row, col = divmod(i, per_row)
        x, yy = m + col * (DISPLAY[0] + gap), y + row * (DISPLAY[1] + gap)
        sticker(x, yy, DISPLAY[0], DISPLAY[1])
        text(x + 3, yy + DISPLAY[1] / 2, number, 10, True, "left", "center")
        text(x + 9, yy + DISPLAY[1] / 2, name, 9, False, "left", "center")
    out = io.BytesIO()
    with matplotlib.rc_context({"pdf.fonttype": 42}):
        with PdfPages(out, metadata={"Title": c["w"]["labels_title"], "CreationDate": None,
                                     "Creator": "matchbox labels"}) as pdf:
            pdf.savefig(figure)
    return out.getvalue()


def _wrap(text, width):
    """Lines of at most `width` characters, broken between words (or anywhere in Japanese)."""
    if " " not in text:
        return [text[i:i + width] for i in range(0, len(text), width)]
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    return lines + [line]


def add_arguments(parser):
    parser.add_argument("--lang", default=vocabulary.DEFAULT, choices=vocabulary.LANGUAGES,
                        help="the stickers' language (default: en)")
    parser.add_argument("--paper", default="a4", choices=sorted(PAPERS), help="paper size (default: a4)")
    parser.add_argument("--pinmap", metavar="FILE",
                        help="the box's pin map: its buttons and displays (default: %s)"
                        % resources.PINMAP_SOURCE)
    parser.add_argument("-o", "--output", metavar="FILE.pdf", default="labels.pdf",
                        help="where to write the PDF (default: labels.pdf here)")


def run(args):
    from host_tools.enclosure.layout import read_pinmap
    pinmap = read_pinmap(args.pinmap or resources.PINMAP)
    errors.check_folder(os.path.dirname(os.path.abspath(args.output)), "folder for the PDF")
    if os.path.isdir(args.output):
        raise MatchboxError("cannot write %s" % args.output, "it is a directory")
    files.write_whole(args.output, draw(pinmap, args.lang, args.paper))
    files.print_path(args.output)
    return 0
