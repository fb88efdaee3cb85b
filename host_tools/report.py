"""`matchbox report`: a game record as a picture of each seat's cards and matchsticks.

The record is replayed line by line with tycoon.notation, keeping the state after every
action. Output by extension: .svg (the plot), .png (the same plot, drawn without any
extra package) or .html (one self-contained page: setup, plot, ranking, per-seat totals
and the action log with line numbers). A record with an error is shown up to its last
legal action, with the error stated on the plot and the page.
"""
import html
import os
import sys
from typing import Any, List, Optional, Tuple

from tycoon import notation
from tycoon.cards import cost
from tycoon.game import (CLEARED, FINISHED, FORCED, OUT, PASS, PLAY, REVOLUTION,
                         IllegalAction)

FORMATS = (".html", ".svg", ".png")
STATUS = {None: 0, "illegal": 1, "syntax": 2}


class ReportError(Exception):
    """A report that cannot be made: unreadable input, unknown output format."""


def ordinal(n):
    """1st, 2nd, 3rd, 4th ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return "%d%s" % (n, suffix)


def plural(n, word):
    """'1 card', '3 cards'."""
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


class Step:
    """One legal action of the record and the state right after it."""

    def __init__(self, index, line, action, events, cost, game):
        self.index = index          # action number, 1 for the first action
        self.line = line            # line of the record it was read from
        self.kind, self.seat, self.faces, self.value, self.explicit = action
        self.events = events        # tycoon.game event flags
        self.cost = cost            # sticks spent on the cards of a play
        self.cards = tuple(game.cards)
        self.sticks = tuple(game.sticks)
        self.supply = game.supply
        self.revolution = game.revolution
        self.rank = game.ranks[self.seat - 1]

    def action_text(self):
        """The action in canonical notation, without the seat: 'play 6 9 as 9'."""
        return notation.action_text(self.kind, self.seat, self.faces, self.value,
                                    self.explicit).split(": ", 1)[1].strip()

    def event_text(self):
        """What the action set off, in words ('' when nothing)."""
        words = []
        if self.events & REVOLUTION:
            words.append("revolution" if self.revolution else "revolution: order restored")
        if self.events & FORCED:
            words.append("strongest value: the others take a stick")
        if self.events & OUT:
            words.append("seat %d out (%s)" % (self.seat, ordinal(self.rank)))
        if self.events & FINISHED:
            words.append("game over")
        elif self.events & CLEARED:
            words.append("table cleared")
        return ", ".join(words)


class Trace:
    """A replayed record: the final game, every legal action with the state after it,
    and the error that stopped the record (line, kind, code) or None."""

    def __init__(self, name):
        self.name = name
        self.game: Any = None       # a tycoon.game.Game; None only when the header is bad
        self.steps: List[Step] = []
        self.error: Optional[Tuple[int, str, str]] = None
        self.error_text = ""    # the offending line itself

    @property
    def players(self):
        return self.game.players

    def series(self, seat, what):
        """Cards or sticks ('cards'/'sticks') of a seat after each action, from action 0
        (the deal) up to the action where the seat went out, or to the last action."""
        start = self.game.hands[seat - 1] if what == "cards" else 1
        values = [start]
        for step in self.steps:
            values.append(getattr(step, what)[seat - 1])
            if step.events & OUT and step.seat == seat:
                break
        return values

    def out_at(self, seat):
        """The action number at which the seat went out, or None."""
        for step in self.steps:
            if step.events & OUT and step.seat == seat:
                return step.index
        return None

    def marks(self, flag):
        """The steps whose events include `flag`."""
        return [step for step in self.steps if step.events & flag]

    def totals(self, seat):
        """Per-seat counts over the game (a dict, keys as in SUMMARY)."""
        t = dict.fromkeys(("plays", "cards", "passes", "forced", "spent", "returned",
                           "revolutions", "strongest"), 0)
        out = self.out_at(seat)
        for step in self.steps:
            if step.events & FORCED and step.seat != seat and (out is None or out > step.index):
                t["forced"] += 1
            if step.seat != seat:
                continue
            if step.kind == PLAY:
                t["plays"] += 1
                t["cards"] += len(step.faces)
                t["spent"] += step.cost
                t["revolutions"] += bool(step.events & REVOLUTION)
                t["strongest"] += bool(step.events & FORCED)
            elif step.kind == PASS:
                t["passes"] += 1
            else:
                t["returned"] += 1
        return t


SUMMARY = (("cards", "cards played"), ("spent", "sticks spent on cards"),
           ("passes", "sticks taken by passing"), ("forced", "sticks taken on strongest plays"),
           ("returned", "sticks returned"), ("revolutions", "revolutions caused"),
           ("strongest", "strongest plays"))


def read_record(lines, name="game"):
    """Replay record lines into a Trace. Never raises on bad content: trace.error says
    where the record stops; trace.game is None only when no game could be set up."""
    trace = Trace(name)
    reader = notation.Reader()
    line = ""
    try:
        for line in lines:
            before = len(trace.steps)
            events = reader.feed(line)
            parsed = notation.parse_line(line)
            if parsed is None or parsed[0] != "action":
                continue
            game: Any = reader.game
            action = list(game.actions())[-1]
            spent = 0
            if action[0] == PLAY:
                spent = sum([cost(face, action[3]) or 0 for face in action[2]])
            trace.steps.append(Step(before + 1, reader.lineno, action, events, spent, game))
        line = ""
        reader.finish()
    except notation.NotationError as err:
        trace.error = (reader.lineno, "syntax", err.message)
    except IllegalAction as err:
        trace.error = (reader.lineno, "illegal", err.code)
    if trace.error:
        trace.error_text = line.rstrip("\r\n")
        if reader.game is None:
            try:    # the header read so far may still set up a game
                reader.finish()
            except notation.NotationError:
                pass
    trace.game = reader.game
    return trace


def read_file(path):
    """A Trace of a record file. Raises ReportError when the file cannot be read."""
    try:
        with open(path, "rb") as f:
            raw_lines = f.read().splitlines()
    except OSError as err:
        raise ReportError("cannot read %s: %s" % (path, err.strerror))
    lines = []
    for raw in raw_lines:
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeError:
            break   # the record stops at a line that is not text, as in matchbox replay
    trace = read_record(lines, os.path.basename(path))
    if len(lines) < len(raw_lines) and trace.error is None:
        trace.error = (len(lines) + 1, "syntax", "not UTF-8 text")
    return trace


def setup_text(game):
    """One line describing the setup."""
    return "%d players, dealer %d, expansion %s, revolution %d+ cards, %d sticks, hands %s" % (
        game.players, game.dealer, game.expansion, game.revolution_size, game.tokens,
        " ".join([str(n) for n in game.hands]))


def error_text(trace):
    """The prominent note for a record with an error ('' without one)."""
    if not trace.error:
        return ""
    line, kind, code = trace.error
    n = len(trace.steps)
    return "Record stops at line %d (%s: %s): showing the %s before it" % (
        line, kind, code, plural(n, "legal action"))


def standing(trace, seat):
    """A seat's result in words: '1st, out at action 87', 'last, 3 cards and 2 sticks left'."""
    game = trace.game
    rank = game.ranks[seat - 1]
    held = "%s and %s left" % (plural(game.cards[seat - 1], "card"),
                               plural(game.sticks[seat - 1], "stick"))
    if rank and rank == game.players and trace.out_at(seat) is None:
        return "last, " + held
    if rank:
        return "%s, out at action %d" % (ordinal(rank), trace.out_at(seat))
    return "still in, " + held


