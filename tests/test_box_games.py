"""Whole games on the virtual box: the real firmware under MicroPython, driven key by key.

Every game is made on the host with the engine first; the box must end in the same state
(tycoon.writer.to_json's JSON) with a journal that replays, on the host, to the same game.
"""
import json
import os

import engine_helpers as eh
import pytest
from box.screens import errors
from tycoon import notation, writer
from tycoon.game import Game

from box_helpers import shown
from host_tools.virtual.box import VBox, action_keys, setup_keys

ERRORS = errors()   # the firmware's error texts: code -> bytes


def host_game(seed, setup=None, max_actions=400):
    """A random legal game made on the host: (game, list of actions)."""
    rng = eh.Lcg(seed)
    args = setup or eh.random_setup(rng)
    game = Game(*args)
    for _ in range(max_actions):
        if game.finished:
            break
        eh.step(game, rng)
    return game, list(game.actions())


def setup_of(game):
    return (game.players, game.dealer, game.expansion, game.revolution_size, game.total_sticks,
            list(game.hands))


def replayed(text):
    """The game a journal text replays to on the host (must be clean)."""
    game, error = notation.load(text.splitlines())
    assert error is None, "journal does not replay: %r\n%s" % (error, text)
    return game


def assert_same(box, game):
    got = box.game()
    assert got == json.loads(writer.to_json(game))
    journal = replayed(box.journal_text())
    assert notation.write(journal) == notation.write(game)


@pytest.mark.parametrize("seed", [0, 2, 3, 5, 6, 11])
def test_random_game_through_the_menu(seed):
    game, actions = host_game(seed)
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(*setup_of(game)))
        for action in actions:
            box.keys(action_keys(*action))
        box.advance(3000)
        assert box.mode == "running"
        assert_same(box, game)
        # the last emitted state line is the game too (what `matchbox watch` shows)
        assert json.loads(box.emitted[-1]) == json.loads(writer.to_json(game))
        if game.finished:
            assert box.dump()["mode"] == "finished"
            assert box.displays()[0] == shown("End")


def test_full_default_game_runs_in_seconds():
    """8 players sharing the whole G/H deck: hundreds of key presses."""
    game, actions = host_game(8, setup=(8, 3, "gh4", 5, 40, None))
    keys = setup_keys(*setup_of(game))
    for action in actions:
        keys += action_keys(*action)
    assert len(keys) > 300
    with VBox() as box:
        box.boot()
        box.keys(keys)
        box.advance(3000)
        assert_same(box, game)
        assert box.dump()["mode"] == ("finished" if game.finished else "play")


def test_resume_from_a_journal_then_play_on():
    game, actions = host_game(6)
    half = len(actions) // 2
    partial = Game(*setup_of(game))
    for kind, _seat, faces, value, explicit in actions[:half]:
        if kind == 0:
            partial.play(faces, value if explicit else None)
        elif kind == 1:
            partial.pass_turn()
        else:
            partial.return_stick()
    with VBox() as box:
        os.makedirs(os.path.join(box.flash, "games"))
        with open(os.path.join(box.flash, "games", "current.txt"), "w") as f:
            f.write(notation.write(partial))
        box.boot()
        assert box.dump()["mode"] == "play"
        assert box.game() == json.loads(writer.to_json(partial))
        for action in actions[half:]:
            box.keys(action_keys(*action))
        box.advance(3000)
        assert_same(box, game)


def test_undo_takes_back_the_last_action_and_rewrites_the_journal():
    game, actions = host_game(3)
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(*setup_of(game)))
        for action in actions[:4]:
            box.keys(action_keys(*action))
        before = box.game()
        box.keys(action_keys(*actions[4]))
        assert box.game() != before
        box.tap("UNDO")
        assert box.game() == before
        assert len(replayed(box.journal_text())) == 4
        # with an entry open, UNDO first clears the entry, then takes back an action;
        # holding it down does no more than one press
        box.keys(["1"])
        box.long_press("UNDO")
        assert len(replayed(box.journal_text())) == 4
        box.long_press("UNDO")
        assert len(replayed(box.journal_text())) == 3


def _lead_box(box):
    """A fresh 3-player game; seat 1 leads a pair of 5s, seat 2 to act."""
    box.boot()
    box.keys(setup_keys(3, 1, "none", 5, 40, [15, 15, 15]))
    box.keys("5 5 PLAY")
    box.advance(3000)


@pytest.mark.parametrize("keys, code", [
    ("3 3 PLAY", "not-stronger"),        # a pair of 3s does not beat 5s
    ("8 PLAY", "wrong-count"),           # one card on a pair
    ("7 7 AS F PLAY", "impossible-shape"),  # 7 can never become F
    ("1 2 3 4 5 6", "too-many-cards"),   # a sixth face key
    ("6 8 PLAY", "mixed-values"),        # two values without AS
    ("1 1 AS 8 PLAY", "not-enough-sticks"),  # 1 -> 8 costs 5 sticks each
    ("PLAY", "wrong-count"),             # nothing entered
])
def test_invalid_entries_change_nothing_and_show_the_code(keys, code):
    with VBox() as box:
        _lead_box(box)
        before = box.game()
        journal = box.journal_text()
        box.keys(keys)
        assert box.displays()[2:] == [shown(ERRORS[code].decode()), shown("Err")]
        assert any(hz == 220 for _t, hz, duty in box.tones if duty), "the reject tone sounds"
        assert box.game() == before
        assert box.journal_text() == journal
        box.advance(3000)  # the error goes away by itself
        assert box.displays()[2] != shown(ERRORS[code].decode())
        box.long_press("DEL")  # clear what is left of the entry
        box.keys("6 6 PLAY")  # and the game goes on
        assert box.game()["table"] == {"value": "6", "count": 2, "seat": 2, "sticks": 0}


