"""Property tests of the resume snapshot: over random games with undos, journalled as the box
does (the snapshot written every few lines), a resume from the snapshot and the tail gives
exactly the game a full replay of the record gives, and so does a packed game unpacked.
CPython only (hypothesis)."""
import os
import shutil
import tempfile

from hypothesis import HealthCheck, given, settings, strategies as st

import engine_helpers as eh
from box.journal import Journal
from tycoon import notation
from tycoon.game import PLAY, Game, pack_game


def _same(a, b):
    assert eh.snapshot(a) == eh.snapshot(b)
    assert pack_game(a) == pack_game(b)


def _random_game(seed, actions, undo_chance):
    """(setup, [("act", action) | ("undo", None)]) of a random legal game with undos."""
    rng = eh.Lcg(seed)
    setup = eh.random_setup(rng)
    game = Game(*setup)
    ops = []
    for _ in range(actions):
        if game.finished:
            break
        if len(game) and rng.below(100) < undo_chance:
            game.undo()
            ops.append(("undo", None))
        else:
            ops.append(("act", eh.step(game, rng)))
    return setup, ops


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), actions=st.integers(0, 300),
       undo_chance=st.integers(0, 40), every=st.integers(1, 80), cut=st.integers(0, 3))
def test_snapshot_and_tail_give_the_game_of_a_full_replay(seed, actions, undo_chance, every, cut):
    setup, ops = _random_game(seed, actions, undo_chance)
    root = tempfile.mkdtemp(prefix="resume-prop-")
    try:
        games = os.path.join(root, "games")
        journal = Journal(games)
        journal.snap_every = every
        game = Game(*setup)
        journal.start(game)
        journal.checkpoint(game)
        for what, action in ops:
            if what == "undo":
                last = game.last_action()
                game.undo()
                journal.undo(game, last)
            else:
                eh.apply(game, action)
                journal.append(game)
            journal.checkpoint(game)
        path = os.path.join(games, "current.txt")
        # a record that costs `every` or more to read has its snapshot (in pass lines: six for
        # the header, three a play, seven an undo)
        cost = 6 + sum(7 if a is None else 3 if a[0] == PLAY else 1 for _w, a in ops)
        assert os.path.exists(os.path.join(games, "current.snap")) == (cost >= every)
        if cut:   # a torn last line or a few lines of garbage after the snapshot
            with open(path, "ab") as f:
                f.write([b"", b"9: pa", b"1: play 3  #~0000\n", b"undo\nundo\n"][cut])
        with open(path, "rb") as f:
            record = f.read()
        back, _dropped = Journal(games).resume()
        full = os.path.join(root, "full")
        os.makedirs(full)
        with open(os.path.join(full, "current.txt"), "wb") as f:
            f.write(record)
        replayed, _dropped = Journal(full).resume()
        assert (back is None) == (replayed is None)
        if back is not None:
            _same(back, replayed)
            if not cut:
                _same(back, game)
    finally:
        shutil.rmtree(root)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10 ** 6), actions=st.integers(0, 400), undo_chance=st.integers(0, 50))
def test_a_packed_game_unpacks_to_the_same_game(seed, actions, undo_chance):
    setup, ops = _random_game(seed, actions, undo_chance)
    game = Game(*setup)
    for what, action in ops:
        if what == "undo":
            game.undo()
        else:
            eh.apply(game, action)
    back = notation.unpack(pack_game(game))
    _same(back, game)
    while back.undo():   # the snapshots came along: undo agrees to the deal
        game.undo()
        _same(back, game)
