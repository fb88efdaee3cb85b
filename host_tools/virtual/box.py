"""The virtual box: the real firmware under the MicroPython unix port on virtual hardware.

`VBox` starts `micropython host_tools/virtual/mpy/board.py` with a folder as the box's flash (the
working directory: the pin map at its root, the journal in games/) and the firmware's lib on
MICROPYPATH. It speaks the line protocol of docs/simulator.md: the board reports I2C writes,
which go to one `VirtualHT16K33` per display address of the pin map; the host sets keys,
unplugs displays and grants virtual time. Nothing runs between two calls: the board waits
in its main loop's idle() until the host lets time pass (`advance`).

    with VBox() as box:
        box.boot()
        box.tap("PLAY")
        print(box.displays(), box.state(), box.journal_text())
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from host_tools import resources
from host_tools.device import tools
from host_tools.errors import MatchboxError
from host_tools.files import write_whole
from host_tools.virtual.board_link import HOLD_MS, LONG_MS, BoardLink, key_name

MPY = resources.VIRTUAL_MPY
LIB = resources.FIRMWARE_LIB
MAIN = os.path.join(resources.FIRMWARE, "main.py")


class BoxError(MatchboxError):
    """The board process misbehaved: crashed, stopped answering, or refused a command."""


def _last_words(console):
    """': its last output was "..."' from the board's console lines, or ' (it printed
    nothing)': the end of a one-line message about a board that failed."""
    lines = [line.strip() for line in console if line.strip()]
    if not lines:
        return " (it printed nothing)"
    return ": its last output was %r" % lines[-1][:200]


def parse_keys(text):
    """The key words as steps: ("key", NAME, hold_ms) or ("wait", None, ms).
    ValueError names the first word that is not a key."""
    steps = []
    for word in text.split():
        name, sep, arg = word.partition(":")
        if name.upper() == "WAIT":
            if not arg.isdigit():
                raise ValueError("WAIT needs milliseconds, as in WAIT:500 (got %r)" % word)
            steps.append(("wait", None, int(arg)))
            continue
        try:
            name = key_name(name)
        except ValueError:
            raise ValueError("unknown key %r in --keys" % word) from None
        if not sep:
            hold = HOLD_MS
        elif arg.lower() == "long":
            hold = LONG_MS
        elif arg.isdigit() and int(arg) > 0:
            hold = int(arg)
        else:
            raise ValueError("unknown key %r in --keys (NAME, NAME:long or NAME:MS)" % word)
        steps.append(("key", name, hold))
    return steps


