"""The box's side of the hall: which journal line goes to the hall next (docs/hall.md).

The journal on flash is the truth. `Cursor` reads the games from it (games/archive/game-NNN.txt
oldest first, then games/current.txt), a whole line at a time (a line torn by a power cut is
not one yet), and keeps in RAM only where it is (the next line's game, number and byte offset),
one block of the journal read ahead, and the keys of at most WINDOW lines sent and not yet
acknowledged: there is no queue that grows while the hall is away. A transport (the MQTT link of a Pico W, the USB link to
`matchbox uplink`) asks it for the next line, carries it, and brings back the hall's
acknowledgement; after a new connection, a new start of the hall, or no progress for _STALL_MS
while lines are out, the cursor goes back to the line after the last acknowledged one. The
hall drops duplicates by line number, so sending again costs nothing.

A game's id is its number on the box and the CRC-32 of its first six lines (its header), as
host_tools/hall/protocol.py says, the CRC begun from the journal's id when the journal has one
(games/id-XXXXXXXX, an empty file drawn by box.newgame when a game 001 begins: a box whose
flash was wiped numbers from 001 again, and its games must not take the ids of those the hall
has of it; the id is in the file's name, so that the listing the cursor makes anyway reads
it). An acknowledgement naming a game the box does not hold by its id (the hall's last game
of a wiped box, a retained one of a game it never had) sends the box's games from the first
one: the hall drops the lines it has. Hand-written: the journal's layout is the box's own and no
library reads it; the MQTT client is the box's own too (box.mqtt_link says why).
"""
import json
from binascii import crc32

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

WINDOW = const(32)        # lines out at once, not yet acknowledged
_STALL_MS = const(1500)   # no acknowledgement for this long while lines are out: send again
_REST_MS = const(50)      # nothing new: the journal is looked at again after this long, or
                          # at once after an acknowledgement (without a journal's count)
_LOOK_MS = const(2000)    # with a journal's count: looked at after a write, and this often
                          # all the same (whatever the count missed costs 2 s at most)
_HEADER_LINES = const(6)
_BLOCK = const(512)       # journal bytes read at once (about ten lines): the longest line
                          # (200 bytes with its newline, docs/notation.md) fits twice


def game_id(number, header, journal=b""):
    """The id of game `number` whose record starts with the bytes `header` (six lines), in the
    journal whose id file is named `journal` (b"": none)."""
    return "%03d-%08x" % (number, crc32(header, crc32(journal)) & 0xFFFFFFFF)


def game_number(game):
    return int(game.split("-")[0])


def message(item):
    """The journal message (JSON, host_tools/hall/protocol.py) of an item next() gave."""
    game, seq, line, prev, over = item
    m = {"game": game, "seq": seq, "line": line, "prev": prev}
    if over:
        m["over"] = over
    return json.dumps(m)


