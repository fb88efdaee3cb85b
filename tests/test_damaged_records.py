"""A damaged journal never costs a game, end to end: the box keeps every byte of it and says so
(`sim --headless --flash`), `pull` brings the kept copies home and never writes outside its
folder or over a file, `report` never writes over its own record through a link, and `replay
--salvage` shows what a damaged record still proves."""
import argparse
import json
import os
import re
import subprocess
import sys
from unittest import mock

import pytest
from tycoon import notation

from host_tools import cli
from host_tools.commands import pull, report
from host_tools.resources import CHECKOUT as ROOT
from host_tools.device import serial_board
from host_tools.virtual.pty_board import PtyBoard

SAMPLE = os.path.join(ROOT, "docs", "examples", "sample-game.txt")


def matchbox(*args, cwd=ROOT):
    proc = subprocess.run([sys.executable, "-m", "host_tools.cli"] + list(args),
                          capture_output=True, text=True, cwd=cwd, timeout=180)
    return proc.returncode, proc.stdout, proc.stderr


def sample_with(old, new):
    with open(SAMPLE, "rb") as f:
        data = f.read()
    assert data.count(old) >= 1
    return data, data.replace(old, new, 1)


def every_file(folder):
    """{relative path: bytes} of every file under folder."""
    out = {}
    for dirpath, _dirs, names in os.walk(str(folder)):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, str(folder))] = f.read()
    return out


def boot_flash(folder, keys=""):
    code, out, err = matchbox("sim", "--headless", "--flash", str(folder), "--keys", keys)
    assert code == 0, err
    return json.loads(out)


# --- the box -----------------------------------------------------------------------------------

@pytest.mark.parametrize("line, old, new", [
    (10, b"2: play 1\n", b"2: plya 1\n"),          # the typo, early
    (60, b"\n3: play C as 0\n", b"\n3: play C as 1\n"),   # notation, but not that play
    (100, b"\n2: play A\n4: play 5 as 9\n", b"\n2: play A\n4: play 5 as;9\n"),
])
def test_a_one_character_change_keeps_every_byte_and_the_box_says_so(tmp_path, line, old, new):
    clean, bad = sample_with(old, new)
    assert bad.split(b"\n")[line - 1] != clean.split(b"\n")[line - 1]
    games = tmp_path / "flash" / "games"
    games.mkdir(parents=True)
    (games / "current.txt").write_bytes(bad)
    result = boot_flash(tmp_path / "flash")
    found = every_file(games)
    assert bad in found.values()                      # every original byte findable
    kept = [name for name, data in found.items() if data == bad]
    assert kept == [os.path.join("damaged", "001-current.txt")]
    game, error = notation.load(result["journal"].splitlines())
    assert error is None
    _g, damage = notation.load(bad.decode().splitlines())
    lost = bad.count(b"\n") - damage[0] + 1
    assert result["displays"][:2] == ["Lo5t", "%4d" % lost]   # LoSt (an S reads 5): it lost something
    # the good lines (typed by hand), taken as the box's own: the game as the box writes it
    good, _e = notation.load(bad.decode().splitlines()[:damage[0] - 1])
    assert result["journal"].encode() == b"".join(
        [notation.tagged(i + 1, t) for i, t in enumerate(notation.write(good).split("\n")[:-1])])
    # a key takes the notice away, and the game goes on from the good lines
    after = boot_flash(tmp_path / "flash", "PASS")
    assert after["displays"][0] != "Lo5t" and after["state"] is not None
    assert every_file(games)[os.path.join("damaged", "001-current.txt")] == bad


def test_with_its_tag_whole_a_damaged_line_is_repaired_and_every_action_resumes(tmp_path):
    # the sample game as the box journals it (a checksum tag on every line), one character
    # of line 60 changed: the tag tells which action it was
    with open(SAMPLE, "rb") as f:
        game, error = notation.load(f.read().decode().splitlines())
    assert error is None
    texts = notation.write(game).split("\n")[:-1]
    journal = b"".join([notation.tagged(i + 1, t) for i, t in enumerate(texts)])
    lines = journal.split(b"\n")
    assert lines[59].startswith(b"1: play C as E  #~")
    lines[59] = b"1: play C as F" + lines[59][14:]
    bad = b"\n".join(lines)
    games = tmp_path / "flash" / "games"
    games.mkdir(parents=True)
    (games / "current.txt").write_bytes(bad)
    result = boot_flash(tmp_path / "flash")
    assert result["displays"][:2] == ["rEPr", "   1"]
    assert (games / "current.txt").read_bytes() == journal           # every action
    assert (games / "damaged" / "001-current.txt").read_bytes() == bad   # and the original
    code, out, err = matchbox("replay", str(games / "damaged" / "001-current.txt"))
    assert code == 0 and ":60: repaired: " in err and "115 actions" in out