def ranking(trace):
    """Seats in ranking order: ranked seats first, then those still in by seat number."""
    game = trace.game
    ranked = list(game.ranking)
    return ranked + [s for s in range(1, game.players + 1) if s not in ranked]


# --- output --------------------------------------------------------------------------------

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px;
       color: #222; max-width: 1000px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.setup { color: #555; margin: 0 0 12px; }
.error { background: #fde8e8; border: 2px solid #c62828; color: #8e1b1b; padding: 8px 12px;
         font-weight: bold; border-radius: 4px; }
svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 14px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e3e3e3; text-align: left; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%;
       margin-right: 6px; vertical-align: baseline; }
tr.revolution td { background: #f1ecf8; } tr.stop td { background: #fde8e8; color: #8e1b1b; }
.ev { color: #555; } .ev b { color: #222; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; }
"""


def html_page(trace, svg_text):
    """The self-contained HTML report (no external references)."""
    from host_tools.report_plot import seat_colour
    game = trace.game
    e = html.escape
    out = ["<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<title>%s - Matchstick Tycoon report</title>\n<style>%s</style>\n</head>\n<body>\n"
           % (e(trace.name), CSS)]
    out.append("<h1>%s</h1>\n<p class=\"setup\">%s. %s, %s.</p>\n" % (
        e(trace.name), e(setup_text(game)), plural(len(trace.steps), "action"),
        "game finished" if game.finished else "game not finished"))
    if trace.error:
        out.append("<p class=\"error\" id=\"error\">%s. Line %d: <code>%s</code></p>\n" % (
            e(error_text(trace)), trace.error[0], e(trace.error_text)))
    out.append(svg_text[svg_text.index("<svg"):] + "\n")

    def dot(seat):
        return "<span class=\"dot\" style=\"background:%s\"></span>Seat %d" % (seat_colour(seat), seat)

    out.append("<h2>%s</h2>\n<table id=\"ranking\">\n<tr><th class=\"n\">Rank</th><th>Seat</th>"
               "<th>Result</th></tr>\n" % ("Final ranking" if game.finished else "Standing"))
    for seat in ranking(trace):
        rank = game.ranks[seat - 1]
        out.append("<tr><td class=\"n\">%s</td><td>%s</td><td>%s</td></tr>\n" % (
            ordinal(rank) if rank else "-", dot(seat), e(standing(trace, seat))))
    out.append("</table>\n<h2>Per seat</h2>\n<table id=\"summary\">\n<tr><th>Seat</th>")
    out.append("".join(["<th class=\"n\">%s</th>" % e(label) for _, label in SUMMARY]))
    out.append("</tr>\n")
    for seat in range(1, game.players + 1):
        t = trace.totals(seat)
        out.append("<tr><td>%s</td>%s</tr>\n" % (dot(seat), "".join(
            ["<td class=\"n\">%d</td>" % t[key] for key, _ in SUMMARY])))
    out.append("</table>\n<h2>Action log</h2>\n<table id=\"log\">\n<tr><th class=\"n\">#</th>"
               "<th class=\"n\">Line</th><th>Seat</th><th>Action</th><th>Events</th>"
               "<th>Cards after</th><th>Sticks after</th></tr>\n")
    for step in trace.steps:
        events = step.event_text()
        out.append("<tr%s><td class=\"n\">%d</td><td class=\"n\">%d</td><td>%s</td>"
                   "<td><code>%s</code></td><td class=\"ev\">%s</td><td><code>%s</code></td>"
                   "<td><code>%s</code></td></tr>\n" % (
                       " class=\"revolution\"" if step.revolution else "", step.index, step.line,
                       dot(step.seat), e(step.action_text()), e(events),
                       " ".join([str(n) for n in step.cards]),
                       " ".join([str(n) for n in step.sticks])))
    if trace.error:
        out.append("<tr class=\"stop\"><td></td><td class=\"n\">%d</td><td></td><td><code>%s</code>"
                   "</td><td colspan=\"3\">%s: %s</td></tr>\n" % (
                       trace.error[0], e(trace.error_text), e(trace.error[1]), e(trace.error[2])))
    out.append("</table>\n</body>\n</html>\n")
    return "".join(out)


def render(trace, fmt):
    """The report of a trace in one format ('.svg', '.png', '.html'): str or bytes."""
    from host_tools import report_plot
    svg_text = report_plot.svg(trace)
    if fmt == ".svg":
        return svg_text
    if fmt == ".png":
        from host_tools import report_png
        return report_png.render(svg_text)
    if fmt == ".html":
        return html_page(trace, svg_text)
    raise ReportError("unknown output format '%s': use %s" % (fmt, ", ".join(FORMATS)))


def output_format(path):
    """The format of an output path from its extension. Raises ReportError."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        raise ReportError("cannot write %s: unknown output format '%s' (use %s)" % (
            path, ext or "(no extension)", ", ".join(FORMATS)))
    return ext


