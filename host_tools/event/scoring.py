"""Standings by round: points per place scaled for the table's size, a game unfinished at the
round's end settled by the organiser's rule, and the tie-breaks (docs/event.md#standings).

The manuals rank a game's players in the order they went out (1st the first out, the
"champion"; the last player left takes the last place) and give no points: the event does.
Place k at a table of n is worth SCALE * (n - k) / (n - 1): the share of the table's other
players one finished ahead of, times SCALE, the least common multiple of n - 1 over the
event's table sizes, so that every single place is a whole number (tables of 4 only: 3, 2, 1,
0, the hall's own n - place; 4-5: 12, 8, 4, 0 and 12, 9, 6, 3, 0). A win is worth the same at
every table; the last place nothing.

A game unfinished when its round ends (the organiser's rule, `--unfinished`): `standing`: the
players out keep their places, the others are placed by the cards they hold, then by their
matchsticks (fewer first), players alike sharing their places' points; `shared`: those out
keep their places and the others share the points of the places left; `void`: the game gives
no points and counts as no game.

Ranked by points, then by the points of the opponents one met (each opponent once for each
game at one table: the strength of the tables one played), then by first places; players
equal in all three share the rank, listed by name.

Pure: takes the tables as the hall ties them (host_tools.hall.rounds), reads no file.
"""
from fractions import Fraction
from math import gcd


def scale(lo, hi):
    """SCALE for tables of lo-hi players: the least common multiple of n - 1."""
    out = 1
    for n in range(max(lo, 2), hi + 1):
        out = out * (n - 1) // gcd(out, n - 1)
    return out


def place_points(place, n, top):
    return Fraction(top * (n - place), n - 1) if n > 1 else Fraction(0)


def settle(table, rule, top):
    """{seat: (points, place shown)} of a counted table: finished, or unfinished and settled
    by `rule`; None for a void game. `table` has players, finished, ranking (the seats out, in
    order), cards and sticks (by seat)."""
    n = len(table["players"])
    out = {}
    ranking = list(table["ranking"])
    for place, seat in enumerate(ranking, 1):
        out[seat] = (place_points(place, n, top), "%d/%d" % (place, n))
    if table["finished"] and len(ranking) == n:
        return out
    if rule == "void":
        return None
    rest = [s for s in range(1, n + 1) if s not in out]
    if rule == "standing":
        key = lambda s: (table["cards"][s - 1], table["sticks"][s - 1])   # noqa: E731
        rest.sort(key=key)
        groups = []
        for s in rest:
            if groups and key(groups[-1][0]) == key(s):
                groups[-1].append(s)
            else:
                groups.append([s])
    else:   # shared
        groups = [rest]
    place = len(ranking) + 1
    for group in groups:
        last = place + len(group) - 1
        share = sum(place_points(k, n, top) for k in range(place, last + 1)) / len(group)
        shown = "%d/%d" % (place, n) if place == last else "%d-%d/%d" % (place, last, n)
        for s in group:
            out[s] = (share, shown)
        place = last + 1
    return out


def number(value):
    """A Fraction as JSON shows it: a whole number, else rounded to two places."""
    return int(value) if value.denominator == 1 else round(float(value), 2)


def standings(players, rounds, rule, top, through=None):
    """The standings after round `through` (default: every round given): `players` the names
    in the event, `rounds` per round the tables as the hall ties them ("players", "counted",
    "finished", "ranking", "cards", "sticks"). A list of {"rank", "shared", "name", "points",
    "opponents", "firsts", "games", "places"} best first; `places` per round: "2/4", "3-4/4"
    (shared), "void", "-" (seated, no result counted) or "" (not seated)."""
    rounds = rounds[:through]
    score = {p: Fraction(0) for p in players}
    firsts = dict.fromkeys(players, 0)
    games = dict.fromkeys(players, 0)
    places = {p: [""] * len(rounds) for p in players}
    met = {p: [] for p in players}
    for k, tables in enumerate(rounds):
        for table in tables:
            seated = table["players"]
            for name in seated:
                places.setdefault(name, [""] * len(rounds))[k] = "-"
            if not table["counted"]:
                continue
            result = settle(table, rule, top)
            if result is None:
                for name in seated:
                    places[name][k] = "void"
                continue
            for seat, (points, shown) in result.items():
                name = seated[seat - 1]
                score[name] = score.get(name, Fraction(0)) + points
                games[name] = games.get(name, 0) + 1
                firsts[name] = firsts.get(name, 0) + (shown == "1/%d" % len(seated))
                places[name][k] = shown
                met.setdefault(name, []).extend(x for x in seated if x != name)
    rows = []
    for name in places:
        if not any(places[name]):
            continue
        opponents = sum((score.get(x, Fraction(0)) for x in met.get(name, ())), Fraction(0))
        rows.append({"name": name, "points": score.get(name, Fraction(0)),
                     "opponents": opponents, "firsts": firsts.get(name, 0),
                     "games": games.get(name, 0), "places": places[name]})
    rows.sort(key=lambda r: (-r["points"], -r["opponents"], -r["firsts"], r["name"].casefold()))
    for i, row in enumerate(rows):
        same = i and (row["points"], row["opponents"], row["firsts"]) == \
            (rows[i - 1]["points"], rows[i - 1]["opponents"], rows[i - 1]["firsts"])
        row["rank"] = rows[i - 1]["rank"] if same else i + 1
    counts = {}
    for row in rows:
        counts[row["rank"]] = counts.get(row["rank"], 0) + 1
    for row in rows:
        row["shared"] = counts[row["rank"]] > 1
    return rows


def as_json(rows):
    """The standings with their numbers as JSON shows them (number())."""
    return [dict(r, points=number(r["points"]), opponents=number(r["opponents"]))
            for r in rows]
