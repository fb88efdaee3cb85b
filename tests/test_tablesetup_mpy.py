"""The box's taking of a round's setup from the hall, run under the MicroPython unix port."""
from mpy import run_portable


def test_tablesetup_under_micropython():
    passed, failed, output = run_portable(["test_tablesetup"])
    assert failed == 0, output
    assert passed > 0, output
