"""Draws a terminal simulator session on a curses screen: the displays (large digits or plain
text), the status lines, the key map and the message line."""
import curses
import locale
import time

from host_tools.terminal.keyboard import BUTTONS, EXTRAS, KEYMAP, legend, short_keys
from host_tools.terminal.layout import layout
from host_tools.terminal.words import explain, hint, status_lines
from host_tools.virtual import display_text as art
from host_tools.virtual.ht16k33 import VirtualHT16K33

FLASH_MS = 350        # how long a pressed key stays highlighted on screen


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
                text = hint(s.mode, s.game)
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
