"""A game record read into a trace: the state after every action, for the report.

The record is replayed line by line with tycoon.notation, keeping each seat's cards and
matchsticks after every action and what happened (revolutions, forced passes, going out). A
record with an error is kept up to its last legal action, with the error.
"""
import os
from typing import Any, List, Optional, Tuple

from host_tools import files
from host_tools.errors import MAX_RECORD, MatchboxError, read_bounded
from tycoon import notation
from tycoon.cards import cost
from tycoon.game import (CLEARED, FINISHED, FORCED, OUT, PASS, PLAY, REVOLUTION,
                         IllegalAction)


class ReportError(MatchboxError):
    """A record or an output path the report cannot use; the message says which and why."""


def ordinal(n):
    """1st, 2nd, 3rd, 4th ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return "%d%s" % (n, suffix)


def plural(n, word):
    """'1 card', '3 cards'."""
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


class Step:
    """One legal action of the record and the state right after it."""

    def __init__(self, index, line, action, events, cost, game):
        self.index = index          # action number, 1 for the first action
        self.line = line            # line of the record it was read from
        self.kind, self.seat, self.faces, self.value, self.explicit = action
        self.events = events        # tycoon.game event flags
        self.cost = cost            # sticks spent on the cards of a play
        self.cards = tuple(game.cards)
        self.sticks = tuple(game.sticks)
        self.supply = game.supply()
        self.revolution = game.revolution
        self.rank = game.ranks[self.seat - 1]

    def action_text(self):
        """The action in canonical notation, without the seat: 'play 6 9 as 9'."""
        return notation.action_text(self.kind, self.seat, self.faces, self.value,
                                    self.explicit).split(": ", 1)[1].strip()

    def event_text(self):
        """What the action set off, in words ('' when nothing)."""
        words = []
        if self.events & REVOLUTION:
            words.append("revolution" if self.revolution else "revolution: order restored")
        if self.events & FORCED:
            words.append("strongest value: the others take a stick")
        if self.events & OUT:
            words.append("seat %d out (%s)" % (self.seat, ordinal(self.rank)))
        if self.events & FINISHED:
            words.append("game over")
        elif self.events & CLEARED:
            words.append("table cleared")
        return ", ".join(words)


class Trace:
    """A replayed record: the final game, every legal action with the state after it,
    and the error that stopped the record (line, kind, code) or None."""

    def __init__(self, name):
        self.name = name
        self.game: Any = None       # a tycoon.game.Game; None only when the header is bad
        self.steps: List[Step] = []
        self.error: Optional[Tuple[int, str, str]] = None
        self.error_text = ""    # the offending line itself

    @property
    def players(self):
        return self.game.players

    def series(self, seat, what):
        """Cards or sticks ('cards'/'sticks') of a seat after each action, from action 0
        (the deal) up to the action where the seat went out, or to the last action."""
        start = self.game.hands[seat - 1] if what == "cards" else 1
        values = [start]
        for step in self.steps:
            values.append(getattr(step, what)[seat - 1])
            if step.events & OUT and step.seat == seat:
                break
        return values

    def out_at(self, seat):
        """The action number at which the seat went out, or None."""
        for step in self.steps:
            if step.events & OUT and step.seat == seat:
                return step.index
        return None

    def marks(self, flag):
        """The steps whose events include `flag`."""
        return [step for step in self.steps if step.events & flag]

    def totals(self, seat):
        """Per-seat counts over the game (a dict, keys as in SUMMARY)."""
        t = dict.fromkeys(("plays", "cards", "passes", "forced", "spent", "returned",
                           "revolutions", "strongest"), 0)
        out = self.out_at(seat)
        for step in self.steps:
            if step.events & FORCED and step.seat != seat and (out is None or out > step.index):
                t["forced"] += 1
            if step.seat != seat:
                continue
            if step.kind == PLAY:
                t["plays"] += 1
                t["cards"] += len(step.faces)
                t["spent"] += step.cost
                t["revolutions"] += bool(step.events & REVOLUTION)
                t["strongest"] += bool(step.events & FORCED)
            elif step.kind == PASS:
                t["passes"] += 1
            else:
                t["returned"] += 1
        return t


SUMMARY = (("cards", "cards played"), ("spent", "sticks spent on cards"),
           ("passes", "sticks taken by passing"), ("forced", "sticks taken on strongest plays"),
           ("returned", "sticks returned"), ("revolutions", "revolutions caused"),
           ("strongest", "strongest plays"))


def read_record(f, name="game"):
    """Replay a record from a binary file object into a Trace, line by line through the
    engine's one reader (tycoon.notation), so it stops where `matchbox replay` and the box
    stop. Never raises on bad content: trace.error says where the record stops; trace.game
    is None only when no game could be set up. An undo line (the box's journal) takes the
    last step back out."""
    trace = Trace(name)
    reader = notation.Reader()
    raw = b""
    try:
        while True:
            raw = reader.next_line(f)   # a damaged line's repair reads ahead
            if not raw:
                break
            events = reader.feed_bytes(raw)
            if reader.kind == "undo":
                trace.steps.pop()
            elif reader.kind == "action":
                game: Any = reader.game
                action = game.last_action()
                spent = 0
                if action.kind == PLAY:
                    spent = sum([cost(face, action.value) or 0 for face in action.faces])
                trace.steps.append(Step(len(trace.steps) + 1, reader.lineno, action, events,
                                        spent, game))
        raw = b""
        reader.finish()
    except notation.NotationError as err:
        trace.error = (reader.lineno, "syntax", err.message)
    except IllegalAction as err:
        trace.error = (reader.lineno, "illegal", err.code)
    if trace.error:
        trace.error_text = raw.decode("utf-8", "replace").rstrip("\r\n")
        if reader.game is None and reader.kind != "header":
            try:    # the header read so far may still set up a game
                reader.finish()
            except notation.NotationError:
                pass
    trace.game = reader.game
    return trace


def read_file(path):
    """A Trace of a record file. Raises MatchboxError when the file cannot be read or is
    larger than a record can be (host_tools.errors.MAX_RECORD)."""
    import io
    return read_record(io.BytesIO(read_bounded(path, MAX_RECORD, "game record")),
                       files.shown(os.path.basename(path)))


def setup_text(game):
    """One line describing the setup."""
    return "%d players, dealer %d, expansion %s, revolution %d+ cards, %d sticks, hands %s" % (
        game.players, game.dealer, game.expansion, game.revolution_size, game.total_sticks,
        " ".join([str(n) for n in game.hands]))


def error_text(trace):
    """The prominent note for a record with an error ('' without one)."""
    if not trace.error:
        return ""
    line, kind, code = trace.error
    n = len(trace.steps)
    return "Record stops at line %d (%s: %s): showing the %s before it" % (
        line, kind, code, plural(n, "legal action"))


def standing(trace, seat):
    """A seat's result in words: '1st, out at action 87', 'last, 3 cards and 2 sticks left'."""
    game = trace.game
    rank = game.ranks[seat - 1]
    held = "%s and %s left" % (plural(game.cards[seat - 1], "card"),
                               plural(game.sticks[seat - 1], "stick"))
    if rank and rank == game.players and trace.out_at(seat) is None:
        return "last, " + held
    if rank:
        return "%s, out at action %d" % (ordinal(rank), trace.out_at(seat))
    return "still in, " + held


def ranking(trace):
    """Seats in ranking order: ranked seats first, then those still in by seat number."""
    game = trace.game
    ranked = list(game.ranking)
    return ranked + [s for s in range(1, game.players + 1) if s not in ranked]
