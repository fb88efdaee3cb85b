"""Generated inputs for the one record reader (tycoon.notation): random bytes, mutations of
real records (the example games and box journals with checksum tags and undo lines), long
lines and numbers, Unicode spaces, byte-order marks, CRLF, NUL, invalid UTF-8 and torn ends.

`check(count, seed)` judges every input under CPython in this process and under the
MicroPython unix port in one subprocess over a batch file, and returns the counts; the test
in `make test` runs a bounded number, `make soak-records` many more:

    python tests/record_fuzz.py 100000 [SEED]
"""
import binascii
import glob
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "firmware", "lib"), os.path.join(ROOT, "tests", "portable")]

from record_verdict import verdict  # noqa: E402
from tycoon import notation  # noqa: E402
from tycoon.game import Game, IllegalAction  # noqa: E402

SPACES = ["\u00a0", "\u3000", "\u2028", "\u2029", "\u0085", "\ufeff", "\u200b", "\u2009",
          "\x0b", "\x0c", "\x1c", "\x1f", "\t", "\r", "\x00"]
BAD_UTF8 = [b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf4\x90\x80\x80",
            b"\xf5\x80\x80\x80", b"\xff", b"\xfe", b"\x80", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98",
            b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80"]   # the last three are valid
KINDS = ("random", "mutation", "long-line", "long-number", "unicode-space", "bom", "crlf",
         "nul", "bad-utf8", "torn", "text-damage", "text-rewrite")


def _journal(rng):
    """A box journal: tagged header and actions, some undo lines."""
    players = rng.randrange(2, 9)
    game = Game(players, dealer=rng.randrange(1, players + 1),
                expansion=rng.choice(("none", "gh2", "gh4")), revolution=rng.choice((4, 5)))
    lines = notation.header_text(game).split("\n")[:-1]
    for _ in range(rng.randrange(0, 60)):
        if game.finished:
            break
        if len(game) and rng.random() < 0.1:
            game.undo()
            lines.append("undo")
            continue
        moves = [(2 if game.must_return() else 1, (), None)]
        for face in range(game.values):
            try:
                game.check_play([face])
                moves.append((0, (face,), None))
            except IllegalAction:
                pass
        kind, faces, value = rng.choice(moves)
        try:
            game.apply(kind, faces, value)
        except IllegalAction:
            continue
        lines.append(notation.action_text(*game.last_action())[:-1])
    return b"".join([notation.tagged(i + 1, t) for i, t in enumerate(lines)])


def bases():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "games", "*.txt")) +
                       [os.path.join(ROOT, "docs", "examples", "sample-game.txt")]):
        with open(path, "rb") as f:
            out.append(f.read())
    return out


def _mutate(rng, data, n):
    data = bytearray(data)
    for _ in range(n):
        at = rng.randrange(len(data) + 1)
        op = rng.randrange(3)
        if op == 0 and at < len(data):
            data[at] = rng.randrange(256)
        elif op == 1:
            data[at:at] = bytes([rng.choice((rng.randrange(256), 10, 32, 35, 58, 126))])
        elif at < len(data):
            del data[at]
    return bytes(data)


