"""MicroPython side of bench_engine.py: replay one record and report heap and timing.

Run: MICROPYPATH=<engine lib folder> micropython -X heapsize=256K bench/mpy_engine_bench.py RECORD JOURNAL
RECORD is the plain record, JOURNAL the same game as the box's journal holds it (checksum tags).
Prints one JSON line: heap for importing the engine the box keeps while playing (cards, game,
writer, with the state line) and the record reader (notation); the heap at the end of reading the journal
the way the box does at boot (engine, reader and the game read); the heap once the reader is
let go as the box then does (the engine it keeps and the game: the steady state); the heap of
a game replayed by engine calls and of a new one; and the per-action times (record line
through the reader, and the engine call alone) in microseconds. Also runs unchanged under
CPython (heap figures are then reported as null).
"""
import gc
import json
import sys
import time

try:
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
except AttributeError:  # CPython: fractional microseconds
    def ticks_us():
        return time.perf_counter_ns() / 1000.0

    def ticks_diff(a, b):
        return a - b


def mem_alloc():
    gc.collect()
    return gc.mem_alloc() if hasattr(gc, "mem_alloc") else None


def stats(times):
    times = sorted(times)
    n = len(times)
    median = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
    return [median, sum(times) / n]


def delta(a, b):
    return None if a is None or b is None else b - a


def replay_record(notation, lines):
    """Every record line through the reader (parse + rules), as `matchbox replay` and the
    journal do. Returns (times, final state JSON, header text, actions)."""
    reader = notation.Reader()
    times = []
    for line in lines:
        t0 = ticks_us()
        reader.feed(line)
        t1 = ticks_us()
        if notation.parse_line(line) is not None and reader.game is not None:
            times.append(ticks_diff(t1, t0))
    game = reader.finish()
    from tycoon import writer
    return times, writer.to_json(game), notation.header_text(game), list(game.actions())


def replay_engine(notation, header_lines, actions, times):
    """The engine calls alone, as the box makes them after a key press. Returns the game."""
    game = notation.load(header_lines)[0]
    for i in range(len(actions)):
        kind, seat, faces, value, explicit = actions[i]
        t0 = ticks_us()
        game.apply(kind, faces, value if explicit else None, seat)
        times[i] = ticks_diff(ticks_us(), t0)
    return game


def new_game(like):
    from tycoon.game import Game
    return Game(like.players, like.dealer, like.expansion, like.revolution_size, like.total_sticks, list(like.hands))


def forget(name):
    # What box.journal.Journal.forget_reader does at the end of boot: a module out of
    # sys.modules and off its package, so that nothing holds it.
    import tycoon
    del sys.modules[name]
    delattr(tycoon, name[7:])


def main(path, journal):
    with open(path) as f:
        lines = f.read().split("\n")
    names = ("tycoon.cards", "tycoon.game", "tycoon.writer", "tycoon.notation")
    marks = [0, 0, 0, 0, 0, 0, 0]   # allocated up front so that only the imports are counted
    marks[0] = mem_alloc()
    for i in range(4):   # each module after the ones it imports; the reader last
        __import__(names[i])
        marks[i + 1] = mem_alloc()
    # boot: the journal read through the reader, as box.journal does; then the reader let go
    f = open(journal, "rb")
    booted, error, reader = sys.modules["tycoon.notation"].read(f)
    f.close()
    assert error is None
    marks[5] = mem_alloc()   # engine + reader + the game read (and its Reader)
    reader = f = None
    forget("tycoon.notation")
    forget("tycoon.line")   # the reader's line grammar, imported with it
    marks[6] = mem_alloc()   # the engine the box keeps + the game: the steady state
    by_module = [[names[i][7:], delta(marks[i], marks[i + 1])] for i in range(4)]
    from tycoon import notation, writer
    feed_times, reference, header, actions = replay_record(notation, lines)
    engine_times = [0] * len(actions)
    header_lines = header.split("\n")
    m2 = mem_alloc()
    held = replay_engine(notation, header_lines, actions, engine_times)
    m3 = mem_alloc()
    fresh = new_game(held)
    m4 = mem_alloc()
    assert writer.to_json(held) == reference == writer.to_json(booted)
    assert len(fresh) == 0
    undo_times = []
    for _ in range(5):   # undo the last action of the long game (a snapshot and < SNAP_EVERY actions replayed), then redo it
        kind, seat, faces, value, explicit = actions[-1]
        t0 = ticks_us()
        held.undo()
        undo_times.append(ticks_diff(ticks_us(), t0))
        held.apply(kind, faces, value if explicit else None, seat)
    assert writer.to_json(held) == reference
    print(json.dumps({
        "version": ".".join([str(x) for x in sys.implementation.version[:3]]),
        "import_heap_by_module": by_module,
        "engine_heap": delta(marks[0], marks[3]),
        "reader_heap": delta(marks[3], marks[4]),
        "boot_heap": delta(marks[0], marks[5]),
        "steady_heap": delta(marks[0], marks[6]),
        "game_heap": delta(m2, m3),
        "new_game_heap": delta(m3, m4),
        "actions": len(actions),
        "feed_us": stats(feed_times),
        "engine_us": stats(engine_times),
        "undo_us": min(undo_times),
    }))


main(sys.argv[1], sys.argv[2])
