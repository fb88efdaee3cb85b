"""The hall's records (host_tools.hall.records) and its messages (protocol): in sequence, no
duplicates, nothing stored after a gap, a torn last line cut when the hall starts again."""
import os

import pytest

from hall_helpers import header_lines
from host_tools.hall import protocol, records
from tycoon import writer

pytestmark = pytest.mark.timeout(30)
G1, G2 = "001-00000001", "002-00000002"


def test_in_sequence_duplicates_and_gaps(tmp_path):
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    assert tables.store("t1", G1, 1, lines[0]) == records.STORED
    assert tables.store("t1", G1, 1, lines[0]) == records.DUPLICATE
    with pytest.raises(records.Refused, match="after a gap"):
        tables.store("t1", G1, 3, lines[2])
    with pytest.raises(records.Refused, match="damaged checksum tag"):
        tables.store("t1", G1, 2, lines[2])          # line 3's text and tag as line 2
    assert tables.store("t1", G1, 2, lines[1]) == records.STORED
    with pytest.raises(records.Refused, match="before game 001-00000001 is complete"):
        tables.store("t1", G2, 1, lines[0], (G1, 6))
    for seq in range(3, 7):
        tables.store("t1", G1, seq, lines[seq - 1])
    assert tables.store("t1", G2, 1, lines[0], (G1, 6)) == records.STORED
    assert tables.table("t1").ack() == (G2, 1)
    with open(os.path.join(str(tmp_path), "tables", "t1", G1 + ".txt")) as f:
        assert f.read().splitlines() == lines


def test_a_torn_line_is_cut_when_the_hall_starts(tmp_path):
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    for seq in (1, 2):
        tables.store("t1", G1, seq, lines[seq - 1])
    path = tables.table("t1").path()
    with open(path, "ab") as f:
        f.write(lines[2][:5].encode())              # a write the kill cut short
    again = records.Tables(str(tmp_path))
    assert again.table("t1").ack() == (G1, 2)
    with open(path, "rb") as f:
        assert f.read() == ("\n".join(lines[:2]) + "\n").encode()
    assert again.store("t1", G1, 3, lines[2]) == records.STORED


def test_a_wiped_boxs_new_games_are_stored_beside_the_old_ones(tmp_path):
    """The hall holds games 001 to 003 of a box; its flash wiped, the box sends its new game
    001 (its new journal's id in the game id) from the first line, then its game 002: stored
    from their first line whatever the hall holds of the old numbering, acknowledged, and the
    old records kept as they are, also once the hall starts again."""
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    old = ["%03d-0000000%d" % (n, n) for n in (1, 2, 3)]
    for n, game in enumerate(old):
        for seq, line in enumerate(lines, 1):
            tables.store("t1", game, seq, line, (old[n - 1], 6) if n and seq == 1 else None)
    folder = os.path.join(str(tmp_path), "tables", "t1")
    before = {name: open(os.path.join(folder, name), "rb").read() for name in os.listdir(folder)}
    assert tables.table("t1").ack() == (old[2], 6)
    new = [protocol.game_id(n, "".join(l + "\n" for l in lines).encode(), b"id-1a2b3c4d")
           for n in (1, 2)]
    for n, game in enumerate(new):
        for seq, line in enumerate(lines, 1):
            prev = (new[0], 6) if n and seq == 1 else None
            assert tables.store("t1", game, seq, line, prev) == records.STORED
            assert tables.table("t1").ack() == (game, seq)
    assert records.Tables(str(tmp_path)).table("t1").ack() == (new[1], 6)
    after = {name: open(os.path.join(folder, name), "rb").read() for name in os.listdir(folder)}
    assert {name: after[name] for name in before} == before
    assert sorted(after) == sorted(list(before) + [g + ".txt" for g in new])


@pytest.mark.parametrize("url, why", [
    ("mqtt://127.0.0.1:1883", "no box name"), ("http://a:b@h", "mqtt://"),
    ("mqtt://a:b@h:99999", "not an mqtt:// URL"), ("mqtt://a:b@h/x", "no path")])
def test_bad_urls(url, why):
    with pytest.raises(protocol.ProtocolError, match=why):
        protocol.parse_url(url)


def test_url_of_enrol():
    assert protocol.parse_url("mqtt://t1:pw-_x@127.0.0.1:1884") == ("127.0.0.1", 1884, "t1", "pw-_x")


