"""An event in the hall's folder (`matchbox event`, host_tools.event.store and scoring,
host_tools.hall.rounds): players, drops and late arrivals, rounds seated and opened, records
tied to their rounds (and flagged when they do not match), standings by round with the
organiser's rule for an unfinished game, and every slip one line that changes nothing."""
import json
import os
import subprocess
import sys
from fractions import Fraction

import pytest

import engine_helpers as eh
from host_tools.event import scoring, store
from host_tools.hall import rounds, standings as hall_standings
from tycoon import notation
from tycoon.game import Game, default_hands

CLI = [sys.executable, "-m", "host_tools.cli"]
NAMES = ["Ann", "Ben", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal"]


def event(*argv):
    return subprocess.run(CLI + ["event"] + [str(a) for a in argv], capture_output=True,
                          text=True, timeout=120)


def snapshot(folder):
    """{relative path: bytes} of everything under folder: what a refused command must leave
    as it was."""
    out = {}
    for here, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(here, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, folder)] = f.read()
    return out


@pytest.fixture
def hall(tmp_path):
    folder = str(tmp_path / "hall")
    out = event("create", folder, "--rounds", 3, "--table-size", 4, "--boxes", "t1,t2,t3",
                "--name", "Friday cup")
    assert out.returncode == 0, out.stderr
    assert event("add", folder, *NAMES).returncode == 0
    return folder


def played(seed, players, finish=True, max_actions=400):
    """The record of a random game of `players` (as the box's setup: dealer 1, 40 sticks)."""
    rng = eh.Lcg(seed)
    game = Game(players, 1, "none", 5, 40, default_hands(players, "none"))
    for _ in range(max_actions if finish else 6):
        if game.finished:
            break
        eh.step(game, rng)
    return game, notation.write(game)


def put(hall, box, game_id, text):
    folder = os.path.join(hall, "tables", box)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, game_id + ".txt"), "w") as f:
        f.write(text)


def tied(hall):
    ev = store.load(hall)
    reader = hall_standings.Reader()
    return ev, rounds.tie(ev, rounds.games(hall), rounds.reader_of(hall, reader))


def test_an_event_in_plain_files(hall):
    out = event("next", hall)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("round 1 of 3: 8 players at 2 tables")
    files = snapshot(os.path.join(hall, "event"))
    assert sorted(files) == ["event.json", "plan.json", "players.csv", "round-1.json"]
    assert files["players.csv"].decode().splitlines()[:2] == ["name,from_round,left_after",
                                                              "Ann,1,"]
    r1 = json.loads(files["round-1.json"])
    assert [t["box"] for t in r1["tables"]] == ["t1", "t2"]
    assert sorted(p for t in r1["tables"] for p in t["players"]) == sorted(NAMES)
    config = json.loads(files["event.json"])
    assert config["table_size"] == [4, 4] and config["unfinished"] == "standing"


def test_drops_and_late_arrivals_between_rounds(hall):
    assert event("next", hall).returncode == 0
    assert event("drop", hall, "Ann", "Ben").returncode == 0
    assert event("add", hall, "Ivy", "Jon").returncode == 0
    assert event("next", hall).returncode == 0
    ev = store.load(hall)
    r2 = [p for t in ev.rounds[1]["tables"] for p in t["players"]]
    assert sorted(r2) == sorted(NAMES[2:] + ["Ivy", "Jon"])
    assert ev.player("Ivy").first == 2 and ev.player("Ann").left == 1


