"""The host's end of the simulator's line protocol (docs/simulator.md), spoken once for every
board process the host drives: the unix port's virtual box (virtual/box.py, VBox) and the
emulated Pico (virtual/emulated_pico.py).

A board process takes commands on its stdin, one a line (`k PLAY 1`, `u 72`, `t 60`), and
reports `@`-lines on its stdout. BoardLink holds the chip model of every fitted display (from
the pin map), the keys held and the displays unplugged; it queues inputs for the next
advance, sends commands and reads the board's lines against a deadline. A board provides
advance(ms), `on`, _queue(command), _read_until(kind) (what each `@`-line means to it),
_ended() (the process went away) and _silent() (no answer in time); both raise.
"""
import os
import select
import time

from host_tools import resources
from host_tools.virtual.ht16k33 import VirtualHT16K33

# Key names the box knows, upper case (hex faces also in lower case): the firmware's own table.
KEY_NAMES = resources.firmware_module("box.keys").NAMES
# The keys besides the hex faces (G, H, AS, PLAY, ...), in the firmware's order.
BUTTONS = KEY_NAMES[16:]

HOLD_MS = 60   # a key press as a person makes it
GAP_MS = 60
LONG_MS = 1000  # comfortably past the firmware's 700 ms long press


def key_name(name):
    """The canonical name of a key (upper case), or ValueError naming the unknown key."""
    canon = str(name).upper()
    if canon not in KEY_NAMES:
        raise ValueError("unknown key %r (keys: %s)" % (name, " ".join(KEY_NAMES)))
    return canon


class BoardLink:
    """Keys, display plugs, the displays' chip models and the line protocol of a board process
    driven from the host. `timeout`: wall seconds to wait for a line; `flush_torn` (a class
    attribute): whether a last line without its newline is still read when the process ends."""

    flush_torn = False

    def __init__(self, devices=None, timeout=30.0):
        self.pinmap = resources.load_pinmap()
        self.addresses = [d["address"] for d in self.pinmap["displays"]]
        self.devices = list(self.addresses if devices is None else devices)
        self.chips = {a: VirtualHT16K33(a) for a in self.devices}
        self.timeout = timeout
        self.held = set()       # keys the host holds down (kept over power cycles)
        self.unplugged = set()  # display addresses pulled off the bus
        self.proc = None
        self._pending = []
        self._buf = b""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- inputs: each becomes a command to the board, sent with the next advance -------------

    def press(self, name):
        """Hold a key down (takes effect at the next advance; kept while the box is off)."""
        name = key_name(name)
        self.held.add(name)
        self._queue("k %s 1" % name)

    def release(self, name):
        name = key_name(name)
        self.held.discard(name)
        self._queue("k %s 0" % name)

    def release_all(self):
        """Let go of every key."""
        for name in sorted(self.held):
            self.release(name)

    def tap(self, name, hold=HOLD_MS, gap=GAP_MS):
        """Press, hold `hold` ms, release, wait `gap` ms."""
        self.press(name)
        self.advance(hold)
        self.release(name)
        self.advance(gap)

    def long_press(self, name, hold=LONG_MS, gap=GAP_MS):
        self.tap(name, hold, gap)

    def keys(self, names, hold=HOLD_MS, gap=GAP_MS):
        """Tap each key of a list or a space-separated string; stops early on a power cut."""
        if isinstance(names, str):
            names = names.split()
        for name in names:
            if not self.on:
                return
            self.tap(name, hold, gap)

    def unplug(self, addr):
        """Pull a display off the bus: its writes (and reads) get no ACK from now on."""
        self.unplugged.add(addr)
        if addr in self.chips:
            self.chips[addr].plugged = False
        self._queue("u %02x" % addr)

    def replug(self, addr):
        """Plug a display back in: it powers up blank until the firmware sets it up again."""
        self.unplugged.discard(addr)
        if addr in self.chips:
            self.chips[addr].plugged = True
        self._queue("p %02x" % addr)

    # --- outputs ------------------------------------------------------------------------------

    def displays(self):
        """What each fitted display shows, in pin-map order: '' when it is dark (unplugged,
        not set up, switched off), else the reading of VirtualHT16K33.text()."""
        out = []
        for a in self.addresses:
            chip = self.chips.get(a)
            if chip is None:
                continue
            out.append(chip.text() if chip.plugged and chip.lit else "")
        return out

    # --- the line protocol --------------------------------------------------------------------

    def _send(self, commands):
        if not commands:
            return
        data = "".join(c + "\n" for c in commands).encode()
        try:
            self.proc.stdin.write(data)
        except (BrokenPipeError, OSError):
            self._ended()

    def _lines(self):
        """The board's lines as they come; _silent() when none comes in time."""
        deadline = time.monotonic() + self.timeout
        fd = self.proc.stdout.fileno()
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line, self._buf = self._buf[:nl], self._buf[nl + 1:]
                yield line.decode("utf-8", "replace")
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                self._silent()
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    if self._buf and self.flush_torn:
                        self._buf += b"\n"
                        continue
                    self._ended()
                self._buf += chunk
