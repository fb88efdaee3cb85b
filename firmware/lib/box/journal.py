"""The power-safe game journal: every accepted action goes to flash before the box confirms it.

The record is ordinary notation (`matchbox replay` reads it); each line written by the box ends
in a checksum tag, `3: play 9 9 as 9  #~1f2a` (tycoon.notation checks it, as every reader of a
record does). An UNDO is one more line, `undo`. Resume replays the record through the one
reader and keeps the longest sound prefix; a record with lines typed by hand (no tags) is
written anew as the box's own before anything is appended to it. Whole-file writes go to
`NAME.tmp` first and are renamed over the target, and a new game is in place before the old
one goes to the archive.
The reader is imported only to read a record (at boot) and let go after (`forget_reader`): the
box keeps only the writer (tycoon.writer) while a game is played.

Beside the record, `current.snap` is a cache of the game packed as bytes (pack_game) and of how
much of current.txt it covers: resume loads it, checks it against the file and reads only the
lines after it; anything wrong with it, and the whole record is read as before. It is removed
before current.txt is replaced in any way, and written again (`checkpoint`) once the lines
after it would take about SNAP_COST ms to read on a Pico, after the line it covers is on flash.
See docs/journal.md.
"""
import sys
from struct import pack, unpack_from

from tycoon.game import pack_game
from tycoon.writer import HEADERS, action_text, header_text, tagged
from box import forget
from box.store import Store

try:
    from binascii import crc32
except ImportError:   # a port without it keeps no snapshot: every resume reads the whole record
    crc32 = None

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

READER = "tycoon.notation"   # the one record reader, in sys.modules while it is loaded
# the reader's, its line grammar's and the repair's (loaded by the reader for a damaged line)
# names in tycoon
_LOADED = ("notation", "line", "repair")

CURRENT = "current.txt"
NEXT = "next.txt"      # a new game's record, complete, waiting for the old one to be archived
SETUP = "setup.txt"
BROKEN = "broken.txt"  # an unusable record is moved here for a look on the computer
ARCHIVE = "archive"
SNAP = "current.snap"  # the resume snapshot: a cache of the game at a line of current.txt

# What the lines after the snapshot may cost to read at power-up before a new snapshot is due,
# counted in pass lines (about 0.9 ms each on the emulated Pico): a play line costs about three
# of them, an undo line about seven (it restores an undo snapshot and replays up to 15 actions;
# docs/performance.md). 128: the tail of a resume takes about 120 ms, at worst about 250.
SNAP_COST = const(128)
_PLAY_COST = const(3)
_UNDO_COST = const(7)
# The snapshot file: magic, lines covered, the byte where the next line starts, the CRC-32 of
# the last _WINDOW bytes before it (the last lines, their tags naming their line numbers), the
# length and CRC-32 of the game's header as the box writes it (the file must open with it),
# then the packed game, then the CRC-32 of all that.
_MAGIC = b"MBsnap1\n"
_HEAD = const("<8sIIIHI")
_HEAD_SIZE = const(26)
_WINDOW = const(64)


def _cost(line):
    # What a line written by the box costs to read at power-up, in pass lines (see SNAP_COST).
    if line[:4] == b"undo":
        return _UNDO_COST
    return _PLAY_COST if b": play" in line else 1
DAMAGED = "damaged"    # every record resume could not use whole, kept as it was: NNN-NAME


def _record(game, count):
    # The tagged lines of the header and the first `count` actions.
    index = 0
    for text in header_text(game).split("\n")[:-1]:
        index += 1
        yield tagged(index, text)
    for action in game.actions():
        if index - len(HEADERS) == count:
            break
        index += 1
        yield tagged(index, action_text(*action)[:-1])


def _window(f, size):
    # The CRC-32 of the last _WINDOW bytes of f[:size], which must end a line; None if not.
    w = min(size, _WINDOW)
    f.seek(size - w)
    data = f.read(w)
    if len(data) != w or data[-1:] != b"\n":
        return None
    return crc32(data)


def _copy(f, size):
    while size > 0:
        chunk = f.read(min(size, 128))
        if not chunk:
            return
        size -= len(chunk)
        yield chunk


