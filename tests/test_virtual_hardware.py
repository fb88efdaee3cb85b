"""The virtual hardware itself: bus, chips, keypad wires, buttons, clock, buzzer, board modes.

The firmware is the real one (firmware/main.py under the MicroPython unix port); these tests
check that what crosses the virtual wires is what the real parts would see and do.
"""
import json
import os

import pytest
from box import panels
from tycoon import writer
from tycoon.game import Game

from host_tools.virtual.ht16k33 import READING
from box_helpers import shown
from host_tools.virtual.board_link import KEY_NAMES, key_name
from host_tools.virtual.box import BoxError, VBox, action_keys, setup_keys


def reading(mask):
    return READING.get(mask & 0x7F, "?")


def test_power_up_sets_every_chip_up_cleanly():
    with VBox() as box:
        assert box.displays() == ["", "", "", ""]  # dark before power-up
        box.boot()
        for chip in box.chips.values():
            assert chip.oscillator and chip.on and chip.blink == 0 and chip.brightness == 15
            assert chip.unknown == []
        assert box.displays()[:2] == [shown("PL 4"), shown("SEt")]
        assert box.watchdog == 8000 and box.mode == "running"
        box.kill()
        assert box.displays() == ["", "", "", ""]  # power gone


def test_time_passes_only_when_granted():
    with VBox(t0=1234) as box:
        box.boot()
        assert box.now == 1234
        assert box.dump()["time"] == 1234
        box.advance(7)  # one 5 ms pass, then a 2 ms one
        assert box.dump()["time"] == 1241
        box.advance(1000)
        assert box.now == 2241


def test_a_game_across_the_tick_wrap():
    """MicroPython ticks wrap at 2**30: debounce, long presses and timers must not care."""
    with VBox(t0=(1 << 30) - 700) as box:
        box.boot()
        box.keys(setup_keys(3, 1, "none", 5, 40, [15, 15, 15]))
        box.keys("5 5 PLAY 7 7 PLAY")
        assert box.now < 1 << 29, "the clock wrapped"
        g = box.game()
        assert g["table"] == {"value": "7", "count": 2, "seat": 2, "sticks": 0}
        box.long_press("MENU")
        assert box.dump()["mode"] == "setup"


def test_every_face_key_reaches_the_firmware_through_the_matrix():
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(3, 1, "gh4", 5, 40, [15, 15, 15]))
        idle = box.displays()
        for face in range(18):
            name = "0123456789ABCDEFGH"[face]
            box.tap(name)
            assert box.displays()[2][0] == reading(panels.CARDS[face]), name
            box.long_press("DEL")
            assert box.displays() == idle


def test_buttons_are_active_low_inputs():
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(3, 1, "none", 5, 40, [15, 15, 15]))
        box.tap("MENU")
        assert box.dump()["mode"] == "ref"
        box.tap("MENU")
        assert box.dump()["mode"] == "play"
        box.keys("9 PLAY PASS")
        assert box.game()["turn"] == 3


def test_keys_held_together_ghost_like_a_diodeless_matrix():
    """1, 2 and 4 held: rows 1-2 and columns 1-2 are joined, so 5 reads as pressed too."""
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(3, 1, "none", 5, 40, [15, 15, 15]))
        for name in ("1", "2", "4"):
            box.press(name)
        box.advance(100)
        box.release_all()
        box.advance(100)
        assert box.displays()[2] == "1245"


def test_accept_and_reject_tones():
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(3, 1, "none", 5, 40, [15, 15, 15]))
        box.tones.clear()
        box.keys("5 PLAY")
        box.advance(500)
        assert [hz for _t, hz, duty in box.tones if duty] == [2093]
        assert box.tones[-1][2] == 0  # and it stops
        box.tones.clear()
        box.keys("3 PLAY")
        box.advance(1000)
        assert [hz for _t, hz, duty in box.tones if duty] == [220, 220]


def test_emitted_lines_are_the_state():
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(3, 1, "none", 5, 40, [15, 15, 15]))
        box.keys("5 PLAY")
        assert json.loads(box.emitted[-1]) == box.game()


def test_three_display_box():
    with VBox(devices=[0x70, 0x71, 0x72]) as box:
        box.boot()
        box.keys(setup_keys(2, 1, "none", 5, 40, [15, 15]))
        box.keys("4 4 PLAY")
        assert len(box.displays()) == 3
        assert box.displays()[0] == "2-4 "
        # the firmware asks after the missing display at most once a second, in case it comes
        assert box.naks.get(0x73, 0) <= box.now // 1000 + 2


