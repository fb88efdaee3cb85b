"""The plot of `matchbox report` as hand-written SVG.

Two panels share the x axis (action number, 0 = the deal): cards in hand and matchsticks
held, one step line per seat in a fixed colour. Revolutions shade the stretch they are in
force; strongest-value plays (the forced passes) get a triangle above the sticks panel;
a seat that goes out gets a disc with its rank; cleared tables are faint dashed lines.
The right column holds the ranking and the key to the marks.

The numbers are in the markup too: each series carries data-seat and data-values, each
mark data-action, and the root data-x0/data-x1 (x of action 0 and of the last action).
Only attributes that report_png understands are used for drawing.
"""
from tycoon.game import CLEARED, FORCED, REVOLUTION

from host_tools.reports.trace import error_text, ordinal, plural, ranking, setup_text

# Okabe-Ito colours (told apart with the common colour-vision deficiencies), then two more.
COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#333333", "#9a8400")
TEXT = "#222222"
MUTED = "#666666"
AXIS = "#999999"
GRID = "#ebebeb"
CLEAR = "#c8c8c8"
BAND = "#efe9f7"
REVOLT = "#6a3d9a"
ERROR = "#c62828"

WIDTH = 960
X0, X1 = 58, 716          # plot area, left and right
LEGEND = 744              # left edge of the right column
PANEL = 180               # height of one panel
GAP = 58                  # between the panels: the second label and the forced marks


def seat_colour(seat):
    """The colour of a seat, the same in every report."""
    return COLOURS[(seat - 1) % len(COLOURS)]


class El:
    """An SVG element: tag, attributes (None values left out), children, text."""

    def __init__(self, tag, attrs=None, children=(), text=None):
        self.tag = tag
        self.attrs = attrs or {}
        self.children = list(children)
        self.text = text

    def add(self, *children):
        self.children.extend(children)
        return self


def el(tag, text=None, title=None, **attrs):
    """El with keyword attributes: data_values -> data-values, class_ -> class."""
    node = El(tag, dict((k.rstrip("_").replace("_", "-"), v) for k, v in attrs.items()),
              text=text)
    if title:
        node.children.append(El("title", text=title))
    return node


def num(v):
    """A coordinate in short form: 12, 12.5, 12.33."""
    if isinstance(v, int):
        return str(v)
    text = "%.2f" % v
    return text.rstrip("0").rstrip(".") if "." in text else text


def points(pairs):
    return " ".join(["%s,%s" % (num(x), num(y)) for x, y in pairs])


def escape(text):
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def serialize(node, out, depth=0):
    attrs = "".join([' %s="%s"' % (k, escape(num(v) if isinstance(v, (int, float)) else v))
                     for k, v in node.attrs.items() if v is not None])
    pad = "  " * depth
    if not node.children and node.text is None:
        out.append("%s<%s%s/>\n" % (pad, node.tag, attrs))
    elif not node.children:
        out.append("%s<%s%s>%s</%s>\n" % (pad, node.tag, attrs, escape(node.text), node.tag))
    else:
        out.append("%s<%s%s>%s\n" % (pad, node.tag, attrs, escape(node.text or "")))
        for child in node.children:
            serialize(child, out, depth + 1)
        out.append("%s</%s>\n" % (pad, node.tag))


def nice_step(span, most):
    """A round tick step (1, 2, 5, 10, 20, 25, 50, ...) giving at most `most` steps."""
    step = 1
    while True:
        for m in (1, 2, 5) if step < 10 else (1, 2, 2.5, 5):
            if span / (step * m) <= most:
                return int(step * m)
        step *= 10


