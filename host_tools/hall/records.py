"""Each table's record in the hall's folder: every line on disk before it is acknowledged.

`tables/BOX/GAME.txt` holds the lines of one game as the box wrote them (checksum tags and undo
lines kept: `matchbox replay` reads it as it is). A line is stored only when it is the next one
of its game (its sequence number one past the lines stored): a duplicate is dropped, a line
after a gap waits until the box sends the lines before it. A line whose text is not the one
stored means the box rewrote its record (a repair at power-up plays its undo lines out): the
hall's copy is renamed GAME.rewritten-N.txt, kept, and the game taken again from the box's line
1 (Table._set_aside); so is a copy longer than the box's record, which the box says with its
line 1 (`over`: the count the hall acknowledged, docs/hall.md).

Storing is a group commit (`Tables.store_all`): the lines of a batch are appended to their
tables' files, then to the hall's commit log (`DIR/commit.log`, a line `BOX GAME SEQ TEXT`
each), and the log alone is fsynced: one fsync a batch however many tables it touched (only a
copy set aside is fsynced with its folder at once: the log cannot bring a rename back). What it
returns STORED is on disk all the same: in the log if not yet in its table's file. At a
checkpoint (the log past CHECKPOINT_BYTES) every file written since the last one is fsynced and
the log emptied. When `Tables` opens the folder it plays the log into the files first
(`_recover`: a line missing from its file, after a power cut, is written again; one that differs
is the log's), fsyncs them and empties the log; a hall killed in the middle of a write leaves at
most a last line without its newline, which it cuts off (that line was never acknowledged, so
the box sends it again). Why a log of our own and not a database: the records stay the plain
files `matchbox replay` reads, and the log is only their last seconds, written in order and
read once at start. Each line must be one the box's own reader takes at
that place, by the same grammar (tycoon.line, `_check`): a checksum tag must be the right one for
its sequence number, so a line that turns up in the wrong place is refused; a tag-shaped ending
that is not one is a damaged tag; after a tagged line every line needs its tag; and the text must
be notation. Lines typed by hand before the box's first tagged one are taken as the box's reader
takes them.
"""
import concurrent.futures
import os
import threading

from tycoon import line as grammar

from host_tools import files
from host_tools.hall import accounts, protocol

STORED, DUPLICATE = "stored", "duplicate"
RETAKEN = "retaken"   # line 1 stored after the hall's copy was set aside (Table.aside)
SYNC_THREADS = 16   # fsyncs at once (a checkpoint's: one a table's file)
LOG = "commit.log"  # beside tables/: the lines stored since the last checkpoint
CHECKPOINT_BYTES = 4 << 20   # about 90 s of lines at 200 tables and ten times a human pace
REWRITES = 16       # copies of one game set aside (GAME.rewritten-N.txt) at most


class Refused(Exception):
    """A line the hall does not store; the text says why (a gap, a bad tag)."""


