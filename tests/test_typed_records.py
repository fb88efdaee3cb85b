"""Property test: a record typed by hand is a first-class game on the box, at every power-up.

hypothesis draws how a person types a record (header fields present or defaulted, comments,
blank lines, CRLF, trailing spaces, a last line with no newline, upper and lower case, seat
prefixes, undo lines, a byte-order mark) and how the box goes on with it (random legal actions
and UNDOs, a power cut at a random flash step while it takes the record and while it plays,
snapshots due after a random cost); tests/portable/typed_records.py runs each session: the
game resumed at every power-up is the engine's own game of what was typed and played, nothing
is set aside as damaged. Every session runs on CPython here and then, the same parameters in
one batch, under the MicroPython unix port, which must print the same counts.
`make soak-typed` runs more (TYPED, default 2000) and prints the counts:

    python tests/test_typed_records.py 2000
"""
import os
import subprocess
import sys
import tempfile

from hypothesis import HealthCheck, given, settings, strategies as st

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "firmware", "lib"), os.path.join(ROOT, "tests", "portable"),
                os.path.join(ROOT, "tests")]

from mpy import micropython  # noqa: E402
from typed_records import PARAMS, session  # noqa: E402

EXAMPLES = 200   # in `make test`: a few seconds on each runtime

STRATEGIES = {
    "seed": st.integers(0, 10 ** 6), "actions": st.integers(0, 40), "fields": st.integers(0, 31),
    "comments": st.integers(0, 3), "blanks": st.integers(0, 1), "crlf": st.integers(0, 2),
    "trailing": st.integers(0, 1), "newline": st.integers(0, 1), "case": st.integers(0, 2),
    "seats": st.integers(0, 2), "undos": st.integers(0, 3), "bom": st.integers(0, 1),
    "plays": st.integers(0, 40), "undo_chance": st.integers(0, 40),
    # a budget of flash units (a byte written, a rename, a remove) before the power goes; -1:
    # it does not go. The first power-up writes the record anew (a few hundred units).
    "cut1": st.one_of(st.just(-1), st.integers(0, 1500)),
    "cut2": st.one_of(st.just(-1), st.integers(0, 3000)),
    "every": st.integers(1, 80),
}


def _on_micropython(batch):
    """The result line of each session, run under the unix port in one process."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        for params in batch:
            f.write(" ".join([str(n) for n in params]) + "\n")
        path = f.name
    try:
        proc = subprocess.run([micropython(), "-X", "heapsize=4M",
                               os.path.join(ROOT, "tests", "portable", "typed_records.py"), path],
                              capture_output=True, text=True, timeout=3600, cwd=ROOT)
    finally:
        os.remove(path)
    lines = proc.stdout.splitlines()
    assert len(lines) == len(batch), proc.stdout[-2000:] + proc.stderr[-2000:]
    return lines


def check(examples):
    """Run `examples` drawn sessions on CPython, then the same on MicroPython. Returns the
    counts: sessions, power cuts that struck while the box took the record and while it
    played, actions typed and confirmed; fails on any session that fails or differs."""
    batch, results = [], []

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(st.fixed_dictionaries(STRATEGIES))
    def on_cpython(drawn):
        params = tuple([drawn[name] for name in PARAMS])
        results.append(session(params))
        batch.append(params)

    on_cpython()
    there = _on_micropython(batch)
    differ = [(batch[i], results[i], there[i]) for i in range(len(batch)) if results[i] != there[i]]
    assert not differ, differ[:3]
    counts = {"sessions": len(batch), "cut taking": 0, "cut playing": 0, "typed": 0, "played": 0}
    for line in results:
        _cuts, first, second, _t, typed, _p, played = line.split()
        counts["cut taking"] += int(first)
        counts["cut playing"] += int(second)
        counts["typed"] += int(typed)
        counts["played"] += int(played)
    return counts


def _say(counts):
    return ("typed records: %(sessions)d put on the box and played on, alike on CPython and "
            "MicroPython (%(typed)d actions typed, %(played)d played; power cut while taking "
            "the record %(cut taking)d times, while playing %(cut playing)d)" % counts)


def test_a_typed_record_resumes_at_every_power_up_on_both_runtimes(say_count):
    counts = check(EXAMPLES)
    assert counts["cut taking"] > 0 and counts["cut playing"] > 0, counts
    say_count(_say(counts))


if __name__ == "__main__":
    print(_say(check(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)))
