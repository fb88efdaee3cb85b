"""Seating an event's rounds: each round every present player at exactly one table, the tables
within the organiser's size range (2-8 players) and as even as possible; across the event as
few repeated meetings as the search finds (a pair at one table again: a pair that meets m times
counts m - 1), then the smaller tables and the first dealer's seat shared out evenly per player.
Deterministic: the same players, rounds, sizes and seed give the same seating.

A table is a list of players; its first player leads first (the box's seat 1, `dealer 1`), the
others follow clockwise.

How. Where a resolvable design exists for the players and sizes it is built: n = q*q players
at tables of q, q a prime power (2, 3, 4, 5, 7, 8), seat q + 1 rounds with no pair meeting
twice: the parallel classes of the affine plane AG(2, q), whose points are the pairs (x, y)
over the field GF(q) and whose lines of slope m are y = m*x + c (and x = c); two lines of
different slopes meet in one point, so two players share one table at most once. GF(4) and
GF(8) are polynomials over GF(2) modulo x^2 + x + 1 and x^3 + x + 1 (their sum is XOR, not a
sum mod 4). The players are given to the points in an order drawn from the seed. Rounds past
q + 1, and every other case, are searched: each round is built greedily (the players in an
order drawn from the seed, each to the table where it adds least), then a tabu search swaps
two players of different tables in one round: each move weighs the swaps of up to SAMPLE
players with a repeated meeting (or who sat at the smaller tables two times more than another)
and takes the best that is not tabu (a player going back to the table it just left); after
STALL moves without a better seating it goes back to the best and shakes it; it stops at the
lower bound or after BUDGET swaps weighed: deterministic, not timed. Last, in each round the
player of each table who has led least so far leads (ties drawn from the seed), and leads are
handed along chains of tables while that evens them out.

The cost the search lowers, per pair that meets m times: REPEAT * (m - 1) + (m - 1)^2 (repeats
first; among as many repeats, no pair meeting far more often than others), plus SMALL * s^2 per
player who sat s times at a table smaller than its round's largest.

Hand-written: no well-kept library seats players at tables of several players across rounds
(the "social golfer problem"); the chess pairing programs on PyPI pair two players a board.
"""
import random

MIN_SIZE, MAX_SIZE = 2, 8   # the game's players at a table
REPEAT = 100000             # the cost of a repeated meeting (see above)
SMALL = 100                 # the cost of sitting at the smaller tables again (times s^2)
DESIGN_ORDERS = (2, 3, 4, 5, 7, 8)   # prime powers up to the largest table
_IRREDUCIBLE = {4: 0b111, 8: 0b1011}  # x^2 + x + 1, x^3 + x + 1 over GF(2)
BUDGET = 600000             # swap evaluations the search makes at most (deterministic)
STALL = 300                 # moves without a better seating: back to the best, shaken
SAMPLE = 40                 # players with a repeated meeting whose swaps one move weighs
TENURE = 6                  # a player may not go back to its table for 6 to 11 moves
SHAKE = 6                   # random swaps of a shake


class SeatingError(ValueError):
    """The players cannot be seated as asked; the text says why."""


def parse_sizes(text):
    """(min, max) of `4-5` or `4`; SeatingError saying why not."""
    low, sep, high = text.partition("-")
    try:
        lo, hi = int(low), int(high if sep else low)
    except ValueError:
        raise SeatingError("%r is not a size or a range of sizes (4, or 4-5)" % text) from None
    if not MIN_SIZE <= lo <= hi <= MAX_SIZE:
        raise SeatingError("table sizes are %d to %d players, the smaller first (4-5)"
                           % (MIN_SIZE, MAX_SIZE))
    return lo, hi


