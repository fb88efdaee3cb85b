"""Fuzzed records through the engine's one reader on CPython and on the MicroPython unix
port (one subprocess over a batch file): no exception but the reader's own errors, and the
same verdict - line, kind, message, bytes kept and the state - on both. `make soak-records`
runs the same check over 100 000 inputs."""
from record_fuzz import KINDS, OUTCOMES, check

COUNT = 2500


def test_fuzzed_records_same_verdict_on_both_runtimes(say_count):
    counts, differ, first = check(COUNT, seed=20240611)
    assert differ == 0, first
    assert sum([counts[k] for k in KINDS]) == COUNT
    assert sum([counts[k] for k in OUTCOMES]) == COUNT
    for outcome in OUTCOMES:
        assert counts[outcome] > 20, counts   # every verdict is reached, not only errors
    assert counts.get("repaired", 0) > 50, counts   # repairs by the tags are judged too
    say_count("fuzzed records: %d judged alike on CPython and MicroPython (%s; %d repaired "
              "by a tag)" % (COUNT, ", ".join(["%s %d" % (k, counts[k]) for k in OUTCOMES]),
                             counts["repaired"]))
