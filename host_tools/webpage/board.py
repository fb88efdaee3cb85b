"""The box's `hw` in a web page: runs under MicroPython WebAssembly next to the real firmware.

The page (page.js) calls these functions; everything else is the firmware's own code:
- boot(now): build the board and start the app (box.runtime.start: the journalled game
  resumes, as after a power cut); step(now): one main-loop pass at the page's clock. The wasm
  build runs Python only when JavaScript calls it, so the page drives the loop from a timer
  instead of box.runtime.run's endless loop.
- key(name, down): a key or button held or let go; the firmware's own scan reads the pins.
- The displays are host_tools/virtual/ht16k33.py (the one chip model) on a VirtualBus; the
  keypad wires are host_tools/virtual/mpy/parts.py's (ColumnPin, ButtonPin and the matrix).
- The journal's files live in the emulated filesystem; after a step that wrote them the page
  copies them to the browser's storage (flash_dirty()), and puts them back before boot().
- record(): the game as plain notation; load(path): a record checked by the same reader as
  `matchbox replay` (host_tools/reports/replay_portable.py), then installed as the current game.
Each step answers with one JSON text of what changed (displays, tones, state lines, log).
"""
import json

import parts
import replay_portable
import state_log
from ht16k33 import VirtualBus, VirtualHT16K33
from box import journal as box_journal, pins, runtime
from box.setup import HANDS
from tycoon import notation

MASK = parts.MASK
MODES = ("setup", "play", "ref", "finished")   # box.screens' modes, by number


class Buzzer(parts.PWM):
    """The virtual board's machine.PWM-like buzzer (parts.PWM): each change of tone is kept
    for the page (which plays it)."""

    def _report(self):
        self.board.tones.append((self._freq, self._duty))


class PageStore(box_journal.Store):
    """box.journal.Store on the page's filesystem, noting every write so the page can save
    the files to the browser's storage at the end of the step."""

    def __init__(self, board):
        self.board = board

    def open(self, path, mode):
        if "r" not in mode or "+" in mode:
            self.board.dirty = True
        return box_journal.Store.open(self, path, mode)

    def rename(self, src, dst):
        self.board.dirty = True
        box_journal.Store.rename(self, src, dst)

    def remove(self, path):
        self.board.dirty = True
        box_journal.Store.remove(self, path)

    def mkdir(self, path):
        self.board.dirty = True
        box_journal.Store.mkdir(self, path)


class PageBoard(parts.VirtualBoard):
    """The virtual board's keypad wiring (parts.VirtualBoard), with the page's displays,
    buzzer, clock and file store."""

    def __init__(self, pinmap, now):
        addresses = pins.addresses(pinmap)
        parts.VirtualBoard.__init__(self, pinmap, addresses, t0=now)
        self.chips = [VirtualHT16K33(a) for a in addresses]
        self.i2c = VirtualBus(self.chips)
        self.pwm = Buzzer(self) if pinmap.get("buzzer") else None
        self.tones = []
        self.flash = PageStore(self)
        self.dirty = False
        self.lines = []       # hw.emit lines not yet handed to the page
        self.seen = [-1] * len(self.chips)   # chip transactions drawn so far
        self.where = None     # the app's mode and setup item last told to the page
        self.hw = PageHW(self)

    def idle(self):
        pass   # time passes between the page's timer calls


class PageHW(parts.HW):
    """The virtual board's `hw` (parts.HW, the contract: docs/architecture.md) as the page
    needs it: no watchdog, as nothing can hang between two timer calls of the page, and the
    emitted lines kept for the page."""

    def __init__(self, board):
        parts.HW.__init__(self, board)
        self.app = None

    def watchdog(self, timeout_ms=8000):
        pass

    def stop_watchdog(self):
        pass

    def feed(self):
        pass

    def emit(self, line):
        self.board.lines.append(line)


_board = None
_state = None    # the last state seen, for the log
_app = None


def boot(now):
    """Power up: the board, then the firmware's app on it. Returns the first frame."""
    global _board, _app, _state
    m = pins.load()
    _board = PageBoard(m, int(now) & MASK)
    _state = None
    _app = runtime.start(_board.hw, m)
    if _app.game is not None:
        _board.lines.append(_json_state())
    return frame(True)


def _json_state():
    from tycoon.writer import to_json
    return to_json(_app.game)


def step(now):
    """One main-loop pass at the page's clock (ms). Returns a frame, "" when nothing changed."""
    _board.now = int(now) & MASK
    _app.step()
    return frame(False)


def key(name, down):
    """Hold (down true) or let go of a key: a keypad face or a button name."""
    if down:
        _board.down.add(name.upper())
    else:
        _board.down.discard(name.upper())


def frame(full):
    """JSON of what changed since the last frame: "d" displays (masks, colon, lit) and "t"
    their reading in text (for screen readers), "b" tones (hz, duty), "s" the last state with
    "order" and "table", "log" what happened (entries of state_log.PHRASES: the page words
    them in the reader's language), "m" the app's mode and setup item [MODES name, item or
    -1] when they changed, "flash" when the journal's
    files changed; "" for nothing."""
    global _state
    b = _board
    out = {}
    shown = []
    changed = full
    for i, chip in enumerate(b.chips):
        if chip.transactions != b.seen[i]:
            b.seen[i] = chip.transactions
            changed = True
        shown.append(chip.digits() + [1 if chip.colon else 0, 1 if chip.plugged and chip.lit else 0])
    if changed:
        out["d"] = shown
        out["t"] = [chip.text() if chip.plugged and chip.lit else "" for chip in b.chips]
    if b.tones:
        out["b"] = b.tones
        b.tones = []
    if b.lines:
        log = []
        for line in b.lines:
            cur = state_log.parse_state(line)
            if cur is not None:
                log += state_log.entries(_state, cur)
                _state = cur
                out["s"] = cur
                out["order"] = state_log.order_entry(cur)
                out["table"] = state_log.table_entry(cur)
        b.lines = []
        out["log"] = log
    view = _app.view.mode
    where = [MODES[view], min(_app.setup.item, HANDS) if view == 0 and _app.setup else -1]
    if full or where != b.where:
        b.where = where
        out["m"] = where
    if b.dirty:
        out["flash"] = 1
        b.dirty = False
    return json.dumps(out) if out else ""


def record():
    """The game in plain notation (header and one line per action), "" without a game."""
    if _app is None or _app.game is None:
        return ""
    return notation.write(_app.game)


def load(path, name):
    """Check the record in file `path` (named `name` to the player) with the reader of
    `matchbox replay`; when it is sound, archive the game in progress and power up with it as
    the current game. Returns "" when loaded, else the error (JSON of an entry [key, {name:
    value}] of the page's words), and then nothing changed."""
    game, error = replay_portable.replay(path)
    if error is not None:
        return json.dumps(["web_refused", {"name": name, "line": error[0], "kind": error[1],
                                           "code": error[2]}])
    if game is None:
        return json.dumps(["web_no_game_in", {"name": name}])
    journal = _app.journal
    if _app.game is not None:
        try:
            journal.archive(_app.game)
        except OSError:
            return json.dumps(["web_storage_full", {"name": name}])
    journal.start(game)
    _board.dirty = True
    return ""
