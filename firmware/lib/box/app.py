"""The box's user interface: keys in, engine calls, journal writes, panels out (drawn by box.screens).

Modes: SETUP (the new-game menu), PLAY (entering plays), REF (quick reference) and
FINISHED (the final ranking). Errors and announcements are shown for a moment on top of
any mode and never wait for a key: the next key press clears them and is handled at once.

The setup menu (box.setup, its keys and the start of a new game with it) is imported when it
opens and let go once a game starts from it (the choices it had are the journal's to remember),
so a game is played without it in the heap: the official MicroPython loads a module's code from
the Pico's filesystem into RAM.
"""
try:
    from micropython import const
except ImportError:
    def const(x):
        return x

import box
from box import ticks_diff
from box import keys as K
from box import panels, screens
from box.buzzer import ACCEPT, REJECT, REVOLUTION
from box.screens import ANNOUNCE, ERROR, FINISHED, MAX_PANELS, NONE, NOTICE, PLAY, REF, SETUP
from tycoon import game as engine
from tycoon.writer import to_json

ERROR_MS = const(2000)
ANNOUNCE_MS = const(1500)
PAGE_MS = const(2000)
# Every REFRESH_MS one display in turn is checked (HT16K33.check(): its canary read back, 5
# bytes on the bus; its setup and whole RAM sent again, 24 bytes, only when the canary is
# gone): a chip unplugged and plugged back between two writes powers up dark, and no write
# failed to tell. With four displays each is checked once a minute; a display that misses a
# write is retried every second (box.ht16k33) and does not wait for its turn.
REFRESH_MS = const(15000)


