"""Why a file a command was given cannot be read, in words: one message shape for every command."""
import errno

REASONS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "it is a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOTDIR: "a part of its path is not a directory",
}


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
