"""The box's side of the hall: send the journal lines the hall has not acknowledged.

The journal on the box's flash is the truth: `Uplink` reads the games from the flash folder
(`games/archive/game-NNN.txt` oldest first, then `games/current.txt`) and keeps in memory only
where it is (the next line to send) and a window of at most WINDOW lines sent and not yet
acknowledged; there is no queue that grows while the hall is away. Each line goes as one
QoS 1 message (host_tools.hall.protocol). After every (re)connection, and when the hall's
acknowledgement names a new start of the hall, it goes back to the last line the hall
acknowledged (sent again: if the box rewrote its record at power-up, its text differs and the
hall takes the game again from line 1, acknowledging line 0, which sends the uplink back to
line 1 at once; from the game's line 1 when the box has fewer lines of it than the hall); so it does when the acknowledgement has not moved for STALL_S seconds
while lines are out (a line the hall dropped after a gap). Duplicates cost nothing: the hall
drops them by sequence number. A line counts as delivered only when the hall has
acknowledged it (stored on disk), not when the broker has it.

This is the host-side uplink (the simulator's flash folder, read from CPython with
paho-mqtt); the Pico W's firmware uplink is not built yet (docs/hall.md).
"""
import collections
import os
import threading
import time

from host_tools.hall import protocol

WINDOW = 32      # lines out at once, not yet acknowledged
STALL_S = 1.5    # no acknowledgement for this long while lines are out: send again from it
FIRST_ACK_S = 1.0   # after connecting, no acknowledgement (a hall that has none for this box
                    # yet) for this long: send from the first line of the oldest game
POLL_S = 0.05    # how often the journal is looked at for new lines
HEADER_LINES = 6


