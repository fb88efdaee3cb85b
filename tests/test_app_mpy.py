"""The portable UI tests, run under the MicroPython unix port."""
from mpy import run_portable


def test_app_under_micropython():
    passed, failed, output = run_portable(["test_app"])
    assert failed == 0, output
    assert passed > 0, output
