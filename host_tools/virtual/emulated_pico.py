"""The emulated box: the untouched firmware on the Pico's own MicroPython, on an emulated RP2040.

`EmulatedPico` starts `node host_tools/virtual/rp2040js/harness.js` (the npm package rp2040js
running an official MicroPython UF2 for RPI_PICO on the RP2040 boot ROM) and drives it with the
line protocol listed at the top of harness.js. Node is only a bus: I2C writes the firmware makes
are streamed here and fed to one `VirtualHT16K33` per display address (the same model the
unix-port virtual box uses), keys are nets Node resolves from the set pressed here, the USB
CDC serial (the REPL) is streamed both ways, and flash erase/program operations are counted.

It runs only where the UF2 and the boot ROM are given by path (MATCHBOX_PICO_UF2 and
MATCHBOX_PICO_BOOTROM, or `uf2=`/`bootrom=`): neither is in the repository, the package or CI
(the boot ROM of a Pico: `matchbox doctor --boot-rom FILE`). Without them `missing()` says
what to give, in one line. The box is installed as a maker's `matchbox uf2` installs it: the
tree `matchbox flash` copies, in a littlefs image (host_tools.device.image) placed where the
UF2's binary info says its filesystem is. Time is emulated: advance(ms) runs the chip for ms of
its own clock, which is an estimate of a Pico's, not a measurement.

    with EmulatedPico() as box:
        box.boot()
        box.keys("2 PLAY")
        print(box.displays(), box.journal_text())
"""
import json
import os
import shutil
import subprocess
import tempfile
import time

from host_tools import resources
from host_tools.device import image as fs_image
from host_tools.device.board_info import (BOOT_ROM_SIZE, DOWNLOAD, SUPPORTED_TEXT,
                                          boot_rom_magic)
from host_tools.files import write_whole
from host_tools.virtual.board_link import GAP_MS, HOLD_MS, BoardLink
from host_tools.virtual.box import BoxError

NODE_DIR = resources.RP2040JS
HARNESS = os.path.join(NODE_DIR, "harness.js")
FS_BLOCK = fs_image.FS_BLOCK

BOOT_MS = 5000     # emulated ms boot() waits at most for the first lit frame
SETUP_PANEL = "5Et "   # how VirtualHT16K33.text() reads the setup menu's "SEt" panel


class PicoError(BoxError):
    """The emulator misbehaved: Node ended, stopped answering, or the chip stopped."""


def given_uf2():
    """The MicroPython UF2 given by MATCHBOX_PICO_UF2, or None."""
    return os.environ.get("MATCHBOX_PICO_UF2") or None


def bootrom_path():
    """The RP2040 boot ROM given by MATCHBOX_PICO_BOOTROM, or None."""
    return os.environ.get("MATCHBOX_PICO_BOOTROM") or None


def node():
    return shutil.which("node")


def _shown(path):
    """A path as a message shows it: relative inside the checkout, else as it is."""
    if not resources.CHECKOUT:
        return path
    rel = os.path.relpath(path, resources.CHECKOUT)
    return path if rel.startswith("..") else rel


NO_UF2 = ("no MicroPython UF2 given: set MATCHBOX_PICO_UF2 (or give --uf2) to the RPI_PICO "
          "v%s or later from %s" % (SUPPORTED_TEXT, DOWNLOAD["pico"]))
NO_BOOTROM = ("no RP2040 boot ROM given: set MATCHBOX_PICO_BOOTROM (or give --bootrom) to the "
              "16 KB boot ROM of a Pico, which `matchbox doctor --boot-rom FILE` reads")


