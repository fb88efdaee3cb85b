"""`matchbox pull`: download the box's games: the running journal, the archive, and every
damaged record the box kept.

Fetches /games/current.txt (if there is one) to DIR/current.txt, every file under
/games/archive/ to DIR/archive/..., every file under /games/damaged/ to DIR/damaged/... and
/games/broken.txt to DIR/broken/broken.txt; default DIR ./games. The local folders are
pull's own; of the board's names only the parts under those folders are used, and each part
is checked first: a name that is empty, `.` or `..`, holds a control character or a path
separator, or is not under the folder the board was asked for, is reported in one line and
skipped; the other files are still pulled. Nothing on the board is written or deleted; the
box's program is stopped while reading and restarted (soft reset) after. Exit status: 0 done,
1 a file skipped or kept as it was (see --force), 2 cannot write DIR or a board/port problem.

Nothing already in DIR is replaced unless --force is given: a file with the same content is
left as it is ("already there"); an archived, damaged or broken record that differs is saved
next to it with a -2, -3... suffix (the box numbers its files afresh after a reset, so two
different games can share a name); a DIR/current.txt that differs is kept and the board's
current.txt is not saved (the line says so; --force replaces it).

Each archived game and the current game is saved as the plain game record (header and
actions, as `matchbox replay` reads the journal: checksum tags dropped, undo lines played
out). A file with a problem - a line the box would drop, damage - is saved exactly as it is on
the box, with a warning naming the line; `--raw` saves every file as it is on the box. The
damaged and broken records are always saved as they are on the box.

`--port auto` picks the board only when it is a Matchbox (serial_board.find_box: the one
Pico running MicroPython on USB, with the Matchbox firmware on it).
Exit status: 0 every file pulled (or already there); 1 a file was skipped (a name refused,
a file kept instead of replaced, a file the board could not read) or DIR cannot be written;
2 board/port problem.
"""
import io
import os
import sys

from mpremote.transport import TransportExecError

from host_tools import files
from host_tools.reports import replay_portable
from host_tools.device.serial_board import (COMM_ERRORS, CONNECT_TIMEOUT, BoardError, connect,
                                            find_box)
from host_tools.errors import MatchboxError, seconds_in

from host_tools.device.board_info import ARCHIVE, BROKEN, CURRENT, DAMAGED, shown


def add_arguments(parser):
    parser.add_argument("dir", nargs="?", default="games", metavar="DIR",
                        help="where to put the games (default: ./games)")
    parser.add_argument("--port", default="auto",
                        help="serial port of the box (default: auto, the one Pico running "
                             "MicroPython with the Matchbox firmware)")
    parser.add_argument("--timeout", type=seconds_in(0, 3600), default=CONNECT_TIMEOUT,
                        help="seconds to wait for the board's raw REPL (default %(default)s)")
    parser.add_argument("--raw", action="store_true",
                        help="save the journal files as they are on the box (checksum tags, "
                             "undo lines) instead of the plain game records")
    parser.add_argument("--force", action="store_true",
                        help="replace files already in DIR that differ from the board's")


def run(args):
    return pull(args.dir, port=args.port, timeout=args.timeout, raw=args.raw, force=args.force)


def refused(part):
    """Why one part of a board-provided path cannot be a local name, or None when it can."""
    if not part:
        return "an empty name"
    if part in (".", ".."):
        return "'%s' is not a name" % part
    if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in part):
        return "a control character in a name"
    if "\\" in part or os.sep in part or (os.altsep and os.altsep in part):
        return "a path separator inside a name"
    return None


def local_path(remote, folder, dest, local_folder):
    """(the local path for a board path under folder, None) or (None, why it is refused)."""
    if not remote.startswith(folder + "/"):
        return None, "not under %s" % folder
    parts = remote[len(folder) + 1:].split("/")
    for part in parts:
        why = refused(part)
        if why:
            return None, why
    path = os.path.join(dest, local_folder, *parts)
    inside = os.path.normpath(os.path.join(dest, local_folder))
    if os.path.commonpath([inside, os.path.normpath(path)]) != inside:
        return None, "outside %s" % inside   # cannot happen with the parts checked; kept as a guard
    return path, None


def _same(path, data):
    with open(path, "rb") as f:
        return f.read() == data


def _free_name(path, data):
    """path itself when it is new or already holds data, else the first path-N that is."""
    base, ext = os.path.splitext(path)
    n = 1
    while os.path.lexists(path):
        if os.path.isfile(path) and _same(path, data):
            return path
        n += 1
        path = "%s-%d%s" % (base, n, ext)
    return path


