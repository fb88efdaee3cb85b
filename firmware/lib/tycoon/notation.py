"""The game record: a line-based text notation, its one reader (from bytes) and its writer.

    players 4            # header lines first, each at most once
    hands 14 14 14 14
    1: play 3 3          # actions; the seat prefix is optional but must be the seat to act
    play 6 9 as 9
    pass
    return

Every reader of a record - the box's journal, `matchbox replay` on either runtime, `report`,
`sim --journal` - goes through `read` (a file) or `Reader.feed_bytes` (one line's bytes), so
the same bytes get the same verdict everywhere: line length, strict UTF-8 (checked by hand:
MicroPython's decode lets some invalid sequences through), the byte-order mark, CRLF, a last
line without a newline, white space (ASCII space and tab only), number sizes and the journal's
checksum tags, and the repair of a damaged line by its tag (tycoon.repair, imported only for
such a line; it reads the lines after it ahead, so a file is read through `Reader.next_line`).
A line's grammar and tag are tycoon.line's (docs/notation.md writes them down). The reader replays actions into a Game as it
goes, so a record of any length needs no more memory than the game itself.

The lines the box writes come from tycoon.writer (offered here too, so every tool finds the
whole notation in this module): the box keeps only the writer while a game is played, and
imports this module to read its journal at boot only.
"""
from struct import calcsize, unpack_from

from tycoon.cards import const
from tycoon.game import (Action, EXPANSIONS, PACKED_HEAD, SNAP_EVERY, Game, IllegalAction, PASS,
                         RETURN, _decode, _state)
from tycoon.line import LIMIT, UNDO, NotationError, _crc16, number, parse_line, untag, utf8
from tycoon.writer import HEADERS, action_text, crc16, header_text, tagged

REPAIRS = const(8)  # lines of a record repaired by their tags at most (a Pico's boot stays short)

# The reader's own messages (a header, the record as a whole), numbered as tycoon.line numbers
# those of a line's grammar and tag; then unpack's, each said after "packed game: ".
_MESSAGES = const("header '%s' after the first action|header '%s' repeated|%s needs one value|"
                  "missing header 'players'|not UTF-8 text|line longer than %d bytes|"
                  "last line without a newline (cut short: the box drops it)|nothing to undo|"
                  "not format 1|%d players|%d bytes, too short|expansion %d|"
                  "%d bytes, its parts make %d|%d snapshots for %d actions|"
                  "snapshot %d is not at action %d|the log holds %d bytes, snapshot %d is at %d|"
                  "action %d is illegal|the log holds %d actions, not %d|"
                  "the state is not what its actions make")
_HEADER_LATE = const(0)
_HEADER_TWICE = const(1)
_ONE_VALUE = const(2)
_NO_PLAYERS = const(3)
_NOT_UTF8 = const(4)
_TOO_LONG = const(5)
_TORN = const(6)
_NO_UNDO = const(7)
_NOT_FORMAT_1 = const(8)   # unpack's, from here on
_PLAYERS = const(9)
_TOO_SHORT = const(10)
_EXPANSION = const(11)
_PARTS = const(12)
_SNAPSHOTS = const(13)
_SNAPSHOT_AT = const(14)
_LOG_BYTES = const(15)
_ILLEGAL = const(16)
_LOG_ACTIONS = const(17)
_STATE = const(18)


def _refused(n, *args):
    # The error of message n above: a NotationError for the reader's, for unpack's the
    # ValueError of a packed game that is not one.
    message = _MESSAGES.split("|")[n] % args
    if n < _NOT_FORMAT_1:
        return NotationError(message)
    return ValueError("packed game: " + message)


# Where a record stops being readable, as a value: (line, kind, code), a named tuple on
# CPython (tycoon.named), a plain tuple on MicroPython (as tycoon.game.Action). line is
# 1-based (0 for a file that cannot be read at all), kind 'syntax' (code: what is wrong, in
# words) or 'illegal' (code: the rule's code, as IllegalAction.code).
RecordError = None
if Action is not None:   # CPython: tycoon.game tells the runtimes apart, once
    from tycoon.named import RecordError