class Table:
    """One box's games: {game id: lines stored}, and the game stored last."""

    def __init__(self, folder, box):
        self.box = box
        self.folder = os.path.join(folder, box)
        self.games = {}
        self.synced = {}      # game -> its lines known to be on disk (fsynced): what is acknowledged
        self.latest = None
        self.version = 0      # goes up with every line stored
        self._lines = {}      # game -> its lines stored (_stored)
        self.aside = None     # the path the hall's copy of a game was set aside to last
        if os.path.isdir(self.folder):
            stamps = {}
            for name in os.listdir(self.folder):
                game = name[:-4]
                if name.endswith(".txt") and protocol.GAME.match(game):
                    path = os.path.join(self.folder, name)
                    self.games[game] = self.synced[game] = _repair(path)
                    stamps[game] = os.stat(path).st_mtime_ns
            if stamps:
                self.latest = max(stamps, key=lambda g: (stamps[g], protocol.game_number(g)))

    def _stored(self, game):
        """The lines stored of a game (read from its file once, then kept up to date)."""
        if self._lines.get(game) is None:
            lines = []
            if self.games.get(game):
                with open(self.path(game), "rb") as f:
                    lines = f.read().decode("utf-8", "replace").split("\n")[:self.games[game]]
            self._lines = {game: lines}   # one game's lines at a time: the one being sent
        return self._lines[game]

    def path(self, game=None):
        return os.path.join(self.folder, "%s.txt" % (game or self.latest))

    def ack(self):
        """(game, seq) the hall acknowledges: the game stored last and its lines fsynced."""
        return self.latest, self.synced.get(self.latest, 0)

    def store(self, game, seq, line, prev, unsynced, over=None):
        """Write line `seq` of `game`; returns STORED, DUPLICATE or RETAKEN, or raises Refused.
        `over`, with line 1: the box has fewer lines of the game than that count the hall
        acknowledged. The file is not fsynced here: its path goes into the dict `unsynced`
        (True when it and its folder need an fsync before the acknowledgement: a copy set
        aside, which the commit log cannot bring back) for Tables.store_all."""
        have = self.games.get(game, 0)
        shorter = over is not None and over == have   # (a stale `over` is an old duplicate)
        if seq <= have and not shorter and self._stored(game)[seq - 1] == line:
            if self.synced.get(game, 0) < seq:   # written, but its commit failed: the
                unsynced.setdefault(self.path(game), False)   # caller logs it again
            return DUPLICATE
        _check(game, seq, line, self._stored(game))
        retaken = seq <= have   # another text under that number, or fewer lines: the box
        if retaken:             # rewrote its record
            aside = self._set_aside(game, unsynced)
            if seq != 1:
                raise Refused("line %d of game %s differs from the line stored: the box's "
                              "record was rewritten; the hall's copy is kept as %s and the "
                              "game taken again from the box's line 1"
                              % (seq, game, os.path.basename(aside)))
            have = 0
        if seq != have + 1:
            raise Refused("line %d of game %s comes after a gap (the hall has %d)"
                          % (seq, game, have))
        if seq == 1 and prev is not None and prev[0] in self.games \
                and self.games[prev[0]] < prev[1]:
            raise Refused("game %s starts before game %s is complete (%d of %d lines)"
                          % (game, prev[0], self.games[prev[0]], prev[1]))
        stored = self._stored(game)   # read before the line is in the file
        os.makedirs(self.folder, exist_ok=True)
        path = self.path(game)
        with open(path, "ab") as f:
            f.write(line.encode("utf-8") + b"\n")
            f.flush()
        unsynced.setdefault(path, False)
        self.games[game] = seq
        stored.append(line)
        self.latest = game
        self.version += 1
        return RETAKEN if retaken else STORED


    def _set_aside(self, game, unsynced):
        """The box's record of `game` was rewritten (repaired at power-up, its undo lines
        played out; or a wiped box's new game under the same id, when neither journal had an
        id, docs/journal.md): rename the hall's copy to
        GAME.rewritten-N.txt (kept, never read again as a record) and take the game again
        from nothing: its acknowledgement goes back to line 0, so the box sends its record
        from line 1. Raises Refused after REWRITES copies of one game."""
        n = 1
        while os.path.exists(os.path.join(self.folder, "%s.rewritten-%d.txt" % (game, n))):
            n += 1
        if n > REWRITES:
            raise Refused("line of game %s differs from the line stored, and the game was "
                          "rewritten %d times already (the hall keeps what it has)"
                          % (game, REWRITES))
        aside = self.aside = os.path.join(self.folder, "%s.rewritten-%d.txt" % (game, n))
        path = self.path(game)
        os.replace(path, aside)
        unsynced.pop(path, None)
        unsynced[aside] = True    # the file and its folder (the rename) fsynced
        self.games[game] = self.synced[game] = 0
        self._lines = {}
        self.latest = game
        self.version += 1
        return aside


