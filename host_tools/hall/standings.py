"""The event's standings and each table's view, read from the records the hall stores.

Every record is replayed by the engine's one reader (host_tools.reports.replay_portable.replay, which
`matchbox replay` uses; tycoon.notation underneath), so the hall's states are the ones
`matchbox replay --json` prints; a record that grew is read on from where it was (the hall
only appends), not replayed again from its first line. A finished game gives its seats places in the order they went
out (the rules' ranking); place k of a game of n players is worth n - k points unless the hall
is given its own points per place (`--points 10,6,4`: places beyond the list get 0). The box
knows seats, not people: a player of the standings is a box's seat (`t1 P3`).
"""
import io
import json
import os

from tycoon import notation, writer
from tycoon.game import IllegalAction

from host_tools.reports.replay_portable import replay_file

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


def _action(raw):
    """The action of a record line (its bytes) as the page lists it, or None."""
    text = raw.decode("utf-8", "replace").split("#", 1)[0].strip()
    if text and (text[0].isdigit() or text.split()[0].lower() in ("play", "pass", "return",
                                                                  "undo")):
        return text
    return None


class _Replayed:
    """A record as far as it was read: its game, its first problem, its last actions, and the
    notation.Reader that read it when it can go on (no problem, the game begun by an action)."""

    def __init__(self, stamp, game, error, last, reader):
        self.stamp, self.game, self.error, self.last, self.reader = stamp, game, error, last, reader


class Reader:
    """Replays records, each once for each length it has (a cache by path, file and size). The
    hall only appends to a record, so a record that grew is read on from where its reader
    stopped, not replayed from its first line; one with a problem, or whose file changed, is
    replayed whole (replay_portable.replay, as `matchbox replay`)."""

    def __init__(self):
        self._cache = {}
        self._finished = {}   # path -> (lines, (players, ranking) or None)

    def _read(self, path):
        try:
            st = os.stat(path)
        except OSError:
            return _Replayed(None, None, (0, "syntax", "cannot read file"), [], None)
        stamp = (st.st_dev, st.st_ino, st.st_size)
        hit = self._cache.get(path)
        if hit is not None and hit.stamp == stamp:
            return hit
        if hit is not None and hit.reader is not None and hit.stamp[:2] == stamp[:2] \
                and hit.stamp[2] < stamp[2] and self._read_on(path, hit):
            return hit
        hit = self._cache[path] = self._replay(path, stamp)
        return hit

    def _replay(self, path, stamp):
        reader = notation.Reader()
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return _Replayed(stamp, None, (0, "syntax", "cannot read file"), [], None)
        game, error = replay_file(io.BytesIO(data), reader=reader)
        last = [a for a in map(_action, data.splitlines()) if a is not None][-LAST_ACTIONS:]
        on = error is None and reader.kind in ("action", "undo") and not reader.ahead \
            and not reader.repaired and reader.size == len(data)
        return _Replayed(stamp[:2] + (len(data),), game, error, last, reader if on else None)

    def _read_on(self, path, hit):
        """Feed the lines appended since; False when one does not read (then the record is
        replayed whole, as replay_portable.replay reads it, with its repairs)."""
        reader = hit.reader
        try:
            with open(path, "rb") as f:
                f.seek(reader.size)
                while True:
                    raw = f.readline(notation.LIMIT)
                    if not raw.endswith(b"\n"):   # the end (or a line still being written)
                        hit.stamp = hit.stamp[:2] + (reader.size,)
                        return True
                    reader.feed_bytes(raw, False)
                    action = _action(raw)
                    if action is not None:
                        hit.last = (hit.last + [action])[-LAST_ACTIONS:]
        except (OSError, notation.NotationError, IllegalAction):
            return False

    def game(self, path):
        """(game, error) of the record at path."""
        hit = self._read(path)
        return hit.game, hit.error

    def last_actions(self, path):
        """The last LAST_ACTIONS actions of the record at path (undo lines kept)."""
        return list(self._read(path).last)

    def result(self, path, lines):
        """(players, ranking) of the record at path when its game is finished, else None;
        read again only when its number of lines (`lines`) has changed."""
        hit = self._finished.get(path)
        if hit is None or hit[0] != lines:
            game = self.game(path)[0]
            hit = self._finished[path] = (lines, (game.players, list(game.ranking))
                                          if game is not None and game.finished else None)
        return hit[1]


def table_view(reader, table):
    """The view of one table: box, game, sequence, state (as `replay --json`), last actions."""
    game_id, seq = table.ack()
    view = {"box": table.box, "game": game_id, "seq": seq, "state": None, "error": None,
            "last": []}
    if game_id is None or not table.games.get(game_id):   # none, or its copy set aside
        return view
    path = table.path(game_id)
    game, error = reader.game(path)
    view["state"] = json.loads(writer.to_json(game))
    if error is not None:
        view["error"] = {"line": error[0], "kind": error[1], "code": error[2]}
    view["last"] = reader.last_actions(path)
    return view


def results(reader, tables):
    """[(box, players, ranking)] of every finished game of the tables, in order."""
    out = []
    for table in tables:
        for game_id in sorted(table.games):
            result = reader.result(table.path(game_id), table.games[game_id])
            if result is not None:
                out.append((table.box,) + result)
    return out


def standings(reader, tables, points=None):
    """{"points": ..., "games": finished games counted, "players": [...] best first}."""
    return ranked(results(reader, tables), points)


def ranked(finished, points=None):
    """The standings of the finished games [(box, players, ranking)] (results)."""
    players = {}
    for box, players_of_game, ranking in finished:
        for place, seat in enumerate(ranking, 1):
            name = "%s P%d" % (box, seat)
            p = players.setdefault(name, {"player": name, "box": box, "seat": seat,
                                          "points": 0, "games": 0, "places": []})
            p["points"] += points_for(place, players_of_game, points)
            p["games"] += 1
            p["places"].append(place)
    best = sorted(players.values(), key=lambda p: (-p["points"], sorted(p["places"]),
                                                   p["player"]))
    return {"points": points if points is not None else "n - place", "games": len(finished),
            "players": best}
