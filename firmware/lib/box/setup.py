"""The new-game menu: players, first dealer, expansion, revolution size, sticks, hands.

One item at a time: hex keys set its value, PLAY goes to the next item (and starts the game
after the last hand), DEL goes back, UNDO restores the item's default. On a two-digit item
the first digit typed replaces the value, as on a calculator, and the next ones shift in from
the right: on 15, 9 makes 9, then 4 makes 94; coming back to the item (or UNDO) starts
replacing again. The menu's keys come here from the app (box.app.App.key), and a new game
starts here.
"""
import box
from box import keys as K
from box import panels
from box.buzzer import REJECT
from tycoon.game import BOUNDS, EXPANSIONS, Game, default_hands, deck_size

PLAYERS = 0
DEALER = 1
EXPANSION = 2
REVOLUTION = 3
STICKS = 4
HANDS = 5   # items 5.. are the seats' hands

_LABELS = (b"PL", b"dL", b"Gh", b"rE", b"St")

# The engine's bounds and defaults; the menu opens at 4 players; two-digit items stop at 99.
_PLAYERS_MIN, _PLAYERS_MAX, _REVOLUTION, _HOUSE_REVOLUTION, _STICKS, _BASE_VALUES = BOUNDS
_PLAYERS = 4
_TWO_DIGITS = 99

# what next() did
MOVED = 0       # to the next item
COMPLETE = 1    # past the last hand: the game can start
TOO_MANY = 2    # the hands hold more cards than the deck: stays on the last hand


