"""The game: setup, the three actions (play, pass, return), undo, and the rules that bind them.

State is plain data: lists of ints indexed by seat - 1, a few ints for the table, and a
bytearray log of the actions taken. Nothing here does I/O, reads a clock or draws at random.
An illegal action raises IllegalAction with one code and leaves the game exactly as it was.

Undo costs the same at any game length: every SNAP_EVERY actions the state is copied into a
bytearray of snapshots (4 bytes a seat and 30 more), so an undo restores the last snapshot
before the action and replays fewer than SNAP_EVERY actions from the log, through the same
code as the first time (so it cannot drift from the rules).
"""
from tycoon.cards import G, cost, card_type

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

PLAY = const(0)
PASS = const(1)
RETURN = const(2)

# Event flags returned by each action, for announcements.
REVOLUTION = const(1)   # the strength order turned over
FORCED = const(2)       # strongest value: everyone else took a stick
CLEARED = const(4)      # the table was cleared
OUT = const(8)          # the acting seat went out
FINISHED = const(16)    # one player left: the game is over

EXPANSIONS = ("none", "gh2", "gh4")
BASE_DECK = const(56)
MAX_PLAY = const(5)
MAX_STICKS = const(9999)
SNAP_EVERY = const(32)
_BASE_VALUES = const(16)   # values 0-F; the G/H expansion adds G and H
_PLAYERS_MIN = const(2)
_PLAYERS_MAX = const(8)
_REVOLUTION = const(5)
_HOUSE_REVOLUTION = const(4)
_STICKS = const(40)

# What a setup menu needs, read by index (one tuple takes far less heap than six module
# names): fewest and most players, the revolution size and the house rule's, the matchsticks
# in the box by default, and the values of the base deck.
BOUNDS = (_PLAYERS_MIN, _PLAYERS_MAX, _REVOLUTION, _HOUSE_REVOLUTION, _STICKS, _BASE_VALUES)

# The action log (a bytearray, see _decode): one head byte per action,
#   bits 7-6 kind (PLAY, PASS, RETURN), bits 5-3 cards played (plays only), bits 2-0 seat - 1;
# a play adds a value byte (bit 7 set when the value was declared with 'as') and one byte per
# face, as written.
_KIND_SHIFT = const(6)
_COUNT_SHIFT = const(3)
_LOW3 = const(7)
_DECLARED = const(0x80)
_VALUE_MASK = const(0x7F)


# The rule codes, numbered: on MicroPython one long string takes much less heap than
# fourteen string constants, and a code is only spelled out when an action is refused.
_CODES = ("not-your-turn game-over must-return has-cards cannot-pass too-many-cards "
          "not-in-hand wrong-count not-stronger no-such-value no-such-card "
          "impossible-shape mixed-values not-enough-sticks")
_NOT_YOUR_TURN = const(0)
_GAME_OVER = const(1)
_MUST_RETURN = const(2)
_HAS_CARDS = const(3)
_CANNOT_PASS = const(4)
_TOO_MANY_CARDS = const(5)
_NOT_IN_HAND = const(6)
_WRONG_COUNT = const(7)
_NOT_STRONGER = const(8)
_NO_SUCH_VALUE = const(9)
_NO_SUCH_CARD = const(10)
_IMPOSSIBLE_SHAPE = const(11)
_MIXED_VALUES = const(12)
_NOT_ENOUGH_STICKS = const(13)


class IllegalAction(Exception):
    """An action the rules forbid. `code` is one short word such as 'not-stronger'."""

    def __init__(self, code):
        if isinstance(code, int):
            code = _CODES.split()[code]
        super().__init__(code)
        self.code = code


# Setup errors, numbered like the rule codes. A setup error is ValueError(message, setting):
# the setting at fault rides along, so the notation reader can point at its header line.
_SETUP = ("players must be 2 to 8|dealer must be a seat from 1 to %d|"
          "expansion must be none, gh2 or gh4|revolution must be 5 or 4|"
          "sticks must be 0 to 9999|hands needs %d counts, one per seat|"
          "hands cannot be negative|hands hold %d cards, more than the deck's %d")
_PLAYERS_RANGE = const(0)
_DEALER_RANGE = const(1)
_EXPANSION_NAME = const(2)
_REVOLUTION_SIZE = const(3)
_STICKS_NEGATIVE = const(4)
_HANDS_COUNT = const(5)
_HANDS_NEGATIVE = const(6)
_HANDS_DECK = const(7)


def _setup_error(number, *args):
    message = _SETUP.split("|")[number] % args
    return ValueError(message, message.split()[0])


def deck_size(expansion="none"):
    """Cards in the deck: 56, plus 2 or 4 copies each of G and H."""
    return BASE_DECK + 4 * EXPANSIONS.index(expansion)


