"""The firmware's uplink cursor (box.uplink) on CPython: it sends every whole line of every
game on the flash exactly as the host's reading of the same folder lists them, in order, never
more than its window out, and goes back to the hall's acknowledgement when asked."""
import os
import random

from hypothesis import given, settings, strategies as st

from box.journal import Store
from box.uplink import _LOOK_MS, _REST_MS, _STALL_MS, WINDOW, Cursor, game_id
from host_tools.hall import protocol
from host_tools.hall.uplink import Flash
from link_helpers import drain


def _diff(a, b):
    return a - b


def _write_games(root, games, current, torn):
    """games: list of (number, lines) archived; current: lines or None; torn: bytes appended
    to current.txt without a newline."""
    os.makedirs(os.path.join(root, "games", "archive"), exist_ok=True)
    for number, lines in games:
        with open(os.path.join(root, "games", "archive", "game-%03d.txt" % number), "wb") as f:
            f.write(b"".join(l + b"\n" for l in lines))
    if current is not None:
        with open(os.path.join(root, "games", "current.txt"), "wb") as f:
            f.write(b"".join(l + b"\n" for l in current) + torn)


def _lines(rng, n, tag):
    return [("%s line %d %s" % (tag, i, "x" * rng.randrange(0, 60))).encode()
            for i in range(n)]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1))
def test_cursor_sends_what_the_host_reads(tmp_path_factory, seed):
    rng = random.Random(seed)
    root = str(tmp_path_factory.mktemp("flash"))
    first = rng.randrange(1, 5)
    archived = [(first + i, _lines(rng, rng.randrange(6, 90), "g%d" % i))
                for i in range(rng.randrange(0, 4))]
    current = _lines(rng, rng.randrange(0, 120), "cur") if rng.random() < 0.8 else None
    _write_games(root, archived, current, b"3: pla" if rng.random() < 0.3 else b"")
    if rng.random() < 0.5:   # the journal's id, which goes into every game's id
        open(os.path.join(root, "games", "id-%08x" % rng.getrandbits(32)), "wb").close()
    expected = []
    games = Flash(root).list()
    for i, (gid, lines, _) in enumerate(games):
        for seq, line in enumerate(lines, 1):
            prev = [games[i - 1][0], len(games[i - 1][1])] if seq == 1 and i > 0 else None
            expected.append((gid, seq, line, prev, 0))
    cursor = Cursor(Store(), os.path.join(root, "games"))
    cursor.connected()
    cursor.ack("boot", None, 0, 0)
    assert drain(cursor) == expected
    assert cursor.delivered() == bool(expected) or not games


def test_ids_are_the_hall_protocols():
    header = b"".join(b"h%d\n" % i for i in range(6))
    assert game_id(7, header) == protocol.game_id(7, header)
    assert game_id(7, header, b"id-0a1b2c3d") == protocol.game_id(7, header, b"id-0a1b2c3d") \
        != game_id(7, header)


def test_acknowledgements_of_games_the_box_does_not_hold_under_micropython():
    from mpy import run_portable
    passed, failed, output = run_portable(["test_cursor_acks"])
    assert failed == 0 and passed == 3, output


def test_window_rewind_and_new_lines(tmp_path):
    rng = random.Random(1)
    root = str(tmp_path)
    lines = _lines(rng, 100, "cur")
    _write_games(root, [], lines[:50], b"")
    cursor = Cursor(Store(), os.path.join(root, "games"))
    assert cursor.next(0) is None            # no acknowledgement on this connection yet
    cursor.connected()
    cursor.ack("b1", None, 0, 0)
    sent = drain(cursor, acks=False)
    assert [s[1] for s in sent] == list(range(1, WINDOW + 1))   # the window, no more
    cursor.ack("b1", sent[9][0], 10, 5)
    more = drain(cursor, acks=False)
    assert [s[1] for s in more] == list(range(WINDOW + 1, WINDOW + 11))
    cursor.stalled(5 + _STALL_MS + 1, _diff)   # the hall went quiet: from its ack again,
    again = drain(cursor, acks=False)        # the line it acknowledged last sent again
    assert again[0][1] == 10 and len(again) == WINDOW
    cursor.ack("b2", again[0][0], 30, 9000)     # a new start of the hall: from 30 again
    assert cursor.next(9000)[1] == 30
    # the box writes on: the cursor finds the new lines, and the whole journal is delivered
    _write_games(root, [], lines, b"")
    cursor.ack("b2", again[0][0], 31, 9001)
    rest = drain(cursor, 9001)
    assert [s[1] for s in rest] == list(range(31, 101))   # 31 once more: the hall drops it
    assert cursor.delivered()


