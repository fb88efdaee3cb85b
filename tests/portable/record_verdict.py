"""The verdict of the engine's one record reader on some bytes, as one line of text, and a
batch runner: `micropython tests/portable/record_verdict.py BATCH` prints the verdict of every
hex-encoded input line of BATCH, one line each. Used by the record fuzz test to check that
CPython and MicroPython judge the same bytes the same way."""
import io
import sys

if __name__ == "__main__":   # run as a script: the engine is beside the tests
    _here = __file__[:__file__.rfind("/")] if "/" in __file__ else "."
    sys.path.insert(0, _here + "/../../firmware/lib")

from tycoon import notation
from tycoon.writer import to_json


def verdict(data):
    """'line kind message | bytes kept, tagged, undos, lines repaired by their tags, state'
    ('-' for no error). Only the reader's own errors are caught: anything else escapes."""
    game, error, reader = notation.read(io.BytesIO(data))
    if error is None:
        head = "-"
    else:
        head = "%d %s %s" % error
    return "%s | %d %s %d R%s %s" % (head, reader.size, reader.tagged, reader.undos,
                                     ",".join([str(n) for n in reader.repaired]), to_json(game))


def main(path):
    import binascii
    crashes = 0
    with open(path, "rb") as f:
        for line in f:
            data = binascii.unhexlify(line.strip())
            try:
                print(verdict(data))
            except Exception as exc:   # the fuzz test fails on any of these
                crashes += 1
                print("CRASH %s %s" % (type(exc).__name__, exc))
    return crashes


if __name__ == "__main__":
    main(sys.argv[1])