def setup_keys(players, dealer=1, expansion="none", revolution=5, sticks=40, hands=None):
    """The keys that fill the box's setup menu from its first item and start the game
    (every item is typed in full, so earlier choices do not matter)."""
    from tycoon.game import EXPANSIONS, default_hands
    if hands is None:
        hands = default_hands(players, expansion)
    keys = [str(players), "PLAY", str(dealer), "PLAY", str(2 * EXPANSIONS.index(expansion)),
            "PLAY", str(revolution), "PLAY"]
    for n in [sticks] + list(hands):
        keys += ["%d" % (n // 10 % 10), "%d" % (n % 10), "PLAY"]
    return keys


def action_keys(kind, seat=None, faces=(), value=-1, explicit=False):
    """The keys that enter one action (an Action's fields, as Game.actions() gives them) on
    the box: the faces, AS and the value when the record says `as`, then PLAY; PASS; PLAY to
    return a stick."""
    from tycoon.cards import char
    from tycoon.game import PASS, PLAY
    if kind == PASS:
        return ["PASS"]
    if kind != PLAY:
        return ["PLAY"]
    keys = [char(f) for f in faces]
    if explicit:
        keys += ["AS", char(value)]
    return keys + ["PLAY"]



def read_record(path):
    """(bytes, warning) of a game record to put on the box's flash. MatchboxError naming the
    file when it cannot be read or is larger than MAX_RECORD. A record the rules reject is
    still returned with a warning naming the file and the line and saying what the box does
    with it (its resume: docs/journal.md); the warning is None for a clean record."""
    from host_tools.errors import MAX_RECORD, read_bounded
    data = read_bounded(path, MAX_RECORD, "game record")
    error, verdict, repaired = boot_verdict(data)
    notes = ["%s:%d: repaired: a damaged line, read as the one action its checksum tag allows "
             "(the box shows rEPr)" % (path, number) for number in repaired]
    if error is not None:
        notes.append("%s:%d: %s: %s (%s)" % (path, error[0], error[1], error[2], verdict))
    return data, "; ".join(notes) or None


def boot_verdict(data):
    """(error, what the box's resume does with a record of these bytes, the lines repaired by
    their checksum tags): error None for a clean record, else (line, kind, code) and the
    verdict in words."""
    import io
    from tycoon import notation
    reader = notation.Reader()
    error = reader.read(io.BytesIO(data))
    repaired = reader.repaired
    if error is None:
        return None, None, repaired
    game = reader.game
    full = len(reader.header) == len(notation.HEADERS)
    if game is None and full:
        try:
            game = reader.finish()
        except notation.NotationError:
            game = None
    if not data.strip():
        return error, ("the record is empty: the box puts it aside as games/broken.txt and "
                       "opens the setup menu"), repaired
    if game is None or (reader.tagged == 1 and not full):   # a header the box wrote is whole
        return error, ("no game to resume: the box puts the record aside as games/broken.txt, "
                       "shows LoSt and opens the setup menu"), repaired
    if error[2].startswith("last line without a newline"):
        return error, "cut short: the box drops this last line and resumes before it", repaired
    return error, ("the box resumes from the %d line%s before it, keeps the whole record as "
                   "games/damaged/NNN-current.txt and shows LoSt" % (
                       error[0] - 1, "" if error[0] == 2 else "s")), repaired


def micropython():
    """The unix-port binary of this environment (next to the running Python, or on PATH)."""
    path = tools.find("micropython")
    if not path:
        raise BoxError(tools.missing("micropython", "the unix port"))
    return path


class VBox(BoardLink):
    """One virtual box. `flash`: folder holding its filesystem (a temporary one when None,
    removed by close()). `devices`: display addresses that are fitted (default: all of the
    pin map). `board`: "virtual" (mpy/board.py hands main.py a virtual hw) or "pico" (the real
    box.hw_pico on virtual machine/time modules). `step_ms`: virtual ms per main-loop pass.
    `code`: the folder the box's main.py and lib/ are run from (default firmware/; the flash
    folder itself for a box installed as on a Pico, e.g. from `matchbox uf2`'s littlefs).
    `timeout`: wall-clock seconds to wait for the board before BoxError."""

    flush_torn = True   # the board's last words may lack their newline

    def __init__(self, flash=None, devices=None, board="virtual", step_ms=5, t0=0,
                 timeout=30.0, heap="512K", code=None):
        self._own_flash = flash is None
        self.main = os.path.join(code, "main.py") if code else MAIN
        self.lib = os.path.join(code, "lib") if code else LIB
        self.flash = flash or tempfile.mkdtemp(prefix="vbox-flash-")
        os.makedirs(self.flash, exist_ok=True)
        BoardLink.__init__(self, devices, timeout)
        self.board = board
        self.step_ms = step_ms
        self.t0 = t0
        self.heap = heap
        self.mode = "off"       # off, running, repl (main.py returned), crashed, cut
        self.now = None         # the board's clock at its last idle
        self.boots = 0
        self.watchdog = None    # timeout of the watchdog main.py started, this power-up
        self.emitted = []       # hw.emit lines (state JSON for `matchbox watch`)
        self.serial = bytearray()   # what a USB serial would carry: emitted and console lines
        self.console = []       # other output of the board (prints, tracebacks)
        self.tones = []         # (ms, hz, duty) buzzer changes
        self.naks = {}          # address -> writes that got no ACK
        self.reads = []         # (ms, address, register, n): I2C reads of a chip's RAM
        self.cut_at = None      # flash units done when a scheduled cut struck
        # what the firmware's hall link said (`@u`): connected, the hall's start and its
        # acknowledgement (game, seq) on this connection, CONNACK's refusal code, drops
        self.link = {"connected": False, "hall": None, "acked": None, "refused": None,
                     "dropped": 0, "why": None}

    # --- power --------------------------------------------------------------------------------

    def boot(self, cut=None):
        """Power up: start the board process and run it to its first idle; returns mode.
        `cut`: a power cut after that many flash units from power-up (e.g. while the
        journal repairs itself at resume)."""
        if self.proc is not None:
            raise BoxError("the box is already on")
        dst = os.path.join(self.flash, resources.PINMAP_NAME)
        if not os.path.exists(dst):
            with open(resources.PINMAP, "rb") as f:
                write_whole(dst, f.read())
        for chip in self.chips.values():
            chip.power_on()
        args = [micropython(), "-X", "heapsize=" + self.heap, os.path.join(MPY, "board.py"),
                "main=" + self.main, "board=" + self.board, "step=%d" % self.step_ms,
                "t0=%d" % self.t0, "devices=" + ",".join("%02x" % a for a in self.devices),
                "unplugged=" + ",".join("%02x" % a for a in sorted(self.unplugged)),
                "held=" + ",".join(sorted(self.held)), "cut=%d" % (-1 if cut is None else cut)]
        env = dict(os.environ)
        env["MICROPYPATH"] = MPY + os.pathsep + self.lib
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, cwd=self.flash, env=env,
                                     bufsize=0, start_new_session=True)
        self._buf = b""
        self._pending = []
        self.mode = "running"
        self.link.update(connected=False, hall=None)
        self.watchdog = None
        self.cut_at = None
        self.boots += 1
        self._read_until("i")
        return self.mode

    def kill(self):
        """Power cut: the process dies at once (SIGKILL), the displays go dark."""
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
        for chip in self.chips.values():
            chip.power_on()
            chip.oscillator = False
        if self.mode != "cut":
            self.mode = "off"

    def interrupt(self):
        """Ctrl-C on the USB serial (what mpremote sends first): returns the board's mode
        afterwards ('repl' when main.py stopped and returned to the REPL)."""
        self._send(["C"])
        self._read_until("r")
        return self.mode

    def reboot(self):
        """Power off and on again (same flash)."""
        self.kill()
        return self.boot()

    def close(self):
        """Stop the board; remove the flash folder if it was a temporary one."""
        if self.proc is not None:
            try:
                self.proc.stdin.write(b"q\n")
            except OSError:
                pass
            try:
                self.proc.wait(2)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        self.mode = "off"
        if self._own_flash:
            shutil.rmtree(self.flash, ignore_errors=True)

    @property
    def on(self):
        return self.proc is not None

    @property
    def elapsed(self):
        """Virtual ms on the box's clock (for PicoPty's timers: a VBox can be bridged too)."""
        return self.now or 0

    # --- inputs -------------------------------------------------------------------------------

    def _queue(self, command):
        if self.proc is not None:   # a box that is off takes no input
            self._pending.append(command)

    def write_serial(self, data):
        """Bytes typed on the box's USB serial (the board reads them between two keys)."""
        data = bytes(data)
        for i in range(0, len(data), 512):
            self._queue("s " + data[i:i + 512].hex())

    def cut_after(self, units):
        """Schedule a power cut: after `units` more flash units (bytes written, opens for
        writing, renames, removes, mkdirs) the board stops in the middle of the operation
        and is killed; `mode` becomes "cut". The cut strikes during a later advance()."""
        self._pending.append("c %d" % units)

    def cancel_cut(self):
        """Drop a scheduled cut that has not struck yet."""
        self._pending.append("c -1")

    # --- time ---------------------------------------------------------------------------------

    def advance(self, ms):
        """Send what is pending and let `ms` virtual milliseconds pass on the box."""
        if self.proc is None:
            self._pending = []
            return
        self._send(self._pending + ["t %d" % ms])
        self._pending = []
        if ms > 0:
            self._read_until("i")

    # --- outputs ------------------------------------------------------------------------------

    def dump(self):
        """The board's own report: {"time", "flash_ops", "watchdog", "mode", "game"}."""
        if self.proc is None:
            raise BoxError("the box is off")
        self._send(self._pending + ["d"])
        self._pending = []
        line = self._read_until("d")
        return json.loads(line)

    def game(self):
        """tycoon.writer.to_json's JSON (as a dict) of the box's game, None when it has none."""
        return self.dump()["game"]

    def state(self):
        """The game state as `matchbox sim` prints it: None while the setup menu is open."""
        d = self.dump()
        return None if d["mode"] in ("setup", "none") else d["game"]

    def journal_text(self, name="current.txt"):
        """The text of games/<name> on the box's flash ('' when there is none)."""
        path = os.path.join(self.flash, "games", name)
        if not os.path.exists(path):
            return ""
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def _link_told(self, text):
        """`@u TEXT`: what the firmware's hall link (box.mqtt_link) learnt."""
        kind, _, rest = text.partition(" ")
        link = self.link
        if kind == "c":
            link["connected"] = True
            link["hall"] = None
            link["refused"] = None
        elif kind == "a":
            boot, game, seq = rest.split()
            link["hall"] = boot
            link["acked"] = (None if game == "-" else game, int(seq))
        elif kind == "r":
            link["refused"] = int(rest)
        elif kind == "x":
            link["hall"] = None
            link["connected"] = False
            link["dropped"] += 1
            link["why"] = rest

    # --- the line protocol --------------------------------------------------------------------

    def _ended(self):
        self.kill()
        self.mode = "crashed"
        raise BoxError("the board process ended unexpectedly%s" % _last_words(self.console))

    def _silent(self):
        self.kill()
        self.mode = "crashed"
        raise BoxError("the board did not answer in %ss%s" % (
            self.timeout, _last_words(self.console)))

    def _read_until(self, kind):
        """Handle board lines until one of `kind` ('i' or 'd') or a power cut; returns the
        rest of that line."""
        for line in self._lines():
            if not line.startswith("@"):
                self.console.append(line)
                self.serial += line.encode() + b"\r\n"
                continue
            op, _, rest = line[1:].partition(" ")
            if op == "w":
                addr, _, data = rest.partition(" ")
                chip = self.chips.get(int(addr, 16))
                if chip is None or not chip.write(bytes.fromhex(data)):
                    raise BoxError("the board wrote to %s, which is not on the bus" % addr)
            elif op == "m":
                addr, reg, n = rest.split()
                a = int(addr, 16)
                chip = self.chips.get(a)
                data = chip.read(int(reg, 16), int(n)) if chip is not None else None
                if data is None:
                    raise BoxError("the board read from %s, which is not on the bus" % addr)
                self.reads.append((self.now, a, int(reg, 16), int(n)))
                self._send(["m " + data.hex()])
            elif op == "i":
                self.now = int(rest)
            elif op == "s":
                self.emitted.append(rest)
                self.serial += rest.encode() + b"\r\n"
            elif op == "n":
                a = int(rest, 16)
                self.naks[a] = self.naks.get(a, 0) + 1
            elif op == "b":
                self.tones.append(tuple(int(x) for x in rest.split()))
            elif op == "g":
                words = rest.split()
                if words[0] == "wdt":
                    self.watchdog = int(words[1])
            elif op == "u":
                self._link_told(rest)
            elif op == "r":
                self.mode = "repl" if rest == "return" else "crashed"
            elif op == "x":
                self.cut_at = int(rest)
                self.mode = "cut"
                self.kill()
                return None
            elif op == "e":
                raise BoxError(rest)
            if op == kind:
                return rest
        return None
