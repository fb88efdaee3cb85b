"""A whole event over the hall's MQTT: 24 players, 3 rounds at tables of 4, six virtual boxes
(the firmware under the MicroPython unix port, each with the hall's settings: its own MQTT
link). Each round the hall sends every box its table's setup; each box shows it (`t  N`), one
PLAY starts the game with it, and the table plays a random game through the box's keys (one
table of round 3 stops before its game is over: the event's rule settles it). After each round
the standings `matchbox event standings` and the hall's page give are the ones worked out
here by hand from the boxes' own records and the round's seating."""
import concurrent.futures
import json
import os
import subprocess
import sys
from fractions import Fraction

import pytest

import engine_helpers as eh
from box_helpers import shown
from hall_helpers import all_delivered, box_games, key_in, linked_box, served
from host_tools.hall import uplink
from host_tools.virtual.box import action_keys
from tycoon import notation
from tycoon.game import PASS, PLAY, RETURN, Game, default_hands

pytestmark = pytest.mark.timeout(300)
CLI = [sys.executable, "-m", "host_tools.cli"]
BOXES = tuple("t%d" % (i + 1) for i in range(6))
NAMES = ["Ann", "Ben", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon", "Kim", "Leo",
         "Mia", "Ned", "Ola", "Pia", "Quy", "Rex", "Sam", "Tom", "Uma", "Vic", "Wes", "Zoë"]
UNFINISHED = (3, "t4")   # round 3's game on t4 stops after 30 actions


def event(*argv):
    out = subprocess.run(CLI + ["event"] + [str(a) for a in argv], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def brisk(game, rng):
    """A legal action of a table in a hurry: the largest play found, a pass only when none."""
    if game.must_return():
        return (RETURN, (), None)
    plays = eh.legal_plays(game, rng, 40)
    if plays:
        cards, value = max(plays, key=lambda p: len(p[0]))
        return (PLAY, cards, value)
    if game.table is not None:
        return (PASS, (), None)
    return eh.choose(game, rng)


def actions(seed, stop=None):
    """The keys of a random game of the round's setup (4 players, seat 1 leads), each action a
    list of keys; `stop`: that many actions at most."""
    rng = eh.Lcg(seed)
    game = Game(4, 1, "none", 5, 40, default_hands(4, "none"))
    out = []
    while not game.finished and (stop is None or len(out) < stop):
        eh.apply(game, brisk(game, rng))
        out.append(action_keys(*list(game.actions())[-1]))
    return out


def play_table(box, table, keys):
    """The table's box shows the hall's setup (`t  N`), one PLAY starts it, then the keys."""
    want = shown("t%3d" % table)
    assert uplink.pump(box, lambda: box.displays()[0] == want, 30), box.displays()
    key_in(box, ["PLAY"])
    state = box.state()
    assert state is not None and state["players"] == 4
    for action in keys:
        key_in(box, action)
    assert all_delivered(box, 60) is True, box.flash


def by_hand(rounds_played, records):
    """{name: (points, games, places)} after the rounds: tables of 4, place k worth 4 - k
    (the event's scale for tables of 4 is 3: 3, 2, 1, 0); an unfinished game placed as it
    stands (the players out first, the others by cards, then matchsticks; alike: shared)."""
    points, games, places = {}, {}, {}
    for k, tables in enumerate(rounds_played):
        for t in tables:
            game, error = notation.load(records[(k + 1, t["box"])].decode().splitlines())
            assert error is None
            order = [[s] for s in game.ranking]
            if not game.finished:
                rest = sorted((s for s in range(1, 5) if s not in game.ranking),
                              key=lambda s: (game.cards[s - 1], game.sticks[s - 1]))
                for s in rest:
                    key = (game.cards[s - 1], game.sticks[s - 1])
                    if len(order) > len(game.ranking) and \
                            (game.cards[order[-1][0] - 1], game.sticks[order[-1][0] - 1]) == key:
                        order[-1].append(s)
                    else:
                        order.append([s])
            place = 1
            for group in order:
                share = Fraction(sum(4 - p for p in range(place, place + len(group))),
                                 len(group))
                for s in group:
                    name = t["players"][s - 1]
                    points[name] = points.get(name, 0) + share
                    games[name] = games.get(name, 0) + 1
                    places.setdefault(name, []).append(
                        "%d/4" % place if len(group) == 1
                        else "%d-%d/4" % (place, place + len(group) - 1))
                place += len(group)
    return points, games, places


def as_shown(value):
    return int(value) if value.denominator == 1 else round(float(value), 2)


def test_a_whole_event(tmp_path, say_count):
    with served(tmp_path, "amqtt", boxes=BOXES) as hall:
        folder = hall.folder
        event("create", folder, "--rounds", 3, "--table-size", 4, "--name", "Test cup")
        event("add", folder, *NAMES)
        boxes = {}
        for name in BOXES:
            boxes[name] = linked_box(str(tmp_path / name), hall.urls[name])
            boxes[name].boot()
        records, seated = {}, []
        try:
            for k in (1, 2, 3):
                event("next", folder)
                rnd = json.loads(open(os.path.join(folder, "event", "round-%d.json" % k)).read())
                seated.append(rnd["tables"])
                # the tables play at once, as in a hall (a thread a box: each its own process)
                with concurrent.futures.ThreadPoolExecutor(len(rnd["tables"])) as pool:
                    done = [pool.submit(play_table, boxes[t["box"]], t["table"],
                                        actions(1000 * k + n, 30 if (k, t["box"]) == UNFINISHED
                                                else None))
                            for n, t in enumerate(rnd["tables"])]
                    for future in done:
                        future.result()
                for t in rnd["tables"]:
                    records[(k, t["box"])] = box_games(boxes[t["box"]].flash)[-1][1]
                points, games, places = by_hand(seated, records)
                got = json.loads(event("standings", folder, "--json"))
                assert got["round"] == k
                rows = {r["name"]: r for r in got["players"]}
                assert sorted(rows) == sorted(NAMES)
                for name in NAMES:
                    assert rows[name]["points"] == as_shown(points[name]), name
                    assert rows[name]["games"] == games[name]
                    assert rows[name]["places"] == places[name], name
                # the tie-breaks by hand: the points of the opponents met, then first places
                met = {name: [] for name in NAMES}
                for tables in seated:
                    for t in tables:
                        for name in t["players"]:
                            met[name] += [x for x in t["players"] if x != name]
                opponents = {n: sum((points[x] for x in met[n]), Fraction(0)) for n in NAMES}
                firsts = {n: places[n].count("1/4") for n in NAMES}
                order = sorted(NAMES, key=lambda n: (-points[n], -opponents[n], -firsts[n],
                                                     n.casefold()))
                assert [r["name"] for r in got["players"]] == order
                assert all(rows[n]["opponents"] == as_shown(opponents[n]) for n in NAMES)
                page = json.loads(hall.get("/event.json"))
                assert page["round"] == k and page["standings"] == got["players"]
                assert [t["players"] for t in page["tables"]] == [t["players"] for t in
                                                                   rnd["tables"]]
                assert all(t["counted"] for t in page["tables"])
        finally:
            for box in boxes.values():
                box.close()
    unfinished = [t for t in page["tables"] if not t["finished"]]
    assert [t["box"] for t in unfinished] == [UNFINISHED[1]]
    say_count("event: 24 players, 3 rounds, 6 boxes over MQTT, 18 games (1 unfinished): the "
              "standings after each round as worked out from the records")
