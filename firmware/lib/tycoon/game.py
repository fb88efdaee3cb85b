"""The game: setup, the three actions (play, pass, return), undo, and the rules that bind them.

State is plain data: lists of ints indexed by seat - 1, a few ints for the table, and a
bytearray log of the actions taken. Nothing here does I/O, reads a clock or draws at random.
An illegal action raises IllegalAction with one code and leaves the game exactly as it was.

Undo costs the same at any game length: every SNAP_EVERY actions the state is copied into a
bytearray of snapshots (4 bytes a seat and 30 more), so an undo restores the last snapshot
before the action and replays fewer than SNAP_EVERY actions from the log, through the same
code as the first time (so it cannot drift from the rules).
"""
from struct import pack, unpack_from

from tycoon.cards import card_type, const, cost

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
_BASE_DECK = const(56)
MAX_PLAY = const(5)
_MAX_STICKS = const(9999)
# Actions between two undo snapshots: an undo replays at most SNAP_EVERY - 1 of them. 16 keeps
# an UNDO's display within 20 ms of the key on a Pico (docs/performance.md) for 4 bytes a seat
# and 30 more every 16 actions.
SNAP_EVERY = const(16)
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

# An action as actions() and last_action() give it: (kind, seat, faces, value, explicit), faces
# a tuple of the faces as written, value the value it played as (-1 for a pass or a return),
# explicit True when the value was declared with 'as'. On CPython an Action, a named tuple with
# those fields (tycoon.named, a module the box never loads); on MicroPython a plain tuple in the
# same order (the named tuple type cost the box's heap 350-420 B, measured).
# The engine itself reads actions by position, on both. CPython is told by its name: a CPython
# may have a `micropython` module too (the dev venv's does). sys is looked up for this alone and
# the module keeps no name for it: on MicroPython a module's names are a table that grows in
# steps (29 slots, then 37: 128 B more on the unix port).
Action = None
if __import__("sys").implementation.name != "micropython":
    from tycoon.named import Action

# The action log (a bytearray, see _decode): one head byte per action,
#   bits 7-6 kind (PLAY, PASS, RETURN), bits 5-3 cards played (plays only), bits 2-0 seat - 1;
# a play adds a value byte (bit 7 set when the value was declared with 'as') and one byte per
# face, as written.
_KIND_SHIFT = const(6)
_COUNT_SHIFT = const(3)
_LOW3 = const(7)
_DECLARED = const(0x80)
_VALUE_MASK = const(0x7F)

# A snapshot for undo (struct format, % the seats three times): the log's length, where its
# last action starts, the sticks on the table, the seat to act, the top play's value (-1: none),
# count and seat, the seats that declined, the revolution, the face-up copies per card type,
# then each seat's cards, then each seat's rank, then each seat's sticks.
_SNAP = const("<HHHBbBBBB18s%dB%dB%dH")
_SNAP_BYTES = const(30)   # a snapshot's bytes: _SNAP's 30, then 4 a seat
# pack_game's head (% the seats): format 1, players, dealer, expansion, revolution size,
# matchsticks in the box, each seat's dealt cards, actions taken, snapshots in use.
PACKED_HEAD = const("<BBBBBH%dBHH")


