"""The box's user interface: keys in, engine calls, journal writes, panels out.

Modes: SETUP (the new-game menu), PLAY (entering plays), REF (quick reference) and
FINISHED (the final ranking). Errors and announcements are shown for a moment on top of
any mode and never wait for a key: the next key press clears them and is handled at once.
"""
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

from box import ticks
from box import keys as K
from box import panels
from box.buzzer import ACCEPT, REJECT, REVOLUTION
from box.setup import COMPLETE, TOO_MANY, Setup
from tycoon import game as rules
from tycoon.cards import becomes, cost
from tycoon.state import to_json

SETUP = const(0)
PLAY = const(1)
REF = const(2)
FINISHED = const(3)

ERROR_MS = const(2000)
ANNOUNCE_MS = const(1500)
PAGE_MS = const(2000)
MAX_PANELS = const(6)

# Error code -> 4 characters on the display (see README: error codes).
ERRORS = {
    "not-your-turn": b"turn", "game-over": b"End", "must-return": b"rEtn",
    "has-cards": b"HAS", "cannot-pass": b"LEAd", "too-many-cards": b"1-5",
    "not-in-hand": b"HAnd", "wrong-count": b"Cnt", "not-stronger": b"Lo",
    "no-such-value": b"uAL", "no-such-card": b"CArd", "impossible-shape": b"SHAP",
    "mixed-values": b"diFF", "not-enough-sticks": b"StIC", "flash-full": b"FULL",
}