def default_output(game_path):
    """GAME with its extension replaced by .html."""
    return os.path.splitext(game_path)[0] + ".html"


def write(trace, path):
    """Write the report of a trace to path, in the format its extension names."""
    data = render(trace, output_format(path))
    if isinstance(data, bytes):
        with open(path, "wb") as f:
            f.write(data)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(data)


def add_arguments(parser):
    parser.add_argument("game", metavar="GAME", help="game record")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="where to write: .html (default: GAME with .html), .svg or .png")


def run(args):
    out = args.output or default_output(args.game)
    try:
        output_format(out)
        if os.path.abspath(out) == os.path.abspath(args.game):
            raise ReportError("the report would overwrite the record %s: use -o" % args.game)
        trace = read_file(args.game)
    except ReportError as err:
        sys.stderr.write("matchbox report: %s\n" % err)
        return 2
    status = 0
    if trace.error:
        line, kind, code = trace.error
        sys.stderr.write("%s:%d: %s: %s\n" % (args.game, line, kind, code))
        status = STATUS[kind]
    if trace.game is None:
        sys.stderr.write("matchbox report: no report written: the header of %s is not valid\n"
                         % args.game)
        return status or 2
    try:
        write(trace, out)
    except OSError as err:
        sys.stderr.write("matchbox report: cannot write %s: %s\n" % (out, err.strerror or err))
        return 2
    print(out)
    return status
