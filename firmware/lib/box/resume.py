"""Reading the journal's record at power-up (box.journal.Journal.resume and load_setup), and
keeping a damaged record whole before anything replaces it (keep_damaged, which the journal
also calls when a write comes after a boot that could not keep it).

Imported only for that and let go after (Journal.forget_reader), with the record reader
(tycoon.notation) it reads through: on the official MicroPython a module's code is in the heap
for as long as the module is loaded, and this is code the box runs once per power-up. It works
on the journal's state (`j`, a box.journal.Journal); see box.journal and docs/journal.md.
"""
from struct import unpack_from

from tycoon.writer import HEADERS
from box.journal import (BROKEN, CURRENT, DAMAGED, NEXT, SETUP, _HEAD, _MAGIC, _record,
                         _reread, _window, crc32)

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_HEAD_SIZE = const(26)   # struct.calcsize(box.journal._HEAD)


def _copy(f, size):
    while size > 0:
        chunk = f.read(min(size, 128))
        if not chunk:
            return
        size -= len(chunk)
        yield chunk


def resume(j):
    """(game, dropped): the game of current.txt, or None when there is no usable record.

    `dropped` counts the lines cut off the end (torn, damaged, or refused by the reader or
    the rules). A torn last line (a power cut in an append) is cut off in place; any other
    damage is kept whole first: the file moves to damaged/NNN-current.txt and a copy of
    the kept prefix takes its place. An unusable record is renamed to broken.txt (an older
    broken.txt moves to damaged/NNN-broken.txt). A damaged line its checksum tag repairs
    (tycoon.notation) is read as repaired; the file is then kept whole the same way and
    the repaired record takes its place. `lost`, `repaired` and `kept` say what was put
    aside, repaired, and where. Never raises: a file that cannot be read counts as no game.
    """
    j._lines = None
    j._actions = 0
    j._snap_lines = 0
    j._pending = False
    j._torn = False
    j.lost = 0
    j.repaired = 0
    j.kept = None
    try:
        _tidy(j)
        if not j.store.exists(j.current):
            return None, 0
        at = _load_snap(j)
        game, lines, size, dropped, reader = _read(j, j.current, True, at)
    except OSError:
        return None, 0
    if game is None:
        try:
            j._unsnap()
            j.lost = _count_rest(j, j.current, 0)   # nothing of it resumed
        except OSError:
            j.lost = dropped
        _put_aside(j)
        return None, dropped
    # Lines typed by hand (before the first tag): the box takes the record as its own,
    # the game written anew as it writes it (tagged, undo lines played out), before it
    # appends a line to it: then only a record that never had a tag is one a person
    # typed, so its last line without a newline is theirs, not a cut (tycoon.notation).
    # Such lines are there when the first tagged line is not line 1 (reader.tagged).
    if reader.repaired or (dropped and not j._torn):
        # kept whole first, then the good lines (or the record as repaired) take its place
        j.repaired = len(reader.repaired)
        j.lost = 0 if j._torn else dropped
        j._pending = True
        try:
            if reader.repaired or reader.tagged != 1:
                j._size = 0
                keep_damaged(j, j._counted(_record(game, len(game))))
                lines = len(HEADERS) + len(game)
                size = j._size
            else:
                f = j.store.open(j.current, "rb")
                try:
                    keep_damaged(j, _copy(f, size))
                finally:
                    f.close()
        except OSError:
            return game, dropped  # _lines stays None: the next write keeps it first
    elif dropped or reader.tagged != 1:
        # a power cut in an append (the torn line cut off), or a record typed by hand
        # taken: replaced in place through a tmp, so a cut leaves it as it was
        try:
            j._unsnap()
            if reader.tagged != 1:
                j._size = 0
                j._atomic(j.current, j._counted(_record(game, len(game))))
                lines = len(HEADERS) + len(game)
                size = j._size
            else:
                f = j.store.open(j.current, "rb")
                try:
                    j._atomic(j.current, _copy(f, size))
                finally:
                    f.close()
        except OSError:
            return game, dropped  # _lines stays None: the next write replaces the file
    elif at is not None:
        j._snap_lines = at[1]
    j._due = _reread(lines - j._snap_lines, reader.undos)
    j._lines = lines
    j._actions = len(game)
    j._size = size
    return game, dropped

def _load_snap(j):
    # (game, lines, offset) of the snapshot when it passes every check against
    # current.txt, else None: its CRC, a packed game the engine accepts, the file opening
    # with the box's header of that game, the covered part ending a line within the file
    # with the bytes it had. Never raises.
    st = j.store
    if crc32 is None:
        return None
    try:
        if not st.exists(j.snap):
            return None
        f = st.open(j.snap, "rb")
        try:
            data = f.read()
        finally:
            f.close()
        n = len(data) - 4
        if n < _HEAD_SIZE or crc32(data[:n]) != unpack_from("<I", data, n)[0]:
            return None
        magic, lines, size, window, head, header = unpack_from(_HEAD, data, 0)
        if magic != _MAGIC or lines < len(HEADERS) or size < head:
            return None
        game = j._reader().unpack(data[_HEAD_SIZE:n])
        data = None
        f = st.open(j.current, "rb")
        try:
            if crc32(f.read(head)) != header or _window(f, size) != window:
                return None
        finally:
            f.close()
    except Exception:   # OSError, ValueError, or anything else: a full read, as without
        return None
    return game, lines, size