@pytest.mark.parametrize("argv,said", [
    (["add", "{hall}", "ann"], "matchbox event: ann: a player of that name is in the event "
                               "already\n"),
    (["add", "{hall}", "Zed", "Zed"], "matchbox event: Zed: a player of that name is in the "
                                      "event already\n"),
    (["drop", "{hall}", "Zed"], "matchbox event: Zed: no player of that name in the event\n"),
    (["create", "{hall}", "--rounds", "2", "--table-size", "4"],
     "matchbox event: {hall}: it holds an event already ({hall}/event/event.json)\n"),
    (["claim", "{hall}", "1", "1", "t1/001-00000000"],
     "matchbox event: ROUND: round 1 has not been seated (rounds 1 to 0 have)\n"),
])
def test_slips_are_one_line_and_change_nothing(hall, argv, said):
    before = snapshot(hall)
    out = event(*[a.format(hall=hall) for a in argv])
    assert (out.returncode, out.stdout, out.stderr) == (2, "", said.format(hall=hall))
    assert snapshot(hall) == before


def test_a_round_with_too_few_players_changes_nothing(hall):
    assert event("drop", hall, "Ann").returncode == 0
    before = snapshot(hall)
    out = event("next", hall)
    assert (out.returncode, out.stderr) == (
        2, "matchbox event: round 1: 7 players cannot sit at tables of 4\n")
    assert snapshot(hall) == before


def test_a_record_claimed_by_two_rounds_is_refused(hall):
    assert event("next", hall).returncode == 0
    assert event("next", hall).returncode == 0
    put(hall, "t3", "001-0000abcd", played(1, 4)[1])
    assert event("claim", hall, 1, 2, "t3/001-0000abcd").returncode == 0
    before = snapshot(hall)
    out = event("claim", hall, 2, 1, "t3/001-0000abcd")
    assert out.returncode == 2 and out.stderr == (
        "matchbox event: t3/001-0000abcd: is claimed by round 1 table 2 already (untie it "
        "first: event claim DIR 1 2 --none)\n")
    assert snapshot(hall) == before
    assert event("claim", hall, 1, 2, "--none").returncode == 0
    assert event("claim", hall, 2, 1, "t3/001-0000abcd").returncode == 0


def test_bad_csv_and_names_change_nothing(hall, tmp_path):
    bad = tmp_path / "players.csv"
    bad.write_text("name\nKim\n  \nLeo\nKim\n")
    before = snapshot(hall)
    out = event("add", hall, "--players", bad)
    assert out.returncode == 2 and "Kim: a player of that name is in the event already" in \
        out.stderr
    out = event("add", hall, "Bad\tName")
    assert out.returncode == 2 and "control characters" in out.stderr
    assert snapshot(hall) == before
    good = tmp_path / "more.csv"
    good.write_text("\ufeffname,club\nKim,A\nLeo,B\n")
    assert event("add", hall, "--players", good).returncode == 0
    assert [p.name for p in store.load(hall).players][-2:] == ["Kim", "Leo"]


def test_records_are_tied_to_their_rounds_and_flagged(hall):
    put(hall, "t1", "001-00000001", played(1, 4)[1])            # before the event: not counted
    assert event("next", hall).returncode == 0
    ev = store.load(hall)
    assert ev.rounds[0]["before"] == {"t1": ["001-00000001"]}
    first, text = played(2, 4)
    put(hall, "t1", "002-00000002", text)                        # round 1, table 1: finished
    put(hall, "t2", "001-00000003", played(3, 3)[1])             # table 2: 3 players, flagged
    ev, out = tied(hall)
    t1, t2 = out[0]["tables"]
    assert t1["record"] == "t1/002-00000002" and t1["counted"] and t1["finished"]
    assert t1["ranking"] == list(first.ranking)
    assert not t2["counted"] and t2["flags"] == [
        "t2/001-00000003: 3 players, the round seated 4 (not counted)"]
    # a game numbered before a game the box had when the round opened started before it
    put(hall, "t1", "000-00000009", played(4, 4)[1])
    ev, out = tied(hall)
    assert "t1/000-00000009: started before round 1" in out[0]["tables"][0]["flags"]
    # the next round opens: games after it are its own, not round 1's
    assert event("next", hall).returncode == 0
    put(hall, "t2", "002-00000004", played(5, 4)[1])
    ev, out = tied(hall)
    assert not out[0]["tables"][1]["counted"]
    assert out[1]["tables"][1]["record"] == "t2/002-00000004"
    # claimed by hand for round 1, table 2 while it counts for round 2: one line, nothing
    # changed; with --move it is that table's, and no longer round 2's
    before = snapshot(hall)
    out = event("claim", hall, 1, 2, "t2/002-00000004")
    assert out.returncode == 2 and out.stderr == (
        "matchbox event: t2/002-00000004: counts for round 2 table 2 (it was played there): "
        "--move takes it from there\n")
    assert snapshot(hall) == before
    out = event("claim", hall, 1, 2, "t2/002-00000004", "--move")
    assert out.returncode == 0 and "taken from round 2 table 2" in out.stdout
    ev, out = tied(hall)
    assert out[0]["tables"][1]["record"] == "t2/002-00000004"
    assert not out[1]["tables"][1]["counted"]
    # a game the hall had when round 2 opened, claimed for round 2, started before it
    assert event("claim", hall, 2, 1, "t1/002-00000002", "--move").returncode == 0
    ev, out = tied(hall)
    assert out[1]["tables"][0]["flags"] == ["t1/002-00000002: started before round 2"]
    assert not out[0]["tables"][0]["counted"]   # claimed away from round 1 by round 2


