"""The seating of an event's rounds (host_tools.event.seating, `matchbox event seat`): the
perfect designs where they exist, every seating a partition of the present players into tables
within the size range, determinism, the lower bound, the leads and the history of rounds
already played."""
import itertools
import json
import subprocess
import sys

import pytest
from hypothesis import assume, given, settings, strategies as st

from host_tools.event import seating

CLI = [sys.executable, "-m", "host_tools.cli"]


def check_rounds(rounds, players, lo, hi):
    """Every round seats each player exactly once, at tables of lo-hi differing by one."""
    for tables in rounds:
        seated = [p for t in tables for p in t]
        assert sorted(seated) == sorted(players)
        sizes = [len(t) for t in tables]
        assert all(lo <= s <= hi for s in sizes), sizes
        assert max(sizes) - min(sizes) <= 1, sizes


@pytest.mark.parametrize("players,size,rounds", [(9, 3, 4), (16, 4, 5), (25, 5, 6)])
def test_the_affine_planes_are_found(players, size, rounds):
    out = seating.seat(players, rounds, size, size, seed=7)
    check_rounds(out, range(1, players + 1), size, size)
    assert len(out) == rounds
    met = seating.meetings(out)
    assert max(met.values()) == 1
    assert len(met) == players * (players - 1) // 2   # every pair met, exactly once
    led = seating.leads(out)
    assert max(led.values()) - min(led.get(p, 0) for p in range(1, players + 1)) <= 1


@pytest.mark.parametrize("q", seating.DESIGN_ORDERS)
def test_the_fields_are_fields(q):
    add, mul = seating.field(q)
    e = range(q)
    for a, b, c in itertools.product(e, e, e):
        assert mul[a][add[b][c]] == add[mul[a][b]][mul[a][c]]
        assert add[a][add[b][c]] == add[add[a][b]][c]
        assert mul[a][mul[b][c]] == mul[mul[a][b]][c]
    for a in range(1, q):
        assert sorted(mul[a][b] for b in e) == list(e)   # no zero divisors: an inverse
    assert sorted(add[1][b] for b in e) == list(e)


def test_gf4_is_not_arithmetic_mod_4():
    add, mul = seating.field(4)
    assert mul[2][2] == 3 and add[1][1] == 0   # x * x = x + 1; 1 + 1 = 0
    plane = seating.affine_plane(4)
    met = seating.meetings(plane)
    assert len(plane) == 5 and max(met.values()) == 1 and len(met) == 120


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 40), rounds=st.integers(1, 4), lo=st.integers(2, 8),
       span=st.integers(0, 3), seed=st.integers(0, 1000))
def test_every_seating_is_a_partition_in_range(players, rounds, lo, span, seed):
    hi = min(8, lo + span)
    fits = any(lo * t <= players <= hi * t for t in range(1, players + 1))
    if not fits:
        with pytest.raises(seating.SeatingError):
            seating.seat(players, rounds, lo, hi, seed)
        return
    out = seating.seat(players, rounds, lo, hi, seed)
    assert len(out) == rounds
    check_rounds(out, range(1, players + 1), lo, hi)
    sizes = [[len(t) for t in tables] for tables in out]
    assert seating.repeats(out) >= seating.lower_bound(players, sizes)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_the_lower_bound_holds_for_any_seating(data):
    """Random seatings (not the search's) never have fewer repeats than the bound."""
    players = data.draw(st.integers(4, 24))
    rounds = data.draw(st.integers(1, 6))
    lo = data.draw(st.integers(2, 4))
    try:
        sizes = seating.table_sizes(players, lo, lo + 1)
    except seating.SeatingError:
        assume(False)
    out = []
    for _ in range(rounds):
        order = data.draw(st.permutations(list(range(players))))
        tables, at = [], 0
        for s in sizes:
            tables.append(order[at:at + s])
            at += s
        out.append(tables)
    assert seating.repeats(out) >= seating.lower_bound(players, [sizes] * rounds)


def test_the_same_seed_gives_the_same_seating():
    a = seating.seat(30, 5, 4, 5, seed=3)
    assert a == seating.seat(30, 5, 4, 5, seed=3)
    assert a != seating.seat(30, 5, 4, 5, seed=4)


