"""Records typed by hand, as people write them, put on the box and played on: one session of
the property test over them (tests/test_typed_records.py), alike on CPython and MicroPython.

`record(rng, ...)` types a random legal game: header lines present or left to their defaults,
in any order, comments, blank lines, trailing spaces and tabs, CRLF, a last line with no
newline, upper and lower case, seat prefixes or none, undo lines, a byte-order mark.
`session(params)` puts it on the box's flash, powers up (cut at a random flash step, or not),
plays random legal actions and UNDOs on it through the journal as the app does (cut at a
random flash step, or not), then powers up twice more: every resumed game must be the engine's
own game of what was typed and played (the last confirmed action, or the one being written
when the power went), nothing is set aside as damaged, and the record on flash is the box's
own (every line tagged). It raises AssertionError otherwise and returns a line of counts.

    micropython tests/portable/typed_records.py BATCH   # one session a line of BATCH
"""
import io
import os
import sys

if __name__ == "__main__":   # run as a script: the engine is beside the tests
    _here = __file__[:__file__.rfind("/")] if "/" in __file__ else "."
    sys.path.insert(0, _here + "/../../firmware/lib")
    sys.path.insert(0, _here)

import engine_helpers as eh
import files
from box.journal import Journal
from cut_store import CutStore
from tycoon import notation
from tycoon.game import Game, pack_game
from tycoon.writer import HEADERS, action_text

# the parameters of a session, in the order of a batch line
PARAMS = ("seed", "actions", "fields", "comments", "blanks", "crlf", "trailing", "newline",
          "case", "seats", "undos", "bom", "plays", "undo_chance", "cut1", "cut2", "every")
COMMENTS = ("# begun on paper, continued at the box", "# table 3, Tuesday",
            "# seat 2 disputed this one", "#", "# r\xe9sum\xe9: \xfcber 3 \u2192 4")


def _case(text, case, rng):
    if case == 1 or case == 2 and rng.below(3) == 0:
        return text.upper()
    if case == 2 and rng.below(2):
        return text[:1].upper() + text[1:]
    return text


def record(rng, actions, fields, comments, blanks, crlf, trailing, newline, case, seats,
           undos, bom):
    """(bytes of a typed record, the engine's game of it): a random setup, the header fields
    in `fields` (a bit each for dealer, expansion, revolution, sticks, hands; players always)
    written and the rest left to their defaults, then up to `actions` random legal actions
    (undo lines among them, `undos` in ten); the other arguments choose how it is typed."""
    setup = eh.random_setup(rng)
    given = {"players": setup[0]}
    for i in range(1, 6):
        if fields >> (i - 1) & 1:
            given[HEADERS[i]] = setup[i]
    try:
        game = Game(**given)
    except ValueError:   # the fields left out do not go with the rest: all of them then
        given = {}
        for i in range(6):
            given[HEADERS[i]] = setup[i]
        game = Game(**given)
    texts = []
    keys = [key for key in HEADERS if key in given]
    while keys:   # any order
        key = keys.pop(rng.below(len(keys)))
        value = given[key]
        texts.append("%s %s" % (key, " ".join([str(n) for n in value])
                                if key == "hands" else value))
    for _ in range(actions):
        if game.finished:
            break
        if len(game) and rng.below(10) < undos:
            game.undo()
            texts.append("undo")
            continue
        eh.step(game, rng)
        text = action_text(*game.last_action())[:-1]
        if seats == 0 or seats == 2 and rng.below(2):
            text = text[3:]
        texts.append(text)
    lines = []
    for text in texts:
        if comments and rng.below(4) < comments:
            lines.append(COMMENTS[rng.below(len(COMMENTS))])
        if blanks and rng.below(4) == 0:
            lines.append(("", "   ", "\t")[rng.below(3)])
        text = _case(text, case, rng)
        if comments and rng.below(6) < comments:
            text += "  " + COMMENTS[rng.below(len(COMMENTS))]
        if trailing and rng.below(2):
            text += (" ", "   ", "\t", " \t ")[rng.below(4)]
        lines.append(text)
    out = []
    for text in lines:
        end = "\r\n" if crlf == 1 or crlf == 2 and rng.below(2) else "\n"
        out.append(text + end)
    if not newline:
        out[-1] = out[-1].rstrip("\r\n")
    data = "".join(out).encode()
    return (b"\xef\xbb\xbf" + data if bom else data), game