def missing(uf2=None, bootrom=None):
    """None when the emulated Pico can run here with the UF2 and boot ROM given (`uf2`,
    `bootrom`, else the environment's), else one line saying what is missing or wrong and what
    to give."""
    if not node():
        return "Node.js 18+ is not installed (needed for the emulated RP2040: install nodejs)"
    if not os.path.isdir(os.path.join(NODE_DIR, "node_modules", "rp2040js")):
        if resources.INSTALLED:
            return ("rp2040js is not installed: the emulated Pico runs from a checkout of the "
                    "repository (`make pico-js` there), not from the installed package")
        return ("rp2040js is not installed: run `npm ci` in host_tools/virtual/rp2040js "
                "(make test does it when node is present)")
    uf2 = uf2 or given_uf2()
    bootrom = bootrom or bootrom_path()
    if not uf2:
        return NO_UF2
    if not os.path.isfile(uf2):
        return "no UF2 at %s" % _shown(uf2)
    if not bootrom:
        return NO_BOOTROM
    if not os.path.isfile(bootrom):
        return "no boot ROM at %s" % _shown(bootrom)
    return uf2_problem(uf2) or bootrom_problem(bootrom)


FLASH_BASE, FLASH_SIZE = fs_image.XIP_BASE, fs_image.FLASH_SIZE


def _read_uf2(path):
    """(bytes of the UF2 at path, the name messages give it); ImageError when it is not one
    a Pico can take (more than a 2 MB flash takes, or unreadable)."""
    name = "the UF2 %s" % _shown(path)
    try:
        with open(path, "rb") as f:
            data = f.read(2 * FLASH_SIZE + 1)   # a 2 MB image takes 4 MB of UF2 blocks
    except OSError as exc:
        raise fs_image.ImageError("%s cannot be read: %s" % (name, exc.strerror)) from None
    if len(data) > 2 * FLASH_SIZE:
        raise fs_image.ImageError("%s is not a UF2 file for the Pico (more than 4 MB)" % name)
    return data, name


def uf2_problem(path):
    """None when path is MicroPython for the RP2040 whose filesystem its binary info locates
    (host_tools.device.image), else why not, in one line: said before Node runs, which would
    fail with a stack trace."""
    try:
        data, name = _read_uf2(path)
        fs_image.micropython_uf2(data, name)
    except fs_image.ImageError as exc:
        return "%s%s" % (exc, " (is it the boot ROM?)" if os.path.getsize(path) == BOOT_ROM_SIZE
                         else "")
    return None


def fs_layout(path):
    """(flash offset, blocks) of the littlefs of the MicroPython UF2 at path, from its binary
    info."""
    data, name = _read_uf2(path)
    facts = fs_image.micropython_uf2(data, name)[1]
    return facts["fs_address"] - FLASH_BASE, facts["fs_size"] // FS_BLOCK


def uf2_board(path):
    """The board the MicroPython UF2 at path names in its binary info (pico, pico_w), or "?"."""
    data, name = _read_uf2(path)
    return fs_image.micropython_uf2(data, name)[1]["board"] or "?"


def bootrom_problem(path):
    """None when path looks like the RP2040 boot ROM (16 KB, its 'Mu' magic at 0x10), else
    why not, in one line."""
    name = "the boot ROM %s" % _shown(path)
    try:
        with open(path, "rb") as f:
            data = f.read(BOOT_ROM_SIZE + 1)
    except OSError as exc:
        return "%s cannot be read: %s" % (name, exc.strerror)
    if len(data) != BOOT_ROM_SIZE:
        return ("%s is not the RP2040 boot ROM: %s bytes, not %d%s" % (
            name, "more than %d" % BOOT_ROM_SIZE if len(data) > BOOT_ROM_SIZE else len(data),
            BOOT_ROM_SIZE, " (is it the UF2?)" if data[:4] == b"UF2\n" else ""))
    if not boot_rom_magic(data):
        return "%s is not the RP2040 boot ROM: no 'Mu' magic at 0x10" % name
    return None


def image(files, blocks):
    """A littlefs image of the Pico's filesystem (`blocks` of 4096 bytes) holding `files`
    ({board path: bytes})."""
    return fs_image.littlefs_image(files, blocks * FS_BLOCK)


def read_image(data):
    """{board path: bytes} of every file in a littlefs image."""
    return fs_image.read_littlefs(data)


_staged = {}


