"""The event's standings and each table's view, read from the records the hall stores.

Every record is replayed by the engine's one reader (host_tools.reports.replay_portable.replay, which
`matchbox replay` uses; tycoon.notation underneath), so the hall's states are the ones
`matchbox replay --json` prints. A finished game gives its seats places in the order they went
out (the rules' ranking); place k of a game of n players is worth n - k points unless the hall
is given its own points per place (`--points 10,6,4`: places beyond the list get 0). The box
knows seats, not people: a player of the standings is a box's seat (`t1 P3`).
"""
import json
import os

from tycoon import state

from host_tools.reports.replay_portable import replay

LAST_ACTIONS = 6


def points_for(place, players, points=None):
    if points is None:
        return players - place
    return points[place - 1] if place <= len(points) else 0


def parse_points(text):
    """[points of place 1, place 2, ...] from `10,6,4`; ValueError saying why not."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise ValueError("%r is not whole numbers separated by commas (10,6,4)" % text) from None
    if not values or len(values) > 8 or any(not 0 <= v <= 1000 for v in values):
        raise ValueError("give 1 to 8 numbers of points, each 0 to 1000")
    return values


class Reader:
    """Replays records, each once for each length it has (a cache by path and size)."""

    def __init__(self):
        self._cache = {}

    def game(self, path):
        """(game, error) of the record at path."""
        try:
            size = os.path.getsize(path)
        except OSError:
            return None, (0, "syntax", "cannot read file")
        hit = self._cache.get(path)
        if hit is None or hit[0] != size:
            hit = (size,) + tuple(replay(path))
            self._cache[path] = hit
        return hit[1], hit[2]


def _last_actions(path, n=LAST_ACTIONS):
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        text = line.split("#", 1)[0].strip()
        if text and (text[0].isdigit() or text.split()[0].lower() in ("play", "pass", "return", "undo")):
            out.append(text)
    return out[-n:]


def table_view(reader, table):
    """The view of one table: box, game, sequence, state (as `replay --json`), last actions."""
    game_id, seq = table.ack()
    view = {"box": table.box, "game": game_id, "seq": seq, "state": None, "error": None,
            "last": []}
    if game_id is None:
        return view
    path = table.path(game_id)
    game, error = reader.game(path)
    view["state"] = json.loads(state.to_json(game))
    if error is not None:
        view["error"] = {"line": error[0], "kind": error[1], "code": error[2]}
    view["last"] = _last_actions(path)
    return view


def standings(reader, tables, points=None):
    """{"points": ..., "games": finished games counted, "players": [...] best first}."""
    players = {}
    counted = 0
    for table in tables:
        for game_id in sorted(table.games):
            game, error = reader.game(table.path(game_id))
            if game is None or not game.finished:
                continue
            counted += 1
            for place, seat in enumerate(game.ranking, 1):
                name = "%s P%d" % (table.box, seat)
                p = players.setdefault(name, {"player": name, "box": table.box, "seat": seat,
                                              "points": 0, "games": 0, "places": []})
                p["points"] += points_for(place, game.players, points)
                p["games"] += 1
                p["places"].append(place)
    ranked = sorted(players.values(), key=lambda p: (-p["points"], sorted(p["places"]),
                                                     p["player"]))
    return {"points": points if points is not None else "n - place", "games": counted,
            "players": ranked}