def test_leader_cannot_pass():
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(2, 2, "none", 5, 40, [15, 15]))
        before = box.game()
        box.keys(["PASS"])
        assert box.displays()[2:] == [shown(ERRORS["cannot-pass"].decode()), shown("Err")]
        assert box.game() == before and before["turn"] == 2


def _bounce(box, name, pattern):
    """Toggle a key by the (down, ms) pattern: contact bounce as the firmware sees it."""
    for down, ms in pattern:
        (box.press if down else box.release)(name)
        box.advance(ms)


BOUNCY_PRESS = [(1, 2), (0, 1), (1, 3), (0, 2), (1, 1), (0, 4), (1, 5), (0, 1), (1, 80),
                (0, 3), (1, 2), (0, 1), (1, 4), (0, 60)]


def test_bouncing_keys_give_one_event_each():
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(3, 1, "none", 5, 40, [15, 15, 15]))
        _bounce(box, "7", BOUNCY_PRESS)
        _bounce(box, "PLAY", BOUNCY_PRESS)
        g = box.game()
        assert g["table"] == {"value": "7", "count": 1, "seat": 1, "sticks": 0}
        assert len(replayed(box.journal_text())) == 1
        _bounce(box, "PASS", BOUNCY_PRESS)
        assert box.game()["seats"][1]["sticks"] == 2
        assert box.game()["turn"] == 3
        assert len(replayed(box.journal_text())) == 2


def test_glitches_shorter_than_the_debounce_are_ignored():
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(3, 1, "none", 5, 40, [15, 15, 15]))
        before = box.game()
        screens = box.displays()
        for name in ("PLAY", "4", "PASS"):
            _bounce(box, name, [(1, 3), (0, 2), (1, 5), (0, 4), (1, 10), (0, 30)])
        assert box.game() == before
        assert box.displays() == screens


def test_unplugged_display_game_goes_on_and_replug_restores_it():
    game, actions = host_game(0)
    keys_before = setup_keys(*setup_of(game))
    for action in actions[:10]:
        keys_before += action_keys(*action)
    keys_during = []
    for action in actions[10:20]:
        keys_during += action_keys(*action)
    with VBox() as box, VBox() as twin:
        for b in (box, twin):
            b.boot()
            b.keys(keys_before)
        box.unplug(0x71)
        for b in (box, twin):
            b.keys(keys_during)
            b.advance(3000)
        assert box.displays()[1] == ""
        assert box.naks.get(0x71, 0) > 0
        # the four panels now page over the three displays that answer: none is lost
        seen = set()
        for _ in range(2):
            seen.update([box.displays()[i] for i in (0, 2, 3)])
            box.advance(2000)
            twin.advance(2000)
        assert set(twin.displays()) <= seen
        assert box.game() == twin.game()
        # retries are paced (at most one failed write per second of virtual time)
        naks = box.naks[0x71]
        box.advance(5000)
        twin.advance(5000)
        assert 3 <= box.naks[0x71] - naks <= 6
        box.replug(0x71)
        box.advance(1500)
        twin.advance(1500)
        assert box.displays() == twin.displays()
        assert box.displays()[1] != ""
        chip = box.chips[0x71]
        assert chip.lit and chip.unknown == []
        for action in actions[20:]:
            box.keys(action_keys(*action))
        box.advance(3000)
        assert_same(box, game)


def test_display_unplugged_from_power_up_pages_over_the_others():
    with VBox() as box:
        box.unplug(0x73)
        box.boot()
        box.keys(setup_keys(3, 1, "none", 5, 40, [15, 15, 15]))
        box.keys("5 5 PLAY")
        shown_now = box.displays()
        # asked after at most once a second, in case it is plugged in
        assert shown_now[3] == "" and box.naks.get(0x73, 0) <= box.now // 1000 + 2
        assert shown_now[0] == "2-5 "
        assert box.game()["turn"] == 2
        box.advance(2000)  # four panels on three displays: the fourth comes by paging
        assert box.displays()[0] == shown("St 1")


def test_maintenance_escape():
    """MENU held at power-up: main.py returns to the REPL, no app, no watchdog."""
    with VBox() as box:
        box.press("MENU")
        box.boot()
        assert box.mode == "repl"
        assert box.watchdog is None
        d = box.dump()
        assert d["mode"] == "none" and d["watchdog"] is False and d["game"] is None
        assert any("maintenance" in line for line in box.console)
        box.advance(10000)  # nothing runs: displays stay dark, nothing is written
        assert box.displays() == ["", "", "", ""]
        assert not os.path.exists(os.path.join(box.flash, "games"))
        box.kill()
        box.release("MENU")
        box.boot()
        assert box.mode == "running" and box.watchdog == 8000
        assert box.dump()["mode"] == "setup"


def test_other_keys_held_at_power_up_boot_normally():
    with VBox() as box:
        box.press("PLAY")
        box.press("5")
        box.boot()
        assert box.mode == "running" and box.watchdog == 8000


def test_maintenance_flag_file_in_the_flash_root():
    """A file named `maintenance` at the root (left by `matchbox doctor`) does the same."""
    with VBox() as box:
        open(os.path.join(box.flash, "maintenance"), "w").close()
        box.boot()
        assert box.mode == "repl" and box.watchdog is None
        assert box.dump()["mode"] == "none"
        box.kill()
        os.remove(os.path.join(box.flash, "maintenance"))
        assert box.boot() == "running" and box.watchdog == 8000