# The rule codes, numbered: on MicroPython one long string takes much less heap than
# fourteen string constants, and a code is only spelled out when an action is refused.
_CODES = const("not-your-turn game-over must-return has-cards cannot-pass too-many-cards "
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
_SETUP = const("players must be 2 to 8|dealer must be a seat from 1 to %d|"
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


def deck_size(expansion="none"):
    """Cards in the deck: 56, plus 2 or 4 copies each of G and H."""
    return _BASE_DECK + 4 * EXPANSIONS.index(expansion)


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
        # the first setting the rules refuse, if any, numbered as in _SETUP
        fault = -1
        args = ()
        if not _PLAYERS_MIN <= players <= _PLAYERS_MAX:
            fault = _PLAYERS_RANGE
        elif not 1 <= dealer <= players:
            fault, args = _DEALER_RANGE, (players,)
        elif expansion not in EXPANSIONS:
            fault = _EXPANSION_NAME
        elif revolution != _REVOLUTION and revolution != _HOUSE_REVOLUTION:
            fault = _REVOLUTION_SIZE
        elif not 0 <= sticks <= _MAX_STICKS:
            fault = _STICKS_NEGATIVE
        else:
            if hands is None:
                hands = default_hands(players, expansion)
            deck = deck_size(expansion)
            if len(hands) != players:
                fault, args = _HANDS_COUNT, (players,)
            elif min(hands) < 0:
                fault = _HANDS_NEGATIVE
            elif sum(hands) > deck:
                fault, args = _HANDS_DECK, (sum(hands), deck)
            else:
                self.hands = tuple(hands)
        if fault >= 0:   # ValueError(message, setting), as _SETUP says
            message = _SETUP.split("|")[fault] % args
            raise ValueError(message, message.split()[0])
        self.players = players
        self.dealer = dealer
        self.expansion = expansion
        self.revolution_size = revolution
        self.total_sticks = sticks
        self.values = _BASE_VALUES if expansion == "none" else _BASE_VALUES + 2
        self._log = bytearray()
        self._snaps = bytearray()   # snapshot k-1: the state after k * SNAP_EVERY actions, as
                                    # many as the actions so far have made (undo cuts it)
        self._restore(0)

    def _restore(self, k):
        """Set the state after k * SNAP_EVERY actions: the deal when k is 0, else snapshot k
        (the log is left alone). Returns where in the log the next action starts."""
        n = self.players
        self.nactions = k * SNAP_EVERY
        self._last = 0           # where the last action starts in the log
        self.cards = list(self.hands)
        self.sticks = [1] * n
        self.ranks = [0] * n
        self.ranking = []
        self.revolution = False
        self.turn = self.dealer
        self.top_value = -1      # -1: the table is empty
        self.top_count = 0
        self.top_seat = 0
        self.table_sticks = 0    # sticks lying on the cards of this trick
        self._declined = 0       # bit seat-1 set: declined since the last play
        self._played = bytearray(18)  # face-up copies per card type
        if not k:
            return 0
        v = unpack_from(_SNAP % (n, n, n), self._snaps, (k - 1) * (_SNAP_BYTES + 4 * n))
        (start, self._last, self.table_sticks, self.turn, self.top_value, self.top_count,
         self.top_seat, self._declined, revolution, played) = v[:10]
        self.revolution = bool(revolution)
        self._played[:] = played
        self.cards = list(v[10:10 + n])
        self.ranks = ranks = list(v[10 + n:10 + 2 * n])
        self.sticks = list(v[10 + 2 * n:])
        ranking = [0] * n
        for i in range(n):
            if ranks[i]:
                ranking[ranks[i] - 1] = i + 1
        self.ranking = ranking[:n - ranks.count(0)]
        return start

    # The state is packed by functions of the module (_state, pack_game), not methods: two
    # methods more made every action about 8 % slower on the Pico's MicroPython (emulated).

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

    def supply(self):
        """The matchsticks in the supply: every stick is in the supply, a seat's or on the table
        (below zero when the strongest card made seats take sticks it did not have). Worked
        out, not kept: an instance's names are a table that grows in steps (23 slots, then
        29), and one name more costs every game 48 B of the box's heap."""
        return self.total_sticks - sum(self.sticks) - self.table_sticks

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
            if used > (gh_copies if face >= _BASE_VALUES else 4):   # G and H: past the base deck
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
        return self.apply(PLAY, faces, value, seat)

    def apply(self, kind, faces=(), value=None, seat=None):
        """Make an action of any kind: PLAY (faces, value), PASS or RETURN. The one place an
        action is made, for play/pass_turn/return_stick, undo, the box and the record reader.
        Returns event flags. A pass (take a stick) and a return (no cards left) are both the
        seat declining."""
        n = top = total = declared = 0   # a play's cards, value, cost and 'as' flag
        if kind == PLAY:
            if value is not None:
                declared = _DECLARED
            top, total = self.check_play(faces, value, seat)
            n = len(faces)
            p = self.turn - 1
        else:
            p = self._check_turn(seat, kind == PASS)
            if kind == PASS and self.top_value < 0:
                raise IllegalAction(_CANNOT_PASS)
        # Legal: before it changes anything, a snapshot for undo when one is due (the state
        # after k * SNAP_EVERY actions, see _restore).
        log = self._log
        k = self.nactions // SNAP_EVERY
        if not self.nactions % SNAP_EVERY and k and \
                len(self._snaps) < k * (_SNAP_BYTES + 4 * self.players):
            self._snaps += _state(self)   # snapshot k, after the k - 1 before it
        self._last = len(log)   # the log's layout is described above, at _KIND_SHIFT
        log.append(kind << _KIND_SHIFT | n << _COUNT_SHIFT | p)
        self.nactions += 1
        seat = p + 1
        events = 0
        if kind == PLAY:
            log.append(top | declared)
            log.extend(bytes(faces))
            self.cards[p] -= n
            self.sticks[p] -= total
            self.table_sticks += total
            for face in faces:
                self._played[card_type(face)] += 1
            self.top_value = top
            self.top_count = n
            self.top_seat = seat
            self._declined = 0
            if n >= self.revolution_size:
                # The order turns over before the forced pass below is judged: five F's played
                # as F start a revolution, so F is no longer the strongest and forces nothing.
                self.revolution = not self.revolution
                events = REVOLUTION
            out = not self.cards[p] and not self.sticks[p]
        else:
            step = 1 if kind == PASS else -1
            self.sticks[p] += step
            out = not self.sticks[p]   # only a return can take the last stick
        if out:
            self.ranking.append(seat)
            self.ranks[p] = len(self.ranking)
            events |= OUT
            if len(self.ranking) >= self.players - 1:
                # One seat left: it takes the last rank and the game is over. A play that
                # leaves one seat in the game ends it here, before any forced pass
                # (docs/rules.md: the reading RULINGS leaves open).
                last = self.next_seat(seat)
                self.ranking.append(last)
                self.ranks[last - 1] = self.players
                self.turn = 0
                return events | FINISHED
        if kind == PLAY:
            clear = top == self.strongest()
            if clear:
                # Strongest card: every other seat still in the game takes a stick. Rulings:
                # seats with no cards left take it too, and the supply may go below zero.
                for i in range(self.players):
                    if i != p and not self.ranks[i]:
                        self.sticks[i] += 1
                events |= FORCED
        elif self.top_value < 0:   # a dealer with no cards returned: the next seat is dealer
            clear = False
        else:
            # the table clears when every seat still in the game but the one on top declined
            self._declined |= 1 << p
            clear = True
            for i in range(self.players):
                if i != self.top_seat - 1 and not self.ranks[i] and not self._declined >> i & 1:
                    clear = False
                    break
        if not clear:
            self.turn = self.next_seat(seat)
            return events
        # Clear the table: the last player leads, or the next seat if they went out.
        self.table_sticks = 0
        seat = self.top_seat
        self.top_value = -1
        self.top_count = 0
        self.top_seat = 0
        self._declined = 0
        self.turn = self.next_seat(seat) if self.ranks[seat - 1] else seat
        return events | CLEARED

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
        size = _SNAP_BYTES + 4 * self.players
        k = min((self.nactions - 1) // SNAP_EVERY, len(self._snaps) // size)
        start = self._restore(k)
        again = log[start:last]
        log[start:] = b""
        self._snaps[k * size:] = b""   # the snapshots after k no longer hold
        for kind, _seat, faces, value, explicit in _decode(again):
            self.apply(kind, faces, value if explicit else None)
        return True

    def actions(self):
        """The actions so far, oldest first, each an Action (kind, seat, faces, value,
        explicit; a plain tuple on MicroPython)."""
        actions = _decode(self._log)
        return map(Action._make, actions) if Action else actions

    def last_action(self):
        """The last action as actions() gives it, or None before the first."""
        for action in _decode(self._log[self._last:]):
            return Action._make(action) if Action else action
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


def _state(game):
    # The state as an undo snapshot holds it (_SNAP; Game._restore reads it back).
    n = game.players
    return pack(_SNAP % (n, n, n), len(game._log), game._last, game.table_sticks, game.turn,
                game.top_value, game.top_count, game.top_seat, game._declined, game.revolution,
                game._played, *game.cards, *game.ranks, *game.sticks)


def pack_game(game):
    """The whole game as bytes (tycoon.notation.unpack makes the same game of them): the setup,
    the action count and the snapshots in use, the state as an undo snapshot holds it, the
    snapshots, then the action log. PACKED_HEAD % players is the head's format."""
    n = game.players
    return b"".join((pack(PACKED_HEAD % n, 1, n, game.dealer, EXPANSIONS.index(game.expansion),
                          game.revolution_size, game.total_sticks, *game.hands, game.nactions,
                          len(game._snaps) // (_SNAP_BYTES + 4 * n)),
                     _state(game), game._snaps, game._log))


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
