"""The interactive `matchbox sim`: the real firmware on the virtual box, in a terminal.

host_tools.virtual.box runs firmware/main.py under the MicroPython unix port; this module draws
its displays as large seven-segment digits (host_tools.virtual.display_text), maps the keyboard to
the box's keys, lets the virtual clock follow the wall clock while nobody types (so error
codes, announcements and paging time out as on the box) and explains in plain words what
the box shows, the buzzer's tones included. It adapts to the terminal's size: smaller digits,
then a one-line key map, then the displays as plain text.

Only curses, the standard library and the engine's notation reader are used. `run(args)` is
the entry point (called by host_tools.sim); `action`, `layout`, `status_lines`, `explain` and
`tone_words` are pure helpers.
"""
import curses
import functools
import locale
import os
import signal
import sys
import time

from host_tools import resources
from host_tools.errors import VERDICT, MatchboxError, one_line
from tycoon import notation
from host_tools.virtual import display_text as art
from host_tools.virtual.ht16k33 import VirtualHT16K33
from host_tools.virtual.box import GAP_MS, HOLD_MS, LONG_MS, BoxError
from host_tools.virtual.new_box import make_box

BANNER = "SIMULATION - virtual Pico, no hardware"
PICO_BANNER = "EMULATED RP2040 - the Pico's MicroPython, no hardware"
FRAME_MS = 40         # one screen update while idle
MAX_STEP_MS = 500     # virtual time granted at most per update (a stalled terminal skips time)
PICO_STEP_MS = 100    # the same on the emulated Pico, which runs at about half of real time:
                      # short steps keep the keyboard answering (its clock then runs slow)
FLASH_MS = 350        # how long a pressed key stays highlighted on screen
NOTE_MS = 4000        # how long a note from the simulator stays
TONE_MS = 1500        # how long the status line shows a tone of the buzzer

# Plain words for the firmware's error codes (the displays show ERRORS[code] and "Err").
ERROR_HELP = {
    "not-your-turn": "not this seat's turn",
    "game-over": "the game is over",
    "must-return": "this seat has no cards: PLAY returns a stick",
    "has-cards": "this seat still has cards: play or pass",
    "cannot-pass": "the leader cannot pass: play 1 to 5 cards",
    "too-many-cards": "1 to 5 cards per play",
    "not-in-hand": "more cards than this seat holds",
    "wrong-count": "play as many cards as the table (or press faces first)",
    "not-stronger": "not stronger than the table",
    "no-such-value": "that value is not in this game",
    "no-such-card": "more copies of a card than the deck has",
    "impossible-shape": "a face cannot become that value",
    "mixed-values": "the cards do not make one value (AS sets one)",
    "not-enough-sticks": "not enough matchsticks to complete the cards",
    "flash-full": "the box's flash is full: the action was not saved",
}

# The same codes where the setup menu means something else by them.
SETUP_ERROR_HELP = {
    "no-such-card": "the seats' cards add up to more than the deck holds",
    "flash-full": "the box's flash is full: the new game could not be saved",
}

# The buzzer's sequences (box.buzzer) -> what the box means by them.
TONE_WORDS = {
    "REJECT": "low tone: refused",
    "ACCEPT": "beep: accepted",
    "REVOLUTION": "fanfare: revolution",
}

# Announcements: the first display's reading -> what happened.
ANNOUNCEMENTS = {
    "rEuo": "Revolution: the order of strength is reversed",
    "PA55": "Strongest card: every other player passes, the table clears",
    "out ": "A player went out",
    "End ": "Game over: the final ranking",
}

# What to do next, by the app's mode (shown when nothing else is to be said).
HINTS = {
    "setup": "Type a value, then PLAY; DEL goes back",
    "play": "Key the faces, then Space (PLAY); p passes",
    "ref": "Press a face; MENU goes back",
    "finished": "m: the setup menu for a new game",
}

EXPANSION_WORDS = {"none": "no G/H cards", "gh2": "G/H 2 each", "gh4": "G/H 4 each"}


