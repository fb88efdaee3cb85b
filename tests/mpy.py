"""Helpers for running code under the MicroPython unix port from pytest."""
import os
import re
import subprocess

from host_tools.device import tools

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "firmware", "lib")


def micropython():
    """Path of the unix-port binary installed in this environment."""
    path = tools.find("micropython")
    if not path:
        raise RuntimeError("micropython not found: run `make test` to set up .venv")
    return path


def run_portable(modules, timeout=600):
    """Run tests/portable modules under MicroPython; returns (passed, failed, output)."""
    proc = subprocess.run(
        [micropython(), "-X", "heapsize=4M", os.path.join(ROOT, "tests", "mpyrun.py")] + list(modules),
        capture_output=True, text=True, timeout=timeout, cwd=ROOT,
    )
    out = proc.stdout + proc.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", out, re.M)
    if not m:
        raise AssertionError("MicroPython runner did not finish:\n" + out)
    return int(m.group(1)), int(m.group(2)), out
