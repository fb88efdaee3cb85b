"""`matchbox report`: the plot's numbers and marks, the HTML page, the PNG, and bad input."""
import os
import random
import re
import struct
import xml.etree.ElementTree as ET
import zlib

import pytest

from host_tools import ROOT, cli, report
from host_tools.reports import plot as report_plot, png as report_png, trace as report_trace
from tycoon import notation
from tycoon.cards import cost
from tycoon.game import FORCED, OUT, PASS, PLAY, REVOLUTION, Game, IllegalAction

SVG = "{http://www.w3.org/2000/svg}"
EXAMPLE = os.path.join(ROOT, "docs", "examples", "sample-game.txt")
EXAMPLE_SVG = os.path.join(ROOT, "docs", "images", "report-example.svg")


# --- a deterministic scripted game -------------------------------------------------------

def _options(game, count):
    """Legal plays of `count` cards, weakest value first: same faces, or one substitute."""
    order = list(range(game.values))
    if game.revolution:
        order.reverse()
    for v in order:
        tries = [([v] * count, None)]
        tries += [([v] * (count - 1) + [f], v) for f in range(game.values) if f != v and cost(f, v)]
        for faces, value in tries:
            try:
                game.check_play(faces, value)
            except IllegalAction:
                continue
            yield faces, value


def scripted_game(seed, players=4):
    """Play a whole game with a seeded scripted player: mostly the weakest legal play, some
    passes, now and then the strongest value or (after action 25) a five-card revolution."""
    rng = random.Random(seed)
    game = Game(players)
    while not game.finished:
        assert len(game) < 2000
        have = game.cards[game.turn - 1]
        if game.must_return():
            game.return_stick()
        elif game.table is None:
            count = min(rng.choice((1, 1, 1, 1, 2, 2, 3)), have)
            if have >= 5 and len(game) >= 25 and rng.random() < 0.3:
                count = 5
            for c in [count] + list(range(min(have, 5), 0, -1)):
                play = next(_options(game, c), None)
                if play:
                    game.play(*play)
                    break
        else:
            options = []
            if game.table[1] <= have and rng.random() >= 0.5:
                options = list(_options(game, game.table[1]))
            if not options:
                game.pass_turn()
            else:
                game.play(*(options[-1] if rng.random() < 0.12 else options[0]))
    return game


def expected_states(game):
    """(events, cards, sticks) after each action, from a fresh engine replay of the actions."""
    fresh = Game(game.players, game.dealer, game.expansion, game.revolution_size, game.tokens,
                 list(game.hands))
    states = []
    for kind, seat, faces, value, explicit in game.actions():
        if kind == PLAY:
            events = fresh.play(list(faces), value if explicit else None, seat)
        elif kind == PASS:
            events = fresh.pass_turn(seat)
        else:
            events = fresh.return_stick(seat)
        states.append((events, tuple(fresh.cards), tuple(fresh.sticks)))
    return states


@pytest.fixture(scope="module")
def game():
    g = scripted_game(61)
    # The test game must show everything the report marks.
    events = [s[0] for s in expected_states(g)]
    assert g.finished
    assert any(e & REVOLUTION for e in events)
    assert any(e & FORCED for e in events)
    assert sum(1 for e in events if e & OUT) == g.players - 1
    return g


@pytest.fixture()
def record(game, tmp_path):
    path = tmp_path / "game.txt"
    path.write_text(notation.write(game))
    return path


def make(path, out):
    """Run `matchbox report PATH -o OUT`; its exit status."""
    return cli.main(["report", str(path), "-o", str(out)])


def parse_svg(path):
    root = ET.parse(str(path)).getroot()
    assert root.tag == SVG + "svg"
    return root


def data(node, name):
    """An integer attribute of an SVG element (it must be there)."""
    value = node.get(name)
    assert value is not None, "%s has no %s" % (node.tag, name)
    return int(value)


def points_of(node):
    return [tuple(float(c) for c in p.split(",")) for p in node.get("points").split()]


def x_of(root, action):
    x0, x1 = float(root.get("data-x0")), float(root.get("data-x1"))
    return x0 + (x1 - x0) * action / data(root, "data-actions")


# --- the SVG -------------------------------------------------------------------------------

