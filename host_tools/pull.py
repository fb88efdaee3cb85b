"""`matchbox pull`: download the box's games (the running journal and the archive).

Fetches /games/current.txt (if there is one) to DIR/current.txt and every file under
/games/archive/ to DIR/archive/..., default DIR ./games. Nothing on the board is written
or deleted; the box's program is stopped while reading and restarted (soft reset) after.
An archived game already pulled with different content is kept: the new copy gets a -2,
-3... suffix. Exit status: 0 done, 2 cannot write DIR or a board/port problem.

Each file is saved as the plain game record (header and actions, as `matchbox replay` reads
the journal: checksum tags dropped, undo lines played out). A file with a problem - a line the
box would drop, damage - is saved exactly as it is on the box, with a warning naming the line;
`--raw` saves every file as it is on the box.
"""
import io
import os
import sys

from mpremote.transport import TransportExecError

from host_tools import files, replay_portable
from host_tools.device.serial_board import COMM_ERRORS, CONNECT_TIMEOUT, BoardError, connect
from host_tools.errors import MatchboxError, seconds_in

CURRENT = "/games/current.txt"
ARCHIVE = "/games/archive"


def add_arguments(parser):
    parser.add_argument("dir", nargs="?", default="games", metavar="DIR",
                        help="where to put the games (default: ./games)")
    parser.add_argument("--port", default="auto",
                        help="serial port of the box (default: auto, the first USB serial device)")
    parser.add_argument("--timeout", type=seconds_in(0, 3600), default=CONNECT_TIMEOUT,
                        help="seconds to wait for the board's raw REPL (default %(default)s)")
    parser.add_argument("--raw", action="store_true",
                        help="save the journal files as they are on the box (checksum tags, "
                             "undo lines) instead of the plain game records")


def run(args):
    return pull(args.dir, port=args.port, timeout=args.timeout, raw=args.raw)


def _free_name(path, data):
    """path itself when it is new or already holds data, else the first free path-N."""
    base, ext = os.path.splitext(path)
    n = 1
    while os.path.exists(path):
        with open(path, "rb") as f:
            if f.read() == data:
                return path
        n += 1
        path = "%s-%d%s" % (base, n, ext)
    return path


def _save(path, data, keep_old):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if keep_old:
        path = _free_name(path, data)
    with open(path, "wb") as f:
        f.write(data)
    return path


def exported(remote, data):
    """What to save for a file of the box: its plain game record, or the bytes as they are
    (with a warning on stderr) when the record has a problem."""
    text, error = replay_portable.plain(io.BytesIO(data))
    if text is None:
        print("matchbox pull: warning: %s:%d: %s: %s (saved as it is on the box)" % (
            remote, error[0] if error else 0, error[1] if error else "syntax",
            error[2] if error else "no game"), file=sys.stderr)
        return data
    return text.encode()


def pull(dest="games", port="auto", timeout=CONNECT_TIMEOUT, raw=False):
    """Copy the board's games into dest; returns the exit status (MatchboxError when the
    board or dest does not serve)."""
    if os.path.exists(dest) and not os.path.isdir(dest):
        raise MatchboxError("cannot use %s" % dest, "it is a file, not a folder: give a folder "
                            "for the games")
    try:
        board = connect(port, timeout=timeout)
    except BoardError as exc:
        raise MatchboxError("", str(exc)) from None
    fetched = 0
    with board:
        try:
            wanted = []
            if board.file_size(CURRENT) is not None:
                wanted.append((CURRENT, os.path.join(dest, "current.txt"), False))
            for path in board.list_files(ARCHIVE):
                rel = path[len(ARCHIVE) + 1:]
                wanted.append((path, os.path.join(dest, "archive", *rel.split("/")), True))
            for remote, local, keep_old in wanted:
                data = board.read_file(remote)
                if not raw:
                    data = exported(remote, data)
                try:
                    saved = _save(local, data, keep_old)
                except OSError as exc:
                    raise MatchboxError("cannot write %s" % local, files.reason(exc)) from None
                print("%s -> %s (%d bytes)" % (remote, saved, len(data)))
                fetched += 1
            board.restart(hard=False)
        except TransportExecError as exc:
            lines = exc.error_output.strip().splitlines()
            raise MatchboxError("the board reported", lines[-1] if lines else "an error") from None
        except COMM_ERRORS as exc:
            raise MatchboxError("lost the board on %s" % board.port, str(exc)) from None
    if fetched:
        print("pulled %d file%s into %s" % (fetched, "" if fetched == 1 else "s", dest))
    else:
        print("no games on the board (no %s, nothing in %s/)" % (CURRENT, ARCHIVE))
    return 0