class App:
    """One box: displays (1-4 HT16K33), keys, buzzer, journal, clock and a serial emitter."""

    def __init__(self, displays, keys, buzzer, journal, ticks_ms, emit=None):
        self.displays = displays
        self.keys = keys
        self.buzzer = buzzer
        self.journal = journal
        self.clock = ticks_ms
        self.emit = emit
        self.game = None
        self.mode = SETUP
        self.setup = Setup()
        self.faces = bytearray(5)   # the entry: faces keyed so far
        self.nfaces = 0
        self.as_key = False         # AS pressed: the next face key is the declared value
        self.value = -1             # declared value, -1 = none
        self.ref_face = -1
        self.ref_index = 0
        self.buf = bytearray(panels.SIZE * MAX_PANELS)
        self.count = 0              # panels drawn
        self.shown = bytearray(panels.SIZE * 4)
        self.until = 0              # end of the error or announcement on screen
        self.overlay = 0            # 0 none, 1 error, 2 announcement
        self.err = b""
        self.event = 0
        self.event_seat = 0
        self.page = 0
        self.page_at = 0
        # long presses: MENU opens the setup menu, DEL clears the entry; no other key has one
        for k in range(K.COUNT):
            keys.set_long(k, k == K.MENU or k == K.DEL)

    # --- start ------------------------------------------------------------------------------

    def boot(self):
        """Resume the journalled game, or open the setup menu."""
        saved = self.journal.load_setup()
        if saved:
            self.setup.restore(saved)
        game, _dropped = self.journal.resume()
        if game is not None:
            self.game = game
            self.mode = FINISHED if game.finished else PLAY
        self.redraw()

    def new_game(self, now):
        s = self.setup
        game = rules.Game(s.players, s.dealer, rules.EXPANSIONS[s.expansion], s.revolution,
                          s.sticks, s.hands[:s.players])
        try:
            # the new record is on flash before the old one goes to the archive
            self.journal.start(game, self.game)
        except OSError:
            self._error("flash-full", now)   # the menu stays open; the old game stays on
            return
        try:
            self.journal.save_setup(s.players, s.dealer, rules.EXPANSIONS[s.expansion],
                                    s.revolution, s.sticks, s.hands[:s.players])
        except OSError:
            pass   # only the menu's memory of these choices is lost; the game is safe
        self.game = game
        self.mode = PLAY
        self._clear_entry()
        self._emit()

    # --- main loop ----------------------------------------------------------------------------

    def step(self):
        """One pass of the main loop: keys, timers, displays, buzzer."""
        now = self.clock()
        n = self.keys.poll(now)
        for i in range(n):
            self.key(self.keys.events[i], now)
        if self.overlay and ticks.diff(now, self.until) >= 0:
            self.overlay = 0
            self.redraw()
        nd = self._shown()
        if self.count > nd and ticks.diff(now, self.page_at) >= PAGE_MS:
            self.page_at = now
            pages = (self.count + nd - 1) // nd
            self.page = (self.page + 1) % pages
            self._flush()
        changed = False
        for d in self.displays:
            was = d.online
            d.service(now)
            changed = changed or d.online != was
        if changed:
            # a display came (or went): the panels are shared out again over those that answer
            self.page = 0
            self.page_at = now
            self._flush()
            for d in self.displays:
                d.show()
        self.buzzer.service(now)

    def key(self, event, now=None):
        """Handle one key event (a code, or LONG | code)."""
        if now is None:
            now = self.clock()
        self.overlay = 0
        code = event & K.CODE
        if event & K.LONG:
            if code == K.MENU:
                self.mode = SETUP
                self.setup.begin(self.game)
            elif code == K.DEL and self.mode == PLAY:
                self._clear_entry()
        elif self.mode == SETUP:
            self._setup_key(code, now)
        elif self.mode == REF:
            self._ref_key(code)
        elif self.mode == FINISHED:
            if code == K.UNDO:
                self._undo()
            elif code == K.MENU:
                self.mode = SETUP
                self.setup.begin(self.game)
        else:
            self._play_key(code, now)
        self.redraw(now)

    # --- playing -------------------------------------------------------------------------------

    def _play_key(self, code, now):
        if code <= K.H:
            if self.game.must_return():
                self._error("must-return", now)   # no cards: only PLAY (a return) or UNDO
            elif self.as_key and self.value < 0:
                self.value = code
            elif self.as_key:
                self._error("mixed-values", now)  # a second value after AS
            elif self.nfaces < 5:
                self.faces[self.nfaces] = code
                self.nfaces += 1
            else:
                self._error("too-many-cards", now)
        elif code == K.AS:
            self.as_key = not self.as_key
            self.value = -1
        elif code == K.DEL:
            if self.value >= 0:
                self.value = -1
            elif self.as_key:
                self.as_key = False
            elif self.nfaces:
                self.nfaces -= 1
        elif code == K.PLAY:
            if self.game.must_return():
                self._act(rules.RETURN, now)
            elif self.nfaces:
                self._act(rules.PLAY, now)
            else:
                self._error("wrong-count", now)
        elif code == K.PASS:
            self._act(rules.PASS, now)
        elif code == K.UNDO:
            if self.nfaces or self.as_key:
                self._clear_entry()
            else:
                self._undo()
        elif code == K.MENU:
            self.mode = REF
            self.ref_face = -1

    def _act(self, kind, now):
        game = self.game
        try:
            if kind == rules.PLAY:
                faces = self.faces[:self.nfaces]
                events = game.play(faces, self.value if self.value >= 0 else None)
            elif kind == rules.PASS:
                events = game.pass_turn()
            else:
                events = game.return_stick()
        except rules.IllegalAction as e:
            self._error(e.code, now)
            return
        try:
            self.journal.append(game)
        except OSError:
            game.undo()  # not on flash, so not accepted
            self._error("flash-full", now)
            return
        self._clear_entry()
        self._emit()
        if game.finished:
            self.mode = FINISHED
        self._announce(events, now)

    def _undo(self):
        game = self.game
        if game is None or not len(game):
            return
        try:
            self.journal.undo(game)   # on flash first: one 'undo' line appended
        except OSError:
            self._error("flash-full", self.clock())   # the action stays, as on the flash
            return
        game.undo()
        self.mode = PLAY
        self._clear_entry()
        self._emit()

    def _clear_entry(self):
        self.nfaces = 0
        self.as_key = False
        self.value = -1

    def _entry_value(self):
        """The value the entry plays as, or -1 while it is not one value."""
        if self.value >= 0:
            return self.value
        if self.as_key or not self.nfaces:
            return -1
        v = self.faces[0]
        for i in range(1, self.nfaces):
            if self.faces[i] != v:
                return -1
        return v

    def _entry_cost(self, value):
        total = 0
        for i in range(self.nfaces):
            c = cost(self.faces[i], value)
            if c is None:
                return -1
            total += c
        return total

    # --- quick reference ----------------------------------------------------------------------

    def _ref_key(self, code):
        if code <= K.H:
            if code == self.ref_face:
                self.ref_index += 1
            else:
                self.ref_face = code
                self.ref_index = 0
        elif code == K.MENU or code == K.DEL:
            self.mode = PLAY if self.game is not None and not self.game.finished else (
                FINISHED if self.game is not None else SETUP)

    # --- setup menu --------------------------------------------------------------------------

    def _setup_key(self, code, now):
        s = self.setup
        if code <= 15:
            if not s.digit(code):
                self.buzzer.play(REJECT, now)
        elif code == K.PLAY:
            step = s.next()
            if step == COMPLETE:
                self.new_game(now)
            elif step == TOO_MANY:
                self._error("no-such-card", now)   # more cards than the deck holds
        elif code == K.DEL:
            s.back()
        elif code == K.UNDO:
            s.reset_item()
        elif code == K.MENU and self.game is not None:
            self.mode = FINISHED if self.game.finished else PLAY

    # --- feedback ----------------------------------------------------------------------------

    def _error(self, code, now):
        self.err = ERRORS.get(code, b"Err")
        self.overlay = 1
        self.until = now + ERROR_MS
        self.buzzer.play(REJECT, now)

    def _announce(self, events, now):
        self.event = events
        self.event_seat = 0
        if events & (rules.OUT | rules.FORCED | rules.REVOLUTION):
            self.overlay = 2
            self.until = now + ANNOUNCE_MS
        self.buzzer.play(REVOLUTION if events & rules.REVOLUTION else ACCEPT, now)

    def _emit(self):
        if self.emit is not None:
            self.emit(to_json(self.game))

    # --- drawing -----------------------------------------------------------------------------

    def redraw(self, now=None):
        """Draw the panels for the current mode and send them to the displays."""
        buf = self.buf
        nd = self._shown()
        n = 0
        if self.overlay == 1:
            panels.text(buf, 0, self.err)
            panels.text(buf, 1, b"Err")
            n = 2
        elif self.overlay == 2:
            n = self._draw_announcement()
        elif self.mode == SETUP:
            self.setup.draw(buf, 0)
            panels.text(buf, 1, b"SEt")
            n = 2
        elif self.mode == REF:
            n = self._draw_ref()
        elif self.mode == FINISHED:
            n = self._draw_ranking()
        elif self.nfaces or self.as_key:
            # the entry first; with three or more displays the table stays in view
            if nd >= 3:
                self._draw_table(0)
                self._draw_faces(1)
                self._draw_preview(2)
                self._draw_turn(3)
                n = min(nd, 4)
            else:
                self._draw_faces(0)
                self._draw_preview(1)
                n = 2
        else:
            self._draw_table(0)
            self._draw_turn(1)
            self._draw_seat(2)
            self._draw_sticks(3)
            n = 4
        if n != self.count:
            self.page = 0
        self.count = n
        if self.overlay or self.nfaces:
            self.page = 0
        self.page_at = self.clock() if now is None else now
        self._flush()

    def _shown(self):
        """How many displays the panels are shared out over: those that answer (all of them
        while none does, so that the first to come up is drawn at once)."""
        n = 0
        for d in self.displays:
            if d.online:
                n += 1
        return n or len(self.displays)

    def _flush(self):
        buf = self.buf
        nd = self._shown()
        every = nd == len(self.displays)
        base = self.page * nd
        i = 0
        for d in self.displays:
            if not (every or d.online):
                continue   # its RAM is drawn when it answers again
            p = base + i
            i += 1
            o = p * panels.SIZE
            for pos in range(4):
                d.raw(pos, buf[o + pos] if p < self.count else 0)
            d.colon(p < self.count and buf[o + 4])

    def _draw_table(self, p):
        game = self.game
        buf = self.buf
        if game.top_value < 0:
            panels.text(buf, p, b"----")
            return
        panels.clear(buf, p)
        panels.number(buf, p, 0, 1, game.top_count)
        panels.put(buf, p, 1, panels.DASH)
        panels.card(buf, p, 2, game.top_value)

    def _draw_turn(self, p):
        game = self.game
        buf = self.buf
        panels.text(buf, p, b"P")
        panels.number(buf, p, 1, 1, game.turn)
        if game.revolution:
            panels.char(buf, p, 2, "r")
        panels.card(buf, p, 3, game.strongest())

    def _draw_seat(self, p):
        """Cards in hand of the seat to act; a bare seat must return a stick."""
        game = self.game
        if game.must_return():
            panels.text(self.buf, p, b"rEtn")
            return
        panels.text(self.buf, p, b"c")
        panels.number(self.buf, p, 1, 3, game.cards[game.turn - 1])

    def _draw_sticks(self, p):
        game = self.game
        panels.text(self.buf, p, b"St")
        panels.number(self.buf, p, 2, 2, game.sticks[game.turn - 1])

    def _draw_faces(self, p):
        buf = self.buf
        panels.clear(buf, p)
        shown = min(self.nfaces, 4)
        for i in range(shown):
            panels.card(buf, p, i, self.faces[i])
        if self.nfaces == 5:
            panels.dot(buf, p, 3)   # a fifth card: the point says "and one more"
        if not self.nfaces:
            panels.put(buf, p, 0, panels.DASH)

    def _draw_preview(self, p):
        """'=V' and the sticks it costs after the colon, e.g. '=9: 1'."""
        buf = self.buf
        panels.text(buf, p, b"=")
        value = self._entry_value()
        panels.card(buf, p, 1, value)
        panels.colon(buf, p)
        c = self._entry_cost(value) if value >= 0 else -1
        if c < 0:
            panels.put(buf, p, 3, panels.DASH)
        else:
            panels.number(buf, p, 2, 2, c)

    def _draw_announcement(self):
        buf = self.buf
        events = self.event
        game = self.game
        if events & rules.FINISHED:
            return self._draw_ranking()
        if events & rules.OUT:
            panels.text(buf, 0, b"out")
            panels.text(buf, 1, b"P")
            panels.number(buf, 1, 1, 1, game.ranking[-1])
        elif events & rules.FORCED:
            panels.text(buf, 0, b"PASS")
            panels.text(buf, 1, b"ALL")
        else:
            panels.text(buf, 0, b"rEuo")
            panels.text(buf, 1, b"Hi")
            panels.card(buf, 1, 3, game.strongest())
        self._draw_turn(2)
        self._draw_table(3)
        return 4

    def _draw_ranking(self):
        game = self.game
        buf = self.buf
        panels.text(buf, 0, b"End")
        n = 1
        for i in range(min(len(game.ranking), MAX_PANELS - 1)):
            panels.clear(buf, n)
            panels.number(buf, n, 0, 1, i + 1)
            panels.char(buf, n, 2, "P")
            panels.number(buf, n, 3, 1, game.ranking[i])
            n += 1
        return n

    def _draw_ref(self):
        buf = self.buf
        panels.text(buf, 1, b"rEF")
        if self.ref_face < 0:
            panels.text(buf, 0, b"rEF")
            panels.text(buf, 1, b"----")
            return 2
        values = self.game.values if self.game is not None else (18 if self.setup.expansion else 16)
        options = becomes(self.ref_face, values)
        value, c = options[self.ref_index % len(options)]
        panels.clear(buf, 0)
        panels.card(buf, 0, 0, self.ref_face)
        panels.put(buf, 0, 1, panels.DASH)
        panels.card(buf, 0, 2, value)
        panels.dot(buf, 0, 2)
        panels.number(buf, 0, 3, 1, c)
        return 2