def table_sizes(n, lo, hi):
    """The sizes of one round's tables for n players, largest first: every table within lo-hi,
    no two differing by more than one; all alike where a number of tables allows it, and then
    the fewest tables (the fewest boxes). SeatingError when n players cannot sit so."""
    if not MIN_SIZE <= lo <= hi <= MAX_SIZE:
        raise SeatingError("table sizes are %d to %d players" % (MIN_SIZE, MAX_SIZE))
    fits = [t for t in range(max(1, -(-n // hi)), n // lo + 1)]
    if n < 1 or not fits:
        raise SeatingError("%d player%s cannot sit at tables of %s" % (
            n, "" if n == 1 else "s", "%d" % lo if lo == hi else "%d to %d" % (lo, hi)))
    even = [t for t in fits if n % t == 0]
    t = min(even or fits)
    q, r = divmod(n, t)
    return [q + 1] * r + [q] * (t - r)


# --- designs -----------------------------------------------------------------------------------

def field(q):
    """(add, mul) tables of GF(q) for q in DESIGN_ORDERS: the integers mod q for a prime, the
    polynomials over GF(2) modulo an irreducible one for 4 and 8 (a bit a coefficient)."""
    if q not in DESIGN_ORDERS:
        raise ValueError("no field of order %d here" % q)
    if q not in _IRREDUCIBLE:
        return ([[(a + b) % q for b in range(q)] for a in range(q)],
                [[(a * b) % q for b in range(q)] for a in range(q)])
    poly, bits = _IRREDUCIBLE[q], q.bit_length() - 1

    def times(a, b):
        out = 0
        while b:
            if b & 1:
                out ^= a
            b >>= 1
            a <<= 1
            if a >> bits:
                a ^= poly
        return out
    return ([[a ^ b for b in range(q)] for a in range(q)],
            [[times(a, b) for b in range(q)] for a in range(q)])


def affine_plane(q):
    """The q + 1 parallel classes of AG(2, q): each a round of q tables of q of the points
    0 .. q*q - 1 (point (x, y) is x*q + y); no two points share a table twice."""
    add, mul = field(q)
    rounds = [[[x * q + add[mul[m][x]][c] for x in range(q)] for c in range(q)]
              for m in range(q)]
    rounds.append([[x * q + y for y in range(q)] for x in range(q)])
    return rounds


def _design(n, sizes):
    """The affine plane's rounds for n players at these sizes, or None."""
    q = sizes[0]
    if q in DESIGN_ORDERS and n == q * q and all(s == q for s in sizes):
        return affine_plane(q)
    return None


# --- the measures --------------------------------------------------------------------------

def meetings(rounds):
    """{(a, b): times a and b sat at one table}, a < b."""
    out = {}
    for tables in rounds:
        for table in tables:
            for i, a in enumerate(table):
                for b in table[i + 1:]:
                    key = (a, b) if a < b else (b, a)
                    out[key] = out.get(key, 0) + 1
    return out


def repeats(rounds):
    """Repeated meetings: for each pair that sat together m times, m - 1."""
    return sum(m - 1 for m in meetings(rounds).values() if m > 1)


def _forced(sizes_a, sizes_b):
    """Pairs of round b's tables that sat together in round a too, at least: the s players of
    a table sat at the t tables of round a, so r*C(k+1, 2) + (t - r)*C(k, 2) of its pairs met
    there (s = k*t + r)."""
    t = len(sizes_a)
    forced = 0
    for s in sizes_b:
        k, r = divmod(s, t)
        forced += r * (k + 1) * k // 2 + (t - r) * k * (k - 1) // 2
    return forced


def lower_bound(n, sizes_by_round):
    """A lower bound of the repeated meetings of any seating of n players with these table
    sizes per round, the largest of: (1) counting: the meetings of all rounds less the pairs
    there are, C(n, 2); (2) the pigeonholes (_forced) between two rounds; (3) the pigeonholes
    of every two rounds together: a pair that meets m times sits together in C(m, 2) of the
    R rounds' pairs and counts m - 1 <= C(m, 2) / (R / 2) repeats, so the repeats are at least
    2/R of all the pairs forced."""
    pairs = sum(s * (s - 1) // 2 for sizes in sizes_by_round for s in sizes)
    bound = max(0, pairs - n * (n - 1) // 2)
    rounds = len(sizes_by_round)
    together = 0
    for a in range(rounds):
        for b in range(a + 1, rounds):
            forced = max(_forced(sizes_by_round[a], sizes_by_round[b]),
                         _forced(sizes_by_round[b], sizes_by_round[a]))
            bound = max(bound, forced)
            together += forced
    if rounds > 1:
        bound = max(bound, -(-2 * together // rounds))
    return bound


def leads(rounds):
    """{player: rounds it led first}."""
    out = {}
    for tables in rounds:
        for table in tables:
            out[table[0]] = out.get(table[0], 0) + 1
    return out


def small_seats(rounds):
    """{player: rounds it sat at a table smaller than that round's largest}."""
    out = {}
    for tables in rounds:
        top = max(len(t) for t in tables)
        for table in tables:
            for p in table:
                out[p] = out.get(p, 0) + (len(table) < top)
    return out


# --- the search ----------------------------------------------------------------------------

def _pair_cost(m):
    return 0 if m <= 1 else REPEAT * (m - 1) + (m - 1) ** 2


_UP = [_pair_cost(m + 1) - _pair_cost(m) for m in range(64)]      # one more meeting
_DOWN = [0] + [_pair_cost(m - 1) - _pair_cost(m) for m in range(1, 64)]   # one fewer


class _Search:
    """The seating being searched: rounds[r][t] the players (ints) of table t, where[r][p] the
    table of p in round r (-1: absent), meet[a][b] the meetings, small[p] the smaller tables
    of p. Rounds before `fixed` are history: counted, never changed."""

    def __init__(self, count, history, rng):
        self.rng = rng
        self.meet = [[0] * count for _ in range(count)]
        self.small = [0] * count
        self.rounds, self.where, self.fixed = [], [], 0
        for tables in history:
            self._add(tables)
        self.fixed = len(self.rounds)

    def _add(self, tables):
        where = [-1] * len(self.small)
        top = max(len(t) for t in tables)
        for i, table in enumerate(tables):
            for j, p in enumerate(table):
                where[p] = i
                self.small[p] += len(table) < top
                row = self.meet[p]
                for x in table[:j]:
                    row[x] += 1
                    self.meet[x][p] += 1
        self.rounds.append(tables)
        self.where.append(where)

    def greedy(self, present, sizes):
        """Add a round: each player in a drawn order to the table (with room) where it adds
        least cost."""
        order = list(present)
        self.rng.shuffle(order)
        top = sizes[0]
        tables = [[] for _ in sizes]
        for p in order:
            row, s = self.meet[p], self.small[p]
            best, choice = None, []
            for i, table in enumerate(tables):
                if len(table) >= sizes[i]:
                    continue
                cost = sum(_UP[row[x]] for x in table)
                if sizes[i] < top:
                    cost += SMALL * (2 * s + 1)
                if best is None or cost < best:
                    best, choice = cost, [i]
                elif cost == best:
                    choice.append(i)
            tables[self.rng.choice(choice)].append(p)
        self._add(tables)

    def cost(self):
        total = sum(_pair_cost(m) for row in self.meet for m in row) // 2
        return total + SMALL * sum(s * s for s in self.small)

    def _tops(self):
        return [max(len(t) for t in tables) for tables in self.rounds]

    def _targets(self):
        """(round, player) where a move may help: a repeated meeting at its table, or a
        smaller table for a player who sat there more often than another."""
        out = []
        tops = self._tops()
        present = [p for p in range(len(self.small))
                   if any(w[p] >= 0 for w in self.where[self.fixed:])]
        low = min((self.small[p] for p in present), default=0)
        for r in range(self.fixed, len(self.rounds)):
            for table in self.rounds[r]:
                smaller = len(table) < tops[r]
                for p in table:
                    row = self.meet[p]
                    if any(row[x] > 1 for x in table if x != p) or \
                            (smaller and self.small[p] > low + 1):
                        out.append((r, p))
        return out

    def _best_swap(self, r, p, tabu, it, best_cost, cost, tops):
        """(delta, q) of the best swap of p with a player of another table in round r that
        is not tabu (unless it beats the best seating); None when there is none."""
        where, tables = self.where[r], self.rounds[r]
        a = where[p]
        A = tables[a]
        top = tops[r]
        mp, sp = self.meet[p], self.small[p]
        leave = sum(_DOWN[mp[x]] for x in A if x != p)
        best, picks = None, []
        for b, B in enumerate(tables):
            if b == a:
                continue
            join = sum(_UP[mp[y]] for y in B)
            shift = (len(B) < top) - (len(A) < top)   # p's small seats after the swap
            p_tabu = tabu.get((r, p, b), -1) > it
            for q in B:
                mq = self.meet[q]
                d = leave + join - _UP[mp[q]]
                d += sum(_DOWN[mq[y]] for y in B if y != q)
                d += sum(_UP[mq[x]] for x in A if x != p)
                if shift:
                    sq = self.small[q]
                    d += SMALL * ((sp + shift) ** 2 - sp * sp + (sq - shift) ** 2 - sq * sq)
                if (p_tabu or tabu.get((r, q, a), -1) > it) and cost + d >= best_cost:
                    continue
                if best is None or d < best:
                    best, picks = d, [q]
                elif d == best:
                    picks.append(q)
        if best is None:
            return None
        return best, self.rng.choice(picks)

    def _trade(self, out, into, table):
        """`out` leaves `table` and `into` takes its place: the meetings with the others."""
        meet = self.meet
        for x in table:
            if x != out:
                meet[out][x] -= 1
                meet[x][out] -= 1
                meet[into][x] += 1
                meet[x][into] += 1

    def _swap(self, r, p, q):
        where, tables = self.where[r], self.rounds[r]
        a, b = where[p], where[q]
        A, B = tables[a], tables[b]
        top = max(len(t) for t in tables)
        self._trade(p, q, A)
        self._trade(q, p, B)
        shift = (len(B) < top) - (len(A) < top)
        self.small[p] += shift
        self.small[q] -= shift
        A[A.index(p)] = q
        B[B.index(q)] = p
        where[p], where[q] = b, a

    def done(self, floor):
        """Whether the seating cannot get better: its repeated meetings down to `floor` (a
        lower bound) and every player's smaller tables within one of each other's."""
        reps = sum(m - 1 for row in self.meet for m in row if m > 1) // 2
        seated = [s for p, s in enumerate(self.small)
                  if any(w[p] >= 0 for w in self.where[self.fixed:])]
        return reps <= floor and max(seated) - min(seated) <= 1

    def improve(self, budget=BUDGET, stall=STALL, floor=0):
        """Tabu search over the rounds after the history, for `budget` swap evaluations: each
        move takes the best swap, not tabu, of up to SAMPLE players that have a repeated
        meeting (or too many smaller tables); after `stall` moves without a better seating it
        goes back to the best and shakes it (a few random swaps). Keeps the best found; stops
        early once it is done(floor)."""
        if len(self.rounds) == self.fixed or self.done(floor):
            return
        rng = self.rng
        cost = best_cost = self.cost()
        best = self._snapshot()
        tabu = {}
        tops = self._tops()
        it = since = 0
        while budget > 0:
            targets = self._targets()
            if not targets:
                break
            if len(targets) > SAMPLE:
                targets = rng.sample(targets, SAMPLE)
            move, ties = None, 0
            for r, p in targets:
                found = self._best_swap(r, p, tabu, it, best_cost, cost, tops)
                budget -= len(self.where[r])
                if found is None:
                    continue
                if move is None or found[0] < move[0]:
                    move, ties = (found[0], r, p, found[1]), 1
                elif found[0] == move[0]:
                    ties += 1
                    if rng.randrange(ties) == 0:
                        move = (found[0], r, p, found[1])
            it += 1
            if move is None:
                continue
            d, r, p, q = move
            a, b = self.where[r][p], self.where[r][q]
            self._swap(r, p, q)
            cost += d
            tenure = TENURE + rng.randrange(TENURE)
            tabu[(r, p, a)] = tabu[(r, q, b)] = it + tenure
            if cost < best_cost:
                best_cost, best, since = cost, self._snapshot(), 0
                if self.done(floor):
                    break
            else:
                since += 1
            if since >= stall:   # back to the best, shaken
                self._restore(best)
                for _ in range(SHAKE):
                    r = self.fixed + rng.randrange(len(self.rounds) - self.fixed)
                    tables = self.rounds[r]
                    if len(tables) > 1:
                        a, b = rng.sample(range(len(tables)), 2)
                        self._swap(r, rng.choice(tables[a]), rng.choice(tables[b]))
                cost, since, tabu = self.cost(), 0, {}
        self._restore(best)

    def _snapshot(self):
        return [[list(t) for t in tables] for tables in self.rounds[self.fixed:]]

    def _restore(self, rounds):
        count = len(self.small)
        history = self.rounds[:self.fixed]
        self.meet = [[0] * count for _ in range(count)]
        self.small = [0] * count
        self.rounds, self.where, self.fixed = [], [], 0
        for tables in history + rounds:
            self._add(tables)
        self.fixed = len(history)

    def lead(self, led):
        """Put first at each table of the rounds after the history the player who has led
        least so far (`led`: player -> rounds led, brought up to date), then even the leads
        out: while a player who leads most can hand a lead on, along a chain of tables (each
        table's first dealer giving it to another of its players, who gives up one of its
        own), to a player with two leads fewer, it does."""
        tables = [t for tables in self.rounds[self.fixed:] for t in tables]
        for table in tables:
            self.rng.shuffle(table)
            first = min(range(len(table)), key=lambda i: led.get(table[i], 0))
            table.insert(0, table.pop(first))
            led[table[0]] = led.get(table[0], 0) + 1
        while True:
            leading = {}
            for i, table in enumerate(tables):
                leading.setdefault(table[0], []).append(i)
            top = max(led[p] for p in leading)
            start = sorted(p for p in leading if led[p] == top)
            came = dict.fromkeys(start)   # player -> (the player before it, the table)
            queue, end = list(start), None
            while queue and end is None:
                p = queue.pop(0)
                for i in leading.get(p, ()):
                    for x in tables[i][1:]:
                        if x not in came:
                            came[x] = (p, i)
                            if led.get(x, 0) <= top - 2:
                                end = x
                                break
                            queue.append(x)
                    if end is not None:
                        break
            if end is None:
                return
            led[end] = led.get(end, 0) + 1
            x = end
            while came[x] is not None:
                p, i = came[x]
                table = tables[i]
                j = table.index(x)
                table[0], table[j] = x, p
                x = p
            led[x] -= 1


def plan(present, rounds, lo, hi, seed=0, history=()):
    """The next `rounds` rounds for the players `present` (names or numbers, each once),
    after the rounds already played (`history`: rounds of tables of players, each table's
    first dealer first; they may hold players no longer present). A list of rounds, each a
    list of tables, each a list of players, the first dealer first. SeatingError when the
    players cannot sit at tables of lo-hi."""
    present = list(present)
    if len(set(present)) != len(present):
        raise SeatingError("a player is named twice")
    sizes = table_sizes(len(present), lo, hi)
    if rounds < 1:
        return []
    names = list(present)
    index = {p: i for i, p in enumerate(names)}
    for tables in history:
        for table in tables:
            for p in table:
                if p not in index:
                    index[p] = len(names)
                    names.append(p)
    rng = random.Random(seed)
    search = _Search(len(names), [[[index[p] for p in t] for t in tables]
                                  for tables in history], rng)
    ids = [index[p] for p in present]
    design = None if history else _design(len(present), sizes)
    if design is not None:
        points = list(ids)
        rng.shuffle(points)
        order = list(range(len(design)))
        rng.shuffle(order)
        for k in order[:rounds]:
            search._add([[points[x] for x in table] for table in design[k]])
    while len(search.rounds) - search.fixed < rounds:
        search.greedy(ids, sizes)
    # with no history the lower bound of the rounds' repeats says when to stop
    search.improve(floor=0 if history else lower_bound(len(ids), [sizes] * rounds))
    led = {}
    for tables in search.rounds[:search.fixed]:
        for table in tables:
            led[table[0]] = led.get(table[0], 0) + 1
    search.lead(led)
    return [[[names[p] for p in table] for table in tables]
            for tables in search.rounds[search.fixed:]]


def seat(players, rounds, lo, hi, seed=0):
    """A whole event's seating of players 1..`players` (what `matchbox event seat` prints)."""
    return plan(range(1, players + 1), rounds, lo, hi, seed)
