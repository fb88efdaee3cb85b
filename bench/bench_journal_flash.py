"""Journal flash cost and UNDO time: erases and bytes programmed per action and per UNDO on a
littlefs image formatted as the Pico's, and the time of one UNDO against game length.

Run: .venv/bin/python bench/bench_journal_flash.py [--seed N]
The flash is littlefs-python (the littlefs C library) on a block device in memory with the
geometry MicroPython's rp2 port gives the Pico's filesystem: 4 KB blocks, 352 of them
(1.4 MB), 256-byte programs, 32-byte reads, lookahead 32, block_cycles 100, 1 KB caches. A
wrapper counts every erase and every program. The real firmware journal (box.journal) writes
through a Store onto it. Figures only: no Pico flash was measured.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "firmware", "lib"))
sys.path.insert(0, HERE)

from littlefs import LittleFS, UserContext  # noqa: E402

from box.journal import SNAP_COST, Journal  # noqa: E402
from box.journal import Store  # noqa: E402
from tycoon import notation  # noqa: E402
from tycoon.game import Game, IllegalAction, SNAP_EVERY, pack_game  # noqa: E402
from bench_engine import tool  # noqa: E402

BLOCK = 4096
BLOCKS = 352


class Counting(UserContext):
    """A flash in memory that counts erases, program operations and bytes programmed."""

    def __init__(self):
        UserContext.__init__(self, buffsize=BLOCK * BLOCKS)
        self.erases = self.progs = self.programmed = 0

    def prog(self, cfg, block, off, data):
        self.progs += 1
        self.programmed += len(data)
        return UserContext.prog(self, cfg, block, off, data)

    def erase(self, cfg, block):
        self.erases += 1
        return UserContext.erase(self, cfg, block)

    def mark(self):
        return (self.erases, self.programmed)


class LfsStore(Store):
    """box.journal.Store on a littlefs-python filesystem."""

    def __init__(self, fs):
        self.fs = fs

    def open(self, path, mode):
        return self.fs.open(path, mode)

    def rename(self, src, dst):
        self.fs.rename(src, dst)

    def remove(self, path):
        self.fs.remove(path)

    def listdir(self, path):
        return self.fs.listdir(path)

    def mkdir(self, path):
        self.fs.mkdir(path)

    def exists(self, path):
        try:
            self.fs.stat(path)
            return True
        except Exception:
            return False

    def isdir(self, path):
        try:
            return self.fs.stat(path).type == 2
        except Exception:
            return False


def pico_flash():
    ctx = Counting()
    fs = LittleFS(context=ctx, block_size=BLOCK, block_count=BLOCKS, read_size=32,
                  prog_size=256, cache_size=1024, lookahead_size=32, block_cycles=100)
    return ctx, fs


def long_game(seed, target=600, pass_chance=0.8):
    """An 8-player game with the G/H expansion played by seeded random legal choices that pass
    (with `pass_chance`) rather than beat the table, until it reaches `target` actions or ends
    (long games need passes: each costs a stick)."""
    rng = random.Random(seed)
    game = Game(8, expansion="gh4")
    while not game.finished and len(game) < target:
        if game.must_return():
            game.return_stick()
            continue
        top = game.table
        if top is not None and rng.random() < pass_chance:
            game.pass_turn()
            continue
        plays = []
        for v in range(game.values):
            try:
                game.check_play([v] * (top[1] if top else 1))
                plays.append(v)
            except IllegalAction:
                pass
        if plays:
            game.play([rng.choice(plays)] * (top[1] if top else 1))
        else:
            game.pass_turn()
    return game


# --- journals for the boot benches ------------------------------------------------------------
#
# Each gives the games/ files of a box that journalled a game, written by the box's own journal
# code called as the app calls it (start, then per action append and checkpoint; an UNDO is
# journal.undo, game.undo, checkpoint), on CPython: ({path: bytes}, game at the end). With
# snapshot=False the resume snapshot is left out, so that a boot replays the whole record.

def box_journal(setup_game, ops, snapshot=True):
    """The files of a journal of `ops` from the new game `setup_game`: each op is an action as
    Game.actions() gives it, or None for an UNDO. ({path: bytes}, the game)."""
    game = setup_game
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "games")
        journal = Journal(root)
        journal.start(game)
        journal.save_setup(game.players, game.dealer, game.expansion, game.revolution_size,
                           game.total_sticks, list(game.hands))
        journal.checkpoint(game)
        for op in ops:
            if op is None:
                last = game.last_action()
                game.undo()
                journal.undo(game, last)
            else:
                kind, _seat, faces, value, explicit = op
                game.apply(kind, faces, value if explicit else None)
                journal.append(game)
            journal.checkpoint(game)
        out = {}
        for name in sorted(os.listdir(root)):
            if name == "current.snap" and not snapshot:
                continue
            with open(os.path.join(root, name), "rb") as f:
                out["games/" + name] = f.read()
    return out, game


def _fresh(game):
    return Game(game.players, game.dealer, game.expansion, game.revolution_size, game.total_sticks,
                list(game.hands))


def journal_undo_every(actions, every=8, seed=1, snapshot=True):
    """A journal of `actions` actions of long_game(seed, actions, 0.9) with an UNDO after every
    `every`-th action and the action keyed again (two more lines each): 6 + actions +
    2 * (actions // every) lines. ({path: bytes}, game)."""
    played = list(long_game(seed, actions, pass_chance=0.9).actions())
    ops = []
    for n, action in enumerate(played):
        ops.append(action)
        if n % every == every - 1:
            ops += [None, action]
    return box_journal(_fresh(long_game(seed, 0)), ops, snapshot)


def journal_undo_pairs(actions, pairs, seed=1, snapshot=True):
    """A journal of `actions` actions of long_game(seed, actions, 0.9) and `pairs` UNDO/redo
    pairs (an UNDO, then the action keyed again) spread evenly over them: 6 + actions +
    2 * pairs lines (500 and 750: 2 006 lines; 500 and 2 250: 5 006). ({path: bytes}, game)."""
    played = list(long_game(seed, actions, pass_chance=0.9).actions())
    ops = []
    done = 0
    for n, action in enumerate(played):
        ops.append(action)
        due = pairs * (n + 1) // len(played)
        while done < due:
            ops += [None, action]
            done += 1
    return box_journal(_fresh(long_game(seed, 0)), ops, snapshot)


LONGEST_HANDS = (57, 1, 1, 1, 1, 1, 1, 1)


def longest_game():
    """The longest game we have constructed: 905 actions. 8 players, G/H expansion (64 cards),
    9999 sticks, hands 57 1 1 1 1 1 1 1. Seat 1 leads a single card each trick (never the
    strongest value: an H is played as A, for a stick) and every other seat passes while it
    holds a card, so each of seat 1's 57 tricks takes 7 passes and gives 7 sticks, each
    returned later, one action a stick: 64 plays (57, then the seven lone cards), 420 passes,
    421 returns. No game is longer than 968 actions: 64 plays (one card each), at most 7 passes a
    play (each seat declines once a trick), and one return for each stick a seat ever holds
    (8 dealt + the passes); this construction loses the passes that seats whose hand is empty
    cannot make, 3 sticks the last seat keeps and 4 paid for the H's."""
    from tycoon.cards import becomes
    game = Game(8, 1, "gh4", 5, 9999, list(LONGEST_HANDS))
    while not game.finished:
        if game.must_return():
            game.return_stick()
        elif game.table is not None:
            game.pass_turn()
        else:   # lead the cheapest single that does not force (face, then value)
            best = None
            for face in range(game.values):
                for value, _cost in [(face, 0)] + list(becomes(face, game.values)):
                    if value == game.strongest():
                        continue
                    try:
                        _v, cost = game.check_play([face], value)
                    except IllegalAction:
                        continue
                    if best is None or (cost, face) < best[0]:
                        best = ((cost, face), face, value)
            if best is None:
                game.play([f for f in range(game.values) if f == game.strongest()][:1])
            else:
                game.play([best[1]], None if best[2] == best[1] else best[2])
    return game


def journal_longest(undo_every=0, snapshot=True):
    """The journal of longest_game() (an UNDO and the action again after every `undo_every`-th
    action when given). ({path: bytes}, game)."""
    game = longest_game()
    ops = []
    for n, action in enumerate(game.actions()):
        ops.append(action)
        if undo_every and n % undo_every == undo_every - 1:
            ops += [None, action]
    return box_journal(_fresh(game), ops, snapshot)


def delta(ctx, before):
    return ctx.erases - before[0], ctx.programmed - before[1]


def stats(pairs):
    erases = [p[0] for p in pairs]
    programmed = [p[1] for p in pairs]
    return (sum(erases) / len(erases), max(erases), sum(programmed) / len(programmed),
            max(programmed))


def flash_figures(game):
    actions = list(game.actions())
    ctx, fs = pico_flash()
    journal = Journal("games", LfsStore(fs))
    replay = Game(game.players, game.dealer, game.expansion, game.revolution_size,
                  game.total_sticks, game.hands)
    journal.start(replay)
    per_action = []
    for kind, _seat, faces, value, explicit in actions:
        replay.apply(kind, faces, value if explicit else None)
        before = ctx.mark()
        journal.append(replay)
        per_action.append(delta(ctx, before))
    n = len(replay)
    # the old way of an UNDO: the whole record rewritten through a tmp and a rename
    before = ctx.mark()
    journal.rewrite(replay)
    rewrite_at_end = delta(ctx, before)
    # UNDO now: one line appended; every action of the game taken back, one by one
    per_undo = []
    while len(replay):
        before = ctx.mark()
        last = replay.last_action()
        replay.undo()
        journal.undo(replay, last)
        per_undo.append(delta(ctx, before))
    assert notation.write(Journal("games", LfsStore(fs)).resume()[0]) == notation.write(replay)
    # the old way, undoing the whole game: a rewrite of the record at every length
    ctx2, fs2 = pico_flash()
    old = Journal("games", LfsStore(fs2))
    total_old = [0, 0]
    for kind, _seat, faces, value, explicit in actions:
        replay.apply(kind, faces, value if explicit else None)
    old.start(replay)
    while len(replay):
        replay.undo()
        before = ctx2.mark()
        old.rewrite(replay)
        e, p = delta(ctx2, before)
        total_old[0] += e
        total_old[1] += p
    return n, per_action, per_undo, rewrite_at_end, total_old


def snapshot_figures(game):
    """Flash per action with and without the resume snapshot: the game's actions journalled on
    a fresh Pico flash, each append followed by journal.checkpoint (a snapshot every SNAP_LINES
    lines) or not. [(erases, bytes) per action] for each, and the snapshots written."""
    out = []
    for snapshot in (False, True):
        ctx, fs = pico_flash()
        journal = Journal("games", LfsStore(fs))
        replay = _fresh(game)
        journal.start(replay)
        per_action = []
        snaps = 0
        for kind, _seat, faces, value, explicit in game.actions():
            replay.apply(kind, faces, value if explicit else None)
            before = ctx.mark()
            journal.append(replay)
            if snapshot:
                covered = journal._snap_lines
                journal.checkpoint(replay)
                snaps += journal._snap_lines != covered
            per_action.append(delta(ctx, before))
        out.append(per_action)
        if snapshot:   # what the box resumes from it is the game
            back = Journal("games", LfsStore(fs)).resume()[0]
            assert pack_game(back) == pack_game(replay)
    return out[0], out[1], snaps


def typed_figures(game):
    """The flash a power-up costs that takes a record typed by hand as the box's own (the game
    as a person writes it: canonical notation, no tags), and the power-up after it: (erases,
    bytes programmed) each, and the record's bytes before and after."""
    ctx, fs = pico_flash()
    store = LfsStore(fs)
    store.mkdir("games")
    typed = notation.write(game).encode()
    store.write("games/current.txt", [typed])
    out = []
    for _ in range(2):
        before = ctx.mark()
        back = Journal("games", store).resume()[0]
        out.append(delta(ctx, before))
        assert notation.write(back) == notation.write(game)
    f = store.open("games/current.txt", "rb")
    taken = len(f.read())
    f.close()
    return out[0], out[1], len(typed), taken


def undo_times_cpython(game, lengths, repeat=200):
    actions = list(game.actions())
    out = []
    for length in lengths:
        g = Game(game.players, game.dealer, game.expansion, game.revolution_size, game.total_sticks,
                 game.hands)
        for kind, _seat, faces, value, explicit in actions[:length]:
            g.apply(kind, faces, value if explicit else None)
        kind, _seat, faces, value, explicit = actions[length - 1]
        best = None
        for _ in range(repeat):
            t = time.perf_counter()
            g.undo()
            t = time.perf_counter() - t
            g.apply(kind, faces, value if explicit else None)
            best = t if best is None else min(best, t)
        out.append(best * 1e6)
    return out


def undo_times_micropython(record, lengths):
    micropython = tool("micropython")
    proc = subprocess.run([micropython, "-X", "heapsize=256K",
                           os.path.join(HERE, "mpy_undo_bench.py"), record] +
                          [str(n) for n in lengths],
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, MICROPYPATH=os.path.join(ROOT, "firmware", "lib")))
    if proc.returncode != 0:
        raise SystemExit("mpy_undo_bench failed:\n" + proc.stdout + proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args(argv)
    game = long_game(args.seed)
    n, per_action, per_undo, rewrite_at_end, total_old = flash_figures(game)
    print("Journal on a littlefs image formatted as the Pico's (4 KB blocks x %d, 256-byte "
          "programs), a %d-action 8-player game:" % (BLOCKS, n))
    a = stats(per_action)
    u = stats(per_undo)
    print("  per action (one line appended): erases mean %.2f max %d, bytes programmed mean %.0f "
          "max %d" % a)
    print("  per UNDO (one 'undo' line appended), over all %d: erases mean %.2f max %d, bytes "
          "programmed mean %.0f max %d" % ((len(per_undo),) + u))
    print("  UNDO the old way at %d actions (whole record rewritten): %d erases, %d bytes "
          "programmed" % ((n,) + rewrite_at_end))
    print("  undoing the whole game: now %d erases, %d bytes programmed; the old way %d "
          "erases, %d bytes programmed" % (sum([p[0] for p in per_undo]),
                                           sum([p[1] for p in per_undo]),
                                           total_old[0], total_old[1]))
    plain, snapped, snaps = snapshot_figures(game)
    a, b = stats(plain), stats(snapped)
    print("Resume snapshot (current.snap, when the lines after it cost %d pass lines to read; %d written over the %d actions), per "
          "action:" % (SNAP_COST, snaps, n))
    print("  without: erases mean %.3f, bytes programmed mean %.0f; with: erases mean %.3f, "
          "bytes programmed mean %.0f (+%.3f erases, +%.0f bytes an action)" % (
              a[0], a[2], b[0], b[2], b[0] - a[0], b[2] - a[2]))
    if snaps:
        print("  a snapshot written: about %.1f erases and %.0f bytes programmed" % (
            (b[0] - a[0]) * n / snaps, (b[2] - a[2]) * n / snaps))
    taking, after, typed, taken = typed_figures(game)
    print("A record typed by hand of the %d actions (%d bytes, no tags), taken as the box's own "
          "at power-up (%d bytes tagged): %d erases, %d bytes programmed; the power-up after "
          "it: %d erases, %d bytes programmed" % ((n, typed, taken) + taking + after))
    lengths = [n for n in (10, 50, 100, 200, 300, 400, 500, 600) if n <= len(game)]
    cp = undo_times_cpython(game, lengths)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(notation.write(game))
        record = f.name
    try:
        mp = undo_times_micropython(record, lengths)
    finally:
        os.remove(record)
    print("Time of one UNDO (Game.undo, best of 200; snapshot every %d actions):" % SNAP_EVERY)
    print("  actions   CPython us   MicroPython unix us")
    for length, c, m in zip(lengths, cp, mp):
        print("  %7d   %10.1f   %19d" % (length, c, m))
    flat = max(mp) <= 3 * max(1, min(mp)) + 50
    print("UNDO time against game length: %s" % ("flat" if flat else "NOT flat"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
