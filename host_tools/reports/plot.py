"""The plot of `matchbox report`, drawn with matplotlib (its Figure API: no display, no pyplot).

Two panels share the x axis (action number, 0 = the deal): cards in hand and matchsticks
held, one step line per seat in a fixed colour. Revolutions shade the stretch they are in
force; strongest-value plays (the forced passes) get a triangle above the sticks panel; a
seat that goes out gets a disc with its rank; cleared tables are faint dashed lines; a record
that stops early says so in a red banner and a red dashed line. The right column holds the
ranking and the key to the marks.

Every mark has an SVG id (matplotlib's gid) saying what it is, so tools and tests can find
it: cards-panel, sticks-panel, seat-3-cards, revolution-12-sticks, revolution-band-12-30-cards, forced-15-seat-2,
out-seat-4-rank-1-cards, cleared-9-sticks, stop-cards, error, rank-1-seat-4.
The output is the same bytes for the same record (fixed hash salt, no date).
"""
import io

import matplotlib
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator
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

DPI = 100                 # the SVG's size in pixels is its size in inches times this
TAIL = 0.5                # actions of room after the last one (its level shows there)
PNG_DPI = 2 * DPI         # the PNG is twice as large
RC = {
    "svg.hashsalt": "matchbox-report",   # stable ids: the docs' picture is checked byte for byte
    "svg.fonttype": "none",              # text stays text: searchable, small, sharp
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Helvetica", "Arial"],
    "font.size": 9,
    "text.color": TEXT,
    "axes.edgecolor": AXIS,
    "axes.labelcolor": TEXT,
    "xtick.color": MUTED,
    "ytick.color": MUTED,
    "path.simplify": False,              # every step of every line is drawn
}
SVG_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
PNG_METADATA = {"Software": None}

# Layout in inches.
WIDTH = 9.6
LEFT, RIGHT = 0.6, 7.2    # the panels
LEGEND = 7.45             # left edge of the right column
PANEL = 1.9               # height of one panel
GAP = 0.62                # between the panels: the second title and the forced marks
ROW = 0.36                # one seat in the ranking


def seat_colour(seat):
    """The colour of a seat, the same in every report."""
    return COLOURS[(seat - 1) % len(COLOURS)]


