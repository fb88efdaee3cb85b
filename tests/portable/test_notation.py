"""The game record notation (tycoon.notation): reader, errors with line numbers, writer."""
from tycoon import notation
from tycoon.game import Game, IllegalAction, PLAY, PASS, RETURN
from engine_helpers import record, record_error, snapshot, syntax_line, illegal_line, random_game

CLEAN = "players 3\ndealer 2\nsticks 30\nhands 5 5 5\n2: play 6 9 as 9\n3: pass\n1: play A A\n2: pass\n3: pass"


def test_comments_blank_lines_and_spacing():
    text = ("# a game\n\n  players 3   # three of us\ndealer 2\n\t sticks 30\nhands 5  5 5\n\n"
            "# first trick\n2: play 6 9 as 9 # turned\n  3:  pass\n1: play A A\n\n2: pass\n3: pass  \n# end")
    assert snapshot(record(text)) == snapshot(record(CLEAN))


def test_case_insensitive():
    text = ("PLAYERS 3\nDealer 2\nSTICKS 30\nHands 5 5 5\n2: PLAY 6 9 AS 9\n3: Pass\n1: play a A\n"
            "2: PASS\n3: pass")
    assert snapshot(record(text)) == snapshot(record(CLEAN))
    g = record("players 3\nexpansion GH2\nrevolution 4\n1: play b B\n2: play 3 e AS e")
    assert g.expansion == "gh2" and g.revolution_size == 4
    assert g.table == (14, 2, 2, 0)


def test_seat_prefix_is_optional_and_may_touch_the_word():
    a = record("players 3\nplay 3\npass\nplay 5 as 9")
    b = record("players 3\n1: play 3\n2: pass\n3:play 5 as 9")
    assert snapshot(a) == snapshot(b)
    assert b.table == (9, 1, 3, 1)


def test_headers_in_any_order_with_defaults():
    a = record("hands 5 6 7\nsticks 52\nplayers 3")
    assert list(a.hands) == [5, 6, 7] and a.total_sticks == 52 and a.dealer == 1
    assert a.expansion == "none" and a.revolution_size == 5
    b = record("players 5")
    assert snapshot(b) == snapshot(Game(5))


def test_crlf_lines():
    g, error = notation.load(["players 3\r\n", "1: play 3\r\n", "2: pass\r\n"])
    assert error is None and g.turn == 3


# --- syntax errors ----------------------------------------------------------------------

def test_unknown_word():
    syntax_line("players 3\njump", 2)
    syntax_line("players 3\n1: play 3\n2: fold", 3)
    syntax_line("players 3\n1: play 3\n2 : pass", 3)
    syntax_line("player 3", 1)


def test_header_after_an_action_or_repeated():
    game, _ = syntax_line("players 3\n1: play 3\nsticks 30", 3)
    assert game is not None and len(game) == 1 and game.total_sticks == 40
    game, _ = syntax_line("players 3\n\n# again\nplayers 4", 4)
    assert game is None
    syntax_line("players 3\nhands 5 5 5\nsticks 3\nhands 5 5 5", 4)


def test_bad_numbers():
    syntax_line("players three", 1)
    syntax_line("players 3\nsticks -1", 2)
    syntax_line("players 3\nsticks 4x", 2)
    syntax_line("players 3\ndealer 1.5", 2)
    syntax_line("players 3\nhands 5 x 5", 2)
    syntax_line("players 3\nx: pass", 2)
    syntax_line("players 3\n-1: play 3", 2)


def test_numbers_are_ascii_digits_only():
    # str.isdigit() also accepts superscripts and other scripts' digits; a record must read
    # the same on every runtime and must never crash the reader
    for text in ("players \u00b2", "players \u0663", "players 3\nsticks \u00b9",
                 "players 3\nhands 5 5 \u2075", "players 3\n\u00b2: pass"):
        game, error = notation.load(text.split("\n"))
        assert error is not None and error[1] == "syntax", (text, error)


def test_header_arguments():
    syntax_line("players", 1)
    syntax_line("players 3 4", 1)
    syntax_line("players 3\nexpansion gh3", 2)
    syntax_line("players 3\nexpansion", 2)
    syntax_line("players 3\nrevolution 3", 2)
    syntax_line("players 3\nrevolution 6", 2)
    syntax_line("players 3\nhands", 2)
    syntax_line("players 3\n1: players 3", 2)


