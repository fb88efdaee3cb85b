"""Files for the portable tests: a fresh temp folder, and whole-file reads and writes."""
import os
import time

from box.journal import Store

STORE = Store()
_serial = [0]


def _clock():
    try:
        return time.ticks_us()  # type: ignore[attr-defined]
    except AttributeError:
        return time.time_ns() // 1000


class Folder:
    """A fresh folder under the temp dir (`path`), removed with everything in it on exit."""

    def __enter__(self):
        _serial[0] += 1
        base = os.getenv("TMPDIR") or "/tmp"
        self.path = "%s/matchbox-test-%d-%d" % (base.rstrip("/"), _clock(), _serial[0])
        os.mkdir(self.path)
        return self

    def __exit__(self, *exc):
        STORE.remove_tree(self.path)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
