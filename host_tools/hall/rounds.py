"""The hall's side of an event's rounds (docs/event.md): each table's record tied to its round,
the standings by round, and what the page and `matchbox event` show of them.

A round's table is played on its box (round-K.json says which). Its record is the box's game
that the hall did not have when the round opened and had by the time the next one opened
(still open: any game since); a game whose number on the box is not past every game the box
had at the round's opening started before the round. Of those, the first finished game with
the round's number of players counts; with none finished, the last with that number (settled
by the event's rule for an unfinished game). A record the organiser claimed for a table
(`matchbox event claim`) is that table's, and no other's. A record that does not match its
round is flagged and not counted: another number of players, a game started before the round,
a record the engine's reader stops in. Another first dealer, expansion, revolution or number
of matchsticks than the slip's is noted and counted.
"""
import os

from tycoon.game import EXPANSIONS

from host_tools.event import scoring, store
from host_tools.hall import protocol


def games(hall):
    """{box: [game ids]} of the records the hall keeps (tables/BOX/GAME.txt)."""
    out = {}
    root = os.path.join(hall, "tables")
    try:
        boxes = os.listdir(root)
    except OSError:
        return out
    for box in boxes:
        try:
            names = os.listdir(os.path.join(root, box))
        except OSError:
            continue
        ids = [n[:-4] for n in names if n.endswith(".txt") and protocol.GAME.match(n[:-4])]
        if ids:
            out[box] = sorted(ids, key=protocol.game_number)
    return out


def _started_before(game, before):
    """Whether the game was among the box's games at the round's opening, or is numbered
    before one of them (the box numbers its games one after another)."""
    if game in before:
        return True
    return bool(before) and protocol.game_number(game) <= max(map(protocol.game_number, before))


def _check(event, table, record, read):
    """(the table's view with its game, None) or (None, why it is not counted)."""
    box, game_id = record.split("/")
    game, error = read(box, game_id)
    if game is None or error is not None:
        line, kind, code = error or (0, "syntax", "no game")
        return None, "%s: line %d: %s: %s" % (record, line, kind, code)
    if game.players != len(table["players"]):
        return None, "%s: %d players, the round seated %d" % (record, game.players,
                                                               len(table["players"]))
    notes = []
    want = event.setup(len(table["players"]))
    got = {"dealer": game.dealer, "expansion": 2 * EXPANSIONS.index(game.expansion),
           "revolution": game.revolution_size, "sticks": game.total_sticks}
    for key in ("dealer", "expansion", "revolution", "sticks"):
        if got[key] != want[key]:
            notes.append("%s: %s %s, the round's setup %s" % (record, key, got[key], want[key]))
    return {"record": record, "finished": bool(game.finished), "ranking": list(game.ranking),
            "cards": list(game.cards), "sticks": list(game.sticks), "notes": notes}, None


def tie(event, known, read):
    """Every seated round's tables with their records: [{"round", "opened", "tables": [{
    "table", "box", "players", "record", "counted", "finished", "ranking", "cards",
    "sticks", "flags", "notes"}]}]. `known`: games(hall); `read(box, game)`: (the replayed
    game or None, its first problem or None)."""
    claimed = {rec: key for key, rec in event.claims.items()}
    out = []
    for k, rnd in enumerate(event.rounds, 1):
        before = rnd.get("before", {})
        after = event.rounds[k]["before"] if k < event.seated else None
        tables = []
        for table in rnd["tables"]:
            view = {"table": table["table"], "box": table["box"], "players": table["players"],
                    "record": None, "counted": False, "finished": False, "ranking": [],
                    "cards": [], "sticks": [], "flags": [], "notes": []}
            claim = event.claims.get((k, table["table"]))
            if claim is not None:
                box, game_id = claim.split("/")
                if game_id not in known.get(box, ()):
                    view["flags"].append("%s: the hall has no such record" % claim)
                    candidates = []
                elif _started_before(game_id, before.get(box, ())):
                    view["flags"].append("%s: started before round %d" % (claim, k))
                    candidates = []
                else:
                    candidates = [claim]
            else:
                box = table["box"]
                had = before.get(box, ())
                candidates = []
                for g in known.get(box, ()):
                    record = "%s/%s" % (box, g)
                    if g in had or record in claimed:
                        continue
                    if after is not None and g not in after.get(box, ()):
                        continue   # came after the next round opened
                    if _started_before(g, had):
                        view["flags"].append("%s: started before round %d" % (record, k))
                        continue
                    candidates.append(record)
            fits = []
            for record in candidates:
                checked, why = _check(event, table, record, read)
                if checked is None:
                    view["flags"].append(why + " (not counted)")
                else:
                    fits.append(checked)
            done = [c for c in fits if c["finished"]]
            chosen = done[0] if done else (fits[-1] if fits else None)
            if chosen is not None:
                view.update(chosen, counted=True)
                view["notes"] = chosen["notes"]
                others = [c["record"] for c in fits if c is not chosen]
                if others:
                    view["notes"] = view["notes"] + ["also played: %s (not counted)"
                                                     % ", ".join(others)]
            tables.append(view)
        out.append({"round": k, "opened": rnd.get("opened"), "tables": tables})
    return out


def standings(event, tied, through=None):
    """The standings after round `through` (scoring.standings) of the tied rounds."""
    lo, hi = event.config["table_size"]
    return scoring.standings([p.name for p in event.players], [r["tables"] for r in tied],
                             event.config["unfinished"], scoring.scale(lo, hi), through)


def reader_of(hall, reader):
    """read(box, game) for tie() from a host_tools.hall.standings.Reader."""
    def read(box, game):
        return reader.game(os.path.join(hall, "tables", box, game + ".txt"))
    return read


def view(hall, reader):
    """What the page shows of the event (`/event.json`): None without an event; else its
    name, the round being played, each table's players by name and its record, and the
    standings after the rounds so far."""
    if not store.exists(hall):
        return None
    try:
        event = store.load(hall)
    except store.EventError as exc:
        return {"error": str(exc)}
    tied = tie(event, games(hall), reader_of(hall, reader))
    c = event.config
    return {"name": c.get("name", ""), "rounds": c["rounds"], "round": event.seated,
            "unfinished": c["unfinished"],
            "scale": scoring.scale(*c["table_size"]),
            "tables": tied[-1]["tables"] if tied else [],
            "standings": scoring.as_json(standings(event, tied))}
