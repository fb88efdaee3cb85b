"""The box's USB link (tests/portable/test_usb_link.py), run under the MicroPython unix port."""
from mpy import run_portable


def test_usb_link_under_micropython():
    passed, failed, output = run_portable(["test_usb_link"])
    assert failed == 0, output
    assert passed > 0, output