def _complete_lines(path):
    """The whole lines of a file (newline dropped); a torn last line is not one yet."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    end = data.rfind(b"\n") + 1
    return [raw.decode("utf-8", "replace") for raw in data[:end].split(b"\n")[:-1]]


class Flash:
    """The games on a box's flash folder, in the box's order, with their ids."""

    def __init__(self, flash):
        self.games = os.path.join(flash, "games")

    def list(self):
        """[(game id, lines, final)] oldest first: archived games (final) then the current
        one. A current game whose header (six lines) is not complete yet is left out."""
        archive = os.path.join(self.games, "archive")
        numbers = []
        try:
            for name in os.listdir(archive):
                if name.startswith("game-") and name.endswith(".txt") and name[5:-4].isdigit():
                    numbers.append(int(name[5:-4]))
        except OSError:
            pass
        out = []
        for number in sorted(numbers):
            lines = _complete_lines(os.path.join(archive, "game-%03d.txt" % number))
            if lines:
                out.append((self._id(number, lines), lines, True))
        lines = _complete_lines(os.path.join(self.games, "current.txt"))
        if lines and len(lines) >= HEADER_LINES:
            out.append((self._id(max(numbers, default=0) + 1, lines), lines, False))
        return out

    @staticmethod
    def _id(number, lines):
        return protocol.game_id(number, "".join(l + "\n" for l in lines[:HEADER_LINES]).encode())


def _key(game, seq):
    return (protocol.game_number(game), seq)


class Uplink:
    """Sends a box's journal to the hall (start(), stop()); `acked` is (game, seq) the hall
    has stored, `refused` the broker's reason when it turned the box's account down."""

    def __init__(self, flash, url):
        host, port, self.box, password = protocol.parse_url(url)
        self.flash = Flash(flash)
        self.acked = None          # (game or None, seq) from the hall
        self.boot = None
        self.refused = None
        self.sent = 0
        self._pos = None           # (game, seq) of the next line to send
        self._window = collections.deque()
        self._moved = time.monotonic()
        self._rewind = True
        self._connected = False
        self._connected_at = 0.0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.client = protocol.client("box-" + self.box, self.box, password, self)
        self.host, self.port = host, port
        self.thread = threading.Thread(target=self._run, daemon=True, name="uplink")

    def start(self):
        self.client.connect_async(self.host, self.port, keepalive=10)
        self.client.loop_start()
        self.thread.start()

    def stop(self):
        self._stop.set()
        self.thread.join(5)
        self.client.disconnect()
        self.client.loop_stop()

    # --- the broker's side ----------------------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            self.refused = str(reason)
            return
        self.refused = None
        with self._lock:
            self._connected = True
            self._connected_at = time.monotonic()
            self.boot = None        # wait for the hall's acknowledgement (retained)
            self._rewind = True
        client.subscribe(protocol.ack_topic(self.box), qos=1)

    def _on_disconnect(self, client, userdata, flags, reason, properties):
        with self._lock:
            self._connected = False

    def _on_message(self, client, userdata, message):
        try:
            boot, game, seq = protocol.read_ack(message.payload)
        except protocol.ProtocolError:
            return
        with self._lock:
            if boot != self.boot:
                self.boot = boot
                self._rewind = True
            if (game, seq) != self.acked:
                if self.acked and self.acked[0] == game and seq < self.acked[1]:
                    self._rewind = True   # the hall took the game again (a rewritten record)
                self.acked = (game, seq)
                self._moved = time.monotonic()
            if game is not None:
                key = _key(game, seq)
                while self._window and self._window[0] <= key:
                    self._window.popleft()

    # --- the journal's side ---------------------------------------------------------------

    def delivered(self):
        """Whether the hall, heard from on this connection, has acknowledged every whole
        line of the journal (with no journal: whether the broker has taken the box)."""
        games = self.flash.list()
        if not games:   # nothing to deliver: done once the broker has taken the box
            with self._lock:
                return self._ready()
        if self.boot is None:
            return False
        game, lines, _ = games[-1]
        return self.acked == (game, len(lines))

    def progress(self):
        """How far the hall has got, in words."""
        games = self.flash.list()
        total = sum(len(lines) for _, lines, _ in games)
        if self.acked is None or self.acked[0] is None:
            done = "nothing acknowledged" if self.acked else "no acknowledgement from the hall"
        else:
            game, seq = self.acked
            done = "the hall has line %d of game %s" % (seq, game)
        return "%s; the journal has %d line%s in %d game%s" % (
            done, total, "" if total == 1 else "s", len(games), "" if len(games) == 1 else "s")

    def _start_from(self, games):
        """Where to send from: the line the hall acknowledged last, again (a duplicate, which
        costs nothing, unless the box rewrote its record since: then its text differs and the
        hall takes the game again from line 1); the game's line 1 when the box has fewer lines
        of it than the hall (it was rewritten shorter: each line is compared again); the first
        line of the oldest game when the hall has none."""
        ids = [g for g, _, _ in games]
        game, seq = self.acked if self.acked else (None, 0)
        if game in ids:
            return game, max(1, seq if seq <= len(games[ids.index(game)][1]) else 1)
        return (ids[0], 1) if ids else None

    def _next(self, games, pos):
        """(game, seq, line, prev) at pos or after it, or None when there is nothing yet."""
        ids = [g for g, _, _ in games]
        game, seq = pos
        if game not in ids:   # its record is gone from the box: the next one it kept
            later = [g for g in ids if protocol.game_number(g) > protocol.game_number(game)]
            if not later:
                return None
            game, seq = later[0], 1
        i = ids.index(game)
        while True:
            _, lines, final = games[i]
            if seq <= len(lines):
                prev = None
                if seq == 1 and i > 0:
                    prev = [ids[i - 1], len(games[i - 1][1])]
                return ids[i], seq, lines[seq - 1], prev
            if not final or i + 1 >= len(games):
                return None
            i, seq = i + 1, 1

    def _ready(self):
        """Connected, and the hall's acknowledgement came (or none came in FIRST_ACK_S)."""
        return self._connected and (
            self.boot is not None or time.monotonic() - self._connected_at > FIRST_ACK_S)

    def _run(self):
        while not self._stop.is_set():
            with self._lock:
                ready = self._ready()
                if ready and self._window and time.monotonic() - self._moved > STALL_S:
                    self._rewind = True
                    self._moved = time.monotonic()
                rewind, self._rewind = self._rewind and ready, self._rewind and not ready
            if not ready:
                self._stop.wait(POLL_S)
                continue
            games = self.flash.list()
            if rewind or self._pos is None:
                with self._lock:
                    self._window.clear()
                self._pos = self._start_from(games)
            while self._pos is not None and len(self._window) < WINDOW:
                item = self._next(games, self._pos)
                if item is None:
                    break
                game, seq, line, prev = item
                self.client.publish(protocol.journal_topic(self.box),
                                    protocol.line_message(game, seq, line, prev), qos=1)
                self.sent += 1
                with self._lock:
                    if not self._window:
                        self._moved = time.monotonic()
                    self._window.append(_key(game, seq))
                self._pos = (game, seq + 1)
            self._stop.wait(POLL_S)


def check_url(url):
    """The URL of `--uplink`, or MatchboxError saying what is wrong with it."""
    from host_tools.errors import MatchboxError
    try:
        protocol.parse_url(url)
    except protocol.ProtocolError as exc:
        raise MatchboxError("--uplink", str(exc)) from None
    return url


def deliver(uplink, timeout):
    """Wait until the hall has acknowledged every journal line (then stop the uplink); after
    `timeout` seconds, or when the broker refuses the box's account, MatchboxError saying how
    far it got."""
    from host_tools.errors import MatchboxError
    deadline = time.monotonic() + timeout
    try:
        while not uplink.delivered():
            if uplink.refused and uplink.boot is None:
                raise MatchboxError("--uplink", "the broker refused box %r: %s" % (
                    uplink.box, uplink.refused))
            if time.monotonic() > deadline:
                raise MatchboxError("--uplink", "not all delivered after %g s: %s" % (
                    timeout, uplink.progress()))
            time.sleep(POLL_S)
    finally:
        uplink.stop()
