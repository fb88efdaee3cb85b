"""`matchbox report`: the plot's numbers and marks, the HTML page, the PNG, and bad input."""
import os
import random
import re
import xml.etree.ElementTree as ET

import pytest
from PIL import Image, ImageColor

from host_tools import cli
from host_tools.commands import report
from host_tools.resources import CHECKOUT as ROOT
from host_tools.reports import plot as report_plot, trace as report_trace
from tycoon import notation
from tycoon.cards import cost
from tycoon.game import CLEARED, FORCED, OUT, PASS, PLAY, REVOLUTION, Game, IllegalAction

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
    fresh = Game(game.players, game.dealer, game.expansion, game.revolution_size, game.total_sticks,
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


# --- reading the SVG that matplotlib writes, as a person reads the plot -------------------
# Marks are found by their ids; positions are turned back into actions and values with the
# panels' own tick labels.

def parse_svg(path):
    root = ET.parse(str(path)).getroot()
    assert root.tag == SVG + "svg"
    return root


def group(root, gid):
    """The <g> with this id (it must be there)."""
    found = root.find(".//%sg[@id='%s']" % (SVG, gid))
    assert found is not None, "no element with id %s" % gid
    return found


def ids(root, pattern):
    """regex matches of every <g> id that fully matches the pattern, in document order."""
    out = []
    for g in root.iter(SVG + "g"):
        m = re.fullmatch(pattern, g.get("id") or "")
        if m:
            out.append(m)
    return out


def text_of(node):
    return "".join(node.itertext()).strip()


def vertices(node):
    """The (x, y) points of the first <path> under node."""
    path = node.find(".//%spath" % SVG)
    nums = [float(v) for v in re.findall(r"-?[\d.]+(?:e-?\d+)?", path.get("d"))]
    return list(zip(nums[::2], nums[1::2]))


def use_xy(node):
    """(x, y) of the marker a node draws (matplotlib writes markers as <use>)."""
    use = node.find(".//%suse" % SVG)
    return float(use.get("x")), float(use.get("y"))


def tick_scale(root, panel, axis):
    """value -> SVG coordinate along an axis of a panel, fitted to its labelled ticks."""
    pairs = []
    for tick in group(root, panel + "-panel").iter(SVG + "g"):
        if not (tick.get("id") or "").startswith(axis + "tick_"):
            continue
        label, use = tick.find(".//%stext" % SVG), tick.find(".//%suse" % SVG)
        if label is not None and use is not None:
            pairs.append((float(label.text.replace("\u2212", "-")), float(use.get(axis))))
    assert len(pairs) >= 2
    (v0, c0), (v1, c1) = pairs[0], pairs[-1]
    slope = (c1 - c0) / (v1 - v0)
    for v, c in pairs:
        assert c == pytest.approx(c0 + slope * (v - v0), abs=0.01)
    return lambda v: c0 + slope * (v - v0), lambda c: v0 + (c - c0) / slope


def action_at(root):
    """SVG x -> action number (the x axis is labelled on the sticks panel)."""
    to_action = tick_scale(root, "sticks", "x")[1]

    def at(x):
        a = to_action(x)
        assert a == pytest.approx(round(a), abs=0.02), "x %s is not at an action" % x
        return int(round(a))
    return at


def series(root, seat, what, start):
    """The values a seat's line shows after each action, read off the drawing; `start` is
    the value of the deal, which also gives the small shift that keeps lines apart."""
    at = action_at(root)
    to_value = tick_scale(root, what, "y")[1]
    levels = {}
    for x, y in vertices(group(root, "seat-%d-%s" % (seat, what))):
        levels[at(x)] = to_value(y)     # steps-post: the last point at an x is its value
    shift = levels[0] - start
    assert abs(shift) < 0.5
    actions = sorted(levels)
    assert actions == list(range(len(actions)))
    values = [levels[a] - shift for a in actions]
    assert values == pytest.approx([round(v) for v in values], abs=0.01)
    return [int(round(v)) for v in values]


def action_count(root, players):
    """The number of actions the plot covers: the longest seat line."""
    at = action_at(root)
    return max(at(x) for seat in range(1, players + 1)
               for x, _ in vertices(group(root, "seat-%d-cards" % seat)))


# --- the SVG -------------------------------------------------------------------------------

def test_svg_series_follow_the_game(game, record, tmp_path):
    out = tmp_path / "plot.svg"
    assert make(record, out) == 0
    root = parse_svg(out)
    states = expected_states(game)
    assert action_count(root, game.players) == len(states)
    assert len(ids(root, r"seat-(\d+)-(cards|sticks)")) == 2 * game.players
    for what, column in (("cards", 1), ("sticks", 2)):
        for seat in range(1, game.players + 1):
            start = game.hands[seat - 1] if what == "cards" else 1
            want = [start] + [s[column][seat - 1] for s in states]
            if seat in game.ranking[:-1]:   # the line ends where the seat went out
                want = want[:_out_index(game, states, seat) + 1]
                assert want[-1] == 0
            else:
                assert want[-1] == (game.cards if what == "cards" else game.sticks)[seat - 1]
            assert series(root, seat, what, start) == want


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
    at = action_at(root)
    states = expected_states(game)
    actions = list(game.actions())
    revolutions = [i for i, s in enumerate(states, 1) if s[0] & REVOLUTION]
    forced = [i for i, s in enumerate(states, 1) if s[0] & FORCED]

    for what in ("cards", "sticks"):    # a line in both panels at each revolution
        marks = ids(root, r"revolution-(\d+)-%s" % what)
        assert [int(m.group(1)) for m in marks] == revolutions
        for m in marks:
            xs = {at(x) for x, _ in vertices(group(root, m.group(0)))}
            assert xs == {int(m.group(1))}
    for a in revolutions:
        label = text_of(group(root, "revolution-%d-label" % a))
        assert label.endswith("seat %d" % actions[a - 1][1])

    triangles = ids(root, r"forced-(\d+)-seat-(\d+)")
    assert [int(t.group(1)) for t in triangles] == forced
    for t in triangles:
        a, seat = int(t.group(1)), int(t.group(2))
        assert seat == actions[a - 1][1]
        assert at(use_xy(group(root, t.group(0)))[0]) == a
        style = group(root, t.group(0)).find(".//%suse" % SVG).get("style")
        assert "fill: %s" % report_plot.seat_colour(seat) in style

    for what in ("cards", "sticks"):
        outs = ids(root, r"out-seat-(\d+)-rank-(\d+)-%s" % what)
        assert [int(o.group(1)) for o in outs] == game.ranking[:-1]
        for o in outs:
            seat, rank = int(o.group(1)), int(o.group(2))
            assert rank == game.ranks[seat - 1]
            assert at(use_xy(group(root, o.group(0)))[0]) == _out_index(game, states, seat)
            assert text_of(group(root, o.group(0) + "-label")) == str(rank)

    cleared = [i for i, s in enumerate(states, 1) if s[0] & CLEARED and not s[0] & FORCED]
    assert cleared
    for what in ("cards", "sticks"):    # a table cleared by a strongest play has its triangle
        marks = ids(root, r"cleared-(\d+)-%s" % what)
        assert [int(m.group(1)) for m in marks] == cleared
        for m in marks:
            assert {at(x) for x, _ in vertices(group(root, m.group(0)))} == {int(m.group(1))}

    edges = revolutions + ([len(states)] if len(revolutions) % 2 else [])
    for what in ("cards", "sticks"):
        bands = ids(root, r"revolution-band-(\d+)-(\d+)-%s" % what)
        pairs = [(int(b.group(1)), int(b.group(2))) for b in bands]
        assert pairs == list(zip(edges[::2], edges[1::2]))
        for b, (start, end) in zip(bands, pairs):
            xs = sorted({at(x) for x, _ in vertices(group(root, b.group(0)))})
            assert xs == [start, end]

    ranking = ids(root, r"rank-(\d+)-seat-(\d+)")
    assert [int(r.group(2)) for r in ranking] == game.ranking
    assert [int(r.group(1)) for r in ranking] == list(range(1, game.players + 1))
    assert [text_of(group(root, r.group(0))) for r in ranking] == [
        "%s  Seat %d" % (n, seat) for n, seat in zip(("1st", "2nd", "3rd", "4th"), game.ranking)]
    assert text_of(group(root, "ranking")) == "Final ranking"


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
    # the only URLs are the names of the SVG namespaces, which are never fetched
    urls = re.findall(r"https?://[^\s\"'<>)]+", page)
    assert set(urls) == {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
    assert len(re.findall(r"xmlns(?::\w+)?=\"https?://", page)) == len(urls)
    assert not re.search(r"<(link|script|img|iframe)\b", page)
    assert not re.search(r"\bsrc\s*=", page)
    # the plot's markers refer to shapes inside the page, nothing else
    hrefs = re.findall(r"\bhref\s*=\s*\"([^\"]*)\"", page)
    assert hrefs and all(h.startswith("#") for h in hrefs)
    assert set(h[1:] for h in hrefs) <= set(re.findall(r"\bid=\"([^\"]+)\"", page))
    svg = re.search(r"<svg\b.*?</svg>", page, re.S)
    assert svg is not None
    root = ET.fromstring(svg.group(0))
    assert root.tag == SVG + "svg"
    assert len(ids(root, r"seat-\d+-cards")) == game.players
    table = re.search(r'<table id="ranking">(.*?)</table>', page, re.S).group(1)
    rows = re.findall(r"<tr><td class=\"n\">(\w+)</td><td>.*?Seat (\d+)</span></td>", table)
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

def test_png_is_the_same_plot_twice_as_large(game, record, tmp_path):
    svg_out, png_out = tmp_path / "plot.svg", tmp_path / "plot.png"
    assert make(record, svg_out) == 0 and make(record, png_out) == 0
    root = parse_svg(svg_out)
    with Image.open(str(png_out)) as image:
        assert image.format == "PNG"
        size = image.size
        colours = set(c for _, c in image.convert("RGB").getcolors(1 << 24))
    points = [float(root.get(k)[:-len("pt")]) for k in ("width", "height")]
    # the SVG is sized in points (1/72 inch) at report_plot.DPI pixels per inch
    assert size == tuple(round(2 * report_plot.DPI * p / 72) for p in points)
    for seat in range(1, game.players + 1):
        assert ImageColor.getrgb(report_plot.seat_colour(seat)) in colours


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
    assert action_count(root, game.players) == 10
    for seat in range(1, game.players + 1):
        assert len(series(root, seat, "sticks", 1)) == 11
    at = action_at(root)
    for what in ("cards", "sticks"):
        assert {at(x) for x, _ in vertices(group(root, "stop-" + what))} == {10}
    assert text_of(group(root, "error")).startswith(
        "Record stops at line %d (illegal: too-many-cards)" % (cut + 1))
    assert text_of(group(root, "stop-label")) == "stops: line %d" % (cut + 1)
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
    assert action_count(root, 3) == 1
    assert "line 4 (syntax: " in text_of(group(root, "error"))


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
    assert action_count(root, 3) == 0
    assert [series(root, seat, "cards", start) for seat, start in ((1, 4), (2, 5), (3, 6))] == \
        [[4], [5], [6]]
    assert not ids(root, r"(error|stop-.*|forced-.*|out-.*|revolution-.*)")
    assert text_of(group(root, "ranking")) == "Standing after action 0"


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


def test_any_file_name_the_os_gives(record, tmp_path, monkeypatch):
    """Names with a byte that is not UTF-8 (Python sees them as surrogate escapes), as the
    record, as the output, and a missing one: the report is written, the path printed as the
    OS spells it, the missing one said in one line with the byte as \\xff; status 0, 0, 2."""
    import subprocess
    import sys
    monkeypatch.chdir(tmp_path)
    os.rename(record, os.fsdecode(b"g\xff.txt"))
    argv = [sys.executable, "-m", "host_tools.cli", "report"]
    run = lambda *names: subprocess.run(argv + list(names), capture_output=True, timeout=120)
    out = run(b"g\xff.txt")
    assert (out.returncode, out.stdout, out.stderr) == (0, b"g\xff.html\n", b"")
    assert b"Matchstick Tycoon: g\\xff.txt" in open(b"g\xff.html", "rb").read()
    out = run(b"g\xff.txt", b"-o", b"o\xfe.svg")
    assert (out.returncode, out.stdout) == (0, b"o\xfe.svg\n") and os.path.exists(b"o\xfe.svg")
    out = run(b"nope\xff.txt")
    assert (out.returncode, out.stdout) == (2, b"")
    assert out.stderr == b"matchbox report: cannot read nope\\xff.txt: no such file\n"


# --- the documentation's example -----------------------------------------------------------

def test_docs_example_is_current(tmp_path):
    out = tmp_path / "report-example.svg"
    assert make(EXAMPLE, out) == 0
    with open(EXAMPLE_SVG, encoding="utf-8") as f:
        assert f.read() == out.read_text(encoding="utf-8"), \
            "regenerate: matchbox report docs/examples/sample-game.txt -o docs/images/report-example.svg"
