"""The terminal simulator's session: the box plus what the screen needs to know about it (the
mode, the game, notes, the tone heard), the virtual clock kept up with the wall clock, and the
keyboard's actions carried out on the box."""
import time

from host_tools.terminal.words import QUIT_UNKEPT, firmware_errors, firmware_tones, tone_words
from host_tools.virtual.board_link import GAP_MS, LONG_MS

BANNER = "SIMULATION - virtual Pico, no hardware"
PICO_BANNER = "EMULATED RP2040 - the Pico's MicroPython, no hardware"
MAX_STEP_MS = 500     # virtual time granted at most per update (a stalled terminal skips time)
PICO_STEP_MS = 100    # the same on the emulated Pico, which runs at about half of real time:
                      # short steps keep the keyboard answering (its clock then runs slow)
NOTE_MS = 4000        # how long a note from the simulator stays
TONE_MS = 1500        # how long the status line shows a tone of the buzzer


class Session:
    """The box plus what the screen needs to know about it."""

    def __init__(self, box, keeps=True):
        self.box = box
        self.keeps = keeps        # whether the box's flash outlives the simulator (--flash)
        self.quitting = False     # q pressed once with a game that is not kept: asked
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
            if self.keeps or self.quitting or not self.unkept():
                return False
            self.quitting = True
            self.say(QUIT_UNKEPT, until_key=True)
            return True
        self.quitting = False
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

    def unkept(self):
        """Whether quitting now loses a game: one set up or played, and no --flash folder."""
        return not self.keeps and self.game is not None

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
