"""What a person can get wrong, as one exception the `matchbox` command reports in one line.

Every command raises `MatchboxError(what, why)` (or one of its kinds) for a slip (a file that cannot be read, a number
out of range, a board that is not there); host_tools.cli formats it as
`matchbox COMMAND: what: why` on stderr and exits with its status:

    0    done
    1    a verdict: the command did its work and the answer is no (an illegal record, a
         wiring diagram out of date, a problem the doctor found, a flash that did not verify)
    2    cannot do what was asked (a file, folder, port, number or tool that does not serve)
    130  Ctrl-C: `interrupted`, or `stopped` for a server (hall serve, web, uplink,
         watch), which Ctrl-C is the way to stop; 143 stopped by SIGTERM

Also here: the argparse types for bounded numbers, and a bounded read of an input file.
"""
import argparse
import errno
import os
import stat

VERDICT = 1
CANNOT = 2
INTERRUPTED = 130
TERMINATED = 143

# The largest game record a command reads (sim --journal, report): far more than a game takes
# (a few KB), and bounded so that /dev/zero or a 1 GB file is refused, not read.
MAX_RECORD = 1024 * 1024


# Why a file cannot be used, by errno (else the OS's own words, in lower case)
REASONS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "it is a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOTDIR: "a part of its path is not a directory",
}

# What a path names when it is not a regular file, by os.stat's mode
KINDS = ((stat.S_ISDIR, "it is a directory"),
         (stat.S_ISCHR, "it is a device, not a file"),
         (stat.S_ISBLK, "it is a device, not a file"),
         (stat.S_ISFIFO, "it is a FIFO (a named pipe), not a file"),
         (stat.S_ISSOCK, "it is a socket, not a file"))


class MatchboxError(Exception):
    """A slip a person can fix: `what` (the thing: a file, an option) and `why` (the reason,
    with what to do when there is something to do); `status` is the exit status. Given one
    text only, it is the why. Every error class of the host tools is one of these (the
    virtual boards', the device link's, the build's, the report's, the web page's), so the
    command line says each the same way."""

    def __init__(self, what, why=None, status=CANNOT):
        if why is None:
            what, why = "", what
        Exception.__init__(self, "%s: %s" % (what, why) if what else why)
        self.what = what
        self.why = why
        self.status = status


class Stopped(MatchboxError):
    """The command was stopped by a signal (SIGTERM); cleanups run on the way out."""

    def __init__(self, why="terminated (SIGTERM)", status=TERMINATED):
        MatchboxError.__init__(self, "stopped", why, status)


def reason(exc):
    """The reason an OSError gives, short and in lower case ('no such file')."""
    text = REASONS.get(exc.errno)
    if text is None:
        text = (exc.strerror or str(exc) or type(exc).__name__).lower()
    return text


def not_regular(mode):
    """Why a file of this st_mode is not a file a command reads or replaces (a folder, a
    device, a FIFO, a socket), or None for a regular file (or a symbolic link's own mode)."""
    for test, why in KINDS:
        if test(mode):
            return why
    return None


# --- Ctrl-C ---------------------------------------------------------------------------------

_interrupted = False


def interrupt(signum=None, frame=None):
    """SIGINT's handler while a command runs (host_tools.cli): noted, then KeyboardInterrupt
    where the program is. The note stays when a library turns that exception into another
    (an ImportError out of numpy's import) or swallows it (in a __del__), so that cli says
    `interrupted` with status 130 however the command ends."""
    note_interrupt()
    raise KeyboardInterrupt


def note_interrupt(signum=None, frame=None):
    """SIGINT's handler once a command's work is over (cli says how it ended): noted only."""
    global _interrupted
    _interrupted = True


def interrupted(forget=False):
    """Whether Ctrl-C came since the command started; `forget`: from now on it did not (a
    command where Ctrl-C is a key, the terminal simulator's quit, takes it as its own)."""
    global _interrupted
    seen = _interrupted
    if forget:
        _interrupted = False
    return seen


def one_line(text):
    """Text as a single line: line breaks and runs of blanks become single spaces."""
    return " ".join(str(text).split())


# --- numbers on the command line -------------------------------------------------------------

def int_in(low, high=None):
    """An argparse type: an integer from low to high (high None: no upper bound)."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a whole number" % text) from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError("%d is out of range (%s)" % (
                value, "%d to %d" % (low, high) if high is not None else "at least %d" % low))
        return value
    parse.__name__ = "whole number"
    return parse


def seconds_in(low, high, zero=False):
    """An argparse type: seconds (a decimal number) from low to high; low itself is refused
    when it is 0, unless zero."""
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a number of seconds" % text) from None
        strict = low == 0 and not zero
        if not (value > low if strict else value >= low) or not value <= high:
            raise argparse.ArgumentTypeError("%s is out of range (%s%g to %g seconds)" % (
                text, "more than " if strict else "", low, high))
        return value
    parse.__name__ = "seconds"
    return parse


# --- reading input ---------------------------------------------------------------------------

def check_input(path):
    """MatchboxError 'cannot read PATH: why' unless path is a regular file (through links):
    missing, a folder, a device, a FIFO or a socket is refused without opening it (opening a
    FIFO waits for a writer; a device reads forever). Only `watch --file` and `-` (stdin)
    read a stream, which is their purpose."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError) as exc:
        raise MatchboxError("cannot read %s" % path, reason(exc) if isinstance(exc, OSError)
                            else "not a file name") from None
    why = not_regular(mode)
    if why:
        raise MatchboxError("cannot read %s" % path, why)


def read_bounded(path, limit, what="file"):
    """The bytes of the file at path, read with a bound: MatchboxError naming the file when it
    cannot be read, is not a regular file (check_input: a folder, /dev/zero, a FIFO) or has
    more than `limit` bytes (a 1 GB file) - never more than limit + 1 bytes are read."""
    check_input(path)
    try:
        # O_NONBLOCK: were it swapped for a FIFO since, its open would not wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            why = not_regular(os.fstat(fd).st_mode)
            if why:
                raise MatchboxError("cannot read %s" % path, why)
            data = f.read(limit + 1)
    except OSError as exc:
        raise MatchboxError("cannot read %s" % path, reason(exc)) from None
    if len(data) > limit:
        raise MatchboxError("cannot read %s" % path, "too large for a %s (more than %s bytes)"
                            % (what, "{:,}".format(limit).replace(",", " ")))
    return data


def check_folder(path, what="folder"):
    """Make sure path is a folder, or can become one, that this process can create files in
    (not a file, not /proc or /sys, not read-only); MatchboxError naming it and why not.
    Nothing is created: a probe file is made and removed in the folder, or in the nearest
    folder above it that exists."""
    import tempfile
    if os.path.exists(path) and not os.path.isdir(path):
        raise MatchboxError("cannot use %s" % path, "it is a file, not a folder: give a %s"
                            % what)
    here = path
    while here and not os.path.exists(here):
        here = os.path.dirname(here.rstrip(os.sep)) if here.rstrip(os.sep) else ""
    here = here or "."
    if not os.path.isdir(here):
        raise MatchboxError("cannot use %s" % path, "%s is a file, not a folder" % here)
    try:
        fd, probe = tempfile.mkstemp(prefix=".matchbox-probe-", dir=here)
        os.close(fd)
        os.remove(probe)
    except OSError as exc:
        # ENOENT for a folder that is there: a system folder (/proc) that takes no new files
        why = "it takes no new files" if exc.errno == errno.ENOENT else reason(exc)
        raise MatchboxError("cannot write in %s" % path, why) from None