def test_standings_points_per_place(tmp_path):
    """Places in the order the seats went out; n - place by default, or the points given."""
    from hall_helpers import game_ops
    from host_tools.hall import standings
    from tycoon import writer
    tables = records.Tables(str(tmp_path))
    _, game = game_ops(3, (3, 1, "none", 5, 6, [4, 3, 4]), 60)
    assert game.finished
    from tycoon import notation
    lines = notation.write(game).splitlines()
    for seq, text in enumerate(lines, 1):
        tables.store("t1", G1, seq, writer.tagged(seq, text).decode().rstrip("\n"))
    reader = standings.Reader()
    default = standings.standings(reader, tables.tables.values())
    assert default["games"] == 1
    assert [(p["seat"], p["points"], p["places"]) for p in default["players"]] == \
        [(seat, 3 - place, [place]) for place, seat in enumerate(game.ranking, 1)]
    given = standings.standings(reader, tables.tables.values(), standings.parse_points("10,6"))
    assert [p["points"] for p in given["players"]] == [10, 6, 0]
    with pytest.raises(ValueError):
        standings.parse_points("1,x")


def test_a_line_that_differs_sets_the_halls_copy_aside(tmp_path):
    """A line the hall has under that number with another text: the box rewrote its record.
    The hall's copy is kept as GAME.rewritten-N.txt, the game taken again from line 1."""
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    for seq in (1, 2, 3):
        tables.store("t1", G1, seq, lines[seq - 1])
    again = records.Tables(str(tmp_path))            # the stored lines read from the file
    assert again.store("t1", G1, 2, lines[1]) == records.DUPLICATE
    t1 = again.table("t1")
    with pytest.raises(records.Refused, match="rewritten; the hall's copy is kept as "
                                              "%s.rewritten-1.txt" % G1):
        again.store("t1", G1, 2, writer.tagged(2, "dealer 2").decode().rstrip("\n"))
    assert t1.ack() == (G1, 0)                       # the box sends its record from line 1
    with open(os.path.join(t1.folder, G1 + ".rewritten-1.txt")) as f:
        assert f.read().splitlines() == lines[:3]
    assert not os.path.exists(t1.path())
    with pytest.raises(records.Refused, match="after a gap"):
        again.store("t1", G1, 3, lines[2])
    for seq in (1, 2):
        assert again.store("t1", G1, seq, lines[seq - 1]) == records.STORED
    with pytest.raises(records.Refused, match="damaged checksum tag"):   # a bad tag: refused,
        again.store("t1", G1, 2, lines[2])                              # nothing set aside
    with pytest.raises(records.Refused, match="rewritten-2.txt"):
        again.store("t1", G1, 2, writer.tagged(2, "dealer 3").decode().rstrip("\n"))
    assert again.store("t1", G1, 1, lines[0]) == records.STORED
    other = writer.tagged(1, "players 4").decode().rstrip("\n")
    assert again.store("t1", G1, 1, other) == records.RETAKEN  # line 1 differs: taken at once
    with open(t1.path()) as f:
        assert f.read() == other + "\n"
    assert sorted(os.listdir(t1.folder)) == [G1 + ".rewritten-1.txt", G1 + ".rewritten-2.txt",
                                             G1 + ".rewritten-3.txt", G1 + ".txt"]
    assert records.Tables(str(tmp_path)).table("t1").ack() == (G1, 1)   # asides are no games


def test_a_shorter_record_of_the_box_sets_the_halls_longer_copy_aside(tmp_path):
    """Line 1 with `over` (the box has fewer lines than the count the hall acknowledged, every
    one of them the same): the hall's copy is kept aside and the game taken again from line 1;
    an `over` that is not the hall's count (an old message met again) is a duplicate."""
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    for seq in range(1, 6):
        tables.store("t1", G1, seq, lines[seq - 1])
    t1 = tables.table("t1")
    assert tables.store("t1", G1, 1, lines[0]) == records.DUPLICATE   # no `over`: as before
    assert tables.store("t1", G1, 1, lines[0], over=4) == records.DUPLICATE   # not the count
    assert t1.ack() == (G1, 5) and not os.path.exists(t1.path()[:-4] + ".rewritten-1.txt")
    assert tables.store("t1", G1, 1, lines[0], over=5) == records.RETAKEN
    assert t1.ack() == (G1, 1)
    with open(t1.path()[:-4] + ".rewritten-1.txt") as f:
        assert f.read().splitlines() == lines[:5]
    for seq in (2, 3):
        assert tables.store("t1", G1, seq, lines[seq - 1]) == records.STORED
    assert tables.store("t1", G1, 1, lines[0], over=5) == records.DUPLICATE   # met again
    with open(t1.path()) as f:
        assert f.read().splitlines() == lines[:3]