class Reader:
    """Feeds record lines one at a time; `game` is the game after the last legal action.

    `lineno` counts the lines fed, `size` the bytes of the lines accepted by feed_bytes,
    `tagged` is the number of the first line with a checksum tag (0: none yet; then every
    later line needs one; 1 in a record the box wrote, a larger number after lines typed by
    hand), `header` the header lines read, `kind` what the last line was
    ("header", "action", "undo"; None for a blank line or one that does not parse),
    `repaired` the numbers of the damaged lines its tag repaired (docs/notation.md).
    """

    def __init__(self):
        self.game = None
        self.lineno = 0
        self.size = 0
        self.tagged = 0
        self.undos = 0
        self.kind = None
        self.header = {}    # header lines read: key -> (value, lineno)
        self.repaired = []  # numbers of the damaged lines repaired by their tags (_repair)
        self.source = None  # the record's file (next_line): a repair looks at the lines after
        self.ahead = []     # lines a repair read ahead of it, fed next
        self.tick = None    # read's tick, for a repair's long search too

    def resume(self, game, lineno, size):
        """Go on after the first `lineno` lines (`size` bytes) of a record written by the box
        (a whole tagged header, tagged lines) that made `game`, as if they had been fed."""
        self.game = game
        self.lineno = lineno
        self.size = size
        self.tagged = 1
        for key in HEADERS:   # the values are in the game
            self.header[key] = (None, 0)
        return self

    def next_line(self, f):
        """The next line of the record in the file `f` (anything with readline(n)), b"" at its
        end: the lines a repair read ahead come first. Read a file through it to let
        feed_bytes repair a damaged line (it looks at the lines after it)."""
        self.source = f
        if self.ahead:
            return self.ahead.pop(0)
        return f.readline(LIMIT)

    def feed_bytes(self, raw, repair=True):
        """Read the next line from its bytes, the newline included (readline(LIMIT) of a
        file, or next_line). Raises NotationError or IllegalAction; the game is unchanged
        then. A damaged line is repaired by its tag (docs/notation.md) when the reader reads
        its file through next_line, unless `repair` is False. One call a line, the short way
        and the long way in it: a Pico resuming its journal pays for every call."""
        try:
            n = len(raw)
            game = self.game
            # 'S: pass  #~hhhh' and 'S: return  #~hhhh' with the right tag, most lines of a
            # long journal, the short way (a Pico resuming reads every line at power-up):
            # exactly what the long way below makes of them; any other line, or a wrong tag,
            # takes the long way.
            if (n == 16 or n == 18) and game is not None and raw[n - 9:n - 5] == b"  #~" \
                    and raw[1:3] == b": " and 48 <= raw[0] <= 57 and raw[n - 1] == 10 \
                    and raw[3:n - 9] == (b"pass" if n == 16 else b"return") \
                    and raw[n - 5:n - 1] == ("%04x" % _crc16(raw[:n - 9], _crc16(
                        ("%d|" % (self.lineno + 1)).encode()))).encode():
                self.lineno += 1
                self.kind = "action"
                self.tagged = self.tagged or self.lineno
                events = game.apply(PASS if n == 16 else RETURN, (), None, raw[0] - 48)
                self.size += n
                return events
            self.kind = None
            end = n - 1
            if n > LIMIT or not n or raw[end] != 10:
                # the last line (readline stops short only at the end): torn by a power cut
                # in an append, unless no line so far had a tag: the box tags a record typed
                # by hand before it appends to it, so such a record's last line is as typed
                if n >= LIMIT or not n or self.tagged:
                    self.lineno += 1
                    if n >= LIMIT:
                        raise _refused(_TOO_LONG, LIMIT)
                    raise _refused(_TORN)
                end = n
            if end and raw[end - 1] == 13:   # CRLF
                end -= 1
            start = 0
            if not self.lineno and raw[:3] == b"\xef\xbb\xbf":   # a byte-order mark: line 1
                start = 3
            # max() runs in C: a line of ASCII (all the box writes) needs no check byte by byte
            if max(raw) >= 0x80 and not utf8(raw, end):
                self.lineno += 1
                raise _refused(_NOT_UTF8)
            events = self.feed(raw[start:end].decode())
            self.size += n
            return events
        except (NotationError, IllegalAction):
            events = self._repair(raw) if repair else None
            if events is None:
                raise
            self.size += len(raw)
            return events

    def _repair(self, raw):
        # A line of a tagged record that failed: read as the one legal action its tag allows,
        # when the lines after it check out (tycoon.repair, loaded only now). Needs the file:
        # a reader fed without next_line cannot look at the lines after it, and repairs none.
        if self.source is None or not self.tagged or len(self.repaired) >= REPAIRS:
            return None
        from tycoon.repair import repair
        return repair(self, raw)

    def feed(self, line):
        """Read the next line of text. Raises NotationError or IllegalAction; the game is
        unchanged then."""
        self.lineno += 1
        self.kind = None
        line, tag = untag(line, self.lineno, self.tagged)
        parsed = parse_line(line)
        if tag and not self.tagged:
            self.tagged = self.lineno
        if parsed is None:
            return 0
        what, key, args, seat = parsed
        self.kind = what
        if what == "header":
            if self.game is not None:
                raise _refused(_HEADER_LATE, key)
            if key in self.header:
                raise _refused(_HEADER_TWICE, key)
            if key == "hands":   # how many counts it needs is the game's to check
                value = list(map(number, args))
            elif len(args) != 1:
                raise _refused(_ONE_VALUE, key)
            elif key == "expansion":
                value = args[0].lower()
            else:
                value = number(args[0])
            self.header[key] = (value, self.lineno)
            return 0
        game = self.finish()
        if key == UNDO:
            if not game.undo():
                raise _refused(_NO_UNDO)
            self.undos += 1
            return 0
        faces, value = args
        return game.apply(key, faces, value, seat)

    def finish(self):
        """The game, started from the header at the first action (or at the end of a record
        with no actions, which still needs a valid header)."""
        if self.game is not None:
            return self.game
        header = self.header
        if "players" not in header:
            self.lineno = max(self.lineno, 1)
            raise _refused(_NO_PLAYERS)
        setup = {}
        for key in header:
            setup[key] = header[key][0]
        try:
            self.game = Game(**setup)
        except ValueError as err:
            message, setting = err.args   # the engine names the setting at fault
            self.lineno = header[setting][1]
            raise NotationError(message)
        return self.game

    def read(self, f, tick=None):
        """Read the rest of a record from a file opened 'rb' (or anything with readline(n)).
        Returns None, or the first problem as a RecordError (line, kind, code). Stops at the
        first problem. `tick`, if given, is called every 32 lines (the box feeds its watchdog
        with it)."""
        self.tick = tick
        self.source = f   # next_line's, written out here: a call less a line
        ahead = self.ahead
        try:
            while True:
                raw = ahead.pop(0) if ahead else f.readline(LIMIT)
                if not raw:
                    break
                self.feed_bytes(raw)
                if tick is not None and not self.lineno & 31:
                    tick()
            self.finish()
        except NotationError as err:
            error = (self.lineno, "syntax", err.message)
        except IllegalAction as err:
            error = (self.lineno, "illegal", err.code)
        else:
            return None
        return RecordError(*error) if RecordError else error