class Plot:
    """Draws one trace on a matplotlib Figure (self.figure)."""

    def __init__(self, trace):
        self.trace = trace
        self.game = trace.game
        self.n = len(trace.steps)
        hands = max(list(self.game.hands) + [1])
        sticks = max([max(s.sticks) for s in trace.steps] + [1, 2])
        self.ymax = {"cards": hands, "sticks": sticks}
        self.top = 1.05 + (0.4 if trace.error else 0)     # top of the cards panel
        panels_bottom = self.top + 2 * PANEL + GAP + 0.62
        legend_bottom = self.top + len(ranking(trace)) * ROW + 2.1
        self.height = max(panels_bottom, legend_bottom)
        self.figure = Figure(figsize=(WIDTH, self.height), dpi=DPI, facecolor="#ffffff")
        self.axes = {"cards": self.panel_axes(self.top, "cards"),
                     "sticks": self.panel_axes(self.top + PANEL + GAP, "sticks")}
        self.axes["sticks"].sharex(self.axes["cards"])

    def frac(self, x, y):
        """Figure fraction of a point given in inches from the top left corner."""
        return x / WIDTH, 1 - y / self.height

    def panel_axes(self, top, what):
        x0, y0 = self.frac(LEFT, top + PANEL)
        ax = self.figure.add_axes((x0, y0, (RIGHT - LEFT) / WIDTH, PANEL / self.height))
        ax.set_gid(what + "-panel")
        return ax

    def offset(self, what, seat):
        """A small shift per seat so that lines with the same value stay visible."""
        return (seat - (self.game.players + 1) / 2) * self.ymax[what] * 0.009

    def draw(self):
        self.header()
        for what, label in (("cards", "Cards in hand"), ("sticks", "Matchsticks held")):
            self.panel(what, label)
        self.forced()
        self.outs()
        self.legend()
        return self.figure

    def header(self):
        trace, game = self.trace, self.game
        fig = self.figure
        fig.text(*self.frac(0.2, 0.38), "Matchstick Tycoon: %s" % trace.name, fontsize=14,
                 fontweight="bold", gid="title")
        fig.text(*self.frac(0.2, 0.62), "%s - %s, %s" % (
            setup_text(game), plural(self.n, "action"),
            "finished" if game.finished else "not finished"), color=MUTED, gid="setup")
        if trace.error:
            fig.text(*self.frac(0.28, 0.98), error_text(trace), fontsize=10, fontweight="bold",
                     color="#ffffff", gid="error",
                     bbox={"facecolor": ERROR, "edgecolor": "none", "boxstyle": "square,pad=0.5"})

    def panel(self, what, label):
        ax = self.axes[what]
        ax.set_title(label, loc="left", fontsize=10, fontweight="bold",
                     pad=20 if what == "sticks" else 8)
        # Half an action of room after the last one, so its step is not on the frame and the
        # level it leaves shows (the tail drawn below); integer ticks stop at the last action.
        ax.set_xlim(0, self.n + TAIL if self.n else 1)
        top = self.ymax[what]
        ax.set_ylim(-0.07 * top, 1.07 * top)
        ax.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True, min_n_ticks=2))
        ax.xaxis.set_major_locator(MaxNLocator(nbins=12, integer=True))
        ax.grid(axis="y", color=GRID, linewidth=0.8)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        if what == "cards":
            ax.tick_params(axis="x", labelbottom=False)
        else:
            ax.set_xlabel("action number (0 = the deal)")
        for start, end in self.revolution_bands():
            ax.axvspan(start, end, color=BAND, linewidth=0, zorder=0,
                       gid="revolution-band-%d-%d-%s" % (start, end, what))
        for step in self.trace.marks(CLEARED):
            if not step.events & FORCED:
                ax.axvline(step.index, color=CLEAR, linewidth=0.8, linestyle=(0, (2, 3)),
                           zorder=1, gid="cleared-%d-%s" % (step.index, what))
        for i, step in enumerate(self.trace.marks(REVOLUTION)):
            ax.axvline(step.index, color=REVOLT, linewidth=1.3, zorder=2,
                       gid="revolution-%d-%s" % (step.index, what))
            if what == "cards":
                text = "%s, seat %d" % ("revolution" if step.revolution else "order restored",
                                        step.seat)
                right = step.index < 0.75 * max(self.n, 1)
                ax.annotate(text, (step.index, 0.96 - 0.075 * (i % 2)),
                            xycoords=ax.get_xaxis_transform(), xytext=(3 if right else -3, 0),
                            textcoords="offset points", fontsize=7.5, color=REVOLT,
                            ha="left" if right else "right", va="top",
                            gid="revolution-%d-label" % step.index)
        for seat in range(1, self.game.players + 1):
            values = self.trace.series(seat, what)
            ax.plot(range(len(values)), [v + self.offset(what, seat) for v in values],
                    drawstyle="steps-post", color=seat_colour(seat), linewidth=1.8, zorder=3,
                    solid_joinstyle="miter", gid="seat-%d-%s" % (seat, what),
                    marker="o" if len(values) == 1 else None, markersize=5,  # a lone deal
                    clip_on=len(values) > 1)
            if len(values) > 1:
                ax.plot([self.n, self.n + TAIL], [values[-1] + self.offset(what, seat)] * 2,
                        color=seat_colour(seat), linewidth=1.8, zorder=3,
                        gid="seat-%d-%s-after" % (seat, what))
        if self.trace.error:
            ax.axvline(self.n, color=ERROR, linewidth=1.6, linestyle=(0, (5, 3)), zorder=4,
                       gid="stop-%s" % what)
            if what == "cards":
                ax.annotate("stops: line %d" % self.trace.error[0], (self.n, 0.03),
                            xycoords=ax.get_xaxis_transform(), xytext=(-3, 0),
                            textcoords="offset points", fontsize=7.5, color=ERROR,
                            ha="right", va="bottom", gid="stop-label")
        if not self.n:
            ax.text(0.5, 0.5, "no actions in the record", transform=ax.transAxes,
                    color=MUTED, ha="center", va="center")

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

    def forced(self):
        ax = self.axes["sticks"]
        for step in self.trace.marks(FORCED):
            ax.plot([step.index], [1.045], transform=ax.get_xaxis_transform(), clip_on=False,
                    marker="v", markersize=8, linestyle="none",
                    markerfacecolor=seat_colour(step.seat), markeredgecolor="#ffffff",
                    markeredgewidth=0.6, zorder=5,
                    gid="forced-%d-seat-%d" % (step.index, step.seat))

    def outs(self):
        for seat in self.game.ranking:
            action = self.trace.out_at(seat)
            if action is None:
                continue
            rank = self.game.ranks[seat - 1]
            for what, ax in self.axes.items():
                y = self.offset(what, seat)
                gid = "out-seat-%d-rank-%d-%s" % (seat, rank, what)
                ax.plot([action], [y], marker="o", markersize=13, linestyle="none",
                        markerfacecolor=seat_colour(seat), markeredgecolor="#ffffff",
                        markeredgewidth=1.2, clip_on=False, zorder=6, gid=gid)
                ax.text(action, y, str(rank), fontsize=7.5, fontweight="bold", color="#ffffff",
                        ha="center", va="center_baseline", clip_on=False, zorder=7,
                        gid=gid + "-label")

    def legend(self):
        fig, game = self.figure, self.game
        y = self.top - 0.22
        title = "Final ranking" if game.finished else "Standing after action %d" % self.n
        fig.text(*self.frac(LEGEND, y), title, fontsize=10, fontweight="bold", gid="ranking")
        for seat in ranking(self.trace):
            y += ROW
            rank = game.ranks[seat - 1]
            colour = seat_colour(seat)
            fig.add_artist(Line2D([LEGEND / WIDTH, (LEGEND + 0.22) / WIDTH],
                                  [self.frac(0, y - 0.04)[1]] * 2, color=colour, linewidth=2.5))
            fig.text(*self.frac(LEGEND + 0.3, y), "%s  Seat %d" % (
                ordinal(rank) if rank else "-", seat), fontweight="bold", color=colour,
                gid="rank-%d-seat-%d" % (rank, seat))
            fig.text(*self.frac(LEGEND + 0.3, y + 0.15), self.result(seat), fontsize=8,
                     color=MUTED)
        handles = [
            Patch(facecolor=BAND, label="revolution in force"),
            Line2D([], [], color=REVOLT, linewidth=1.3, label="revolution played"),
            Line2D([], [], color=MUTED, marker="v", markersize=8, linestyle="none",
                   label="strongest play: forced passes"),
            Line2D([], [], color=MUTED, marker="o", markersize=10, linestyle="none",
                   label="seat out (its rank)"),
            Line2D([], [], color=CLEAR, linewidth=0.8, linestyle=(0, (2, 3)),
                   label="table cleared"),
        ]
        if self.trace.error:
            handles.append(Line2D([], [], color=ERROR, linewidth=1.6, linestyle=(0, (5, 3)),
                                  label="record stops (error)"))
        key = fig.legend(handles=handles, loc="upper left", frameon=False, fontsize=8,
                         bbox_to_anchor=self.frac(LEGEND - 0.1, y + 0.5), title="Marks",
                         alignment="left", handlelength=1.6,
                         title_fontproperties={"weight": "bold", "size": 10})
        key.set_gid("marks")

    def result(self, seat):
        """Short result line of the legend."""
        game = self.game
        held = "%s, %s" % (plural(game.cards[seat - 1], "card"),
                           plural(game.sticks[seat - 1], "stick"))
        rank = game.ranks[seat - 1]
        action = self.trace.out_at(seat)
        if rank and action is not None:
            return "out at action %d" % action
        if rank:
            return "last: " + held
        return "still in: " + held


def figure(trace):
    """The matplotlib Figure of a trace from host_tools.reports.trace.read_record."""
    with matplotlib.rc_context(RC):
        return Plot(trace).draw()


def save(trace, fmt):
    """The plot as an SVG document (fmt 'svg': a str) or a PNG image ('png': bytes)."""
    with matplotlib.rc_context(RC):     # the svg.* settings are read when saving
        fig = figure(trace)
        if fmt == "svg":
            out = io.StringIO()
            fig.savefig(out, format="svg", metadata=SVG_METADATA)
        else:
            out = io.BytesIO()
            fig.savefig(out, format="png", dpi=PNG_DPI, metadata=PNG_METADATA)
        return out.getvalue()


def svg(trace):
    """The SVG document (a str) plotting a trace."""
    return save(trace, "svg")


def png(trace):
    """The PNG image (bytes) of the same plot, twice the SVG's size in pixels."""
    return save(trace, "png")