def test_svg_series_follow_the_game(game, record, tmp_path):
    out = tmp_path / "plot.svg"
    assert make(record, out) == 0
    root = parse_svg(out)
    states = expected_states(game)
    assert data(root, "data-actions") == len(states)
    assert data(root, "data-players") == game.players
    series = root.findall(".//%spolyline[@class='series']" % SVG)
    assert len(series) == 2 * game.players
    for what, column in (("cards", 1), ("sticks", 2)):
        lines = [s for s in series if s.get("data-what") == what]
        assert sorted(data(s, "data-seat") for s in lines) == list(range(1, game.players + 1))
        for line in lines:
            seat = data(line, "data-seat")
            start = game.hands[seat - 1] if what == "cards" else 1
            want = [start] + [s[column][seat - 1] for s in states]
            if seat in game.ranking[:-1]:   # the line ends where the seat went out
                want = want[:_out_index(game, states, seat) + 1]
                assert want[-1] == 0
            else:
                assert want[-1] == (game.cards if what == "cards" else game.sticks)[seat - 1]
            values = [int(v) for v in line.get("data-values").split()]
            assert values == want
            pts = points_of(line)
            # the drawing: one vertical jump per change, ending at the last value's action
            jumps = sum(1 for a, b in zip(pts, pts[1:]) if a[0] == b[0] and a[1] != b[1])
            assert jumps == sum(1 for a, b in zip(values, values[1:]) if a != b)
            assert pts[0][0] == pytest.approx(x_of(root, 0), abs=0.01)
            assert pts[-1][0] == pytest.approx(x_of(root, len(values) - 1), abs=0.01)


def _out_index(game, states, seat):
    """The action number at which a seat went out (the OUT event of its own action)."""
    for i, action in enumerate(game.actions(), 1):
        if action[1] == seat and states[i - 1][0] & OUT:
            return i
    raise AssertionError("seat %d never went out" % seat)


def test_svg_marks_sit_at_the_right_actions(game, record, tmp_path):
    out = tmp_path / "plot.svg"
    assert make(record, out) == 0
    root = parse_svg(out)
    states = expected_states(game)
    actions = list(game.actions())
    revolutions = [i for i, s in enumerate(states, 1) if s[0] & REVOLUTION]
    forced = [i for i, s in enumerate(states, 1) if s[0] & FORCED]

    marks = root.findall(".//%sg[@class='revolution']" % SVG)
    # drawn once per panel
    assert sorted(set(data(m, "data-action") for m in marks)) == revolutions
    assert len(marks) == 2 * len(revolutions)
    for m in marks:
        a = data(m, "data-action")
        assert data(m, "data-seat") == actions[a - 1][1]
        line = m.find(SVG + "line")
        assert float(line.get("x1")) == pytest.approx(x_of(root, a), abs=0.01)

    triangles = root.findall(".//%spolygon[@class='forced']" % SVG)
    assert [data(t, "data-action") for t in triangles] == forced
    for t in triangles:
        a = data(t, "data-action")
        assert data(t, "data-seat") == actions[a - 1][1]
        tip = max(points_of(t), key=lambda p: p[1])
        assert tip[0] == pytest.approx(x_of(root, a), abs=0.01)

    outs = root.findall(".//%sg[@class='out']" % SVG)
    assert [data(o, "data-seat") for o in outs] == game.ranking[:-1]
    for o in outs:
        seat = data(o, "data-seat")
        assert data(o, "data-action") == _out_index(game, states, seat)
        assert data(o, "data-rank") == game.ranks[seat - 1]

    bands = root.findall(".//%srect[@class='revolution-band']" % SVG)
    pairs = sorted(set((data(b, "data-from"), data(b, "data-to")) for b in bands))
    edges = revolutions + ([len(states)] if len(revolutions) % 2 else [])
    assert pairs == list(zip(edges[::2], edges[1::2]))

    ranking = root.findall(".//%sg[@class='rank']" % SVG)
    assert [data(r, "data-seat") for r in ranking] == game.ranking
    assert [data(r, "data-rank") for r in ranking] == list(range(1, game.players + 1))