def test_a_power_cut_last_line_is_repaired_in_place_without_a_word(tmp_path):
    clean, _bad = sample_with(b"2: play 1\n", b"2: play 1\n")
    games = tmp_path / "flash" / "games"
    games.mkdir(parents=True)
    (games / "current.txt").write_bytes(clean[:-3])    # an append cut short
    result = boot_flash(tmp_path / "flash")
    assert "Lo5t" not in result["displays"]
    assert sorted(every_file(games)) == ["current.txt"]


# --- pull --------------------------------------------------------------------------------------

def _pull(capsys, *argv):
    status = cli.main(["pull"] + list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_pull_brings_the_damaged_copy_home(capsys, tmp_path):
    _clean, bad = sample_with(b"2: play 1\n", b"2: plya 1\n")
    flash = tmp_path / "flash"
    (flash / "games").mkdir(parents=True)
    (flash / "games" / "current.txt").write_bytes(bad)
    boot_flash(flash)                                  # the box keeps it in games/damaged/
    (flash / "games" / "broken.txt").write_bytes(b"players 9\n")
    with PtyBoard(str(flash)) as pico:
        status, out, err = _pull(capsys, "--port", pico.port, "--timeout", "5", str(tmp_path / "home"))
    assert status == 0, err
    home = tmp_path / "home"
    assert (home / "damaged" / "001-current.txt").read_bytes() == bad
    assert (home / "broken" / "broken.txt").read_bytes() == b"players 9\n"
    assert (home / "current.txt").read_text() == notation.write(
        notation.load(bad.decode().splitlines())[0])
    assert "pulled 3 files" in out


class FakeBoard:
    """A board that lists whatever names it is given (a hostile one), with pull's real code."""

    def __init__(self, files):
        self.files = files
        self.port = "fake"
        self.read = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def file_size(self, path):
        return len(self.files[path]) if path in self.files else None

    def list_files(self, folder):
        return sorted(p for p in self.files if p.startswith(folder))

    def read_file(self, path):
        self.read.append(path)
        return self.files[path]

    def restart(self, hard=False):
        return "soft reset"


HOSTILE = (
    "/games/archive/../../../escaped.txt",
    "/games/archive/game-\t2.txt",
    "/games/archive/sub\\..\\..\\escaped.txt",
    "/games/archive//game.txt",
    "/games/damaged/..",
    "/games/damaged/a\nb.txt",
    "/games/archiveX/../escaped.txt",
)


def test_a_hostile_name_from_a_board_writes_nothing_outside_dir(capsys, tmp_path):
    files = {name: b"x\n" for name in HOSTILE}
    files["/games/archive/game-001.txt"] = b"kept one\n"
    files["/games/damaged/001-current.txt"] = b"damaged one\n"
    board = FakeBoard(files)
    dest = tmp_path / "deep" / "down" / "DIR"
    outside = every_file(tmp_path)
    with mock.patch.object(pull, "connect", return_value=board):
        status, out, err = _pull(capsys, "--port", "fake", str(dest))
    assert status == 1
    assert every_file(dest) == {os.path.join("archive", "game-001.txt"): b"kept one\n",
                                os.path.join("damaged", "001-current.txt"): b"damaged one\n"}
    after = every_file(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith(os.path.join("deep", ""))} == outside
    warnings = [line for line in err.splitlines()
                if line.startswith("matchbox pull: warning: skipped")]
    assert len(warnings) == len(HOSTILE)
    assert all("\t" not in line for line in err.splitlines())   # names printed escaped
    assert not any(path in board.read for path in HOSTILE)
    assert "2 files" in out


def test_pull_never_replaces_a_file_without_force(capsys, tmp_path):
    texts = ["players 2", "hands 3 3", "1: play 3"]
    flash = tmp_path / "flash"
    (flash / "games").mkdir(parents=True)
    (flash / "games" / "current.txt").write_text("\n".join(texts) + "\n")
    dest = tmp_path / "home"
    dest.mkdir()
    mine = tmp_path / "mine.txt"
    mine.write_text("my own notes\n")
    os.symlink(str(mine), str(dest / "current.txt"))   # a link someone left there
    with PtyBoard(str(flash)) as pico:
        status, out, err = _pull(capsys, "--port", pico.port, str(dest))
        assert status == 1 and "current.txt exists and differs" in err and "--force" in err
        assert mine.read_text() == "my own notes\n"
        status, out, err = _pull(capsys, "--port", pico.port, "--force", str(dest))
        assert status == 0, err
    assert mine.read_text() == "my own notes\n"           # the link was replaced, not followed
    assert not os.path.islink(str(dest / "current.txt"))
    assert (dest / "current.txt").read_text().endswith("1: play 3\n")


def test_a_tab_in_one_name_skips_that_file_only(capsys, tmp_path):
    flash = tmp_path / "flash"
    (flash / "games" / "archive").mkdir(parents=True)
    (flash / "games" / "archive" / "game-001.txt").write_text("players 2\n")
    (flash / "games" / "archive" / "game\t002.txt").write_text("players 3\n")
    with PtyBoard(str(flash)) as pico:
        status, out, err = _pull(capsys, "--port", pico.port, str(tmp_path / "home"))
    assert status == 1
    assert "warning: skipped /games/archive/game\\t002.txt: a control character in a name" in err
    assert sorted(every_file(tmp_path / "home")) == [os.path.join("archive", "game-001.txt")]


class Port:
    def __init__(self, device, vid, pid, product=None):
        self.device, self.vid, self.pid, self.product = device, vid, pid, product


def test_port_auto_picks_only_a_matchbox(capsys, tmp_path):
    def ports(*found):
        return mock.patch.object(serial_board.serial.tools.list_ports, "comports",
                                 return_value=list(found))
    with ports(Port("/dev/ttyUSB0", 0x1A86, 0x7523, "USB Serial")):
        status, out, err = _pull(capsys, str(tmp_path / "home"))
    assert status == 2 and "no Matchbox found" in err and "/dev/ttyUSB0 (1a86:7523" in err
    with ports(Port("/dev/ttyACM0", 0x2E8A, 5), Port("/dev/ttyACM1", 0x2E8A, 5)):
        status, out, err = _pull(capsys, str(tmp_path / "home"))
    assert status == 2 and "/dev/ttyACM0, /dev/ttyACM1" in err and "--port" in err
    flash = tmp_path / "flash"
    (flash / "games").mkdir(parents=True)
    (flash / "games" / "current.txt").write_text("players 2\n")
    with PtyBoard(str(flash)) as pico:
        with ports(Port(pico.port, 0x2E8A, 5), Port("/dev/ttyUSB0", 0x1A86, 0x7523)):
            status, out, err = _pull(capsys, str(tmp_path / "home"))
            assert status == 2 and "has no Matchbox firmware" in err
            assert not (tmp_path / "home").exists()
            (flash / "lib" / "box").mkdir(parents=True)
            (flash / "lib" / "box" / "version.mpy").write_bytes(b"M")
            status, out, err = _pull(capsys, str(tmp_path / "home"))
    assert status == 0, err
    assert (tmp_path / "home" / "current.txt").read_text().startswith("players 2\n")


# --- report and replay ----------------------------------------------------------------------------

@pytest.mark.parametrize("link", [os.symlink, os.link])
def test_report_through_a_link_to_its_record_leaves_it_unchanged(tmp_path, capsys, link):
    with open(SAMPLE, "rb") as f:
        data = f.read()
    game = tmp_path / "g.txt"
    game.write_bytes(data)
    link(str(game), str(tmp_path / "link-to-g.html"))
    status = cli.main(["report", str(game), "-o", str(tmp_path / "link-to-g.html")])
    err = capsys.readouterr().err
    assert status == 2
    assert err == "matchbox report: cannot write %s: it is the input %s: give another file to " \
                  "write\n" % (tmp_path / "link-to-g.html", game)
    assert game.read_bytes() == data


def test_replay_salvage_shows_the_last_good_state_and_the_intact_lines(tmp_path):
    texts = ["players 2", "dealer 1", "expansion none", "revolution 5", "sticks 40",
             "hands 15 15", "1: play 3", "2: play 5", "1: play 7", "2: pass", "1: play 9"]
    data = bytearray(b"".join([notation.tagged(i + 1, t) for i, t in enumerate(texts)]))
    at = data.index(b"1: play 7")
    data[at + 8] = ord("8")              # line 9: '1: play 8 ...#x...', no tag to repair it
    data[data.index(b"#~", at) + 1] = ord("x")
    path = tmp_path / "damaged.txt"
    path.write_bytes(bytes(data))
    for runtime in ("cpython", "micropython"):
        code, out, err = matchbox("replay", "--salvage", "--runtime", runtime, str(path))
        assert code == 1, err
        assert err == "%s:9: syntax: damaged checksum tag\n" % path
        assert "the last good state, from lines 1-8 (2 actions):\nTurn: seat 1\n" in out
        rows = [line.split(None, 2) for line in out.splitlines()
                if re.match(r" +\d+  (ok|damaged|untagged) ", line)]
        assert [(r[0], r[1]) for r in rows] == [("9", "damaged"), ("10", "ok"), ("11", "ok")]
        assert rows[1][2] == "2: pass" and rows[2][2] == "1: play 9"
        assert out.endswith("2 of 3 lines from line 9 on check out\n")
    # typed by hand (no tag): a last line without its newline is as typed, not a cut
    typed = tmp_path / "typed.txt"
    typed.write_bytes(b"players 2\nhands 5 5\n1: play 3\n2: plya 4\n1: pass")
    for runtime in ("cpython", "micropython"):
        code, out, err = matchbox("replay", "--salvage", "--runtime", runtime, str(typed))
        assert code == 1 and err == "%s:4: syntax: unknown word 'plya'\n" % typed
        rows = [line.split(None, 2) for line in out.splitlines()
                if re.match(r" +\d+  (ok|damaged|untagged) ", line)]
        assert [(r[0], r[1]) for r in rows] == [("4", "damaged"), ("5", "untagged")]
    path.write_bytes(bytes(data) + b"2: pass")   # after tagged lines: an append cut short
    code, out, err = matchbox("replay", "--salvage", str(path))
    assert code == 1 and out.splitlines()[-2].split() == ["12", "damaged", "2:", "pass"]
    assert matchbox("replay", "--salvage", SAMPLE)[0] == 0
    code, out, err = matchbox("replay", "--salvage", str(tmp_path / "none.txt"))
    assert code == 2 and "cannot read" in err


def test_the_usb_line_at_power_up_says_it_and_watch_names_it(tmp_path):
    _clean, bad = sample_with(b"2: play 1\n", b"2: plya 1\n")
    games = tmp_path / "flash" / "games"
    games.mkdir(parents=True)
    (games / "current.txt").write_bytes(bad)
    code, out, err = matchbox("sim", "--headless", "--stream", "--flash", str(tmp_path / "flash"),
                              "--keys", "PASS PASS")
    assert code == 0, err
    lines = out.splitlines()
    assert json.loads(lines[0]) == {"lost": 114, "repaired": 0, "kept": "games/damaged/001-current.txt"}
    assert len(lines) == 2 and json.loads(lines[1])["players"] == 4   # then the states, as before
    proc = subprocess.run([sys.executable, "-m", "host_tools.cli", "watch", "--file", "-", "--plain"],
                          input=out, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == (
        "the box, at power-up: could not resume 114 lines of its record; kept the damaged file "
        "as games/damaged/001-current.txt")


def tagged_sample():
    """The sample game as the box journals it: (the journal's lines as bytes, the game)."""
    with open(SAMPLE, "rb") as f:
        game, error = notation.load(f.read().decode().splitlines())
    assert error is None
    texts = notation.write(game).split("\n")[:-1]
    return [notation.tagged(i + 1, t) for i, t in enumerate(texts)], game


def _text_byte(line, at=3):
    bad = bytearray(line)
    bad[at] = ord("y") if bad[at] != ord("y") else ord("z")
    return bytes(bad)


def _tag_byte(line):
    bad = bytearray(line)
    at = len(line) - 3                      # a hex digit of the tag
    bad[at] = ord("0") if bad[at] != ord("0") else ord("1")
    return bytes(bad)


def _text_bytes(line):
    tag = line.index(b"  #~")                # every byte of the text
    return b"?" * tag + line[tag:]


def _text_cut(line):
    return line[:3] + line[line.index(b"  #~"):]


# line numbers from 1 -> what to do to it; expected (displays 1-4 after boot, actions resumed)
CASES = {
    "text, every byte": ({100: _text_bytes}, ["rEPr", "   1", "", ""], 115),
    "text, cut short": ({60: _text_cut}, ["rEPr", "   1", "", ""], 115),
    "a text, then a tag 3 lines on": ({30: _text_bytes, 33: _tag_byte}, ["Lo5t", "  92", "", ""], 23),
    "text, deep": ({100: _text_byte}, ["rEPr", "   1", "", ""], 115),
    "text, first action": ({7: _text_byte}, ["rEPr", "   1", "", ""], 115),
    "tag only": ({60: _tag_byte}, ["Lo5t", "  62", "", ""], 53),
    "text and tag": ({60: lambda line: _tag_byte(_text_byte(line))}, ["Lo5t", "  62", "", ""], 53),
    "two texts": ({30: _text_byte, 90: _text_byte}, ["rEPr", "   2", "", ""], 115),
    "a text, then a tag": ({30: _text_byte, 90: _tag_byte}, ["rEPr", "   1", "Lo5t", "  32"], 83),
    "header": ({3: _text_byte}, ["Lo5t", " 121", "", ""], None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_damage_of_every_kind_on_the_virtual_box(tmp_path, case):
    from host_tools.virtual.box import VBox
    damage, shown, actions = CASES[case]
    lines, game = tagged_sample()
    for number, spoil in damage.items():
        lines[number - 1] = spoil(lines[number - 1])
    bad = b"".join(lines)
    games = tmp_path / "games"
    games.mkdir()
    (games / "current.txt").write_bytes(bad)
    with VBox(flash=str(tmp_path)) as box:
        box.boot()
        box.advance(300)
        assert [d.strip() for d in box.displays()] == [d.strip() for d in shown], case
        assert bad in every_file(games).values()          # every original byte findable
        if actions is None:
            assert box.state() is None and (games / "broken.txt").read_bytes() == bad
        else:
            assert len(notation.load(box.journal_text().splitlines())[0]) == actions
            assert (games / "damaged" / "001-current.txt").read_bytes() == bad


def test_port_auto_for_flash_doctor_and_watch(capsys, tmp_path, monkeypatch):
    from host_tools.commands import watch

    def ports(*found):
        return mock.patch.object(serial_board.serial.tools.list_ports, "comports",
                                 return_value=list(found))
    flash = tmp_path / "flash"
    (flash / "games").mkdir(parents=True)
    with PtyBoard(str(flash)) as pico:
        with ports(Port("/dev/ttyUSB0", 0x1A86, 0x7523), Port(pico.port, 0x2E8A, 5)):
            # flash takes the Pico (a fresh one here), never the other device
            status = cli.main(["flash", "--dry-run"])
            out, err = capsys.readouterr()
            assert status == 0, err
            assert pico.port in out and "/dev/ttyUSB0" not in out + err
            # doctor: a Pico without the Matchbox firmware is not a box: one line, nothing checked
            status = cli.main(["doctor", "--skip-keys", "--yes"])
            out, err = capsys.readouterr()
            assert status == 2 and out == ""
            assert err == "matchbox doctor: %s runs MicroPython but has no Matchbox firmware " \
                          "(no /lib/box/version.mpy): give --port with the box's, " \
                          "or `matchbox flash` it first\n" % pico.port
    # watch goes by the USB ids alone (opening the REPL would stop the box) and says which
    opened = []

    class Quiet:
        in_waiting = 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

        def read(self, n):
            raise OSError("gone")

    def fake_open(port):
        opened.append(port)
        return Quiet()
    monkeypatch.setattr(watch, "_open", fake_open)
    with ports(Port("/dev/ttyUSB0", 0x1A86, 0x7523), Port("/dev/ttyACM4", 0x2E8A, 5)):
        status = cli.main(["watch", "--once", "--plain"])
    out, err = capsys.readouterr()
    assert opened == ["/dev/ttyACM4"]
    assert err.splitlines()[0].startswith(
        "watching /dev/ttyACM4, the one Pico running MicroPython plugged in (")
