"""Property tests of the rules engine: random legal games (with illegal attempts mixed in)
checked against a small independent re-implementation of the rules page, plus invariants,
undo and the record round trip. CPython only (hypothesis)."""
import random

from hypothesis import HealthCheck, given, settings, strategies as st

from tycoon import notation
from tycoon.game import Game, IllegalAction, PLAY, PASS, RETURN
from tycoon import game as G
import engine_helpers as eh
from engine_helpers import snapshot, stick_total

# --- the reference: written from the rules page alone ------------------------------------

# Segment letters per value, as the rules' table gives them.
SEGMENTS = ["abcdef", "bc", "abdeg", "abcdg", "bcfg", "acdfg", "acdefg", "abc", "abcdefg",
            "abcdfg", "abcefg", "cdefg", "adef", "bcdeg", "adefg", "aefg", "acdef", "bcefg"]
TURNED = {"a": "d", "b": "e", "c": "f", "d": "a", "e": "b", "f": "c", "g": "g"}
CARD_TYPE = {v: v for v in range(18)}
CARD_TYPE[14] = 3   # E is the 3 card turned
CARD_TYPE[9] = 6    # 9 is the 6 card turned


def ref_cost(face, value):
    target = set(SEGMENTS[value])
    upright = set(SEGMENTS[face])
    turned = set(TURNED[s] for s in SEGMENTS[face])
    if upright <= target or turned <= target:
        return len(target) - len(upright)
    return None


