"""MicroPython side of bench_journal_flash.py: replay a record, and at each given length time
one Game.undo() (best of 200, the action made again after each). Prints a JSON list of us."""
import sys
import time

from tycoon import notation


def main(path, lengths):
    with open(path) as f:
        game, error = notation.load(f)
    actions = list(game.actions())
    out = []
    for length in lengths:
        g = notation.load(notation.write(game).split("\n")[:6])[0]
        for kind, _seat, faces, value, explicit in actions[:length]:
            g.apply(kind, faces, value if explicit else None)
        kind, _seat, faces, value, explicit = actions[length - 1]
        best = None
        for _ in range(200):
            t = time.ticks_us()
            g.undo()
            t = time.ticks_diff(time.ticks_us(), t)
            g.apply(kind, faces, value if explicit else None)
            best = t if best is None else min(best, t)
        out.append(best)
    print("[" + ", ".join([str(x) for x in out]) + "]")


main(sys.argv[1], [int(x) for x in sys.argv[2:]])
