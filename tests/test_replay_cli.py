"""`matchbox replay` and `matchbox ref`, run as the user runs them (a subprocess)."""
import errno
import glob
import json
import os
import subprocess
import sys

import pytest

from tycoon import notation, writer
from tycoon.cards import becomes, char
from engine_helpers import random_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = os.path.join(ROOT, "tests", "games")


def matchbox(*args):
    script = os.path.join(os.path.dirname(sys.executable), "matchbox")
    cmd = [script] if os.path.exists(script) else [sys.executable, "-m", "host_tools.cli"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, cwd=ROOT, timeout=300)


def game_file(name):
    return os.path.join("tests", "games", name)


def expected_status(path):
    name = os.path.basename(path)
    return 1 if name.startswith("illegal-") else 2 if name.startswith("syntax-") else 0


def load_file(path):
    with open(os.path.join(ROOT, path)) as f:
        return notation.load(f)


# --- readable output ----------------------------------------------------------------------

def test_summary_of_a_finished_game():
    path = game_file("finished-4-players.txt")
    proc = matchbox("replay", path)
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0] == path + ": 4 players, 7 actions"
    assert "Finished" in lines
    assert "Ranking: 2, 4, 1, 3" in lines
    game, _ = load_file(path)
    rows = [line for line in lines if line[1:].split()[:1] in (["1"], ["2"], ["3"], ["4"])]
    assert len(rows) == 4
    for i, row in enumerate(rows):
        seat, cards, sticks, rank = row[1:].split()
        assert int(seat) == i + 1
        assert int(cards) == game.cards[i] and int(sticks) == game.sticks[i]
        assert int(rank) == game.ranks[i]


def test_summary_of_a_game_in_progress():
    path = game_file("returns.txt")
    proc = matchbox("replay", path)
    assert proc.returncode == 0 and proc.stderr == ""
    out = proc.stdout
    game, _ = load_file(path)
    assert "%d players, %d actions" % (game.players, len(game)) in out
    assert "Turn: seat %d" % game.turn in out
    assert "Table: empty" in out
    assert "Supply: %d" % game.supply() in out
    marked = [line for line in out.splitlines() if line.startswith(">")]
    assert len(marked) == 1 and marked[0][1:].split()[0] == str(game.turn)


def test_illegal_action_exit_1():
    path = game_file("illegal-not-stronger.txt")
    proc = matchbox("replay", path)
    assert proc.returncode == 1
    assert proc.stderr == path + ":5: illegal: not-stronger\n"
    assert path + ": 3 players, 2 actions" in proc.stdout   # the state before the bad line
    assert "Turn: seat 3" in proc.stdout
    path = game_file("illegal-copies.txt")
    proc = matchbox("replay", path)
    assert proc.returncode == 1 and proc.stderr == path + ":7: illegal: no-such-card\n"