class Ref:
    """Matchstick Tycoon as the rules page states it, as plainly as possible."""

    def __init__(self, players, dealer, expansion, revolution, sticks, hands):
        self.n = players
        self.values = 16 if expansion == "none" else 18
        self.gh_copies = {"none": 0, "gh2": 2, "gh4": 4}[expansion]
        self.rev_size = revolution
        self.cards = list(hands)
        self.sticks = [1] * players
        self.rank = [0] * players
        self.ranking = []
        self.supply = sticks - players
        self.rev = False
        self.turn = dealer
        self.top = None            # (value, count, seat)
        self.table_sticks = 0
        self.declined = set()
        self.played = {}
        self.finished = False

    def copies(self, card_type):
        return self.gh_copies if card_type >= 16 else 4

    def still_in(self):
        return [s for s in range(1, self.n + 1) if not self.rank[s - 1]]

    def next_in(self, seat):
        for k in range(1, self.n + 1):
            s = (seat - 1 + k) % self.n + 1
            if not self.rank[s - 1]:
                return s
        return 0

    def strongest(self):
        return 0 if self.rev else self.values - 1

    def stronger(self, a, b):
        return a < b if self.rev else a > b

    def violations(self, kind, seat, faces=(), value=None):
        """The set of rule codes an action breaks (empty: legal). Codes that make the rest of
        the question meaningless stop the search."""
        if self.finished:
            return {"game-over"}
        if seat is not None and seat != self.turn:
            return {"not-your-turn"}
        p = self.turn
        if kind == RETURN:
            return {"has-cards"} if self.cards[p - 1] else set()
        if not self.cards[p - 1]:
            return {"must-return"}
        if kind == PASS:
            return {"cannot-pass"} if self.top is None else set()
        out = set()
        n = len(faces)
        if n > 5:
            out.add("too-many-cards")
        if n == 0 or (self.top is not None and n != self.top[1]):
            out.add("wrong-count")
        if n > self.cards[p - 1]:
            out.add("not-in-hand")
        good = [f for f in faces if 0 <= f < self.values]
        if len(good) < n:
            out.add("no-such-card")
        if value is None:
            if len(set(faces)) > 1:
                out.add("mixed-values")
                return out
            if not faces:
                return out
            value = faces[0]
        if not 0 <= value < self.values:
            out.add("no-such-value")
            return out
        count = {}
        for f in good:
            count[CARD_TYPE[f]] = count.get(CARD_TYPE[f], 0) + 1
        for t, c in count.items():
            if self.played.get(t, 0) + c > self.copies(t):
                out.add("no-such-card")
        costs = [ref_cost(f, value) for f in good]
        if None in costs:
            out.add("impossible-shape")
        if self.top is not None and not self.stronger(value, self.top[0]):
            out.add("not-stronger")
        if None not in costs and len(good) == n and sum(costs) > self.sticks[p - 1]:
            out.add("not-enough-sticks")
        return out

    def play(self, faces, value):
        p = self.turn
        if value is None:
            value = faces[0]
        cost = sum(ref_cost(f, value) for f in faces)
        self.cards[p - 1] -= len(faces)
        self.sticks[p - 1] -= cost
        self.table_sticks += cost
        for f in faces:
            self.played[CARD_TYPE[f]] = self.played.get(CARD_TYPE[f], 0) + 1
        self.top = (value, len(faces), p)
        self.declined = set()
        events = 0
        if len(faces) >= self.rev_size:
            self.rev = not self.rev
            events |= G.REVOLUTION
        if not self.cards[p - 1] and not self.sticks[p - 1]:
            events |= self.go_out(p)
            if self.finished:
                return events
        if value == self.strongest():
            for s in self.still_in():
                if s != p:
                    self.sticks[s - 1] += 1
                    self.supply -= 1
            return events | G.FORCED | self.clear()
        self.turn = self.next_in(p)
        return events

    def pass_turn(self):
        p = self.turn
        self.sticks[p - 1] += 1
        self.supply -= 1
        return self.declined_by(p, 0)

    def return_stick(self):
        p = self.turn
        self.sticks[p - 1] -= 1
        self.supply += 1
        events = 0
        if not self.sticks[p - 1]:
            events = self.go_out(p)
            if self.finished:
                return events
        if self.top is None:          # a leader with no cards: the next seat leads
            self.turn = self.next_in(p)
            return events
        return self.declined_by(p, events)

    def declined_by(self, p, events):
        self.declined.add(p)
        others = [s for s in self.still_in() if s != self.top[2]]
        if all(s in self.declined for s in others):
            return events | self.clear()
        self.turn = self.next_in(p)
        return events

    def clear(self):
        self.supply += self.table_sticks
        self.table_sticks = 0
        last = self.top[2]
        self.top = None
        self.declined = set()
        self.turn = last if not self.rank[last - 1] else self.next_in(last)
        return G.CLEARED

    def go_out(self, seat):
        self.ranking.append(seat)
        self.rank[seat - 1] = len(self.ranking)
        left = self.still_in()
        if len(left) == 1:
            self.ranking.append(left[0])
            self.rank[left[0] - 1] = self.n
            self.finished = True
            self.turn = 0
            return G.OUT | G.FINISHED
        return G.OUT


def same_state(game, ref):
    assert list(game.cards) == ref.cards
    assert list(game.sticks) == ref.sticks
    assert list(game.ranks) == ref.rank
    assert list(game.ranking) == ref.ranking
    assert game.supply() == ref.supply
    assert game.revolution == ref.rev
    assert game.turn == ref.turn
    assert game.finished == ref.finished
    assert game.strongest() == ref.strongest()
    if not ref.finished:   # what lies on the table once the game is over is not the rules' concern
        expect = None if ref.top is None else ref.top + (ref.table_sticks,)
        assert game.table == expect
        assert game.must_return() == (ref.cards[ref.turn - 1] == 0)


def invariants(game):
    assert stick_total(game) == game.total_sticks
    assert all(c >= 0 for c in game.cards)
    assert all(s >= 0 for s in game.sticks)
    ranking = list(game.ranking)
    assert len(set(ranking)) == len(ranking)
    for i, seat in enumerate(ranking):
        assert game.ranks[seat - 1] == i + 1
    assert sum(1 for r in game.ranks if r) == len(ranking)
    left = game.players - len(ranking)
    assert game.finished == (left == 0)
    assert (game.turn == 0) == game.finished
    assert left != 1
    if not game.finished:
        assert game.ranks[game.turn - 1] == 0
    for seat in ranking[:game.players - 1]:   # all but the last rank went out with nothing
        assert game.cards[seat - 1] == 0 and game.sticks[seat - 1] == 0