def test_one_display_absent_at_power_up_is_lit_when_plugged_in():
    with VBox() as box:
        box.unplug(0x72)
        box.boot()
        box.keys(setup_keys(2, 1, "none", 5, 40, [15, 15]))
        box.advance(500)
        shown = box.displays()
        assert shown[2] == ""
        box.replug(0x72)
        box.advance(1500)
        shown = box.displays()
        assert shown[2].strip() != "" and shown == box.displays()
        box.advance(2 * 2000)   # no more paging over three displays
        assert box.displays() == shown


def test_displays_unplugged_at_power_up_come_up_when_plugged_in():
    with VBox() as box:
        for a in box.addresses:
            box.unplug(a)
        box.boot()
        box.advance(3000)
        assert box.displays() == ["", "", "", ""]
        for a in box.addresses:
            box.replug(a)
        box.advance(1500)
        assert box.displays()[:2] == [shown("PL 4"), shown("SEt")]


def test_real_hw_pico_on_virtual_machine_and_time():
    """board="pico": box.hw_pico builds the board from the virtual `machine` module."""
    keys = setup_keys(3, 2, "none", 5, 40, [15, 15, 15]) + "6 6 PLAY PASS 9 9 PLAY".split()
    results = []
    for board in ("virtual", "pico"):
        with VBox(board=board) as box:
            box.boot()
            assert box.watchdog == 8000
            box.keys(keys)
            box.advance(2000)
            results.append((box.game(), box.displays(), box.journal_text()))
            if board == "pico":  # hw_pico emits with print(): the USB serial console
                assert json.loads(box.console[-1]) == box.game()
    assert results[0] == results[1]


def test_a_firmware_crash_is_reported():
    with VBox() as box:
        with open(os.path.join(os.path.dirname(__file__), "..", "hardware", "pinmap.json")) as f:
            pinmap = json.load(f)
        pinmap["keypad"]["legend"] = pinmap["keypad"]["legend"][:3]  # does not fit the matrix
        with open(os.path.join(box.flash, "pinmap.json"), "w") as f:
            json.dump(pinmap, f)
        box.boot()
        assert box.mode == "crashed"
        assert any("ValueError" in line for line in box.console)


def test_unknown_commands_and_keys_are_refused():
    with pytest.raises(ValueError, match="'SHIFT'"):
        key_name("SHIFT")
    assert key_name("b") == "B" and set(KEY_NAMES) >= {"AS", "PLAY", "PASS", "DEL", "UNDO", "MENU"}
    with VBox() as box:
        box.boot()
        box._pending.append("bogus 1")
        with pytest.raises(BoxError, match="unknown command"):
            box.advance(10)


def test_cut_inside_an_append_tears_the_line():
    """A scheduled cut stops the board inside the journal write; the partial line is on flash
    until the next power-up repairs it."""
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(3, 1, "none", 5, 40, [15, 15, 15]))
        before = box.journal_text()
        box.cut_after(8)  # the open, then 7 bytes of the line
        box.keys(action_keys(0, 1, [5, 5], 5, False))
        assert box.mode == "cut" and not box.on
        torn = box.journal_text()[len(before):]
        assert torn == "1: play"
        box.release_all()
        box.boot()
        assert box.journal_text() == before
        assert box.game()["table"] is None
        assert box.game() == json.loads(writer.to_json(Game(3, 1, "none", 5, 40, [15, 15, 15])))


def test_a_python_without_the_unix_port_says_which_python_and_what_to_use(monkeypatch, tmp_path):
    """A plain `python -m host_tools...` in a checkout is not the .venv's: the line says which
    Python looked, and to use .venv/bin/python (`make venv` alone was no help to it)."""
    from host_tools.virtual import box as vbox
    elsewhere = str(tmp_path / "bin" / "python3")
    monkeypatch.setattr("sys.executable", elsewhere)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BoxError) as raised:
        vbox.micropython()
    assert str(raised.value) == (
        "micropython (the unix port) is neither next to this Python (%s) nor on PATH: in a "
        "checkout, run `make venv` and use .venv/bin/python" % elsewhere)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "micropython").write_text("")
    assert vbox.micropython() == str(tmp_path / "bin" / "micropython")
