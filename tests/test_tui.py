"""The interactive `matchbox sim`: its text art and helpers, and the real program driven
through a pseudo-terminal as a person would (keys in, screen out, read with pyte).

The screen tests read the displays back from the screen: every segment of the art has its
cells, and a segment counts as lit when its cells are drawn in the lit colour. The masks
read that way must be what the firmware drew, so the drawing, the colours and the key map
are checked together.
"""
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

import pytest
from box import panels

try:
    import pyte  # a dev dependency: a terminal emulator to read the screen with
except ImportError:
    pyte = None
from box.screens import errors

from host_tools.resources import CHECKOUT as ROOT
from host_tools.virtual import display_text as art
from host_tools.terminal import keyboard, layout, session, words
from host_tools.virtual.ht16k33 import READING, VirtualHT16K33
from host_tools.virtual.board_link import HOLD_MS, LONG_MS

ERRORS = errors()   # the firmware's error texts: code -> bytes

LIT_FG = "ff0000"    # colour 196, the lit segments on a 256-colour terminal
UNLIT_FG = "5f0000"  # colour 52, the faint unlit ones


def reading(masks, colon=False):
    chip = VirtualHT16K33()
    for pos, m in zip((0, 2, 6, 8), masks):
        chip.ram[pos] = m
    chip.ram[4] = 2 if colon else 0
    return chip.text()


def word(text):
    """How a display reads a word the firmware draws left-aligned."""
    return reading([panels.mask(c) for c in text.ljust(4)[:4]])


# --- the text art -----------------------------------------------------------------------------

def test_classic_digits_look_like_the_usual_seven_segment_art():
    eight = art.render([0x7F, 0, 0, 0], width=3, height=3)
    assert eight == [" _", "|_|", "|_|"]
    assert art.render([panels.face(1), 0, 0, 0], width=3, height=3) == ["", "  |", "  |"]
    assert art.render([panels.face(7), 0, 0, 0], width=3, height=3) == [" _", "  |", "  |"]


def test_big_digits_put_each_segment_in_its_place():
    w, h = 4, 7
    for bit, (ys, xs) in enumerate((
            ([0], [1, 2]), ([1, 2], [3]), ([4, 5], [3]), ([6], [1, 2]),
            ([4, 5], [0]), ([1, 2], [0]), ([3], [1, 2]))):
        cells = art.digit_cells(1 << bit, w, h)
        lit = {(y, x) for y in range(h) for x in range(w) if cells[y][x][1] == art.LIT}
        assert lit == {(y, x) for y in ys for x in xs}, "segment %d" % bit
        unlit = {(y, x) for y in range(h) for x in range(w) if cells[y][x][1] == art.UNLIT}
        assert len(unlit) == 3 * 2 + 4 * 2 - len(lit)  # 3 bars and 4 sides, 2 cells each


def test_points_and_colon_have_their_own_columns():
    for w, h in art.SIZES:
        rows = art.panel_cells([0x80, 0x80, 0, 0x80], True, w, h)
        assert all(len(r) == art.panel_width(w) for r in rows)
        lit = [(y, x) for y, r in enumerate(rows) for x, (_, s) in enumerate(r) if s == art.LIT]
        points = [(h - 1, w), (h - 1, 2 * w + 1), (h - 1, 4 * w + 5)]
        colon = [(y, 2 * w + 2) for y in art.colon_rows(h)]
        assert sorted(lit) == sorted(points + colon), (w, h)
        # nothing else is drawn in the columns of the points, the colon and the gap
        point_columns = (w, 2 * w + 1, 3 * w + 4, 4 * w + 5)
        drawn = {(h - 1, x) for x in point_columns} | set(colon)
        for y, r in enumerate(rows):
            for x in point_columns + (2 * w + 2, 2 * w + 3):
                assert (r[x][1] != art.BLANK) == ((y, x) in drawn), (w, h, y, x)


def test_ascii_art_uses_only_ascii():
    for w, h in art.SIZES:
        for line in art.render([0xFF] * 4, True, w, h, ascii=True, unlit=True):
            assert all(ord(c) < 128 for c in line)


