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


def write(trace, path):
    """Write the report of a trace to path, in the format its extension names."""
    data = render(trace, output_format(path))
    if isinstance(data, bytes):
        with open(path, "wb") as f:
            f.write(data)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(data)


def writable(out):
    """MatchboxError, before anything is drawn, when out cannot be written: a folder, in a
    folder that is not there, or where no file can be made (/proc)."""
    if os.path.isdir(out):
        raise MatchboxError("cannot write %s" % out, "it is a directory")
    folder = os.path.dirname(out) or "."
    if not os.path.isdir(folder):
        raise MatchboxError("cannot write %s" % out, "no such folder %s" % folder)
    try:
        check_folder(folder, "folder for the report")
    except MatchboxError as exc:
        raise MatchboxError("cannot write %s" % out, exc.why) from None


def same_file(a, b):
    """True when paths a and b name one file: the same path, or a link (symbolic or hard) to
    it, by the file's identity (os.path.samefile), not its name."""
    if os.path.abspath(a) == os.path.abspath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:   # one of them does not exist (yet): not the same file
        return False


def add_arguments(parser):
    parser.add_argument("game", metavar="GAME", help="game record")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="where to write: .html (default: GAME with .html), .svg or .png")


def run(args):
    out = args.output or default_output(args.game)
    output_format(out)
    if same_file(out, args.game):
        raise ReportError("the report would overwrite the record %s (%s is that file): "
                          "give -o another file" % (args.game, out))
    writable(out)
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
    try:
        write(trace, out)
    except OSError as err:
        raise MatchboxError("cannot write %s" % out, files.reason(err)) from None
    files.print_path(out)
    return status
