"""The game record: a line-based text notation, its reader and its writer.

    players 4            # header lines first, each at most once
    hands 14 14 14 14
    1: play 3 3          # actions; the seat prefix is optional but must be the seat to act
    play 6 9 as 9
    pass
    return

The reader replays actions into a Game as it goes, so a record of any length needs no
more memory than the game itself; the box journals in this notation too.
"""
from tycoon.cards import char, parse_char
from tycoon.game import Game, IllegalAction, PLAY, PASS, RETURN

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

HEADERS = ("players", "dealer", "expansion", "revolution", "sticks", "hands")


# Messages, numbered: on MicroPython one long string takes much less heap than a dozen
# string constants, and a message is only spelled out when a line is refused.
_MESSAGES = ("bad number '%s'|'%s' is not a card|seat %d: with no action|"
             "a seat prefix goes only before an action|unexpected '%s' after %s|"
             "unknown word '%s'|'as' needs a value|play needs at least one card|"
             "header '%s' after the first action|header '%s' repeated|%s needs one value|"
             "missing header 'players'")
_BAD_NUMBER = const(0)
_NOT_A_CARD = const(1)
_SEAT_ALONE = const(2)
_SEAT_ON_HEADER = const(3)
_UNEXPECTED = const(4)
_UNKNOWN_WORD = const(5)
_AS_ALONE = const(6)
_NO_CARDS = const(7)
_HEADER_LATE = const(8)
_HEADER_TWICE = const(9)
_ONE_VALUE = const(10)
_NO_PLAYERS = const(11)


class NotationError(Exception):
    """A line that is not valid notation. `message` says what is wrong."""

    def __init__(self, message, *args):
        if isinstance(message, int):
            message = _MESSAGES.split("|")[message] % args
        super().__init__(message)
        self.message = message


def _number(token):
    # ASCII digits only (CPython's isdigit() also accepts the likes of '²'): stripping the
    # digits off both ends leaves nothing only when every character is a digit
    if not token or token.strip("0123456789"):
        raise NotationError(_BAD_NUMBER, token)
    return int(token)


def _card(token):
    value = parse_char(token)
    if value < 0:
        raise NotationError(_NOT_A_CARD, token)
    return value


def parse_line(line):
    """Parse one line. Returns None (blank or comment), ("header", key, args, None) or
    ("action", kind, (faces, value), seat) with seat None when no prefix is given."""
    hash_at = line.find("#")
    if hash_at >= 0:
        line = line[:hash_at]
    words = line.split()
    if not words:
        return None
    seat = None
    colon = words[0].find(":")
    if colon >= 0:
        rest = words[0][colon + 1:]
        seat = _number(words[0][:colon])
        words = ([rest] if rest else []) + words[1:]
        if not words:
            raise NotationError(_SEAT_ALONE, seat)
    word = words[0].lower()
    args = words[1:]
    if word in HEADERS:
        if seat is not None:
            raise NotationError(_SEAT_ON_HEADER)
        return ("header", word, args, None)
    if word == "pass" or word == "return":
        if args:
            raise NotationError(_UNEXPECTED, args[0], word)
        return ("action", PASS if word == "pass" else RETURN, ((), None), seat)
    if word != "play":
        raise NotationError(_UNKNOWN_WORD, words[0])
    faces = []
    value = None
    i = 0
    while i < len(args):
        token = args[i]
        if token.lower() == "as":
            if i + 1 >= len(args):
                raise NotationError(_AS_ALONE)
            if i + 2 < len(args):
                raise NotationError(_UNEXPECTED, args[i + 2], "the value")
            value = _card(args[i + 1])
            break
        faces.append(_card(token))
        i += 1
    if not faces:
        raise NotationError(_NO_CARDS)
    return ("action", PLAY, (faces, value), seat)


class Reader:
    """Feeds record lines one at a time; `game` is the game after the last legal action."""

    def __init__(self):
        self.game = None
        self.lineno = 0
        self._header = {}   # key -> (value, lineno)

    def feed(self, line):
        """Read the next line. Raises NotationError or IllegalAction; the game is unchanged then."""
        self.lineno += 1
        parsed = parse_line(line)
        if parsed is None:
            return 0
        what, key, args, seat = parsed
        if what == "header":
            if self.game is not None:
                raise NotationError(_HEADER_LATE, key)
            if key in self._header:
                raise NotationError(_HEADER_TWICE, key)
            if key == "hands":   # how many counts it needs is the game's to check
                value = list(map(_number, args))
            elif len(args) != 1:
                raise NotationError(_ONE_VALUE, key)
            elif key == "expansion":
                value = args[0].lower()
            else:
                value = _number(args[0])
            self._header[key] = (value, self.lineno)
            return 0
        faces, value = args
        return self.finish().apply(key, faces, value, seat)

    def finish(self):
        """The game, started from the header at the first action (or at the end of a record
        with no actions, which still needs a valid header)."""
        if self.game is not None:
            return self.game
        header = self._header
        if "players" not in header:
            self.lineno = max(self.lineno, 1)
            raise NotationError(_NO_PLAYERS)
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


def load(lines):
    """Replay a record. Returns (game, error): error is None or (line, kind, code) where kind
    is 'syntax' (code: a message) or 'illegal' (code: the rule's code). The game is the
    state after the last legal action, None when the header itself is bad."""
    reader = Reader()
    try:
        for line in lines:
            reader.feed(line)
        reader.finish()
    except NotationError as err:
        return reader.game, (reader.lineno, "syntax", err.message)
    except IllegalAction as err:
        return reader.game, (reader.lineno, "illegal", err.code)
    return reader.game, None


def header_text(game):
    """The canonical header lines of a game, newline-terminated."""
    return "players %d\ndealer %d\nexpansion %s\nrevolution %d\nsticks %d\nhands %s\n" % (
        game.players, game.dealer, game.expansion, game.revolution_size, game.tokens,
        " ".join(map(str, game.hands)))


def action_text(kind, seat, faces=(), value=-1, explicit=False):
    """One canonical action line, newline-terminated: '2: play 6 9 as 9'."""
    if kind == PLAY:
        text = "%d: play %s" % (seat, " ".join(map(char, faces)))
        if explicit:
            text += " as " + char(value)
        return text + "\n"
    return "%d: %s\n" % (seat, "pass" if kind == PASS else "return")


def write(game):
    """The canonical record of a game: header, then one 'S: action' line per action."""
    parts = [header_text(game)]
    for action in game.actions():
        parts.append(action_text(*action))
    return "".join(parts)
