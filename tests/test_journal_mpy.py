"""The portable journal tests, run under the MicroPython unix port."""
from mpy import run_portable


def test_journal_under_micropython():
    passed, failed, output = run_portable(["test_journal"])
    assert failed == 0, output
    assert passed > 0, output