def test_standings_by_round_match_the_places(hall):
    assert event("next", hall).returncode == 0
    ev = store.load(hall)
    games = {}
    for n, table in enumerate(ev.rounds[0]["tables"]):
        game, text = played(10 + n, 4)
        games[table["box"]] = (game, table["players"])
        put(hall, table["box"], "001-0000000%d" % n, text)
    out = event("standings", hall, "--json")
    assert out.returncode == 0, out.stderr
    rows = {r["name"]: r for r in json.loads(out.stdout)["players"]}
    for game, players in games.values():
        for place, seat in enumerate(game.ranking, 1):
            assert rows[players[seat - 1]]["points"] == 4 - place   # tables of 4: n - place
            assert rows[players[seat - 1]]["places"] == ["%d/4" % place]
    assert json.loads(out.stdout)["round"] == 1


def table(players, ranking, finished, cards=(), sticks=()):
    return {"players": players, "counted": True, "finished": finished, "ranking": ranking,
            "cards": list(cards), "sticks": list(sticks)}


def test_scale_and_points():
    assert scoring.scale(4, 4) == 3 and scoring.scale(4, 5) == 12 and scoring.scale(2, 8) == 420
    top = scoring.scale(4, 5)
    assert [scoring.place_points(k, 4, top) for k in range(1, 5)] == [12, 8, 4, 0]
    assert [scoring.place_points(k, 5, top) for k in range(1, 6)] == [12, 9, 6, 3, 0]


def test_unfinished_rules():
    t = table(["A", "B", "C", "D"], [3], False, cards=[5, 2, 0, 2], sticks=[1, 3, 0, 3])
    standing = scoring.settle(t, "standing", 3)
    # C out first: 3; B and D hold 2 cards and 3 sticks each: share places 2-3 (2 + 1) / 2;
    # A with 5 cards last
    assert standing == {3: (3, "1/4"), 2: (Fraction(3, 2), "2-3/4"), 4: (Fraction(3, 2), "2-3/4"),
                        1: (0, "4/4")}
    shared = scoring.settle(t, "shared", 3)
    assert shared[1] == shared[2] == shared[4] == (1, "2-4/4")
    assert scoring.settle(t, "void", 3) is None
    done = table(["A", "B"], [2, 1], True)
    assert scoring.settle(done, "void", 1) == {2: (1, "1/2"), 1: (0, "2/2")}