def firmware_errors():
    """The firmware's ERRORS (box.app: error code -> display text)."""
    app = resources.firmware_module("box.app")
    return {code: text.decode() for code, text in app.ERRORS.items()}


def firmware_tones():
    """{frequency in Hz: sequence name} of the firmware's buzzer sequences (box.buzzer)."""
    buzzer = resources.firmware_module("box.buzzer")
    out = {}
    for name in TONE_WORDS:
        for hz, _ms in getattr(buzzer, name):
            if hz:
                out.setdefault(hz, name)
    return out


def tone_words(hz, tones):
    """What a tone of hz means, from firmware_tones(); 'tone N Hz' when it is none of them."""
    name = tones.get(hz)
    return TONE_WORDS[name] if name else "tone %d Hz" % hz


# --- keyboard -----------------------------------------------------------------------------

def action(key):
    """What a key from curses get_wch() does: ("key", NAME, hold_ms) for a box key,
    ("quit",), ("power",) for a power cycle, ("plug", i) to unplug/replug display i (0-3),
    ("resize",), or None."""
    if isinstance(key, int):
        if key == curses.KEY_RESIZE:
            return ("resize",)
        if key == curses.KEY_ENTER:
            return ("key", "PLAY", HOLD_MS)
        if key == curses.KEY_BACKSPACE:
            return ("key", "DEL", HOLD_MS)
        if key == curses.KEY_DC:
            return ("key", "DEL", LONG_MS)
        for i in range(4):
            if key == curses.KEY_F0 + 1 + i:
                return ("plug", i)
        return None
    if key in ("q", "Q", "\x03"):
        return ("quit",)
    if key == "\x12":
        return ("power",)
    if key in (" ", "\n", "\r"):
        return ("key", "PLAY", HOLD_MS)
    if key in ("\x7f", "\x08"):
        return ("key", "DEL", HOLD_MS)
    if key in "0123456789abcdefghABCDEFGH" and len(key) == 1:
        return ("key", key.upper(), HOLD_MS)
    simple = {"s": "AS", "S": "AS", "=": "AS", "p": "PASS", "P": "PASS", "u": "UNDO",
              "U": "UNDO", "m": "MENU", "x": "DEL"}
    if key in simple:
        return ("key", simple[key], HOLD_MS)
    long = {"M": "MENU", "X": "DEL"}
    if key in long:
        return ("key", long[key], LONG_MS)
    return None


# (box key, keyboard keys) for the on-screen key map, in two columns.
KEYMAP = (
    (("0-F G H", "0-9 a-h"), ("PLAY", "Space Enter")),
    (("AS", "s ="), ("PASS", "p")),
    (("DEL", "Backspace x"), ("long DEL", "Delete X")),
    (("UNDO", "u"), ("quit", "q")),
    (("MENU", "m"), ("long MENU", "M (setup)")),
)
BUTTONS = ("G", "H", "AS", "PLAY", "PASS", "DEL", "UNDO", "MENU")
EXTRAS = "^R power  F1-F4 unplug  q quit"
SHORT_KEYS = ("0-9 a-h faces", "Space PLAY", "p PASS", "s AS", "Bksp DEL", "u UNDO",
              "m MENU", "M setup", "q quit")


def short_keys(cols):
    """The key map as few lines of at most cols - 2 characters."""
    lines = [""]
    for item in SHORT_KEYS:
        if lines[-1] and len(lines[-1]) + 2 + len(item) > cols - 2:
            lines.append("")
        lines[-1] += ("  " if lines[-1] else "") + item
    return lines


@functools.lru_cache(maxsize=1)
def legend():
    """The keypad's rows of faces, as the pin map lays them out."""
    rows = resources.load_pinmap()["keypad"]["legend"]
    shapes = {"B": "b", "D": "d"}  # the box shows b and d in lower case
    return [[shapes.get(c, c) for c in row] for row in rows]


# --- what the box shows, in words ----------------------------------------------------------

