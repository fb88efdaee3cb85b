"""The power-safe journal (box.journal) on a real temp folder; CPython and MicroPython."""
import os
import sys

import engine_helpers as eh
import files
from box.journal import Journal
from box.journal import Store
from cut_store import CutStore
from tycoon import notation
from tycoon.notation import NotationError, crc16, tagged, untag
from tycoon.cards import becomes
from tycoon.game import PASS, PLAY, RETURN, Game, IllegalAction, pack_game
from tycoon.writer import to_json


class Folder(files.Folder):
    """A fresh temp folder; the journal goes in its `games` subfolder."""

    def __enter__(self):
        files.Folder.__enter__(self)
        self.games = self.path + "/games"
        return self


def _plain(data):
    """A journal file's text with the checksum tags taken off."""
    out = []
    for line in data.decode().split("\n"):
        if "  #~" in line:
            line = line[:line.find("  #~")]
        out.append(line)
    return "\n".join(out)


def _names(folder):
    """The files in a games folder, but for the journal's id (box.newgame draws it)."""
    return sorted(n for n in os.listdir(folder) if not n.startswith("id-"))


def _text(game):
    return None if game is None else notation.write(game)


# --- games to journal ------------------------------------------------------------------------

def _script(players, seed, limit=1000, **setup):
    """A legal game chosen by a seeded bot: (setup dict, list of (kind, faces, value))."""
    game = Game(players, **setup)
    x = seed
    steps = []
    while not game.finished and len(steps) < limit:
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        r = x >> 8
        if game.must_return():
            step = (RETURN, None, None)
        else:
            table = game.table
            options = []
            for n in ((table[1],) if table else (1, 2, 3, 4)):
                for face in range(game.values):
                    tries = [None]
                    if n == 1:
                        tries += [v for v, _c in becomes(face, game.values) if v != face]
                    for value in tries:
                        try:
                            game.check_play([face] * n, value)
                            options.append((PLAY, [face] * n, value))
                        except IllegalAction:
                            pass
            if table and (not options or r % 4 == 0):
                step = (PASS, None, None)
            else:
                step = options[r % len(options)]
        eh.apply(game, step)
        steps.append(step)
    setup["players"] = players
    return setup, steps


def _new(setup):
    return Game(setup["players"], setup.get("dealer", 1), setup.get("expansion", "none"),
                setup.get("revolution", 5), setup.get("sticks", 40), setup.get("hands"))


_GAMES = {}


def _game(name):
    if name not in _GAMES:
        if name == "short":
            _GAMES[name] = _script(3, 1, limit=12)
        elif name == "two":
            _GAMES[name] = _script(2, 3)
        elif name == "odd":    # every setting away from its default
            _GAMES[name] = _script(4, 5, limit=14, dealer=2, expansion="gh4", revolution=4,
                                   sticks=52, hands=[10, 11, 12, 13])
        elif name == "odd3":
            _GAMES[name] = _script(3, 9, limit=9, dealer=3, expansion="gh2", revolution=4,
                                   sticks=25, hands=[5, 6, 7])
        else:
            _GAMES[name] = _script(5, 2, dealer=3, expansion="gh2", revolution=4, sticks=30)
    return _GAMES[name]


def _journal_game(journal, name, upto=None):
    setup, steps = _game(name)
    game = _new(setup)
    journal.start(game)
    for step in steps[:upto]:
        eh.apply(game, step)
        journal.append(game)
    return game


# --- checksum and line check -------------------------------------------------------------------

def test_crc16_check_value():
    assert crc16(b"123456789") == 0x29B1  # CRC-16/CCITT-FALSE reference value
    assert crc16(b"") == 0xFFFF


def test_the_readers_byte_table_crc_is_the_writers_crc16():
    # resuming checks tags with a byte table (notation._crc16), the box writes them with a
    # nibble table (writer.crc16): every byte value, in every position, at many lengths
    rng = eh.Lcg(16)
    assert notation._crc16(b"123456789") == 0x29B1
    for n in range(0, 300, 7):
        data = bytes(rng.below(256) for _ in range(n))
        assert notation._crc16(data) == crc16(data), data
        assert notation._crc16(data, 0x1D0F) == crc16(data, 0x1D0F), data
    every = bytes(range(256))
    assert notation._crc16(every) == crc16(every)
    from tycoon import line   # the table, written out: each entry the CRC of its byte
    assert [line._BYTE[i] for i in range(256)] == [crc16(bytes((i,)), 0) for i in range(256)]


def test_pass_and_return_take_the_short_way_to_what_the_long_way_gives():
    # 'S: pass' and 'S: return' have a fast path in parse_line; the same line written so that
    # the general path reads it ('S:pass', extra spaces, capitals) parses the same
    for seat in "0123456789":
        for word in ("pass", "return"):
            short = notation.parse_line("%s: %s" % (seat, word))
            assert short[0] == "action" and short[3] == int(seat)
            for other in ("%s:%s", "%s:  %s", " %s: %s", "%s: %s ", "%s:\t%s"):
                assert notation.parse_line(other % (seat, word)) == short, other
            assert notation.parse_line("%s: %s" % (seat, word.upper())) == short
    for near in ("3: passs", "3: pas", "3; pass", "33: pass", "a: pass", "3: pass\x7f"):
        try:
            got = notation.parse_line(near)
        except NotationError:
            continue
        assert got == notation.parse_line(near + " #"), near   # the general path's verdict


def test_box_lines_read_the_short_way_as_the_long_way_reads_them():
    # Reader.feed_bytes reads a tagged 'S: pass' / 'S: return' line the short way; the text
    # reader (Reader.feed) always takes the long way: the same record, line by line, gives the
    # same game, line count, tag state and kind, and a damaged tag is refused by both
    setup, steps = _game("long")
    game = _new(setup)
    lines = [tagged(i + 1, t) for i, t in enumerate(notation.header_text(game).split("\n")[:-1])]
    for step in steps:
        eh.apply(game, step)
        lines.append(tagged(len(lines) + 1, notation.action_text(*game.last_action())[:-1]))
    short = sum(1 for raw in lines if raw[3:7] in (b"pass", b"retu"))
    assert short > 20
    by_bytes, by_text = notation.Reader(), notation.Reader()
    for raw in lines:
        by_bytes.feed_bytes(raw)
        by_text.feed(raw[:-1].decode())
        assert (by_bytes.lineno, by_bytes.tagged, by_bytes.kind) == (
            by_text.lineno, by_text.tagged, by_text.kind)
        assert to_json(by_bytes.game) == to_json(by_text.game)
    assert by_bytes.size == sum(len(raw) for raw in lines)
    game = by_bytes.game
    for raw in (b"1: pass  #~0000\n", b"1: return  #~0000\n"):
        before = to_json(game)
        try:
            by_bytes.feed_bytes(raw)
            assert False, raw
        except NotationError as err:
            assert err.message == "damaged checksum tag", raw
        assert to_json(game) == before


def check(raw, index, strict=False):
    try:
        return untag(raw.decode(), index, strict)[0]
    except NotationError:
        return None