def test_players_outside_two_to_eight():
    for n in (0, 1, 9, 10):
        syntax_line("players %d\n1: play 3" % n, 1)
    for n in range(2, 9):
        assert record("players %d" % n).players == n


def test_dealer_outside_the_seats():
    syntax_line("players 3\ndealer 4\n1: play 3", 2)
    syntax_line("# c\ndealer 0\nplayers 3\n1: play 3", 2)
    syntax_line("players 3\n\ndealer 9", 3)          # no actions: still checked at the end
    assert record("players 3\ndealer 3").turn == 3


def test_hands_with_the_wrong_number_of_seats_or_too_many_cards():
    syntax_line("players 3\nhands 5 5\n1: play 3", 2)
    syntax_line("players 3\nhands 5 5 5 5\n1: play 3", 2)
    syntax_line("players 2\nhands 30 27", 2)
    syntax_line("players 4\nexpansion gh2\nhands 15 15 15 16\n1: play 3", 3)
    assert record("players 4\nexpansion gh2\nhands 15 15 15 15").cards == [15, 15, 15, 15]
    assert record("players 2\nhands 28 28").cards == [28, 28]


def test_missing_players_header():
    syntax_line("dealer 1\n1: play 3", 2)
    syntax_line("", 1)
    _, error = record_error("# nothing here")
    assert error[1] == "syntax"


def test_tokens_that_are_no_face():
    for token in ("X", "L", "10", "P", "-1", "3,"):
        syntax_line("players 3\n1: play %s" % token, 2)
    syntax_line("players 3\n1: play 3 as X", 2)
    syntax_line("players 3\n1: play 3 as 10", 2)


def test_play_without_faces_and_as_without_value():
    syntax_line("players 3\n1: play", 2)
    syntax_line("players 3\nplay as 3", 2)
    syntax_line("players 3\n1: play 3 as", 2)
    syntax_line("players 3\n1: play 3 as 9 9", 2)
    syntax_line("players 3\n1: play 3\n2: pass 3", 3)
    syntax_line("players 3\nhands 0 5 5\n1: return 1", 3)
    syntax_line("players 3\n1:", 2)


def test_syntax_error_keeps_the_game_so_far():
    game, message = syntax_line("players 3\n1: play 3\n2: play 4\n3: play Z\n1: pass", 4)
    assert len(game) == 2 and game.table == (4, 1, 2, 0) and game.turn == 3
    assert isinstance(message, str)


def test_where_a_record_stops_is_a_record_error_on_cpython_a_plain_tuple_on_micropython():
    _game, error = notation.load(["players 3", "1: play 3", "2: play 2"])
    assert error == (3, "illegal", "not-stronger")
    if notation.RecordError is None:   # MicroPython: the same fields in the same order
        assert type(error) is tuple
        return
    assert isinstance(error, notation.RecordError)
    assert (error.line, error.kind, error.code) == (3, "illegal", "not-stronger")


def test_expansion_faces_without_expansion_are_illegal_not_syntax():
    illegal_line("players 3\n1: play G", 2, "no-such-card")
    illegal_line("players 3\n1: play h h", 2, "no-such-card")
    illegal_line("players 3\n1: play 8 as H", 2, "no-such-value")
    illegal_line("players 3\n1: play 3\n2: play C as g", 3, "no-such-value")
    assert record("players 3\nexpansion gh4\n1: play G\n2: play H").finished is False


def test_illegal_actions_with_line_numbers():
    g = illegal_line("players 3\n\n# start\n1: play 3\n2: play 2", 5, "not-stronger")
    assert len(g) == 1 and g.turn == 2
    illegal_line("players 3\n2: play 3", 2, "not-your-turn")
    illegal_line("players 3\npass", 2, "cannot-pass")
    illegal_line("players 3\nreturn", 2, "has-cards")
    illegal_line("players 3\nhands 1 5 5\nplay 3\npass\npass\npass", 6, "must-return")
    illegal_line("players 2\nhands 1 3\nplay 3 as 9\npass", 4, "game-over")
    illegal_line("players 3\nplay 4 as 9", 2, "not-enough-sticks")
    illegal_line("players 3\nplay 6 9", 2, "mixed-values")
    illegal_line("players 3\nplay 2 as 3", 2, "impossible-shape")
    illegal_line("players 3\nhands 2 5 5\nplay 1 1 1", 3, "not-in-hand")
    illegal_line("players 3\nplay 1 1 1 1 1 1", 2, "too-many-cards")
    illegal_line("players 3\nplay 1 1\nplay 1", 3, "wrong-count")


