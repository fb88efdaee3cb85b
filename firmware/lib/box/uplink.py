"""The box's side of the hall: which journal line goes to the hall next (docs/hall.md).

The journal on flash is the truth. `Cursor` reads the games from it (games/archive/game-NNN.txt
oldest first, then games/current.txt), a whole line at a time (a line torn by a power cut is
not one yet), and keeps in RAM only where it is (the next line's game, number and byte offset)
and the keys of at most WINDOW lines sent and not yet acknowledged: there is no queue that
grows while the hall is away. A transport (the MQTT link of a Pico W, the USB link to
`matchbox uplink`) asks it for the next line, carries it, and brings back the hall's
acknowledgement; after a new connection, a new start of the hall, or no progress for STALL_MS
while lines are out, the cursor goes back to the line after the last acknowledged one. The
hall drops duplicates by line number, so sending again costs nothing.

A game's id is its number on the box and the CRC-32 of its first six lines (its header), as
host_tools/hall/protocol.py says. Hand-written: the journal's layout is the box's own and no
library reads it; the MQTT client itself is micropython-lib's umqtt (box.mqtt_link).
"""
import os
from binascii import crc32

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

WINDOW = const(32)        # lines out at once, not yet acknowledged
STALL_MS = const(1500)    # no acknowledgement for this long while lines are out: send again
HEADER_LINES = const(6)
_MAX_LINE = const(200)    # a record line with its newline (docs/notation.md)
SCAN = const(64)          # lines read at most in one call while finding the next line


def game_id(number, header):
    """The id of game `number` whose record starts with the bytes `header` (six lines)."""
    return "%03d-%08x" % (number, crc32(header) & 0xFFFFFFFF)


def game_number(game):
    return int(game.split("-")[0])


