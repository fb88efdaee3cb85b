"""Helpers shared by the engine tests: records as scenarios, state snapshots, illegal-action
checks and a small deterministic random-game generator. Portable (CPython and MicroPython)."""
from tycoon import notation, writer
from tycoon.cards import parse_char
from tycoon.game import Game, IllegalAction, PLAY, PASS, RETURN


def faces(text):
    """'6 9 E' -> [6, 9, 14]."""
    out = []
    for token in text.split():
        v = parse_char(token)
        assert v >= 0, "not a face: " + token
        out.append(v)
    return out


def record(text):
    """Replay record text (lines separated by newlines); every line must be legal."""
    game, error = notation.load(text.split("\n"))
    assert error is None, "record rejected: %r" % (error,)
    return game


def record_error(text):
    """(game, error) of a record that is expected to stop with an error."""
    game, error = notation.load(text.split("\n"))
    assert error is not None, "record accepted but an error was expected"
    return game, error


def _frozen(value):
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def snapshot(game):
    """Everything a game holds: its JSON state plus every attribute (lists frozen) but the
    snapshot cache of undo."""
    items = []
    for key in sorted(game.__dict__.keys()):
        if key == "_snaps":
            continue   # undo's snapshot cache: what it restores is compared through the rest
        items.append((key, _frozen(game.__dict__[key])))
    return (writer.to_json(game), tuple(items))


def illegal(game, code, action, *args):
    """Call `action(*args)`; it must raise IllegalAction(code) and change nothing."""
    before = snapshot(game)
    try:
        action(*args)
    except IllegalAction as exc:
        assert exc.code == code, "expected %s, got %s" % (code, exc.code)
    else:
        raise AssertionError("expected IllegalAction %s" % code)
    after = snapshot(game)
    assert after == before, "an illegal action changed the game"


def illegal_line(text, line, code):
    """The record must stop at `line` with the illegal-action `code`."""
    game, error = record_error(text)
    assert error == (line, "illegal", code), "got %r, expected %r" % (error, (line, "illegal", code))
    return game


def syntax_line(text, line):
    """The record must stop at `line` with a syntax error. Returns (game, message)."""
    game, error = record_error(text)
    assert error[0] == line and error[1] == "syntax", "got %r, expected a syntax error at line %d" % (error, line)
    assert error[2], "a syntax error needs a message"
    return game, error[2]


def stick_total(game):
    """Every stick token in the game: seats, supply and the table."""
    table = game.table
    return sum(game.sticks) + game.supply() + (table[3] if table else 0)


class Lcg:
    """A tiny linear congruential generator: identical sequences on CPython and MicroPython."""

    def __init__(self, seed):
        self.state = (seed * 2654435761 + 12345) & 0x7FFFFFFF

    def below(self, n):
        self.state = (self.state * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.state >> 8) % n


def legal_plays(game, rng, tries=12):
    """A few legal plays for the seat to act, found by trying random candidates:
    a list of (faces, value or None)."""
    found = []
    top = game.table
    values = game.values
    for _ in range(tries):
        n = top[1] if top else 1 + rng.below(5)
        value = rng.below(values)
        cands = []
        for _ in range(n):
            if rng.below(3):
                cands.append(value)
            else:
                cands.append(rng.below(values))
        explicit = None
        for f in cands:
            if f != value:
                explicit = value
        if explicit is None and rng.below(4) == 0:
            explicit = value
        try:
            game.check_play(cands, explicit)
        except IllegalAction:
            continue
        found.append((cands, explicit))
    return found


def choose(game, rng):
    """A random legal action for the seat to act, not made yet: (kind, faces, value)."""
    if game.must_return():
        return (RETURN, (), None)
    plays = legal_plays(game, rng)
    if game.table is not None and (not plays or rng.below(3) == 0):
        return (PASS, (), None)
    if not plays:  # a leader always has some cheap play: try every single card as itself
        for v in range(game.values):
            try:
                game.check_play([v])
            except IllegalAction:
                continue
            plays = [([v], None)]
            break
    cards, value = plays[rng.below(len(plays))]
    return (PLAY, cards, value)


def apply(game, action, seat=None):
    """Make an action given as (kind, faces, value), for `seat` (None: whoever is to act)."""
    kind, cards, value = action
    return game.apply(kind, cards, value, seat)


def step(game, rng):
    """Make one random legal action. Returns (kind, faces, value)."""
    action = choose(game, rng)
    apply(game, action)
    return action


def random_setup(rng):
    """Random Game() arguments: (players, dealer, expansion, revolution, sticks, hands)."""
    players = 2 + rng.below(7)
    expansion = ("none", "gh2", "gh4")[rng.below(3)]
    deck = 56 + 4 * ("none", "gh2", "gh4").index(expansion)
    hands = []
    for _ in range(players):
        hands.append(rng.below(min(9, deck // players + 1)))
    return (players, 1 + rng.below(players), expansion, 4 + rng.below(2), rng.below(60), hands)


def random_game(seed, max_actions=400):
    """A deterministic random game of legal actions (finished unless max_actions ran out)."""
    rng = Lcg(seed)
    players, dealer, expansion, revolution, sticks, hands = random_setup(rng)
    game = Game(players, dealer, expansion, revolution, sticks, hands)
    for _ in range(max_actions):
        if game.finished:
            break
        step(game, rng)
    return game