def test_tag_binds_line_to_its_index():
    line = tagged(7, "3: play 9 9 as 9")
    assert line.startswith(b"3: play 9 9 as 9  #~") and line.endswith(b"\n") and len(line) == 25
    assert check(line[:-1], 7) == "3: play 9 9 as 9"
    assert check(line[:-1], 8) is None
    assert check(line[:-1], 6) is None
    assert check(b"3: play 9 9 as 9", 7) == "3: play 9 9 as 9"   # hand-written: no tag
    assert check(b"3: pass  # a comment", 1) == "3: pass  # a comment"
    assert check(b"3: pass  # a comment", 1, strict=True) is None   # after a tagged line
    assert check(b"", 1, strict=True) == ""
    assert check(b"3: pass  #x1f2a", 1) is None   # tag-shaped ending: damage
    assert check(b"3: pass #~1f2a", 1) is None    # one space only


# --- round trip --------------------------------------------------------------------------------

def test_round_trip_whole_games():
    for name in ("two", "five"):
        with Folder() as d:
            game = _journal_game(Journal(d.games), name)
            assert game.finished
            data = files.read(d.games + "/current.txt")
            assert _plain(data) == notation.write(game)
            lines = data.split(b"\n")[:-1]
            assert len(lines) == 6 + len(game)
            for i, line in enumerate(lines):
                assert check(line, i + 1) is not None
            back, dropped = Journal(d.games).resume()
            assert dropped == 0
            assert to_json(back) == to_json(game)
            assert notation.write(back) == notation.write(game)
            assert files.read(d.games + "/current.txt") == data
            # and notation.load (what `matchbox replay` uses) reads the journal file as it is
            loaded, error = notation.load(data.decode().split("\n"))
            assert error is None and to_json(loaded) == to_json(game)


def test_resume_then_go_on():
    setup, steps = _game("five")
    with Folder() as d:
        half = len(steps) // 2
        _journal_game(Journal(d.games), "five", half)
        journal = Journal(d.games)
        game, dropped = journal.resume()
        assert dropped == 0 and len(game) == half
        for step in steps[half:]:
            eh.apply(game, step)
            journal.append(game)
        back, dropped = Journal(d.games).resume()
        assert dropped == 0
        assert notation.write(back) == notation.write(game)
        assert to_json(back) == to_json(game)


def test_forget_reader_keeps_a_reader_loaded_by_someone_else():
    # This test module loaded tycoon.notation itself: the journal must leave it in place.
    with Folder() as d:
        _journal_game(Journal(d.games), "five", 4)
        journal = Journal(d.games)
        game, dropped = journal.resume()
        journal.forget_reader()
        assert sys.modules["tycoon.notation"] is notation and dropped == 0 and len(game) == 4


def _tagged(text):
    # the record the box writes of a game whose canonical notation is `text`
    return b"".join([notation.tagged(i + 1, t) for i, t in enumerate(text.split("\n")[:-1])])


def test_hand_written_record_is_accepted_and_continued():
    setup, steps = _game("short")
    game = _new(setup)
    for step in steps[:4]:
        eh.apply(game, step)
    body = notation.write(game).split("\n")
    text = "# a record typed by hand\n\n" + body[0] + "   # four players? no, three\n" + \
        "\n".join(body[1:])
    with Folder() as d:
        os.mkdir(d.games)
        files.write(d.games + "/current.txt", text.encode())
        journal = Journal(d.games)
        back, dropped = journal.resume()
        assert dropped == 0 and notation.write(back) == notation.write(game)
        # taken as the box's own at once: the game as the box writes it, every line tagged
        assert files.read(d.games + "/current.txt") == _tagged(notation.write(game))
        for step in steps[4:]:
            eh.apply(back, step)
            journal.append(back)
        data = files.read(d.games + "/current.txt")
        assert data == _tagged(notation.write(back))
        assert "damaged" not in os.listdir(d.games) and journal.lost == 0
        again, dropped = Journal(d.games).resume()
        assert dropped == 0 and to_json(again) == to_json(back)
        assert len(again) == len(steps)


# --- damage ------------------------------------------------------------------------------------

def test_torn_last_line_at_every_offset():
    setup, steps = _game("short")
    with Folder() as d:
        full = _journal_game(Journal(d.games), "short")
        data = files.read(d.games + "/current.txt")
        start = data.rfind(b"\n", 0, len(data) - 1) + 1
        before = _new(setup)
        for step in steps[:-1]:
            eh.apply(before, step)
        for cut in range(start, len(data)):
            files.write(d.games + "/current.txt", data[:cut])
            journal = Journal(d.games)
            game, dropped = journal.resume()
            assert dropped == (1 if cut > start else 0), cut
            assert to_json(game) == to_json(before)
            assert files.read(d.games + "/current.txt") == data[:start]
            eh.apply(game, steps[-1])
            journal.append(game)
            assert files.read(d.games + "/current.txt") == data
            assert to_json(game) == to_json(full)


def test_flipped_bit_anywhere_is_detected():
    setup, steps = _game("short")
    with Folder() as d:
        _journal_game(Journal(d.games), "short")
        path = d.games + "/current.txt"
        data = files.read(path)
        starts = [0]
        for i in range(len(data)):
            if data[i] == 10:
                starts.append(i + 1)
        for at in range(len(data)):
            line = 0
            while starts[line + 1] <= at:
                line += 1
            for bit in range(8):
                bad = bytearray(data)
                bad[at] ^= 1 << bit
                files.write(path, bytes(bad))
                journal = Journal(d.games)
                game, dropped = journal.resume()
                tag = starts[line] + data[starts[line]:].find(b"  #~")
                if line >= 6 and at < tag and bad[at] != 10:
                    # a damaged action text, its tag whole: repaired, the original kept
                    assert journal.repaired == 1 and dropped == 0, (at, bit)
                    assert files.read(path) == data and files.read(journal.kept) == bytes(bad)
                    files.STORE.remove_tree(d.games + "/damaged")
                    continue
                assert dropped >= 1 and not journal.repaired, (at, bit)
                if files.STORE.exists(d.games + "/damaged"):
                    files.STORE.remove_tree(d.games + "/damaged")
                if line < 6:   # a damaged header: no usable game, the file is put aside
                    assert game is None, (at, bit)
                    assert not files.STORE.exists(path) and files.read(d.games + "/broken.txt") == bytes(bad)
                    continue
                assert len(game) == line - 6, (at, bit)
                expect = _new(setup)
                for step in steps[:line - 6]:
                    eh.apply(expect, step)
                assert to_json(game) == to_json(expect)
                assert files.read(path) == data[:starts[line]]


def test_illegal_action_ends_the_record():
    setup, steps = _game("short")
    game = _new(setup)
    journal_text = notation.header_text(game) + "1: play 3\n2: play 2\n3: pass\n"
    with Folder() as d:
        os.mkdir(d.games)
        files.write(d.games + "/current.txt", journal_text.encode())
        back, dropped = Journal(d.games).resume()
        assert len(back) == 1 and dropped == 2   # 2 is not stronger than 3
        # the good lines, taken as the box's own; the typed file kept whole
        assert files.read(d.games + "/current.txt") == _tagged(
            notation.header_text(game) + "1: play 3\n")
        assert files.read(d.games + "/damaged/001-current.txt") == journal_text.encode()


