"""Ctrl-C over USB stops the app and its watchdog, so mpremote and matchbox flash can work
on a running box; the game stays in the journal and resumes at the next power-up."""
import pytest

from host_tools.virtual.box import VBox


@pytest.mark.parametrize("board", ["virtual", "pico"])
def test_ctrl_c_stops_app_and_watchdog_and_the_game_resumes(board):
    with VBox(board=board) as box:
        box.boot()
        assert box.watchdog == 8000
        box.keys(["3", "PLAY"] + ["PLAY"] * 8)   # setup: 3 players, defaults
        box.keys(["5", "PLAY"])                   # seat 1 plays a 5
        state = box.state()
        assert state["table"]["value"] == "5"
        assert box.interrupt() == "repl"
        assert box.watchdog == 0
        assert any("Ctrl-C" in line for line in box.console)
        box.reboot()
        assert box.state() == state