def test_per_seat_totals_add_up(game, record):
    trace = report_trace.read_file(str(record))
    assert trace.error is None
    for seat in range(1, game.players + 1):
        t = trace.totals(seat)
        assert t["cards"] == game.hands[seat - 1] - game.cards[seat - 1]
        assert 1 + t["passes"] + t["forced"] - t["spent"] - t["returned"] == game.sticks[seat - 1]
    assert sum(trace.totals(s)["revolutions"] for s in range(1, game.players + 1)) == \
        len(trace.marks(REVOLUTION))


# --- HTML ----------------------------------------------------------------------------------

def test_html_is_self_contained_and_ranks(game, record, tmp_path, capsys):
    out = tmp_path / "page.html"
    assert make(record, out) == 0
    assert capsys.readouterr().out.strip() == str(out)
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    # the only URL is the SVG namespace name, which is never fetched
    urls = re.findall(r"https?://[^\s\"'<>)]+", page)
    assert set(urls) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"<(link|script|img|iframe)\b", page)
    assert not re.search(r"\b(src|href)\s*=", page)
    svg = re.search(r"<svg\b.*?</svg>", page, re.S)
    assert svg is not None
    assert ET.fromstring(svg.group(0)).tag == SVG + "svg"
    table = re.search(r'<table id="ranking">(.*?)</table>', page, re.S).group(1)
    rows = re.findall(r"<tr><td class=\"n\">(\w+)</td><td>.*?Seat (\d+)</td>", table)
    assert [int(seat) for _, seat in rows] == game.ranking
    assert [rank for rank, _ in rows] == ["1st", "2nd", "3rd", "4th"][:game.players]
    log = re.search(r'<table id="log">(.*?)</table>', page, re.S).group(1)
    lines = [int(n) for n in re.findall(r'<tr[^>]*><td class="n">\d+</td><td class="n">(\d+)</td>', log)]
    record_lines = [i for i, text in enumerate(record.read_text().splitlines(), 1)
                    if re.match(r"\d+:", text)]
    assert lines == record_lines


def test_default_output_is_html_beside_the_record(record, capsys):
    assert cli.main(["report", str(record)]) == 0
    want = str(record)[:-len(".txt")] + ".html"
    assert capsys.readouterr().out.strip() == want
    assert os.path.exists(want)


# --- PNG -----------------------------------------------------------------------------------

def _decode_png(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        length, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0] == \
            zlib.crc32(tag + body) & 0xFFFFFFFF
        chunks.setdefault(tag, []).append(body)
        pos += 12 + length
    width, height, depth, ctype = struct.unpack(">IIBB", chunks[b"IHDR"][0][:10])
    assert (depth, ctype) == (8, 2)
    raw = zlib.decompress(b"".join(chunks[b"IDAT"]))
    assert len(raw) == height * (1 + 3 * width)
    rows = [raw[y * (1 + 3 * width) + 1:(y + 1) * (1 + 3 * width)] for y in range(height)]
    assert all(raw[y * (1 + 3 * width)] == 0 for y in range(height))
    return width, height, rows


def test_png_is_valid_and_shows_every_seat(game, record, tmp_path):
    svg_out, png_out = tmp_path / "plot.svg", tmp_path / "plot.png"
    assert make(record, svg_out) == 0 and make(record, png_out) == 0
    root = parse_svg(svg_out)
    width, height, rows = _decode_png(png_out.read_bytes())
    assert (width, height) == (2 * data(root, "width"), 2 * data(root, "height"))
    colours = set()
    for row in rows[::2]:
        colours.update(bytes(row[i:i + 3]) for i in range(0, len(row), 6))
    for seat in range(1, game.players + 1):
        assert report_png.colour(report_plot.seat_colour(seat)) in {tuple(c) for c in colours}


def test_png_renderer_draws_shapes_where_the_svg_says():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10">'
           '<rect x="2" y="2" width="4" height="4" fill="#ff0000"/>'
           '<g stroke="#0000ff" stroke-width="2"><line x1="10" y1="1" x2="10" y2="9"/></g>'
           '<circle cx="16" cy="5" r="2" fill="#00ff00"/></svg>')
    width, height, rows = _decode_png(report_png.render(svg, scale=1))
    pixel = lambda x, y: tuple(rows[y][3 * x:3 * x + 3])  # noqa: E731
    assert (width, height) == (20, 10)
    assert pixel(3, 3) == (255, 0, 0) and pixel(1, 1) == (255, 255, 255)
    assert pixel(10, 5) == (0, 0, 255) and pixel(12, 5) == (255, 255, 255)
    assert pixel(16, 5) == (0, 255, 0) and pixel(19, 9) == (255, 255, 255)