def firmware_files(source=False):
    """The tree `matchbox flash` copies, as {board path: bytes} (built once per process)."""
    if source not in _staged:
        _staged[source] = fs_image.box_files(source=source)
    return dict(_staged[source])


class EmulatedPico(BoardLink):
    """One emulated box. `uf2`, `bootrom`: the MicroPython UF2 and the boot ROM (default: the
    ones given in the environment, given_uf2() and bootrom_path()); `files`: the littlefs to
    start from ({path: bytes}; default the box as `matchbox flash` copies it); `devices`:
    display addresses fitted (default: all of the pin map); `timeout`: wall seconds to wait for
    Node before PicoError. The littlefs goes where the UF2's binary info puts it (a Pico W's
    UF2 boots too; rp2040js has no CYW43 radio: the box runs, networking fails)."""

    emulated = True   # for the simulator's screen: an emulated chip, not the unix port

    def __init__(self, files=None, devices=None, timeout=120.0, uf2=None, bootrom=None):
        reason = missing(uf2, bootrom)
        if reason:
            raise PicoError(reason)
        self.uf2 = uf2 or given_uf2()
        self.bootrom = bootrom or bootrom_path()
        self.fs_offset, self.fs_blocks = fs_layout(self.uf2)
        if files is None:
            files = firmware_files()
        BoardLink.__init__(self, devices, timeout)
        self.files = dict(files)
        self.mode = "off"        # off, running, repl, cut
        self.now = 0             # emulated ms since this power-up
        self.elapsed = 0         # emulated ms over every power-up
        self.boots = 0
        self.watchdog_resets = 0
        self.flash_ops = 0       # erases + programs since the emulator started
        self.flash_log = []      # ("e"|"p", offset, count) in order
        self.cut_at = None
        self.cuts = 0            # power cuts that struck (cut_after) since the emulator started
        self.console = []        # lines the board printed on the USB serial
        self.serial = bytearray()  # every byte the board sent on the USB serial
        self.tones = []          # (ms, hz, duty) buzzer changes
        self.naks = {}
        self.probes = {}         # address -> zero-length probes ACKed on the pins (scan)
        self.i2c_writes = 0
        self.writes = []         # (emulated us since power-up, address, bytes), this power-up
        self.reads = []          # (emulated us, address, register or None, n), this power-up
        self.i2c_bytes = 0
        self.last_state = None
        self.emitted = []        # the state lines the firmware sent on the USB serial
        self.lit_at = None       # emulated ms of power-up at which every display was first lit
        self.framed_at = None    # ... and at which the first frame after that went out (the
                                 # first RAM write once all are lit: after the journal resumed)
        self.scanned_at = None   # emulated ms of power-up of the firmware's first keypad scan
                                 # (a row driven low): from then on it takes keys
        self._line = bytearray()
        self._tmp = tempfile.mkdtemp(prefix="pico-")
        self._loaded = False

    # --- the Node process ---------------------------------------------------------------------

    def _start(self):
        if self.proc is not None:
            return
        self.proc = subprocess.Popen(
            [node(), HARNESS, self.uf2, self.bootrom, resources.PINMAP, "%x" % self.fs_offset,
             str(self.fs_blocks)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0, cwd=NODE_DIR)
        self._buf = b""
        self._read_until("ready")
        self._send(["d " + ",".join("%02x" % a for a in self.devices)])
        for a in sorted(self.unplugged):
            self._send(["u %02x" % a])
        for k in sorted(self.held):
            self._send(["k %s 1" % k])

    def _load(self):
        path = os.path.join(self._tmp, "fs.img")
        write_whole(path, image(self.files, self.fs_blocks))
        self._send(["L " + path])
        self._loaded = True

    def close(self):
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                proc.stdin.write(b"q\n")
                proc.stdin.close()
                proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        self.mode = "off"
        shutil.rmtree(self._tmp, ignore_errors=True)

    # --- power --------------------------------------------------------------------------------

    def boot(self, wait_lit=True):
        """Power up a fresh chip with the flash as it stands; run until every fitted, plugged
        display is lit (at most BOOT_MS emulated) unless wait_lit is False. Returns mode."""
        self._start()
        if not self._loaded:
            self._load()
        for chip in self.chips.values():
            chip.power_on()
        self.mode = "running"
        self.now = 0
        self.lit_at = None
        self.framed_at = None
        self.scanned_at = None
        self.cut_at = None
        self.boots += 1
        self._line = bytearray()
        self.writes = []
        self.reads = []
        self._send(self._pending + ["B"])
        self._pending = []
        if wait_lit:
            self.run_until(lambda: self.lit_at is not None or self.mode != "running",
                           BOOT_MS, step=20)
        return self.mode

    def power_off(self):
        """Power cut now: the chip stops where it is, the displays go dark."""
        if self.proc is not None:
            self._send(["O"])
        for chip in self.chips.values():
            chip.power_on()
        if self.mode != "cut":
            self.mode = "off"

    kill = power_off

    def reboot(self):
        self.power_off()
        return self.boot()

    def cut_after(self, ops):
        """Cut the power before the (ops+1)-th flash erase/program from now (during a later
        advance; `mode` becomes "cut")."""
        self._pending.append("c %d" % ops)

    def cancel_cut(self):
        self._pending.append("c -1")

    @property
    def on(self):
        return self.mode in ("running", "repl")

    # --- inputs -------------------------------------------------------------------------------

    def _queue(self, command):
        self._pending.append(command)   # kept while the chip is off: taken at power-up

    plug = BoardLink.replug

    def write_serial(self, data):
        """Bytes into the USB CDC serial (what a terminal or mpremote types)."""
        data = bytes(data)
        for i in range(0, len(data), 64):
            self._pending.append("s " + data[i:i + 64].hex())

    def interrupt(self, within_ms=2000):
        """Ctrl-C on the USB serial; runs until the REPL prompt shows. Returns mode."""
        mark = len(self.serial)
        self.write_serial(b"\x03")
        self.run_until(lambda: b">>> " in self.serial[mark:], within_ms)
        if b">>> " in self.serial[mark:]:
            self.mode = "repl"
        return self.mode

    # --- time ---------------------------------------------------------------------------------

    def advance(self, ms):
        """Send what is pending and run the chip for `ms` emulated milliseconds."""
        if self.proc is None or self.mode not in ("running", "repl"):
            return   # keys and plugs stay pending for the next power-up
        self._send(self._pending + ["t %d" % ms])
        self._pending = []
        self._read_until("i")

    def run_until(self, done, within_ms, step=50):
        """Advance in steps of `step` ms until done() or `within_ms` have passed; returns
        whether done() became true."""
        spent = 0
        while not done():
            if spent >= within_ms or self.mode not in ("running", "repl"):
                return False
            self.advance(step)
            spent += step
        return True

    # --- outputs ------------------------------------------------------------------------------

    def ram(self):
        """{address: bytes(16)} display RAM of every fitted chip."""
        return {a: bytes(c.ram) for a, c in self.chips.items()}

    def state(self):
        """The game state as `matchbox sim` prints it (as VBox.state()): the last one the
        firmware sent on the USB serial, None while the setup menu is open."""
        d = self.dump()
        return None if d["mode"] == "setup" else d["game"]

    def dump(self):
        """As VBox.dump(), from what the board shows and sends (its objects cannot be read
        while the app runs): the game is the last state line on the USB serial (the firmware
        sends one when a game starts and after each accepted action and undo; a power cut
        between a journal write and its line leaves it one action behind until the next);
        the mode is "setup" while a display shows the setup menu's SEt panel or before any
        state line, else "finished" or "play" (the quick reference counts as "play")."""
        game = self.last_state
        if game is None or SETUP_PANEL in self.displays():
            mode = "setup"
        else:
            mode = "finished" if game.get("finished") else "play"
        return {"time": self.now, "flash_ops": self.flash_ops, "watchdog": None,
                "mode": mode, "game": game}

    def game(self):
        """The last game state the firmware sent (a dict), or None."""
        return self.last_state

    def flash_image(self):
        """The filesystem region of the flash as it stands (littlefs image bytes)."""
        path = os.path.join(self._tmp, "save.img")
        self._start()
        self._send(["S " + path])
        self._read_until("S")
        with open(path, "rb") as f:
            return f.read()

    def flash_bytes(self, offset, length):
        """`length` bytes of the flash from `offset` (e.g. the littlefs)."""
        path = os.path.join(self._tmp, "region.bin")
        self._start()
        self._send(["R %x %d %s" % (offset, length, path)])
        self._read_until("R")
        with open(path, "rb") as f:
            return f.read()

    def drag(self, uf2):
        """Drag a UF2 onto the box in BOOTSEL mode: power off, its blocks written into the
        flash as the boot ROM writes them (littlefs and everything else left as it is); the
        next boot() runs it."""
        self.power_off()
        self._start()
        if not self._loaded:
            self._load()
        self._send(["U " + os.path.abspath(uf2)])
        self.uf2 = uf2

    def read_files(self):
        """{path: bytes} of every file on the emulated littlefs."""
        return read_image(self.flash_image())

    def journal_text(self, name="current.txt"):
        data = self.read_files().get("games/" + name)
        return "" if data is None else data.decode("utf-8", "replace")

    # --- the line protocol --------------------------------------------------------------------

    def _ended(self):
        err = b""
        try:
            err = self.proc.stderr.read() or b""
        except (OSError, ValueError):
            pass
        self.proc = None
        self.mode = "off"
        # One line: Node's error ("Error: ...", not its stack), else the board's last words.
        lines = [ln.strip() for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
        said = [ln for ln in lines if "Error" in ln.split(":")[0]] or lines[-1:] or \
            [ln for ln in self.console if ln.strip()][-1:]
        raise PicoError("the emulator ended unexpectedly%s" % (
            ": " + said[0][:300] if said else " (it printed nothing)"))

    def _silent(self):
        raise PicoError("the emulator did not answer in %ss" % self.timeout)

    def _serial_in(self, data):
        self.serial += data
        for b in data:
            if b == 10:
                line = self._line.decode("utf-8", "replace").rstrip("\r")
                self._line = bytearray()
                self.console.append(line)
                if line.startswith("{"):
                    try:
                        self.last_state = json.loads(line)
                        self.emitted.append(line)
                    except ValueError:
                        pass
            else:
                self._line.append(b)

    def _read_until(self, kind):
        for line in self._lines():
            op, _, rest = line[1:].partition(" ")
            if op == "w":
                addr, data, us = rest.split(" ")
                a = int(addr, 16)
                payload = bytes.fromhex(data)
                self.writes.append((int(us), a, payload))
                chip = self.chips.get(a)
                if chip is None or not chip.write(payload):
                    raise PicoError("the emulator ACKed a write to %s, which is not on the bus"
                                    % addr)
                self.i2c_writes += 1
                self.i2c_bytes += len(payload)
                self._check_lit(int(us) / 1000.0, payload)
            elif op == "m":
                addr, reg, n, us = rest.split(" ")
                self.reads.append((int(us), int(addr, 16), None if reg == "--" else int(reg, 16),
                                   int(n)))
            elif op == "o":
                self._serial_in(bytes.fromhex(rest.split(" ")[0]))
            elif op == "i":
                words = rest.split()
                self.elapsed += max(0, int(words[0]) - self.now)
                self.now = int(words[0])
                self.flash_ops = int(words[1])
            elif op == "f":
                kind_, off, count = rest.split()
                self.flash_log.append((kind_, int(off, 16), int(count)))
            elif op == "b":
                self.tones.append(tuple(int(x) for x in rest.split()))
            elif op == "n":
                a = int(rest, 16)
                self.naks[a] = self.naks.get(a, 0) + 1
            elif op == "p":
                a = int(rest.split()[0], 16)
                self.probes[a] = self.probes.get(a, 0) + 1
            elif op == "W":
                self.watchdog_resets += 1
                self.boots += 1
                self.now = 0
                self.lit_at = None
                self.framed_at = None
                self.scanned_at = None
                for chip in self.chips.values():
                    chip.power_on()
            elif op == "K":
                self.scanned_at = int(rest) / 1000.0
            elif op == "x":
                self.cut_at = int(rest)
                self.cuts += 1
                self.mode = "cut"
                for chip in self.chips.values():
                    chip.power_on()
            elif op == "h":
                self.mode = "off"
                raise PicoError("the emulated chip stopped: " + rest)
            elif op == "e":
                raise PicoError("emulator: " + rest)
            if op == kind:
                return rest
        return None

    def _check_lit(self, ms, payload):
        if self.lit_at is None:
            chips = [c for a, c in self.chips.items() if a not in self.unplugged]
            if chips and all(c.lit for c in chips):
                self.lit_at = ms
        elif self.framed_at is None and payload[0] < 0x10 and len(payload) > 1:
            self.framed_at = ms


class PicoPty:
    """The emulated board's USB CDC serial on a pseudo-terminal, for mpremote and the
    `matchbox` commands (`--port` PicoPty.port). A thread owns the board while the bridge
    runs: it moves bytes both ways and lets emulated time pass in steps of `step_ms`.
    Use the board again only after stop(). A running unix-port VBox can be bridged too: its
    USB serial is hw.emit's lines out and `s HEX` in (no REPL)."""

    def __init__(self, board, step_ms=5):
        import pty
        import threading
        import tty
        self.board = board
        self.step_ms = step_ms
        self._master, self._slave = pty.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self.port = os.ttyname(self._slave)
        self._stop = threading.Event()
        self._calls = []
        self._timers = []
        self._lock = threading.Lock()
        self.error = None
        self._thread = threading.Thread(target=self._relay, name="pico-pty", daemon=True)

    def start(self):
        self._thread.start()
        return self

    def _relay(self):
        board = self.board
        sent = len(board.serial)
        try:
            while not self._stop.is_set():
                try:
                    data = os.read(self._master, 4096)
                except (BlockingIOError, OSError):
                    data = b""
                if data:
                    board.write_serial(data)
                with self._lock:
                    calls, self._calls = self._calls, []
                for fn, args in calls:
                    fn(*args)
                due = [t for t in self._timers if t[0] <= board.elapsed]
                for t in due:
                    self._timers.remove(t)
                    t[1](*t[2])
                if board.mode not in ("running", "repl"):
                    board.boot(wait_lit=False)
                    sent = len(board.serial)
                board.advance(self.step_ms)
                if len(board.serial) > sent:
                    out = bytes(board.serial[sent:])
                    sent = len(board.serial)
                    while out:
                        try:
                            n = os.write(self._master, out)
                            out = out[n:]
                        except BlockingIOError:
                            time.sleep(0.001)
                elif not data:
                    time.sleep(0.0005)
        except Exception as exc:  # reported by stop()
            self.error = exc

    def call(self, fn, *args):
        """Run fn(*args) on the relay thread before its next step (e.g. board.press)."""
        with self._lock:
            self._calls.append((fn, args))

    def keys(self, names, hold=HOLD_MS, gap=GAP_MS):
        """Tap keys on the bridged board, paced in emulated time (waits for each)."""
        import threading
        for name in names:
            done = threading.Event()
            self.call(self.board.press, name)
            self.call(self._after, hold, self.board.release, name)
            self.call(self._after, hold + gap, done.set)
            if not done.wait(60):
                raise PicoError("the bridged board did not take key %s" % name)

    def _after(self, ms, fn, *args):
        at = self.board.elapsed + ms
        self._timers.append((at, fn, args))

    def stop(self):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(10)
        for fd in (self._master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.error is not None:
            raise PicoError("the serial bridge stopped: %s" % self.error)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