def setup_of(journal):
    """The game the header of a record sets up, every setting filled in (the ones the record
    leaves out take their defaults), or None when the header does not set up a game."""
    reader = notation.Reader()
    try:
        for line in journal.splitlines():
            parsed = notation.parse_line(line)
            if parsed is not None and parsed[0] != "header":
                break
            reader.feed(line)
        return reader.finish()
    except notation.NotationError:
        return None


def _plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def status_lines(mode, game, journal):
    """Two lines about the setup and the game: `mode` and `game` as VBox.dump() gives
    them, `journal` the text of games/current.txt."""
    if mode == "setup" or game is None:
        return ["Setup  PL players · dL leader · Gh G/H cards 0/2/4 · rE revolution 4/5",
                "       St sticks · 1=15 seat 1's cards ... · PLAY: next, the last one starts"]
    setup = setup_of(journal)
    if setup is None:
        first = "Game  %d players" % game.get("players", 0)
    else:
        first = "Game  %d players · leader %d · %s · revolution at %d · %d sticks" % (
            setup.players, setup.dealer, EXPANSION_WORDS[setup.expansion],
            setup.revolution_size, setup.tokens)
    if mode == "ref":
        return [first, "Quick reference: a face key shows a value it can become, the point "
                       "and its cost; again: next; MENU back"]
    if game.get("finished"):
        ranking = " ".join("P%d" % s for s in game.get("ranking", []))
        return [first, "Game over · ranking %s · MENU: setup for a new game · UNDO takes back"
                % ranking]
    turn = game.get("turn", 0)
    seat = next((s for s in game.get("seats", []) if s.get("seat") == turn), None)
    table = game.get("table")
    parts = ["P%d %s" % (turn, "to act" if table else "leads")]
    if seat is not None:
        if seat["cards"] == 0:
            parts.append("no cards, PLAY returns a stick")
        else:
            parts.append(_plural(seat["cards"], "card"))
        parts.append(_plural(seat["sticks"], "stick"))
    if table:
        parts.append("table %d×%s by P%d" % (table["count"], table["value"], table["seat"]))
    if game.get("revolution"):
        parts.append("REVOLUTION")
    parts.append("supply %d" % game.get("supply", 0))
    return [first, "Now   " + " · ".join(parts)]


def explain(readings, errors, mode="play"):
    """A sentence for an error code or an announcement on the displays, else ''.
    `readings`: VBox.displays(); `errors`: firmware_errors(); `mode`: the app's mode."""
    # the code and "Err" on displays 1 and 2, or on 3 and 4 beside the table and the turn
    for i in range(len(readings) - 1):
        if readings[i + 1].startswith("Err"):
            for code, text in errors.items():
                if _reads_as(readings[i], text):
                    words = SETUP_ERROR_HELP.get(code) if mode == "setup" else None
                    return "Error %s: %s" % (text, words or ERROR_HELP.get(code, code))
            return "Error"
    for reading in readings:
        for shown, words in ANNOUNCEMENTS.items():
            if reading == shown:
                return words
    return ""


def _reads_as(reading, text):
    """Whether a display reading (VirtualHT16K33.text()) is the firmware's text: the
    reading names shapes, so S reads as 5 and O as 0."""
    want = text.replace("S", "5").replace("O", "0").ljust(4)
    return reading == want


# --- layout --------------------------------------------------------------------------------

KEYMAP_ROWS = 7   # the full key map: a title, four keypad rows, MENU, the buttons
KEYMAP_COLS = 80


