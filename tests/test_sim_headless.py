"""`matchbox sim --headless`: key words in, one JSON object out (displays, state, journal)."""
import json
import os
import subprocess
import sys

import engine_helpers as eh
import pytest
from tycoon import notation, writer
from tycoon.game import Game

from host_tools.resources import CHECKOUT as ROOT
from host_tools.virtual.box import parse_keys
from host_tools.virtual.box import action_keys, setup_keys


def sim(*args):
    proc = subprocess.run([sys.executable, "-m", "host_tools.cli", "sim"] + list(args),
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def run_json(*args):
    code, out, err = sim(*args)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 1, "exactly one JSON object expected:\n" + out
    return json.loads(lines[0])


def test_setup_menu_after_power_up():
    out = run_json("--headless")
    assert set(out) == {"displays", "state", "journal"}
    assert out["state"] is None and out["journal"] == ""
    assert out["displays"][0] == "PL 4" and len(out["displays"]) == 4


def test_keys_play_a_game_that_matches_the_engine():
    rng = eh.Lcg(12)
    game = Game(3, 2, "gh2", 4, 12, [5, 4, 5])
    while not game.finished:
        eh.step(game, rng)
    keys = setup_keys(3, 2, "gh2", 4, 12, [5, 4, 5])
    for action in game.actions():
        keys += action_keys(*action)
    out = run_json("--headless", "--keys", " ".join(keys))
    assert out["state"] == json.loads(writer.to_json(game))
    replayed, error = notation.load(out["journal"].splitlines())
    assert error is None and notation.write(replayed) == notation.write(game)
    assert out["displays"][0] == "End "


def test_journal_resume(tmp_path):
    record = tmp_path / "game.txt"
    record.write_text("players 3\ndealer 1\nhands 15 15 15\n1: play 6 9 as 9\n2: pass\n")
    game, error = notation.load(record.read_text().splitlines())
    assert error is None
    out = run_json("--headless", "--journal", str(record))
    assert out["state"] == json.loads(writer.to_json(game))
    assert "1: play 6 9 as 9" in out["journal"]
    # and keys go on from there: seat 3 beats the 9s with a pair of Cs (lower-case c works)
    out = run_json("--headless", "--journal", str(record), "--keys", "c c PLAY")
    assert out["state"]["table"] == {"value": "C", "count": 2, "seat": 3, "sticks": 0}
    assert out["displays"][0] == "2-C "


def test_stream_feeds_watch_the_state_lines_of_the_firmware():
    keys = setup_keys(3, 1, "none", 5, 40, [15, 15, 15]) + ["5", "PLAY", "PASS", "9", "PLAY", "UNDO"]
    base = [sys.executable, "-m", "host_tools.cli"]
    sim_proc = subprocess.Popen(base + ["sim", "--headless", "--stream", "--keys", " ".join(keys)],
                                stdout=subprocess.PIPE, cwd=ROOT)
    watch = subprocess.run(base + ["watch", "--file", "-", "--plain"], stdin=sim_proc.stdout,
                           capture_output=True, text=True, cwd=ROOT, timeout=120)
    sim_proc.stdout.close()
    assert sim_proc.wait(timeout=60) == 0 and watch.returncode == 0, watch.stderr
    log = [line for line in watch.stdout.splitlines() if not line.startswith("  [")]
    assert log == ["watching: 3 players, seat 1 to act", "seat 1 played 1 x 5", "seat 2 passed",
                   "seat 3 played 1 x 9", "undo (taken back: seat 3 played 1 x 9)"]


def test_stream_lines_are_the_states_the_firmware_printed():
    keys = setup_keys(2, 2, "none", 5, 40, [3, 3]) + ["7", "PLAY"]
    code, out, err = sim("--headless", "--stream", "--keys", " ".join(keys))
    assert code == 0, err
    game = Game(2, 2, "none", 5, 40, [3, 3])
    first = writer.to_json(game)
    game.play([7])
    assert out.splitlines() == [first, writer.to_json(game)]
    assert sim("--stream")[0] == 2


def test_long_press_and_wait():
    keys = " ".join(setup_keys(2, 1, "none", 5, 40, [15, 15])) + " 5 PLAY MENU:long"
    out = run_json("--headless", "--keys", keys)
    assert out["state"] is None  # MENU held long: back in the setup menu
    assert out["displays"][0] == "PL 2"
    # an error shows for 2 s: WAIT less than that and it is still there (no settling asked)
    keys2 = " ".join(setup_keys(2, 1, "none", 5, 40, [15, 15])) + " PASS"
    out = run_json("--headless", "--keys", keys2 + " WAIT:500", "--settle", "1")
    assert out["displays"][2:] == ["LEAd", "Err "]
    out = run_json("--headless", "--keys", keys2 + " WAIT:2500", "--settle", "1")
    assert out["displays"][0] != "LEAd"


def test_unknown_key_is_an_error_naming_it():
    code, out, err = sim("--headless", "--keys", "PLAY SHIFT PLAY")
    assert code == 2 and out == ""
    assert "SHIFT" in err


def test_missing_journal_file_is_an_error(tmp_path):
    code, out, err = sim("--headless", "--journal", str(tmp_path / "nope.txt"))
    assert code == 2 and "nope.txt" in err


def test_a_journal_with_an_illegal_line_is_named_and_resumed_before_it(tmp_path):
    record = tmp_path / "game.txt"
    record.write_text("players 3\nplay 5\nplay 4\n")
    code, out, err = sim("--headless", "--journal", str(record))
    assert code == 0
    assert "game.txt:3: illegal: not-stronger" in err
    result = json.loads(out)
    assert result["state"]["table"]["value"] == "5" and result["state"]["turn"] == 2


def test_parse_keys():
    assert parse_keys("1 as PLAY MENU:long UNDO:900 WAIT:250") == [
        ("key", "1", 60), ("key", "AS", 60), ("key", "PLAY", 60), ("key", "MENU", 1000),
        ("key", "UNDO", 900), ("wait", None, 250)]
    for bad in ("I", "PLAY:short", "WAIT", "WAIT:x", "5:0"):
        with pytest.raises(ValueError):
            parse_keys(bad)




def test_pico_without_the_emulator_says_what_is_missing_in_one_line(tmp_path):
    # runs everywhere: --uf2 names a file that is not there (or Node is missing)
    uf2 = str(tmp_path / "none.uf2")
    proc = subprocess.run([sys.executable, "-m", "host_tools.cli", "sim", "--headless", "--pico",
                           "--uf2", uf2, "--keys", "3"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith("matchbox sim: --pico: ")
    assert "Node.js" in lines[0] or "rp2040js" in lines[0] or uf2 in lines[0], lines[0]


def test_pico_and_flash_do_not_go_together(tmp_path):
    code, out, err = sim("--pico", "--flash", str(tmp_path / "f"))
    assert code == 2 and out == "" and "--flash" in err and len(err.splitlines()) == 1


def test_a_game_kept_in_the_flash_folder_is_archived_before_a_journal_replaces_it(tmp_path):
    flash = tmp_path / "box"
    first = tmp_path / "first.txt"
    first.write_text("players 3\nplay 5\n")
    code, out, err = sim("--headless", "--flash", str(flash), "--journal", str(first))
    assert code == 0 and err == "", err
    kept = (flash / "games" / "current.txt").read_bytes()
    assert kept.startswith(b"players 3")
    # the same record again: nothing to archive
    code, out, err = sim("--headless", "--flash", str(flash), "--journal", str(first))
    assert code == 0 and err == "" and not (flash / "games" / "archive").exists()
    (flash / "games" / "archive").mkdir()
    (flash / "games" / "archive" / "game-007.txt").write_text("players 2\n")
    second = tmp_path / "second.txt"
    second.write_text("players 4\n")
    code, out, err = sim("--headless", "--flash", str(flash), "--journal", str(second))
    assert code == 0, err
    archived = flash / "games" / "archive" / "game-008.txt"     # the next number, as the box
    assert archived.read_bytes() == kept
    assert (flash / "games" / "archive" / "game-007.txt").read_text() == "players 2\n"
    assert err.strip() == ("matchbox sim: the game kept in %s was archived as %s (as the box "
                           "does when a new game starts)" % (flash, os.path.join("games", "archive", "game-008.txt")))
    assert json.loads(out)["state"]["players"] == 4
    assert first.read_text() == "players 3\nplay 5\n" and second.read_text() == "players 4\n"


def test_displays_fits_that_many_headless_too():
    out = run_json("--headless", "--displays", "2", "--settle", "10")
    assert len(out["displays"]) == 2
    for bad in ("0", "5", "-1"):
        code, out, err = sim("--headless", "--displays", bad)
        assert code == 2 and out == "" and "--displays: must be 1 to 4" in err


@pytest.mark.parametrize("text,says", [
    ("", "empty.txt:1: syntax: missing header 'players' (the record is empty: the box puts it "
         "aside as games/broken.txt and opens the setup menu)"),
    ("hello\n", "empty.txt:1: syntax: unknown word 'hello' (no game to resume: the box puts the "
                "record aside as games/broken.txt, shows LoSt and opens the setup menu)"),
    ("players 3\nplay 5\nplay 4\n", "empty.txt:3: illegal: not-stronger (the box resumes from "
                                    "the 2 lines before it, keeps the whole record as "
                                    "games/damaged/NNN-current.txt and shows LoSt)")])
def test_the_journal_warning_says_what_the_box_does(tmp_path, text, says):
    record = tmp_path / "empty.txt"
    record.write_text(text)
    code, out, err = sim("--headless", "--journal", str(record), "--settle", "10")
    assert code == 0 and err.strip() == str(tmp_path / says)
    assert (json.loads(out)["state"] is None) == ("setup menu" in says)


def test_keys_right_after_a_resumed_boot_are_all_taken(tmp_path):
    """Keys from the moment the box powers up on a record (the box taking it as its own at
    boot), with no wait: both plays recorded. The unix port's clock stands while the journal
    is read, so it never lost them; on official MicroPython it did (tests/test_emulated_pico.py
    runs the same keys there)."""
    record = tmp_path / "g.txt"
    record.write_bytes(b"players 4\n1: play 3\n")
    out = run_json("--headless", "--journal", str(record), "--keys", "C AS C PLAY 3 AS E PLAY")
    assert out["journal"].endswith("\n2: play C as C  #~ddde\n3: play 3 as E  #~2bc1\n")
    assert out["displays"][:2] == ["1-E ", "P4 F"]


def test_a_record_typed_by_hand_resumes_at_every_power_up(tmp_path):
    """The issue's steps: a typed record put on the box with --journal and played on, then the
    box powered on again and again (--flash restarts): both plays every time, nothing put
    aside; `matchbox replay` and `report` read what the box wrote to the same state."""
    typed = tmp_path / "h.txt"
    typed.write_bytes(b"players 2\r\nDealer 1   # on paper\n\nhands 5 5")   # no last newline
    flash = str(tmp_path / "F")
    first = run_json("--headless", "--journal", str(typed), "--flash", flash,
                     "--keys", "3 PLAY 4 PLAY")
    assert first["state"] is not None and first["displays"][0] != "Lo5t"
    for keys in ("", "", "UNDO 4 PLAY", ""):
        out = run_json("--headless", "--flash", flash, "--keys", keys)
        assert out["state"] == first["state"] and out["displays"] == first["displays"], keys
    games = os.path.join(flash, "games")
    assert sorted(os.listdir(games)) == ["current.snap", "current.txt"] or \
        sorted(os.listdir(games)) == ["current.txt"]
    path = os.path.join(games, "current.txt")
    with open(path, "rb") as f:
        record = f.read()
    assert record.startswith(notation.tagged(1, "players 2")) and record.count(b"  #~") == \
        record.count(b"\n") == 6 + 2 + 2        # the box's own: header, two plays, undo, play
    game, error = notation.load(record.decode().splitlines())
    assert error is None and json.loads(writer.to_json(game)) == first["state"]
    cli = [sys.executable, "-m", "host_tools.cli"]
    replay = subprocess.run(cli + ["replay", "--json", path], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert replay.returncode == 0 and json.loads(replay.stdout)["state"] == first["state"]
    report = subprocess.run(cli + ["report", path, "-o", str(tmp_path / "r.svg")],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert report.returncode == 0 and report.stderr == "", report.stderr
    assert (tmp_path / "r.svg").stat().st_size > 0