def test_reader_feed():
    r = notation.Reader()
    assert r.feed("players 3") == 0 and r.game is None
    assert r.feed("# comment") == 0
    assert r.feed("1: play F") != 0        # forced: event flags come back
    g = r.game
    assert g.turn == 1 and g.table is None
    before = snapshot(g)
    try:
        r.feed("2: pass")
        raise AssertionError("not-your-turn expected")
    except IllegalAction as exc:
        assert exc.code == "not-your-turn"
    assert snapshot(g) == before
    try:
        r.feed("1: dance")
        raise AssertionError("syntax error expected")
    except notation.NotationError as exc:
        assert "dance" in exc.message
    assert snapshot(g) == before
    assert r.lineno == 5
    r.feed("play 3")
    assert r.finish() is g and len(g) == 2


def test_reader_finish_without_actions():
    r = notation.Reader()
    r.feed("players 4")
    g = r.finish()
    assert snapshot(g) == snapshot(Game(4))


def test_load_accepts_any_iterable_of_lines():
    def gen():
        yield "players 3\n"
        yield "1: play 3\n"
    g, error = notation.load(gen())
    assert error is None and len(g) == 1


# --- the writer -------------------------------------------------------------------------

def test_header_text():
    assert notation.header_text(Game(3)) == ("players 3\ndealer 1\nexpansion none\nrevolution 5\n"
                                              "sticks 40\nhands 15 15 15\n")
    g = Game(5, dealer=4, expansion="gh4", revolution=4, sticks=52, hands=[9, 8, 7, 6, 0])
    assert notation.header_text(g) == ("players 5\ndealer 4\nexpansion gh4\nrevolution 4\n"
                                       "sticks 52\nhands 9 8 7 6 0\n")


def test_action_text():
    assert notation.action_text(PLAY, 2, (6, 9), 9, True) == "2: play 6 9 as 9\n"
    assert notation.action_text(PLAY, 1, (10, 11, 13), 13, False) == "1: play A B D\n"
    assert notation.action_text(PLAY, 8, (16,), 17, True) == "8: play G as H\n"
    assert notation.action_text(PASS, 3) == "3: pass\n"
    assert notation.action_text(RETURN, 4) == "4: return\n"


def test_write_canonical_form():
    text = ("# messy\nPLAYERS 3\nhands 3 5 5\nPlay 6 9 As 9\n  pass # soft\n3: play a a as a\n"
            "pass\n2: pass\n3: play 4\n1: play F\n")
    g = record(text)
    assert notation.write(g) == ("players 3\ndealer 1\nexpansion none\nrevolution 5\nsticks 40\n"
                                 "hands 3 5 5\n1: play 6 9 as 9\n2: pass\n3: play A A as A\n"
                                 "1: pass\n2: pass\n3: play 4\n1: play F\n")


def test_write_with_returns_and_explicit_as_of_the_same_value():
    g = record("players 3\nhands 1 5 5\nplay 3 as 3\npass\npass\nreturn")
    out = notation.write(g)
    assert out.endswith("1: play 3 as 3\n2: pass\n3: pass\n1: return\n")
    assert snapshot(record(out)) == snapshot(g)


def test_round_trip():
    for text in (CLEAN, "players 8\nexpansion gh2\nrevolution 4\nsticks 7\n1: play 8 8 8 8\n2: play 2 2 2 2"):
        g = record(text)
        again = record(notation.write(g))
        assert snapshot(again) == snapshot(g)
        assert notation.write(again) == notation.write(g)


def test_round_trip_random_games():
    for seed in range(25):
        g = random_game(seed)
        text = notation.write(g)
        again = record(text)
        assert snapshot(again) == snapshot(g), "seed %d" % seed
        assert notation.write(again) == text
        assert again.finished == g.finished


# --- the one reader, from bytes (docs/notation.md: Bytes, lines and words) -------------------

def _verdict(data):
    import io
    game, error, reader = notation.read(io.BytesIO(data))
    return game, error


RECORD = b"players 3\n1: play 3\n2: pass\n"


