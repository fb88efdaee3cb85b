"""The whole path a person takes, against virtual hardware: games played on the simulated box
(the real firmware journals them), the real firmware flashed to a virtual Pico, the self-test
run there, the games pulled off it, replayed and drawn as a report."""
import json
import os
import re
import shutil
import subprocess
import sys

from host_tools import cli
from host_tools.virtual.box import VBox, action_keys, setup_keys
from host_tools.virtual.pty_board import PtyBoard
from tycoon import notation

MATCHBOX = os.path.join(os.path.dirname(sys.executable), "matchbox")


def play_on_the_box(flash_dir):
    """Two games keyed in on the simulated box: one finished (archived when the second
    starts), one under way. Returns the box's state and journal of the second."""
    with VBox(flash=flash_dir) as box:
        box.boot()
        box.keys(setup_keys(2, 1, "none", 5, 40, [1, 1]))   # two seats, one card each
        box.keys(action_keys(0, 1, (5,), 5, False))    # seat 1: its only card
        box.keys(action_keys(1, 2))                     # seat 2 passes: table clears
        box.keys(action_keys(2, 1))                     # seat 1 returns its stick: out, game over
        assert box.state()["finished"]
        box.long_press("MENU")
        box.keys(setup_keys(3, 2, "none", 5, 40, [15, 15, 15]))
        box.keys(action_keys(0, 2, (7,), 12, True))     # seat 2: a 7 as C, one stick
        box.keys(action_keys(1, 3))
        state = box.state()
        journal = box.journal_text()
    return state, journal


def test_games_off_a_flashed_box_replay_and_report(tmp_path):
    flash_dir = str(tmp_path / "pico")
    os.makedirs(flash_dir)
    state, journal = play_on_the_box(flash_dir)
    for name in os.listdir(flash_dir):           # keep only the games, as on a fresh box
        if name != "games":
            path = os.path.join(flash_dir, name)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)

    with PtyBoard(flash_dir) as pico:      # flashing leaves the saved games alone
        assert cli.main(["flash", "--port", pico.port, "--timeout", "10"]) == 0
        out = subprocess.run(
            [sys.executable, "-m", "mpremote", "connect", pico.port, "resume", "exec",
             "import box.selftest; box.selftest.run()"],
            capture_output=True, text=True, timeout=120).stdout
        assert "selftest: 4 passed, 0 failed" in out, out
        pulled = str(tmp_path / "pulled")
        assert cli.main(["pull", "--port", pico.port, "--timeout", "10", pulled]) == 0

    current = os.path.join(pulled, "current.txt")
    with open(current) as f:   # the plain game record: no checksum tags
        assert f.read() == notation.write(notation.load(journal.splitlines())[0])
    archived = os.listdir(os.path.join(pulled, "archive"))
    assert archived == ["game-001.txt"]

    proc = subprocess.run([MATCHBOX, "replay", "--json", current,
                           os.path.join(pulled, "archive", "game-001.txt")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0]["error"] is None and lines[0]["state"] == state
    assert lines[1]["state"]["finished"] and lines[1]["state"]["ranking"] == [1, 2]

    page = str(tmp_path / "game.html")
    proc = subprocess.run([MATCHBOX, "report", current, "-o", page],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    with open(page) as f:
        html = f.read()
    # self-contained: no address but the SVG's namespace names (never fetched)
    assert "<svg" in html and "http" not in re.sub(r'xmlns(:\w+)?="[^"]*"', "", html)
    game, error = notation.load(journal.splitlines())
    assert error is None and len(game) == 2