def test_a_new_game_moves_the_current_one_to_the_archive(tmp_path):
    rng = random.Random(2)
    root = str(tmp_path)
    one, two = _lines(rng, 20, "one"), _lines(rng, 10, "two")
    _write_games(root, [], one, b"")
    cursor = Cursor(Store(), os.path.join(root, "games"))
    cursor.connected()
    cursor.ack("b", None, 0, 0)
    first = drain(cursor)
    assert len(first) == 20 and cursor.delivered()
    os.rename(os.path.join(root, "games", "current.txt"),
              os.path.join(root, "games", "archive", "game-001.txt"))
    _write_games(root, [], two, b"")
    second = drain(cursor)
    assert [s[1] for s in second] == list(range(1, 11))
    assert second[0][0].startswith("002-") and second[0][3] == [first[0][0], 20]
    assert cursor.delivered()


def test_a_rewritten_record_is_sent_again_from_line_1(tmp_path):
    """The hall acknowledging an earlier line of the same game (0: it took the game again
    after a line differed) sends the game from line 1; so does a record the box holds fewer
    lines of than the hall acknowledged (rewritten shorter at power-up), its line 1 saying
    how many lines of the hall's it replaces."""
    rng = random.Random(3)
    root = str(tmp_path)
    lines = _lines(rng, 40, "cur")
    _write_games(root, [], lines, b"")
    cursor = Cursor(Store(), os.path.join(root, "games"))
    cursor.connected()
    cursor.ack("b", None, 0, 0)
    sent = drain(cursor)
    game = sent[0][0]
    assert len(sent) == 40 and cursor.delivered()
    cursor.ack("b", game, 0, 10)             # the hall took the game again
    assert [s[1] for s in drain(cursor)] == list(range(1, 41))
    _write_games(root, [], lines[:30], b"")   # rewritten shorter; the hall has 40 lines
    fresh = Cursor(Store(), os.path.join(root, "games"))   # powered on again
    fresh.connected()
    fresh.ack("b", game, 40, 20)
    again = drain(fresh, acks=False)
    assert [s[1] for s in again] == list(range(1, 31))
    assert again[0][4] == 40 and not any(s[4] for s in again[1:])   # line 1 says: over 40
    fresh.connected()                         # the hall has the 30 lines: nothing is over
    fresh.ack("b", game, 30, 30)
    assert [(s[1], s[4]) for s in drain(fresh, acks=False)] == [(30, 0)]


class _Journal:
    changes = 0


def test_resting_until_the_journal_writes_or_the_hall_answers(tmp_path):
    """Caught up, the cursor is left alone (no file read) until the journal has written, the
    hall has acknowledged, or, without a journal's count of writes, _REST_MS have passed."""
    root = str(tmp_path)
    _write_games(root, [], _lines(random.Random(4), 10, "cur"), b"")
    journal = _Journal()
    counted = Cursor(Store(), os.path.join(root, "games"), journal)
    timed = Cursor(Store(), os.path.join(root, "games"))
    for cursor in (counted, timed):
        cursor.connected()
        cursor.ack("b", None, 0, 0)
        assert not cursor.resting(0, _diff)
        sent = drain(cursor, 100)
        assert len(sent) == 10 and cursor.idle == 100
    assert counted.resting(100 + 10 * _REST_MS, _diff)   # the journal has not written,
    assert not counted.resting(100 + _LOOK_MS, _diff)     # but it is looked at now and then
    journal.changes += 1
    assert not counted.resting(100 + 10 * _REST_MS, _diff)
    assert timed.resting(100 + _REST_MS - 1, _diff) and not timed.resting(100 + _REST_MS, _diff)
    counted.next(200)
    assert counted.resting(300, _diff)
    counted.ack("b", sent[-1][0], 10, 300)               # the hall answered: look again
    assert not counted.resting(300, _diff)