def test_garbage_never_crashes():
    x = 7
    noise = bytearray()
    for _ in range(3000):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        noise.append(x >> 16 & 0xFF)
    header = b"players 3\ndealer 1\nexpansion none\nrevolution 5\nsticks 40\nhands 15 15 15\n"
    cases = (
        (b"", None),
        (bytes(noise), None),
        (b"\x00" * 500, None),
        (b"a" * 5000, None),                       # one endless line
        (b"players 3\n" + b"x" * 300 + b"\n", None),  # a line too long, inside the header
        (b"\xff\xfe\xfd\n", None),                 # not UTF-8
        (b"dealer 1\n", None),                     # no players
        (b"players 9\n", None),                    # no such table
        (b"players 3\nhands 30 30 30\n", None),    # more cards than the deck
        (b"players 3\ndealer 5\n1: pass\n", None),
        (b"players 3\nplayers 3\n", None),
        (b"players", None),                        # torn first line
        (tagged(2, "players 3"), None),            # a line in the wrong place
        (header, 0),                               # header only: a game at its start
        (b"players 3\n", 0),                       # hand-written, defaults for the rest
        (header + b"1: play 5\n" + bytes(noise[:200]), 1),
        (header + b"1: play 5\r\n2: pass\r\n", 2),  # CRLF line ends
        (header + b"1: play 5\n2: play 5 as \xc3\xa9\n", 1),
    )
    with Folder() as d:
        os.mkdir(d.games)
        path = d.games + "/current.txt"
        for data, actions in cases:
            files.write(path, data)
            game, dropped = Journal(d.games).resume()
            if actions is None:
                assert game is None, data[:40]
                assert not files.STORE.exists(path)
            else:
                assert game is not None and len(game) == actions, data[:40]
                again, dropped2 = Journal(d.games).resume()
                assert dropped2 == 0 and to_json(again) == to_json(game)


def test_missing_or_odd_folders():
    with Folder() as d:
        journal = Journal(d.games)
        assert journal.resume() == (None, 0)            # no folder at all
        assert journal.load_setup() is None
        assert Journal(d.games + "/deeper/still").resume() == (None, 0)
        files.write(d.games, b"a file where the folder should be")
        assert Journal(d.games).resume() == (None, 0)
        os.remove(d.games)
        os.mkdir(d.games)
        os.mkdir(d.games + "/current.txt")               # a folder where the file should be
        assert Journal(d.games).resume() == (None, 0)
        os.rmdir(d.games + "/current.txt")
        journal = Journal(d.games)
        game = _journal_game(journal, "short", 3)       # the folder is made when needed
        assert to_json(Journal(d.games).resume()[0]) == to_json(game)


def test_stale_tmp_files():
    with Folder() as d:
        game = _journal_game(Journal(d.games), "short", 5)
        data = files.read(d.games + "/current.txt")
        files.write(d.games + "/current.txt.tmp", data[:37])
        files.write(d.games + "/setup.txt.tmp", b"players 4\nde")
        back, dropped = Journal(d.games).resume()
        assert dropped == 0 and to_json(back) == to_json(game)
        assert _names(d.games) == ["current.txt"]
        assert Journal(d.games).load_setup() is None   # the lone tmp was cut short
        # a tmp is never used, even when it is whole and nothing else is there
        os.rename(d.games + "/current.txt", d.games + "/current.txt.tmp")
        assert Journal(d.games).resume() == (None, 0)
        assert _names(d.games) == []


def test_a_header_cut_on_a_line_boundary_never_starts_another_game():
    # finding 1: a cut while the new game's header is written, with no current.txt, must not
    # resume a game with the missing settings filled in by defaults
    game = Game(4, dealer=2, expansion="gh4", revolution=4, sticks=52, hands=[10] * 4)
    header = notation.header_text(game)
    for budget in range(len(header) + 20):
        with Folder() as d:
            try:
                Journal(d.games, CutStore(budget)).start(game)
            except OSError:
                pass
            back, _dropped = Journal(d.games).resume()
            assert back is None or _text(back) == _text(game), budget
    # and a tagged header without all six lines is put aside, not filled with defaults
    with Folder() as d:
        os.mkdir(d.games)
        files.write(d.games + "/current.txt", b"".join(
            tagged(i + 1, t) for i, t in enumerate(header.split("\n")[:3])))
        assert Journal(d.games).resume()[0] is None


def test_next_record_left_by_a_cut_between_archive_and_start():
    with Folder() as d:
        old = _journal_game(Journal(d.games), "short", 4)
        new = _new(_game("two")[0])
        Journal(d.games).start(new, old)
        data = files.read(d.games + "/current.txt")
        archived = files.read(d.games + "/archive/game-001.txt")
        # the cut came after the old game went to the archive: the new game takes its place
        os.rename(d.games + "/current.txt", d.games + "/next.txt")
        back, dropped = Journal(d.games).resume()
        assert dropped == 0 and _text(back) == _text(new)
        assert _names(d.games) == ["archive", "current.txt"]
        # the cut came before: the old game goes on, the new record is dropped
        files.write(d.games + "/next.txt", data)
        files.write(d.games + "/current.txt", archived)
        back, dropped = Journal(d.games).resume()
        assert _text(back) == _text(old)
        assert not files.STORE.exists(d.games + "/next.txt")


# --- undo, archive, setup ----------------------------------------------------------------------

def test_rewrite_after_undo():
    setup, steps = _game("short")
    with Folder() as d:
        journal = Journal(d.games)
        game = _journal_game(journal, "short", 8)
        assert game.undo() and game.undo()
        journal.rewrite(game)
        data = files.read(d.games + "/current.txt")
        assert _plain(data) == notation.write(game)
        back, dropped = Journal(d.games).resume()
        assert dropped == 0 and to_json(back) == to_json(game) and len(back) == 6
        for step in steps[6:]:
            eh.apply(game, step)
            journal.append(game)
        back, dropped = Journal(d.games).resume()
        assert dropped == 0 and notation.write(back) == notation.write(game)


def test_append_out_of_step_rewrites():
    setup, steps = _game("short")
    with Folder() as d:
        journal = Journal(d.games)
        game = _journal_game(journal, "short", 6)
        game.undo()
        eh.apply(game, steps[5])
        journal.append(game)          # the undo was never rewritten: same length as before
        back = Journal(d.games).resume()[0]
        assert notation.write(back) == notation.write(game)
        fresh = Journal(d.games + "2")  # never started: append writes the whole record
        fresh.append(game)
        assert notation.write(fresh.resume()[0]) == notation.write(game)