class Cursor:
    """Where the box's uplink is in its journal: `next()` gives the next line to send,
    `ack()` takes the hall's acknowledgement, `delivered()` says whether the hall has
    everything. `root` is the journal's folder, `store` its file store (box.store), `journal`
    the box.journal.Journal writing there, if any: its count of writes tells when to look.

    A call of next() opens one file at most (and lists the games when they changed): on a
    Pico a file's open costs about a millisecond, and the link's step must stay short. So the
    games' numbers stay listed between calls, a game's id is read with the block its lines
    come from (one open checks the header and reads _BLOCK bytes), and the lines in that
    block cost no flash at all."""

    def __init__(self, store, root="games", journal=None):
        self.store = store
        self.root = root
        self.journal = journal
        self._seen = 0         # the journal's count of writes when next() last found nothing
        self.boot = None       # the hall's start the last acknowledgement came from
        self.acked = None      # (game id or None, seq): what the hall has stored
        self.out = []          # (number, seq, offset) of the lines sent and not yet acknowledged
        self.moved = 0         # ticks_ms of the last progress while lines are out
        self.busy = False      # next() gave None only to keep its call short: call again
        self.idle = None       # ticks_ms when next() last found nothing new (None: it may)
        self._pos = None       # (number or None, game id or None, seq, at, offset): the next
                               # line is `seq`, line `at` <= seq starts at byte `offset`
        self._mark = None      # (game id, seq, offset) of the line the hall acknowledged last
        self._numbers = None   # the games' numbers as listed last (None: list them again)
        self._current = False  # whether the last of them is games/current.txt
        self._seed = 0         # the CRC of the journal's id file's name (0: none), as listed
        self._buf = bytearray(_BLOCK)
        self._held = None      # (number, game id, base, n): the buffer holds that game's
                               # bytes from `base`, n of them
        self._ends = None      # (number, game id, lines): the last game read to its end
        self._rewind = True
        self._again = False    # finding the line the hall acknowledged last, to send again
        self._over = 0         # the hall's count of lines of a game the box has fewer of

    # --- the hall's side --------------------------------------------------------------------

    def connected(self):
        """A new connection: wait for the hall's acknowledgement, then send from it."""
        self.boot = None
        self._rewind = True
        self.idle = None

    def ack(self, boot, game, seq, now):
        """The hall's acknowledgement: it has every line up to `seq` of `game` (None: none)."""
        self.idle = None
        if boot != self.boot:
            self.boot = boot
            self._rewind = True
        acked = self.acked
        if acked is not None and acked[0] == game and game is not None and seq < acked[1]:
            self._rewind = True   # the hall took the game again: the box's record was rewritten
        if (game, seq) != acked:
            self.acked = (game, seq)
            self.moved = now
        if game is not None:   # the hall acknowledges a duplicate too: it is not out any more
            number = game_number(game)
            out = self.out
            while out and (out[0][0], out[0][1]) <= (number, seq):
                sent = out.pop(0)
                if sent[0] == number and sent[1] == seq:
                    self._mark = (game, seq, sent[2])
                self.moved = now

    def stalled(self, now, ticks_diff):
        """No progress for _STALL_MS while lines are out: send again from the acknowledgement
        (True when it does)."""
        if self.out and ticks_diff(now, self.moved) > _STALL_MS:
            self._rewind = True
            self.moved = now
            self.idle = None
            return True
        return False

    def resting(self, now, ticks_diff):
        """Whether to leave next() alone: it found nothing new and since then neither the
        hall acknowledged nor the journal wrote, _LOOK_MS at most (without a journal: _REST_MS).
        Looking again costs a file's open, not worth one every pass of the loop."""
        if self.idle is None:
            return False
        if self.journal is not None:
            return self.journal.changes == self._seen and ticks_diff(now, self.idle) < _LOOK_MS
        return ticks_diff(now, self.idle) < _REST_MS

    # --- the journal's side -----------------------------------------------------------------

    def games(self):
        """The numbers of the games on the flash, oldest first; the last is the current
        game's (one more than the highest archived) when current.txt is there."""
        st = self.store
        try:
            names = st.listdir(self.root)
        except OSError:
            names = ()
        numbers = []
        if "archive" in names:
            for name in st.listdir(self.root + "/archive"):
                if name.startswith("game-") and name.endswith(".txt") and name[5:-4].isdigit():
                    numbers.append(int(name[5:-4]))
        numbers.sort()
        journal = ""   # the journal's id file (after a cut in box.newgame, the last of two)
        for name in names:
            if name[:3] == "id-" and name > journal:
                journal = name
        self._seed = crc32(journal.encode())   # 0 without one
        self._current = "current.txt" in names
        if self._current:
            numbers.append(numbers[-1] + 1 if numbers else 1)
        return numbers

    def _path(self, number, numbers):
        if self._current and number == numbers[-1]:
            return self.root + "/current.txt"
        return self.root + "/archive/game-%03d.txt" % number

    def _open(self, number, numbers):
        """(file, id, header bytes) of game `number`, the file read up to somewhere after its
        header; None when it is absent or its header (six lines) is not whole yet."""
        try:
            f = self.store.open(self._path(number, numbers), "rb")
        except OSError:
            return None
        buf = self._buf
        self._held = None
        crc = self._seed
        size = lines = 0
        while lines < _HEADER_LINES:
            n = f.readinto(buf)
            i = 0
            while lines < _HEADER_LINES:
                j = buf.find(b"\n", i, n)
                if j < 0:
                    break
                lines += 1
                i = j + 1
            if lines < _HEADER_LINES:
                i = n
                if n < _BLOCK:   # the file ends inside its header
                    f.close()
                    return None
            crc = crc32(memoryview(buf)[:i], crc)
            size += i
        return f, "%03d-%08x" % (number, crc & 0xFFFFFFFF), size

    def _fill(self, number, numbers, game, offset):
        """Read game `number`'s block from `offset` into the buffer: its id, or None when its
        file is gone or its header not whole."""
        opened = self._open(number, numbers)
        if opened is None:
            return None
        f, gid, _ = opened
        try:
            if gid == game or game is None:
                f.seek(offset)
                self._held = (number, gid, offset, f.readinto(self._buf))
            return gid
        finally:
            f.close()

    def _start(self):
        """Where to send from: the line the hall acknowledged last, again (a duplicate the hall
        drops, unless the box rewrote its record since: its text then differs there and the
        hall takes the game again from line 1); the first line of the oldest game on the flash
        when the hall has none of the box's games, or acknowledges a game the box does not
        hold (next() finds it missing)."""
        game, seq = self.acked if self.acked else (None, 0)
        self._again = game is not None and seq > 0
        self._over = 0
        if game is None:
            return None, None, 1, 1, 0
        mark = self._mark
        if mark is not None and mark[0] == game and mark[1] == seq:
            return game_number(game), game, seq, seq, mark[2]
        return game_number(game), game, max(seq, 1), 1, 0

    def next(self, now):
        """(game, seq, line, prev, over) of the next line to send, or None: nothing new, the
        window full, no acknowledgement yet on this connection, or (with `busy` set) a file
        read already in this call; `idle` is set when there was nothing new. `line` is str
        without its newline, `prev` [id, lines] of the game before on the flash when seq is 1
        and there is one, `over` (else 0) with line 1 the hall's count of lines of the game
        when the box has fewer (its record rewritten: the hall sets its copy aside)."""
        self.busy = False
        self.idle = None
        if self.boot is None:
            return None
        if self.journal is not None:
            self._seen = self.journal.changes   # what this call sees of the journal
        if self._rewind or self._pos is None:
            self._rewind = False
            self.out = []
            self._numbers = None   # listed again: the games may have moved on since
            self._pos = self._start()
        if len(self.out) >= WINDOW:
            return None
        numbers = self._numbers
        listed = numbers is None
        if numbers is None:
            numbers = self._numbers = self.games()
        number, game, seq, at, offset = self._pos
        written = getattr(self.journal, "_lines", None)   # current.txt's lines, when known
        if not listed and self._current and numbers and number == numbers[-1] \
                and written is not None and at > written + 1:
            # past the end of current.txt: a new game has taken its place since the listing,
            # which its id alone does not tell when its header is the old one's (an event's
            # rounds at one table): list again
            self._numbers = None
            self.busy = True
            return None
        if number is None or number not in numbers:   # none yet, the hall's game not the
            if not numbers:                            # box's, or its record gone from the
                return self._nothing(now, listed)      # box: every game, the oldest first
            number, game, seq, at, offset = self._first(numbers)
        read = False
        buf = self._buf
        while True:
            held = self._held
            line = None
            ends = False   # the block read in this call ends before line `at` does
            if held is not None and held[0] == number and held[1] == game \
                    and held[2] <= offset:
                base, n = held[2], held[3]
                j = buf.find(b"\n", offset - base, n)
                if j >= 0 and at < seq:   # finding line `seq`: this one is only counted
                    at += 1
                    offset = base + j + 1
                    continue
                if j >= 0:
                    line = bytes(buf[offset - base:j + 1])
                else:   # read in this call: the file's end, or a line longer than any
                    ends = read and (n < _BLOCK or base == offset)
            if line is None and not ends:
                if read:   # one file read a call
                    self.busy = True
                    self._pos = (number, game, seq, at, offset)
                    return None
                read = True
                gid = self._fill(number, numbers, game, offset)
                if gid is None:   # gone, or a new game whose header is not whole yet
                    self._pos = (number, game, seq, at, offset)
                    return self._nothing(now, listed)
                if gid != game:
                    # A game not seen in this file before, the games listed before this call:
                    # the journal may have moved on (current.txt archived, a new game begun),
                    # and a game's number is where its file stands in the listing. List
                    # again, then read.
                    if not listed:
                        self._numbers = None
                        self.busy = True
                        self._pos = (number, game, seq, at, offset)
                        return None
                    if game is not None:   # the hall's game is not the box's game of that
                        number, game, seq, at, offset = self._first(numbers)   # number
                        continue
                    game, at, offset = gid, 1, 0
                continue
            if line is not None:   # line `seq`
                at += 1
                offset += len(line)
                self._again = False
                if self.acked == (game, seq):
                    self._mark = (game, seq, offset - len(line))
                prev = None
                over = 0
                if seq == 1:
                    i = numbers.index(number)
                    if i > 0:
                        prev = self._prev(numbers[i - 1], numbers)
                    over, self._over = self._over, 0
                self._pos = (number, game, seq + 1, at, offset)
                if not self.out:
                    self.moved = now
                self.out.append((number, seq, offset - len(line)))
                return game, seq, line[:-1].decode(), prev, over
            # no whole line at `offset`: the game's end, as far as it is written
            if self._again:   # the box has fewer lines of this game than the hall: it
                self._again = False   # rewrote the record; every line again, from line 1,
                self._over = seq      # which says so
                seq, at, offset = 1, 1, 0
                continue
            self._pos = (number, game, seq, at, offset)
            if number == numbers[-1]:
                if not self._current:   # archived: a new game may have begun
                    self._numbers = None
                self.idle = now
                return None   # the game being played: its next line is not written yet
            self._ends = (number, game, at - 1)
            number, game, seq, at, offset = numbers[numbers.index(number) + 1], None, 1, 1, 0

    def _first(self, numbers):
        # The position of the oldest game's line 1: the hall has none of the box's games, or
        # the one it acknowledges is not the box's (the box's flash wiped: its numbers begin
        # again; a retained acknowledgement of a game the box never had).
        self._again = False
        self._over = 0
        return numbers[0], None, 1, 1, 0

    def _nothing(self, now, listed):
        # Nothing to send from the games as listed: with a listing older than this call, list
        # them again in the next call (the journal may have moved on), else rest.
        self._numbers = None
        if listed:
            self.idle = now
        else:
            self.busy = True

    def _prev(self, number, numbers):
        """[id, whole lines] of game `number`."""
        ends = self._ends
        if ends is not None and ends[0] == number:
            return [ends[1], ends[2]]
        opened = self._open(number, numbers)
        if opened is None:
            return None
        f, gid, size = opened
        try:
            f.seek(size)
            return [gid, _HEADER_LINES + self._count(f)]
        finally:
            f.close()

    def delivered(self):
        """Whether the hall, heard from on this connection, has every whole line of the
        journal's last game with a whole header (none: whether the hall has answered)."""
        if self.boot is None:
            return False
        numbers = self._numbers = self.games()
        opened = None
        for number in reversed(numbers):   # a new game's header may not be whole yet
            opened = self._open(number, numbers)
            if opened:
                break
        if opened is None:
            return True
        f, gid, size = opened
        try:
            f.seek(size)
            return self.acked == (gid, _HEADER_LINES + self._count(f))
        finally:
            f.close()

    def _count(self, f):
        """Whole lines from f's position to its end."""
        buf = self._buf
        self._held = None
        n = 0
        while True:
            got = f.readinto(buf)
            if not got:
                return n
            i = 0
            while True:
                i = buf.find(b"\n", i, got) + 1
                if not i:
                    break
                n += 1