# --- bad input -----------------------------------------------------------------------------

def test_illegal_action_reports_up_to_the_last_legal_one(game, tmp_path, capsys):
    lines = notation.write(game).splitlines()
    cut = 6 + 10                    # header lines + the first 10 actions
    lines.insert(cut, "play 0 0 0 0 0 0")   # six cards: never legal
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "bad.svg"
    assert make(path, out) == 1
    err = capsys.readouterr().err
    assert "%s:%d: illegal: too-many-cards" % (path, cut + 1) in err
    root = parse_svg(out)
    assert data(root, "data-actions") == 10
    for line in root.findall(".//%spolyline[@class='series']" % SVG):
        assert len(line.get("data-values").split()) == 11
    banner = root.find(".//%sg[@class='error']" % SVG)
    assert data(banner, "data-line") == cut + 1
    assert "line %d" % (cut + 1) in "".join(banner.itertext())
    page = tmp_path / "bad.html"
    assert make(path, page) == 1
    text = page.read_text(encoding="utf-8")
    assert 'id="error"' in text and "Record stops at line %d" % (cut + 1) in text


def test_syntax_error_exits_2_and_still_reports(tmp_path, capsys):
    path = tmp_path / "typo.txt"
    path.write_text("players 3\nhands 5 5 5\n1: play 3\n2: plya 4\n3: play 5\n")
    out = tmp_path / "typo.svg"
    assert make(path, out) == 2
    assert "%s:4: syntax: " % path in capsys.readouterr().err
    root = parse_svg(out)
    assert data(root, "data-actions") == 1


def test_bad_header_writes_nothing(tmp_path, capsys):
    path = tmp_path / "nohead.txt"
    path.write_text("dealer 1\n1: play 3\n")
    out = tmp_path / "nohead.html"
    assert make(path, out) == 2
    err = capsys.readouterr().err
    assert "%s:2: syntax: missing header 'players'" % path in err
    assert "no report written" in err
    assert not out.exists()


def test_header_only_record(tmp_path):
    path = tmp_path / "deal.txt"
    path.write_text("players 3\nhands 4 5 6\n")
    out = tmp_path / "deal.svg"
    assert make(path, out) == 0
    root = parse_svg(out)
    assert data(root, "data-actions") == 0
    cards = {data(s, "data-seat"): s.get("data-values")
             for s in root.findall(".//%spolyline[@class='series']" % SVG)
             if s.get("data-what") == "cards"}
    assert cards == {1: "4", 2: "5", 3: "6"}


def test_unknown_output_extension(record, tmp_path, capsys):
    out = tmp_path / "plot.pdf"
    assert make(record, out) == 2
    err = capsys.readouterr().err
    assert "'.pdf'" in err and ".svg" in err and ".png" in err and ".html" in err
    assert not out.exists()


def test_missing_record(tmp_path, capsys):
    path = tmp_path / "nope.txt"
    assert make(path, tmp_path / "x.svg") == 2
    assert "cannot read %s" % path in capsys.readouterr().err


def test_a_line_that_is_not_text_stops_the_record_there(tmp_path, capsys):
    path = tmp_path / "record.txt"
    path.write_bytes(b"players 2\nplay 3\nplay \xff\n")
    out = tmp_path / "plot.svg"
    assert make(path, out) == 2
    assert "record.txt:3: syntax: not UTF-8 text" in capsys.readouterr().err
    assert out.exists() and "not UTF-8 text" in out.read_text()


# --- the documentation's example -----------------------------------------------------------

def test_docs_example_is_current(tmp_path):
    out = tmp_path / "report-example.svg"
    assert make(EXAMPLE, out) == 0
    with open(EXAMPLE_SVG, encoding="utf-8") as f:
        assert f.read() == out.read_text(encoding="utf-8"), \
            "regenerate: matchbox report docs/examples/sample-game.txt -o docs/images/report-example.svg"