class App:
    """One box: displays (1-4 HT16K33), keys, buzzer, journal, clock and a serial emitter."""

    link = None   # the uplink the main loop steps between keys, if any (set on the instance)
    # The keys' long presses (box.runtime.keypad enables them): MENU opens the setup menu, DEL
    # clears the entry; no other key has one.

    def __init__(self, displays, keys, buzzer, journal, ticks_ms, emit=None):
        self.displays = displays
        self.keys = keys
        self.buzzer = buzzer
        self.journal = journal
        self.clock = ticks_ms
        self.emit = emit
        self.game = None  # type: engine.Game | None
        self.setup = None           # the setup menu (box.setup's Setup) while it is in use
        self.entry = screens.Entry()   # the play being keyed
        self.view = screens.View()  # mode, overlay and what they show
        self.buf = bytearray(panels.SIZE * MAX_PANELS)
        self.count = 0              # panels drawn
        self.until = 0              # end of the error or announcement on screen
        self.emit_due = False       # a state line to send on the serial after this key
        self.drawn = False          # this key's new state is drawn and sent already
        self.refused = False        # the last key was refused: a face key starts a new entry
        self.page = 0
        self.page_at = 0
        self.refresh_at = ticks_ms()
        self.refresh_next = 0       # the display whose turn it is to be re-sent

    def _home(self):
        """Back to where the game stands: PLAY, FINISHED, or the setup menu without a game."""
        game = self.game
        if game is None:
            self._menu()
        else:
            self.view.mode = FINISHED if game.finished else PLAY

    def _menu(self):
        """Open the setup menu at its first item, with the choices it had, or the journal's
        last setup when box.setup is not loaded."""
        box.forget("box.ref")   # when it opens from the quick reference
        if self.setup is None:
            from box.setup import Setup
            self.setup = Setup()
            saved = self.journal.load_setup()
            self.journal.forget_reader()   # the reading loaded at boot or for this, let go
            if saved:
                self.setup.restore(saved)
        self.setup.begin()
        self.view.mode = SETUP

    # --- main loop ----------------------------------------------------------------------------

    def step(self):
        """One pass of the main loop: keys, timers, displays, buzzer. Returns how many key
        events it handled."""
        now = self.clock()
        n = self.keys.poll(now)
        for i in range(n):
            self.key(self.keys.events[i], now)
        if self.view.overlay and self.view.overlay != NOTICE and ticks_diff(now, self.until) >= 0:
            self.view.overlay = NONE
            self.redraw()
        nd = self.shown()
        if self.count > nd and ticks_diff(now, self.page_at) >= PAGE_MS:
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
        if ticks_diff(now, self.refresh_at) >= REFRESH_MS:
            self.refresh_at = now
            d = self.displays[self.refresh_next]
            self.refresh_next = (self.refresh_next + 1) % len(self.displays)
            d.check()
        self.buzzer.service(now)
        return n

    def key(self, event, now=None):
        """Handle one key event (a code, or LONG | code)."""
        if now is None:
            now = self.clock()
        if self.view.overlay == NOTICE:   # the first key only takes the notice away
            self.view.overlay = NONE
            self.redraw(now)
            return
        self.view.overlay = NONE
        self.drawn = False
        code = event & K.CODE
        if event & K.LONG:
            if code == K.MENU:
                self._menu()
            elif code == K.DEL and self.view.mode == PLAY:
                self.entry.clear()
        elif self.view.mode == SETUP:
            self.setup.key(self, code, now)
        elif self.view.mode == REF:
            from box import ref
            if ref.key(self.view, code):
                self._home()
                box.forget("box.ref")
        elif self.view.mode == FINISHED:
            if code == K.UNDO:
                self._undo()
            elif code == K.MENU:
                self._menu()
        else:
            self._play_key(code, now)
        if not self.drawn:   # PLAY, PASS and UNDO draw and send before the flash is written
            self.redraw(now)
        if self.emit_due:   # the state line goes out after the displays: they come first
            self.emit_due = False
            if self.emit is not None:
                self.emit(to_json(self.game))

    # --- playing -------------------------------------------------------------------------------

    def _play_key(self, code, now):
        entry = self.entry
        after_refusal, self.refused = self.refused, False
        if code <= K.H:
            if after_refusal:   # a face key starts a new entry (DEL and AS mend the refused one)
                entry.clear()
            # a player who must return a stick plays no cards: only PLAY (the return) or UNDO
            refused = "must-return" if self.game.must_return() else entry.face(code)
            if refused is not None:
                self._error(refused, now)
        elif code == K.AS:
            entry.toggle_as()
        elif code == K.DEL:
            entry.delete()
        elif code == K.PLAY:
            if self.game.must_return():
                self._act(engine.RETURN, now)
            elif entry.n:
                self._act(engine.PLAY, now)
            else:
                self._error("wrong-count", now)
        elif code == K.PASS:
            self._act(engine.PASS, now)
        elif code == K.UNDO:
            if entry.keyed():
                entry.clear()
            else:
                self._undo()
        elif code == K.MENU:
            self.view.mode = REF
            self.view.ref_face = -1

    def _act(self, kind, now):
        game = self.game
        entry = self.entry
        try:
            events = game.apply(kind, entry.faces[:entry.n],
                                entry.declared if entry.declared >= 0 else None)
        except engine.IllegalAction as e:
            self._error(e.code, now)
            return
        # The displays first, then the flash: the players see the play at once (appending to
        # a journal takes milliseconds, an erase tens of them on a Pico). The beep and the
        # state line wait for the journal; a cut before the line is on flash loses only this
        # action, as a cut just before the key would.
        keyed = entry.save()
        entry.clear()
        self._home()
        self._announce(events, now)
        self._draw_now(now)
        try:
            self.journal.append(game)
        except OSError:
            game.undo()  # not on flash, so not accepted: back to the entry as it was
            entry.restore(keyed)
            self._home()
            self._error("flash-full", now)
            return
        self.buzzer.play(REVOLUTION if events & engine.REVOLUTION else ACCEPT, now)
        self._emit()
        self.journal.checkpoint(game)   # the resume snapshot, when due: after all the rest

    def _undo(self):
        game = self.game
        last = None if game is None else game.last_action()
        if last is None:
            self.buzzer.play(REJECT, self.clock())   # nothing to take back
            return
        # As for PLAY and PASS, the displays first: the game one action back is drawn and
        # sent, then the 'undo' line goes on flash.
        game.undo()
        self._home()
        self.entry.clear()
        now = self.clock()
        self._draw_now(now)
        try:
            self.journal.undo(game, last)   # one 'undo' line appended
        except OSError:   # the journal put the action back into the game, as on the flash
            self._home()
            self._error("flash-full", now)
            return
        self._emit()
        self.journal.checkpoint(game)

    # --- feedback ----------------------------------------------------------------------------

    def _error(self, code, now):
        self.refused = True
        self.view.err = screens.error_slot(code)
        self.view.overlay = ERROR
        self.drawn = False   # drawn by key() with the error on top
        self.until = now + ERROR_MS
        self.buzzer.play(REJECT, now)

    def _announce(self, events, now):
        self.view.event = events
        if events & (engine.OUT | engine.FORCED | engine.REVOLUTION):
            self.view.overlay = ANNOUNCE
            self.until = now + ANNOUNCE_MS

    def _emit(self):
        self.emit_due = True   # sent by key() once the displays are drawn

    # --- drawing -----------------------------------------------------------------------------

    def redraw(self, now=None):
        """Draw the panels for the current mode and send them to the displays."""
        n = screens.draw(self, self.shown())
        if n != self.count:
            self.page = 0
        self.count = n
        if self.view.overlay or self.entry.n:
            self.page = 0
        self.page_at = self.clock() if now is None else now
        self._flush()

    def _draw_now(self, now):
        """Draw and send at once (the main loop would send after this key): the new state is
        on the displays before the flash is written."""
        self.redraw(now)
        for d in self.displays:
            d.show()
        self.drawn = True

    def shown(self):
        """How many displays the panels are shared out over: those that answer (all of them
        while none does, so that the first to come up is drawn at once)."""
        n = 0
        for d in self.displays:
            if d.online:
                n += 1
        return n or len(self.displays)

    def _flush(self):
        """Send the panels of the current page to the displays (only changed bytes go out)."""
        buf = self.buf
        nd = self.shown()
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