def test_syntax_error_exit_2():
    path = game_file("syntax-unknown-word.txt")
    proc = matchbox("replay", path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(path + ":3: syntax: ") and "fold" in proc.stderr
    assert proc.stderr.count("\n") == 1
    path = game_file("syntax-dealer.txt")
    proc = matchbox("replay", path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(path + ":2: syntax: ")
    assert proc.stdout == ""      # no game to show: its header is bad


@pytest.mark.parametrize("path, reason", [
    ("tests/games/no-such-record.txt", "no such file"),
    ("tests/games", "it is a directory"),
])
@pytest.mark.parametrize("command", [["replay"], ["replay", "--runtime", "micropython"], ["report"]])
def test_a_file_that_cannot_be_read_is_named_with_the_reason(command, path, reason):
    proc = matchbox(*(command + [path]))
    assert proc.returncode == 2
    assert proc.stderr == "matchbox %s: cannot read %s: %s\n" % (command[0], path, reason)
    assert proc.stdout == ""


def test_an_unreadable_file_among_others_keeps_its_json_line():
    ok = game_file("revolution.txt")
    proc = matchbox("replay", "--json", "no-such.txt", ok)
    assert proc.returncode == 2
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [d["file"] for d in lines] == ["no-such.txt", ok]
    assert lines[0]["error"] == {"line": 0, "kind": "syntax",
                                 "code": "cannot read no-such.txt: no such file"}
    assert lines[0]["state"] is None and lines[1]["error"] is None


def test_reasons_for_a_file_that_cannot_be_read():
    from host_tools import files
    assert files.cannot_read("g.txt", PermissionError(errno.EACCES, "Permission denied")) == \
        "cannot read g.txt: permission denied"
    assert files.reason(OSError(errno.EIO, "Input/output error")) == "input/output error"


def test_several_files_worst_status():
    ok = game_file("revolution.txt")
    bad = game_file("illegal-not-stronger.txt")
    broken = game_file("syntax-unknown-word.txt")
    assert matchbox("replay", ok, game_file("returns.txt")).returncode == 0
    assert matchbox("replay", ok, bad).returncode == 1
    assert matchbox("replay", bad, ok).returncode == 1
    assert matchbox("replay", broken, bad, ok).returncode == 2
    assert matchbox("replay", ok, bad, broken).returncode == 2
    proc = matchbox("replay", ok, bad, broken)
    assert proc.stdout.count(" players, ") == 3
    assert len(proc.stderr.splitlines()) == 2


def test_every_sample_record_has_its_expected_status():
    for path in sorted(glob.glob(os.path.join(GAMES, "*.txt"))):
        rel = os.path.relpath(path, ROOT)
        assert matchbox("replay", rel).returncode == expected_status(rel), rel


# --- JSON -----------------------------------------------------------------------------------

def check_state_schema(s):
    assert sorted(s) == ["finished", "players", "ranking", "revolution", "seats", "strongest",
                         "supply", "table", "turn"]
    assert type(s["players"]) is int and type(s["supply"]) is int
    assert s["turn"] is None or type(s["turn"]) is int
    assert type(s["revolution"]) is bool and type(s["finished"]) is bool
    assert type(s["strongest"]) is str
    assert all(type(x) is int for x in s["ranking"])
    if s["table"] is not None:
        assert sorted(s["table"]) == ["count", "seat", "sticks", "value"]
        assert type(s["table"]["value"]) is str
        assert all(type(s["table"][k]) is int for k in ("count", "seat", "sticks"))
    assert len(s["seats"]) == s["players"]
    for seat in s["seats"]:
        assert sorted(seat) == ["cards", "rank", "seat", "sticks"]
        assert all(type(seat[k]) is int for k in ("cards", "seat", "sticks"))
        assert seat["rank"] is None or type(seat["rank"]) is int


def test_json_one_line_per_file():
    paths = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(GAMES, "*.txt")))
    proc = matchbox("replay", "--json", *paths)
    assert proc.returncode == 2    # the corpus holds syntax errors
    lines = proc.stdout.splitlines()
    assert len(lines) == len(paths)
    for path, line in zip(paths, lines):
        d = json.loads(line)
        assert sorted(d) == ["error", "file", "state"]
        assert d["file"] == path
        game, error = load_file(path)
        if error is None:
            assert d["error"] is None
        else:
            assert sorted(d["error"]) == ["code", "kind", "line"]
            assert type(d["error"]["line"]) is int and d["error"]["kind"] in ("syntax", "illegal")
            assert type(d["error"]["code"]) is str
            assert (d["error"]["line"], d["error"]["kind"], d["error"]["code"]) == error
            assert d["error"]["kind"] == ("illegal" if expected_status(path) == 1 else "syntax")
        if game is None:
            assert d["state"] is None
        else:
            check_state_schema(d["state"])
            assert d["state"] == json.loads(writer.to_json(game))


def test_json_status_and_quoting(tmp_path):
    odd = tmp_path / 'say "hi".txt'
    odd.write_text("players 3\n1: play 3\n2: play 2\n")
    proc = matchbox("replay", "--json", str(odd))
    assert proc.returncode == 1
    d = json.loads(proc.stdout)
    assert d["file"] == str(odd)
    assert d["error"] == {"line": 3, "kind": "illegal", "code": "not-stronger"}
    assert d["state"]["table"] == {"value": "3", "count": 1, "seat": 1, "sticks": 0}


# --- MicroPython gives the same bytes ------------------------------------------------------

def random_corpus(folder, count=30):
    """Random games written as records: whole, cut short, with an illegal or a broken line."""
    paths = []
    for seed in range(count):
        game = random_game(1000 + seed)
        text = notation.write(game)
        lines = text.splitlines(True)
        variant = seed % 4
        if variant == 1:
            text = "".join(lines[: max(7, len(lines) * 2 // 3)])
        elif variant == 2:
            text = "".join(lines[:8]) + "9: pass\n" + "".join(lines[8:])
        elif variant == 3:
            text = "# generated\n" + "".join(lines[:9]) + "play X\n"
        path = os.path.join(folder, "random-%03d.txt" % seed)
        with open(path, "w") as f:
            f.write(text)
        paths.append(path)
    return paths


@pytest.mark.parametrize("as_json", [False, True])
def test_micropython_runtime_prints_the_same_bytes(tmp_path, as_json):
    paths = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(GAMES, "*.txt")))
    paths += sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "examples", "*.txt")))
    paths += random_corpus(str(tmp_path))
    opts = ["--json"] if as_json else []
    cp = matchbox("replay", *(opts + paths))
    mp = matchbox("replay", "--runtime", "micropython", *(opts + paths))
    assert cp.stdout.count("\n") >= len(paths)
    assert mp.stdout == cp.stdout
    assert mp.stderr == cp.stderr
    assert mp.returncode == cp.returncode == 2