def default_hands(players, expansion="none"):
    """Cards per seat: 15 each for 2-3 players, else the whole deck, extras to the lowest seats."""
    if players <= 3:
        return [15] * players
    deck = deck_size(expansion)
    hands = [deck // players] * players
    for seat in range(deck % players):
        hands[seat] += 1
    return hands


class Game:
    """One game of Matchstick Tycoon, from the deal to the last rank.

    Seats are 1..players. `cards`, `sticks` and `ranks` are lists indexed by seat - 1; a rank
    of 0 means still playing. `turn` is the seat to act, 0 once the game is finished.
    """

    def __init__(self, players, dealer=1, expansion="none", revolution=_REVOLUTION,
                 sticks=_STICKS, hands=None):
        if not _PLAYERS_MIN <= players <= _PLAYERS_MAX:
            raise _setup_error(_PLAYERS_RANGE)
        if not 1 <= dealer <= players:
            raise _setup_error(_DEALER_RANGE, players)
        if expansion not in EXPANSIONS:
            raise _setup_error(_EXPANSION_NAME)
        if revolution != _REVOLUTION and revolution != _HOUSE_REVOLUTION:
            raise _setup_error(_REVOLUTION_SIZE)
        if not 0 <= sticks <= MAX_STICKS:
            raise _setup_error(_STICKS_NEGATIVE)
        if hands is None:
            hands = default_hands(players, expansion)
        if len(hands) != players:
            raise _setup_error(_HANDS_COUNT, players)
        if min(hands) < 0:
            raise _setup_error(_HANDS_NEGATIVE)
        if sum(hands) > deck_size(expansion):
            raise _setup_error(_HANDS_DECK, sum(hands), deck_size(expansion))
        self.players = players
        self.dealer = dealer
        self.expansion = expansion
        self.revolution_size = revolution
        self.tokens = sticks
        self.hands = tuple(hands)
        self.values = _BASE_VALUES if expansion == "none" else _BASE_VALUES + 2
        self._log = bytearray()
        self._snaps = bytearray()   # snapshot k-1: the state after k * SNAP_EVERY actions
        self._nsnaps = 0            # snapshots in _snaps that are valid
        self._reset()

    def _reset(self):
        """Back to the deal: the state before the first action (the log is left alone)."""
        self.nactions = 0
        self._last = 0           # where the last action starts in the log
        n = self.players
        self.cards = list(self.hands)
        self.sticks = [1] * n
        self.ranks = [0] * n
        self.ranking = []
        self.supply = self.tokens - n
        self.revolution = False
        self.turn = self.dealer
        self.top_value = -1      # -1: the table is empty
        self.top_count = 0
        self.top_seat = 0
        self.table_sticks = 0    # sticks lying on the cards of this trick
        self._declined = 0       # bit seat-1 set: declined since the last play
        self._played = bytearray(18)  # face-up copies per card type

    # --- snapshots for undo ---------------------------------------------------------------

    def _mark(self):
        """Before an action changes anything: snapshot the state when it is due."""
        k = self.nactions // SNAP_EVERY
        if self.nactions % SNAP_EVERY or k <= self._nsnaps:
            return
        n = self.players
        size = 30 + 4 * n
        snaps = self._snaps
        o = self._nsnaps * size
        if len(snaps) < o + size:
            snaps.extend(bytes(o + size - len(snaps)))
        log = len(self._log)
        snaps[o] = log >> 8
        snaps[o + 1] = log & 255
        snaps[o + 2] = self._last >> 8
        snaps[o + 3] = self._last & 255
        snaps[o + 4] = self.turn
        snaps[o + 5] = self.top_value + 1
        snaps[o + 6] = self.top_count
        snaps[o + 7] = self.top_seat
        snaps[o + 8] = self.table_sticks >> 8
        snaps[o + 9] = self.table_sticks & 255
        snaps[o + 10] = self._declined
        snaps[o + 11] = 1 if self.revolution else 0
        snaps[o + 12:o + 30] = self._played
        o += 30
        for i in range(n):
            snaps[o] = self.cards[i]
            snaps[o + 1] = self.ranks[i]
            snaps[o + 2] = self.sticks[i] >> 8
            snaps[o + 3] = self.sticks[i] & 255
            o += 4
        self._nsnaps = k

    def _restore(self, k):
        """The state after k * SNAP_EVERY actions (snapshot k, or the deal when k is 0).
        Returns where in the log the next action starts."""
        self._reset()
        if not k:
            return 0
        n = self.players
        snaps = self._snaps
        o = (k - 1) * (30 + 4 * n)
        self.nactions = k * SNAP_EVERY
        self._last = snaps[o + 2] << 8 | snaps[o + 3]
        self.turn = snaps[o + 4]
        self.top_value = snaps[o + 5] - 1
        self.top_count = snaps[o + 6]
        self.top_seat = snaps[o + 7]
        self.table_sticks = snaps[o + 8] << 8 | snaps[o + 9]
        self._declined = snaps[o + 10]
        self.revolution = bool(snaps[o + 11])
        self._played[:] = snaps[o + 12:o + 30]
        o += 30
        total = self.table_sticks
        ranking = [0] * n
        out = 0
        for i in range(n):
            self.cards[i] = snaps[o]
            rank = snaps[o + 1]
            self.ranks[i] = rank
            if rank:
                ranking[rank - 1] = i + 1
                out += 1
            self.sticks[i] = snaps[o + 2] << 8 | snaps[o + 3]
            total += self.sticks[i]
            o += 4
        self.ranking = ranking[:out]
        self.supply = self.tokens - total   # every stick is in the supply, a seat or the table
        o = (k - 1) * (30 + 4 * n)
        return snaps[o] << 8 | snaps[o + 1]

    # --- what the table and the order look like -------------------------------------------

    @property
    def finished(self):
        return self.turn == 0

    @property
    def table(self):
        """(value, count, seat, sticks) of the play on top, or None when the table is empty."""
        if self.top_value < 0:
            return None
        return (self.top_value, self.top_count, self.top_seat, self.table_sticks)

    def strongest(self):
        """The strongest value of the order in force: F (H with G/H), or 0 in a revolution."""
        return 0 if self.revolution else self.values - 1

    def beats(self, value, other):
        """True when `value` is stronger than `other` in the order in force."""
        return value < other if self.revolution else value > other

    def next_seat(self, seat):
        """The next seat clockwise after `seat` that is still in the game."""
        for _ in range(self.players):
            seat = seat % self.players + 1
            if not self.ranks[seat - 1]:
                return seat
        return 0

    def must_return(self):
        """True when the seat to act has no cards and so can only return a stick."""
        return self.turn != 0 and self.cards[self.turn - 1] == 0

    # --- actions ----------------------------------------------------------------------------

    def check_play(self, faces, value=None, seat=None):
        """Validate a play without making it. Returns (value, sticks it costs)."""
        p = self._check_turn(seat, True)
        n = len(faces)
        if n > MAX_PLAY:
            raise IllegalAction(_TOO_MANY_CARDS)
        if n == 0 or (self.top_value >= 0 and n != self.top_count):
            raise IllegalAction(_WRONG_COUNT)
        if n > self.cards[p]:
            raise IllegalAction(_NOT_IN_HAND)
        for face in faces:
            if not 0 <= face < self.values:
                raise IllegalAction(_NO_SUCH_CARD)
        if value is None:
            value = faces[0]
            for face in faces:
                if face != value:
                    raise IllegalAction(_MIXED_VALUES)
        if not 0 <= value < self.values:
            raise IllegalAction(_NO_SUCH_VALUE)
        gh_copies = 2 * EXPANSIONS.index(self.expansion)
        total = 0
        for face in faces:
            kind = card_type(face)
            used = self._played[kind]
            for other in faces:
                if card_type(other) == kind:
                    used += 1
            if used > (gh_copies if face >= G else 4):
                raise IllegalAction(_NO_SUCH_CARD)
            c = cost(face, value)
            if c is None:
                raise IllegalAction(_IMPOSSIBLE_SHAPE)
            total += c
        if self.top_value >= 0 and not self.beats(value, self.top_value):
            raise IllegalAction(_NOT_STRONGER)
        if total > self.sticks[p]:
            raise IllegalAction(_NOT_ENOUGH_STICKS)
        return value, total

    def play(self, faces, value=None, seat=None):
        """Play cards of `faces` (as written) as `value` (default: the face). Returns event flags."""
        explicit = value is not None
        value, total = self.check_play(faces, value, seat)
        self._mark()
        p = self.turn - 1
        n = len(faces)
        log = self._log
        self._last = len(log)
        log.append(PLAY << _KIND_SHIFT | n << _COUNT_SHIFT | p)
        log.append(value | (_DECLARED if explicit else 0))
        log.extend(bytes(faces))
        self.nactions += 1
        self.cards[p] -= n
        self.sticks[p] -= total
        self.table_sticks += total
        for face in faces:
            self._played[card_type(face)] += 1
        self.top_value = value
        self.top_count = n
        self.top_seat = p + 1
        self._declined = 0
        events = 0
        if n >= self.revolution_size:
            # The order turns over before the forced pass below is judged: five F's played
            # as F start a revolution, so F is no longer the strongest and forces nothing.
            self.revolution = not self.revolution
            events |= REVOLUTION
        if not self.cards[p] and not self.sticks[p]:
            events |= self._go_out(p + 1)
            # A play that leaves one seat in the game ends it here, before any forced pass
            # (docs/rules.md: the reading RULINGS leaves open).
            if events & FINISHED:
                return events
        if value == self.strongest():
            # Strongest card: every other seat still in the game takes a stick. Rulings: seats
            # with no cards left take it too, and the supply may go below zero.
            for i in range(self.players):
                if i != p and not self.ranks[i]:
                    self.sticks[i] += 1
                    self.supply -= 1
            return events | FORCED | self._clear()
        self.turn = self.next_seat(p + 1)
        return events

    def apply(self, kind, faces=(), value=None, seat=None):
        """Make an action of any kind: PLAY (faces, value), PASS or RETURN. The one dispatch
        on the kind, for undo, the box and the record reader. Returns event flags.

        A pass (take a stick) and a return (no cards left) are both the seat declining."""
        if kind == PLAY:
            return self.play(faces, value, seat)
        p = self._check_turn(seat, kind == PASS)
        if kind == PASS and self.top_value < 0:
            raise IllegalAction(_CANNOT_PASS)
        self._mark()
        self._last = len(self._log)
        self._log.append(kind << _KIND_SHIFT | p)
        self.nactions += 1
        step = 1 if kind == PASS else -1
        self.sticks[p] += step
        self.supply -= step
        seat = p + 1
        events = 0
        if not self.sticks[p]:   # only a return can take the last stick
            events = self._go_out(seat)
            if events & FINISHED:
                return events
        if self.top_value < 0:   # a leader with no cards returned: the next seat leads
            self.turn = self.next_seat(seat)
            return events
        self._declined |= 1 << p
        for i in range(self.players):
            if i != self.top_seat - 1 and not self.ranks[i] and not self._declined >> i & 1:
                self.turn = self.next_seat(seat)
                return events
        return events | self._clear()

    def pass_turn(self, seat=None):
        """Pass: decline to play and take one matchstick. Returns event flags."""
        return self.apply(PASS, (), None, seat)

    def return_stick(self, seat=None):
        """Return one matchstick: the only action of a seat with no cards. Returns event flags."""
        return self.apply(RETURN, (), None, seat)

    def undo(self):
        """Take back the last action. Returns False when there is none. Costs the same at
        any game length: the last snapshot, then fewer than SNAP_EVERY actions replayed."""
        log = self._log
        if not log:
            return False
        last = self._last
        k = (self.nactions - 1) // SNAP_EVERY
        if k > self._nsnaps:
            k = self._nsnaps
        start = self._restore(k)
        again = log[start:last]
        log[start:] = b""
        self._nsnaps = k
        for kind, _seat, faces, value, explicit in _decode(again):
            self.apply(kind, faces, value if explicit else None)
        return True

    def actions(self):
        """The actions so far, oldest first: (kind, seat, faces, value, explicit 'as')."""
        return _decode(self._log)

    def last_action(self):
        """The last action as actions() gives it, or None before the first."""
        for action in _decode(self._log[self._last:]):
            return action
        return None

    def __len__(self):
        return self.nactions

    # --- rules ------------------------------------------------------------------------------

    def _check_turn(self, seat, with_cards):
        """The index of the seat to act, when `seat` (None: whoever it is) may act now: play or
        pass `with_cards`, or return a stick without."""
        if not self.turn:
            raise IllegalAction(_GAME_OVER)
        if seat is not None and seat != self.turn:
            raise IllegalAction(_NOT_YOUR_TURN)
        p = self.turn - 1
        if with_cards and not self.cards[p]:
            raise IllegalAction(_MUST_RETURN)
        if self.cards[p] and not with_cards:
            raise IllegalAction(_HAS_CARDS)
        return p

    def _clear(self):
        """Clear the table; the last player leads, or the next seat if they went out."""
        self.supply += self.table_sticks
        self.table_sticks = 0
        seat = self.top_seat
        self.top_value = -1
        self.top_count = 0
        self.top_seat = 0
        self._declined = 0
        self.turn = self.next_seat(seat) if self.ranks[seat - 1] else seat
        return CLEARED

    def _go_out(self, seat):
        self.ranking.append(seat)
        self.ranks[seat - 1] = len(self.ranking)
        if len(self.ranking) < self.players - 1:
            return OUT
        last = self.next_seat(seat)
        self.ranking.append(last)
        self.ranks[last - 1] = self.players
        self.turn = 0
        return OUT | FINISHED


def _decode(log):
    # The byte layout is described above, at _KIND_SHIFT.
    i = 0
    while i < len(log):
        head = log[i]
        kind = head >> _KIND_SHIFT
        seat = (head & _LOW3) + 1
        if kind == PLAY:
            n = head >> _COUNT_SHIFT & _LOW3
            value = log[i + 1]
            yield kind, seat, tuple(log[i + 2:i + 2 + n]), value & _VALUE_MASK, bool(value & _DECLARED)
            i += 2 + n
        else:
            yield kind, seat, (), -1, False
            i += 1
