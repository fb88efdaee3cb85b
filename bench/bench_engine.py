"""Rules engine benchmark: time per action on CPython and on the MicroPython unix port,
heap used by the engine and by a live game, and the size of the compiled engine.

Run: .venv/bin/python bench/bench_engine.py [--seed N] [--repeat N] [--strict]
Generates a long 8-player game (deterministic for a seed), writes its record to a temporary
file (plain, and tagged as the box's journal holds it) and replays it with
bench/mpy_engine_bench.py under both runtimes in the same run.
Budgets (PASS/OVER): engine .mpy <= 16 KB; engine + a live game <= 16 KB heap in the box's
steady state (the engine it keeps while playing, the record reader let go after boot); median
engine action < 100 us on MicroPython unix. The peak while the journal is read at boot
(engine, reader and game) is reported beside it. Figures only; --strict exits 1 when a budget
is over.
"""
import argparse
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIB = os.path.join(ROOT, "firmware", "lib")
sys.path.insert(0, LIB)
sys.path.insert(0, ROOT)

from tycoon import notation, writer  # noqa: E402
from tycoon.game import SNAP_EVERY  # noqa: E402
from tycoon.game import Game, IllegalAction  # noqa: E402
from host_tools.device.build import stage  # noqa: E402

KB = 1024
BUDGET_MPY = 16 * KB
BUDGET_HEAP = 16 * KB
BUDGET_ACTION_US = 100
HEAPSIZE = "256K"


def tool(name):
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else shutil.which(name)


def long_game(seed):
    """A full-deal 8-player game played by random but legal choices, passing often so that
    sticks pile up and the end is a long run of returns."""
    rng = random.Random(seed)
    game = Game(8, dealer=1 + seed % 8)
    while not game.finished:
        if game.must_return():
            game.return_stick()
            continue
        top = game.table
        if top is not None and rng.random() < 0.7:
            game.pass_turn()
            continue
        plays = []
        for _ in range(20):
            n = top[1] if top else rng.choice((1, 1, 1, 2, 2, 3, 4, 5))
            value = rng.randrange(game.values)
            faces = [value if rng.random() < 0.7 else rng.randrange(game.values) for _ in range(n)]
            explicit = value if any(f != value for f in faces) or rng.random() < 0.1 else None
            try:
                game.check_play(faces, explicit)
            except IllegalAction:
                continue
            plays.append((faces, explicit))
        if plays:
            game.play(*rng.choice(plays))
        elif top is not None:
            game.pass_turn()
        else:
            for v in range(game.values):
                try:
                    game.play([v])
                    break
                except IllegalAction:
                    continue
    return game


def run_side(argv, env, repeat):
    """Run mpy_engine_bench.py `repeat` times; each timing figure is the best (lowest) run."""
    best = None
    for _ in range(repeat):
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
        if proc.returncode != 0:
            raise SystemExit("bench run failed: %s\n%s" % (" ".join(argv), proc.stdout + proc.stderr))
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        if best is None:
            best = result
        for key in ("engine_us", "feed_us"):
            best[key] = [min(a, b) for a, b in zip(best[key], result[key])]
        best["undo_us"] = min(best["undo_us"], result["undo_us"])
    return best


def mpy_size(board):
    """Total .mpy bytes of the engine as the Pico gets it, in the folder `board` staged as
    `matchbox flash` and `matchbox uf2` stage it (host_tools.device.build.stage:
    armv6m, each module named by its path on the board, which the .mpy keeps)."""
    total = 0
    sizes = {}
    for path in sorted(glob.glob(os.path.join(board, "lib", "tycoon", "*.mpy"))):
        name = os.path.basename(path)
        sizes[name] = os.path.getsize(path)
        total += sizes[name]
    return total, sizes


