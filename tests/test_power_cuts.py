"""Power cuts: the virtual box loses power at random moments of two games, boots again on
the same flash, and must resume either the state before the operation in flight or the one
after it, never anything else, with a journal that replays clean on the host.

Two kinds of cut: a kill between two main-loop passes at a random virtual time (a key half
pressed, an announcement showing, ...), and a cut in the middle of a flash operation at a
random byte (the board stops inside the write; the bytes that fit stay: a torn line).
Some reboots are cut again while the journal repairs itself. The firmware runs with a resume
snapshot due every 4 pass lines (the box's is 128), so that cuts strike in snapshot writes and
removals too; what the board resumes (from a snapshot when there is one) must be what a full
replay of its journal gives. Run with -s to see the count.
"""
import json
import os
import random
import shutil

import pytest

import engine_helpers as eh
from tycoon import notation, writer
from tycoon.game import Game

from host_tools.virtual import box as vbox
from host_tools.virtual.box import VBox, action_keys, setup_keys

HOLD = GAP = 60
SETTLE = 200
CUTS_PER_OP = 8
MIN_CUTS = 200
SETUP_1 = (3, 1, "none", 5, 6, [4, 3, 4])
SETUP_2 = (4, 2, "gh2", 4, 8, [3, 4, 3, 4])


# main.py with the resume snapshot due every 4 pass lines instead of 128
SNAPPY_MAIN = """import box.journal
box.journal.Journal.snap_every = 4
with open(%r) as f:
    exec(f.read(), {"__name__": "__main__"})
"""


@pytest.fixture
def snappy(tmp_path, monkeypatch):
    main = tmp_path / "main.py"
    main.write_text(SNAPPY_MAIN % vbox.MAIN)
    monkeypatch.setattr(vbox, "MAIN", str(main))


def snapshot(game):
    if game is None:
        return None, None
    return json.loads(writer.to_json(game)), notation.write(game)


def scenario(seed):
    """Operations (kind, keys) and the state after each: [(json, record)], states[0] = no game.
    kind "new" starts a game from the menu; "act" is one action or an undo."""
    rng = eh.Lcg(seed)
    ops = []
    states = [snapshot(None)]
    for setup, first, actions in ((SETUP_1, [], 60), (SETUP_2, ["MENU"], 40)):
        game = Game(*setup)
        ops.append(("new", first + setup_keys(*setup)))
        states.append(snapshot(game))
        for _ in range(actions):
            if game.finished:
                break
            if len(game) >= 2 and rng.below(7) == 0:
                game.undo()
                ops.append(("act", ["UNDO"]))
            else:
                eh.step(game, rng)
                ops.append(("act", action_keys(*list(game.actions())[-1])))
            states.append(snapshot(game))
        assert game.finished or setup is SETUP_2, "pick a seed whose first game ends"
    return ops, states


def enter(box, keys, kill_at=None):
    """Type the keys (then let the box settle); kill the box `kill_at` virtual ms in."""
    plan = []
    for key in keys:
        plan += [(box.press, key, HOLD), (box.release, key, GAP)]
    plan.append((None, None, SETTLE))
    t = 0
    for act, key, ms in plan:
        if act is not None:
            act(key)
        if kill_at is not None and t + ms > kill_at:
            box.advance(kill_at - t)
            box.kill()
            return
        box.advance(ms)
        t += ms
        if not box.on:
            return  # a scheduled flash cut struck


def observed(box):
    """The resumed game as (json, record) from the board and its journal; the journal must
    replay clean and agree with the board (a full replay on the host: the board may have
    resumed from its snapshot)."""
    got = box.game()
    text = box.journal_text()
    if got is None:
        return None, None
    game, error = notation.load(text.splitlines())
    assert error is None, "journal does not replay after a cut: %r\n%s" % (error, text)
    assert json.loads(writer.to_json(game)) == got, "journal and board disagree"
    return got, notation.write(game)


def reference_units(ops, states):
    """Flash units each operation uses, from a run without cuts (which must itself match)."""
    units = []
    with VBox() as box:
        box.boot()
        before = box.dump()["flash_ops"]
        for (kind, keys), expected in zip(ops, states[1:]):
            enter(box, keys)
            assert observed(box) == expected
            after = box.dump()["flash_ops"]
            units.append(after - before)
            before = after
    return units


