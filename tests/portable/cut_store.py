"""A file store that fails on purpose, for the journal's tests (CPython and the unix port).

`CutStore` stops writing after a budget of bytes, either as a power cut (every later
operation fails) or as a full flash (writes fail, the rest works). It lives with the tests,
not in firmware/: the Pico would load its code into the heap for nothing.
"""
from box.journal import Store

EIO = 5
ENOSPC = 28  # not in MicroPython's errno module


class _CutFile:
    def __init__(self, store, f):
        self._store = store
        self._f = f

    def readline(self, limit=-1):
        self._store._alive()
        self._store.lines_read += 1
        return self._f.readline(limit)

    def read(self, n=-1):
        self._store._alive()
        return self._f.read(n)

    def seek(self, offset, whence=0):
        self._store._alive()
        return self._f.seek(offset, whence)

    def write(self, data):
        store = self._store
        store._alive()
        n = store._take(len(data))
        if n:
            self._f.write(data[:n])
        if n < len(data):
            store._fail()
        return n

    def close(self):
        # What was written stays written, even after the cut: the worst case for the journal.
        self._f.close()
        self._store._alive()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class CutStore(Store):
    """A store that runs out after `budget` units (None: never).

    Each byte written costs one unit; with `power_cut` each rename, remove and mkdir costs one
    too. When the budget runs out in the middle of a write, only the bytes that fit are written
    and OSError is raised. With power_cut=True the store is then dead (`dead`): every later
    operation raises OSError(EIO), as on a box that lost power. With power_cut=False the flash
    is full: writes raise OSError(ENOSPC) until `budget` is raised again; the rest works.
    `spent` counts the units used so far, `lines_read` the readline calls (how much of a
    record a resume read).
    """

    def __init__(self, budget=None, power_cut=True, base=None):
        self.budget = budget
        self.power_cut = power_cut
        self.dead = False
        self.spent = 0
        self.lines_read = 0
        self.base = base or Store()

    def _alive(self):
        if self.dead:
            raise OSError(EIO)

    def _take(self, n):
        if self.budget is not None and n > self.budget:
            n = self.budget
        if self.budget is not None:
            self.budget -= n
        self.spent += n
        return n

    def _fail(self):
        if self.power_cut:
            self.dead = True
            raise OSError(EIO)
        raise OSError(ENOSPC)

    def _op(self):
        self._alive()
        if self.power_cut:
            if self._take(1) < 1:
                self._fail()

    def open(self, path, mode):
        self._alive()
        return _CutFile(self, self.base.open(path, mode))

    def rename(self, src, dst):
        self._op()
        self.base.rename(src, dst)

    def remove(self, path):
        self._op()
        self.base.remove(path)

    def mkdir(self, path):
        self._op()
        self.base.mkdir(path)

    def listdir(self, path):
        self._alive()
        return self.base.listdir(path)

    def exists(self, path):
        self._alive()
        return self.base.exists(path)

    def isdir(self, path):
        self._alive()
        return self.base.isdir(path)