def test_bad_digit_sizes_are_refused():
    for w, h in ((2, 5), (3, 4), (3, 2)):
        with pytest.raises(ValueError):
            art.digit_cells(0, w, h)


# --- helpers ----------------------------------------------------------------------------------

def test_keyboard_map():
    import curses
    assert keyboard.action("a") == ("key", "A", HOLD_MS)
    assert keyboard.action("F") == ("key", "F", HOLD_MS)
    assert keyboard.action("g") == ("key", "G", HOLD_MS)
    assert keyboard.action("7") == ("key", "7", HOLD_MS)
    for k in (" ", "\n", "\r", curses.KEY_ENTER):
        assert keyboard.action(k) == ("key", "PLAY", HOLD_MS)
    assert keyboard.action("p") == ("key", "PASS", HOLD_MS)
    assert keyboard.action("s") == keyboard.action("=") == ("key", "AS", HOLD_MS)
    for k in ("\x7f", "\x08", curses.KEY_BACKSPACE):
        assert keyboard.action(k) == ("key", "DEL", HOLD_MS)
    assert keyboard.action(curses.KEY_DC) == ("key", "DEL", LONG_MS)
    assert keyboard.action("u") == ("key", "UNDO", HOLD_MS)
    assert keyboard.action("U") == ("key", "UNDO", HOLD_MS)   # UNDO has no long press
    assert keyboard.action("m") == ("key", "MENU", HOLD_MS)
    assert keyboard.action("M") == ("key", "MENU", LONG_MS)
    assert keyboard.action("q") == keyboard.action("\x03") == ("quit",)
    assert keyboard.action("\x12") == ("power",)
    assert keyboard.action(curses.KEY_F0 + 2) == ("plug", 1)
    assert keyboard.action(curses.KEY_RESIZE) == ("resize",)
    assert keyboard.action("z") is None and keyboard.action("i") is None


def test_every_error_code_has_words():
    assert words.firmware_errors() == {k: v.decode() for k, v in ERRORS.items()}
    assert set(words.ERROR_HELP) == set(ERRORS)
    for code, text in ERRORS.items():
        shown = [word(text.decode()), word("Err"), "", ""]
        assert words.explain(shown, words.firmware_errors()) == "Error %s: %s" % (
            text.decode(), words.ERROR_HELP[code])
    assert words.explain([word("1-5"), word("P2 F")], words.firmware_errors()) == ""


