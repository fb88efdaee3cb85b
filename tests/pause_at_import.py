"""Run `matchbox ARGS` (as `python -m host_tools.cli` does), pausing inside the first import of
the module named by $PAUSE_AT: the process writes one byte to the file descriptor $PAUSE_FD,
then sleeps there, so that a test sends its signal at that moment and no other, whatever the
machine's load. A KeyboardInterrupt that lands there becomes the ImportError numpy's own
import makes of it ("initialization failed"), as a real Ctrl-C inside numpy's import does.

    PAUSE_AT=numpy PAUSE_FD=5 python tests/pause_at_import.py report game.txt -o game.png
"""
import os
import runpy
import sys
import time

NAME = os.environ["PAUSE_AT"]
FD = int(os.environ["PAUSE_FD"])


class Pause:
    """A finder that finds nothing: it only pauses at the first import of NAME."""

    done = False

    def find_spec(self, name, path=None, target=None):
        if name == NAME and not Pause.done:
            Pause.done = True
            try:
                os.write(FD, b"!")
                os.close(FD)
                time.sleep(120)
            except KeyboardInterrupt:
                raise ImportError("initialization failed") from None
        return None


sys.meta_path.insert(0, Pause())
runpy.run_module("host_tools.cli", run_name="__main__", alter_sys=True)