def test_the_last_line_of_a_game_archived_at_once_is_sent_without_a_new_write(tmp_path):
    """The game's last line and its move to the archive come in one key press: the cursor,
    caught up before, sends that line and then rests (no write of the journal after it)."""
    rng = random.Random(5)
    root = str(tmp_path)
    lines = _lines(rng, 12, "cur")
    _write_games(root, [], lines[:11], b"")
    journal = _Journal()
    cursor = Cursor(Store(), os.path.join(root, "games"), journal)
    cursor.connected()
    cursor.ack("b", None, 0, 0)
    assert len(drain(cursor)) == 11 and cursor.resting(0, _diff)
    _write_games(root, [], lines, b"")            # the last action, then the archive
    os.rename(os.path.join(root, "games", "current.txt"),
              os.path.join(root, "games", "archive", "game-001.txt"))
    journal.changes += 2
    assert not cursor.resting(0, _diff)
    last = drain(cursor)
    assert [(s[1], s[2]) for s in last] == [(12, lines[11].decode())]
    assert cursor.resting(0, _diff) and cursor.delivered()


def test_a_game_archived_while_the_link_was_down_keeps_its_number(tmp_path):
    """The games were listed while game 1 was being played; the link dropped, game 1 went to
    the archive and game 2 began. Sending from the hall's start again, the cursor gives
    game 1's lines as game 1 and game 2's as game 2 (not current.txt's as game 1: a listing
    older than the call is not trusted for a game's number)."""
    rng = random.Random(6)
    root = str(tmp_path)
    one, two = _lines(rng, 23, "one"), _lines(rng, 40, "two")
    _write_games(root, [], one[:20], b"")
    journal = _Journal()
    cursor = Cursor(Store(), os.path.join(root, "games"), journal)
    cursor.connected()
    cursor.ack("b1", None, 0, 0)
    assert len(drain(cursor, acks=False)) == 20
    cursor.connected()                       # dropped; the box plays on
    _write_games(root, [], one, b"")
    os.rename(os.path.join(root, "games", "current.txt"),
              os.path.join(root, "games", "archive", "game-001.txt"))
    _write_games(root, [], two, b"")
    journal.changes += 3
    for start in (None, 0), ("001-" + "0" * 8, 5):   # the hall has none, or another game 1
        cursor.connected()
        cursor.ack("b2", start[0], start[1], 10)
        sent = [(s[0], s[1], s[2]) for s in drain(cursor, 10)]
        expected = [(gid, seq, line) for gid, lines, _ in Flash(root).list()
                    for seq, line in enumerate(lines, 1)]
        assert sent == expected and cursor.delivered()


def test_games_moved_on_while_the_cursor_reads_an_older_one(tmp_path):
    """Listed as game 1 archived and game 2 current; while the cursor is still in game 1,
    game 2 goes to the archive and game 3 begins: game 2 and game 3 keep their numbers."""
    rng = random.Random(7)
    root = str(tmp_path)
    one, two, three = _lines(rng, 40, "one"), _lines(rng, 10, "two"), _lines(rng, 8, "three")
    _write_games(root, [(1, one)], two, b"")
    cursor = Cursor(Store(), os.path.join(root, "games"))
    cursor.connected()
    cursor.ack("b", None, 0, 0)
    first = drain(cursor, acks=False)
    assert [s[1] for s in first] == list(range(1, WINDOW + 1))   # the window, all of game 1
    os.rename(os.path.join(root, "games", "current.txt"),
              os.path.join(root, "games", "archive", "game-002.txt"))
    _write_games(root, [], three, b"")
    cursor.ack("b", first[-1][0], WINDOW, 5)
    sent = [(s[0], s[1], s[2]) for s in drain(cursor, 5)]
    expected = [(gid, seq, line) for gid, lines, _ in Flash(root).list()
                for seq, line in enumerate(lines, 1)]
    assert sent == expected[WINDOW:] and cursor.delivered()
