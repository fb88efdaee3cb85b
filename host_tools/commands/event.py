"""`matchbox event`: an event's rounds in the hall's folder (docs/event.md).

    matchbox event create DIR --rounds R --table-size MIN-MAX [--players FILE.csv]
                              [--boxes t1,t2,...] [--seed S] [--unfinished RULE] [--name TEXT]
                              [--expansion 0|2|4] [--revolution 4|5] [--sticks N]
    matchbox event add DIR NAME ... [--players FILE.csv]   players; after round 1: late arrivals
    matchbox event drop DIR NAME ...                       they play no round after this one
    matchbox event next DIR [--boxes t1,t2,...]             seat and open the next round
    matchbox event claim DIR ROUND TABLE BOX/GAME [--move] | --none  tie a record to a table by hand
    matchbox event show DIR [--json]                        the rounds, tables, records, flags
    matchbox event standings DIR [--round K] [--json]
    matchbox event print DIR [--round K] [--standings] [--lang en,de,ja] [-o FOLDER]
    matchbox event seat --players N --rounds R --table-size MIN-MAX [--seed S] [--json]

The event lives in DIR/event/ (host_tools.event.store): plain files a person can read. The
hall (`matchbox hall serve DIR`) sends each box its table's setup when a round opens, ties
each table's record to its round and shows the round and the standings on its page.

`seat` seats players 1..N for R rounds without an event, to try the seating: each round
every player at one table of MIN-MAX players, repeated meetings as few as the search finds,
the first dealer's seat and the smaller tables shared out (host_tools.event.seating); `--json`
prints `{"rounds": [[[1, 5, 9], ...], ...]}`, a table's first player leading first.

Every slip is one line, `matchbox event: what: why`, status 2 (host_tools.errors), and
changes nothing stored.
"""
import json
import os

from host_tools.errors import MatchboxError, check_folder, int_in


def _hall(parser):
    parser.add_argument("dir", metavar="DIR", help="the hall's folder (matchbox hall serve DIR)")


def add_arguments(parser):
    sub = parser.add_subparsers(dest="event_command", metavar="ACTION",
                                parser_class=type(parser))
    sub.required = True
    create = sub.add_parser("create", help="make the event in a hall's folder",
                            description="make the event in the hall's folder DIR: its rounds, "
                                        "table sizes, boxes and players")
    _hall(create)
    create.add_argument("--players", metavar="FILE.csv",
                        help="the players' names from a CSV file (its first column); or "
                             "add them after with `event add DIR NAME ...`")
    create.add_argument("--rounds", type=int_in(1, 30), required=True, metavar="R")
    create.add_argument("--table-size", required=True, metavar="MIN-MAX",
                        help="players at a table: 4, or a range such as 4-5 (2 to 8)")
    create.add_argument("--boxes", metavar="t1,t2,...",
                        help="the boxes, table 1's first (default: the boxes enrolled in the "
                             "hall, in the order of their names)")
    create.add_argument("--seed", type=int_in(0, 2 ** 63), default=0,
                        help="the seating's seed (default 0)")
    create.add_argument("--unfinished", choices=("standing", "shared", "void"),
                        default="standing",
                        help="a game unfinished at the round's end: placed as it stands "
                             "(by cards, then matchsticks), the places left shared, or void "
                             "(default standing)")
    create.add_argument("--name", default="", help="the event's name on the sheets and page")
    create.add_argument("--expansion", type=int, choices=(0, 2, 4), default=0,
                        help="copies of G and H in every table's deck (default 0)")
    create.add_argument("--revolution", type=int, choices=(4, 5), default=5,
                        help="cards of a revolution (default 5; 4 the house variant)")
    create.add_argument("--sticks", type=int_in(0, 99), default=40,
                        help="matchsticks in every table's box (default 40)")
    add = sub.add_parser("add", help="add players (after round 1: they join from the next)")
    _hall(add)
    add.add_argument("names", nargs="*", metavar="NAME")
    add.add_argument("--players", metavar="FILE.csv", help="names from a CSV file")
    drop = sub.add_parser("drop", help="players who leave: seated in no later round")
    _hall(drop)
    drop.add_argument("names", nargs="+", metavar="NAME")
    nxt = sub.add_parser("next", help="seat and open the next round",
                         description="seat the next round and open it: the hall sends each "
                                     "box its table's setup; games started from now on are "
                                     "this round's")
    _hall(nxt)
    nxt.add_argument("--boxes", metavar="t1,t2,...", help="the boxes from this round on")
    claim = sub.add_parser("claim", help="tie a record to a round's table by hand")
    _hall(claim)
    claim.add_argument("round", type=int_in(1, 30), metavar="ROUND")
    claim.add_argument("table", type=int_in(1, 500), metavar="TABLE")
    claim.add_argument("record", nargs="?", metavar="BOX/GAME",
                       help="the record as the hall keeps it: tables/BOX/GAME.txt")
    claim.add_argument("--none", action="store_true", help="untie the table's claimed record")
    claim.add_argument("--move", action="store_true",
                       help="take the record from the round's table it counts for now")
    show = sub.add_parser("show", help="the rounds: tables, players, records, flags")
    _hall(show)
    show.add_argument("--json", action="store_true")
    st = sub.add_parser("standings", help="the standings after a round")
    _hall(st)
    st.add_argument("--round", type=int_in(1, 30), metavar="K",
                    help="after round K (default: the rounds so far)")
    st.add_argument("--json", action="store_true")
    pr = sub.add_parser("print", help="the round's sheets as PDF: seating list, slips, "
                                      "standings",
                        description="write round-K-LANG.pdf (the seating list by name, a slip "
                                    "a table, the standings after the round before) or, with "
                                    "--standings, standings-K-LANG.pdf")
    _hall(pr)
    pr.add_argument("--round", type=int_in(1, 30), metavar="K",
                    help="the round (default: the one seated last)")
    pr.add_argument("--standings", action="store_true",
                    help="only the standings after round K, as the records stand")
    pr.add_argument("--lang", default="en,de,ja", metavar="en,de,ja",
                    help="the languages, each a PDF (default all three)")
    pr.add_argument("-o", "--output", metavar="FOLDER", default=".",
                    help="the folder to write them in (default: here)")
    seat = sub.add_parser("seat", help="seat players 1..N for R rounds (no event needed)",
                          description="seat players 1..N for R rounds at tables of MIN-MAX "
                                      "players: repeated meetings as few as possible, then "
                                      "the first dealer and the smaller tables shared out")
    seat.add_argument("--players", type=int_in(2, 1000), required=True, metavar="N")
    seat.add_argument("--rounds", type=int_in(1, 30), required=True, metavar="R")
    seat.add_argument("--table-size", required=True, metavar="MIN-MAX",
                      help="players at a table: 4, or a range such as 4-5 (2 to 8)")
    seat.add_argument("--seed", type=int_in(0, 2 ** 63), default=0,
                      help="another seed gives another seating as good (default 0)")
    seat.add_argument("--json", action="store_true",
                      help='print {"rounds": [[[1, 5, 9], ...], ...]}')