class Plot:
    """Lays out one trace; svg() gives the document."""

    def __init__(self, trace):
        self.trace = trace
        self.game = trace.game
        self.n = len(trace.steps)
        self.top = 104 + (34 if trace.error else 0)
        self.panels = {"cards": self.top, "sticks": self.top + PANEL + GAP}
        self.height = self.panels["sticks"] + PANEL + 52
        hands = max(list(self.game.hands) + [1])
        sticks = max([max(s.sticks) for s in trace.steps] + [1, 2])
        self.ystep = {"cards": nice_step(hands, 6), "sticks": nice_step(sticks, 5)}
        self.ymax = {k: -(-m // self.ystep[k]) * self.ystep[k]
                     for k, m in (("cards", hands), ("sticks", sticks))}

    def x(self, action):
        return X0 + (X1 - X0) * action / max(self.n, 1)

    def y(self, what, value, seat=None):
        y = self.panels[what] + PANEL - PANEL * value / self.ymax[what]
        if seat is not None:    # spread equal values a little so every line stays visible
            y += (seat - (self.game.players + 1) / 2) * 1.6
        return y

    def svg(self):
        root = el("svg", xmlns="http://www.w3.org/2000/svg", width=WIDTH, height=self.height,
                  viewBox="0 0 %d %d" % (WIDTH, self.height), role="img",
                  font_family="DejaVu Sans, Helvetica, Arial, sans-serif", font_size=12,
                  data_actions=self.n, data_players=self.game.players, data_x0=X0, data_x1=X1)
        root.add(El("title", text="Cards and matchsticks per seat: %s" % self.trace.name))
        root.add(el("rect", x=0, y=0, width=WIDTH, height=self.height, fill="#ffffff"))
        root.add(*self.header())
        for what, label in (("cards", "Cards in hand"), ("sticks", "Matchsticks held")):
            root.add(*self.panel(what, label))
        root.add(*self.x_axis())
        root.add(*self.forced())
        for what in ("cards", "sticks"):
            root.add(self.series(what))
        root.add(*self.outs())
        root.add(*self.legend())
        out = ['<?xml version="1.0" encoding="UTF-8"?>\n']
        serialize(root, out)
        return "".join(out)

    def header(self):
        trace, game = self.trace, self.game
        parts = [el("text", "Matchstick Tycoon: %s" % trace.name, x=X0 - 40, y=30, font_size=18,
                    font_weight="bold", fill=TEXT),
                 el("text", "%s - %s, %s" % (
                     setup_text(game), plural(self.n, "action"),
                     "finished" if game.finished else "not finished"),
                    x=X0 - 40, y=50, fill=MUTED)]
        if trace.error:
            parts.append(el("g", class_="error", data_line=trace.error[0]).add(
                el("rect", x=X0 - 40, y=62, width=WIDTH - X0 + 20, height=26, fill=ERROR),
                el("text", error_text(trace), x=X0 - 30, y=80, font_size=13,
                   font_weight="bold", fill="#ffffff")))
        return parts

    def panel(self, what, label):
        top = self.panels[what]
        bottom = top + PANEL
        parts = [el("text", label, x=X0, y=top - 30, font_size=13, font_weight="bold", fill=TEXT)]
        for band in self.revolution_bands():
            parts.append(el("rect", class_="revolution-band", data_from=band[0], data_to=band[1],
                            x=self.x(band[0]), y=top, width=self.x(band[1]) - self.x(band[0]),
                            height=PANEL, fill=BAND))
        grid = el("g", stroke=GRID, stroke_width=1)
        ticks = el("g", fill=MUTED, font_size=11, text_anchor="end")
        for v in range(0, self.ymax[what] + 1, self.ystep[what]):
            y = self.y(what, v)
            if v:
                grid.add(el("line", x1=X0, y1=y, x2=X1, y2=y))
            ticks.add(el("text", str(v), x=X0 - 7, y=y + 4))
        parts += [grid, ticks]
        clears = el("g", stroke=CLEAR, stroke_width=1, stroke_dasharray="2 3")
        for step in self.trace.marks(CLEARED):
            if not step.events & FORCED:
                clears.add(el("line", class_="cleared", data_action=step.index,
                              x1=self.x(step.index), y1=top, x2=self.x(step.index), y2=bottom))
        parts.append(clears)
        for i, step in enumerate(self.trace.marks(REVOLUTION)):
            x = self.x(step.index)
            mark = el("g", class_="revolution", data_action=step.index, data_seat=step.seat,
                      title="action %d, line %d: seat %d plays %s - %s" % (
                          step.index, step.line, step.seat, step.action_text(), step.event_text()))
            mark.add(el("line", x1=x, y1=top, x2=x, y2=bottom, stroke=REVOLT, stroke_width=1.5))
            if what == "cards":
                text = "%s, seat %d" % ("revolution" if step.revolution else "order restored",
                                        step.seat)
                right = x + 4 + len(text) * 6 < X1
                mark.add(el("text", text, x=x + 4 if right else x - 4, y=top + 13 + 12 * (i % 2),
                            font_size=10, fill=REVOLT, text_anchor=None if right else "end"))
            parts.append(mark)
        if self.trace.error:
            x = self.x(self.n)
            stop = el("g", class_="stop", data_action=self.n)
            stop.add(el("line", x1=x, y1=top, x2=x, y2=bottom, stroke=ERROR, stroke_width=2,
                        stroke_dasharray="5 3"))
            if what == "cards":
                stop.add(el("text", "stops: line %d" % self.trace.error[0], x=x - 4,
                            y=bottom - 6, font_size=10, fill=ERROR, text_anchor="end"))
            parts.append(stop)
        if not self.n:
            parts.append(el("text", "no actions in the record", x=(X0 + X1) / 2,
                            y=top + PANEL / 2, fill=MUTED, text_anchor="middle"))
        parts.append(el("polyline", points=points([(X0, top), (X0, bottom), (X1, bottom)]),
                        fill="none", stroke=AXIS, stroke_width=1))
        return parts

    def revolution_bands(self):
        """(from, to) action numbers of each stretch with the order reversed."""
        bands = []
        start = None
        for step in self.trace.marks(REVOLUTION):
            if step.revolution:
                start = step.index
            elif start is not None:
                bands.append((start, step.index))
                start = None
        if start is not None:
            bands.append((start, self.n))
        return bands

    def x_axis(self):
        bottom = self.panels["sticks"] + PANEL
        ticks = el("g", fill=MUTED, font_size=11, text_anchor="middle")
        lines = el("g", stroke=AXIS, stroke_width=1)
        step = nice_step(max(self.n, 1), 12)
        for a in range(0, self.n + 1, step):
            x = self.x(a)
            lines.add(el("line", x1=x, y1=bottom, x2=x, y2=bottom + 4))
            ticks.add(el("text", str(a), x=x, y=bottom + 17))
        label = el("text", "action number (0 = the deal)", x=(X0 + X1) / 2, y=bottom + 36,
                   fill=TEXT, text_anchor="middle")
        return [lines, ticks, label]

    def forced(self):
        y = self.panels["sticks"] - 4
        group = el("g", class_="forced-marks")
        for step in self.trace.marks(FORCED):
            x = self.x(step.index)
            group.add(el("polygon", class_="forced", data_action=step.index, data_seat=step.seat,
                         points=points([(x - 4.5, y - 8), (x + 4.5, y - 8), (x, y)]),
                         fill=seat_colour(step.seat),
                         title="action %d, line %d: seat %d plays %s - the others take a stick"
                         % (step.index, step.line, step.seat, step.action_text())))
        return [group]

    def series(self, what):
        group = el("g", class_="series-" + what, fill="none", stroke_width=2)
        for seat in range(1, self.game.players + 1):
            values = self.trace.series(seat, what)
            pairs = [(self.x(0), self.y(what, values[0], seat))]
            for a in range(1, len(values)):
                if values[a] != values[a - 1]:
                    pairs.append((self.x(a), self.y(what, values[a - 1], seat)))
                    pairs.append((self.x(a), self.y(what, values[a], seat)))
            end = (self.x(len(values) - 1), self.y(what, values[-1], seat))
            if pairs[-1] != end:
                pairs.append(end)
            group.add(el("polyline", class_="series", data_seat=seat, data_what=what,
                         data_values=" ".join([str(v) for v in values]), points=points(pairs),
                         stroke=seat_colour(seat), title="seat %d: %s" % (seat, what)))
        return group

    def outs(self):
        parts = []
        for seat in self.game.ranking:
            action = self.trace.out_at(seat)
            if action is None:
                continue
            rank = self.game.ranks[seat - 1]
            mark = el("g", class_="out", data_seat=seat, data_action=action, data_rank=rank,
                      title="action %d: seat %d goes out, %s" % (action, seat, ordinal(rank)))
            for what in ("cards", "sticks"):
                x, y = self.x(action), self.y(what, 0, seat)
                mark.add(el("circle", cx=x, cy=y, r=7.5, fill=seat_colour(seat),
                            stroke="#ffffff", stroke_width=1.5),
                         el("text", str(rank), x=x, y=y + 4, font_size=11, font_weight="bold",
                            fill="#ffffff", text_anchor="middle"))
            parts.append(mark)
        return parts

    def legend(self):
        game = self.game
        y = self.top - 30
        title = "Final ranking" if game.finished else "Standing after action %d" % self.n
        parts = [el("text", title, x=LEGEND, y=y, font_size=13, font_weight="bold", fill=TEXT)]
        for seat in ranking(self.trace):
            y += 32
            rank = game.ranks[seat - 1]
            colour = seat_colour(seat)
            row = el("g", class_="rank", data_seat=seat, data_rank=rank)
            row.add(el("line", x1=LEGEND, y1=y - 4, x2=LEGEND + 20, y2=y - 4, stroke=colour,
                       stroke_width=3),
                    el("text", "%s  Seat %d" % (ordinal(rank) if rank else "-", seat),
                       x=LEGEND + 28, y=y, font_weight="bold", fill=colour),
                    el("text", self.result(seat), x=LEGEND + 28, y=y + 14, font_size=11,
                       fill=MUTED))
            parts.append(row)
        y += 50
        parts.append(el("text", "Marks", x=LEGEND, y=y, font_size=13, font_weight="bold",
                        fill=TEXT))
        keys = [
            (el("rect", x=LEGEND, y=y + 9, width=20, height=14, fill=BAND), "revolution in force"),
            (el("line", x1=LEGEND + 10, y1=y + 7, x2=LEGEND + 10, y2=y + 25, stroke=REVOLT,
                stroke_width=1.5), "revolution played"),
            (el("polygon", points=points([(LEGEND + 5.5, y + 12), (LEGEND + 14.5, y + 12),
                                          (LEGEND + 10, y + 20)]), fill=MUTED),
             "strongest play: forced passes"),
            (el("circle", cx=LEGEND + 10, cy=y + 16, r=7, fill=MUTED), "seat out (its rank)"),
            (el("line", x1=LEGEND + 10, y1=y + 7, x2=LEGEND + 10, y2=y + 25, stroke=CLEAR,
                stroke_dasharray="2 3"), "table cleared"),
        ]
        if self.trace.error:
            keys.append((el("line", x1=LEGEND + 10, y1=y + 7, x2=LEGEND + 10, y2=y + 25,
                            stroke=ERROR, stroke_width=2, stroke_dasharray="5 3"),
                         "record stops (error)"))
        for i, (icon, text) in enumerate(keys):
            shift = 22 * i
            for attr in ("y", "y1", "y2", "cy"):
                if attr in icon.attrs:
                    icon.attrs[attr] += shift
            if "points" in icon.attrs:
                icon.attrs["points"] = points([(px, py + shift) for px, py in [
                    tuple(float(c) for c in p.split(",")) for p in icon.attrs["points"].split()]])
            parts += [icon, el("text", text, x=LEGEND + 28, y=y + 20 + shift, font_size=11,
                               fill=TEXT)]
        return parts

    def result(self, seat):
        """Short result line of the legend."""
        game = self.game
        held = "%s, %s" % (plural(game.cards[seat - 1], "card"), plural(game.sticks[seat - 1], "stick"))
        rank = game.ranks[seat - 1]
        action = self.trace.out_at(seat)
        if rank and action is not None:
            return "out at action %d" % action
        if rank:
            return "last: " + held
        return "still in: " + held


def svg(trace):
    """The SVG document (a str) plotting a trace from host_tools.reports.trace.read_record."""
    return Plot(trace).svg()
