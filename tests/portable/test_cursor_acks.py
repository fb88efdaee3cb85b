"""The uplink's cursor (box.uplink) when the hall acknowledges a game the box does not hold by
its id: the box's flash was wiped (it numbers its games from 001 again while the hall
acknowledges the old 002), or a retained acknowledgement names a game the box never had. The
box sends its games from the first one (the hall drops what it has), not nothing for ever.
And a journal with an id (games/id-XXXXXXXX, drawn when its game 001 began) gives its games
ids of their own. CPython and the MicroPython unix port (tests/test_uplink_cursor.py)."""
from binascii import crc32

from box.uplink import Cursor
from files import STORE, Folder, write
from link_helpers import drain


def _lines(tag, n):
    return [("%s line %d" % (tag, i)).encode() for i in range(n)]


def _flash(path, archived, current, journal_id=None):
    """A box's games folder under `path`: archived [(number, lines)], current lines or None."""
    root = path + "/games"
    STORE.mkdir(root)
    STORE.mkdir(root + "/archive")
    for number, lines in archived:
        write(root + "/archive/game-%03d.txt" % number, b"".join(l + b"\n" for l in lines))
    if current is not None:
        write(root + "/current.txt", b"".join(l + b"\n" for l in current))
    if journal_id is not None:
        write(root + "/" + journal_id, b"")
    return root


def _sent_from(root, game, seq):
    cursor = Cursor(STORE, root)
    cursor.connected()
    cursor.ack("h1", game, seq, 0)
    sent = drain(cursor)
    assert cursor.delivered(), (game, seq)
    return [(s[0][:3], s[1], s[2]) for s in sent]


def _expected(games):
    return [("%03d" % number, seq, line.decode()) for number, lines in games
            for seq, line in enumerate(lines, 1)]


def test_a_wiped_box_sends_its_new_game_whatever_game_the_hall_acknowledges():
    one = _lines("new", 12)
    with Folder() as d:
        root = _flash(d.path, [], one)
        for game, seq in (("002-0badcafe", 40),   # the hall's last game of the old numbering
                          ("015-12345678", 7),    # a retained ack of a game it never had
                          ("001-0badcafe", 3),    # another game 001
                          ("001-0badcafe", 30)):
            assert _sent_from(root, game, seq) == _expected([(1, one)]), (game, seq)


def test_older_games_are_sent_first_when_the_hall_acknowledges_a_game_not_the_boxs():
    one, two, three = _lines("one", 8), _lines("two", 9), _lines("three", 7)
    games = [(1, one), (2, two), (3, three)]
    with Folder() as d:
        root = _flash(d.path, games[:2], three)
        mine = Cursor(STORE, root)
        mine.connected()
        mine.ack("h1", None, 0, 0)
        ids = []
        for item in drain(mine):
            if item[0] not in ids:
                ids.append(item[0])
        for game, seq in (("002-00000000", 5), ("009-00000000", 2), ("003-00000000", 7)):
            assert _sent_from(root, game, seq) == _expected(games), (game, seq)
        # the box's own game 2 acknowledged: from there on, as before
        assert _sent_from(root, ids[1], 9) == [("002", 9, two[-1].decode())] + \
            _expected(games[2:])


def test_a_journal_id_goes_into_its_games_ids():
    header = [b"players 2", b"dealer 1", b"expansion none", b"revolution 5", b"sticks 40",
              b"hands 3 3"]
    with Folder() as plain, Folder() as named:
        ids = []
        for d, journal_id in ((plain, None), (named, "id-0000abcd")):
            cursor = Cursor(STORE, _flash(d.path, [(1, header)], header, journal_id))
            cursor.connected()
            cursor.ack("h1", None, 0, 0)
            ids.append(sorted(set(item[0] for item in drain(cursor))))
    text = b"".join(l + b"\n" for l in header)
    assert ids[0] == ["%03d-%08x" % (n, crc32(text) & 0xFFFFFFFF) for n in (1, 2)]
    seed = crc32(b"id-0000abcd")
    assert ids[1] == ["%03d-%08x" % (n, crc32(text, seed) & 0xFFFFFFFF) for n in (1, 2)]
