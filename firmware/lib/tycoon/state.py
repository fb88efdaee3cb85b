"""The state snapshot as JSON text, written by hand so that CPython and MicroPython print
byte-identical output (MicroPython's dicts do not keep insertion order)."""
from tycoon.cards import char


def to_json(game):
    """One line of JSON: the schema of `matchbox replay --json` (see docs/notation.md)."""
    if game is None:
        return "null"
    table = game.table
    if table is None:
        table_json = "null"
    else:
        table_json = '{"value": "%s", "count": %d, "seat": %d, "sticks": %d}' % (
            char(table[0]), table[1], table[2], table[3])
    seats = []
    for i in range(game.players):
        seats.append('{"seat": %d, "cards": %d, "sticks": %d, "rank": %s}' % (
            i + 1, game.cards[i], game.sticks[i], game.ranks[i] or "null"))
    return ('{"players": %d, "turn": %s, "table": %s, "revolution": %s, "strongest": "%s", '
            '"seats": [%s], "supply": %d, "finished": %s, "ranking": [%s]}') % (
        game.players, game.turn or "null", table_json,
        "true" if game.revolution else "false", char(game.strongest()),
        ", ".join(seats), game.supply(), "true" if game.finished else "false",
        ", ".join(map(str, game.ranking)))