def save(path, data, keep_both, force):
    """Save data at path without replacing anything unless force. Returns (path saved, what
    happened): 'saved', 'already there', 'replaced', or 'kept' (nothing saved: path exists
    and differs, keep_both is off and force is off)."""
    if keep_both and not force:
        path = _free_name(path, data)
    if not os.path.lexists(path):
        files.write_whole(path, data)
        return path, "saved"
    if os.path.isfile(path) and _same(path, data):
        return path, "already there"
    if not force:
        return path, "kept"
    files.write_whole(path, data)
    return path, "replaced"


def exported(remote, data):
    """What to save for a file of the box: its plain game record, or the bytes as they are
    (with a warning on stderr) when the record has a problem."""
    repaired = []
    text, error = replay_portable.plain(io.BytesIO(data), repaired)
    for number in repaired:
        print("matchbox pull: warning: %s:%d: %s" % (shown(remote), number, replay_portable.REPAIRED),
              file=sys.stderr)
    if text is None:
        print("matchbox pull: warning: %s (saved as it is on the box)" % replay_portable.located(
            shown(remote), error or (0, "syntax", "no game")), file=sys.stderr)
        return data
    return text.encode()


def wanted(board, dest):
    """[(remote, local path, plain, keep both)] of every file to pull, and the number of
    names refused (each reported on stderr)."""
    out = []
    refusals = 0
    if board.file_size(CURRENT) is not None:
        out.append((CURRENT, os.path.join(dest, "current.txt"), True, False))
    for folder, local_folder, plain in ((ARCHIVE, "archive", True), (DAMAGED, "damaged", False)):
        for remote in board.list_files(folder):
            path, why = local_path(remote, folder, dest, local_folder)
            if path is None:
                print("matchbox pull: warning: skipped %s: %s" % (shown(remote), why), file=sys.stderr)
                refusals += 1
            else:
                out.append((remote, path, plain, True))
    if board.file_size(BROKEN) is not None:
        out.append((BROKEN, os.path.join(dest, "broken", "broken.txt"), False, True))
    return out, refusals


def pull(dest="games", port="auto", timeout=CONNECT_TIMEOUT, raw=False, force=False):
    """Copy the board's games into dest; returns the exit status (MatchboxError when the
    board or dest does not serve)."""
    if os.path.exists(dest) and not os.path.isdir(dest):
        raise MatchboxError("cannot use %s" % dest, "it is a file, not a folder: give a folder "
                            "for the games")
    try:
        board = find_box(timeout) if not port or port == "auto" else connect(port, timeout=timeout)
    except BoardError as exc:
        raise MatchboxError("", str(exc)) from None
    fetched = skipped = 0
    with board:
        try:
            todo, skipped = wanted(board, dest)
            for remote, local, plain, keep_both in todo:
                try:
                    data = board.read_file(remote)
                except TransportExecError as exc:
                    lines = exc.error_output.strip().splitlines()
                    print("matchbox pull: warning: skipped %s: the board could not read it (%s)" % (
                        shown(remote), lines[-1] if lines else "an error"), file=sys.stderr)
                    skipped += 1
                    continue
                if plain and not raw:
                    data = exported(remote, data)
                try:
                    saved, how = save(local, data, keep_both, force)
                except OSError as exc:
                    raise MatchboxError("cannot write %s" % local, files.reason(exc)) from None
                if how == "kept":
                    print("matchbox pull: warning: %s exists and differs from the board's %s: "
                          "kept it, the board's not saved (--force replaces it)" % (saved, remote),
                          file=sys.stderr)
                    skipped += 1
                    continue
                print("%s -> %s (%d bytes%s)" % (shown(remote), saved, len(data),
                                                 "" if how == "saved" else ", " + how))
                fetched += 1
            board.restart(hard=False)
        except TransportExecError as exc:
            lines = exc.error_output.strip().splitlines()
            raise MatchboxError("the board reported", lines[-1] if lines else "an error") from None
        except COMM_ERRORS as exc:
            raise MatchboxError("lost the board on %s" % board.port, str(exc)) from None
    if fetched:
        print("pulled %d file%s into %s" % (fetched, "" if fetched == 1 else "s", dest))
    elif not skipped:
        print("no games on the board (no %s, nothing in %s/ or %s/)" % (CURRENT, ARCHIVE, DAMAGED))
    if skipped:
        print("%d file%s not pulled: see the warnings above" % (skipped, "" if skipped == 1 else "s"),
              file=sys.stderr)
        return 1
    return 0
