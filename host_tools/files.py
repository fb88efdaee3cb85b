"""Reading what a command was given: why a file cannot be read, in words (one message shape for
every command), and the lines of a byte stream read in pieces (a serial port, a pipe); and
writing every file a command makes.

`write_whole` is the one way a host tool writes a file (tests/test_files_written.py fails on
any other): the bytes go to a temporary file made exclusively in the target's folder (a random
name, O_CREAT|O_EXCL|O_NOFOLLOW: never an existing file, never through a link someone left),
flushed and fsynced, then renamed over the target and the folder fsynced. A failure (a full
disk, Ctrl-C, even one a library swallowed) removes the temporary file and leaves the old
target as it was. `check_output`
refuses, before anything is made, a target that is a folder, a device, a FIFO or a socket (no
command's purpose is writing to a device: flash and doctor talk to the board over its serial
port), and a target that is one of the command's inputs. Python's own tempfile module makes
such a file too, but only with a fixed mode (0600) and no fsync or rename: what is left is
these few lines.
"""
import errno
import os
import secrets
import sys

from host_tools.errors import MatchboxError, check_input, interrupted, not_regular, reason

PRIVATE = 0o600   # the mode of a file holding a secret (a password, a private key)
CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def shown(path):
    """A path as text that prints and draws anywhere: the bytes of its name that are not UTF-8
    (which the OS gives Python as surrogate escapes) written as \\xNN."""
    try:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:   # a surrogate that is no byte's escape
        return path.encode("utf-8", "backslashreplace").decode("utf-8")


def _stat(path, follow=True):
    """os.stat of path (os.lstat unless follow: a link itself), or None when there is none."""
    try:
        return os.stat(path) if follow else os.lstat(path)
    except (OSError, ValueError):
        return None


def check_output(path, inputs=()):
    """MatchboxError 'cannot write PATH: why' when path cannot take a command's output: it
    is a folder, a device, a FIFO or a socket (or a link to one), or it is one of `inputs`,
    the files the command reads (the same file by its identity, through a link or a hard
    link too). Nothing is written. A link to a regular file, or to nothing, is replaced."""
    found = [st for st in (_stat(path), _stat(path, follow=False)) if st is not None]
    for st in found:
        why = not_regular(st.st_mode)
        if why:
            raise MatchboxError("cannot write %s" % path, why)
    out = {(st.st_dev, st.st_ino) for st in found}
    for given in inputs:
        st = _stat(given)
        if (st is not None and (st.st_dev, st.st_ino) in out) \
                or os.path.abspath(given) == os.path.abspath(path):
            raise MatchboxError("cannot write %s" % path, "it is the input %s: give another "
                                "file to write" % given)


def _temporary(folder, name, mode):
    """(fd, path) of a new empty file in folder, made exclusively under a random name."""
    for _ in range(100):
        tmp = os.path.join(folder, ".%s.%s.tmp" % (name[:64], secrets.token_hex(6)))
        try:
            return os.open(tmp, CREATE, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", folder)


def _sync_folder(folder):
    """fsync a folder, so that a rename in it survives a power cut (where it can be)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:   # a file system that does not sync folders (EINVAL): the file is whole
        pass
    finally:
        os.close(fd)


def write_whole(path, data, mode=None, inputs=()):
    """Write `data` (bytes, or str as UTF-8) to `path` whole, or not at all: through a new
    temporary file beside it, fsynced and renamed over it (a link at path is replaced, not
    followed). `mode`: the file's permissions from its creation on, before any byte is in it
    (PRIVATE, 0600, for a password or a key), else as open() would make it (0666 less the
    umask).
    MatchboxError 'cannot write PATH: why' when it cannot be written (check_output's refusals,
    a full disk, no permission); the old file is then as it was. Its folder is made when
    missing."""
    check_output(path, inputs)
    if isinstance(data, str):
        data = data.encode("utf-8")
    folder = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = _temporary(folder, os.path.basename(path), 0o666 if mode is None else mode)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        if interrupted():   # Ctrl-C came, and a library swallowed it: the old file stays
            raise KeyboardInterrupt
        os.replace(tmp, path)
        tmp = None
        _sync_folder(folder)
    except OSError as exc:
        raise MatchboxError("cannot write %s" % path, reason(exc)) from None
    finally:
        if tmp is not None:
            try:
                os.remove(tmp)
            except OSError:
                pass


def print_path(path):
    """Print a path on stdout as the OS spells it (its bytes, when they are not UTF-8)."""
    try:
        print(path)
    except UnicodeEncodeError:
        sys.stdout.flush()
        sys.stdout.buffer.write(os.fsencode(path) + b"\n")
        sys.stdout.flush()


def cannot_read(path, exc):
    """'cannot read PATH: REASON' for an OSError raised while opening or reading path."""
    return "cannot read %s: %s" % (path, reason(exc))


def unreadable(path):
    """'cannot read PATH: REASON' when path is not a regular file that can be opened for
    reading (a FIFO or a device is refused unopened: errors.check_input), else None."""
    try:
        check_input(path)
        with open(path, "rb"):
            pass
    except MatchboxError as exc:
        return str(exc)
    except OSError as exc:
        return cannot_read(path, exc)
    return None


def whole_lines(buf, limit):
    """(lines, seen, rest) of the bytes `buf`: its newline-ended lines without their CR/LF
    endings, those over `limit` bytes left out; how many lines it ended, left out or not; and
    the bytes after its last newline, to be joined by the next piece (none when they are over
    `limit` already: a line that long is noise)."""
    *ended, rest = buf.split(b"\n")
    lines = [line.rstrip(b"\r") for line in ended if len(line) <= limit]
    return lines, len(ended), rest if len(rest) <= limit else b""
