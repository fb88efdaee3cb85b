"""The box's self-test (box.selftest) in a temp folder laid out like the board; CPython and MicroPython."""
import json
import os

import files
from box import pins, selftest


def _pinmap():
    here = pins.__file__
    with open(here[:here.rfind("/lib/box/")] + "/pinmap.json") as f:
        return json.load(f)


class SelftestBox(files.Folder):
    """A temp folder as the board's filesystem root (pinmap.json in it), made the working
    directory; run() captures what the self-test prints."""

    def __init__(self, pinmap=None):
        self.pinmap = pinmap or _pinmap()

    def __enter__(self):
        files.Folder.__enter__(self)
        files.write(self.path + "/pinmap.json", json.dumps(self.pinmap).encode())
        self.back = os.getcwd()
        os.chdir(self.path)
        return self

    def __exit__(self, *exc):
        os.chdir(self.back)
        files.Folder.__exit__(self)

    def run(self, hw=None):
        out = []

        def capture(*args):
            out.append(" ".join([str(a) for a in args]))

        selftest.print = capture
        try:
            failed = selftest.run(hw)
        finally:
            del selftest.print
        return failed, out


class Bus:
    def __init__(self, found):
        self.found = found

    def scan(self):
        return list(self.found)


class Hw:
    def __init__(self, found):
        self.i2c = Bus(found)
        self.games = "games"


def _lines(out, word):
    return [line for line in out if line.split(" ")[0] == word]


def test_everything_passes_on_a_sound_board():
    with SelftestBox() as b:
        failed, out = b.run()
        assert failed == 0, out
        assert out[-1] == "selftest: 4 passed, 0 failed", out
        names = [line.split()[1] for line in out[:-1]]
        assert names == ["engine:", "display:", "journal:", "pinmap:"], out
        assert len(_lines(out, "ok")) == 4
        assert os.listdir(".") == ["pinmap.json"]  # games/ was made for the check and removed


def test_journal_check_leaves_the_real_games_alone():
    with SelftestBox() as b:
        os.mkdir("games")
        os.mkdir("games/archive")
        current = b"players 4\n1: play 5  #~0000\n"
        archived = b"players 2\n"
        files.write("games/current.txt", current)
        files.write("games/archive/game-001.txt", archived)
        os.mkdir("games/.selftest")  # left over from an interrupted run
        files.write("games/.selftest/current.txt", b"garbage\n")
        failed, out = b.run()
        assert failed == 0, out
        assert sorted(os.listdir("games")) == ["archive", "current.txt"]
        assert files.read("games/current.txt") == current
        assert os.listdir("games/archive") == ["game-001.txt"]
        assert files.read("games/archive/game-001.txt") == archived


def test_a_bad_pin_map_fails_with_its_problem_and_the_rest_still_runs():
    m = _pinmap()
    m["buttons"][0]["gpio"] = m["buttons"][1]["gpio"]
    with SelftestBox(m) as b:
        failed, out = b.run()
        assert failed == 1, out
        bad = _lines(out, "FAIL")
        assert len(bad) == 1 and bad[0].startswith("FAIL pinmap: GP"), out
        assert "used by both" in bad[0], out
        assert out[-1] == "selftest: 3 passed, 1 failed"


def test_a_missing_pin_map_fails():
    with SelftestBox() as b:
        os.remove("pinmap.json")
        failed, out = b.run()
        assert failed == 1, out
        assert _lines(out, "FAIL") == ["FAIL pinmap: no pinmap.json on the board"], out
        files.write("pinmap.json", b"{not json")
        failed, out = b.run()
        assert _lines(out, "FAIL") == ["FAIL pinmap: pinmap.json is not valid JSON"], out


def test_i2c_scan_names_the_missing_display():
    addrs = pins.addresses(_pinmap())
    with SelftestBox() as b:
        failed, out = b.run(Hw(addrs))
        assert failed == 0, out
        assert out[-2].startswith("ok   i2c: displays at 0x70"), out
        assert out[-1] == "selftest: 5 passed, 0 failed"
        failed, out = b.run(Hw(addrs[:2] + [0x3C]))
        assert failed == 1, out
        want = "FAIL i2c: no answer from " + " ".join(["0x%02x" % a for a in addrs[2:]])
        assert _lines(out, "FAIL") == [want], out


def test_a_broken_engine_is_reported():
    class Cards:
        @staticmethod
        def cost(face, value):
            return 0

    real = selftest.cards
    selftest.cards = Cards
    try:
        with SelftestBox() as b:
            failed, out = b.run()
    finally:
        selftest.cards = real
    assert failed == 1, out
    assert _lines(out, "FAIL") == ["FAIL engine: card costs are wrong"], out


def test_a_display_driver_that_rewrites_everything_is_reported():
    real = selftest.HT16K33

    class Chatty(real):
        def show(self):
            for i in range(16):
                self._chip[i] = self.ram[i] ^ 1  # forget what the chip holds
            return real.show(self)

    selftest.HT16K33 = Chatty
    try:
        with SelftestBox() as b:
            failed, out = b.run()
    finally:
        selftest.HT16K33 = real
    assert failed == 1, out
    assert _lines(out, "FAIL")[0].startswith("FAIL display: wrote"), out
