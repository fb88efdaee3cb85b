"""A round's setup from the hall on the box (box.tablesetup, docs/event.md): shown in the setup
menu for one PLAY, never over a game in progress, not shown again once played, and anything
that is not a setup ignored with one line and nothing changed. Runs on CPython and under the
MicroPython unix port (tests/test_tablesetup_mpy.py)."""
from app_helpers import Journal, make_box, press, screen
from box import app as A
from box import tablesetup

SETUP = (b'{"dealer":2,"event":"5f3a09c1","expansion":2,"players":3,"revolution":4,'
         b'"round":2,"sticks":30,"table":7}')


class Files:
    """An in-memory file store with the journal's store's open()."""

    def __init__(self):
        self.files = {}

    def open(self, path, mode):
        store = self

        class F:
            def __init__(self):
                self.data = bytearray() if "w" in mode else bytearray(store.files[path])

            def read(self, n=-1):
                out = bytes(self.data[:n] if n >= 0 else self.data)
                self.data = self.data[len(out):]
                return out

            def write(self, data):
                self.data += data

            def close(self):
                if "w" in mode:
                    store.files[path] = bytes(self.data)
        if "r" in mode and path not in self.files:
            raise OSError(2)
        return F()


class HallJournal(Journal):
    """app_helpers' journal with the folder and writes tablesetup uses."""

    def __init__(self, record=None):
        Journal.__init__(self, record)
        self.root = "games"
        self.store = Files()
        self.fail_setup = False

    def _ensure(self, path):
        pass

    def _atomic(self, path, parts):
        if self.fail_setup:
            raise OSError(28)
        f = self.store.open(path, "wb")
        for part in parts:
            f.write(part)
        f.close()


def show(app, msg):
    """The link's call between keys, then a pass of the main loop (the displays sent)."""
    tablesetup.show(app, msg)
    app.step()


def box(record=None):
    app, bus, clock, _ = make_box(4, record)
    journal = HallJournal(record)
    app.journal = journal
    said = []
    app.emit = said.append
    return app, bus, journal, said


def test_a_setup_opens_the_menu_for_one_play():
    app, bus, journal, said = box()
    show(app, SETUP)
    assert app.view.mode == A.SETUP
    assert screen(app, bus).startswith("t  7|5Et")
    press(app, "PLAY")
    game = app.game
    assert app.view.mode == A.PLAY
    assert (game.players, game.dealer, game.expansion, game.revolution_size,
            game.total_sticks) == (3, 2, "gh2", 4, 30)
    assert journal.store.files["games/hall-setup.txt"] == SETUP
    assert [line for line in said if "hall" in line] == []   # only the new game's state


def test_a_setup_played_is_not_shown_again():
    app, bus, journal, said = box()
    show(app, SETUP)
    press(app, "PLAY")
    before = screen(app, bus)
    show(app, SETUP)   # the broker delivers it again
    assert app.view.mode == A.PLAY and screen(app, bus) == before


def test_del_goes_on_to_the_items_with_the_setups_values():
    app, bus, journal, said = box()
    show(app, SETUP)
    press(app, "5")                       # a digit on the hall's item is refused
    assert screen(app, bus).startswith("t  7")
    press(app, "DEL")
    assert screen(app, bus).startswith("PL 3")
    press(app, "4")                       # the players change it
    press(app, *(["PLAY"] * 9))
    assert app.game.players == 4 and app.game.dealer == 2   # the hall's first leader kept
    assert "games/hall-setup.txt" not in journal.store.files   # not the hall's setup


def test_menu_goes_back_to_a_finished_game_and_the_setup_waits():
    # a finished game: the hall's setup opens the menu over it; MENU goes back to the game,
    # the menu opened again shows the hall's item again
    finished = ("players 4\nhands 2 1 1 1\n1: play 3\n2: play 3 as 9\n3: pass\n"
                "4: play C as E\n1: pass\n3: pass\n1: play 4 as 9\n")
    app, bus, journal, said = box(finished)
    assert app.view.mode == A.FINISHED
    show(app, SETUP)
    assert app.view.mode == A.SETUP
    press(app, "MENU")
    assert app.view.mode == A.FINISHED
    press(app, "MENU")
    assert app.view.mode == A.SETUP and screen(app, bus).startswith("t  7")


def test_bad_setups_are_one_line_and_change_nothing():
    app, bus, journal, said = box()
    before = screen(app, bus)
    bad = [b"not json", b"[1]", SETUP.replace(b'"players":3', b'"players":9'),
           SETUP.replace(b'"dealer":2', b'"dealer":4'),
           SETUP.replace(b'"expansion":2', b'"expansion":3'),
           SETUP.replace(b'"revolution":4', b'"revolution":6'),
           SETUP.replace(b'"sticks":30', b'"sticks":true'),
           SETUP.replace(b'"event":"5f3a09c1"', b'"event":""'),
           SETUP.replace(b'"table":7', b'"table":0'), SETUP + b" " * 200]
    for msg in bad:
        show(app, msg)
    assert len(said) == len(bad)
    assert all(line.startswith('{"hall": "setup: ') and line.endswith(': ignored"}')
               for line in said)
    assert screen(app, bus) == before and app.setup.players == 4
    show(app, b"")   # the hall cleared it: nothing to show, nothing said
    assert len(said) == len(bad) and screen(app, bus) == before


def test_a_setup_that_cannot_be_kept_still_starts_its_game():
    app, bus, journal, said = box()
    journal.fail_setup = True
    show(app, SETUP)
    press(app, "PLAY")
    assert app.game.players == 3 and app.view.mode == A.PLAY