def test_archive_numbering_and_keep():
    with Folder() as d:
        games = []
        for n in range(5):
            journal = Journal(d.games, keep=3)      # a restart between games
            game = _journal_game(journal, "two" if n % 2 else "short", None if n % 2 else 4)
            path = journal.archive(game)
            assert path == d.games + "/archive/game-%03d.txt" % (n + 1)
            assert not files.STORE.exists(d.games + "/current.txt")
            assert Journal(d.games).resume() == (None, 0)
            games.append(game)
        assert sorted(os.listdir(d.games + "/archive")) == [
            "game-003.txt", "game-004.txt", "game-005.txt"]
        for n in (3, 4, 5):
            data = files.read(d.games + "/archive/game-%03d.txt" % n)
            assert _plain(data) == notation.write(games[n - 1])
        # numbers go on from the highest name; other files are left alone
        files.write(d.games + "/archive/game-041.txt", b"players 2\n")
        files.write(d.games + "/archive/notes.txt", b"hello")
        journal = Journal(d.games, keep=2)
        game = _journal_game(journal, "short", 2)
        assert journal.archive(game).endswith("/archive/game-042.txt")
        assert sorted(os.listdir(d.games + "/archive")) == ["game-041.txt", "game-042.txt", "notes.txt"]
        assert journal.archived() == [41, 42]
        # archiving a game the journal never saw writes its whole record
        game = _journal_game(Journal(d.games + "/x"), "two")
        path = Journal(d.games).archive(game)
        assert _plain(files.read(path)) == notation.write(game)


def _ids(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith("id-"))


def test_a_game_001_draws_the_journals_id():
    """The journal's id (games/id-XXXXXXXX, which box.uplink takes into its games' ids) is
    drawn when a game 001 begins, and only then: a box whose flash was wiped numbers from 001
    again, and its games must not take the ids of those the hall has."""
    with Folder() as d:
        journal = Journal(d.games)
        one = _journal_game(journal, "short", 4)
        [first] = _ids(d.games)
        assert len(first) == 11 and int(first[3:], 16) >= 0
        two = _new(_game("two")[0])
        journal.start(two, one)                        # game 002: the same journal
        journal.archive(two)
        _journal_game(journal, "odd", 2)               # game 003
        assert _ids(d.games) == [first] and journal.archived() == [1, 2]
        for name in os.listdir(d.games + "/archive"):  # the games gone (the box's record
            os.remove(d.games + "/archive/" + name)    # unusable, the archive emptied):
        os.remove(d.games + "/current.txt")            # a new numbering, a new id
        files.write(d.games + "/id-00000000", b"")     # (and one left by a cut: both go)
        _journal_game(Journal(d.games), "short", 1)
        [second] = _ids(d.games)
        assert second not in (first, "id-00000000") and len(second) == 11


def test_setup_save_and_load():
    with Folder() as d:
        journal = Journal(d.games)
        assert journal.load_setup() is None
        journal.save_setup(5, 2, "gh4", 4, 35, [12, 12, 12, 12, 12])
        assert Journal(d.games).load_setup() == {
            "players": 5, "dealer": 2, "expansion": "gh4", "revolution": 4, "sticks": 35,
            "hands": [12, 12, 12, 12, 12]}
        journal.save_setup(3, 1, "none", 5, 40, None)
        assert journal.load_setup() == {
            "players": 3, "dealer": 1, "expansion": "none", "revolution": 5, "sticks": 40,
            "hands": None}
        path = d.games + "/setup.txt"
        data = files.read(path)
        assert _plain(data) == "players 3\ndealer 1\nexpansion none\nrevolution 5\nsticks 40\n"
        for bad in (b"", b"\x00\xff" * 40, data[:-3], data.replace(b"players 3", b"players 4"),
                    b"dealer 2\n", b"players 3\n1: play 5\n", data + b"junk\n"):
            files.write(path, bad)
            assert journal.load_setup() is None, bad
        files.write(path, b"players 4\nsticks 20\n")  # by hand: accepted
        assert journal.load_setup()["sticks"] == 20


# --- write failures and power cuts -------------------------------------------------------------

class _FailOnce(CutStore):
    """Fails one write part-way, then works again."""

    def _fail(self):
        self.budget = None
        super()._fail()


def _line_cost(name, upto):
    with Folder() as d:
        store = CutStore()
        journal = Journal(d.games, store)
        _journal_game(journal, name, upto - 1)
        before = store.spent
        setup, steps = _game(name)
        game = journal.resume()[0]
        eh.apply(game, steps[upto - 1])
        journal.append(game)
        return before, store.spent - before


def _resume_copy(d):
    """Resume from a copy of current.txt, leaving the box's own file as it is."""
    copy = d.path + "/copy"
    if not files.STORE.exists(copy):
        os.mkdir(copy)
    files.write(copy + "/current.txt", files.read(d.games + "/current.txt"))
    return Journal(copy).resume()[0]


def test_failed_append_never_breaks_resume():
    setup, steps = _game("short")
    k = 7
    _start, cost = _line_cost("short", k)
    for power_cut, fail_once in ((False, False), (True, False), (False, True)):
        for written in range(cost):
            with Folder() as d:
                store = _FailOnce(power_cut=False) if fail_once else CutStore(power_cut=power_cut)
                journal = Journal(d.games, store)
                game = _journal_game(journal, "short", k - 1)
                before = to_json(game)
                eh.apply(game, steps[k - 1])
                store.budget = written
                failed = False
                try:
                    journal.append(game)
                except OSError:
                    failed = True
                assert failed
                game.undo()                       # what the app does
                back = _resume_copy(d)
                assert to_json(back) == before, (power_cut, written)
                if power_cut:
                    continue
                # the box goes on: the flash has room again
                store.budget = None
                for step in steps[k - 1:]:
                    eh.apply(game, step)
                    journal.append(game)
                back, dropped = Journal(d.games).resume()
                assert dropped == 0 and notation.write(back) == notation.write(game)


def _session(journal, state):
    """Two games with every setting non-default, undos among the actions, the second started
    over the first (archive-and-start), then archived. state = [confirmed, in flight]. The
    resume snapshot is asked for after each line, as the app does (the journal writes one
    every `snap_every` lines)."""

    def step(call, after, *args):
        state[1] = after
        call(*args)
        journal.checkpoint(game)
        state[0] = after

    old = None
    for name in ("odd", "odd3"):
        setup, steps = _game(name)
        game = _new(setup)
        step(journal.start, _text(game), game, old)
        for n in range(len(steps)):
            eh.apply(game, steps[n])
            step(journal.append, _text(game), game)
            if n % 7 == 3:
                before = _new(setup)
                for s in steps[:n]:
                    eh.apply(before, s)
                state[1] = _text(before)
                last = game.last_action()
                game.undo()
                journal.undo(game, last)
                journal.checkpoint(game)
                state[0] = state[1]
                eh.apply(game, steps[n])
                step(journal.append, _text(game), game)
        old = game
    state[1] = None
    journal.archive(old)
    state[0] = None
    return old


def _full_replay_of(root):
    """The game a resume gives from a copy of root's files without the snapshot (a full
    replay of the record), or None."""
    copy = root + "-full"
    if files.STORE.exists(copy):
        files.STORE.remove_tree(copy)
    os.mkdir(copy)
    if files.STORE.isdir(root):
        for name in os.listdir(root):
            if name != "current.snap" and not files.STORE.isdir(root + "/" + name):
                files.write(copy + "/" + name, files.read(root + "/" + name))
    game = Journal(copy).resume()[0]
    files.STORE.remove_tree(copy)
    return game


