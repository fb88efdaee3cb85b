"""The power-safe game journal: every accepted action goes to flash before the box confirms it.

The record is ordinary notation (`matchbox replay` reads it); each line written by the box ends
in a checksum tag, `3: play 9 9 as 9  #~1f2a` (tycoon.notation checks it, as every reader of a
record does). An UNDO is one more line, `undo`. Resume replays the record through the one
reader and keeps the longest sound prefix; a record with lines typed by hand (no tags) is
written anew as the box's own before anything is appended to it. Whole-file writes go to
`NAME.tmp` first and are renamed over the target, and a new game is in place before the old
one goes to the archive.
Reading the record at power-up (resume, load_setup) is done by box.resume, and the record
reader (tycoon.notation) it uses: both are imported only to read a record (at boot) and let go
after (`forget_reader`): the box keeps only the writer (tycoon.writer) while a game is played.
The work between two games (a new game's record, the archive, the saved setup) is box.newgame,
imported when a game starts and let go with the setup menu. `Store` is the file store the
journal works through.

Beside the record, `current.snap` is a cache of the game packed as bytes (pack_game) and of how
much of current.txt it covers: resume loads it, checks it against the file and reads only the
lines after it; anything wrong with it, and the whole record is read as before. It is removed
before current.txt is replaced in any way, and written again (`checkpoint`) once the lines
after it would take about SNAP_COST ms to read on a Pico, after the line it covers is on flash.
See docs/journal.md.
"""
import os
import sys
from struct import pack

from tycoon.game import pack_game
from tycoon.writer import HEADERS, action_text, header_text, tagged
from box import forget

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
# what reading a record loads besides box.resume: the reader, its line grammar and the repair
# (loaded by the reader for a damaged line)
_LOADED = (READER, "tycoon.line", "tycoon.repair")

CURRENT = "current.txt"
NEXT = "next.txt"      # a new game's record, complete, waiting for the old one to be archived
SETUP = "setup.txt"
BROKEN = "broken.txt"  # an unusable record is moved here for a look on the computer
ARCHIVE = "archive"
DAMAGED = "damaged"    # every record resume could not use whole, kept as it was: NNN-NAME
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
_HEAD = "<8sIIIHI"   # a plain global: box.resume reads it too
_WINDOW = const(64)


def _cost(line):
    # What a line written by the box costs to read at power-up, in pass lines (see SNAP_COST).
    if line[:4] == b"undo":
        return _UNDO_COST
    return _PLAY_COST if b": play" in line else 1


def _reread(lines, undos):
    # What `lines` lines, `undos` of them undo lines, cost to read again (not counted line by
    # line: as if every line were a play).
    return _PLAY_COST * lines + (_UNDO_COST - _PLAY_COST) * undos



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


class Store:
    """The file store the journal works through: every filesystem operation of the journal,
    wrapping `open` and `os` (the Pico's littlefs, the MicroPython unix port, CPython). Paths
    are plain strings with '/'. Its stand-in that fails on purpose, for tests, is
    tests/portable/cut_store.py."""

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

    # --- reading (box.resume, imported for it and let go after: forget_reader) ------------

    def resume(self):
        """(game, dropped): the game of current.txt, or None when there is no usable record
        (box.resume.resume says how damage is put aside). Never raises."""
        from box import resume
        return resume.resume(self)

    def load_setup(self):
        """The last saved setup as a dict (players, dealer, expansion, revolution, sticks,
        hands: list or None), or None when there is none or it is damaged in any way."""
        from box import resume
        return resume.load_setup(self)

    def _unsnap(self):
        # Before current.txt is replaced, renamed or repaired: its snapshot goes first, so that a
        # cut in between leaves none. OSError when it cannot be removed: the caller's write
        # fails rather than leave a snapshot beside a record it does not describe.
        self._snap_lines = 0
        self._due += _reread(self._lines or 0, 0)   # what it covered is to be read again
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

    def _reader(self):
        # The record reader's module. Loaded here (reading the resume snapshot or a record),
        # it is this journal's to let go (forget_reader).
        if READER not in sys.modules:
            self._loaded = True
        from tycoon import notation
        return notation

    def forget_reader(self):
        """Let the record reader go if this journal loaded it (the box calls this once it has
        read its journal at boot), with box.resume, and the repair if a damaged line loaded it:
        with nothing else holding them, their heap goes back to the game. Loaded by someone else
        (a host tool), the reader stays. Reading again reloads them."""
        forget("box.resume")   # only the journal imports it
        if self._loaded:
            self._loaded = False
            for name in _LOADED:
                forget(name)

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
            from box import resume   # the damage found at boot, kept first
            resume.keep_damaged(self, self._counted(_record(game, count)))
            forget("box.resume")
        else:
            self._atomic(self.current, self._counted(_record(game, count)))
        self._lines = len(HEADERS) + count
        self._actions = count
        self.checkpoint(game)   # a long record written anew gets its snapshot at once

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

    # --- between games (box.newgame, imported for it: the setup menu lets it go) -----------

    def start(self, game, old=None):
        """Begin the record of a new game, the running game `old` archived after it is in
        place (box.newgame.start). Raises OSError with the running game's record as it was."""
        from box import newgame
        newgame.start(self, game, old)

    def archive(self, game):
        """Move the record of a finished game to archive/game-NNN.txt, keeping the last `keep`
        there (box.newgame.archive). Returns the archive file's path."""
        from box import newgame
        return newgame.archive(self, game)

    def archived(self):
        """The numbers of the archived games, oldest first."""
        from box import newgame
        return newgame.archived(self)

    def save_setup(self, players, dealer, expansion, revolution, sticks, hands=None):
        """Remember the setup menu's choices (atomically). hands None: the default deal."""
        from box import newgame
        newgame.save_setup(self, players, dealer, expansion, revolution, sticks, hands)