def _put_aside(j):
    # An unusable current.txt becomes broken.txt; a broken.txt already there moves to
    # damaged/ first, so no record is ever replaced. Renames only: nothing to copy.
    st = j.store
    broken = j._path(BROKEN)
    try:
        if st.exists(broken):
            _aside(j, broken, BROKEN)
        st.rename(j.current, broken)
        j.kept = broken
    except OSError:
        pass   # current.txt stays; the next power-up tries again


def _tidy(j):
    # A leftover NAME.tmp is a whole-file write cut short: never used, always removed.
    # next.txt is a new game's complete record: with current.txt still there the power
    # went before the old game was archived (the old game goes on); without, after (the
    # new game takes its place).
    st = j.store
    if not st.isdir(j.root):
        return
    for name in st.listdir(j.root):
        try:
            if name.endswith(".tmp"):
                st.remove(j._path(name))
        except OSError:
            pass   # never read; removed at a later power-up
    nxt = j._path(NEXT)
    if st.exists(nxt):
        if st.exists(j.current):
            try:
                st.remove(nxt)
            except OSError:
                pass   # removed at a later power-up; the running game is current.txt
        else:
            j._unsnap()
            st.rename(nxt, j.current)

def _read(j, path, box_game=False, at=None):
    # Replay a file through the one reader: (game or None, lines kept, bytes kept,
    # lines dropped, the reader). With box_game, a record with checksum tags must have all six
    # header lines: the box writes them all, so fewer means a cut. `at`: (game, lines,
    # offset) of a snapshot, where the reading goes on.
    reader = j._reader().Reader()
    f = j.store.open(path, "rb")
    try:
        if at is not None:
            reader.resume(*at)
            f.seek(at[2])
        error = reader.read(f, j.feed)
    finally:
        f.close()
    game = reader.game
    if error is None:
        lines = reader.lineno
    else:
        lines = reader.lineno - 1
        # A header cut short would start a different game: when the record breaks
        # before its first action, all header lines must have come before the break.
        if game is None and len(reader.header) == len(HEADERS):
            try:
                game = reader.finish()
            except Exception:
                game = None
    if box_game and reader.tagged == 1 and len(reader.header) < len(HEADERS):
        game = None   # a header the box wrote has all six lines (one typed by hand need not)
    dropped = _count_rest(j, path, reader.size) if error is not None else 0
    if game is None:
        return None, 0, 0, lines + dropped, reader
    return game, lines, reader.size, dropped, reader


def _count_rest(j, path, size):
    # The lines from byte `size` to the end (a last one without a newline counts).
    n = 0
    last = 10
    j._torn = False
    f = j.store.open(path, "rb")
    try:
        for _chunk in _copy(f, size):
            pass
        while True:
            chunk = f.read(128)
            if not chunk:
                break
            n += chunk.count(b"\n")
            last = chunk[-1]
    finally:
        f.close()
    j._torn = n == 0 and last != 10
    return n + (last != 10)


def load_setup(j):
    """The last saved setup as a dict (players, dealer, expansion, revolution, sticks,
    hands: list or None), or None when there is none or it is damaged in any way."""
    path = j._path(SETUP)
    try:
        if not j.store.exists(path):
            return None
        game, _lines, _size, dropped, reader = _read(j, path)
    except Exception:
        return None
    if game is None or dropped or len(game) or reader.undos:
        return None
    return {"players": game.players, "dealer": game.dealer, "expansion": game.expansion,
            "revolution": game.revolution_size, "sticks": game.total_sticks,
            "hands": list(game.hands) if "hands" in reader.header else None}


def keep_damaged(j, parts):
    # Replace current.txt, which holds lines resume could not use, by the record `parts`
    # without losing a byte: the record goes to next.txt (through a tmp), current.txt is
    # renamed whole to damaged/NNN-current.txt, then next.txt to current.txt. A cut
    # before the first rename leaves the damaged file in place (next.txt is removed at
    # power-up and the repair runs again), after it next.txt alone (which power-up makes
    # current.txt). A full flash fails in the first step, with nothing moved.
    j._unsnap()
    nxt = j._path(NEXT)
    j._atomic(nxt, parts)
    j.kept = _aside(j, j.current, CURRENT)
    j._pending = False
    j.store.rename(nxt, j.current)


def _aside(j, path, name):
    # Rename a file to damaged/NNN-name, NNN one more than any number there: never an
    # existing name.
    st = j.store
    folder = j._path(DAMAGED)
    j._ensure(folder)
    top = 0
    for other in st.listdir(folder):
        at = other.find("-")
        if at > 0 and other[:at].isdigit():
            top = max(top, int(other[:at]))
    kept = folder + "/%03d-%s" % (top + 1, name)
    st.rename(path, kept)
    return kept