class Cursor:
    """Where the box's uplink is in its journal: `next()` gives the next line to send,
    `ack()` takes the hall's acknowledgement, `delivered()` says whether the hall has
    everything. `root` is the journal's folder, `store` its file store (box.store)."""

    def __init__(self, store, root="games"):
        self.store = store
        self.root = root
        self.boot = None       # the hall's start the last acknowledgement came from
        self.acked = None      # (game id or None, seq): what the hall has stored
        self.out = []          # (number, seq) of the lines sent and not yet acknowledged
        self.moved = 0         # ticks_ms of the last progress while lines are out
        self._pos = None       # (game id, seq, at, offset): the next line, and line `at`
                               # starting at byte `offset` on the way to it
        self._rewind = True
        self._waiting = None   # (path, size) when the last game had no next line yet
        self._again = False    # finding the line the hall acknowledged last, to send again

    # --- the hall's side --------------------------------------------------------------------

    def connected(self):
        """A new connection: wait for the hall's acknowledgement, then send from it."""
        self.boot = None
        self._rewind = True

    def ack(self, boot, game, seq, now):
        """The hall's acknowledgement: it has every line up to `seq` of `game` (None: none)."""
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
            key = (game_number(game), seq)
            out = self.out
            while out and out[0] <= key:
                out.pop(0)
                self.moved = now

    def stalled(self, now, ticks_diff):
        """No progress for STALL_MS while lines are out: send again from the acknowledgement."""
        if self.out and ticks_diff(now, self.moved) > STALL_MS:
            self._rewind = True
            self.moved = now

    # --- the journal's side -----------------------------------------------------------------

    def games(self):
        """The numbers of the games on the flash, oldest first; the last is the current
        game's (one more than the highest archived) when current.txt is there."""
        st = self.store
        folder = self.root + "/archive"
        numbers = []
        if st.isdir(folder):
            for name in st.listdir(folder):
                if name.startswith("game-") and name.endswith(".txt") and name[5:-4].isdigit():
                    numbers.append(int(name[5:-4]))
        numbers.sort()
        if st.exists(self.root + "/current.txt"):
            numbers.append(numbers[-1] + 1 if numbers else 1)
        return numbers

    def _path(self, number, numbers):
        if number == numbers[-1] and self.store.exists(self.root + "/current.txt"):
            return self.root + "/current.txt"
        return self.root + "/archive/game-%03d.txt" % number

    def _open(self, number, numbers):
        """(file, id) of game `number`; None when it is absent or its header (six lines) is
        not whole yet."""
        try:
            f = self.store.open(self._path(number, numbers), "rb")
        except OSError:
            return None
        head = b""
        for _ in range(HEADER_LINES):
            line = f.readline(_MAX_LINE)
            if not line.endswith(b"\n"):
                f.close()
                return None
            head += line
        return f, game_id(number, head)

    def _start(self):
        """Where to send from: the line the hall acknowledged last, again (a duplicate the hall
        drops, unless the box rewrote its record since: its text then differs there and the
        hall takes the game again from line 1); the first line of the oldest game on the flash
        when the hall has none of the box's games."""
        game, seq = self.acked if self.acked else (None, 0)
        self._again = game is not None and seq > 0
        return (game, max(seq, 1), 1, 0) if game is not None else (None, 1, 1, 0)

    def next(self, now):
        """(game, seq, line, prev) of the next line to send, or None: nothing new, the window
        full, no acknowledgement yet on this connection, or still finding the line (at most
        SCAN lines are read a call). `line` is str without its newline, `prev` [id, lines] of
        the game before on the flash when seq is 1 and there is one."""
        if self.boot is None:
            return None
        if self._rewind or self._pos is None:
            self._rewind = False
            self._waiting = None
            self.out = []
            self._pos = self._start()
        if len(self.out) >= WINDOW:
            return None
        waiting = self._waiting
        if waiting is not None:   # caught up: one stat says whether the journal has grown
            try:
                if os.stat(waiting[0])[6] == waiting[1]:
                    return None
            except OSError:
                pass
            self._waiting = None
        numbers = self.games()
        if not numbers:
            return None
        game, seq, at, offset = self._pos   # line `at` starts at byte `offset`, at <= seq
        number = game_number(game) if game else numbers[0]
        while True:
            if number not in numbers:   # its record is gone from the box: the next one kept
                later = [n for n in numbers if n > number]
                if not later:
                    return None
                number, game, seq, at, offset = later[0], None, 1, 1, 0
            opened = self._open(number, numbers)
            if opened is None:
                return None
            f, gid = opened
            try:
                if gid != game:   # a game not seen yet, or another game took the number
                    if game is not None:
                        seq = 1
                    game, at, offset = gid, 1, 0
                f.seek(offset)
                budget = SCAN
                line = b""
                while at <= seq:
                    line = f.readline(_MAX_LINE)
                    if not line.endswith(b"\n"):
                        break
                    offset += len(line)
                    at += 1
                    budget -= 1
                    if at <= seq and not budget:
                        self._pos = (game, seq, at, offset)
                        return None
                if at > seq:   # line `seq` read whole
                    self._again = False
                    prev = None
                    i = numbers.index(number)
                    if seq == 1 and i > 0:
                        prev = self._prev(numbers[i - 1], numbers)
                    self._pos = (game, seq + 1, at, offset)
                    if not self.out:
                        self.moved = now
                    self.out.append((number, seq))
                    return game, seq, line[:-1].decode(), prev
                if self._again:   # the box has fewer lines of this game than the hall: it
                    self._again = False   # rewrote the record; every line again, from line 1
                    number, seq, at, offset = number, 1, 1, 0
                    continue
                self._pos = (game, seq, at, offset)
                if number == numbers[-1]:   # the game being played: its next line is not
                    if at > 0 and line == b"":   # written yet: until the file grows (a new
                        self._waiting = (self._path(number, numbers), offset)   # game
                    return None                  # replaces it with another size), a stat
            finally:
                f.close()
            number, game, seq, at, offset = [n for n in numbers if n > number][0], None, 1, 1, 0

    def _prev(self, number, numbers):
        """[id, whole lines] of game `number`."""
        opened = self._open(number, numbers)
        if opened is None:
            return None
        f, gid = opened
        try:
            return [gid, HEADER_LINES + _count(f)]
        finally:
            f.close()

    def delivered(self):
        """Whether the hall, heard from on this connection, has every whole line of the
        journal's last game with a whole header (none: whether the hall has answered)."""
        if self.boot is None:
            return False
        numbers = self.games()
        opened = None
        for number in reversed(numbers):   # a new game's header may not be whole yet
            opened = self._open(number, numbers)
            if opened:
                break
        if opened is None:
            return True
        f, gid = opened
        try:
            return self.acked == (gid, HEADER_LINES + _count(f))
        finally:
            f.close()


def _count(f):
    """Whole lines from f's position to its end."""
    n = 0
    while True:
        chunk = f.read(256)
        if not chunk:
            return n
        n += chunk.count(b"\n")
