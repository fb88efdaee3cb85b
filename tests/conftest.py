"""Shared pytest setup: the portable tests and the firmware libraries are importable on CPython."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for path in (os.path.join(ROOT, "tests", "portable"), os.path.join(ROOT, "firmware", "lib")):
    if path not in sys.path:
        sys.path.insert(0, path)
