"""Self-test that runs on the box: engine, display driver, journal on the flash, pin map, I2C.

`run(hw)` prints one line per check (`ok   NAME: detail` or `FAIL NAME: why`), then
`selftest: N passed, N failed`, and returns the number of failed checks. The journal check
works in `games/.selftest` and removes it again; it never touches the game in progress or the
archive. The I2C scan runs only when a board object `hw` is given.
"""
import os

from box import pincheck, pins
from box.ht16k33 import HT16K33
from box.journal import Journal
from box.journal import Store
from tycoon import cards, writer
from tycoon.game import REVOLUTION, Game, IllegalAction

_STORE = Store()

FOLDER = ".selftest"


class Failed(Exception):
    pass


def need(ok, why):
    if not ok:
        raise Failed(why)


def engine(hw):
    need(cards.cost(3, 9) == 1 and cards.cost(7, 3) == 2 and cards.cost(2, 15) is None,
         "card costs are wrong")
    g = Game(4)
    g.play([3], 9)
    need(g.sticks[0] == 0 and g.table == (9, 1, 1, 1) and g.turn == 2, "3 as 9 did not cost 1 stick")
    before = writer.to_json(g)
    try:
        g.play([8])
        need(False, "8 on 9 was accepted")
    except IllegalAction as e:
        need(e.code == "not-stronger", "8 on 9 gave " + e.code)
    need(writer.to_json(g) == before, "an illegal play changed the game")
    g = Game(2)
    need(g.play([8, 8, 8, 8, 0], 8) & REVOLUTION and g.revolution and g.strongest() == 0,
         "five cards made no revolution")
    return "costs, a play, an illegal play, a revolution"


class _Bus:
    """An I2C bus that records writes."""

    def __init__(self):
        self.log = []

    def writeto(self, addr, buf):
        self.log.append((addr, bytes(buf)))
        return len(buf)


def display(hw):
    bus = _Bus()
    d = HT16K33(bus, 0x70)
    need(d.online and bus.log, "no init sequence")
    bus.log = []
    d.raw(1, 0x06)
    d.show()
    need(bus.log == [(0x70, b"\x02\x06")], "wrote %r for one digit" % bus.log)
    bus.log = []
    d.show()
    need(not bus.log, "rewrote unchanged bytes")
    d.raw(0, 0x3F)
    d.raw(3, 0x5B)
    d.show()
    need(bus.log == [(0x70, b"\x00\x3f"), (0x70, b"\x08\x5b")], "wrote %r for two digits" % bus.log)
    return "only changed bytes are written"


def journal(hw):
    base = getattr(hw, "games", "games")
    root = base + "/" + FOLDER
    made = not _STORE.exists(base)
    if made:
        os.mkdir(base)
    if _STORE.exists(root):
        _STORE.remove_tree(root)
    try:
        g = Game(3)
        j = Journal(root)
        j.start(g)
        g.play([5])
        j.append(g)
        g.pass_turn()
        j.append(g)
        back, dropped = Journal(root).resume()
        need(back is not None and not dropped, "the game did not resume")
        need(writer.to_json(back) == writer.to_json(g), "the resumed game differs")
    finally:
        if _STORE.exists(root):
            _STORE.remove_tree(root)
        if made:
            os.rmdir(base)
    need(not _STORE.exists(root), "could not remove " + root)
    return "wrote, resumed and removed a game in " + root


def pinmap(hw):
    try:
        m = pins.load()
    except OSError:
        raise Failed("no pinmap.json on the board")
    except ValueError:
        raise Failed("pinmap.json is not valid JSON")
    bad = pincheck.problems(m)
    need(not bad, "; ".join(bad))
    return "%d displays, %d buttons, no problems" % (len(pins.addresses(m)), len(m["buttons"]))


def i2c(hw):
    found = hw.i2c.scan()
    wanted = pins.addresses(pins.load())
    missing = [a for a in wanted if a not in found]
    need(not missing, "no answer from " + " ".join(["0x%02x" % a for a in missing]))
    return "displays at " + " ".join(["0x%02x" % a for a in wanted]) + " answer"


def run(hw=None):
    """Run every check (the I2C scan only with hw); returns the number that failed."""
    checks = [("engine", engine), ("display", display), ("journal", journal), ("pinmap", pinmap)]
    if hw is not None:
        checks.append(("i2c", i2c))
    passed = failed = 0
    for name, check in checks:
        try:
            detail = check(hw)
            passed += 1
            print("ok   %s: %s" % (name, detail))
        except Exception as e:  # any failure is a result, the next check still runs
            failed += 1
            print("FAIL %s: %s" % (name, e if isinstance(e, Failed) else "%s %s" % (type(e).__name__, e)))
    print("selftest: %d passed, %d failed" % (passed, failed))
    return failed
