"""The JSON state snapshot (tycoon.writer.to_json): schema and values."""
import json

from tycoon import writer
from tycoon.game import Game
from engine_helpers import record, random_game

KEYS = ["finished", "players", "ranking", "revolution", "seats", "strongest", "supply", "table", "turn"]


def check_schema(text):
    assert "\n" not in text
    d = json.loads(text)
    assert sorted(d.keys()) == KEYS
    assert isinstance(d["players"], int) and 2 <= d["players"] <= 8
    assert d["turn"] is None or isinstance(d["turn"], int)
    assert isinstance(d["revolution"], bool) and isinstance(d["finished"], bool)
    assert isinstance(d["strongest"], str) and len(d["strongest"]) == 1
    assert isinstance(d["supply"], int)
    assert isinstance(d["ranking"], list)
    if d["table"] is not None:
        assert sorted(d["table"].keys()) == ["count", "seat", "sticks", "value"]
        assert isinstance(d["table"]["value"], str)
    assert len(d["seats"]) == d["players"]
    for i, seat in enumerate(d["seats"]):
        assert sorted(seat.keys()) == ["cards", "rank", "seat", "sticks"]
        assert seat["seat"] == i + 1
        assert seat["rank"] is None or isinstance(seat["rank"], int)
    return d


def test_fresh_game():
    d = check_schema(writer.to_json(Game(3)))
    assert d == {"players": 3, "turn": 1, "table": None, "revolution": False, "strongest": "F",
                 "seats": [{"seat": 1, "cards": 15, "sticks": 1, "rank": None},
                           {"seat": 2, "cards": 15, "sticks": 1, "rank": None},
                           {"seat": 3, "cards": 15, "sticks": 1, "rank": None}],
                 "supply": 37, "finished": False, "ranking": []}


def test_table_revolution_and_ranks():
    g = record("players 4\nhands 5 1 5 5\nexpansion gh2\n1: play 8 8 8 8 0 as 8")
    d = check_schema(writer.to_json(g))
    assert d["revolution"] is True and d["strongest"] == "0"
    assert d["table"] == {"value": "8", "count": 5, "seat": 1, "sticks": 1}
    g = record("players 3\nhands 1 5 5\n1: play 3 as 9")
    d = check_schema(writer.to_json(g))
    assert d["seats"][0]["rank"] == 1 and d["ranking"] == [1] and d["turn"] == 2
    assert d["table"] == {"value": "9", "count": 1, "seat": 1, "sticks": 1}
    assert check_schema(writer.to_json(Game(3, expansion="gh4")))["strongest"] == "H"


def test_finished_game():
    g = record("players 2\nhands 1 3\n1: play 3 as 9")
    d = check_schema(writer.to_json(g))
    assert d["finished"] is True and d["turn"] is None and d["ranking"] == [1, 2]
    assert [s["rank"] for s in d["seats"]] == [1, 2]


def test_none_is_null():
    assert writer.to_json(None) == "null"


def test_random_games_match_the_attributes():
    for seed in range(15):
        g = random_game(seed, max_actions=10 + seed * 3)
        d = check_schema(writer.to_json(g))
        assert d["players"] == g.players and d["supply"] == g.supply()
        assert d["turn"] == (g.turn or None) and d["finished"] == g.finished
        assert d["ranking"] == list(g.ranking) and d["revolution"] == g.revolution
        for i in range(g.players):
            assert d["seats"][i]["cards"] == g.cards[i] and d["seats"][i]["sticks"] == g.sticks[i]
            assert d["seats"][i]["rank"] == (g.ranks[i] or None)
        t = g.table
        if t is None:
            assert d["table"] is None
        else:
            assert d["table"]["count"] == t[1] and d["table"]["seat"] == t[2] and d["table"]["sticks"] == t[3]