class Journal:
    """The record of the game in progress in `root/current.txt`, finished games in
    `root/archive/`, the last setup in `root/setup.txt`. Every file operation goes
    through `store` (default: the real filesystem)."""

    snap_every = SNAP_COST   # reading cost that makes a new snapshot due (tests make it less)

    def __init__(self, root="games", store=None, keep=10, feed=None):
        self.root = root
        self.store = store or Store()
        self.keep = keep
        self.feed = feed    # called every few dozen lines of a long read (the watchdog's feed)
        self.current = self._path(CURRENT)
        self.snap = self._path(SNAP)
        self._lines = None  # lines in current.txt; None: unknown, the next write rewrites it
        self._actions = 0   # actions in current.txt
        self._size = 0      # bytes in current.txt (when _lines is known)
        self._snap_lines = 0  # lines the snapshot on flash covers; 0: none
        self._due = 0       # what the lines after it cost to read (see SNAP_COST)
        self._loaded = False  # this journal loaded the reader: forget_reader lets it go
        self._torn = False    # the lines after the kept prefix are one, without its newline
        self._pending = False  # current.txt holds damage not yet kept: moved aside on write
        self.lost = 0         # lines the last resume could not use (a torn last line aside)
        self.repaired = 0     # damaged lines the last resume repaired by their checksum tags
        self.kept = None      # where those lines are kept whole; None: not kept (flash full)
        self.changes = 0      # writes to the games' files so far: the hall's uplink
                              # (box.uplink) looks at them again only after one

    def _path(self, name):
        return self.root + "/" + name

    # --- reading ----------------------------------------------------------------------------

    def resume(self):
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
        self._lines = None
        self._actions = 0
        self._snap_lines = 0
        self._pending = False
        self._torn = False
        self.lost = 0
        self.repaired = 0
        self.kept = None
        try:
            self._tidy()
            if not self.store.exists(self.current):
                return None, 0
            at = self._load_snap()
            game, lines, size, dropped, reader = self._read(self.current, True, at)
        except OSError:
            return None, 0
        if game is None:
            try:
                self._unsnap()
                self.lost = self._count_rest(self.current, 0)   # nothing of it resumed
            except OSError:
                self.lost = dropped
            self._put_aside()
            return None, dropped
        # Lines typed by hand (before the first tag): the box takes the record as its own,
        # the game written anew as it writes it (tagged, undo lines played out), before it
        # appends a line to it: then only a record that never had a tag is one a person
        # typed, so its last line without a newline is theirs, not a cut (tycoon.notation).
        # Such lines are there when the first tagged line is not line 1 (reader.tagged).
        if reader.repaired or (dropped and not self._torn):
            # kept whole first, then the good lines (or the record as repaired) take its place
            self.repaired = len(reader.repaired)
            self.lost = 0 if self._torn else dropped
            self._pending = True
            try:
                if reader.repaired or reader.tagged != 1:
                    self._size = 0
                    self._keep_damaged(self._counted(_record(game, len(game))))
                    lines = len(HEADERS) + len(game)
                    size = self._size
                else:
                    f = self.store.open(self.current, "rb")
                    try:
                        self._keep_damaged(_copy(f, size))
                    finally:
                        f.close()
            except OSError:
                return game, dropped  # _lines stays None: the next write keeps it first
        elif dropped or reader.tagged != 1:
            # a power cut in an append (the torn line cut off), or a record typed by hand
            # taken: replaced in place through a tmp, so a cut leaves it as it was
            try:
                self._unsnap()
                if reader.tagged != 1:
                    self._size = 0
                    self._atomic(self.current, self._counted(_record(game, len(game))))
                    lines = len(HEADERS) + len(game)
                    size = self._size
                else:
                    f = self.store.open(self.current, "rb")
                    try:
                        self._atomic(self.current, _copy(f, size))
                    finally:
                        f.close()
            except OSError:
                return game, dropped  # _lines stays None: the next write replaces the file
        elif at is not None:
            self._snap_lines = at[1]
        # not counted line by line: as if every line read were a play, and undo lines, undos
        self._due = _PLAY_COST * (lines - self._snap_lines) \
            + (_UNDO_COST - _PLAY_COST) * reader.undos
        self._lines = lines
        self._actions = len(game)
        self._size = size
        return game, dropped

    def _load_snap(self):
        # (game, lines, offset) of the snapshot when it passes every check against
        # current.txt, else None: its CRC, a packed game the engine accepts, the file opening
        # with the box's header of that game, the covered part ending a line within the file
        # with the bytes it had. Never raises.
        st = self.store
        if crc32 is None:
            return None
        try:
            if not st.exists(self.snap):
                return None
            f = st.open(self.snap, "rb")
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
            game = self._reader().unpack(data[_HEAD_SIZE:n])
            data = None
            f = st.open(self.current, "rb")
            try:
                if crc32(f.read(head)) != header or _window(f, size) != window:
                    return None
            finally:
                f.close()
        except Exception:   # OSError, ValueError, or anything else: a full read, as without
            return None
        return game, lines, size

    def _unsnap(self):
        # Before current.txt is replaced, renamed or repaired: its snapshot goes first, so that a
        # cut in between leaves none. OSError when it cannot be removed: the caller's write
        # fails rather than leave a snapshot beside a record it does not describe.
        self._snap_lines = 0
        self._due += _PLAY_COST * (self._lines or 0)   # what it covered is to be read again
        if self.store.exists(self.snap):
            self.store.remove(self.snap)

    def checkpoint(self, game):
        """Write the resume snapshot when it is due (the lines after the last one would take
        SNAP_COST pass lines to read). Call it once the game's last line is on flash and the
        game is what the file holds, off the key-to-display path. Never raises: a snapshot that
        cannot be written is skipped (and a stale one removed); the record on flash is the
        truth."""
        lines = self._lines
        if lines is None or len(game) != self._actions or crc32 is None \
                or self._due < self.snap_every:
            return
        st = self.store
        try:
            f = st.open(self.current, "rb")
            try:
                window = _window(f, self._size)
            finally:
                f.close()
            if window is None:
                return
            head = b"".join(_record(game, 0))
            body = pack(_HEAD, _MAGIC, lines, self._size, window, len(head), crc32(head)) \
                + pack_game(game)
            head = None
            self._atomic(self.snap, (body, pack("<I", crc32(body))))
            self._snap_lines = lines
            self._due = 0
        except OSError:
            try:
                self._unsnap()
            except OSError:
                pass

    def _put_aside(self):
        # An unusable current.txt becomes broken.txt; a broken.txt already there moves to
        # damaged/ first, so no record is ever replaced. Renames only: nothing to copy.
        st = self.store
        broken = self._path(BROKEN)
        try:
            if st.exists(broken):
                self._aside(broken, BROKEN)
            st.rename(self.current, broken)
            self.kept = broken
        except OSError:
            pass   # current.txt stays; the next power-up tries again

    def _keep_damaged(self, parts):
        # Replace current.txt, which holds lines resume could not use, by the record `parts`
        # without losing a byte: the record goes to next.txt (through a tmp), current.txt is
        # renamed whole to damaged/NNN-current.txt, then next.txt to current.txt. A cut
        # before the first rename leaves the damaged file in place (next.txt is removed at
        # power-up and the repair runs again), after it next.txt alone (which power-up makes
        # current.txt). A full flash fails in the first step, with nothing moved.
        self._unsnap()
        nxt = self._path(NEXT)
        self._atomic(nxt, parts)
        self.kept = self._aside(self.current, CURRENT)
        self._pending = False
        self.store.rename(nxt, self.current)

    def _aside(self, path, name):
        # Rename a file to damaged/NNN-name, NNN one more than any number there: never an
        # existing name.
        st = self.store
        folder = self._path(DAMAGED)
        self._ensure(folder)
        top = 0
        for other in st.listdir(folder):
            at = other.find("-")
            if at > 0 and other[:at].isdigit():
                top = max(top, int(other[:at]))
        kept = folder + "/%03d-%s" % (top + 1, name)
        st.rename(path, kept)
        return kept

    def _tidy(self):
        # A leftover NAME.tmp is a whole-file write cut short: never used, always removed.
        # next.txt is a new game's complete record: with current.txt still there the power
        # went before the old game was archived (the old game goes on); without, after (the
        # new game takes its place).
        st = self.store
        if not st.isdir(self.root):
            return
        for name in st.listdir(self.root):
            try:
                if name.endswith(".tmp"):
                    st.remove(self._path(name))
            except OSError:
                pass   # never read; removed at a later power-up
        nxt = self._path(NEXT)
        if st.exists(nxt):
            if st.exists(self.current):
                try:
                    st.remove(nxt)
                except OSError:
                    pass   # removed at a later power-up; the running game is current.txt
            else:
                self._unsnap()
                st.rename(nxt, self.current)

    def _read(self, path, box_game=False, at=None):
        # Replay a file through the one reader: (game or None, lines kept, bytes kept,
        # lines dropped, the reader). With box_game, a record with checksum tags must have all six
        # header lines: the box writes them all, so fewer means a cut. `at`: (game, lines,
        # offset) of a snapshot, where the reading goes on.
        reader = self._reader().Reader()
        f = self.store.open(path, "rb")
        try:
            if at is not None:
                reader.resume(*at)
                f.seek(at[2])
            error = reader.read(f, self.feed)
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
        dropped = self._count_rest(path, reader.size) if error is not None else 0
        if game is None:
            return None, 0, 0, lines + dropped, reader
        return game, lines, reader.size, dropped, reader

    def _reader(self):
        # The record reader's module. Loaded here (reading the resume snapshot or a record),
        # it is this journal's to let go (forget_reader).
        if READER not in sys.modules:
            self._loaded = True
        from tycoon import notation
        return notation

    def forget_reader(self):
        """Let the record reader go if this journal loaded it (the box calls this once it has
        read its journal at boot), and its repair if a damaged line loaded it: with nothing
        else holding them, their heap goes back to the game. Loaded by someone else (a host tool), it stays. Reading again reloads it."""
        if self._loaded:
            self._loaded = False
            for name in _LOADED:
                forget("tycoon." + name)

    def _count_rest(self, path, size):
        # The lines from byte `size` to the end (a last one without a newline counts).
        n = 0
        last = 10
        self._torn = False
        f = self.store.open(path, "rb")
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
        self._torn = n == 0 and last != 10
        return n + (last != 10)

    # --- writing ----------------------------------------------------------------------------

    def _atomic(self, path, parts):
        tmp = path + ".tmp"
        try:
            self.store.write(tmp, parts)
            self.store.rename(tmp, path)
        except OSError:
            try:
                if self.store.exists(tmp):
                    self.store.remove(tmp)
            except OSError:
                pass
            raise

    def _ensure(self, path):
        if not self.store.isdir(path):
            self.store.mkdir(path)

    def _counted(self, parts):
        # The parts of a whole record, their bytes and reading cost counted as they go.
        for part in parts:
            self._size += len(part)
            self._due += _cost(part)
            yield part

    def _write(self, game, count):
        self.changes += 1
        self._lines = None
        self._ensure(self.root)
        self._unsnap()
        self._size = self._due = 0
        if self._pending:   # the damaged file is kept before the record replaces it
            self._keep_damaged(self._counted(_record(game, count)))
        else:
            self._atomic(self.current, self._counted(_record(game, count)))
        self._lines = len(HEADERS) + count
        self._actions = count
        self.checkpoint(game)   # a long record written anew gets its snapshot at once

    def start(self, game, old=None):
        """Begin the record of a new game. A record in current.txt (the running game `old`)
        goes to the archive, but only after the new record is safely on flash: the new one is
        written to next.txt (through a tmp), then current.txt is renamed into the archive and
        next.txt to current.txt. Raises OSError (flash full, write error) with the running
        game's record in place, as it was."""
        self.changes += 1
        st = self.store
        if old is not None and (self._lines is None or self._actions != len(old)):
            self._write(old, len(old))   # the running game, whole, before it is archived
        self._ensure(self.root)
        nxt = self._path(NEXT)
        size, due = self._size, self._due
        self._size = self._due = 0
        try:
            self._atomic(nxt, self._counted(_record(game, len(game))))
        finally:
            size, self._size, due, self._due = self._size, size, self._due, due
        path = None
        try:
            self._unsnap()
            if st.exists(self.current):
                self._ensure(self._path(ARCHIVE))
                numbers = self.archived()
                path = self._path(ARCHIVE) + "/game-%03d.txt" % (numbers[-1] + 1 if numbers else 1)
                st.rename(self.current, path)
            st.rename(nxt, self.current)
        except OSError:
            try:
                if path is not None and not st.exists(self.current):
                    st.rename(path, self.current)
                st.remove(nxt)
            except OSError:
                pass
            raise
        self._lines = len(HEADERS) + len(game)
        self._actions = len(game)
        self._size = size
        self._due = due
        if path is not None:
            self._trim()
        self.checkpoint(game)

    def rewrite(self, game):
        """Replace the record with the game as it stands, atomically (a repair; UNDO appends)."""
        self._write(game, len(game))

    def append(self, game):
        """Journal the game's last action (call right after the engine accepted it).

        Raises OSError when it cannot be written (flash full, write error): the caller undoes
        the action. The file is then put back to the record without that action if possible;
        if not, the next write replaces the whole file, so a half line is never built on.
        When the journal is not in step with the game (not started, an earlier failure), the
        whole record is rewritten instead.
        """
        count = len(game)
        last = game.last_action()
        if last is None or self._lines is None or count != self._actions + 1:
            self._write(game, count)
            return
        self._add(self._lines, action_text(*last)[:-1], game, count - 1)
        self._actions = count

    def undo(self, game, last):
        """Journal an UNDO: one `undo` line appended. Call it after game.undo(), with the
        action that took back (game.last_action() before it). On OSError the game has that
        action again, as the file has (put back to the record with it, as for append). Out of
        step, the whole record as the game now stands is written."""
        count = len(game) + 1   # the actions the record holds before the undo line
        if self._lines is None or count != self._actions:
            self._write(game, count - 1)
            return
        self._add(self._lines, "undo", game, count, last)
        self._actions = count - 1

    def _add(self, lines, text, game, keep, undone=None):
        # Append one tagged line after `lines`; on failure, try to put the file back to
        # `keep` actions (`undone`: the action an undo line took back, made again first).
        line = tagged(lines + 1, text)
        self.changes += 1
        try:
            self.store.append(self.current, line)
        except OSError:
            self._lines = None
            if undone is not None:
                kind, seat, faces, value, explicit = undone
                game.apply(kind, faces, value if explicit else None, seat)
            try:
                self._write(game, keep)
            except OSError:
                pass
            raise
        self._lines = lines + 1
        self._size += len(line)
        self._due += _cost(line)

    def archive(self, game):
        """Move the record of a finished game to archive/game-NNN.txt (numbers go on across
        restarts), keep only the last `keep` there. Returns the archive file's path."""
        self.changes += 1
        st = self.store
        if self._lines is None or self._actions != len(game) or not st.exists(self.current):
            self._write(game, len(game))
        if st.exists(self._path(NEXT)):
            st.remove(self._path(NEXT))   # a stale new record must not take the place
        folder = self._path(ARCHIVE)
        self._ensure(folder)
        numbers = self.archived()
        path = folder + "/game-%03d.txt" % (numbers[-1] + 1 if numbers else 1)
        self._unsnap()
        st.rename(self.current, path)
        self._lines = None
        self._actions = 0
        self._trim()
        return path

    def _trim(self):
        numbers = self.archived()
        folder = self._path(ARCHIVE)
        while len(numbers) > max(self.keep, 0):
            try:
                self.store.remove(folder + "/game-%03d.txt" % numbers.pop(0))
            except OSError:
                pass

    def archived(self):
        """The numbers of the archived games, oldest first."""
        folder = self._path(ARCHIVE)
        out = []
        if not self.store.isdir(folder):
            return out
        for name in self.store.listdir(folder):
            if name.startswith("game-") and name.endswith(".txt") and name[5:-4].isdigit():
                out.append(int(name[5:-4]))
        out.sort()
        return out

    # --- setup ------------------------------------------------------------------------------

    def save_setup(self, players, dealer, expansion, revolution, sticks, hands=None):
        """Remember the setup menu's choices (atomically). hands None: the default deal."""
        texts = ["players %d" % players, "dealer %d" % dealer, "expansion %s" % expansion,
                 "revolution %d" % revolution, "sticks %d" % sticks]
        if hands is not None:
            texts.append("hands " + " ".join([str(n) for n in hands]))
        self._ensure(self.root)
        self._atomic(self._path(SETUP), [tagged(i + 1, t) for i, t in enumerate(texts)])

    def load_setup(self):
        """The last saved setup as a dict (players, dealer, expansion, revolution, sticks,
        hands: list or None), or None when there is none or it is damaged in any way."""
        path = self._path(SETUP)
        try:
            if not self.store.exists(path):
                return None
            game, _lines, _size, dropped, reader = self._read(path)
        except Exception:
            return None
        if game is None or dropped or len(game) or reader.undos:
            return None
        return {"players": game.players, "dealer": game.dealer, "expansion": game.expansion,
                "revolution": game.revolution_size, "sticks": game.total_sticks,
                "hands": list(game.hands) if "hands" in reader.header else None}
