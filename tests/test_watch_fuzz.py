"""`matchbox watch` never ends in a traceback, whatever the lines: made-up and mutated state
lines and JSON nested thousands deep, in a bounded, seeded loop (the state reader,
host_tools.reports.state_log.parse_state, must refuse what it cannot show)."""
import io
import json
import random
import subprocess
import sys

from tycoon import writer
from tycoon.game import Game

from host_tools.commands import watch
from host_tools.reports.state_log import parse_state

TRIES = 2000
ODD = [None, True, False, 0, 1, -1, 2, 3, 8, 9, 10 ** 30, 1.5, float("nan"), "", "x", "F", [],
       {}, [1], {"seat": 1}, [None], "9", -(10 ** 30)]


def states():
    """State lines of a short real game: the seeds the mutations start from."""
    game = Game(3, 1, "none", 5, 40, [5, 5, 5])
    out = [writer.to_json(game)]
    for faces in ([7], None, [9], None, None):
        if faces is None:
            game.pass_turn()
        else:
            game.play(faces)
        out.append(writer.to_json(game))
    return out


def mutate(rng, obj):
    """obj with one random change somewhere inside: a key dropped, a value replaced by an odd
    one, an item added to or taken from a list."""
    if isinstance(obj, dict) and obj:
        obj = dict(obj)
        key = rng.choice(sorted(obj))
        r = rng.random()
        if r < 0.2:
            del obj[key]
        elif r < 0.6:
            obj[key] = rng.choice(ODD)
        else:
            obj[key] = mutate(rng, obj[key])
        return obj
    if isinstance(obj, list):
        obj = list(obj)
        r = rng.random()
        if obj and r < 0.5:
            i = rng.randrange(len(obj))
            obj[i] = mutate(rng, obj[i]) if rng.random() < 0.6 else rng.choice(ODD)
        elif r < 0.75:
            obj.append(rng.choice(ODD))
        elif obj:
            obj.pop()
        return obj
    return rng.choice(ODD)


def made_up(rng, seeds):
    """One line: a mutated state, JSON nested deep, a state with a deep value, or a state
    with a character changed."""
    text = json.dumps(mutate(rng, json.loads(rng.choice(seeds))) if rng.random() < 0.9
                      else json.loads(rng.choice(seeds)))
    r = rng.random()
    if r < 0.08:
        depth = rng.randint(500, 2000)
        text = "{\"players\": " * (r < 0.04) + "[" * depth + "]" * depth + "}" * (r < 0.04)
    elif r < 0.12:
        depth = rng.randint(500, 2000)
        text = text[:-1] + ", \"extra\": " + "{\"a\": " * depth + "1" + "}" * depth + "}"
    elif r < 0.3:
        i = rng.randrange(len(text))
        text = text[:i] + chr(rng.randrange(32, 0x3000)) + text[i + 1:]
    return text


def test_mutated_and_made_up_state_lines_never_raise(say_count):
    rng = random.Random(19)
    seeds = states()
    shown = refused = 0
    for _ in range(TRIES):
        lines = [made_up(rng, seeds) for _ in range(rng.randint(1, 5))]
        out = io.StringIO()
        shown += watch.watch(iter(lines), redraw=rng.random() < 0.5, out=out)
        refused += sum(parse_state(line) is None for line in lines)
    assert shown > TRIES // 4 and refused > TRIES // 4   # both kinds were really tried
    say_count("watch fuzz: %d tries, %d states shown, %d lines refused, no traceback"
              % (TRIES, shown, refused))


def test_deep_json_and_odd_lines_through_the_command(tmp_path):
    rng = random.Random(7)
    seeds = states()
    path = tmp_path / "lines.txt"
    lines = [made_up(rng, seeds) for _ in range(300)] + ["[" * 3000 + "]" * 3000, seeds[0]]
    path.write_text("\n".join(lines) + "\n")
    proc = subprocess.run([sys.executable, "-m", "host_tools.cli", "watch", "--plain", "--file",
                           str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.count("\n  [") >= 1   # the real state at the end is shown