def test_power_cut_at_every_step():
    with Folder() as d:
        total = None
        budget = snapped = 0
        while total is None or budget <= total:
            root = d.path + "/g%d" % budget
            store = CutStore(budget)
            state = [None, None]
            journal = Journal(root, store)
            journal.snap_every = 4   # snapshots written and removed all along the session
            try:
                _session(journal, state)
                total = store.spent
            except OSError:
                assert store.dead and store.spent == budget
            snapped += files.STORE.exists(root + "/current.snap")
            full = _full_replay_of(root)
            back, dropped = Journal(root).resume()
            assert _text(back) in state, (budget, _text(back), state)
            if back is not None:   # the snapshot, if any, gave what the whole record gives
                _same_game(back, full)
            again, dropped = Journal(root).resume()
            assert dropped == 0 and _text(again) == _text(back)
            # the first game is in the archive exactly when the second has started
            first = root + "/archive/game-001.txt"
            if files.STORE.exists(first):
                game, error, _r = notation.read(open(first, "rb"))
                assert error is None and _text(game) == _text(_replayed("odd"))
            elif back is not None:
                assert back.players == 4, budget   # still the first game
            if files.STORE.exists(root):
                files.STORE.remove_tree(root)
            budget += 1
        assert total is not None and total > 600
        assert snapped > total // 4   # many cuts struck with a snapshot on flash


def _replayed(name):
    setup, steps = _game(name)
    game = _new(setup)
    for step in steps:
        eh.apply(game, step)
    return game


_CPYTHON = sys.implementation.name != "micropython"


def test_full_flash_at_every_step():
    # the flash fills at every possible byte of the session; the operation that fails is not
    # taken (the box shows FULL), nothing confirmed is lost, and after a power cycle the box
    # resumes the last confirmed state; with room again the session goes on to the end
    with Folder() as d:
        budget = failures = 0
        total = None
        while total is None or budget <= total:
            root = d.path + "/f%d" % budget
            store = _FullOnce(budget)
            state = [None, None]
            journal = Journal(root, store)
            journal.snap_every = 4
            _session(_Checked(journal, store, state, root), state)
            assert _text(Journal(root).resume()[0]) is None   # archived at the end
            if total is None:
                total = store.spent
            if files.STORE.exists(root):
                files.STORE.remove_tree(root)
            budget += 1 if _CPYTHON else 3   # every byte; every third under MicroPython
            failures += store.failed
        assert total > 600 and failures > total // (1 if _CPYTHON else 3) - 2


class _FullOnce(CutStore):
    """A flash that fills after `budget` bytes, once: the next operation finds room again."""

    def __init__(self, budget):
        CutStore.__init__(self, budget, power_cut=False)
        self.failed = 0


class _Checked:
    """A journal whose calls, when the flash is full, raise as the app sees it; the test then
    checks what a power cycle would resume, makes room and makes the call again."""

    def __init__(self, journal, store, state, root):
        self.j = journal
        self.store = store
        self.state = state
        self.root = root

    def __getattr__(self, name):
        call = getattr(self.j, name)

        def checked(*args):
            try:
                return call(*args)
            except OSError:
                self.store.failed += 1
                # what a power cycle now resumes is the last confirmed state
                assert _text(_resume_elsewhere(self.root)) == self.state[0], (name, self.state)
                self.store.budget = None
                if name == "undo":   # the game has the action again, as the flash: UNDO again
                    assert _text(args[0]) == self.state[0]
                    args[0].undo()
                return call(*args)
        return checked


def _resume_elsewhere(root):
    # resume from a copy of the box's folder, leaving its own files as they are
    copy = root + "-copy"
    if files.STORE.exists(copy):
        files.STORE.remove_tree(copy)
    os.mkdir(copy)
    for name in os.listdir(root):
        if not files.STORE.isdir(root + "/" + name):
            files.write(copy + "/" + name, files.read(root + "/" + name))
    game = Journal(copy).resume()[0]
    files.STORE.remove_tree(copy)
    return game


def test_real_store_operations():
    with Folder() as d:
        st = Store()
        path = d.path + "/f.txt"
        assert not st.exists(path)
        st.write(path, [b"ab", b"c\n"])
        st.append(path, b"d\n")
        assert files.read(path) == b"abc\nd\n"
        st.write(path + ".tmp", [b"new\n"])
        st.rename(path + ".tmp", path)
        assert files.read(path) == b"new\n" and not st.exists(path + ".tmp")
        st.mkdir(d.path + "/sub")
        assert st.isdir(d.path + "/sub") and not st.isdir(path)
        assert sorted(st.listdir(d.path)) == ["f.txt", "sub"]
        st.remove(path)
        assert not st.exists(path)


class _CloseFails(Store):
    """The whole line reaches the file, then closing it reports an error (once)."""

    def __init__(self):
        self.armed = False

    def append(self, path, data):
        Store.append(self, path, data)
        if self.armed:
            self.armed = False
            raise OSError(5)


def test_failed_append_after_full_write_is_taken_back():
    setup, steps = _game("short")
    with Folder() as d:
        store = _CloseFails()
        journal = Journal(d.games, store)
        game = _journal_game(journal, "short", 5)
        before = to_json(game)
        eh.apply(game, steps[5])
        store.armed = True
        try:
            journal.append(game)
            assert False, "append should fail"
        except OSError:
            pass
        game.undo()
        assert to_json(_resume_copy(d)) == before   # the line was taken back out
        for step in steps[5:]:
            eh.apply(game, step)
            journal.append(game)
        back, dropped = Journal(d.games).resume()
        assert dropped == 0 and notation.write(back) == notation.write(game)


class _NoReplace(Store):
    """A filesystem that cannot rename over a file (FAT)."""

    def rename(self, src, dst):
        if self.exists(dst):
            raise OSError(17)
        Store.rename(self, src, dst)


def test_rename_that_cannot_replace_fails_and_keeps_the_record():
    with Folder() as d:
        journal = Journal(d.games, _NoReplace())
        game = _journal_game(journal, "short", 6)
        try:
            journal.rewrite(game)
            assert False, "rewrite should fail"
        except OSError:
            pass
        assert _names(d.games) == ["current.txt"]
        back, dropped = Journal(d.games).resume()
        assert dropped == 0 and notation.write(back) == notation.write(game)


def _actions_of(name, upto):
    setup, steps = _game(name)
    game = _new(setup)
    for step in steps[:upto]:
        eh.apply(game, step)
    return game


def test_a_space_turned_into_a_line_feed_adds_no_action():
    # finding 3: '1: play C C' with a space damaged into a line feed must not resume as
    # '1: play C'; every space of every action line is tried
    with Folder() as d:
        _journal_game(Journal(d.games), "five", 40)
        path = d.games + "/current.txt"
        data = files.read(path)
        lines = data.split(b"\n")[:-1]
        offset = 0
        tried = 0
        for index, line in enumerate(lines):
            body = line[:line.find(b"  #~")]
            if index >= 6:
                for at in range(len(body)):
                    if body[at] == 32:
                        bad = bytearray(data)
                        bad[offset + at] = 10
                        files.write(path, bytes(bad))
                        back, dropped = Journal(d.games).resume()
                        assert dropped >= 1
                        assert _text(back) == _text(_actions_of("five", index - 6)), (index, at)
                        tried += 1
            offset += len(line) + 1
        assert tried > 60


