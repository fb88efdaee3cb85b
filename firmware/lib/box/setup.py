"""The new-game menu: players, first leader, expansion, revolution size, sticks, hands.

One item at a time: hex keys set its value, PLAY goes to the next item (and starts the game
after the last hand), DEL goes back, UNDO restores the item's default. Two-digit items
shift digits in from the right, so 4 then 0 makes 40.
"""
from box import panels
from tycoon.game import EXPANSIONS, default_hands, deck_size

PLAYERS = 0
DEALER = 1
EXPANSION = 2
REVOLUTION = 3
STICKS = 4
HANDS = 5   # items 5.. are the seats' hands

_LABELS = (b"PL", b"dL", b"Gh", b"rE", b"St")

# what next() did
MOVED = 0       # to the next item
COMPLETE = 1    # past the last hand: the game can start
TOO_MANY = 2    # the hands hold more cards than the deck: stays on the last hand


class Setup:
    def __init__(self):
        self.players = 4
        self.dealer = 1
        self.expansion = 0      # index into EXPANSIONS
        self.revolution = 5
        self.sticks = 40
        self.hands = [0] * 8
        self.item = 0
        self._deal()

    def _deal(self):
        hands = default_hands(self.players, EXPANSIONS[self.expansion])
        for i in range(8):
            self.hands[i] = hands[i] if i < self.players else 0

    def restore(self, saved):
        """Take the last setup remembered by the journal (a dict); ignores anything odd."""
        try:
            players = int(saved["players"])
            expansion = EXPANSIONS.index(saved["expansion"])
            revolution = int(saved["revolution"])
            hands = [int(n) for n in saved["hands"]]
            if not 2 <= players <= 8 or revolution not in (4, 5) or len(hands) != players:
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
        self.sticks = min(max(sticks, 0), 99)
        for i in range(8):
            self.hands[i] = hands[i] if i < players else 0

    def begin(self, game=None):
        """Open the menu at its first item, keeping the values of the last setup."""
        self.item = 0

    def digit(self, d):
        """A hex key pressed on the current item. Returns False when the value is refused."""
        item = self.item
        if item == PLAYERS:
            if not 2 <= d <= 8:
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
            if d not in (0, 2, 4):
                return False
            self.expansion = d // 2
            self._deal()
        elif item == REVOLUTION:
            if d not in (4, 5):
                return False
            self.revolution = d
        elif d > 9:
            return False
        elif item == STICKS:
            self.sticks = self.sticks % 10 * 10 + d
        else:
            seat = item - HANDS
            self.hands[seat] = self.hands[seat] % 10 * 10 + d
        return True

    def next(self):
        """Go to the next item: MOVED, COMPLETE (the game can start) or TOO_MANY."""
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

    def reset_item(self):
        item = self.item
        if item == PLAYERS:
            self.players = 4
            self._deal()
        elif item == DEALER:
            self.dealer = 1
        elif item == EXPANSION:
            self.expansion = 0
            self._deal()
        elif item == REVOLUTION:
            self.revolution = 5
        elif item == STICKS:
            self.sticks = 40
        else:
            seat = item - HANDS
            self.hands[seat] = default_hands(self.players, EXPANSIONS[self.expansion])[seat]

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