def _check(game, seq, line, before):
    """Refused unless the box's reader takes `line` as line `seq` of a record whose first
    lines are `before` (the lines the hall has stored): its tag (a tag on every line after a
    tagged one), then its words, by the reader's own grammar."""
    n = min(seq - 1, len(before))
    while n and not before[n - 1]:   # after a tagged line, every line with text is tagged:
        n -= 1                       # the last line with text tells whether one came before
    try:
        text = grammar.untag(line, seq, bool(n) and "#~" in before[n - 1])[0]
        grammar.parse_line(text)
    except grammar.NotationError as exc:
        raise Refused("line %d of game %s: %s" % (seq, game, exc.message)) from None


def _whole(data):
    """The bytes of data up to its last newline: a torn last line (a write cut short) left out."""
    return data[:data.rfind(b"\n") + 1]


def _whole_lines(path):
    """The whole lines of a table's file ([] when there is none)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    return _whole(data).decode("utf-8", "replace").split("\n")[:-1]


def _recover(folder, log_path):
    """Play the commit log at log_path into the tables' files under folder: each line that is
    not in its file at its number, or another text there, is written there (what follows it in
    the file dropped: the log's later lines follow). Every file the log names is then fsynced
    (written again whole, when it changed) and the log emptied. A game set aside and taken
    again from its line 1 is in the log whole after its old lines, so it ends as the box's new
    record."""
    try:
        with open(log_path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return
    wanted, changed = {}, set()
    for raw in _whole(data).split(b"\n")[:-1]:
        try:
            box, game, seq, line = raw.decode("utf-8").split(" ", 3)
            seq = int(seq)
        except ValueError:
            continue
        if accounts.NAME.match(box) is None or protocol.GAME.match(game) is None or seq < 1:
            continue   # not a line this module writes (only a hand could have put it there)
        path = os.path.join(folder, box, "%s.txt" % game)
        if path not in wanted:
            wanted[path] = _whole_lines(path)
        lines = wanted[path]
        if len(lines) >= seq and lines[seq - 1] == line or len(lines) < seq - 1:
            continue   # there already (or after a gap, which a log in order never has)
        del lines[seq - 1:]
        lines.append(line)
        changed.add(path)
    for path, lines in wanted.items():
        if path in changed:
            files.write_whole(path, "".join(line + "\n" for line in lines))
        else:
            _sync(path)
    for path in sorted({os.path.dirname(path) for path in wanted}) + [folder]:
        _sync(path)   # a new game's name in its folder, a new box's folder in tables/
    with open(log_path, "r+b") as f:
        f.truncate(0)
        os.fsync(f.fileno())


def _repair(path):
    """The number of whole lines in the record at path, after cutting a torn last line."""
    with open(path, "rb") as f:
        data = f.read()
    whole = _whole(data)
    if len(whole) != len(data):
        with open(path, "r+b") as f:
            f.truncate(len(whole))
            f.flush()
            os.fsync(f.fileno())
    return whole.count(b"\n")


def _sync(path):
    """fsync a file, or a folder (so that a new file's name survives a power cut too); one
    no longer there (a game's file set aside, not yet begun again) is not an error."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Tables:
    """Every table of a hall folder (`tables/BOX/`), with a lock and a version that goes up
    with every line stored (the page waits on it)."""

    def __init__(self, hall):
        self.folder = os.path.join(hall, "tables")
        os.makedirs(self.folder, exist_ok=True)
        self.log_path = os.path.join(hall, LOG)
        _recover(self.folder, self.log_path)
        self.lock = threading.Condition()
        self.tables = {}
        self._pool = None
        self._log = None      # the commit log, open to append (_append)
        self._torn = False    # a write to it failed, and cutting it back too: checkpoint
        self._dirty = set()   # the files written since the last checkpoint
        for box in sorted(os.listdir(self.folder)):
            if os.path.isdir(os.path.join(self.folder, box)):
                self.tables[box] = Table(self.folder, box)

    def table(self, box):
        if box not in self.tables:
            self.tables[box] = Table(self.folder, box)
        return self.tables[box]

    def _syncing(self):
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(SYNC_THREADS, "hall-fsync")
        return self._pool

    def store(self, box, game, seq, line, prev=None, over=None):
        """Store one line of a box (Table.store, fsynced before it returns)."""
        result = self.store_all([(box, game, seq, line, prev, over)])[0]
        if isinstance(result, Exception):
            raise result
        return result

    def store_all(self, lines):
        """Store lines [(box, game, seq, line, prev, over)] in turn, append them to the commit
        log and fsync it: a group commit, one fsync for every line of every table (a copy set
        aside fsynced with its folder beside it). Returns each line's result: STORED,
        DUPLICATE, RETAKEN, or the Refused or OSError it met. A write or fsync that fails
        raises OSError (the caller acknowledges none of these lines)."""
        if self._log is not None and (self._torn or self._log.tell() >= CHECKPOINT_BYTES):
            self._checkpoint()
        results, unsynced, logged = [], {}, []
        with self.lock:
            for box, game, seq, line, prev, over in lines:
                table = self.table(box)
                try:
                    result = table.store(game, seq, line, prev, unsynced, over)
                except (Refused, OSError) as exc:
                    results.append(exc)
                    continue
                results.append(result)
                if result != DUPLICATE or table.synced.get(game, 0) < seq:
                    logged.append("%s %s %d %s\n" % (box, game, seq, line))
        self._dirty.update(unsynced)
        # the log, and what it cannot bring back: a copy set aside, and its folder
        paths = [path for path, aside in unsynced.items() if aside]
        paths += sorted({os.path.dirname(path) for path in paths})
        if logged:
            self._append("".join(logged).encode("utf-8"))
        self._fsync_all(paths + [self.log_path] if logged else paths)
        # Only now do the lines count as on disk, to be acknowledged; after a failed fsync they
        # stay unacknowledged, and the box's sending them again logs them again.
        with self.lock:
            for box, game, *_ in lines:
                table = self.tables.get(box)
                if table is not None and table.path(game) in unsynced \
                        and table.synced.get(game, 0) != table.games.get(game, 0):
                    table.synced[game] = table.games.get(game, 0)
                    table.version += 1   # what the page shows of it changed: the acknowledgement
        if unsynced:
            with self.lock:
                self.lock.notify_all()
        return results

    def version(self):
        return sum(t.version for t in self.tables.values())

    def _fsync_all(self, paths):
        if len(paths) > 1:   # their fsyncs at once (the file system commits them together)
            list(self._syncing().map(_sync, paths))
        elif paths:
            _sync(paths[0])

    def _append(self, data):
        """Write data at the end of the commit log (made, its folder fsynced, when missing)."""
        if self._log is None:
            made = not os.path.exists(self.log_path)
            self._log = open(self.log_path, "ab", buffering=0)
            if made:
                _sync(os.path.dirname(self.log_path))
        end = self._log.tell()
        try:
            view = memoryview(data)
            while view:
                view = view[self._log.write(view):]
        except OSError:   # a full disk: no part of a line may stay to run into the next one
            try:
                self._log.truncate(end)
                self._log.seek(end)
            except OSError:
                self._torn = True
            raise

    def _checkpoint(self):
        """Every file written since the last checkpoint fsynced, then the log emptied: its
        lines are all in their files on disk. OSError when an fsync fails (the log kept)."""
        written = sorted(self._dirty)
        folders = sorted({os.path.dirname(path) for path in written})
        self._fsync_all(written + folders + [self.folder])
        self._dirty.clear()
        self._log.truncate(0)
        self._log.seek(0)
        _sync(self.log_path)
        self._torn = False

    def close(self):
        if self._log is not None:
            self._log.close()
            self._log = None