def read(f):
    """Replay a record from a file opened 'rb'. Returns (game, error) as `load`, plus the
    reader (its lineno, size and tagged say where reading stopped)."""
    reader = Reader()
    error = reader.read(f)
    return reader.game, error, reader


class _Lines:
    # Lines of text as a file of their bytes: each line one readline, its newline added.
    def __init__(self, lines):
        self.lines = iter(lines)

    def readline(self, size):   # size as a file's; the lines come whole
        for line in self.lines:
            raw = line.encode()
            return raw if raw[-1:] == b"\n" else raw + b"\n"
        return b""


def load(lines):
    """Replay a record given as lines of text, each with or without its line end. Returns
    (game, error): error is None or a RecordError (line, kind, code). The game is the state after the last legal
    action, None when the header itself is bad. Each line goes through the same byte-level
    checks as a file's (`read`)."""
    reader = Reader()
    error = reader.read(_Lines(lines))
    return reader.game, error


def unpack(data):
    """The game tycoon.game.pack_game made `data` of. Raises ValueError, saying what is wrong, when the
    bytes are not such a game: a setup the rules refuse, parts whose sizes do not add up,
    snapshots out of place in the log, or actions after the last snapshot that the rules
    refuse (they are replayed here) or that do not make the state packed."""
    if len(data) < 2 or data[0] != 1:
        raise _refused(_NOT_FORMAT_1)
    n = data[1]
    if not 2 <= n <= 8:
        raise _refused(_PLAYERS, n)
    head = PACKED_HEAD % n
    at = calcsize(head)   # the state, then the snapshots, then the log
    size = 30 + 4 * n
    if len(data) < at + size:
        raise _refused(_TOO_SHORT, len(data))
    v = unpack_from(head, data, 0)
    if v[3] >= len(EXPANSIONS):
        raise _refused(_EXPANSION, v[3])
    nactions, nsnaps = v[6 + n:]
    game = Game(n, v[2], EXPANSIONS[v[3]], v[4], v[5], list(v[6:6 + n]))
    state = bytes(data[at:at + size])
    length, last = unpack_from("<HH", state, 0)
    logat = at + size * (1 + nsnaps)
    if len(data) != logat + length:
        raise _refused(_PARTS, len(data), logat + length)
    if nsnaps > nactions // SNAP_EVERY or nsnaps < (nactions - 1) // SNAP_EVERY:
        raise _refused(_SNAPSHOTS, nsnaps, nactions)
    snaps = game._snaps = bytearray(data[at + size:logat])
    log = game._log = bytearray(data[logat:])
    # Each snapshot where its action starts: 16 actions take 16 to 112 bytes of log (a play
    # takes 3 to 7). The log before the last snapshot is checked no further (the CRC of the
    # file that holds it guards its bytes): one look an action took 17 ms of a Pico's boot.
    i = 0
    for k in range(nsnaps):
        at = unpack_from("<H", snaps, k * size)[0]
        if not SNAP_EVERY <= at - i <= 7 * SNAP_EVERY:
            raise _refused(_SNAPSHOT_AT, k + 1, (k + 1) * SNAP_EVERY + 1)
        i = at
    if i > length:
        raise _refused(_LOG_BYTES, length, nsnaps, i)
    # the actions after the last snapshot, through the rules: they must make the state packed
    try:
        i = game._restore(nsnaps)
        tail = log[i:]
        log[i:] = b""
        for kind, seat, faces, value, explicit in _decode(tail):
            if kind > RETURN or seat > n:
                raise IndexError
            game.apply(kind, faces, value if explicit else None, seat)
    except (IllegalAction, IndexError):   # a snapshot the rules cannot go on from, too
        raise _refused(_ILLEGAL, game.nactions + 1)
    if game.nactions != nactions:
        raise _refused(_LOG_ACTIONS, game.nactions, nactions)
    if log[i:] != tail or _state(game) != state or game._last != last:
        raise _refused(_STATE)
    return game


def write(game):
    """The canonical record of a game: header, then one 'S: action' line per action."""
    parts = [header_text(game)]
    for action in game.actions():
        parts.append(action_text(*action))
    return "".join(parts)