def run(args):
    return {"create": create, "add": add, "drop": drop, "next": next_round, "claim": claim,
            "show": show, "standings": standings, "print": print_sheets,
            "seat": seat}[args.event_command](args)


def _event(hall):
    from host_tools.event import store
    try:
        return store.load(hall)
    except store.EventError as exc:
        raise MatchboxError(exc.what, exc.why) from None


def _change(do, *args):
    """do(*args), its EventError one line."""
    from host_tools.event import store
    try:
        return do(*args)
    except store.EventError as exc:
        raise MatchboxError(exc.what, exc.why) from None


def _names(args):
    from host_tools.event import store
    names = list(getattr(args, "names", ()))
    if args.players:
        names += _change(store.names_from_csv, args.players)
    return names


def _boxes(text, hall):
    if text is not None:
        return [b.strip() for b in text.split(",") if b.strip()]
    from host_tools.hall import accounts
    return sorted(accounts.boxes(hall), key=lambda b: (len(b), b))


def create(args):
    from host_tools.event import store
    lo, hi = sizes(args.table_size)
    check_folder(args.dir, "folder for the hall")
    if store.exists(args.dir):
        raise MatchboxError(args.dir, "it holds an event already (%s)" % os.path.join(
            store.folder(args.dir), "event.json"))
    names = _names(args)
    boxes = _boxes(args.boxes, args.dir)
    if not boxes:
        raise MatchboxError("--boxes", "no box enrolled in %s: enrol them first (matchbox hall "
                            "enrol %s t1) or name them (--boxes t1,t2,...)" % (args.dir, args.dir))
    config = {"name": args.name, "rounds": args.rounds, "table_size": [lo, hi],
              "seed": args.seed, "unfinished": args.unfinished, "boxes": boxes,
              "expansion": args.expansion, "revolution": args.revolution,
              "sticks": args.sticks}
    event = _change(store.create, args.dir, config, names)
    print("event %s: %d rounds at tables of %s, %d players, boxes %s (%s)" % (
        event.config["id"], args.rounds, args.table_size, len(names), ",".join(boxes),
        os.path.join(store.folder(args.dir), "event.json")))
    return 0


def add(args):
    from host_tools.event import store
    event = _event(args.dir)
    names = _names(args)
    if not names:
        raise MatchboxError("NAME", "give the players' names (or --players FILE.csv)")
    added = _change(store.add, event, names)
    print("added %d player%s, from round %d: %s" % (
        len(added), "" if len(added) == 1 else "s", event.seated + 1, ", ".join(added)))
    return 0


def drop(args):
    from host_tools.event import store
    event = _event(args.dir)
    gone = _change(store.drop, event, args.names)
    print("%s: seated in no round after round %d" % (", ".join(gone), event.seated))
    return 0


