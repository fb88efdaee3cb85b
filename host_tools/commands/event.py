"""`matchbox event`: an event's rounds in the hall's folder (docs/event.md).

    matchbox event seat --players N --rounds R --table-size MIN-MAX [--seed S] [--json]

`seat` seats players 1..N for R rounds without an event, to try the seating: each round
every player at one table of MIN-MAX players, repeated meetings as few as the search finds,
the first-leader seat and the smaller tables shared out (host_tools.event.seating); `--json`
prints `{"rounds": [[[1, 5, 9], ...], ...]}`, a table's first player leading first.

Every slip is one line, `matchbox event: what: why`, status 2 (host_tools.errors).
"""
import json

from host_tools.errors import MatchboxError, int_in


def add_arguments(parser):
    sub = parser.add_subparsers(dest="event_command", metavar="ACTION",
                                parser_class=type(parser))
    sub.required = True
    seat = sub.add_parser("seat", help="seat players 1..N for R rounds (no event needed)",
                          description="seat players 1..N for R rounds at tables of MIN-MAX "
                                      "players: repeated meetings as few as possible, then "
                                      "the first leader and the smaller tables shared out")
    seat.add_argument("--players", type=int_in(2, 1000), required=True, metavar="N")
    seat.add_argument("--rounds", type=int_in(1, 30), required=True, metavar="R")
    seat.add_argument("--table-size", required=True, metavar="MIN-MAX",
                      help="players at a table: 4, or a range such as 4-5 (2 to 8)")
    seat.add_argument("--seed", type=int_in(0, 2 ** 63), default=0,
                      help="another seed gives another seating as good (default 0)")
    seat.add_argument("--json", action="store_true",
                      help='print {"rounds": [[[1, 5, 9], ...], ...]}')


def run(args):
    return {"seat": seat}[args.event_command](args)


def sizes(text):
    """(min, max) of --table-size; MatchboxError saying why not."""
    from host_tools.event import seating
    try:
        return seating.parse_sizes(text)
    except seating.SeatingError as exc:
        raise MatchboxError("--table-size", str(exc)) from None


def seat(args):
    from host_tools.event import seating
    lo, hi = sizes(args.table_size)
    try:
        rounds = seating.seat(args.players, args.rounds, lo, hi, args.seed)
    except seating.SeatingError as exc:
        raise MatchboxError("--players", str(exc)) from None
    if args.json:
        print(json.dumps({"rounds": rounds}))
        return 0
    for n, tables in enumerate(rounds, 1):
        print("round %d: %s" % (n, " | ".join(" ".join(map(str, t)) for t in tables)))
    print(summary(args.players, rounds))
    return 0


def summary(players, rounds):
    """One line: the repeated meetings against the lower bound, the leads and the smaller
    tables per player."""
    from host_tools.event import seating
    bound = seating.lower_bound(players, [[len(t) for t in tables] for tables in rounds])
    led = seating.leads(rounds)
    small = seating.small_seats(rounds)
    lead_counts = [led.get(p, 0) for p in small]
    return ("repeated meetings %d (lower bound %d); leads first %d-%d times a player; smaller "
            "tables %d-%d times a player" % (seating.repeats(rounds), bound, min(lead_counts),
                                            max(lead_counts), min(small.values()),
                                            max(small.values())))
