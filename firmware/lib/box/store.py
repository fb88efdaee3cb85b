"""The file store the journal works through: `Store` wraps `open` and `os` (the Pico's
littlefs, the MicroPython unix port, CPython). Its stand-in that fails on purpose, for tests,
is tests/portable/cut_store.py: kept off the Pico, whose heap would hold its code.
"""
import os


class Store:
    """Every filesystem operation of the journal. Paths are plain strings with '/'."""

    def open(self, path, mode):
        """A file object: 'rb' (readline(limit), read(n)), 'wb' or 'ab' (write, close)."""
        return open(path, mode)

    def append(self, path, data):
        """Append bytes with one write, then close so that the filesystem commits them."""
        f = self.open(path, "ab")
        try:
            f.write(data)
        finally:
            f.close()

    def write(self, path, parts):
        """Create or replace a file (not atomic) from an iterable of bytes."""
        f = self.open(path, "wb")
        try:
            for part in parts:
                f.write(part)
        finally:
            f.close()

    def rename(self, src, dst):
        """Rename src to dst, replacing dst atomically (littlefs and POSIX do). The journal
        relies on it: a filesystem that cannot replace a file (FAT) raises OSError here."""
        os.rename(src, dst)

    def remove(self, path):
        os.remove(path)

    def listdir(self, path):
        return os.listdir(path)

    def mkdir(self, path):
        os.mkdir(path)

    def exists(self, path):
        try:
            os.stat(path)
            return True
        except OSError:
            return False

    def isdir(self, path):
        try:
            return os.stat(path)[0] & 0x4000 != 0
        except OSError:
            return False

    def remove_tree(self, path):
        """Remove a folder and everything in it."""
        for name in self.listdir(path):
            inner = path + "/" + name
            if self.isdir(inner):
                self.remove_tree(inner)
            else:
                self.remove(inner)
        os.rmdir(path)