def test_two_damaged_tag_bytes_do_not_remove_the_check():
    with Folder() as d:
        _journal_game(Journal(d.games), "short", 8)
        path = d.games + "/current.txt"
        data = files.read(path)
        lines = data.split(b"\n")[:-1]
        for index in range(6, len(lines)):
            at = sum([len(x) + 1 for x in lines[:index]]) + lines[index].find(b"#~") + 1
            for pair in (b"xz", b"  ", b"-."):   # '#~1f2a' -> '#xzf2a': a plain comment
                bad = bytearray(data)
                bad[at:at + 2] = pair
                files.write(path, bytes(bad))
                back, dropped = Journal(d.games).resume()
                assert _text(back) == _text(_actions_of("short", index - 6)), (index, pair)


def test_undo_appends_one_line():
    setup, steps = _game("five")
    with Folder() as d:
        journal = Journal(d.games)
        game = _journal_game(journal, "five", 30)
        path = d.games + "/current.txt"
        for n in range(30, 20, -1):
            before = files.read(path)
            last = game.last_action()
            assert game.undo()
            journal.undo(game, last)
            after = files.read(path)
            assert after.startswith(before)
            assert after[len(before):] == tagged(len(before.split(b"\n")), "undo")
            back, dropped = Journal(d.games).resume()
            assert dropped == 0 and _text(back) == _text(game) and len(back) == n - 1
        for step in steps[20:25]:
            eh.apply(game, step)
            journal.append(game)
        back, dropped = Journal(d.games).resume()
        assert dropped == 0 and _text(back) == _text(game)
        # the reader of every tool sees the undo lines played out
        loaded, error = notation.load(files.read(path).decode().split("\n"))
        assert error is None and _text(loaded) == _text(game)


def test_undo_the_whole_game_then_more():
    with Folder() as d:
        journal = Journal(d.games)
        game = _journal_game(journal, "short")
        while len(game):
            last = game.last_action()
            game.undo()
            journal.undo(game, last)
        back, dropped = Journal(d.games).resume()
        assert dropped == 0 and _text(back) == _text(game) and len(back) == 0
        # an 'undo' with nothing to take back is refused by the reader
        files.STORE.append(d.games + "/current.txt", b"undo\n")
        game, error = notation.load(files.read(d.games + "/current.txt").decode().split("\n"))
        assert error[2] in ("nothing to undo", "line without a checksum tag after a tagged line")


def test_full_flash_when_a_new_game_starts_keeps_the_running_game():
    # finding 2: the old game was archived before the new one was safely written
    new = _new(_game("odd")[0])
    for budget in range(0, 200, 5):
        with Folder() as d:
            store = CutStore(power_cut=False)
            journal = Journal(d.games, store)
            old = _journal_game(journal, "short", 6)
            store.budget = budget
            try:
                journal.start(new, old)
                started = True
            except OSError:
                started = False
            back, dropped = Journal(d.games).resume()   # after a power cycle
            if started:
                assert _text(back) == _text(new)
                assert _plain(files.read(d.games + "/archive/game-001.txt")) == _text(old)
            else:
                assert _text(back) == _text(old), budget
                assert not files.STORE.exists(d.games + "/archive/game-001.txt")


# --- the resume snapshot -----------------------------------------------------------------------

SNAP_EVERY = 10   # lines between two snapshots in these tests (the box's is SNAP_LINES)


def _snap_session(journal, name="five", undo_every=5, upto=60):
    """A game journalled as the app does, the checkpoint after each line, UNDO every few actions
    (taken back and made again), `upto` actions. Returns the game."""
    journal.snap_every = SNAP_EVERY
    setup, steps = _game(name)
    game = _new(setup)
    journal.start(game)
    journal.checkpoint(game)
    for n in range(min(upto, len(steps))):
        eh.apply(game, steps[n])
        journal.append(game)
        journal.checkpoint(game)
        if n % undo_every == 2:
            _undo_and_again(journal, game, steps[n])
    return game


def _undo_and_again(journal, game, step):
    # an UNDO as the app journals it, then the action keyed again
    last = game.last_action()
    game.undo()
    journal.undo(game, last)
    journal.checkpoint(game)
    eh.apply(game, step)
    journal.append(game)
    journal.checkpoint(game)


def _full_replay(d):
    """The game a full replay of current.txt gives (a copy without the snapshot)."""
    return _resume_copy(d)


def _same_game(a, b):
    assert a is not None and b is not None
    assert eh.snapshot(a) == eh.snapshot(b)
    assert pack_game(a) == pack_game(b)


def test_resume_reads_only_the_lines_after_the_snapshot():
    with Folder() as d:
        game = _snap_session(Journal(d.games))
        lines = files.read(d.games + "/current.txt").count(b"\n")
        assert lines > 8 * SNAP_EVERY and files.STORE.exists(d.games + "/current.snap")
        store = CutStore()
        feeds = []
        journal = Journal(d.games, store, feed=lambda: feeds.append(1))
        back, dropped = journal.resume()
        assert dropped == 0
        _same_game(back, game)
        _same_game(back, _full_replay(d))
        # the snapshot covers all but the last lines; the read goes on from there (one more
        # readline finds the end of the file)
        assert lines - SNAP_EVERY < journal._snap_lines <= lines
        assert store.lines_read == lines - journal._snap_lines + 1
        # and the game goes on from it: appended, snapshot again, resumed again
        rng = eh.Lcg(1)
        while not back.finished and len(back) < len(game) + 3 * SNAP_EVERY:
            eh.step(back, rng)
            journal.append(back)
            journal.checkpoint(back)
        again, dropped = Journal(d.games).resume()
        assert dropped == 0
        _same_game(again, back)
        _same_game(again, _full_replay(d))


def test_a_full_replay_feeds_the_watchdog_every_32_lines():
    with Folder() as d:
        _snap_session(Journal(d.games))
        os.remove(d.games + "/current.snap")
        lines = files.read(d.games + "/current.txt").count(b"\n")
        feeds = []
        back, _dropped = Journal(d.games, feed=lambda: feeds.append(1)).resume()
        assert back is not None and len(feeds) == lines // 32 and lines > 64


def _snapshot_resumes(d, game):
    # whatever is wrong with the snapshot, resume gives the game of a full replay
    back, dropped = Journal(d.games).resume()
    assert dropped == 0
    _same_game(back, game)


def test_every_damaged_snapshot_means_a_full_replay():
    step = 1 if _CPYTHON else 7
    with Folder() as d:
        game = _snap_session(Journal(d.games))
        path = d.games + "/current.snap"
        good = files.read(path)
        record = files.read(d.games + "/current.txt")
        for i in range(0, len(good), step):
            for flip in (1, 0x40):
                bad = bytearray(good)
                bad[i] ^= flip
                files.write(path, bytes(bad))
                _snapshot_resumes(d, game)
                assert files.read(d.games + "/current.txt") == record
        for bad in (b"", good[:-1], good[:20], good + b"\x00"):
            files.write(path, bad)
            _snapshot_resumes(d, game)