def test_table_sizes_even_and_fewest():
    assert seating.table_sizes(24, 3, 5) == [4] * 6       # alike: 6 of 4 before 8 of 3
    assert seating.table_sizes(23, 4, 5) == [5, 5, 5, 4, 4]
    assert seating.table_sizes(9, 3, 5) == [3, 3, 3]      # alike beats fewer (5 + 4)
    assert seating.table_sizes(7, 2, 8) == [7]
    with pytest.raises(seating.SeatingError, match="7 players cannot sit at tables of 4 to 5"):
        seating.table_sizes(7, 4, 5)
    with pytest.raises(seating.SeatingError):
        seating.table_sizes(1, 2, 2)


def test_200_players_8_rounds_no_repeat_and_leads_even():
    out = seating.seat(200, 8, 4, 4, seed=1)
    check_rounds(out, range(1, 201), 4, 4)
    assert seating.repeats(out) == 0
    led = seating.leads(out)
    assert set(led.values()) == {2}   # 400 leads, 2 each


def test_uneven_tables_are_shared_out():
    out = seating.seat(43, 4, 4, 5, seed=2)   # 7 tables of 5, 2 of 4 each round
    assert seating.repeats(out) == 0
    small = seating.small_seats(out)
    assert max(small.values()) - min(small.values()) <= 1   # 32 seats at a 4: nobody twice


def test_history_counts_and_players_come_and_go():
    first = seating.seat(9, 1, 3, 3, seed=5)
    rest = seating.plan(range(1, 10), 3, 3, 3, seed=5, history=first)
    assert seating.repeats(first + rest) == 0   # the rest of AG(2,3) is found around it
    # player 9 drops, 10 and 11 arrive: 10 players at 3-4
    later = seating.plan([1, 2, 3, 4, 5, 6, 7, 8, 10, 11], 2, 3, 4, seed=5,
                         history=first + rest)
    check_rounds(later, [1, 2, 3, 4, 5, 6, 7, 8, 10, 11], 3, 4)
    everyone = first + rest + later
    led = seating.leads(everyone)
    assert led.get(10, 0) + led.get(11, 0) >= 1   # the newcomers get leads
    # fewer repeats than seating the later rounds without the history
    alone = seating.plan([1, 2, 3, 4, 5, 6, 7, 8, 10, 11], 2, 3, 4, seed=5)
    assert seating.repeats(everyone) <= seating.repeats(first + rest + alone)


def test_a_player_named_twice_is_refused():
    with pytest.raises(seating.SeatingError, match="twice"):
        seating.plan(["Ann", "Ben", "Ann"], 1, 2, 3)


def run(*argv):
    return subprocess.run(CLI + ["event"] + list(argv), capture_output=True, text=True,
                          timeout=120)


def test_seat_prints_json():
    out = run("seat", "--players", "16", "--rounds", "5", "--table-size", "4", "--json")
    assert out.returncode == 0, out.stderr
    rounds = json.loads(out.stdout)["rounds"]
    check_rounds(rounds, range(1, 17), 4, 4)
    assert seating.repeats(rounds) == 0
    text = run("seat", "--players", "16", "--rounds", "5", "--table-size", "4")
    assert text.stdout.splitlines()[0].startswith("round 1: ")
    assert "repeated meetings 0 (lower bound 0)" in text.stdout


@pytest.mark.parametrize("argv,said", [
    (["--players", "7", "--rounds", "3", "--table-size", "4-5"],
     "matchbox event: --players: 7 players cannot sit at tables of 4 to 5\n"),
    (["--players", "8", "--rounds", "3", "--table-size", "5-4"],
     "matchbox event: --table-size: table sizes are 2 to 8 players, the smaller first (4-5)\n"),
    (["--players", "8", "--rounds", "3", "--table-size", "four"],
     "matchbox event: --table-size: 'four' is not a size or a range of sizes (4, or 4-5)\n"),
])
def test_seat_slips_are_one_line(argv, said):
    out = run("seat", *argv)
    assert (out.returncode, out.stdout, out.stderr) == (2, "", said)