def test_tie_breaks_opponents_then_firsts_then_shared():
    r1 = [table(["A", "B", "C", "D"], [1, 2, 3, 4], True),
          table(["E", "F", "G", "H"], [1, 2, 3, 4], True)]
    r2 = [table(["B", "A", "G", "H"], [1, 2, 3, 4], True),
          table(["F", "E", "C", "D"], [1, 2, 3, 4], True)]
    rows = scoring.standings(list("ABCDEFGH"), [r1, r2], "standing", 3)
    # A, B, E, F have 5 points, their opponents 14 points each, one first place each: shared
    assert [(r["name"], r["rank"], r["points"], r["opponents"]) for r in rows[:4]] == [
        (n, 1, 5, 14) for n in "ABEF"]
    assert all(r["shared"] for r in rows[:4])
    # C and G: 2 points each; C's opponents (A B D, F E D) 15, G's (E F H, B A H) 15: first
    # places none: shared again
    assert [(r["name"], r["rank"]) for r in rows[4:6]] == [("C", 5), ("G", 5)]
    # one more game for C, second at a table of strong opponents: C ahead on points
    r3 = [table(["A", "C"], [1, 2], True)]
    rows = scoring.standings(list("ABCDEFGH"), [r1, r2, r3], "standing", 3)
    assert [r["name"] for r in rows][0] == "A" and rows[0]["rank"] == 1 and not rows[0]["shared"]
    for a, b in zip(rows, rows[1:]):   # sorted by points, opponents' points, first places
        assert (a["points"], a["opponents"], a["firsts"]) >= (b["points"], b["opponents"],
                                                              b["firsts"])
        assert (a["rank"] == b["rank"]) == ((a["points"], a["opponents"], a["firsts"]) ==
                                            (b["points"], b["opponents"], b["firsts"]))


def test_an_unfinished_game_is_settled_in_the_standings(hall):
    subprocess.run(CLI + ["event", "next", hall], check=True, capture_output=True)
    ev = store.load(hall)
    game, text = played(20, 4, finish=False)
    box = ev.rounds[0]["tables"][0]["box"]
    put(hall, box, "001-000000aa", text)
    ev, out = tied(hall)
    t = out[0]["tables"][0]
    assert t["counted"] and not t["finished"]
    rows = rounds.standings(ev, out)
    places = {r["name"]: r["places"][0] for r in rows}
    assert all(places[p] != "-" for p in t["players"])
    assert all(places[p] == "-" for p in ev.rounds[0]["tables"][1]["players"])


PDFTOTEXT = __import__("shutil").which("pdftotext")


@pytest.mark.skipif(PDFTOTEXT is None, reason="apt-get install poppler-utils (pdftotext)")
def test_print_writes_the_sheets_in_three_languages(hall, tmp_path):
    assert event("add", hall, "山田", "Zoë", "Ödön", "Ivy").returncode == 0
    assert event("next", hall).returncode == 0
    out = tmp_path / "sheets"
    done = event("print", hall, "-o", out)
    assert done.returncode == 0, done.stderr
    ev = store.load(hall)
    for lang, title in (("en", "Seating, round 1"), ("de", "Sitzplan, Runde 1"),
                        ("ja", "座席表")):
        path = out / ("round-1-%s.pdf" % lang)
        assert str(path) in done.stdout
        text = subprocess.run([PDFTOTEXT, str(path), "-"], capture_output=True,
                              text=True).stdout
        assert title in text
        for t in ev.rounds[0]["tables"]:
            for name in t["players"]:
                assert name in text
    standings = event("print", hall, "-o", out, "--standings", "--lang", "de")
    assert standings.returncode == 0 and (out / "standings-1-de.pdf").exists()


def test_print_refuses_a_name_no_font_has_and_writes_nothing(hall, tmp_path):
    assert event("add", hall, "\U00013000").returncode == 0   # an Egyptian hieroglyph
    assert event("next", hall).returncode == 2   # 9 players at 4: cannot be seated
    assert event("drop", hall, "Ann").returncode == 0
    assert event("next", hall).returncode == 0
    out = tmp_path / "sheets"
    done = event("print", hall, "-o", out, "--lang", "en")
    assert done.returncode == 2 and done.stderr.startswith("matchbox event: print: no font")
    assert not out.exists() or not list(out.iterdir())
