"""The event's printed sheets, as PDF, in English, German or Japanese (docs/event.md):

- the round's sheet: the seating list (every player by name: table, seat, box), then a slip a
  table (cut apart: its players in seat order, seat 1 leading first, and its box's setup as
  the displays show it, for a box without the hall), then the standings after the rounds
  before it;
- the standings sheet: the standings after a round.

Set as the table card is (host_tools.commands.card: its fonts, DejaVu Sans and IPAexGothic
from matplotlib-fontja, embedded; its Page, which breaks lines and draws the displays'
seven segments). A player's name in characters the language's font lacks (a Japanese name on
the English sheet) sets that sheet in IPAexGothic, which has the Latin letters too; a name no
font here can set is refused before anything is drawn.
"""
import io

from host_tools.errors import MatchboxError
from host_tools.event import scoring
from host_tools.event import words as vocabulary

ROWS = 56        # lines of a list on a page (the seating list: two columns of them)
SLIPS = 3        # slips a page


def _card():
    from host_tools.commands import card   # the card's fonts, colours and Page
    return card


def _fonts(lang, texts):
    from host_tools import resources
    from host_tools.commands import card
    regular, bold = card.font_files(lang)
    if card.missing_glyphs(texts, regular):
        japanese = resources.japanese_font()
        if japanese is None:
            raise MatchboxError("print", "a name needs the Japanese font, which is not "
                                "installed (pip install matplotlib-fontja)")
        regular = japanese
    missing = card.missing_glyphs(texts, regular)
    if missing:
        raise MatchboxError("print", "no font here has %s (in a player's name)"
                            % "".join(missing))
    return regular, bold


class Sheet:
    """Pages of one PDF in memory (card.Page on A4)."""

    def __init__(self, lang, texts, title):
        import matplotlib
        matplotlib.use("Agg", force=False)
        from matplotlib.backends.backend_pdf import PdfPages
        from host_tools.commands import card
        self.card = card
        self.size = card.PAPERS["a4"]
        self.fonts = _fonts(lang, texts)
        self.out = io.BytesIO()
        self._rc = matplotlib.rc_context({"pdf.fonttype": 42})
        self._rc.__enter__()
        self.pdf = PdfPages(self.out, metadata={"Title": title, "CreationDate": None,
                                                "Creator": "matchbox event print"})
        self.page = None

    def new_page(self):
        from matplotlib.figure import Figure
        self.flush()
        self.figure = Figure(figsize=(self.size[0] / 25.4, self.size[1] / 25.4))
        self.page = self.card.Page(self.figure, self.size, self.fonts, 1.0, 12)
        return self.page

    def flush(self):
        if self.page is not None:
            self.pdf.savefig(self.figure)
            self.page = None

    def close(self):
        self.flush()
        self.pdf.close()
        self._rc.__exit__(None, None, None)
        return self.out.getvalue()


def _heading(page, y, text, sub=None):
    y += page.write(page.margin, y, text, page.full, 15, bold=True)
    if sub:
        y += page.write(page.margin, y, sub, page.full, 9, color=_card().GREY) + 1
    return y + 2


def _columns(page, y, x, widths, cells, size=9, bold=False):
    for w, cell in zip(widths, cells):
        page.write(x, y, str(cell), w - 1.5, size, bold=bold)
        x += w
    return y + size * 0.3528 * 1.35


def _seating(sheet, w, event_name, rnd):
    rows = sorted(((p, t["table"], seat, t["box"]) for t in rnd["tables"]
                   for seat, p in enumerate(t["players"], 1)), key=lambda r: r[0].casefold())
    widths = (44, 18, 12, 18)
    per_page = 2 * ROWS
    for start in range(0, max(len(rows), 1), per_page):
        page = sheet.new_page()
        y = _heading(page, page.margin, w["seating"].format(round=rnd["round"]),
                     event_name)
        y += page.write(page.margin, y, w["seating_note"], page.full, 9) + 2
        for col in range(2):
            part = rows[start + col * ROWS:start + (col + 1) * ROWS]
            if not part:
                continue
            x = page.margin + col * (page.full / 2)
            yy = _columns(page, y, x, widths, (w["name"], w["table"], w["seat"], w["box"]),
                          bold=True)
            page.rule(x, x + sum(widths) - 2, yy - 0.6)
            for row in part:
                yy = _columns(page, yy + 0.4, x, widths, row)