class Setup:
    def __init__(self):
        self.players = _PLAYERS
        self.dealer = 1
        self.expansion = 0      # index into EXPANSIONS
        self.revolution = _REVOLUTION
        self.sticks = _STICKS
        self.hands = [0] * _PLAYERS_MAX
        self.item = 0
        self.typed = False      # a digit was typed on this item since it was reached
        self._deal()

    def _deal(self):
        hands = default_hands(self.players, EXPANSIONS[self.expansion])
        for i in range(_PLAYERS_MAX):
            self.hands[i] = hands[i] if i < self.players else 0

    def restore(self, saved):
        """Take the last setup remembered by the journal (a dict); ignores anything odd."""
        try:
            players = int(saved["players"])
            expansion = EXPANSIONS.index(saved["expansion"])
            revolution = int(saved["revolution"])
            hands = [int(n) for n in saved["hands"]]
            if not _PLAYERS_MIN <= players <= _PLAYERS_MAX or len(hands) != players \
                    or revolution != _REVOLUTION and revolution != _HOUSE_REVOLUTION:
                return
            if sum(hands) > deck_size(EXPANSIONS[expansion]):
                return
            dealer = int(saved["dealer"])
            sticks = int(saved["sticks"])
        except (KeyError, ValueError, TypeError):
            return
        self.players = players
        self.dealer = dealer if 1 <= dealer <= players else 1
        self.expansion = expansion
        self.revolution = revolution
        self.sticks = min(max(sticks, 0), _TWO_DIGITS)
        for i in range(_PLAYERS_MAX):
            self.hands[i] = hands[i] if i < players else 0

    def values(self):
        """How many values the chosen deck has (16, or 18 with G and H)."""
        return _BASE_VALUES + 2 if self.expansion else _BASE_VALUES

    def begin(self):
        """Open the menu at its first item, keeping the values of the last setup."""
        self.item = 0
        self.typed = False

    def digit(self, d):
        """A hex key pressed on the current item. Returns False when the value is refused."""
        item = self.item
        if item == PLAYERS:
            if not _PLAYERS_MIN <= d <= _PLAYERS_MAX:
                return False
            self.players = d
            if self.dealer > d:
                self.dealer = 1
            self._deal()
        elif item == DEALER:
            if not 1 <= d <= self.players:
                return False
            self.dealer = d
        elif item == EXPANSION:
            if d % 2 or d // 2 >= len(EXPANSIONS):   # 0, 2 or 4 copies of G and H
                return False
            self.expansion = d // 2
            self._deal()
        elif item == REVOLUTION:
            if d != _REVOLUTION and d != _HOUSE_REVOLUTION:
                return False
            self.revolution = d
        elif d > 9:
            return False
        else:   # two digits: the first typed replaces the value, the next shift in
            t = self.typed
            self.typed = True
            if item == STICKS:
                self.sticks = (self.sticks % 10 * 10 if t else 0) + d
            else:
                seat = item - HANDS
                self.hands[seat] = (self.hands[seat] % 10 * 10 if t else 0) + d
        return True

    def next(self):
        """Go to the next item: MOVED, COMPLETE (the game can start) or TOO_MANY. The next
        digit typed replaces the value (of this item too, when it stays)."""
        self.typed = False
        if self.item < HANDS + self.players - 1:
            self.item += 1
            return MOVED
        total = 0
        for i in range(self.players):
            total += self.hands[i]
        if total > deck_size(EXPANSIONS[self.expansion]):
            return TOO_MANY
        self.item = 0
        return COMPLETE

    def back(self):
        if self.item:
            self.item -= 1
        self.typed = False

    def reset_item(self):
        item = self.item
        self.typed = False
        if item == PLAYERS:
            self.players = _PLAYERS
            self._deal()
        elif item == DEALER:
            self.dealer = 1
        elif item == EXPANSION:
            self.expansion = 0
            self._deal()
        elif item == REVOLUTION:
            self.revolution = _REVOLUTION
        elif item == STICKS:
            self.sticks = _STICKS
        else:
            seat = item - HANDS
            self.hands[seat] = default_hands(self.players, EXPANSIONS[self.expansion])[seat]

    def key(self, app, code, now):
        """A key of the menu, on the box.app.App it is open in."""
        if code < K.G:   # the hex digits set the item
            if not self.digit(code):
                app.buzzer.play(REJECT, now)
        elif code == K.PLAY:
            step = self.next()
            if step == COMPLETE:
                self.new_game(app, now)
            elif step == TOO_MANY:
                app._error("no-such-card", now)   # more cards than the deck holds
        elif code == K.DEL:
            self.back()
        elif code == K.UNDO:
            self.reset_item()
        elif code == K.MENU and app.game is not None:
            app._home()

    def new_game(self, app, now):
        # The game of these choices, its record on flash before the old one goes to the archive.
        hands = self.hands[:self.players]
        game = Game(self.players, self.dealer, EXPANSIONS[self.expansion], self.revolution,
                    self.sticks, hands)
        try:
            app.journal.start(game, app.game)
        except OSError:
            box.forget("box.newgame")
            app._error("flash-full", now)   # the menu stays open; the old game stays on
            return
        try:
            app.journal.save_setup(self.players, self.dealer, EXPANSIONS[self.expansion],
                                   self.revolution, self.sticks, hands)
        except OSError:
            pass   # the game is safe; the menu keeps these choices only while it is loaded
        else:   # the journal remembers them: the menu goes until it opens again
            app.setup = None
            box.forget("box.setup")
        box.forget("box.newgame")   # the journal's work between games (start, save_setup)
        app.game = game
        app._home()
        app.entry.clear()
        app._emit()
        app.journal.checkpoint(game)

    def draw(self, buf, p):
        """The current item: 'PL 4', 'dL 1', 'Gh 2', 'rE 5', 'St40', and '3=14' for seat 3."""
        item = self.item
        if item < HANDS:
            panels.text(buf, p, _LABELS[item])
            value = (self.players, self.dealer, 2 * self.expansion, self.revolution,
                     self.sticks)[item]
            panels.number(buf, p, 2, 2, value)
        else:
            seat = item - HANDS
            panels.clear(buf, p)
            panels.number(buf, p, 0, 1, seat + 1)
            panels.char(buf, p, 1, "=")
            panels.number(buf, p, 2, 2, self.hands[seat])
