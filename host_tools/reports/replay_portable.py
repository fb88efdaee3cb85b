"""Replay game records and print the outcome: the body of `matchbox replay`.

Portable on purpose: CPython imports it, and `--runtime micropython` runs this very file
under the MicroPython unix port (with firmware/lib on its path), so both print the same bytes.
"""
import sys

from tycoon import notation, writer
from tycoon.cards import char

# A record's exit status by the kind of its error (none, an illegal action, not notation): the
# one table every command that judges a record uses.
STATUS = {None: 0, "illegal": 1, "syntax": 2}
REPAIRED = "repaired: a damaged line, read as the one action its checksum tag allows"


def status(error):
    """The exit status for a record with this error ((line, kind, code) or None)."""
    return STATUS[error[1] if error else None]


def located(path, error):
    """`path:line: kind: code`: where a record stops and why, as every command says it."""
    return "%s:%d: %s: %s" % (path, error[0], error[1], error[2])


def summary(game):
    """A readable picture of the state: turn, table, strength, every seat."""
    lines = []
    if game.finished:
        lines.append("Finished")
    else:
        lines.append("Turn: seat %d%s" % (game.turn, " (must return a stick)" if game.must_return() else ""))
    table = game.table
    if table is None:
        lines.append("Table: empty")
    else:
        lines.append("Table: %d x %s by seat %d, %d stick%s on it" % (
            table[1], char(table[0]), table[2], table[3], "" if table[3] == 1 else "s"))
    if game.revolution:
        lines.append("Strength: revolution, 0 strongest")
    else:
        lines.append("Strength: normal, %s strongest" % char(game.strongest()))
    lines.append("Supply: %d" % game.supply())
    lines.append("Seat  Cards  Sticks  Rank")
    for i in range(game.players):
        mark = ">" if game.turn == i + 1 else " "
        rank = str(game.ranks[i]) if game.ranks[i] else "-"
        lines.append("%s%3d  %5d  %6d  %4s" % (mark, i + 1, game.cards[i], game.sticks[i], rank))
    if game.ranking:
        lines.append("Ranking: " + ", ".join([str(s) for s in game.ranking]))
    return "\n".join(lines)


def _json_string(text):
    out = ['"']
    for ch in text:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def replay(path, f=None, repaired=None):
    """(game, error) for one record file, read from its bytes by the engine's one reader
    (tycoon.notation.read): error as notation.load gives it, line 0 when the file cannot be
    opened or read. When a record breaks before its first action on a line that is not a
    header line, the game is the one its header sets up (None only when the header itself is
    bad). Undo lines (the box's journal) are played out. `f`: the record's bytes as an open
    file instead of path's; path '-' is stdin (whose size `matchbox replay` bounds). The
    numbers of the lines repaired by their checksum tags are added to the list `repaired`,
    when one is given."""
    if f is None and path == "-":
        f = sys.stdin.buffer
    if f is not None:
        return replay_file(f, repaired)
    try:
        f = open(path, "rb")
    except OSError:
        return None, (0, "syntax", "cannot open file")
    try:
        return replay_file(f, repaired)
    except OSError:   # a directory, or a read error
        return None, (0, "syntax", "cannot read file")
    finally:
        f.close()


def replay_file(f, repaired=None, reader=None):
    """replay() of a file object opened 'rb' (or anything with readline(n)); `reader`: the
    notation.Reader to read with (a caller that goes on reading later keeps it)."""
    if reader is None:
        reader = notation.Reader()
    error = reader.read(f)
    if repaired is not None:
        repaired.extend(reader.repaired)
    game = reader.game
    if error is not None and game is None and reader.kind != "header":
        try:
            game = reader.finish()
        except notation.NotationError:
            pass
    return game, error


def plain(f, repaired=None):
    """(text, error) for a record in a file object opened 'rb': the plain game record -
    header and actions in canonical notation, no checksum tags, undo lines played out - or
    None when the record has a problem (error says where, as replay gives it). `repaired`
    as for replay."""
    game, error = replay_file(f, repaired)
    if error is not None or game is None:
        return None, error
    return notation.write(game), None


def report(path, as_json, out, err, f=None):
    """Replay one file (or `f`, named path) and write its report. Returns the exit status for
    it (0, 1 or 2)."""
    repaired = []
    game, error = replay(path, f, repaired)
    for number in repaired:
        err.write("%s:%d: %s\n" % (path, number, REPAIRED))
    if as_json:
        if error is None:
            error_json = "null"
        else:
            error_json = '{"line": %d, "kind": "%s", "code": %s}' % (
                error[0], error[1], _json_string(error[2]))
        out.write('{"file": %s, "error": %s, "state": %s}\n' % (
            _json_string(path), error_json, writer.to_json(game)))
    else:
        if error is not None:
            err.write(located(path, error) + "\n")
        if game is not None:
            out.write("%s: %d players, %d actions\n%s\n" % (path, game.players, len(game), summary(game)))
    return status(error)


