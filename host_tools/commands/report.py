"""`matchbox report`: a game record as a picture of each seat's cards and matchsticks.

Output by extension: .svg (the plot), .png (the same plot) or .html (one self-contained page:
setup, plot, ranking, per-seat totals and the action log with line numbers). A record with an
error is shown up to its last legal action, with the error stated on the plot and the page.
The parts live in host_tools/reports/: trace (reading), plot (matplotlib), page.
"""
import os
import sys

from host_tools import files
from host_tools.reports import replay_portable
from host_tools.errors import CANNOT, MatchboxError, check_folder
from host_tools.reports.trace import ReportError, read_file

FORMATS = (".html", ".svg", ".png")


def render(trace, fmt):
    """The report of a trace in one format ('.svg', '.png', '.html'): str or bytes."""
    from host_tools.reports import page, plot   # matplotlib: only when a report is drawn
    if fmt == ".svg":
        return plot.svg(trace)
    if fmt == ".png":
        return plot.png(trace)
    if fmt == ".html":
        return page.html_page(trace, plot.svg(trace))
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


def write(trace, path, inputs=()):
    """Write the report of a trace to path, in the format its extension names: whole, or
    not at all (a full disk leaves the old report as it was)."""
    files.write_whole(path, render(trace, output_format(path)), inputs=inputs)


def writable(out, inputs=()):
    """MatchboxError, before anything is drawn, when out cannot be written: a folder, a
    device, a FIFO, one of the inputs, in a folder that is not there, or where no file can be
    made (/proc)."""
    files.check_output(out, inputs)
    folder = os.path.dirname(out) or "."
    if not os.path.isdir(folder):
        raise MatchboxError("cannot write %s" % out, "no such folder %s" % folder)
    try:
        check_folder(folder, "folder for the report")
    except MatchboxError as exc:
        raise MatchboxError("cannot write %s" % out, exc.why) from None


def add_arguments(parser):
    parser.add_argument("game", metavar="GAME", help="game record")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="where to write: .html (default: GAME with .html), .svg or .png")


def run(args):
    out = args.output or default_output(args.game)
    output_format(out)
    writable(out, [args.game])
    trace = read_file(args.game)
    status = 0
    where = ""
    if trace.error:
        where = replay_portable.located(args.game, trace.error)
        status = replay_portable.status(trace.error)
    if trace.game is None:
        raise MatchboxError("no report written", "the header of %s is not valid (%s)"
                            % (args.game, where or "no game"), status or CANNOT)
    if where:
        sys.stderr.write(where + "\n")
    write(trace, out, [args.game])
    files.print_path(out)
    return status
