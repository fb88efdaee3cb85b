"""The USB transport of the box's uplink, for a Pico without radio (docs/hall.md).

`matchbox uplink` on a computer beside the box carries the journal lines between the box's
USB serial and the hall's broker. The journal's cursor is box.uplink.Cursor; this module only
moves its lines. Every line either way starts with `hall ` (never a state line's `{`, never
the REPL's output; at the REPL it is a syntax error that runs nothing):

    computer -> box   hall hello            a new connection to the broker: wait for the
                                            hall's acknowledgement, then send from it
                      hall ack {"hall": "5e0c2a91", "game": "003-1a2b3c4d", "seq": 7}
                      hall ping             is the box there, with an acknowledgement?
    box -> computer   hall ready            the answer to hello
                      hall pong 1           the answer to ping (0: no acknowledgement yet)
                      hall line {"game": "003-1a2b3c4d", "seq": 8, "line": "...", "prev": null}
                      hall error: WHY       a line from the computer that was dropped

box.runtime's loop creates the link when the first bytes arrive on the USB serial (until
then the box holds nothing of it but the loop's poll of hw.usb) and steps it after a pass
over the keys while none is down. A step is short (a key that goes down meanwhile waits for
it): it reads READ bytes at most of what waits, and either takes one whole line from the
computer (at most MAX_IN bytes; a longer one is dropped with an error line, and the link goes
on) or sends one journal line at most. When the journal had nothing new, the cursor rests
until the journal writes (or the computer says something).
"""
import json

from box import ticks_diff
from box.uplink import Cursor, message

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

MAX_IN = const(160)     # a line from the computer, without its newline (an ack is < 100 B)
READ = const(8)         # bytes read from the USB serial at most in one step (a byte at a
                        # time, about 0.1 ms each on the emulated Pico: the Pico's stdin has
                        # no read of all that waits)
PREFIX = "hall "


class UsbLink:
    """The link of one box: `hw` its board (usb, emit(), ticks_ms), `app` the running App (its
    journal's folder and store), `poll` a select.poll with hw.usb registered."""

    def __init__(self, hw, app, poll):
        self.hw = hw
        self.poll = poll
        self.one = bytearray(1)
        self.cursor = Cursor(app.journal.store, app.journal.root, app.journal)
        self.buf = bytearray(MAX_IN)
        self.n = 0            # bytes of the line being read
        self.over = False     # the line being read is longer than MAX_IN: dropped at its end
        self.sent = 0         # journal lines sent since the link started

    def step(self):
        hw = self.hw
        one = self.one
        k = 0
        while k < READ and _waiting(self.poll) and hw.usb.readinto(one) == 1:
            if self._byte(one[0]):
                return   # a line from the computer was taken: that is this step's work
            k += 1
        now = hw.ticks_ms()
        cursor = self.cursor
        cursor.stalled(now, ticks_diff)
        if cursor.resting(now, ticks_diff):
            return
        item = cursor.next(now)
        if item is not None:
            hw.emit(PREFIX + "line " + message(item))
            self.sent += 1

    def _byte(self, b):
        """Take one byte from the computer; True at the end of a line."""
        if b == 10:   # end of line
            n, over = self.n, self.over
            self.n = 0
            self.over = False
            if over:
                self._error("a line of more than %d bytes" % MAX_IN)
            elif n:
                self._line(bytes(self.buf[:n]))
            return True
        if b == 13 or self.over:
            pass
        elif self.n < MAX_IN:
            self.buf[self.n] = b
            self.n += 1
        else:
            self.over = True
        return False

    def _error(self, why):
        self.hw.emit(PREFIX + "error: %s, dropped" % why)

    def _line(self, data):
        self.cursor.idle = None   # whatever the computer says, the journal is looked at again
        if not data.startswith(b"hall "):
            self._error("not a hall line")
            return
        try:
            text = data[5:].decode()
        except UnicodeError:
            self._error("not UTF-8")
            return
        if text == "hello":
            self.cursor.connected()
            self.hw.emit(PREFIX + "ready")
            return
        if text == "ping":   # 0: this link has no acknowledgement (the box started again)
            self.hw.emit(PREFIX + ("pong 0" if self.cursor.boot is None else "pong 1"))
            return
        if not text.startswith("ack "):
            self._error("unknown: %s" % text[:20])
            return
        try:
            ack = json.loads(text[4:])
        except ValueError:
            self._error("ack: not JSON")
            return
        if not isinstance(ack, dict):
            self._error("ack: not a JSON object")
            return
        boot = ack.get("hall")
        game = ack.get("game")
        seq = ack.get("seq", 0)
        if not isinstance(boot, str) or not boot:
            self._error("ack: no hall id")
        elif game is not None and not (isinstance(game, str) and _game(game)):
            self._error("ack: game is not a game id (NNN-crc32)")
        elif not isinstance(seq, int) or isinstance(seq, bool) or seq < 0 or seq > 10000000:
            self._error("ack: seq is not a line number")
        else:
            self.cursor.ack(boot, game, seq if game is not None else 0, self.hw.ticks_ms())


def _waiting(poll):
    """Whether bytes wait: MicroPython's ipoll(0), which allocates nothing (CPython: poll)."""
    for _ in poll.ipoll(0) if hasattr(poll, "ipoll") else poll.poll(0):
        return True
    return False


def _game(game):
    """Whether `game` looks like a game id: 3 to 6 digits, '-', 8 lowercase hex digits."""
    number, _, crc = game.partition("-")
    if not 3 <= len(number) <= 6 or not number.isdigit() or len(crc) != 8:
        return False
    for ch in crc:
        if ch not in "0123456789abcdef":
            return False
    return True
