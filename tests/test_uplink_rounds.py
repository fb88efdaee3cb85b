"""The uplink's cursor (box.uplink) across two games with the same header, one after the
other on a box, as an event's rounds give them (the same table setup each round): the second
game's lines go as its own, from its line 1, never as more lines of the first (whose id differs
from the second's only by its number on the box)."""
import os

import engine_helpers as eh
from box.journal import Journal
from box.uplink import Cursor
from host_tools.hall.uplink import Flash
from tycoon.game import Game, default_hands


def drain(cursor):
    sent = []
    while True:
        item = cursor.next(0)
        if item is None:
            if cursor.busy:
                continue
            return sent
        sent.append(item)
        cursor.ack(cursor.boot, item[0], item[1], 0)


def play(journal, seed, actions, old=None, cursor=None, sent=None):
    """A game of the same setup started and played on the journal; with `cursor`, drained
    into `sent` after each write, as the link looks after each (between keys)."""
    game = Game(4, 1, "none", 5, 40, default_hands(4, "none"))
    journal.start(game, old)
    rng = eh.Lcg(seed)
    for _ in range(actions):
        if cursor is not None:
            sent += drain(cursor)
        if game.finished:
            break
        eh.step(game, rng)
        journal.append(game)
    if cursor is not None:
        sent += drain(cursor)
    return game


def test_a_second_game_with_the_same_header_goes_as_its_own(tmp_path):
    root = str(tmp_path / "games")
    journal = Journal(root)
    cursor = Cursor(journal.store, root, journal)
    cursor.connected()
    cursor.ack("boot", None, 0, 0)
    first = play(journal, 1, 40)
    sent = drain(cursor)
    assert len(sent) == 6 + len(first)   # the header and the actions, caught up
    play(journal, 2, 80, first, cursor, sent)   # longer than the first: past where it was
    expected = []
    games = Flash(str(tmp_path)).list()
    assert len(games) == 2 and games[0][0][4:] == games[1][0][4:]   # the same header's CRC
    for i, (gid, lines, _) in enumerate(games):
        for seq, line in enumerate(lines, 1):
            prev = [games[0][0], len(games[0][1])] if i and seq == 1 else None
            expected.append((gid, seq, line, prev, 0))
    assert sent == expected
