"""Reading what a command was given: why a file cannot be read, in words (one message shape for
every command), and the lines of a byte stream read in pieces (a serial port, a pipe); and
writing a command's file whole."""
import errno
import os
import sys

REASONS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "it is a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOTDIR: "a part of its path is not a directory",
}


def shown(path):
    """A path as text that prints and draws anywhere: the bytes of its name that are not UTF-8
    (which the OS gives Python as surrogate escapes) written as \\xNN."""
    try:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:   # a surrogate that is no byte's escape
        return path.encode("utf-8", "backslashreplace").decode("utf-8")


def write_whole(path, data, suffix=".tmp", mode=None):
    """Write `data` to `path` through a temporary name beside it (path + suffix): a failure
    leaves no half file, and a file that was there as it was (a link there is replaced, not
    followed). Its folder is made when missing. `mode` (0o600 for a private key): the file's
    permissions from its creation on, before any byte is in it."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + suffix
    try:
        if mode is not None and os.path.lexists(tmp):
            os.remove(tmp)   # a temporary file left behind keeps its own mode
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666 if mode is None else mode)
        with open(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.remove(tmp)
        raise


def print_path(path):
    """Print a path on stdout as the OS spells it (its bytes, when they are not UTF-8)."""
    try:
        print(path)
    except UnicodeEncodeError:
        sys.stdout.flush()
        sys.stdout.buffer.write(os.fsencode(path) + b"\n")
        sys.stdout.flush()


def reason(exc):
    """The reason an OSError gives, short and in lower case ('no such file')."""
    text = REASONS.get(exc.errno)
    if text is None:
        text = (exc.strerror or str(exc) or type(exc).__name__).lower()
    return text


def cannot_read(path, exc):
    """'cannot read PATH: REASON' for an OSError raised while opening or reading path."""
    return "cannot read %s: %s" % (path, reason(exc))


def unreadable(path):
    """'cannot read PATH: REASON' when path cannot be opened for reading, else None."""
    try:
        with open(path, "rb"):
            pass
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
