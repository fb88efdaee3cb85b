"""A game packed as bytes (tycoon.game.pack_game) and made again (tycoon.notation.unpack):
the same game, and ValueError for bytes that are not one. CPython and MicroPython."""
from struct import calcsize

import engine_helpers as eh
from tycoon import notation
from tycoon.game import PACKED_HEAD, SNAP_EVERY, Game, pack_game


def _played(seed, actions, undo_every=0):
    rng = eh.Lcg(seed)
    game = Game(*eh.random_setup(rng))
    n = 0
    while not game.finished and n < actions:
        eh.step(game, rng)
        n += 1
        if undo_every and n % undo_every == 0:
            game.undo()
    return game


def _same(a, b):
    assert eh.snapshot(a) == eh.snapshot(b)
    assert pack_game(a) == pack_game(b)
    assert a._snaps == b._snaps


def test_a_packed_game_comes_back_the_same_and_plays_on_the_same():
    for seed in range(40):
        game = _played(seed, 20 + seed * 7, undo_every=3 + seed % 5)
        back = notation.unpack(pack_game(game))
        _same(game, back)
        rng = eh.Lcg(seed + 1000)   # the same actions and undos on both, to the end
        n = 0
        while not game.finished and n < 300:
            step = eh.choose(game, rng)
            eh.apply(game, step)
            eh.apply(back, step)
            n += 1
            if n % 4 == 0:
                assert game.undo() == back.undo()
            _same(game, back)


def test_a_new_game_and_one_at_every_snapshot_boundary():
    game = Game(8, 3, "gh4", 4, 60)
    _same(game, notation.unpack(pack_game(game)))
    rng = eh.Lcg(5)
    while not game.finished and len(game) < 3 * SNAP_EVERY + 2:
        eh.step(game, rng)
        _same(game, notation.unpack(pack_game(game)))
        if len(game) % SNAP_EVERY == 0:   # undone right after a snapshot: fewer in use
            game.undo()
            _same(game, notation.unpack(pack_game(game)))
            eh.step(game, rng)


def _refused(data, words):
    try:
        notation.unpack(data)
    except ValueError as err:
        assert words in str(err.args[0]), (words, err.args)
        return
    raise AssertionError("accepted: %r" % (words,))


def test_each_inconsistency_is_named():
    game = _played(3, 60)
    # a few actions past a snapshot, two snapshots at least
    assert len(game) % SNAP_EVERY and len(game._snaps) >= 2 * (30 + 4 * game.players)
    data = bytearray(pack_game(game))
    n = game.players
    _refused(b"", "not format 1")
    _refused(bytes([2]) + data[1:], "not format 1")
    _refused(bytes([1, 9]) + data[2:], "9 players")
    _refused(data[:12], "too short")
    _refused(data + b"\x00", "its parts make")
    _refused(data[:-1], "its parts make")
    bad = bytearray(data)
    bad[3] = 7   # expansion
    _refused(bad, "expansion 7")
    bad = bytearray(data)
    bad[2] = n + 1   # the dealer: the setup's own message
    _refused(bad, "dealer must be")
    at = calcsize(PACKED_HEAD % n) - 4   # the actions taken, then the snapshots in use
    bad = bytearray(data)
    bad[at + 2] += 1   # one snapshot more: the parts no longer add up
    _refused(bad, "its parts make")
    bad = bytearray(data)
    bad[at] += SNAP_EVERY   # more actions than the snapshots in use allow
    _refused(bad, "snapshots for")
    bad = bytearray(data)
    bad[at] += 1   # one action more than the log holds
    _refused(bad, "snapshots for" if len(game) % SNAP_EVERY == 0 else "the log holds")
    bad = bytearray(data)
    bad[len(data) - len(game._log) + game._last] |= 0xC0   # the last action's kind: 3 is none
    _refused(bad, "action %d is illegal" % len(game))
    snaps = calcsize(PACKED_HEAD % n) + 30 + 4 * n
    bad = bytearray(data)
    bad[snaps + 30 + 4 * n:snaps + 32 + 4 * n] = b"\x00\x00"   # snapshot 2 at the log's start
    _refused(bad, "snapshot 2 is not at action 33")
    bad = bytearray(data)
    last = snaps + len(game._snaps) - (30 + 4 * n)   # the last snapshot, replayed from
    for seat in range(n):   # a seat's cards in it: the replay cannot make the state packed
        bad[last + 30 + seat] += 1
    _refused(bad, "packed game: ")


def test_every_changed_byte_is_refused_or_makes_a_consistent_game():
    # the CRC around a snapshot file catches damage; unpack itself never raises anything but
    # ValueError, and what it accepts packs back to exactly those bytes
    game = _played(11, 45, undo_every=7)
    data = pack_game(game)
    refused = 0
    for i in range(len(data)):
        for flip in (1, 0x80):
            bad = bytearray(data)
            bad[i] ^= flip
            try:
                back = notation.unpack(bytes(bad))
            except ValueError:
                refused += 1
                continue
            assert pack_game(back) == bytes(bad), i
    assert refused > len(data)
