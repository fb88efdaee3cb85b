"""Each table's record in the hall's folder: every line on disk before it is acknowledged.

`tables/BOX/GAME.txt` holds the lines of one game as the box wrote them (checksum tags and undo
lines kept: `matchbox replay` reads it as it is). A line is stored only when it is the next one
of its game (its sequence number one past the lines stored): a duplicate is dropped, a line
after a gap waits until the box sends the lines before it. A line whose text is not the one
stored means the box rewrote its record (a repair at power-up plays its undo lines out): the
hall's copy is renamed GAME.rewritten-N.txt, kept, and the game taken again from the box's line
1 (Table._set_aside); so is a copy longer than the box's record, which the box says with its
line 1 (`over`: the count the hall acknowledged, docs/hall.md). Storing is append, flush and
fsync (`Tables.store_all` stores many lines and then fsyncs each file it wrote once: a group
commit, the files of many tables fsynced at once by a few threads; what it returns STORED is on
disk all the same); a hall killed in the middle of a write leaves at most a last line without
its newline, which `Tables` cuts off when it opens the folder (that line was never
acknowledged, so the box sends it again). Each line must be one the box's own reader takes at
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

from host_tools.hall import protocol

STORED, DUPLICATE = "stored", "duplicate"
RETAKEN = "retaken"   # line 1 stored after the hall's copy was set aside (Table.aside)
SYNC_THREADS = 16   # fsyncs of a batch at once (one a table's file)
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
        (True when its folder needs an fsync too: a new file) for Tables.store_all to fsync."""
        have = self.games.get(game, 0)
        shorter = over is not None and over == have   # (a stale `over` is an old duplicate)
        if seq <= have and not shorter and self._stored(game)[seq - 1] == line:
            synced = self.synced.get(game, 0)
            if synced < seq:   # written, but its fsync failed: the caller fsyncs it again,
                path = self.path(game)   # and its folder while none of it is known on disk
                unsynced[path] = unsynced.get(path, False) or not synced
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
        unsynced[path] = unsynced.get(path, False) or seq == 1
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


def _repair(path):
    """The number of whole lines in the record at path, after cutting a torn last line."""
    with open(path, "rb") as f:
        data = f.read()
    end = data.rfind(b"\n") + 1
    if end != len(data):
        with open(path, "r+b") as f:
            f.truncate(end)
            f.flush()
            os.fsync(f.fileno())
    return data[:end].count(b"\n")


def _sync(path):
    """fsync a file, or a folder (so that a new file's name survives a power cut too)."""
    fd = os.open(path, os.O_RDONLY)
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
        self.lock = threading.Condition()
        self.tables = {}
        self._pool = None
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
        """Store lines [(box, game, seq, line, prev, over)] in turn, then fsync each file
        written (and the folder of a new one) once: a group commit, one fsync a file for many
        lines, the fsyncs of many files at once (SYNC_THREADS).
        Returns each line's result: STORED, DUPLICATE, RETAKEN, or the Refused or OSError it
        met. An fsync that fails raises OSError (the caller acknowledges none of these lines)."""
        results, unsynced = [], {}
        with self.lock:
            for box, game, seq, line, prev, over in lines:
                try:
                    results.append(self.table(box).store(game, seq, line, prev, unsynced, over))
                except (Refused, OSError) as exc:
                    results.append(exc)
        paths = list(unsynced)
        paths += sorted({os.path.dirname(path) for path, new in unsynced.items() if new})
        if len(paths) > 1:   # many tables: their fsyncs at once (the file system commits them
            list(self._syncing().map(_sync, paths))   # together), not one after the other
        elif paths:
            _sync(paths[0])
        # Only now do the lines count as on disk, to be acknowledged; after a failed fsync they
        # stay unacknowledged, and the box's sending them again fsyncs their file again.
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
