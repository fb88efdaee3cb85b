"""The event's files in the hall's folder, `DIR/event/`: plain files a person can read.

    event.json     the event: its id, name, rounds, table sizes, seed, the boxes (table k of a
                   round is played on the k-th), the setup every table plays (expansion,
                   revolution, sticks) and the rule for a game unfinished at a round's end
    players.csv    name,from_round,left_after: a player plays the rounds from `from_round`
                   (a late arrival: the next round) to `left_after` (blank: still in)
    round-K.json   round K as it was seated: when it opened, its tables (box, players by
                   name, the first leading first: the box's seat 1) and the games each box had
                   at the hall then (a game among them started before the round)
    claims.csv     round,table,record: records the organiser tied to a table by hand
                   (BOX/GAME, as the hall keeps them in tables/BOX/GAME.txt)
    plan.json      the seating planned at the last round seated for the rounds after it, taken
                   while the same players are present (host_tools.event.seating.plan)

Every change is checked whole first, then each file it changes is written whole through
host_tools.files (a temporary file renamed over it): a change that is refused changes nothing.
A round's file is written last when a round opens, so a round is there whole or not at all.
"""
import csv
import io
import json
import os
import re
import secrets
import time

from host_tools import files
from host_tools.event import seating

FOLDER = "event"
MAX_NAME = 40
MAX_PLAYERS = 1000
MAX_FILE = 1024 * 1024          # an event file read at most (a bound: not a 1 GB file)
UNFINISHED = ("standing", "shared", "void")
EXPANSIONS = (0, 2, 4)          # copies of G and H (the box's setup item Gh)
BOX = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")   # a box name (the hall's accounts.NAME)
RECORD = re.compile(r"^([a-z0-9][a-z0-9_-]{0,31})/(\d{3,6}-[0-9a-f]{8})$")


class EventError(ValueError):
    """A change or a file that cannot be taken: `what` and `why`, as MatchboxError says."""

    def __init__(self, what, why):
        ValueError.__init__(self, "%s: %s" % (what, why))
        self.what, self.why = what, why


def folder(hall):
    return os.path.join(hall, FOLDER)


def check_name(name):
    """A player's name as given, or EventError saying why it cannot be one."""
    if not isinstance(name, str) or not name.strip():
        raise EventError("NAME", "a player's name is not empty")
    if name != name.strip() or len(name) > MAX_NAME:
        raise EventError(name, "a player's name is 1 to %d characters, without spaces around "
                         "it" % MAX_NAME)
    if any(not ch.isprintable() for ch in name):
        raise EventError(repr(name), "a player's name holds no control characters")
    return name


def _key(name):
    return name.casefold()


class Player:
    def __init__(self, name, first, left=None):
        self.name, self.first, self.left = name, first, left

    def plays(self, round_number):
        return self.first <= round_number and (self.left is None or round_number <= self.left)


class Event:
    """An event as its files hold it (load())."""

    def __init__(self, hall, config, players, rounds, claims, plan=None):
        self.hall = hall
        self.config = config
        self.players = players    # [Player]
        self.rounds = rounds      # [round-K.json as a dict], K = 1, 2, ...
        self.claims = claims      # {(round, table): "BOX/GAME"}
        self.plan = plan

    @property
    def seated(self):
        """How many rounds have been seated (the last is the one being played)."""
        return len(self.rounds)

    def present(self, round_number):
        """The names of the players of that round, in the order they came."""
        return [p.name for p in self.players if p.plays(round_number)]

    def player(self, name):
        for p in self.players:
            if _key(p.name) == _key(name):
                return p
        return None

    def history(self, before=None):
        """The tables of the rounds seated (before round `before`), as seating.plan takes
        them."""
        return [[t["players"] for t in r["tables"]] for r in self.rounds[:before]]

    def setup(self, players):
        """The box's setup of a table of `players` (what the hall sends it, the slip says)."""
        c = self.config
        return {"players": players, "dealer": 1, "expansion": c["expansion"],
                "revolution": c["revolution"], "sticks": c["sticks"]}


# --- reading -----------------------------------------------------------------------------------