def verdict(ok):
    return "PASS" if ok else "OVER"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--strict", action="store_true", help="exit 1 when a budget is over")
    args = parser.parse_args(argv)

    game = long_game(args.seed)
    kinds = [a.kind for a in game.actions()]
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "long-game.txt")
        with open(record, "w") as f:
            f.write(notation.write(game))
        journal = os.path.join(tmp, "current.txt")   # as box.journal writes it: tagged lines
        with open(journal, "wb") as f:
            for i, text in enumerate(notation.write(game).split("\n")[:-1]):
                f.write(writer.tagged(i + 1, text))
        script = os.path.join(HERE, "mpy_engine_bench.py")
        cp = run_side([sys.executable, script, record, journal], dict(os.environ, PYTHONPATH=LIB),
                      args.repeat)
        # MicroPython imports the .mpy files the Pico gets, as flashed by `matchbox flash`
        board = os.path.join(tmp, "board")
        stage(board)
        mp = run_side([tool("micropython"), "-X", "heapsize=" + HEAPSIZE, script, record, journal],
                      dict(os.environ, MICROPYPATH=os.path.join(board, "lib")), args.repeat)
        size, sizes = mpy_size(board)

    print("Engine benchmark: 8 players, seed %d, %d actions (%d plays, %d passes, %d returns), "
          "best of %d runs" % (args.seed, len(kinds), kinds.count(0), kinds.count(1), kinds.count(2),
                               args.repeat))
    print("  runtimes: CPython %s, MicroPython unix port v%s (heapsize %s)"
          % (cp["version"], mp["version"], HEAPSIZE))
    print("  %-34s %12s %12s %8s" % ("per action (us)", "CPython", "MicroPython", "ratio"))
    for key, label in (("engine_us", "engine call, median"), ("engine_us", "engine call, mean"),
                       ("feed_us", "record line (parse+rules), median"),
                       ("feed_us", "record line (parse+rules), mean")):
        i = 0 if label.endswith("median") else 1
        a, b = cp[key][i], mp[key][i]
        print("  %-34s %12.2f %12.2f %7.1fx" % (label, a, b, b / a if a else float("nan")))
    steady = mp["steady_heap"]
    print("  heap (MicroPython unix, gc.mem_alloc deltas): import the engine the box keeps %d B, "
          "the record reader %d B; live game after replay %d B, new game %d B"
          % (mp["engine_heap"], mp["reader_heap"], mp["game_heap"], mp["new_game_heap"]))
    print("  heap by module on import: %s" % ", ".join("%s %d B" % (m, n) for m, n in mp["import_heap_by_module"]))
    print("  peak at boot, the journal read: engine + reader + the game read %d B (%d B %s than "
          "16 KB; the budget is for the steady state)"
          % (mp["boot_heap"], abs(mp["boot_heap"] - BUDGET_HEAP),
             "more" if mp["boot_heap"] > BUDGET_HEAP else "less"))
    print("  steady state, the reader let go: the engine kept + the live game %d B" % steady)
    print("  undo of the last action at %d actions (last snapshot, then < %d actions replayed): CPython %.0f us, MicroPython %.0f us"
          % (len(kinds), SNAP_EVERY, cp["undo_us"], mp["undo_us"]))
    print("  engine .mpy as the Pico gets it (host_tools.device.build, armv6m): %d B (%s)"
          % (size, ", ".join("%s %d" % kv for kv in sorted(sizes.items()))))
    checks = (
        ("engine .mpy <= 16 KB", size <= BUDGET_MPY, "%d B" % size),
        ("engine + live game heap <= 16 KB (steady state)", steady <= BUDGET_HEAP, "%d B" % steady),
        ("median engine action < 100 us (MicroPython unix)", mp["engine_us"][0] < BUDGET_ACTION_US,
         "%.1f us" % mp["engine_us"][0]),
    )
    over = False
    for label, ok, figure in checks:
        print("  %s %-50s %s" % (verdict(ok), label, figure))
        over = over or not ok
    return 1 if (over and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
