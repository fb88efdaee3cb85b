"""A tiny test runner for the MicroPython unix port, which has no unittest or pytest.

Usage: micropython tests/mpyrun.py MODULE [MODULE ...]
Each MODULE is a file under tests/portable/ (name without .py). Every function named
test_* is called with no arguments; a test passes when it returns without raising.
Prints one line per failure with its traceback, then `N passed, N failed`.
"""
import sys


def _here():
    path = __file__ if "/" in __file__ else "./" + __file__
    return path[: path.rfind("/")]


def main(names):
    here = _here()
    sys.path.insert(0, here + "/portable")
    sys.path.insert(0, here + "/../firmware/lib")
    passed = failed = 0
    for name in names:
        module = __import__(name)
        for attr in sorted(dir(module)):
            if not attr.startswith("test_"):
                continue
            fn = getattr(module, attr)
            if not callable(fn):
                continue
            try:
                fn()
                passed += 1
            except Exception as exc:  # a failing test, whatever it raised
                failed += 1
                print("FAIL", name + "." + attr)
                sys.print_exception(exc)
    print("%d passed, %d failed" % (passed, failed))
    return failed


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1:]) else 0)