def _same(a, b, what):
    # the same state and the same actions (the engine's undo snapshots in between may differ:
    # a record with its undo lines played out replays without the ones they left)
    assert a is not None and b is not None, what
    assert eh.snapshot(a) == eh.snapshot(b), what
    assert notation.write(a) == notation.write(b), what


def _power_up(games, budget, every=None, torn=0):
    """(journal, game) of a power-up, the store cut after `budget` units (None: never);
    None when the power went during it. `torn`: a line the power cut short may be dropped."""
    store = CutStore(budget)
    journal = Journal(games, store=store)
    if every is not None:
        journal.snap_every = every
    game, dropped = journal.resume()
    if store.dead:
        return None
    assert dropped <= torn and journal.lost == 0 and journal.repaired == 0, dropped
    return journal, game


def _clean(games):
    # nothing set aside: no damaged/ folder, no broken.txt
    names = os.listdir(games)
    assert "damaged" not in names and "broken.txt" not in names, names


def session(params):
    """One record typed, taken, played on and powered off and on (module docstring).
    Returns 'cuts C1 C2 typed N played M': whether each cut struck, the actions typed and
    the actions and undos confirmed."""
    p = dict(zip(PARAMS, params))
    rng = eh.Lcg(p["seed"])
    data, typed = record(rng, p["actions"], p["fields"], p["comments"], p["blanks"],
                         p["crlf"], p["trailing"], p["newline"], p["case"], p["seats"],
                         p["undos"], p["bom"])
    truth = notation.unpack(pack_game(typed))   # the engine's game, played on beside the box
    with files.Folder() as d:
        games = d.path + "/games"
        os.mkdir(games)
        files.write(games + "/current.txt", data)
        # the first power-up takes the record (the power may go while it does)
        cut1 = p["cut1"] if p["cut1"] >= 0 else None
        first = _power_up(games, cut1)
        if first is not None:
            _same(first[1], typed, "first power-up")
        # the next one plays on it; the power may go at any step of it
        cut2 = p["cut2"] if p["cut2"] >= 0 else None
        up = _power_up(games, cut2, p["every"])
        struck2 = up is None
        if up is None:
            up = _power_up(games, None, p["every"])
        journal, game = up
        _same(game, typed, "power-up after the first")
        confirmed = pending = notation.unpack(pack_game(truth))   # copies: truth plays on
        played = 0
        for _ in range(p["plays"]):
            if game.finished:
                break
            try:
                if len(game) and rng.below(100) < p["undo_chance"]:
                    last = game.last_action()
                    game.undo()
                    truth.undo()
                    pending = notation.unpack(pack_game(truth))
                    journal.undo(game, last)
                else:
                    action = eh.choose(game, rng)
                    eh.apply(game, action)
                    eh.apply(truth, action)
                    pending = notation.unpack(pack_game(truth))
                    journal.append(game)
            except OSError:
                struck2 = True
                break
            journal.checkpoint(game)
            confirmed = pending
            played += 1
            _same(game, truth, "played")
        # power off and on, twice: the last confirmed game, or the one being written
        back = _power_up(games, None, torn=struck2)[1]
        if eh.snapshot(back) != eh.snapshot(confirmed):
            _same(back, pending, "resumed after the cut")
        else:
            _same(back, confirmed, "resumed")
        _same(_power_up(games, None)[1], back, "resumed again")
        _clean(games)
        # the record on flash is the box's own: tagged from its first line, replayed alike
        replayed, error, reader = notation.read(io.BytesIO(files.read(games + "/current.txt")))
        assert error is None and reader.tagged == 1, error
        _same(replayed, back, "replayed")
    return "cuts %d %d typed %d played %d" % (first is None, struck2, len(typed), played)


def main(path):
    failures = 0
    with open(path) as f:
        for line in f:
            params = tuple([int(x) for x in line.split()])
            try:
                print(session(params))
            except Exception as exc:   # the test fails on any of these
                failures += 1
                print("FAIL %s %s: %s" % (line.strip(), type(exc).__name__, exc))
    return failures


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1]) else 0)