def test_a_snapshot_that_does_not_describe_the_record_is_not_used():
    with Folder() as d:
        game = _snap_session(Journal(d.games))
        path = d.games + "/current.snap"
        good = files.read(path)
        record = files.read(d.games + "/current.txt")
        # the record cut back by hand before the covered part ends: a full replay of what is left
        cut = record[:record.rfind(b"\n", 0, len(record) - 200) + 1]
        files.write(d.games + "/current.txt", cut)
        back, dropped = Journal(d.games).resume()
        _same_game(back, _full_replay(d))
        assert len(back) < len(game)
        # another game's snapshot beside the record: its header differs
        with Folder() as other:
            _snap_session(Journal(other.games), "odd", 3, 14)
            files.write(d.games + "/current.txt", record)
            files.write(path, files.read(other.games + "/current.snap"))
            _snapshot_resumes(d, game)
        # the same game, its record written anew without the undo lines: lines at other places
        files.write(path, good)
        journal = Journal(d.games)
        journal.rewrite(game)
        files.write(path, good)   # the old snapshot, as if removing it had failed unseen
        _snapshot_resumes(d, game)


def test_the_snapshot_is_removed_before_the_record_is_replaced():
    with Folder() as d:
        path = d.games + "/current.snap"
        journal = Journal(d.games)
        game = _snap_session(journal)
        assert files.STORE.exists(path)
        old = files.read(path)
        journal.rewrite(game)               # a whole record written anew, and its snapshot
        lines = files.read(d.games + "/current.txt").count(b"\n")
        assert files.read(path) != old and journal._snap_lines == lines
        back, dropped = Journal(d.games, CutStore()).resume()
        _same_game(back, game)
        journal.start(_new(_game("short")[0]), game)   # a new game: the old one archived
        assert not files.STORE.exists(path)
        journal = Journal(d.games)
        game = _snap_session(journal)
        journal.archive(game)
        assert not files.STORE.exists(path)
        # a torn last line repaired at power-up: the snapshot goes before the file is replaced
        game = _snap_session(journal)
        files.STORE.append(d.games + "/current.txt", b"12: pa")
        back, dropped = Journal(d.games).resume()
        assert dropped == 1 and not files.STORE.exists(path)
        _same_game(back, game)


def test_a_snapshot_the_flash_cannot_take_is_skipped():
    with Folder() as d:
        path = d.games + "/current.snap"
        store = CutStore(power_cut=False)
        journal = Journal(d.games, store)
        game = _snap_session(journal)
        good = files.read(path)
        record = files.read(d.games + "/current.txt")
        # full at every byte of the next snapshot: no error, no snapshot left behind but the
        # old one or none, and the record untouched
        rng = eh.Lcg(3)
        while journal._due < SNAP_EVERY:
            eh.step(game, rng)
            journal.append(game)
        record = files.read(d.games + "/current.txt")
        spent = store.spent
        journal.checkpoint(game)
        cost = store.spent - spent
        assert cost > len(good) // 2
        files.write(path, good)
        for budget in range(cost):
            journal._due = SNAP_EVERY   # due again
            store.budget = budget
            journal.checkpoint(game)        # never raises
            store.budget = None
            assert files.read(d.games + "/current.txt") == record
            assert not files.STORE.exists(path) or files.read(path) == good
            _snapshot_resumes(d, game)
            files.write(path, good)


def _reading_cost(lines):
    # what the box counts for a line (box.journal.SNAP_COST): an undo 7, a play 3, else 1
    return sum(7 if line.startswith(b"undo") else 3 if b": play" in line else 1
               for line in lines)


def test_a_snapshot_is_due_when_the_lines_after_it_would_take_long_to_read():
    from box.journal import SNAP_COST
    for undo_every in (0, 1, 3):
        with Folder() as d:
            journal = Journal(d.games)
            setup, steps = _game("five")
            game = _new(setup)
            journal.start(game)
            journal.checkpoint(game)
            path = d.games + "/current.snap"
            n = 0
            while not files.STORE.exists(path):
                eh.apply(game, steps[n])
                journal.append(game)
                journal.checkpoint(game)
                if undo_every and n % undo_every == 0 and not files.STORE.exists(path):
                    _undo_and_again(journal, game, steps[n])
                n += 1
            lines = files.read(d.games + "/current.txt").split(b"\n")[:journal._snap_lines]
            assert _reading_cost(lines) >= SNAP_COST > _reading_cost(lines[:-1])
            assert journal._due < SNAP_COST


# --- damage is kept, never cut away --------------------------------------------------------

def _all_files(root):
    """{path: bytes} of every file under root."""
    out = {}
    if not files.STORE.isdir(root):
        return out
    for name in os.listdir(root):
        path = root + "/" + name
        if files.STORE.isdir(path):
            out.update(_all_files(path))
        else:
            out[path] = files.read(path)
    return out


def _damaged_journal(d, line=20, upto=40, text=False):
    """A journal of `upto` actions of "five" with one byte changed on `line` (counting from 1):
    the '~' of its tag (a line no tag can repair), or with `text` a byte of its text (the tag
    whole: repaired). (The damaged bytes, the game of the lines before it.)"""
    _journal_game(Journal(d.games), "five", upto)
    path = d.games + "/current.txt"
    data = files.read(path)
    lines = data.split(b"\n")
    at = sum([len(x) + 1 for x in lines[:line - 1]]) + (3 if text else lines[line - 1].find(b"~"))
    bad = bytearray(data)
    bad[at] = ord("y") if bad[at] != ord("y") else ord("z")
    files.write(path, bytes(bad))
    return bytes(bad), _actions_of("five", line - 7)


def test_damage_in_the_middle_is_kept_whole():
    with Folder() as d:
        bad, before = _damaged_journal(d)
        journal = Journal(d.games)
        back, dropped = journal.resume()
        assert _text(back) == _text(before) and dropped == 40 + 6 - 19
        assert journal.lost == dropped and journal.kept == d.games + "/damaged/001-current.txt"
        assert files.read(journal.kept) == bad
        prefix = bad[:sum([len(x) + 1 for x in bad.split(b"\n")[:19]])]
        assert files.read(d.games + "/current.txt") == prefix
        assert _names(d.games) == ["current.txt", "damaged"]
        # the game goes on from the kept prefix; a clean resume has nothing to report
        eh.apply(back, _game("five")[1][13])
        journal.append(back)
        again = Journal(d.games)
        assert _text(again.resume()[0]) == _text(back) and again.lost == 0 and again.kept is None
        # a second damage gets the next number: nothing is ever replaced
        data = files.read(d.games + "/current.txt")
        files.write(d.games + "/current.txt", data[:-3] + b"!" + data[-2:])
        third = Journal(d.games)
        assert third.resume()[1] == 1 and third.kept == d.games + "/damaged/002-current.txt"
        assert files.read(d.games + "/damaged/001-current.txt") == bad


