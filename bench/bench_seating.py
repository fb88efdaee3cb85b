"""The seating of an event's rounds (host_tools.event.seating) over 7 to 200 players and 3 to
10 rounds, at tables of 3-5 (the sizes `table_sizes` picks: all alike where it can, then the
fewest tables), and the three affine planes at their own sizes: repeated meetings (a pair at
one table again, m - 1 for a pair that met m times) against the lower bound
(seating.lower_bound: the meetings less the pairs there are, or the pigeonholes between two
rounds, the larger) and against a random seating with the same table sizes (the mean of
RANDOMS seatings), the leads and smaller tables per player, and the time (CPython, one run
a case, seed 0). Prints a table (--json: one JSON object). docs/event.md has the figures.

Run: .venv/bin/python bench/bench_seating.py [--json] [--players 7,9,...] [--rounds 3,5,...]
"""
import argparse
import json
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from host_tools.event import seating  # noqa: E402

PLAYERS = (7, 9, 12, 16, 20, 25, 32, 40, 50, 64, 100, 150, 200)
ROUNDS = (3, 5, 8, 10)
SIZES = (3, 5)
DESIGNS = ((9, 3, 4), (16, 4, 5), (25, 5, 6))   # players, table size, rounds
RANDOMS = 5


def random_repeats(players, sizes, rounds, seed):
    """The mean repeated meetings of RANDOMS random seatings with these table sizes."""
    rng = random.Random(seed)
    total = 0
    for _ in range(RANDOMS):
        out = []
        for _ in range(rounds):
            order = list(range(players))
            rng.shuffle(order)
            tables, at = [], 0
            for s in sizes:
                tables.append(order[at:at + s])
                at += s
            out.append(tables)
        total += seating.repeats(out)
    return total / RANDOMS


def case(players, rounds, lo, hi):
    began = time.perf_counter()
    out = seating.seat(players, rounds, lo, hi, seed=0)
    seconds = time.perf_counter() - began
    sizes = [len(t) for t in out[0]]
    led = seating.leads(out)
    small = seating.small_seats(out)
    leads = [led.get(p, 0) for p in range(1, players + 1)]
    return {"players": players, "rounds": rounds, "sizes": "%d-%d" % (lo, hi),
            "tables": sizes, "repeats": seating.repeats(out),
            "lower_bound": seating.lower_bound(players, [sizes] * rounds),
            "random": random_repeats(players, sizes, rounds, players * 100 + rounds),
            "leads": [min(leads), max(leads)],
            "smaller_tables": [min(small.values()), max(small.values())],
            "seconds": round(seconds, 3)}


def shape(sizes):
    """'5x4 2x3': tables of each size."""
    return " ".join("%dx%d" % (sizes.count(s), s) for s in sorted(set(sizes), reverse=True))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bench_seating.py", description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument("--players", help="player counts, comma-separated")
    parser.add_argument("--rounds", help="round counts, comma-separated")
    parser.add_argument("--strict", action="store_true", help="(no goals here: accepted for "
                        "run_all.py)")
    args = parser.parse_args(argv)
    players = [int(n) for n in args.players.split(",")] if args.players else PLAYERS
    rounds = [int(n) for n in args.rounds.split(",")] if args.rounds else ROUNDS
    cases = [case(n, r, q, q) for n, q, r in DESIGNS] if not args.players else []
    cases += [case(n, r, *SIZES) for n in players for r in rounds]
    if args.json:
        print(json.dumps({"rung": "CPython %d.%d" % sys.version_info[:2], "cases": cases},
                         indent=1))
        return 0
    print("Seating (CPython %d.%d, seed 0): repeated meetings against the lower bound and a "
          "random seating (mean of %d)" % (sys.version_info[:2] + (RANDOMS,)))
    print("%7s %6s %5s %-9s %7s %6s %7s %6s %6s %7s" % (
        "players", "rounds", "sizes", "tables", "repeats", "bound", "random", "leads",
        "small", "time"))
    for c in cases:
        print("%7d %6d %5s %-9s %7d %6d %7.1f %6s %6s %6.2fs" % (
            c["players"], c["rounds"], c["sizes"], shape(c["tables"]), c["repeats"],
            c["lower_bound"], c["random"], "%d-%d" % tuple(c["leads"]),
            "%d-%d" % tuple(c["smaller_tables"]), c["seconds"]))
    at_bound = sum(1 for c in cases if c["repeats"] == c["lower_bound"])
    print("%d of %d cases at the lower bound; the slowest %.2f s" % (
        at_bound, len(cases), max(c["seconds"] for c in cases)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