# --- random games -------------------------------------------------------------------------

@st.composite
def setups(draw):
    players = draw(st.integers(2, 8))
    expansion = draw(st.sampled_from(["none", "gh2", "gh4"]))
    deck = {"none": 56, "gh2": 60, "gh4": 64}[expansion]
    if draw(st.integers(0, 4)) == 0:
        hands = None
    else:
        hands = draw(st.lists(st.integers(0, min(9, deck // players)), min_size=players, max_size=players))
    return (players, draw(st.integers(1, players)), expansion, draw(st.sampled_from([5, 4])),
            draw(st.integers(0, 60)), hands)


def candidate(rng, ref, legal_only):
    """A random play (faces, value or None): likely legal when legal_only, anything otherwise
    (0 to 6 cards, faces and values beyond this game's deck)."""
    top = ref.top
    if legal_only:
        n = top[1] if top else rng.randint(1, 5)
        value = rng.randrange(ref.values)
        makers = [f for f in range(ref.values) if ref_cost(f, value) is not None]
        faces = [value if rng.random() < 0.6 else rng.choice(makers) for _ in range(n)]
        explicit = value if (any(f != value for f in faces) or rng.random() < 0.2) else None
        return faces, explicit
    n = top[1] if top and rng.random() < 0.8 else rng.randint(0, 6)
    value = rng.randrange(18)
    faces = [rng.randrange(19 if rng.random() < 0.05 else 18) for _ in range(n)]
    explicit = None if rng.random() < 0.3 else value
    return faces, explicit


def do(game, ref, kind, seat, faces, value):
    if kind == PLAY:
        return game.play(faces, value, seat), ref.play(faces, value)
    if kind == PASS:
        return game.pass_turn(seat), ref.pass_turn()
    return game.return_stick(seat), ref.return_stick()


def attempt(game, ref, rng):
    """An arbitrary action, legal or not: the engine must agree with the reference."""
    kind = rng.choice([PLAY, PLAY, PLAY, PASS, RETURN])
    seat = rng.choice([None, None, game.turn or 1, rng.randint(0, 9)])
    faces, value = candidate(rng, ref, rng.random() < 0.4) if kind == PLAY else ((), None)
    broken = ref.violations(kind, seat, faces, value)
    if not broken:
        return kind, seat, faces, value
    before = snapshot(game)
    try:
        eh.apply(game, (kind, faces, value), seat)
    except IllegalAction as exc:
        assert exc.code in broken, (exc.code, broken, kind, seat, faces, value)
    else:
        raise AssertionError("engine accepted %r, the rules say %r" % ((kind, seat, faces, value), broken))
    assert snapshot(game) == before
    return None


def choose(game, ref, rng):
    """A legal action (kind, seat, faces, value)."""
    if ref.cards[ref.turn - 1] == 0:
        return RETURN, None, (), None
    plays = []
    for _ in range(10):
        faces, value = candidate(rng, ref, True)
        if not ref.violations(PLAY, None, faces, value):
            plays.append((faces, value))
    if ref.top is not None and (not plays or rng.random() < 0.3):
        return PASS, rng.choice([None, ref.turn]), (), None
    if not plays:
        for v in range(ref.values):
            if not ref.violations(PLAY, None, [v], None):
                plays.append(([v], None))
                break
    faces, value = rng.choice(plays)
    return PLAY, rng.choice([None, ref.turn]), faces, value


def play_random_game(setup, seed, check_undo=True, max_steps=500):
    rng = random.Random(seed)
    game = Game(*setup)
    players, dealer, expansion, revolution, sticks, hands = setup
    if hands is None:   # the rules' deal: 15 each for 2-3 players, else the deck, extras to seat 1 up
        deck = {"none": 56, "gh2": 60, "gh4": 64}[expansion]
        hands = [15] * players if players <= 3 else [deck // players + (s < deck % players) for s in range(players)]
    ref = Ref(players, dealer, expansion, revolution, sticks, hands)
    same_state(game, ref)
    steps = 0
    while not ref.finished and steps < max_steps:
        steps += 1
        action = attempt(game, ref, rng) if rng.random() < 0.3 else None
        if action is None:
            action = choose(game, ref, rng)
        kind, seat, faces, value = action
        if kind == PLAY:
            expect = (faces[0] if value is None else value, sum(ref_cost(f, faces[0] if value is None else value) for f in faces))
            assert game.check_play(faces, value, seat) == expect
        before = snapshot(game)
        actor = ref.turn
        got, want = do(game, ref, kind, seat, faces, value)
        assert got == want, (got, want, action)
        same_state(game, ref)
        invariants(game)
        if kind == PLAY:
            logged = (PLAY, actor, tuple(faces), faces[0] if value is None else value, value is not None)
        else:
            logged = (kind, actor, (), -1, False)
        assert game.last_action() == logged
        assert len(game) == len(list(game.actions()))
        if steps % 25 == 0:
            round_trip(game)
        if check_undo:
            after = snapshot(game)
            assert game.undo() is True
            assert snapshot(game) == before
            eh.apply(game, (kind, faces, value), seat)
            assert snapshot(game) == after
    assert ref.finished, "the game should end well within %d steps" % max_steps
    for kind in (PLAY, PASS, RETURN):
        assert attempt_game_over(game, kind)
    round_trip(game)
    return game


def round_trip(game):
    """The canonical record of the game reads back into exactly the same game."""
    text = notation.write(game)
    again, error = notation.load(text.splitlines())
    assert error is None
    assert snapshot(again) == snapshot(game)
    assert notation.write(again) == text


def attempt_game_over(game, kind):
    before = snapshot(game)
    try:
        if kind == PLAY:
            game.play([3])
        elif kind == PASS:
            game.pass_turn()
        else:
            game.return_stick()
    except IllegalAction as exc:
        return exc.code == "game-over" and snapshot(game) == before
    return False


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=setups(), seed=st.integers(0, 2 ** 32 - 1))
def test_random_games_follow_the_rules(setup, seed):
    play_random_game(setup, seed)


@settings(max_examples=60, deadline=None)
@given(players=st.integers(4, 8), expansion=st.sampled_from(["none", "gh2", "gh4"]),
       revolution=st.sampled_from([5, 4]), seed=st.integers(0, 2 ** 32 - 1))
def test_full_deals_follow_the_rules(players, expansion, revolution, seed):
    play_random_game((players, 1 + seed % players, expansion, revolution, 40, None), seed,
                     check_undo=False, max_steps=3000)


def test_reference_agrees_with_rules_examples():
    # the reference itself must know the manual's examples before it judges the engine
    assert ref_cost(3, 9) == 1 and ref_cost(7, 3) == 2 and ref_cost(4, 9) == 2
    assert ref_cost(6, 9) == 0 and ref_cost(6, 8) == 1 and ref_cost(1, 15) == 2
    assert ref_cost(7, 15) is None
    assert [v for v in range(16) if ref_cost(2, v) is not None] == [2, 8]


# --- the reader never crashes -------------------------------------------------------------

WORDS = ["players", "dealer", "expansion", "revolution", "sticks", "hands", "play", "pass",
         "return", "as", "AS", "gh2", "none", "#", "1:", "2:", "3:", "0", "1", "3", "4", "5", "6",
         "9", "E", "F", "G", "H", "x", "10", "-1", ":", "8", "A", "\u00b2", "\u0663"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join), max_size=12))
def test_reader_never_crashes(lines):
    game, error = notation.load(["players 3"] + lines)
    if error is None:
        assert game is not None
    else:
        line, kind, code = error
        assert 1 <= line <= len(lines) + 1
        assert kind in ("syntax", "illegal") and isinstance(code, str) and code


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=20), max_size=6))
def test_reader_survives_any_text(lines):
    game, error = notation.load(lines)
    assert error is None or error[1] in ("syntax", "illegal")