def test_reader_accepts_bom_crlf_and_tabs():
    for data in (RECORD, b"\xef\xbb\xbf" + RECORD, RECORD.replace(b"\n", b"\r\n"),
                 RECORD.replace(b" ", b"\t"), RECORD + b"\n\n# the end\n"):
        game, error = _verdict(data)
        assert error is None and len(game) == 2 and game.turn == 3, data


def test_bom_only_opens_the_first_line():
    game, error = _verdict(b"players 3\n\xef\xbb\xbf1: play 3\n")
    assert error == (2, "syntax", "character U+FEFF outside a comment")


def test_unicode_spaces_are_not_white_space():
    # CPython's str.split() takes these as spaces, MicroPython's does not: neither does the reader
    for space in ("\u00a0", "\u3000", "\u2028", "\u0085", "\x0b", "\x0c", "\x1c"):
        data = ("players 3\n1: play" + space + "3\n").encode()
        game, error = _verdict(data)
        assert error == (2, "syntax", "character U+%04X outside a comment" % ord(space)), space
    game, error = _verdict("players 3  # a comment may say anything: \u3000\u00a0é\n".encode())
    assert error is None


def test_invalid_utf8_is_refused_as_cpython_does():
    for bad in (b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff",
                b"\xc3", b"\xe2\x82"):
        game, error = _verdict(b"players 3\n# " + bad + b"\n")
        assert error == (2, "syntax", "not UTF-8 text"), bad
    for good in (b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xed\x9f\xbf"):
        assert _verdict(b"players 3\n# " + good + b"\n")[1] is None, good


def test_a_last_line_without_newline_is_torn_after_a_tag():
    # after a tagged line it is an append the power cut short
    torn = notation.tagged(1, "players 3") + notation.tagged(2, "1: play 3") + b"2: pass"
    game, error = _verdict(torn)
    assert error == (3, "syntax", "last line without a newline (cut short: the box drops it)")
    assert len(game) == 1
    game, error = _verdict(torn[:-7] + notation.tagged(3, "2: pass")[:-3])
    assert error == (3, "syntax", "last line without a newline (cut short: the box drops it)")
    # in a record without a tag it is as typed: the box tags such a record before it appends
    for end in (b"2: pass", b"2: pass\r", b"2: pass  "):
        game, error = _verdict(b"players 3\n1: play 3\n" + end)
        assert error is None and len(game) == 2, end
    game, error = _verdict(b"players 3\n1: play 3\n2: play 3")
    assert error == (3, "illegal", "not-stronger")
    assert _verdict(b"players 3\n1: play 3\n")[1] is None


def test_line_and_number_limits():
    line = b"# " + b"x" * 197 + b"\n"           # 199 bytes and the newline: the longest line
    assert len(line) == notation.LIMIT and _verdict(b"players 3\n" + line)[1] is None
    game, error = _verdict(b"players 3\n# " + b"x" * 198 + b"\n1: play 3\n")
    assert error == (2, "syntax", "line longer than 200 bytes")
    # lines of text (load) get the same verdict as the bytes of a file (read)
    text = ["players 3", "# " + "x" * 197, "1: play 3"]
    assert notation.load(text)[1] is None
    text[1] += "x"
    assert notation.load(text)[1] == (2, "syntax", "line longer than 200 bytes")
    assert notation.load([t + "\n" for t in text])[1] == (2, "syntax", "line longer than 200 bytes")
    assert _verdict(b"players 3\nsticks 9999\n")[1] is None
    for number in (b"10000", b"0" * 5, b"9" * 4301):
        game, error = _verdict(b"players 3\nsticks " + number + b"\n")
        assert error is not None and error[:2] == (2, "syntax"), number
    game, error = _verdict(b"players 3\nsticks " + b"9" * 150 + b"\n")
    assert error == (2, "syntax", "number '999999...' longer than 4 digits")


def test_tags_every_line_after_the_first_tagged_one():
    tagged_line = notation.tagged(1, "players 3")
    assert _verdict(tagged_line + notation.tagged(2, "1: play 3"))[1] is None
    game, error = _verdict(tagged_line + b"1: play 3\n")
    assert error == (2, "syntax", "line without a checksum tag after a tagged line")
    game, error = _verdict(tagged_line + notation.tagged(3, "1: play 3"))
    assert error == (2, "syntax", "damaged checksum tag")
    # hand-written lines first, then the box's tagged ones: fine
    assert _verdict(b"players 3\n" + notation.tagged(2, "1: play 3"))[1] is None


def test_undo_lines():
    game, error = _verdict(b"players 3\n1: play 3\n2: pass\nundo\nundo\n1: play 4\n")
    assert error is None and len(game) == 1 and notation.write(game).endswith("1: play 4\n")
    assert _verdict(b"players 3\nundo\n")[1] == (2, "syntax", "nothing to undo")
    assert _verdict(b"players 3\n1: play 3\n2: undo\n")[1][:2] == (3, "syntax")


def _journal_lines(game_text):
    """The tagged lines (bytes, each with its newline) of a record as the box writes it."""
    game = record(game_text)
    texts = notation.write(game).split("\n")[:-1]
    return [notation.tagged(i + 1, t) for i, t in enumerate(texts)], game


def _damage_text(line, at, byte=120):
    bad = bytearray(line)
    bad[at] = byte if bad[at] != byte else byte + 1
    return bytes(bad)


def test_repair_by_tag_same_game_in_load_and_read():
    import io
    lines, game = _journal_lines(CLEAN)
    lines[7] = _damage_text(lines[7], 3)        # '1: Xlay A A'
    g1, error, reader = notation.read(io.BytesIO(b"".join(lines)))
    g2, error2 = notation.load([x.decode() for x in lines])
    assert error is None and error2 is None and reader.repaired == [8]
    assert snapshot(g1) == snapshot(g2) == snapshot(game)


def test_repair_needs_a_whole_tag_and_a_tagged_record():
    lines, game = _journal_lines(CLEAN)
    for bad in (_damage_text(lines[7], len(lines[7]) - 4),   # the tag's last digit
                _damage_text(lines[7], len(lines[7]) - 6)):  # its '~'
        damaged = lines[:7] + [bad] + lines[8:]
        g, error = notation.load([x.decode() for x in damaged])
        assert error[0] == 8 and len(g) == 1
    # a header line is not repaired
    damaged = [_damage_text(lines[1], 2)] + lines[:1] + lines[2:]
    assert notation.load([x.decode() for x in damaged])[1] is not None


def test_at_most_REPAIRS_lines_are_repaired():
    from tycoon.repair import WINDOW
    game = Game(4, hands=[14, 14, 14, 14])
    while not game.finished and len(game) < 120:   # the lowest card left leads, the others pass
        if game.must_return():
            game.apply(RETURN)
        elif game.table is None:
            face = 0
            while game._played[face] >= 4 or face in (3, 6, 9, 14):
                face += 1
            game.apply(PLAY, [face])
        else:
            game.apply(PASS)
    texts = notation.write(game).split("\n")[:-1]
    lines = [notation.tagged(i + 1, t) for i, t in enumerate(texts)]
    damaged = list(lines)
    spots = [6 + (WINDOW + 1) * k for k in range(notation.REPAIRS + 1)]   # a clean window apart
    assert spots[-1] < len(lines)
    for at in spots:
        damaged[at] = _damage_text(lines[at], 0, ord("9"))   # the seat
    g, error = notation.load([x.decode() for x in damaged])
    assert error is not None and error[0] == spots[-1] + 1
    assert len(g) == spots[-1] - 6


# --- the repair by the tag: every legal action, and the lines after it -----------------------

def _sample_journal():
    """The tagged lines of a longer game (G/H cards, plays with 'as', many sticks), and it."""
    game = random_game(24, 80)
    texts = notation.write(game).split("\n")[:-1]
    return [notation.tagged(i + 1, t) for i, t in enumerate(texts)], game


def _with_text(line, text):
    return text + line[line.index(b"  #~"):]


def _read(lines):
    import io
    return notation.read(io.BytesIO(b"".join(lines)))


def test_a_text_damaged_in_several_bytes_cut_or_grown_is_repaired_by_its_whole_tag():
    lines, game = _sample_journal()
    tried = stopped = 0
    for at in range(6, len(lines) - 1, 5):
        text = lines[at][:lines[at].index(b"  #~")]
        for bad in (b"?" * len(text),                       # every byte
                    text[:2],                               # cut short
                    text[:3] + b"xyz" + text[3:],           # bytes put in
                    text[:3] + text[6:],                    # bytes taken out
                    b""):                                   # nothing left but the tag
            damaged = lines[:at] + [_with_text(lines[at], bad)] + lines[at + 1:]
            g, error, reader = _read(damaged)
            if error is None:   # repaired exactly: the very game, the line named
                assert reader.repaired == [at + 1] and snapshot(g) == snapshot(game), (at, bad)
                tried += 1
            else:               # another legal action makes the tag too: the line stops it
                assert error[0] == at + 1 and reader.repaired == [] and len(g) == at - 6
                stopped += 1
    assert tried > 4 * stopped, (tried, stopped)


def test_two_legal_actions_that_make_the_tag_repair_nothing():
    # forged: a line number where two single-card plays make the same tag, empty lines before
    # the damaged line to bring it there; its text far from both
    from tycoon.cards import CHARS
    game = Game(3, sticks=40)
    game.apply(PLAY, [2])
    head = notation.header_text(game).split("\n")[:-1] + ["1: play 2"]
    texts = []
    for face in range(game.values):
        for value in [None] + list(range(game.values)):
            try:
                game.check_play([face], value)
            except IllegalAction:
                continue
            texts.append("2: play " + CHARS[face] + ("" if value is None else " as " + CHARS[value]))
    index = pair = None
    for index in range(8, 3000):
        tags = {}
        for text in texts:
            tag = notation.tagged(index, text)[-5:-1]
            if tag in tags:
                pair = (tags[tag], text)
                break
            tags[tag] = text
        if pair:
            break
    assert pair is not None
    lines = [notation.tagged(i + 1, t) for i, t in enumerate(head)] + [b"\n"] * (index - 8)
    for forged in (pair[0], "2: pass"):   # the pair's tag; then a tag only one action makes
        damaged = lines + [_with_text(notation.tagged(index, forged), b"&&")]
        g, error, reader = _read(damaged)
        if forged == "2: pass":
            assert error is None and reader.repaired == [index]
            assert g.last_action()[0] == PASS
        else:
            assert error == (index, "syntax", "damaged checksum tag") and reader.repaired == []
            assert len(g) == 1


def test_a_repair_whose_next_lines_do_not_check_out_is_not_taken():
    from tycoon.repair import WINDOW
    lines, game = _sample_journal()
    at = 10
    bad = _with_text(lines[at], b"!!")
    for later in (2, WINDOW, WINDOW + 1):
        # line at+later: tagged as the box tags, but refused by the rules after the action
        wrong = notation.tagged(at + later + 1, "9: pass")
        damaged = lines[:at] + [bad] + lines[at + 1:at + later] + [wrong] + lines[at + later + 1:]
        g, error, reader = _read(damaged)
        if later <= WINDOW:   # within the window: the repair is not taken, reading stops there
            assert error[0] == at + 1 and reader.repaired == [] and len(g) == at - 6, later
        else:                 # past it: the repair stands, the bad line stops the reading
            assert error[0] == at + later + 1 and reader.repaired == [at + 1], later
            assert len(g) == at + later - 6
    # and a damaged tag within the window, as well
    torn = lines[at + 3][:-3] + b"x\n"
    g, error, reader = _read(lines[:at] + [bad] + lines[at + 1:at + 3] + [torn] + lines[at + 4:])
    assert error[0] == at + 1 and reader.repaired == []


def test_a_line_cut_by_a_power_cut_ends_the_window_and_is_never_repaired():
    lines, game = _sample_journal()
    at = len(lines) - 3
    bad = _with_text(lines[at], b"!!")
    g, error, reader = _read(lines[:at] + [bad] + lines[at + 1:-1] + [lines[-1][:-1]])
    assert reader.repaired == [at + 1] and error[0] == len(lines)
    assert "cut short" in error[2]
    # a torn last line with a whole tag but no newline is dropped, never repaired
    g, error, reader = _read(lines[:-1] + [_with_text(lines[-1], b"!!")[:-1]])
    assert reader.repaired == [] and error[0] == len(lines) and "cut short" in error[2]


def test_feed_bytes_without_the_file_repairs_nothing():
    lines, game = _sample_journal()
    reader = notation.Reader()
    for raw in lines[:10]:
        reader.feed_bytes(raw)
    try:
        reader.feed_bytes(_with_text(lines[10], b"!!"))
    except notation.NotationError:
        pass
    else:
        raise AssertionError("repaired without the lines after it")
