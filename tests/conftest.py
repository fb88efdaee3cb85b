"""Shared pytest setup: the portable tests and the firmware libraries are importable on CPython,
and the counts the soak-style tests reach (power cuts survived, records fuzzed) are printed in
the run's summary, also when the tests run in parallel (`pytest -n`, as `make test` does)."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for path in (os.path.join(ROOT, "tests", "portable"), os.path.join(ROOT, "firmware", "lib")):
    if path not in sys.path:
        sys.path.insert(0, path)


@pytest.fixture
def say_count(record_property):
    """say_count(text): one line for the run's summary, under "counts"."""
    return lambda text: record_property("count", text)


def pytest_terminal_summary(terminalreporter):
    lines = [value for key in ("passed", "failed") for rep in terminalreporter.stats.get(key, ())
             if rep.when == "call" for name, value in rep.user_properties if name == "count"]
    if lines:
        terminalreporter.section("counts")
        for line in lines:
            terminalreporter.write_line(line)