def _after(data, first):
    """(line number, status, text) of each line of data from line `first` on: status 'ok'
    (its checksum tag checks out at its line number and it parses), 'untagged' (it parses,
    but has no tag to prove it), 'damaged' (anything else: a failed or damaged tag, not
    notation, not UTF-8, too long, or a last line without its newline after a tagged line:
    the reader's rule, a record with no tag being one typed by hand)."""
    lines = data.split(b"\n")
    torn = lines.pop()   # after the last newline: b"" unless the last line is cut short
    if torn:
        lines.append(torn)
        torn = _tag_before(lines)
    out = []
    for i in range(first - 1, len(lines)):
        raw = lines[i]
        number = i + 1
        status = "damaged"
        text = raw.decode("utf-8", "replace")
        whole = not torn or number < len(lines)
        if raw[-1:] == b"\r":   # CRLF, as the reader takes it
            raw = raw[:-1]
        if whole and len(raw) < notation.LIMIT and notation.utf8(raw, len(raw)):
            try:
                body, tagged = notation.untag(raw.decode(), number)
                notation.parse_line(body)
                status = "ok" if tagged else "untagged"
                text = body
            except notation.NotationError:
                pass
        out.append((number, status, text))
    return out


def _tag_before(lines):
    """Whether a line before the last has a checksum tag that checks out."""
    for number in range(1, len(lines)):
        raw = lines[number - 1].rstrip(b"\r")
        if b"#~" in raw and notation.utf8(raw, len(raw)):
            try:
                if notation.untag(raw.decode(), number)[1]:
                    return True
            except notation.NotationError:
                pass
    return False


def _printable(text):
    out = []
    for ch in text:
        out.append(ch if " " <= ch <= "~" or ord(ch) > 0x9F else "\\x%02x" % ord(ch))
    return "".join(out)


def salvage(path, out, err, f=None):
    """`replay --salvage`: what a damaged record still proves - the state of its good lines
    and, line by line, what comes after the damage. `f` as for report. Returns 0 (the record
    is whole), 1 (it is damaged; its good lines make a game) or 2 (no game in it, or it
    cannot be read)."""
    try:
        if f is None and path == "-":
            f = sys.stdin.buffer
        if f is not None:
            data = f.read()
        else:
            f = open(path, "rb")
            try:
                data = f.read()
            finally:
                f.close()
    except OSError:
        err.write("%s:0: syntax: cannot read file\n" % path)
        return 2
    import io
    repaired = []
    game, error = replay_file(io.BytesIO(data), repaired)
    for number in repaired:
        out.write("%s:%d: %s\n" % (path, number, REPAIRED))
    if error is None:
        out.write("%s: %s (%d actions)\n%s\n" % (
            path, "every line is good or repaired" if repaired else "no damage: every line is good",
            len(game), summary(game)))
        return 0
    err.write("%s:%d: %s: %s\n" % (path, error[0], error[1], error[2]))
    if game is None:
        out.write("%s: no game: the lines before line %d do not make a usable header\n" % (
            path, error[0]))
    else:
        out.write("%s: the last good state, from lines 1-%d (%d action%s):\n%s\n" % (
            path, error[0] - 1, len(game), "" if len(game) == 1 else "s", summary(game)))
    after = _after(data, error[0])
    ok = len([1 for _n, status, _t in after if status == "ok"])
    out.write("%s: from line %d on (ok: its checksum tag checks out; untagged: notation, "
              "nothing proves it; damaged):\n" % (path, error[0]))
    for number, status, text in after:
        out.write("%6d  %-8s  %s\n" % (number, status, _printable(text)))
    out.write("%s: %d of %d lines from line %d on check out\n" % (path, ok, len(after), error[0]))
    return 1 if game is not None else 2


def main(argv):
    as_json = "--json" in argv
    salvaging = "--salvage" in argv
    paths = [a for a in argv if a not in ("--json", "--salvage")]
    worst = 0
    for path in paths:
        if salvaging:
            status = salvage(path, sys.stdout, sys.stderr)
        else:
            status = report(path, as_json, sys.stdout, sys.stderr)
        worst = max(worst, status)
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
