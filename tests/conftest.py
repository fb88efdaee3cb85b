"""Shared pytest setup: the portable tests and the firmware libraries are importable on CPython,
the run's temporary files are kept in RAM when the machine has room for them, and the counts
the soak-style tests reach (power cuts survived, records fuzzed) are printed in the run's
summary, also when the tests run in parallel (`pytest -n`, as `make test` does)."""
import os
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for path in (os.path.join(ROOT, "tests", "portable"), os.path.join(ROOT, "firmware", "lib")):
    if path not in sys.path:
        sys.path.insert(0, path)

RAM = "/dev/shm"          # a tmpfs on Linux
RAM_NEEDED = 2 << 30      # free bytes it must have (a container's 64 MB /dev/shm is passed by)


def ram_temp():
    """A folder of this user's in RAM for the run's temporary files, or None (TMPDIR already
    chosen, no /dev/shm, or too little room in it). The journal tests rename, remove and rewrite
    small files tens of thousands of times and the virtual boxes keep their flash in a temporary
    folder: on a disk each of those waits on the file system's journal, in RAM it does not."""
    if os.environ.get("TMPDIR") or not hasattr(os, "getuid"):
        return None
    try:
        st = os.statvfs(RAM)
        if st.f_bavail * st.f_frsize < RAM_NEEDED:
            return None
        path = os.path.join(RAM, "matchbox-tests-%d" % os.getuid())
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path)
    except OSError:
        return None
    if st.st_uid != os.getuid() or not os.access(path, os.W_OK | os.X_OK):
        return None
    return path


# Set before pytest makes its temporary folder (tmp_path) and before any worker or subprocess
# starts: they inherit TMPDIR (the MicroPython runs of the portable tests read it too).
_ram = ram_temp()
if _ram:
    os.environ["TMPDIR"] = _ram
    tempfile.tempdir = None


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