def next_round(args):
    from host_tools.event import store
    from host_tools.hall import rounds
    event = _event(args.dir)
    boxes = _boxes(args.boxes, args.dir) if args.boxes else None
    record = _change(store.next_round, event, rounds.games(args.dir), boxes)
    print("round %d of %d: %d players at %d tables" % (
        record["round"], event.config["rounds"],
        sum(len(t["players"]) for t in record["tables"]), len(record["tables"])))
    for t in record["tables"]:
        print("  table %d (%s): %s" % (t["table"], t["box"], ", ".join(t["players"])))
    return 0


def claim(args):
    from host_tools.event import store
    if (args.record is None) == (not args.none):
        raise MatchboxError("BOX/GAME", "give the record (BOX/GAME) or --none")
    event = _event(args.dir)
    taken = None
    if not args.none and args.record not in event.claims.values():
        # a record another table counts now is moved only when asked to (one claimed by hand
        # for another table store.claim refuses)
        for rnd in _tied(args.dir, event):
            for t in rnd["tables"]:
                if t["counted"] and t["record"] == args.record \
                        and (rnd["round"], t["table"]) != (args.round, args.table):
                    taken = (rnd["round"], t["table"])
        if taken is not None and not args.move:
            raise MatchboxError(args.record, "counts for round %d table %d (it was played "
                                "there): --move takes it from there" % taken)
    _change(store.claim, event, args.round, args.table, None if args.none else args.record)
    print("round %d table %d: %s%s" % (
        args.round, args.table, "no record claimed" if args.none else args.record,
        " (taken from round %d table %d)" % taken if taken else ""))
    return 0


def _tied(hall, event):
    from host_tools.hall import rounds, standings as hall_standings
    reader = hall_standings.Reader()
    return rounds.tie(event, rounds.games(hall), rounds.reader_of(hall, reader))


def show(args):
    event = _event(args.dir)
    tied = _tied(args.dir, event)
    if args.json:
        print(json.dumps({"rounds": tied}, ensure_ascii=False))
        return 0
    print("%s: round %d of %d" % (event.config.get("name") or "the event", event.seated,
                                  event.config["rounds"]))
    for rnd in tied:
        print("round %d (opened %s)" % (rnd["round"], rnd["opened"]))
        for t in rnd["tables"]:
            state = "no record yet" if not t["counted"] else (
                "%s, %s" % (t["record"], "finished" if t["finished"] else "unfinished"))
            print("  table %d (%s): %s: %s" % (t["table"], t["box"], ", ".join(t["players"]),
                                               state))
            for line in t["flags"]:
                print("    flagged: %s" % line)
            for line in t["notes"]:
                print("    note: %s" % line)
    return 0


def standings(args):
    from host_tools.event import scoring
    from host_tools.hall import rounds
    event = _event(args.dir)
    if args.round is not None and args.round > event.seated:
        raise MatchboxError("--round", "round %d has not been seated (%d ha%s)" % (
            args.round, event.seated, "s" if event.seated == 1 else "ve"))
    tied = _tied(args.dir, event)
    rows = rounds.standings(event, tied, args.round)
    k = args.round or event.seated
    if args.json:
        print(json.dumps({"round": k, "players": scoring.as_json(rows)}, ensure_ascii=False))
        return 0
    print("standings after round %d of %d" % (k, event.config["rounds"]))
    for r in scoring.as_json(rows):
        print("%4s  %-24s %6s  opp %6s  1st %d  %s" % (
            "%d%s" % (r["rank"], "=" if r["shared"] else ""), r["name"], r["points"],
            r["opponents"], r["firsts"], "  ".join(p or "" for p in r["places"])))
    return 0


def print_sheets(args):
    from host_tools import files
    from host_tools.event import sheets, words
    from host_tools.hall import rounds
    langs = [l.strip() for l in args.lang.split(",") if l.strip()]
    if not langs or any(l not in words.LANGUAGES for l in langs):
        raise MatchboxError("--lang", "give some of en, de, ja (en,de,ja)")
    check_folder(args.output, "folder for the sheets")
    event = _event(args.dir)
    if not event.seated:
        raise MatchboxError(args.dir, "no round seated yet (event next %s)" % args.dir)
    k = args.round or event.seated
    if k > event.seated:
        raise MatchboxError("--round", "round %d has not been seated (%d ha%s)" % (
            k, event.seated, "s" if event.seated == 1 else "ve"))
    tied = _tied(args.dir, event)
    made = []
    for lang in langs:
        if args.standings:
            data = sheets.standings_sheet(event, rounds.standings(event, tied, k), k, lang)
            name = "standings-%d-%s.pdf" % (k, lang)
        else:
            data = sheets.round_sheet(event, event.rounds[k - 1],
                                      rounds.standings(event, tied, k - 1), lang)
            name = "round-%d-%s.pdf" % (k, lang)
        made.append((os.path.join(args.output, name), data))
    for path, data in made:   # drawn first, all of them: a font missing writes nothing
        files.write_whole(path, data)
        files.print_path(path)
    return 0


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