def test_micropython_runtime_status_per_file():
    for name, status in (("revolution.txt", 0), ("illegal-copies.txt", 1), ("syntax-dealer.txt", 2)):
        proc = matchbox("replay", "--runtime", "micropython", game_file(name))
        assert proc.returncode == status, name


def matchbox_stdin(data, *args):
    script = os.path.join(os.path.dirname(sys.executable), "matchbox")
    cmd = [script] if os.path.exists(script) else [sys.executable, "-m", "host_tools.cli"]
    return subprocess.run(cmd + list(args), input=data, capture_output=True, cwd=ROOT, timeout=300)


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
@pytest.mark.parametrize("name", ["revolution.txt", "illegal-copies.txt", "syntax-dealer.txt"])
def test_dash_reads_the_record_from_stdin(runtime, name):
    """`replay -` reports what `replay FILE` reports, named '-', with the same status."""
    path = game_file(name)
    with open(os.path.join(ROOT, path), "rb") as f:
        data = f.read()
    for opts in ([], ["--json"]):
        by_file = matchbox_stdin(b"", "replay", "--runtime", runtime, *opts, path)
        by_stdin = matchbox_stdin(data, "replay", "--runtime", runtime, *opts, "-")
        assert by_stdin.returncode == by_file.returncode == expected_status(path)
        assert by_stdin.stdout == by_file.stdout.replace(json.dumps(path).encode(), b'"-"') \
            .replace(path.encode() + b":", b"-:")
        assert by_stdin.stderr == by_file.stderr.replace(path.encode() + b":", b"-:")


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_stdin_past_the_bound_is_refused(runtime):
    """A record on stdin is bounded: 1 MiB and one byte of valid-looking lines is refused."""
    line = b"1: pass\n"
    data = b"players 2\n" + line * ((1 << 20) // len(line) + 1)
    proc = matchbox_stdin(data, "replay", "--runtime", runtime, "-")
    assert proc.returncode == 2
    assert proc.stderr == b"matchbox replay: cannot read -: more than 1048576 bytes, the most a record on stdin may have\n"
    assert proc.stdout == b""


def test_stdin_is_read_once():
    proc = matchbox_stdin(b"players 2\n", "replay", "-", "-")
    assert proc.returncode == 2 and b"stdin can be read only once" in proc.stderr


@pytest.mark.parametrize("content, line, code, has_state", [
    (b"players 2\nfoo\nplay 3\n", 2, "unknown word 'foo'", True),      # header fine: its game
    (b"players 2\nplay \xff\n", 2, "not UTF-8 text", True),
    (b"players 2\nplayers 3\nplay 3\n", 2, "header 'players' repeated", False),
    (b"players 2\ndealer 5\nplay 3\n", 2, "dealer must be a seat from 1 to 2", False),
    (b"", 1, "missing header 'players'", False),
])
def test_a_record_that_breaks_before_its_first_action(tmp_path, content, line, code, has_state):
    path = tmp_path / "record.txt"
    path.write_bytes(content)
    outputs = []
    for runtime in ("cpython", "micropython"):
        proc = matchbox("replay", "--json", "--runtime", runtime, str(path))
        assert proc.returncode == 2
        outputs.append(proc.stdout)
        result = json.loads(proc.stdout)
        assert result["error"] == {"line": line, "kind": "syntax", "code": code}
        if has_state:
            assert result["state"]["turn"] == 1 and result["state"]["table"] is None
        else:
            assert result["state"] is None
    assert outputs[0] == outputs[1]


# --- matchbox ref ---------------------------------------------------------------------------

def ref_rows(out):
    lines = out.splitlines()
    assert lines[0] == "face -> value(sticks)"
    return lines[1:]


def test_ref_one_face():
    proc = matchbox("ref", "3")
    assert proc.returncode == 0
    assert ref_rows(proc.stdout) == ["3 -> 3(0) 6(1) 8(2) 9(1) E(0)"]
    assert ref_rows(matchbox("ref", "2").stdout) == ["2 -> 2(0) 8(2)"]
    assert ref_rows(matchbox("ref", "7").stdout)[0].startswith("7 -> ")
    assert "F(" not in ref_rows(matchbox("ref", "7").stdout)[0]


def test_ref_every_face():
    proc = matchbox("ref")
    assert proc.returncode == 0
    rows = ref_rows(proc.stdout)
    assert len(rows) == 16
    for face, row in enumerate(rows):
        expect = "%s -> %s" % (char(face), " ".join("%s(%d)" % (char(v), c) for v, c in becomes(face, 16)))
        assert row == expect
    makers_of_f = [row[0] for row in rows if "F(" in row.split(" -> ")[1]]
    assert makers_of_f == ["1", "F"]
    rows = ref_rows(matchbox("ref", "--expansion").stdout)
    assert len(rows) == 18 and rows[17].startswith("H -> ")


def test_ref_rejects_a_non_card():
    proc = matchbox("ref", "X")
    assert proc.returncode == 2