def cut_through_scenario(seed):
    """The scenario with cuts at random moments; returns (cuts, cuts inside flash writes, cuts
    during resume, the share of operations after which a snapshot was on flash, cuts with one
    on flash)."""
    ops, states = scenario(4)
    units = reference_units(ops, states)
    assert all(u > 0 for u in units)
    snaps = resumed_from_snapshot = 0
    rng = random.Random(seed)
    cuts = torn = repairs_cut = 0
    with VBox() as box:
        box.boot()
        k = 0
        while k < len(ops):
            kind, keys = ops[k]
            before, after = states[k], states[k + 1]
            allowed = [before, after] + ([snapshot(None)] if kind == "new" else [])
            budget = CUTS_PER_OP
            while True:
                kill_at = None
                scheduled = False
                if budget > 0:
                    budget -= 1
                    if rng.random() < 0.6:
                        box.cut_after(rng.randrange(units[k]))
                        scheduled = True
                    else:
                        kill_at = rng.randrange(len(keys) * (HOLD + GAP) + SETTLE)
                enter(box, keys, kill_at)
                if box.on:  # no cut struck: the operation is done
                    if scheduled:
                        box.cancel_cut()
                    assert observed(box) == after, "op %d: %r" % (k, keys)
                    break
                cuts += 1
                torn += box.mode == "cut"
                box.release_all()
                if rng.random() < 0.15:
                    # cut again at power-up, while resume may be repairing the journal
                    if box.boot(cut=rng.randrange(60)) == "cut":
                        repairs_cut += 1
                        cuts += 1
                    box.kill()
                snap = os.path.exists(os.path.join(box.flash, "games", "current.snap"))
                assert box.boot() == "running"
                resumed_from_snapshot += snap
                now = observed(box)
                assert now in allowed, (
                    "op %d (%r): resumed a state that is neither before nor after it:\n%r" % (
                        k, keys, now))
                assert box.dump()["mode"] == ("setup" if now[0] is None else
                                              "finished" if now[0]["finished"] else "play")
                if now == after:
                    break
            k += 1
            snaps += os.path.exists(os.path.join(box.flash, "games", "current.snap"))
        assert observed(box) == states[-1]
        # the first game went to the archive whole
        second = [i for i, (kind, _) in enumerate(ops) if kind == "new"][1]
        folder = os.path.join(box.flash, "games", "archive")
        assert sorted(os.listdir(folder)) == ["game-001.txt"]
        with open(os.path.join(folder, "game-001.txt")) as f:
            game, error = notation.load(f.read().splitlines())
        assert error is None and notation.write(game) == states[second][1]
    return cuts, torn, repairs_cut, snaps / len(ops), resumed_from_snapshot


def test_power_cuts_at_random_moments(say_count):
    cuts, torn, repairs_cut, _snaps, _resumed = cut_through_scenario(20240611)
    say_count("power cuts survived: %d/%d (%d inside flash writes, %d during resume)" % (
        cuts, cuts, torn, repairs_cut))
    assert cuts >= MIN_CUTS
    assert torn > 50


def test_power_cuts_with_a_resume_snapshot_every_few_lines(say_count, snappy):
    cuts, torn, repairs_cut, snaps, resumed = cut_through_scenario(20240612)
    say_count("power cuts survived with resume snapshots: %d/%d (%d inside flash writes, %d "
              "during resume, %d with a snapshot on flash)" % (cuts, cuts, torn, repairs_cut,
                                                               resumed))
    assert cuts >= MIN_CUTS // 2
    assert torn > 50
    assert snaps > 0.75 and resumed > cuts // 3


SAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "docs", "examples", "sample-game.txt")


def damaged_sample():
    """docs/examples/sample-game.txt with '2: play 1' on line 10 made '2: plya 1'."""
    with open(SAMPLE, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    assert lines[9] == b"2: play 1"
    lines[9] = b"2: plya 1"
    return data, b"\n".join(lines)


def flash_files(folder):
    """The bytes of every file under folder."""
    found = []
    for dirpath, _dirs, names in os.walk(folder):
        for name in names:
            with open(os.path.join(dirpath, name), "rb") as f:
                found.append(f.read())
    return found


def cut_boots(tmp_path, record):
    """Boot a box on `record` alone in games/current.txt with the power cut after 0, 1, 2, ...
    flash units, until a boot is not cut: yields (box, games folder, k, boot's mode) after
    each, the box off."""
    with VBox(flash=str(tmp_path / "flash")) as box:
        games = os.path.join(box.flash, "games")
        k = 0
        while True:
            if os.path.isdir(games):
                shutil.rmtree(games)
            os.makedirs(games)
            with open(os.path.join(games, "current.txt"), "wb") as f:
                f.write(record)
            mode = box.boot(cut=k)
            box.kill()
            yield box, games, k, mode
            if mode != "cut":
                return
            k += 1


def test_power_cut_at_every_step_of_a_boot_that_keeps_damage(say_count, tmp_path):
    # the box boots on a record damaged in the middle and loses power after every flash unit
    # of its resume: every original byte stays on the flash, and the next boot resumes the
    # good lines
    _clean, bad = damaged_sample()
    cuts = 0
    for box, games, k, mode in cut_boots(tmp_path, bad):
        assert bad in flash_files(games), k
        if mode != "cut":
            break
        cuts += 1
        assert box.boot() == "running"
        assert flash_files(games).count(bad) == 1, k
        observed(box)
        game, error = notation.load(box.journal_text().splitlines())
        assert error is None and game.players == 4 and len(game) == 1, k
        box.kill()
    say_count("power cuts while a damaged record is kept at boot: %d, nothing lost" % cuts)
    assert cuts > 100


def test_power_cut_at_every_step_of_a_boot_that_takes_a_typed_record(say_count, tmp_path):
    # the box boots on a record typed by hand and loses power after every flash unit of its
    # taking the record as its own: each cut leaves the typed record or the box's, the next boot
    # resumes the typed game, and every boot after that too, nothing set aside
    typed = b"# on paper\nPlayers 2\r\nhands 3 3  \n1: play 5\nPASS"
    want, error = notation.load(typed.decode().splitlines())
    assert error is None and len(want) == 2
    cuts = 0
    for box, games, k, mode in cut_boots(tmp_path, typed):
        for _ in range(2):
            assert box.boot() == "running", k
            assert observed(box)[0] == json.loads(writer.to_json(want)), k
            assert box.journal_text().startswith(notation.tagged(1, "players 2").decode()), k
            assert sorted(os.listdir(games)) in (["current.txt"],
                                                 ["current.snap", "current.txt"]), k
            box.kill()
        cuts += mode == "cut"
    say_count("power cuts while a typed record is taken at boot: %d, the typed game resumed "
              "every time" % cuts)
    assert cuts > 100