def loop(hw, app):
    """The main loop of a booted app, forever: between two passes over the keys, a step of
    the app's link (app.link: the hall's MQTT link, or the USB link) when it has one and no
    key is down, settling or bouncing. A step never waits on what it carries and gives one
    journal line at most, but may take a millisecond or two on a Pico (a block of the journal
    read from flash): a key that goes down meanwhile is read right after it, and no step runs
    until the key is up again. Without a link the loop only polls the USB serial's input
    (hw.usb; ipoll allocates nothing), and its first bytes start the USB link
    (box.usb_link). After a pass that handled a key the garbage is collected (about 3 ms on
    a Pico, emulated): MicroPython's allocator searches past all garbage since the last
    collection, so the next key's allocations would grow slower through a game. The link's
    steps leave garbage between keys too: it is collected when a key goes down, while the key
    settles (its 20 ms debounce), so that the key's work does not meet it."""
    import gc
    import select
    usb = select.poll()
    usb.register(hw.usb, select.POLLIN)
    raw, settled = app.keys._raw, app.keys._state   # the keys as last read, 1 = down
    stepped = False   # the link stepped since the last collection
    while True:
        if app.step():
            gc.collect()   # a key's work is done: its garbage goes now, not in a later key's
            stepped = False
        if app.link is not None:
            if raw.find(b"\x01") < 0 and settled.find(b"\x01") < 0:
                app.link.step()
                stepped = True
            elif stepped:
                gc.collect()
                stepped = False
        else:
            for _ in usb.ipoll(0):
                from box.usb_link import UsbLink
                app.link = UsbLink(hw, app, usb)
                break
        hw.idle()