def generate(rng, kind, real):
    base = real[rng.randrange(len(real))] if rng.random() < 0.5 else _journal(rng)
    if kind == "random":
        n = rng.randrange(0, 400)
        alphabet = b"players dealer hands 0123456789 play pass return undo as #~:\n\r\t"
        if rng.random() < 0.5:
            return bytes([rng.randrange(256) for _ in range(n)])
        return bytes([rng.choice(alphabet) for _ in range(n)])
    if kind == "mutation":
        return _mutate(rng, base, rng.randrange(1, 6))
    if kind == "text-damage":   # one byte of one tagged line's text: what its tag may repair
        base = _journal(rng)
        lines = base.split(b"\n")
        at = rng.randrange(6, len(lines)) if len(lines) > 7 else len(lines) - 2
        line = bytearray(lines[at])
        tag = line.find(b"  #~")
        if tag > 0:
            line[rng.randrange(tag)] = rng.choice((rng.randrange(32, 127), rng.randrange(256)))
        lines[at] = bytes(line)
        return b"\n".join(lines)
    if kind == "text-rewrite":   # one tagged line's text rewritten, cut or grown: its tag whole
        base = _journal(rng)
        lines = base.split(b"\n")
        at = rng.randrange(6, len(lines)) if len(lines) > 7 else len(lines) - 2
        tag = lines[at].find(b"  #~")
        if tag >= 0:
            text = bytearray(lines[at][:tag])
            op = rng.randrange(4)
            if op == 0 and text:       # several bytes
                for _ in range(rng.randrange(2, 6)):
                    text[rng.randrange(len(text))] = rng.randrange(32, 127)
            elif op == 1:              # cut short
                text = text[:rng.randrange(len(text) + 1)]
            elif op == 2:              # bytes put in
                i = rng.randrange(len(text) + 1)
                text[i:i] = bytes([rng.randrange(32, 127) for _ in range(rng.randrange(1, 4))])
            else:                      # another legal-looking text altogether
                text = bytearray(rng.choice((b"1: pass", b"2: play 7", b"undo", b"3: play 5 5 as 8")))
            lines[at] = bytes(text) + lines[at][tag:]
        if rng.random() < 0.3 and at + 3 < len(lines):   # and a line after it
            lines[at + rng.randrange(1, 4)] = _mutate(rng, lines[at + 1], 1)
        return b"\n".join(lines)
    lines = base.split(b"\n")
    at = rng.randrange(len(lines))
    if kind == "long-line":
        size = rng.choice((197, 198, 199, 200, 201, rng.randrange(100, 5000)))
        fill = bytes([rng.choice(b"# abcXYZ09\xc3\xa9") for _ in range(size)])
        lines.insert(at, fill if rng.random() < 0.5 else b"# " + fill)
    elif kind == "long-number":
        digits = rng.choice((4, 5, 6, 20, 4301, rng.randrange(1, 9000)))
        number = str(rng.randrange(1, 10)).encode() + b"0" * (digits - 1)
        lines.insert(at, rng.choice((b"sticks ", b"players ", b"hands 4 ", b"", b"1: play ")) + number
                     + (b":" if rng.random() < 0.2 else b""))
    elif kind == "unicode-space":
        text = lines[at].decode("utf-8", "replace")
        for _ in range(rng.randrange(1, 3)):
            if " " in text and rng.random() < 0.7:
                i = text.index(" ")
                text = text[:i] + rng.choice(SPACES) + text[i + 1:]
            else:
                i = rng.randrange(len(text) + 1)
                text = text[:i] + rng.choice(SPACES) + text[i:]
        lines[at] = text.encode()
    elif kind == "bom":
        lines[0] = b"\xef\xbb\xbf" + lines[0]
        if rng.random() < 0.3:
            lines[at] = b"\xef\xbb\xbf" + lines[at]
    elif kind == "crlf":
        sep = rng.choice((b"\r\n", b"\r", b"\n\r"))
        return b"\n".join(lines).replace(b"\n", sep, rng.choice((1, 3, -1)))
    elif kind == "nul":
        line = bytearray(lines[at])
        for _ in range(rng.randrange(1, 4)):
            line[rng.randrange(len(line) + 1):0] = b"\x00"
        lines[at] = bytes(line)
    elif kind == "bad-utf8":
        line = bytearray(lines[at])
        i = rng.randrange(len(line) + 1)
        line[i:i] = rng.choice(BAD_UTF8)
        lines[at] = bytes(line)
    data = b"\n".join(lines)
    if kind == "torn" or rng.random() < 0.1:
        data = data[:rng.randrange(len(data) + 1)]
    return data


def check(count, seed=1):
    """Judge `count` generated inputs on both runtimes. Returns (counts per kind and per
    outcome, number of differences, first difference or None). Raises on a crash of the CPython reader."""
    rng = random.Random(seed)
    real = bases()
    inputs = []
    counts = {}
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        counts[kind] = counts.get(kind, 0) + 1
        inputs.append((kind, generate(rng, kind, real)))
    here = [verdict(data) for _kind, data in inputs]
    with tempfile.NamedTemporaryFile("wb", suffix=".hex", delete=False) as f:
        for _kind, data in inputs:
            f.write(binascii.hexlify(data) + b"\n")
        batch = f.name
    try:
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        from mpy import micropython
        out = subprocess.run(
            [micropython(), "-X", "heapsize=4M",
             os.path.join(ROOT, "tests", "portable", "record_verdict.py"), batch],
            capture_output=True, timeout=3600, check=False)
    finally:
        os.remove(batch)
    there = out.stdout.decode("utf-8", "replace").split("\n")[:-1]
    assert len(there) == len(here), "micropython stopped: %s" % out.stderr.decode()[-2000:]
    for v in here:
        outcome = "ok" if v.startswith("-") else v.split(" ")[1]
        counts[outcome] = counts.get(outcome, 0) + 1
        if v.split(" | ", 1)[1].split(" ")[3] != "R":   # 'R' and the lines repaired
            counts["repaired"] = counts.get("repaired", 0) + 1
    differ = [i for i in range(len(here)) if here[i] != there[i]]
    first = None
    if differ:
        i = differ[0]
        first = (inputs[i][0], inputs[i][1][:300], here[i], there[i])
    return counts, len(differ), first


OUTCOMES = ("ok", "syntax", "illegal")


def main(argv):
    count = int(argv[0]) if argv else 100000
    seed = int(argv[1]) if len(argv) > 1 else 7
    counts, differ, first = check(count, seed)
    print("records judged on CPython and MicroPython: %d (seed %d)" % (count, seed))
    for kind in KINDS:
        print("  %-14s %d" % (kind, counts.get(kind, 0)))
    print("verdicts: %s; %d with a line repaired by its tag" % (
        ", ".join(["%s %d" % (k, counts.get(k, 0)) for k in OUTCOMES]), counts.get("repaired", 0)))
    print("verdicts that differ: %d" % differ)
    if first:
        print("first difference: %r" % (first,))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