def test_layout_fits_every_terminal():
    assert layout.layout(80, 24, 4) == {"size": (3, 5), "per_row": 4, "keys": "full", "blanks": 4}
    for n in (1, 2, 3, 4):
        for cols in (1, 10, 20, 39, 40, 59, 60, 79, 80, 81, 100, 132, 200):
            for rows in (1, 5, 10, 16, 20, 24, 25, 30, 50):
                lay = layout.layout(cols, rows, n)
                if lay["size"] is None:
                    continue
                w, h = lay["size"]
                lines = -(-n // lay["per_row"])
                width = lay["per_row"] * (art.panel_width(w) + 2) - 1
                keys = layout.KEYMAP_ROWS if lay["keys"] == "full" else len(keyboard.short_keys(cols))
                assert width < cols
                assert 4 + keys + lay["blanks"] + lines * (h + 4) - 1 <= rows
    assert layout.layout(40, 10, 4)["size"] is None
    assert layout.layout(200, 60, 4)["size"] == art.SIZES[0]


def test_status_lines():
    journal = "players 3\ndealer 2\nexpansion gh2\nrevolution 4\nsticks 52\nhands 15 15 15\n"
    game = {"players": 3, "turn": 3, "table": {"value": "9", "count": 2, "seat": 2, "sticks": 1},
            "revolution": True, "strongest": "0", "supply": 47, "finished": False,
            "ranking": [], "seats": [{"seat": s, "cards": 15 - s, "sticks": 1, "rank": None}
                                     for s in (1, 2, 3)]}
    first, second = words.status_lines("play", game, journal + "1: play 9 9  # x\n")
    assert first == "Game  3 players · dealer 2 · G/H 2 each · revolution at 4 · 52 sticks"
    assert second == "Turn  P3 · 12 cards · 1 stick · top 2×9 by P2 · REVOLUTION · supply 47"
    game.update(finished=True, ranking=[2, 3, 1])
    assert "ranking P2 P3 P1" in words.status_lines("finished", game, journal)[1]
    assert words.status_lines("setup", None, "")[0].startswith("Setup")
    for line in words.status_lines("setup", None, ""):
        assert len(line) <= 78


def test_every_status_line_fits_an_80_column_terminal():
    """The longest each line gets: eight seats, two-digit sticks, the G/H expansion, a
    revolution, a negative supply, a full ranking; in every mode."""
    journal = "players 8\ndealer 8\nexpansion gh4\nrevolution 4\nsticks 99\n"
    game = {"players": 8, "turn": 8, "table": {"value": "H", "count": 5, "seat": 7, "sticks": 9},
            "revolution": True, "strongest": "0", "supply": -12, "finished": False, "ranking": [],
            "seats": [{"seat": s, "cards": 15, "sticks": 10, "rank": None} for s in range(1, 9)]}
    lines = []
    for mode in ("setup", "play", "ref"):
        lines += words.status_lines(mode, game, journal)
    game["seats"][7]["cards"] = 0
    lines += words.status_lines("play", game, journal)
    assert words.hint("play", game) == "No cards left: Space (PLAY) returns a stick"
    game.update(finished=True, ranking=list(range(1, 9)))
    lines += words.status_lines("finished", game, journal)
    assert [line for line in lines if len(line) > words.STATUS_WIDTH] == []
    assert words.status_lines("ref", game, journal)[1].startswith("Ref   a face key: 3-9.1")
    assert words.hint("play", dict(game, finished=False, turn=1)) == words.HINTS["play"]


def test_status_lines_show_the_defaults_of_header_lines_a_record_leaves_out():
    game = {"players": 2, "turn": 1, "table": None, "revolution": False, "strongest": "F",
            "supply": 40, "finished": False, "ranking": [],
            "seats": [{"seat": s, "cards": 15, "sticks": 0, "rank": None} for s in (1, 2)]}
    first, _ = words.status_lines("play", game, "players 2  # two\nsticks 30\n1: play 7\n")
    assert first == "Game  2 players · dealer 1 · no G/H cards · revolution at 5 · 30 sticks"


def test_card_in_the_setup_menu_is_explained_as_hands_bigger_than_the_deck():
    errors = words.firmware_errors()
    shown = ["CArd", "Err "]
    assert words.explain(shown, errors, "setup") == \
        "Error CArd: the seats' cards add up to more than the deck holds"
    assert words.explain(shown, errors, "play") == "Error CArd: " + words.ERROR_HELP["no-such-card"]


def test_tones_are_named_from_the_firmware_sequences():
    from box import buzzer
    tones = words.firmware_tones()
    assert words.tone_words(buzzer.REJECT[0][0], tones) == "low tone: refused"
    assert words.tone_words(buzzer.ACCEPT[0][0], tones) == "beep: accepted"
    assert words.tone_words(buzzer.REVOLUTION[2][0], tones) == "fanfare: revolution"
    assert words.tone_words(440, tones) == "tone 440 Hz"


# --- the program in a pseudo-terminal --------------------------------------------------------

class Terminal:
    """`matchbox sim ARGS` in a pseudo-terminal of cols x rows, its screen kept by pyte."""

    def __init__(self, args=(), cols=80, rows=24):
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        env = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
        # the size is the pty's (curses would take COLUMNS and LINES over it, and pytest-xdist
        # workers have them set)
        env.pop("COLUMNS", None)
        env.pop("LINES", None)
        argv = [sys.executable, "-m", "host_tools.cli", "sim"] + list(args)
        pid, fd = pty.fork()
        if pid == 0:  # the child: become the program
            try:
                os.chdir(ROOT)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.status = None
        self.resize(cols, rows)

    def resize(self, cols, rows):
        self.screen.resize(rows, cols)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def pump(self, seconds=0.2):
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    return
                self.stream.feed(data)

    def keys(self, text, pause=0.12):
        """Type each character of text (escape sequences: send them with send())."""
        for ch in text:
            self.send(ch, pause)

    def send(self, data, pause=0.12):
        os.write(self.fd, data.encode())
        self.pump(pause)

    def text(self):
        return "\n".join(self.screen.display)

    def wait_for(self, predicate, seconds=15.0):
        """Pump until predicate(self) holds; fails the test with the screen otherwise. A
        screen caught in the middle of a redraw (Torn) is not a match yet."""
        end = time.monotonic() + seconds
        torn = None
        while time.monotonic() < end:
            self.pump(0.1)
            try:
                if predicate(self):
                    return
                torn = None
            except Torn as e:
                torn = e
        raise AssertionError("screen never matched%s:\n%s" % (
            "" if torn is None else " (a segment still half drawn: %s)" % torn, self.text()))

    def wait_exit(self, seconds=10.0):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.pump(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
        raise AssertionError("the simulator did not exit:\n" + self.text())

    def close(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGTERM)
                self.wait_exit()
            except (OSError, AssertionError):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        os.close(self.fd)

    # --- reading the displays back from the screen

    def displays(self):
        """Each drawn display as (masks, colon), read from the lit cells of its art."""
        lines = self.screen.display
        n = sum(1 for i in range(4) if any("display %d" % (i + 1) in l for l in lines))
        lay = layout.layout(self.screen.columns, self.screen.lines, n)
        assert lay["size"] is not None, "no display art at this size"
        w, h = lay["size"]
        segments = segment_cells(w, h)
        out = []
        for i in range(n):
            label = "display %d" % (i + 1)
            where = [(y, line.find(label)) for y, line in enumerate(lines) if label in line]
            y0, x0 = where[0][0] + 2, where[0][1] + 1
            masks, colon = [0, 0, 0, 0], False
            for (digit, bit), cells in segments.items():
                fgs = {self.screen.buffer[y0 + y][x0 + x].fg for y, x in cells}
                if fgs not in ({LIT_FG}, {UNLIT_FG}):
                    # every cell of a segment in one of the two colours, once the frame is in
                    raise Torn((label, digit, bit, fgs))
                if fgs == {LIT_FG}:
                    if digit < 0:
                        colon = True
                    else:
                        masks[digit] |= 1 << bit
            out.append((masks, colon))
        return out

    def readings(self):
        return [reading(m, c) for m, c in self.displays()]


class Torn(Exception):
    """The screen was read in the middle of a redraw: a segment's cells differ in colour."""


def segment_cells(w, h):
    """(digit, bit) -> the cells of that segment in a panel; (-1, 0) is the colon."""
    out = {}
    for digit in range(4):
        for bit in range(8):
            masks = [0, 0, 0, 0]
            masks[digit] = 1 << bit
            out[(digit, bit)] = _lit_cells(art.panel_cells(masks, False, w, h))
    out[(-1, 0)] = _lit_cells(art.panel_cells([0, 0, 0, 0], True, w, h))
    return out


def _lit_cells(rows):
    return [(y, x) for y, r in enumerate(rows) for x, (_, s) in enumerate(r) if s == art.LIT]


def board_processes(parent):
    """(pid, cwd) of the processes below `parent` (the board process and its launcher)."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(name))
    found, todo = [], [parent]
    while todo:
        for pid in children.get(todo.pop(), []):
            try:
                found.append((pid, os.readlink("/proc/%d/cwd" % pid)))
            except OSError:
                continue
            todo.append(pid)
    return found


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


START = "3" + "\n" * 8   # 3 players, then PLAY through the menu: the game starts


@pytest.fixture
def term():
    """Start the simulator in a pseudo-terminal (closed after the test)."""
    if pyte is None:
        pytest.skip("pyte is not installed (make venv installs it)")
    made = []

    def start(*args, cols=80, rows=24):
        t = Terminal(args, cols, rows)
        made.append(t)
        t.wait_for(lambda t: session.BANNER in t.text() and "Keypad" in t.text())
        return t

    yield start
    for t in made:
        t.close()


def test_starts_with_the_banner_and_the_setup_menu(term):
    t = term()
    assert session.BANNER in t.screen.display[0]
    t.wait_for(lambda t: t.readings()[:2] == [word("PL 4"), word("SEt")])
    assert t.readings()[2:] == ["    ", "    "]
    text = t.text()
    for words in ("Keypad", "PLAY", "Space Enter", "long MENU", "M (setup)", "q quit",
                  "Setup  PL players"):
        assert words in text


def test_keys_start_a_game_and_a_play_shows_on_the_table(term):
    t = term()
    t.wait_for(lambda t: t.readings()[0] == word("PL 4"))
    t.keys(START)
    t.wait_for(lambda t: t.readings()[:2] == [word("----"), word("P1 F")])
    assert "Game  3 players · dealer 1" in t.text()
    t.keys("5")
    # the entry and its preview ("=5: 0": plays as 5, costs no stick), table and turn stay
    t.wait_for(lambda t: t.displays()[2] == ([panels.face(5), 0, 0, 0], False))
    assert t.displays()[0] == ([panels.mask("-")] * 4, False)
    assert t.readings()[1] == word("P1 F")
    assert t.displays()[2:] == [([panels.face(5), 0, 0, 0], False),
                                ([panels.mask("="), panels.face(5), 0, panels.face(0)], True)]
    t.keys(" ")
    t.wait_for(lambda t: t.readings()[:2] == [word("1-5"), word("P2 F")])
    t.wait_for(lambda t: "Turn  P2 · 15 cards · 1 stick · top 1×5 by P1" in t.text())
    t.keys("p")   # P2 passes and takes a stick from the supply
    t.wait_for(lambda t: "Turn  P3 ·" in t.text() and "supply 36" in t.text())


def test_an_error_code_is_shown_and_explained(term):
    t = term()
    t.keys(START + "p")   # the leader may not pass
    t.wait_for(lambda t: t.readings() == [word("----"), word("P1 F"), word("LEAd"), word("Err")])
    assert "Error LEAd: " + words.ERROR_HELP["cannot-pass"] in t.text()
    # the error goes away by itself after a while, on the virtual clock that follows ours
    t.wait_for(lambda t: t.readings()[3] == word("St 1"), seconds=6)


def test_after_a_refused_play_a_face_key_starts_a_new_one_as_on_the_box(term):
    t = term()
    t.keys(START + "5 ")             # P1 plays a 5
    t.wait_for(lambda t: t.readings()[:2] == [word("1-5"), word("P2 F")])
    t.keys("3 ")                     # P2: a 3 is not stronger
    t.wait_for(lambda t: t.readings()[2:] == [word("Lo"), word("Err")])
    t.keys("7")                      # the firmware's entry starts again: 7, not 3 7
    t.wait_for(lambda t: t.displays()[2] == ([panels.face(7), 0, 0, 0], False))
    t.keys(" ")
    t.wait_for(lambda t: t.readings()[:2] == [word("1-7"), word("P3 F")])


def test_resizing_redraws_and_small_terminals_fall_back_to_text(term):
    t = term()
    t.keys(START + "5 ")
    t.wait_for(lambda t: t.readings()[0] == word("1-5"))
    for cols, rows in ((100, 30), (60, 24), (40, 20), (40, 10), (20, 5), (2, 1), (80, 24)):
        t.resize(cols, rows)
        t.pump(0.5)
        if cols >= 40:
            t.wait_for(lambda t: "SIMULATION" in t.screen.display[0])
        if layout.layout(cols, rows, 4)["size"] is None and rows >= 2 and cols >= 12:
            t.wait_for(lambda t: "1[1-5 ]" in t.text())
    t.wait_for(lambda t: t.readings()[:2] == [word("1-5"), word("P2 F")])
    assert t.status is None and alive(t.pid)


def test_q_quits_cleanly_and_removes_the_temporary_flash(term):
    t = term()
    boards = board_processes(t.pid)
    flash = [cwd for _, cwd in boards if os.path.basename(cwd).startswith("vbox-flash-")]
    assert flash and os.path.isdir(flash[0])
    t.keys("q")
    assert t.wait_exit() == 0
    assert not any(alive(pid) for pid, _ in boards)
    assert not os.path.exists(flash[0])


def test_ctrl_c_quits_too(term):
    t = term()
    boards = board_processes(t.pid)
    assert boards
    t.keys("\x03")
    assert t.wait_exit() == 0
    assert not any(alive(pid) for pid, _ in boards)


def test_quitting_a_game_that_is_not_kept_asks_first(term):
    t = term()
    t.keys(START + "5 ")
    t.wait_for(lambda t: t.readings()[0] == word("1-5"))
    t.keys("q")                     # no --flash: the game would be lost, so it asks
    t.wait_for(lambda t: words.QUIT_UNKEPT in t.text())
    assert t.status is None and alive(t.pid)
    t.keys("p")                     # any other key plays on (and is carried out)
    t.wait_for(lambda t: words.QUIT_UNKEPT not in t.text() and "Turn  P3 ·" in t.text())
    t.keys("q")
    t.wait_for(lambda t: words.QUIT_UNKEPT in t.text())
    t.keys("q")                     # q again quits
    assert t.wait_exit() == 0


def test_ctrl_c_says_the_game_was_not_kept(term):
    t = term()
    t.keys(START)
    t.wait_for(lambda t: t.readings()[:2] == [word("----"), word("P1 F")])
    t.keys("\x03")
    assert t.wait_exit() == 0
    t.pump(0.3)
    assert "matchbox sim: " + words.LOST_UNKEPT in t.text().replace("\n", "")


def test_a_game_survives_a_restart_with_flash(term, tmp_path):
    flash = str(tmp_path / "flash")
    t = term("--flash", flash)
    t.keys(START + "5 ")
    t.wait_for(lambda t: t.readings()[0] == word("1-5"))
    t.keys("q")
    assert t.wait_exit() == 0
    assert "1: play 5" in (tmp_path / "flash" / "games" / "current.txt").read_text()
    t = term("--flash", flash)
    t.wait_for(lambda t: t.readings()[:2] == [word("1-5"), word("P2 F")])
    assert "top 1×5 by P1" in t.text()


def test_journal_option_starts_from_a_record(term, tmp_path):
    record = tmp_path / "game.txt"
    record.write_text("players 2\ndealer 2\nexpansion none\nrevolution 5\nsticks 40\n"
                      "hands 15 15\n2: play 7 7\n")
    t = term("--journal", str(record))
    t.wait_for(lambda t: t.readings()[:2] == [word("2-7"), word("P1 F")])
    assert "Game  2 players · dealer 2" in t.text()


def test_a_record_with_an_error_warns_when_the_simulator_opens(term, tmp_path):
    record = tmp_path / "game.txt"
    record.write_text("players 2\nhands 15 15\n1: play 7 7\n2: play 3\n")
    warning = ("%s:4: illegal: wrong-count (the box resumes from the 3 lines before it, keeps the "
               "whole record as games/damaged/NNN-current.txt and shows LoSt)" % record)
    # wide enough for the whole line, however long the temporary folder's path is
    t = term("--journal", str(record), cols=max(240, len(warning) + 40))
    t.wait_for(lambda t: t.readings()[:2] == [word("LoSt"), word("   1")])   # the box says it too
    assert warning in t.text()     # at once, before any key
    assert "Game  2 players · dealer 1 · no G/H cards · revolution at 5 · 40 sticks" in t.text()
    t.pump(session.NOTE_MS / 1000.0 + 0.5)
    assert warning in t.text()     # it stays until a key is pressed
    t.keys("u")
    t.wait_for(lambda t: warning not in t.text())
    t.wait_for(lambda t: t.readings()[:2] == [word("2-7"), word("P2 F")])


def test_the_buzzer_shows_on_the_status_line(term):
    t = term()
    t.wait_for(lambda t: t.readings()[0] == word("PL 4"))
    t.keys("9")                    # 9 players: refused with the low tone
    t.wait_for(lambda t: "♪ low tone: refused" in t.text() and t.readings()[0] == word("PL 4"))
    t.keys(START)
    t.wait_for(lambda t: t.readings()[:2] == [word("----"), word("P1 F")])
    t.wait_for(lambda t: "♪" not in t.text(), seconds=5)
    t.keys("u")                    # UNDO with nothing to take back
    t.wait_for(lambda t: "♪ low tone: refused" in t.text())
    t.keys("5 ")
    t.wait_for(lambda t: "♪ beep: accepted" in t.text())


def test_fewer_displays_page_on_the_real_time_clock(term):
    t = term("--displays", "2")
    assert "display 2" in t.text() and "display 3" not in t.text()
    t.keys(START)
    t.wait_for(lambda t: t.readings() == [word("----"), word("P1 F")])
    # two seconds later (box.app PAGE_MS) the second page: the seat's cards and sticks
    t.wait_for(lambda t: t.readings() == [word("c 15"), word("St 1")], seconds=5)
    t.wait_for(lambda t: t.readings() == [word("----"), word("P1 F")], seconds=5)


def test_unplugging_a_display_draws_it_dim_with_a_note(term):
    t = term()
    t.keys(START)
    t.wait_for(lambda t: t.readings()[1] == word("P1 F"))
    t.send("\x1bOR")   # F3: display 3 off the bus
    t.wait_for(lambda t: "unplugged" in t.screen.display[2]
               and t.displays()[2] == ([0, 0, 0, 0], False))
    assert "Display 3 unplugged" in t.text()
    t.keys("5")         # the entry goes to display 3: its write fails, the firmware notices
    t.send("\x1bOR")   # plugged back in: the firmware sets it up again within a second
    t.wait_for(lambda t: t.readings()[2] == "5   " and "0x72" in t.screen.display[2])


def test_reading_helpers_agree_with_the_chip_model():
    # the screen tests rely on reading() naming shapes like the chip model
    assert word("LEAd") == "LEAd" and word("St 1") == "5t 1"
    assert READING[panels.face(5)] == "5"


def test_without_a_terminal_it_says_to_use_headless():
    import subprocess
    base = [sys.executable, "-m", "host_tools.cli", "sim"]
    proc = subprocess.run(base, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "--headless" in proc.stderr
    proc = subprocess.run(base + ["--displays", "5"], cwd=ROOT, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--displays: must be 1 to 4" in proc.stderr


def test_pico_plays_on_the_emulated_rp2040():
    """`matchbox sim --pico`: the same screen on the Pico's MicroPython in rp2040js."""
    from host_tools.virtual import emulated_pico
    reason = emulated_pico.missing()
    if reason:
        pytest.skip("emulated Pico: " + reason)
    if pyte is None:
        pytest.skip("pyte is not installed (make venv installs it)")
    t = Terminal(["--pico"], cols=100, rows=30)
    try:
        t.wait_for(lambda t: session.PICO_BANNER in t.screen.display[0] and "Keypad" in t.text(),
                   seconds=60)
        t.wait_for(lambda t: t.readings()[:2] == [word("PL 4"), word("SEt")], seconds=60)
        assert "Setup  PL players" in t.text()
        # the emulated chip runs at about half of real time: a key is a few tenths of a second
        t.keys(START, pause=0.5)
        t.wait_for(lambda t: t.readings()[:2] == [word("----"), word("P1 F")], seconds=60)
        assert "Game  3 players · dealer 1" in t.text()
        t.keys("5 ", pause=0.5)
        t.wait_for(lambda t: t.readings()[:2] == [word("1-5"), word("P2 F")], seconds=60)
        t.wait_for(lambda t: "Turn  P2 ·" in t.text(), seconds=30)
        boards = board_processes(t.pid)
        assert boards   # node, running the harness
        t.keys("q")   # the game is not kept (no --flash): asked, then quit
        t.wait_for(lambda t: words.QUIT_UNKEPT in t.text(), seconds=30)
        t.keys("q")
        assert t.wait_exit(30) == 0
        assert not any(alive(pid) for pid, _ in boards)
    finally:
        t.close()