def test_a_duplicate_of_a_line_just_stored_is_a_duplicate(tmp_path):
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    for seq in range(1, 4):
        assert tables.store("t1", G1, seq, lines[seq - 1]) == records.STORED
    for seq in range(1, 4):   # the box sends again from an older acknowledgement
        assert tables.store("t1", G1, seq, lines[seq - 1]) == records.DUPLICATE


# --- one grammar: the hall refuses a line exactly where the box's reader does -----------------

def _box_stops(lines):
    """The number of the first line the box's reader refuses (its grammar: repairs aside, the
    hall repairs nothing), or None."""
    from tycoon import notation
    reader = notation.Reader()
    for seq, text in enumerate(lines, 1):
        try:
            reader.feed_bytes(text.encode() + b"\n", repair=False)
        except notation.NotationError:
            return seq
    return None


def _hall_stops(folder, lines):
    tables = records.Tables(folder)
    for seq, text in enumerate(lines, 1):
        try:
            tables.store("t1", G1, seq, text)
        except records.Refused:
            return seq
    return None


def _variants(line):
    """A tagged line damaged in its tag or around it, as flash damage or a hand edit leaves
    it: the `~` flipped (e.g. `#x3e9e`), a digit flipped, the tag cut, moved or dropped."""
    body, tag = line[:-8], line[-8:]
    out = [body + tag.replace("~", ch) for ch in "x-#~ !T"]
    out += [body + tag[:-1] + ch for ch in "gZ 0f~"]
    out += [body + tag[:-3], body, body + " " + tag, body + tag + " ", "#~" + body + tag,
            body + "  # x" + tag[4:], body.upper() + tag, body + tag.replace("  ", " ")]
    return out


def test_the_hall_refuses_a_line_where_the_boxs_reader_does(tmp_path):
    from tycoon import notation
    from tycoon.game import Game
    game = Game(3, hands=[3, 2, 2])
    texts = notation.header_text(game).split("\n")[:-1] + ["1: play 3", "2: play 5", "3: pass"]
    box = [writer.tagged(i + 1, t).decode().rstrip("\n") for i, t in enumerate(texts)]
    checked = 0
    for at in (0, 3, 6, 7):
        for bad in _variants(box[at]):
            lines = box[:at] + [bad] + box[at + 1:]
            stops = _box_stops(lines)
            assert _hall_stops(str(tmp_path / ("h%d" % checked)), lines) == stops, (at, bad)
            checked += 1
            if at and bad != box[at]:   # after a tagged line every variant is refused (line 1
                assert stops == at + 1, (at, bad)   # without its tag is a typed beginning)
    assert checked > 60
    # the example: `#x3e9e` for `#~3e9e`, a plain comment to an old hall
    flipped = box[6][:-6] + "x" + box[6][-5:]
    assert _hall_stops(str(tmp_path / "x"), box[:6] + [flipped]) == 7


def test_a_typed_beginning_is_taken_and_an_untagged_line_after_a_tag_refused(tmp_path):
    typed = ["# begun on paper", "", "PLAYERS 3", "hands 3 2 2   ", "1: play 3 # first"]
    tagged = [writer.tagged(len(typed) + 1 + i, t).decode().rstrip("\n")
              for i, t in enumerate(["2: play 5", "3: pass"])]
    assert _box_stops(typed + tagged) is None
    assert _hall_stops(str(tmp_path / "a"), typed + tagged) is None
    for late in ("1: pass", "   ", "# a comment"):   # after a tagged line: only "" is let by
        lines = typed + tagged + [late]
        assert _box_stops(lines) == _hall_stops(str(tmp_path / ("b" + late)), lines) == 8
    lines = typed + tagged + [""]
    assert _box_stops(lines) is None and _hall_stops(str(tmp_path / "c"), lines) is None
    for junk in ("plya 3", "1: play", "12345: pass", "1: play 3\u00a0"):   # not notation
        lines = typed[:4] + [junk]
        assert _box_stops(lines) == _hall_stops(str(tmp_path / ("d" + junk)), lines) == 5
