"""The portable engine tests, run again under the MicroPython unix port."""
from mpy import run_portable

MODULES = ["test_cards", "test_rules", "test_notation", "test_state", "test_packed"]


def test_engine_under_micropython():
    passed, failed, output = run_portable(MODULES)
    assert failed == 0, output
    assert passed >= 100, output