def _slip(page, y, w, event, rnd, table):
    card = _card()
    x, full = page.margin, page.full
    top = y
    y += page.write(x, y, w["slip"].format(round=rnd["round"], table=table["table"]) +
                    "  ·  " + w["box"] + " " + table["box"], full, 13, bold=True)
    y += page.write(x, y, w["slip_seats"], full, 9) + 1
    for seat, name in enumerate(table["players"], 1):
        line = "%d   %s%s" % (seat, name, "   (%s)" % w["leads"] if seat == 1 else "")
        y += page.write(x + 4, y, line, full - 4, 11, bold=seat == 1)
    y += 2
    setup = event.setup(len(table["players"]))
    y += page.write(x, y, w["slip_box_net"].format(box=table["box"], table=table["table"]),
                    full - 40, 9)
    page.display(x + full - 36, top, 8, "t%3d" % table["table"])
    y += page.write(x, y, w["slip_box_hand"], full, 9) + 1
    shown = ("PL %d" % setup["players"], "dL %d" % setup["dealer"],
             "Gh %d" % setup["expansion"], "rE %d" % setup["revolution"],
             "St%2d" % setup["sticks"])
    names = (w["setup_players"], w["setup_dealer"], w["setup_expansion"],
             w["setup_revolution"], w["setup_sticks"])
    step = full / 5
    for i, (text, name) in enumerate(zip(shown, names)):
        page.display(x + i * step, y, 7, text)
        page.write(x + i * step, y + 8.5, name, step - 2, 7.5, color=card.GREY)
    y += 17
    y += page.write(x, y, w["setup_hands"] + "  " + w["slip_end"], full, 8, color=card.GREY)
    return y


def _slips(sheet, w, event, rnd):
    tables = rnd["tables"]
    for start in range(0, len(tables), SLIPS):
        page = sheet.new_page()
        band = (page.height - 2 * page.margin) / SLIPS
        for i, table in enumerate(tables[start:start + SLIPS]):
            y = page.margin + i * band
            if i:
                page.rule(page.margin, page.margin + page.full, y - 3, _card().GREY, 0.3)
            bottom = _slip(page, y, w, event, rnd, table)
            if bottom > y + band - 4:   # a bug of the layout, not a slip
                raise RuntimeError("a slip overflows its band by %.1f mm" % (bottom - y - band))


def _standings(sheet, w, event, rows, after):
    lo, hi = event.config["table_size"]
    widths = (14, 52, 18, 18, 10, 14)
    rows = scoring.as_json(rows)
    note = (w["points_rule"].format(scale=scoring.scale(lo, hi)) + " " +
            w["unfinished_" + event.config["unfinished"]])
    for start in range(0, max(len(rows), 1), ROWS - 6):
        page = sheet.new_page()
        y = _heading(page, page.margin, w["standings"].format(round=after),
                     event.config.get("name") or None)
        y += page.write(page.margin, y, note, page.full, 8, color=_card().GREY) + 2
        y = _columns(page, y, page.margin, widths + (page.full - sum(widths),),
                     (w["rank"], w["player"], w["points"], w["opponents"], w["firsts"],
                      w["games"], w["places"]), bold=True)
        page.rule(page.margin, page.margin + page.full, y - 0.6)
        for r in rows[start:start + ROWS - 6]:
            y = _columns(page, y + 0.4, page.margin, widths + (page.full - sum(widths),),
                         ("%d%s" % (r["rank"], "=" if r["shared"] else ""), r["name"],
                          r["points"], r["opponents"], r["firsts"], r["games"],
                          "  ".join(p or "·" for p in r["places"])))


def _texts(event, w):
    names = [p.name for p in event.players] + [event.config.get("name", "")]
    return names + [v for v in w.values()]


def round_sheet(event, rnd, rows, lang):
    """The PDF (bytes) of a round: the seating list, the slips, the standings `rows` after
    the round before it (none for round 1)."""
    w = vocabulary.words(lang)
    sheet = Sheet(lang, _texts(event, w), w["seating"].format(round=rnd["round"]))
    try:
        _seating(sheet, w, event.config.get("name") or None, rnd)
        _slips(sheet, w, event, rnd)
        if rnd["round"] > 1:
            _standings(sheet, w, event, rows, rnd["round"] - 1)
    finally:
        data = sheet.close()
    return data


def standings_sheet(event, rows, after, lang):
    """The PDF (bytes) of the standings `rows` after round `after`."""
    w = vocabulary.words(lang)
    sheet = Sheet(lang, _texts(event, w), w["standings"].format(round=after))
    try:
        _standings(sheet, w, event, rows, after)
    finally:
        data = sheet.close()
    return data