def layout(cols, rows, n):
    """How to draw n displays on a cols x rows terminal: a dict with `size` ((width,
    height) of the digits, None = plain text), `per_row` (displays side by side), `keys`
    ("full", "short" or None) and `blanks` (0-4 blank lines between the parts).
    Preference: the displays in one row like on the box, the full key map, bigger digits;
    big digits only with room for at least two blank lines."""
    big = [size for size in art.SIZES if size[1] > 3]
    small = [size for size in art.SIZES if size[1] == 3]
    arrangements = sorted({n, (n + 1) // 2, 1}, reverse=True)
    tries = [(per_row, size) for per_row in arrangements for size in big]
    tries += [(per_row, size) for per_row in arrangements for size in small]
    short_h = len(short_keys(cols))
    keymaps = [("short", short_h)]
    if cols >= KEYMAP_COLS:
        keymaps.insert(0, ("full", KEYMAP_ROWS))
    for keys, keys_h in keymaps:
        for per_row, (w, h) in tries:
            lines = -(-n // per_row)
            width = per_row * (art.panel_width(w) + 1) + (per_row - 1)
            height = lines * (h + 3) + (lines - 1)
            spare = rows - (4 + keys_h + height)  # banner, 2 status lines, message
            if width > cols - 1 or spare < (2 if (w, h) > (3, 5) else 0):
                continue
            return {"size": (w, h), "per_row": per_row, "keys": keys, "blanks": min(spare, 4)}
    keys = "short" if rows >= 4 + n + short_h else None
    return {"size": None, "per_row": 1, "keys": keys, "blanks": 0}


# --- the session ---------------------------------------------------------------------------

class Session:
    """The box plus what the screen needs to know about it."""

    def __init__(self, box):
        self.box = box
        self.errors = firmware_errors()
        self.mode = "none"
        self.game = None
        self.journal = ""
        self.pressed = None       # (box key, wall time) of the last key
        self.note = ""            # a message from the simulator itself
        self.note_until = 0.0     # wall time it goes; None: until the next key
        self.tones = firmware_tones()
        self.heard = len(box.tones)   # box.tones already looked at
        self.tone = ""            # what the last tone meant
        self.tone_at = 0.0
        self.last = time.monotonic()
        self.carry = 0.0
        pico = getattr(box, "emulated", False)   # EmulatedPico, not the unix port's VBox
        self.banner = PICO_BANNER if pico else BANNER
        self.max_step = PICO_STEP_MS if pico else MAX_STEP_MS

    def refresh(self):
        """Read the app's mode and game, and the journal (after keys and at power-up)."""
        if self.box.mode != "running":
            return
        d = self.box.dump()
        self.mode = d.get("mode", "none")
        self.game = d.get("game")
        self.journal = self.box.journal_text()

    def say(self, text, until_key=False):
        """Show a note of the simulator for NOTE_MS, or until the next key."""
        self.note = text
        self.note_until = None if until_key else time.monotonic() + NOTE_MS / 1000.0

    def noting(self):
        """The note to show now, or ''."""
        if self.note_until is None or time.monotonic() < self.note_until:
            return self.note
        return ""

    def listen(self):
        """Look at the buzzer changes since the last call: a tone that started is shown."""
        tones = self.box.tones
        for _ms, hz, duty in tones[self.heard:]:
            if duty:
                self.tone = tone_words(hz, self.tones)
                self.tone_at = time.monotonic()
                break   # the first tone of a sequence names it
        self.heard = len(tones)

    def hearing(self):
        """What the tone sounding (or just sounded) means, or ''."""
        if self.tone and time.monotonic() - self.tone_at < TONE_MS / 1000.0:
            return self.tone
        return ""

    def do(self, act):
        """Carry out an action(); returns False to quit."""
        kind = act[0]
        if kind == "quit":
            return False
        box = self.box
        if kind == "key":
            if self.note_until is None:
                self.note = ""
            if box.mode == "running":
                box.tap(act[1], act[2], GAP_MS)
                self.listen()
                self.pressed = (("long " if act[2] >= LONG_MS else "") + act[1],
                                time.monotonic())
                self.refresh()
        elif kind == "power":
            box.kill()
            box.boot()
            self.refresh()
            self.say("Power off and on: the box resumed from its journal")
        elif kind == "plug" and act[1] < len(box.devices):
            addr = box.devices[act[1]]
            if addr in box.unplugged:
                box.replug(addr)
                self.say("Display %d plugged back in" % (act[1] + 1))
            else:
                box.unplug(addr)
                self.say("Display %d unplugged: the box goes on without it" % (act[1] + 1))
        self.last = time.monotonic()
        return True

    def tick(self):
        """Let the virtual clock catch up with the wall clock."""
        now = time.monotonic()
        self.carry += (now - self.last) * 1000.0
        self.last = now
        ms = int(min(self.carry, self.max_step))
        self.carry = 0.0 if self.carry >= self.max_step else self.carry - ms
        if ms > 0 and self.box.mode == "running":
            self.box.advance(ms)
            self.listen()

    def panels(self):
        """(address, masks, colon, visible, note) per fitted display."""
        box = self.box
        out = []
        for a in box.devices:
            chip = box.chips[a]
            if not chip.plugged:
                out.append((a, [0, 0, 0, 0], False, False, "unplugged"))
                continue
            if not chip.lit:
                out.append((a, [0, 0, 0, 0], False, False, "dark"))
                continue
            visible = True
            if chip.blink and box.now is not None:
                period = (0, 500, 1000, 2000)[chip.blink]
                visible = box.now % period < period // 2
            masks = chip.digits() if visible else [0, 0, 0, 0]
            out.append((a, masks, chip.colon and visible, True, ""))
        return out


# --- drawing -------------------------------------------------------------------------------

class Painter:
    """Draws a Session on a curses screen."""

    def __init__(self, scr):
        self.scr = scr
        self.ascii = locale.getpreferredencoding(False).lower().replace("-", "") != "utf8"
        self.attr = {}
        self._colors()

    def _colors(self):
        bold, dim, rev = curses.A_BOLD, curses.A_DIM, curses.A_REVERSE
        a = {"lit": bold, "unlit": dim, "face": 0, "banner": rev | bold, "label": bold,
             "note": bold, "dim": dim, "cap": rev, "hot": rev | bold, "key": bold}
        if not curses.has_colors():
            self.attr = a
            return
        try:
            curses.start_color()
            try:
                curses.use_default_colors()
                default = -1
            except curses.error:
                default = curses.COLOR_BLACK
            many = curses.COLORS >= 256
            face = 234 if many else curses.COLOR_BLACK
            lit = 196 if many else curses.COLOR_RED
            unlit = 52 if many else (8 if curses.COLORS >= 16 else curses.COLOR_BLACK)
            pairs = (
                ("lit", lit, face, bold), ("unlit", unlit, face, 0 if many else bold),
                ("face", curses.COLOR_WHITE, face, 0),
                ("banner", curses.COLOR_WHITE, curses.COLOR_RED, bold),
                ("label", curses.COLOR_CYAN, default, bold),
                ("note", curses.COLOR_YELLOW, default, bold),
                ("key", curses.COLOR_YELLOW, default, bold),
                ("hot", curses.COLOR_BLACK, curses.COLOR_YELLOW, bold),
            )
            for i, (name, fg, bg, extra) in enumerate(pairs, 1):
                curses.init_pair(i, fg, bg)
                a[name] = curses.color_pair(i) | extra
        except (curses.error, ValueError):   # fewer colours than it claimed
            pass
        self.attr = a

    def put(self, y, x, text, attr=0):
        """addstr clipped to the screen; never raises."""
        rows, cols = self.scr.getmaxyx()
        if y < 0 or y >= rows or x >= cols or x < 0:
            return
        text = text[:cols - x]
        if y == rows - 1 and x + len(text) >= cols:
            text = text[:cols - x - 1]  # the bottom right cell cannot be written
        if text:
            try:
                self.scr.addstr(y, x, text, attr)
            except curses.error:
                pass

    def draw(self, s):
        scr = self.scr
        rows, cols = scr.getmaxyx()
        scr.erase()
        panels = s.panels()
        lay = layout(cols, rows, len(panels))
        A = self.attr
        # blank lines, most useful first: under the displays, under the status, under
        # the banner, above the message
        gaps = [1 if lay["blanks"] > i else 0 for i in range(4)]
        # banner
        self.put(0, 0, " " * cols, A["banner"])
        title = " MATCHBOX  %s " % s.banner
        if len(title) > cols:
            title = " " + s.banner
        self.put(0, 0, title, A["banner"])
        right = "q quits "
        if cols >= len(title) + 2 + len(right):
            self.put(0, cols - len(right), right, A["banner"])
        y = 1 + gaps[2]
        if lay["size"] is None:
            y = self._draw_text_panels(y, panels, cols)
        else:
            y = self._draw_art_panels(y, panels, lay)
        y += gaps[0]
        for line in status_lines(s.mode, s.game, s.journal):
            self.put(y, 1, line)
            y += 1
        y += gaps[1]
        if lay["keys"] == "full":
            y = self._draw_keymap(y, s)
        elif lay["keys"] == "short":
            for line in short_keys(cols):
                self.put(y, 1, line, A["dim"])
                y += 1
        self._draw_message(min(y + gaps[3], rows - 1), s, cols)
        scr.noutrefresh()
        curses.doupdate()

    def _draw_text_panels(self, y, panels, cols):
        A = self.attr
        x = 1
        for i, (addr, masks, colon, visible, note) in enumerate(panels):
            text = _reading(masks, colon) if visible else "    "
            cell = "%d[%s]%s" % (i + 1, text, (" " + note) if note else "")
            if x + len(cell) >= cols and x > 1:
                y += 1
                x = 1
            self.put(y, x, "%d" % (i + 1), A["label"])
            self.put(y, x + 1, "[%s]" % text, A["lit"] if visible else A["unlit"])
            if note:
                self.put(y, x + 2 + len(text) + 2, note, A["note"])
            x += len(cell) + 2
        return y + 1

    def _draw_art_panels(self, y, panels, lay):
        A = self.attr
        w, h = lay["size"]
        face_w = art.panel_width(w) + 1
        for start in range(0, len(panels), lay["per_row"]):
            for k, (addr, masks, colon, visible, note) in enumerate(
                    panels[start:start + lay["per_row"]]):
                i = start + k
                x = 1 + k * (face_w + 1)
                self.put(y, x, "display %d" % (i + 1), A["label"] if visible else A["dim"])
                tag = note or "0x%02x" % addr
                self.put(y, x + face_w - len(tag), tag, A["note"] if note else A["dim"])
                cells = art.panel_cells(masks, colon, w, h, self.ascii)
                self.put(y + 1, x, " " * face_w, A["face"])
                for r, row in enumerate(cells):
                    self.put(y + 2 + r, x, " ", A["face"])
                    for c, (ch, state) in enumerate(row):
                        attr = A["lit"] if state == art.LIT else (
                            A["unlit"] if state == art.UNLIT else A["face"])
                        self.put(y + 2 + r, x + 1 + c, ch, attr)
                self.put(y + 2 + h, x, " " * face_w, A["face"])
            y += h + 4
        return y - 1

    def _draw_keymap(self, y, s):
        """The keypad (the key just pressed lit up), the key map beside it, the buttons."""
        A = self.attr
        recent = s.pressed and time.monotonic() - s.pressed[1] < FLASH_MS / 1000.0
        hot = s.pressed[0] if recent else None
        self.put(y, 1, "Keypad", A["label"])
        self.put(y, 16, "Box key      Keyboard         Box key      Keyboard", A["label"])
        pad = legend()
        for r in range(max(len(pad), len(KEYMAP))):
            for c, face in enumerate(pad[r] if r < len(pad) else ()):
                lit = hot == face.upper()
                self.put(y + 1 + r, 1 + 3 * c, " %s " % face, A["hot"] if lit else A["cap"])
            for c, (box_key, keyboard) in enumerate(KEYMAP[r] if r < len(KEYMAP) else ()):
                x = 16 + c * 30
                self.put(y + 1 + r, x, box_key, A["hot"] if hot == box_key else A["key"])
                self.put(y + 1 + r, x + 13, keyboard)
        row = y + 1 + max(len(pad), len(KEYMAP))
        x = 1
        for name in BUTTONS:
            lit = hot in (name, "long " + name)
            self.put(row, x, " %s " % name, A["hot"] if lit else A["cap"])
            x += len(name) + 3
        self.put(row, x + 1, EXTRAS, A["dim"])
        return row + 1

    def _draw_message(self, y, s, cols):
        """One line: what just happened (or a hint), the last key and the box's clock."""
        A = self.attr
        box = s.box
        attr = A["note"]
        if box.mode != "running":
            text = "The firmware stopped (%s): ^R powers it up again, q quits" % box.mode
        elif s.noting():
            text = s.noting()
        else:
            text = explain(box.displays(), s.errors, s.mode)
            if not text:
                text = HINTS.get(s.mode, "")
                attr = A["dim"]
        tone = s.hearing() if box.mode == "running" else ""
        if tone:
            text = " · ".join(t for t in ("%s %s" % ("Buzzer:" if self.ascii else "♪", tone), text) if t)
            attr = A["note"]
        right = ""
        if s.pressed:
            right = "key %s   " % s.pressed[0]
        if box.now is not None:
            right += "box clock %d:%04.1f" % (box.now // 60000, box.now % 60000 / 1000.0)
        self.put(y, 1, text, attr)
        if right and cols - len(right) - 2 > len(text) + 2:
            self.put(y, cols - len(right) - 2, right, A["dim"])


def _reading(masks, colon):
    """What a person reads from a panel (the rules of VirtualHT16K33.text())."""
    chip = VirtualHT16K33()
    for pos, m in zip((0, 2, 6, 8), masks):
        chip.ram[pos] = m
    if colon:
        chip.ram[4] = 2
    return chip.text()


# --- entry point ---------------------------------------------------------------------------

def _main_loop(scr, session):
    try:
        curses.curs_set(0)
    except curses.error:
        pass  # a terminal that cannot hide its cursor
    scr.keypad(True)
    scr.timeout(FRAME_MS)
    painter = Painter(scr)
    painter.draw(session)
    while True:
        try:
            key = scr.get_wch()
        except curses.error:
            key = None
        while key is not None:
            act = action(key)
            if act is not None:
                if act[0] == "resize":
                    curses.update_lines_cols()
                    scr.clear()
                elif not session.do(act):
                    return 0
            scr.timeout(0)
            try:
                key = scr.get_wch()
            except curses.error:
                key = None
            scr.timeout(FRAME_MS)
        session.tick()
        painter.draw(session)


def check_terminal():
    """MatchboxError unless stdin and stdout are a terminal curses can draw on (its TERM
    known, the cursor movable): said before anything starts."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise MatchboxError("the simulator", "needs a terminal (or use --headless)")
    term = os.environ.get("TERM") or "(unset)"
    try:
        curses.setupterm(fd=sys.stdout.fileno())
        movable = curses.tigetstr("cup") and curses.tigetstr("clear")
    except curses.error:
        raise MatchboxError("the terminal", "TERM=%s is not a terminal type this system knows: "
                            "use a terminal such as xterm, or --headless" % term) from None
    if not movable:
        raise MatchboxError("the terminal", "TERM=%s cannot place the cursor: use a terminal "
                            "such as xterm, or --headless" % term)


def run(args, record=None, warning=None, devices=None):
    """`matchbox sim` without --headless (host_tools.sim has checked the terminal, read the
    journal and counted the displays); returns the exit status."""
    try:
        box = make_box(args, record, devices=devices)
    except BoxError as exc:
        what, _, why = one_line(exc).partition(": ")
        raise MatchboxError(what if why else "the box", why or one_line(exc)) from None
    locale.setlocale(locale.LC_ALL, "")
    os.environ.setdefault("ESCDELAY", "25")

    def stop(signum, frame):
        raise SystemExit(0)

    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    failure = None
    status = 0
    try:
        box.boot()
        session = Session(box)
        session.refresh()
        if warning:
            session.say(warning, until_key=True)
        status = curses.wrapper(_main_loop, session)
    except KeyboardInterrupt:
        status = 0     # Ctrl-C is a key of the simulator: quit (docs/display.md)
    except BoxError as exc:
        failure = MatchboxError("the box failed", one_line(exc), VERDICT)
    except curses.error as exc:
        failure = MatchboxError("the terminal", "cannot be used (%s): try --headless" % exc)
    finally:
        box.close()
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if failure:
        raise failure
    return status