def test_a_torn_last_line_is_the_one_repair_without_a_copy():
    with Folder() as d:
        _journal_game(Journal(d.games), "short")
        data = files.read(d.games + "/current.txt")
        files.write(d.games + "/current.txt", data[:-4])
        journal = Journal(d.games)
        assert journal.resume()[1] == 1 and journal.lost == 0 and journal.kept is None
        assert not files.STORE.exists(d.games + "/damaged")
        # a whole last line that fails its check is damage, not a cut: kept
        files.write(d.games + "/current.txt", data[:-3] + b"!\n")
        journal = Journal(d.games)
        assert journal.resume()[1] == 1 and journal.lost == 1
        assert files.read(d.games + "/damaged/001-current.txt") == data[:-3] + b"!\n"


def test_a_second_unusable_record_never_replaces_the_first():
    with Folder() as d:
        os.mkdir(d.games)
        first = b"players 3\nhands 30 30 30\n1: play 4\n2: pass\n"
        second = tagged(1, "players 9") + tagged(2, "dealer 1")
        for data in (first, second):
            files.write(d.games + "/current.txt", data)
            journal = Journal(d.games)
            back, _dropped = journal.resume()
            assert back is None and journal.lost == data.count(b"\n") and journal.kept == d.games + "/broken.txt"
        assert files.read(d.games + "/broken.txt") == second
        assert files.read(d.games + "/damaged/001-broken.txt") == first
        assert not files.STORE.exists(d.games + "/current.txt")


def _cut_everywhere(d, setup, check):
    """Run resume on the flash `setup(root)` makes, with a power cut after every number of
    flash units until one resume runs through; after each cut, check(root) and a clean resume."""
    budget = 0
    while True:
        root = d.path + "/c%d" % budget
        setup(root)
        store = CutStore(budget)
        Journal(root, store).resume()
        check(root)
        done = not store.dead
        files.STORE.remove_tree(root)
        if done:
            return budget
        budget += 1


def test_power_cut_at_every_step_of_keeping_damage():
    with Folder() as d:
        bad, before = _damaged_journal(d)

        def setup(root):
            os.mkdir(root)
            files.write(root + "/current.txt", bad)

        def check(root):
            assert bad in _all_files(root).values()          # every original byte findable
            journal = Journal(root)
            back = journal.resume()[0]
            assert _text(back) == _text(before)
            assert list(_all_files(root).values()).count(bad) == 1
            assert journal.lost == 0 or journal.kept == root + "/damaged/001-current.txt"
        assert _cut_everywhere(d, setup, check) > 100


def test_power_cut_at_every_step_of_putting_a_record_aside():
    first = b"players 3\nhands 30 30 30\n1: play 4\n"
    second = b"players 9\n"
    with Folder() as d:
        def setup(root):
            os.mkdir(root)
            files.write(root + "/broken.txt", first)
            files.write(root + "/current.txt", second)

        def check(root):
            found = list(_all_files(root).values())
            assert first in found and second in found
            assert Journal(root).resume()[0] is None
            assert sorted(_all_files(root).values()) == sorted([first, second])
            assert files.read(root + "/broken.txt") == second
        _cut_everywhere(d, setup, check)


def test_full_flash_while_keeping_damage_cuts_nothing():
    # no room for the kept prefix: the damaged record stays as it is, every write fails (the
    # box shows FULL) until there is room, and then the damage is kept before anything goes on
    with Folder() as d:
        bad, before = _damaged_journal(d)
        step = _game("five")[1][13]
        size = len(bad)
        for budget in range(0, size, 1 if _CPYTHON else 7):
            root = d.path + "/f%d" % budget
            os.mkdir(root)
            files.write(root + "/current.txt", bad)
            store = CutStore(budget, power_cut=False)
            journal = Journal(root, store)
            back, dropped = journal.resume()
            assert _text(back) == _text(before) and journal.lost == dropped > 0
            if journal.kept is None:
                assert files.read(root + "/current.txt") == bad, budget
                eh.apply(back, step)
                try:
                    journal.append(back)
                    assert False, "appended after damage that is not kept"
                except OSError:
                    back.undo()
                assert _all_files(root) == {root + "/current.txt": bad}, budget
                store.budget = None
                eh.apply(back, step)
                journal.append(back)
                assert journal.kept == root + "/damaged/001-current.txt"
            assert files.read(root + "/damaged/001-current.txt") == bad
            assert _text(Journal(root).resume()[0]) == _text(back)
            files.STORE.remove_tree(root)


def test_a_damaged_text_with_its_tag_whole_is_repaired():
    # every byte of the text of every action line, changed: the tag finds the one legal
    # action it can be; the original is kept, the record as repaired takes its place
    with Folder() as d:
        game = _journal_game(Journal(d.games), "five", 30)
        path = d.games + "/current.txt"
        data = files.read(path)
        lines = data.split(b"\n")[:-1]
        offset = sum([len(x) + 1 for x in lines[:6]])
        repaired = 0
        for line in lines[6:]:
            for at in range(line.find(b"  #~")):
                for byte in ((b"x", b"9", b" ", b"\xc3") if _CPYTHON else (b"9",)):
                    if line[at:at + 1] == byte:
                        continue
                    bad = data[:offset + at] + byte + data[offset + at + 1:]
                    files.write(path, bad)
                    journal = Journal(d.games)
                    back, dropped = journal.resume()
                    assert (journal.repaired, journal.lost, dropped) == (1, 0, 0), (line, at, byte)
                    assert _text(back) == _text(game)
                    assert files.read(path) == data
                    assert files.read(d.games + "/damaged/001-current.txt") == bad
                    files.STORE.remove_tree(d.games + "/damaged")
                    repaired += 1
            offset += len(line) + 1
        assert repaired > (300 if _CPYTHON else 100)


def test_repair_and_loss_in_one_record():
    # line 10 repaired by its tag, line 30 lost with its tag: both said, the original kept
    with Folder() as d:
        bad, _before = _damaged_journal(d, line=30, upto=40)
        data = bytearray(bad)
        at = sum([len(x) + 1 for x in bad.split(b"\n")[:9]]) + 3
        data[at] = ord("y") if data[at] != ord("y") else ord("z")
        files.write(d.games + "/current.txt", bytes(data))
        journal = Journal(d.games)
        back, dropped = journal.resume()
        assert (journal.repaired, journal.lost) == (1, 40 + 6 - 29) and dropped == journal.lost
        assert _text(back) == _text(_actions_of("five", 23))
        assert files.read(journal.kept) == bytes(data)


def test_power_cut_at_every_step_of_a_repair():
    with Folder() as d:
        bad, _before = _damaged_journal(d, text=True)
        game = _actions_of("five", 40)

        def setup(root):
            os.mkdir(root)
            files.write(root + "/current.txt", bad)

        def check(root):
            assert bad in _all_files(root).values()
            back = Journal(root).resume()[0]
            assert _text(back) == _text(game)
            assert list(_all_files(root).values()).count(bad) == 1
        assert _cut_everywhere(d, setup, check) > 500