def _read(path, what):
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE + 1)
    except OSError as exc:
        raise EventError(path, files.reason(exc)) from None
    if len(data) > MAX_FILE:
        raise EventError(path, "larger than an event's %s can be" % what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise EventError(path, "not UTF-8 text") from None


def _json(path, what):
    try:
        return json.loads(_read(path, what))
    except ValueError:
        raise EventError(path, "not JSON (the event's %s)" % what) from None


def exists(hall):
    return os.path.exists(os.path.join(folder(hall), "event.json"))


def load(hall):
    """The event of the hall folder; EventError when there is none or a file is not right."""
    where = folder(hall)
    if not exists(hall):
        raise EventError(hall, "no event here (`matchbox event create %s ...` makes one)"
                         % hall)
    config = _json(os.path.join(where, "event.json"), "settings")
    players = []
    rows = list(csv.reader(io.StringIO(_read(os.path.join(where, "players.csv"), "players"))))
    for row in rows[1:]:
        try:
            players.append(Player(row[0], int(row[1]), int(row[2]) if row[2] else None))
        except (IndexError, ValueError):
            raise EventError(os.path.join(where, "players.csv"),
                             "row %r is not name,from_round,left_after" % (row,)) from None
    rounds = []
    while os.path.exists(os.path.join(where, "round-%d.json" % (len(rounds) + 1))):
        rounds.append(_json(os.path.join(where, "round-%d.json" % (len(rounds) + 1)), "round"))
    claims = {}
    path = os.path.join(where, "claims.csv")
    if os.path.exists(path):
        for row in list(csv.reader(io.StringIO(_read(path, "claims"))))[1:]:
            try:
                claims[(int(row[0]), int(row[1]))] = row[2]
            except (IndexError, ValueError):
                raise EventError(path, "row %r is not round,table,record" % (row,)) from None
    plan = None
    path = os.path.join(where, "plan.json")
    if os.path.exists(path):
        plan = _json(path, "plan")
    return Event(hall, config, players, rounds, claims, plan)


def stamp(hall):
    """What changes when any of the event's files changes (the hall reads them again then)."""
    where = folder(hall)
    try:
        names = sorted(os.listdir(where))
    except OSError:
        return None
    out = []
    for name in names:
        try:
            st = os.stat(os.path.join(where, name))
        except OSError:
            continue
        out.append((name, st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(out)


# --- writing -----------------------------------------------------------------------------------

def _write(hall, name, text):
    files.write_whole(os.path.join(folder(hall), name), text.encode("utf-8"))


def _players_csv(players):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["name", "from_round", "left_after"])
    for p in players:
        w.writerow([p.name, p.first, "" if p.left is None else p.left])
    return out.getvalue()


def _dump(value):
    """JSON with a list of plain values (a table's players, a box's games) on one line."""
    text = json.dumps(value, indent=1, ensure_ascii=False)
    return re.sub(r"\[\s*([^\[\]{}]*?)\s*\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text) + "\n"


def checked_names(names, have=()):
    """The names, each checked, none twice and none of `have`; EventError naming the first
    that is not right."""
    seen = {_key(n) for n in have}
    out = []
    for name in names:
        check_name(name)
        if _key(name) in seen:
            raise EventError(name, "a player of that name is in the event already")
        seen.add(_key(name))
        out.append(name)
    if len(seen) > MAX_PLAYERS:
        raise EventError("players", "an event has %d players at most" % MAX_PLAYERS)
    return out


def names_from_csv(path):
    """The players' names of a CSV file: the first column of each row (a header row `name`
    is skipped, empty rows too)."""
    data = _read(path, "players' list")
    rows = [r for r in csv.reader(io.StringIO(data.lstrip("\ufeff"))) if r and r[0].strip()]
    if rows and rows[0][0].strip().casefold() == "name":
        rows = rows[1:]
    return [r[0].strip() for r in rows]


def create(hall, config, names):
    """Make the event: event.json and players.csv (config as `matchbox event create` checks
    it; names checked here)."""
    if exists(hall):
        raise EventError(hall, "it holds an event already (%s)" % os.path.join(folder(hall),
                                                                            "event.json"))
    names = checked_names(names)
    lo, hi = config["table_size"]
    seating.parse_sizes("%d-%d" % (lo, hi))
    for box in config["boxes"]:
        if not BOX.match(box):
            raise EventError(box, "not a box name (1 to 32 of a-z 0-9 _ -)")
    if len(set(config["boxes"])) != len(config["boxes"]):
        raise EventError("--boxes", "a box is named twice")
    config = dict(config, id=secrets.token_hex(4))
    players = [Player(n, 1) for n in names]
    _write(hall, "players.csv", _players_csv(players))
    _write(hall, "event.json", _dump(config))
    return load(hall)


def add(event, names):
    """Late arrivals (before round 1: players): they play from the next round to be seated."""
    names = checked_names(names, [p.name for p in event.players])
    players = event.players + [Player(n, event.seated + 1) for n in names]
    _write(event.hall, "players.csv", _players_csv(players))
    return names


def drop(event, names):
    """Players who leave: they play no round after the last one seated."""
    leaving = []
    for name in names:
        p = event.player(name)
        if p is None:
            raise EventError(name, "no player of that name in the event")
        if not p.plays(event.seated + 1):
            raise EventError(name, "has left the event already")
        if p in leaving:
            raise EventError(name, "named twice")
        leaving.append(p)
    for p in leaving:
        p.left = event.seated
    _write(event.hall, "players.csv", _players_csv(event.players))
    return [p.name for p in leaving]


def next_round(event, games, boxes=None, now=None):
    """Seat and open the next round: its tables from the plan (while the same players are
    present) or planned again around the rounds played; `games` {box: [game ids]} the hall
    has now. Writes plan.json, then round-K.json. EventError when the round cannot be."""
    c = event.config
    k = event.seated + 1
    if k > c["rounds"]:
        raise EventError("round %d" % k, "the event has %d rounds" % c["rounds"])
    boxes = list(boxes or c["boxes"])
    present = event.present(k)
    lo, hi = c["table_size"]
    try:
        sizes = seating.table_sizes(len(present), lo, hi)
    except seating.SeatingError as exc:
        raise EventError("round %d" % k, str(exc)) from None
    if len(sizes) > len(boxes):
        raise EventError("round %d" % k, "needs %d tables and the event has %d boxes (give "
                         "them: event next --boxes t1,t2,...)" % (len(sizes), len(boxes)))
    plan = event.plan
    start = plan["from_round"] if plan else k + 1
    if start <= k < start + len(plan["rounds"]) and sorted(plan["players"]) == sorted(present) \
            and plan["rounds"][:k - start] == event.history()[start - 1:]:
        tables = plan["rounds"][k - start]   # planned, and played as planned so far
    else:
        rounds = seating.plan(present, c["rounds"] - k + 1, lo, hi, c["seed"] + k,
                              event.history())
        plan = {"from_round": k, "players": present, "rounds": rounds}
        tables = rounds[0]
    record = {"round": k, "opened": now or time.strftime("%Y-%m-%dT%H:%M:%S%z"),
              "tables": [{"table": i + 1, "box": boxes[i], "players": t}
                         for i, t in enumerate(tables)],
              "before": {box: sorted(ids) for box, ids in sorted(games.items())}}
    if boxes != c["boxes"]:
        _write(event.hall, "event.json", _dump(dict(c, boxes=boxes)))
    _write(event.hall, "plan.json", _dump(plan))
    _write(event.hall, "round-%d.json" % k, _dump(record))
    return record


def claim(event, round_number, table, record):
    """Tie `record` (BOX/GAME, or None: untie) to a table of a round by hand."""
    if not 1 <= round_number <= event.seated:
        raise EventError("ROUND", "round %d has not been seated (rounds 1 to %d have)"
                         % (round_number, event.seated))
    count = len(event.rounds[round_number - 1]["tables"])
    if not 1 <= table <= count:
        raise EventError("TABLE", "round %d has tables 1 to %d" % (round_number, count))
    claims = dict(event.claims)
    if record is None:
        claims.pop((round_number, table), None)
    else:
        if not RECORD.match(record):
            raise EventError(record, "not a record (BOX/GAME, as tables/BOX/GAME.txt in the "
                             "hall's folder)")
        if not os.path.isfile(os.path.join(event.hall, "tables", record + ".txt")):
            raise EventError(record, "the hall has no such record (tables/%s.txt)" % record)
        for (r, t), other in claims.items():
            if other == record and (r, t) != (round_number, table):
                raise EventError(record, "is claimed by round %d table %d already (untie it "
                                 "first: event claim DIR %d %d --none)" % (r, t, r, t))
        claims[(round_number, table)] = record
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["round", "table", "record"])
    for (r, t), rec in sorted(claims.items()):
        w.writerow([r, t, rec])
    _write(event.hall, "claims.csv", out.getvalue())
    return claims
