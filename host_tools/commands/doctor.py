"""`matchbox doctor`: check a connected box step by step and say what to do about each problem.

1. connection: the board answers as MicroPython (the errors of `matchbox flash`);
2. firmware: which MicroPython the board runs and whether the box supports it (what to
   download when not), box.version against this matchbox command, the board's pin map;
3. self-test: box.selftest.run() on the board;
4. I2C bus: the display addresses of the pin map answer (needs machine.I2C);
5. displays: every segment lit for a few seconds, the person confirms (on a terminal);
6. keys: the person presses each key in turn and sees what the board saw (on a terminal);
then the damaged records the box kept (games/damaged/, games/broken.txt), if any: where each
was damaged and how many lines it lost or had repaired (a note: the box kept them).

`--boot-rom FILE` does none of that: it reads the RP2040 boot ROM (16 KB from address 0) of a
connected Pico into FILE, for the emulated Pico (docs/emulated-pico.md), and checks it is one
(its 'Mu' magic at 0x10); any Pico running MicroPython will do, with or without the box.

The box's app must not run meanwhile: on a Pico its 8 s watchdog would reset the board. So
doctor leaves a file `/maintenance` on the board (main.py then starts neither app nor
watchdog) and resets it; at the end it removes the file and resets again, so the box comes
back to its game. Exit status 0 when everything checked is OK, 1 otherwise.
"""
import errno
import hashlib
import io
import json
import os
import re
import sys
import time

import serial
from mpremote.transport import TransportError, TransportExecError

from host_tools import resources
from host_tools.reports import replay_portable
from host_tools.resources import FIRMWARE, HARDWARE
from host_tools.device.board_info import (BOOT_ROM_SIZE, BROKEN, DAMAGED, boot_rom_magic,
                                          describe, shown, unsupported)
from host_tools.device.serial_board import (CONNECT_TIMEOUT, BoardError, connect, find_box,
                                            find_pico, reconnect)
from host_tools.errors import MatchboxError, check_folder, seconds_in
from host_tools.files import write_whole

FLAG = "/maintenance"
STEPS = ("connection", "firmware", "self-test", "I2C bus", "displays", "keys")
SELFTEST_TIMEOUT = 60
LOST = (TransportError, serial.SerialException, OSError)


def add_arguments(parser):
    parser.add_argument("--port", default="auto",
                        help="serial port of the box (default: auto, the one Pico running MicroPython "
                             "with the Matchbox firmware)")
    parser.add_argument("--yes", action="store_true",
                        help="ask nothing: light the displays without asking, skip the key test")
    parser.add_argument("--skip-keys", action="store_true", help="skip the key test")
    parser.add_argument("--key-timeout", type=seconds_in(0, 600), default=10.0, metavar="S",
                        help="seconds to wait for each key press (default %(default)s)")
    parser.add_argument("--light-seconds", type=seconds_in(0, 600, zero=True), default=3.0, metavar="S",
                        help="how long the displays stay lit when nobody is asked (default %(default)s)")
    parser.add_argument("--timeout", type=seconds_in(0, 3600), default=CONNECT_TIMEOUT,
                        help="seconds to wait for the board's raw REPL (default %(default)s)")
    parser.add_argument("--boot-rom", metavar="FILE",
                        help="only read the Pico's RP2040 boot ROM (16 KB) into FILE, for the "
                             "emulated Pico (any Pico running MicroPython; no check is run)")


def run(args):
    if args.boot_rom:
        return read_boot_rom(args.boot_rom, port=args.port, timeout=args.timeout)
    return doctor(port=args.port, yes=args.yes, skip_keys=args.skip_keys,
                  key_timeout=args.key_timeout, light_seconds=args.light_seconds,
                  timeout=args.timeout)


def local_version(firmware=FIRMWARE):
    """VERSION of the firmware's box/version.py (the firmware this matchbox flashes)."""
    return resources.read_version(os.path.join(firmware, "lib", "box", "version.py"))


def jumpers(address):
    """The address jumpers to bridge on an HT16K33 backpack for this address."""
    bits = [name for bit, name in ((1, "A0"), (2, "A1"), (4, "A2")) if (address - 0x70) & bit]
    return " + ".join(bits) if bits else "none"


def key_wiring(pinmap):
    """{key name: where it is wired} for the keypad and the buttons of the map."""
    kp = pinmap["keypad"]
    where = {}
    for r, row in enumerate(kp["legend"]):
        for c, ch in enumerate(row):
            where[ch] = "keypad row %d (GP%d) x column %d (GP%d)" % (r + 1, kp["rows"][r], c + 1, kp["cols"][c])
    for b in pinmap["buttons"]:
        where[b["name"]] = "button on GP%d" % b["gpio"]
    return where


def key_order(pinmap):
    """The keys a person is asked for: the keypad row by row as it is laid out, then the buttons."""
    return [ch for row in pinmap["keypad"]["legend"] for ch in row] + [b["name"] for b in pinmap["buttons"]]


class Report:
    """Prints each step's result and remembers whether any had a problem."""

    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.problems = 0
        self.skipped = 0
        self.step = 0

    def say(self, text=""):
        print(text, file=self.out, flush=True)

    def note(self, text):
        self.say("      " + text)

    def _line(self, word, text):
        self.step += 1
        self.say("%d. %-11s %-8s %s" % (self.step, STEPS[self.step - 1], word, text))

    def ok(self, text):
        self._line("OK", text)

    def problem(self, text):
        self.problems += 1
        self._line("PROBLEM", text)

    def skip(self, text):
        self.skipped += 1
        self._line("SKIPPED", text)

    def skip_rest(self, text):
        while self.step < len(STEPS):
            self.skip(text)

    def finish(self):
        if self.problems:
            self.say("%d problem%s found: see PROBLEM above." % (self.problems, "s" if self.problems > 1 else ""))
            return 1
        self.say("Everything checked is OK%s." % (" (%d skipped)" % self.skipped if self.skipped else ""))
        return 0


def _last_line(exc):
    lines = exc.error_output.strip().splitlines()
    return lines[-1] if lines else "an error"


def _has(board, module, name):
    try:
        return bool(board.eval("hasattr(__import__(%r), %r)" % (module, name)))
    except TransportExecError:
        return False


def enter_maintenance(board, port, timeout, report):
    """Leave the flag file and, where the board can reset (a Pico), reset it so that it comes
    back without app and watchdog. Returns the board to talk to from now on."""
    if board.file_size(FLAG) is not None:
        report.note("the box was left in maintenance mode (an earlier doctor run?); doctor clears it at the end")
    try:
        board.write_file(FLAG, b"matchbox doctor\n")
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        raise BoardError("the board's flash is full: doctor cannot leave its maintenance flag; free "
                         "space (`matchbox pull`, then delete old games) and try again") from None
    runs_app = board.file_size("/main.py") is not None
    if not runs_app or not _has(board, "machine", "reset"):
        return board  # no app to stop, or a board without reset (the virtual Pico runs no main.py)
    report.note("restarting the board in maintenance mode (app and watchdog off)...")
    board.restart(hard=True)
    board.close()
    return reconnect(port, timeout)


def leave_maintenance(board, port, timeout, report):
    """Remove the flag and reset the board so that main.py starts the app again."""
    if board is None:
        try:
            board = connect(port, timeout=timeout)
        except BoardError as exc:
            report.say("could not reach the board to end maintenance mode: %s" % exc)
            report.say("the box stays in maintenance mode until /maintenance is removed "
                       "(run matchbox doctor again, or `mpremote rm :maintenance`)")
            return
    with board:
        if board.file_size(FLAG) is not None:
            board.remove(FLAG)
        how = board.restart(hard=True)
    report.say("maintenance mode off; board restarted (%s)" % how)


def doctor(port="auto", yes=False, skip_keys=False, key_timeout=10.0, light_seconds=3.0,
           timeout=CONNECT_TIMEOUT, interactive=None, ask=None, out=None, hardware=HARDWARE,
           firmware=FIRMWARE):
    """Run the checks on the board at port; returns the exit status (0 all OK, 1 otherwise).

    interactive: None = stdin and stdout are terminals. ask(prompt) -> answer (default input).
    """
    report = Report(out)
    if interactive is None:
        interactive = sys.stdin.isatty() and report.out.isatty()
    ask = ask or input
    board = None
    if not port or port == "auto":   # only a Matchbox: else one line, and nothing checked
        try:
            board = find_box(timeout)
        except BoardError as exc:
            raise MatchboxError("", str(exc)) from None
    report.say("Matchbox doctor")
    try:
        if board is None:
            board = connect(port, timeout=timeout)
    except BoardError as exc:
        report.problem(str(exc))
        report.skip_rest("no board")
        return report.finish()
    port = board.port
    board_for_cleanup = None
    try:
        try:
            report.ok(describe(board.info(), port).replace("board: ", "", 1))
            board = enter_maintenance(board, port, timeout, report)
            board_for_cleanup = board
            checks = Checks(board, report, resources.load_pinmap(os.path.join(hardware, resources.PINMAP_NAME)), firmware)
            checks.run(yes, skip_keys, interactive, ask, key_timeout, light_seconds)
        except BoardError as exc:
            board.close()
            board_for_cleanup = None
            report.problem(str(exc))
            report.skip_rest("see the problem above")
        except TransportExecError as exc:
            report.problem("the board reported: %s" % _last_line(exc))
            report.skip_rest("after an error")
        except LOST as exc:
            board.close()
            board_for_cleanup = None
            report.problem("lost the board on %s: %s" % (port, exc))
            report.skip_rest("lost the board")
    except KeyboardInterrupt:
        board.close()  # it may be busy in a command: reconnect to clean up
        board_for_cleanup = None
        report.say("\nstopped.")
        report.problems += 1
    try:
        leave_maintenance(board_for_cleanup, port, timeout, report)
    except (BoardError, TransportExecError) + LOST as exc:
        report.say("could not end maintenance mode: %s" % exc)
        report.problems += 1
    return report.finish()


BOOT_ROM_CHUNK = 1024


def read_boot_rom(path, port="auto", timeout=CONNECT_TIMEOUT):
    """`--boot-rom FILE`: the board's 16 KB from address 0 into FILE (written whole, never over
    an existing file); MatchboxError, one line, when it cannot be read or is not a boot ROM."""
    if os.path.lexists(path):
        raise MatchboxError("--boot-rom", "%s exists: give a new file name" % path)
    check_folder(os.path.dirname(os.path.abspath(path)), "folder for the boot ROM")
    try:
        board = connect(find_pico() if not port or port == "auto" else port, timeout=timeout)
    except BoardError as exc:
        raise MatchboxError("", str(exc)) from None
    data = bytearray()
    with board:
        try:
            board.exec("import uctypes")
            while len(data) < BOOT_ROM_SIZE:
                data += board.eval("bytes(uctypes.bytearray_at(%d, %d))"
                                   % (len(data), BOOT_ROM_CHUNK))
            board.restart(hard=False)   # back to the friendly REPL, nothing else changed
        except TransportExecError as exc:
            raise MatchboxError("--boot-rom", "the board could not read its memory at 0x%04x: "
                                "%s" % (len(data), _last_line(exc))) from None
        except LOST as exc:
            raise MatchboxError("--boot-rom", "lost the board on %s: %s"
                                % (board.port, exc)) from None
    if len(data) != BOOT_ROM_SIZE or not boot_rom_magic(data):
        raise MatchboxError("--boot-rom", "what the board has at address 0 is not an RP2040 boot "
                            "ROM (no 'Mu' magic at 0x10): is it a Pico?")
    write_whole(path, data)
    print("wrote %s: the RP2040 boot ROM of the Pico at %s (%d bytes, sha256 %s)"
          % (path, board.port, len(data), hashlib.sha256(data).hexdigest()))
    return 0


# Board-side helpers, defined once per session (names start with _dr_).
HW_SETUP = """
import time
import box.hw_pico, box.ht16k33, box.keys, box.pins
_dr_hw = box.hw_pico.build()
_dr_map = box.pins.load()
"""

# Through the driver's own interface (docs/architecture.md, display kinds): every digit with its
# point, and the colon; DARK leaves the display as the box's driver leaves a blank one.
LIGHT = """
_dr_ds = [box.ht16k33.HT16K33(_dr_hw.i2c, a) for a in %r]
for _dr_d in _dr_ds:
    for _dr_i in range(4):
        _dr_d.raw(_dr_i, 0xFF)
    _dr_d.colon(True)
    _dr_d.show()
print([_dr_d.online for _dr_d in _dr_ds])
"""

DARK = """
for _dr_d in _dr_ds:
    _dr_d.clear()
    _dr_d.show()
"""

KEYS_SETUP = """
_dr_k = box.keys.Keys(_dr_hw.rows, _dr_hw.cols, _dr_hw.buttons,
                      box.pins.key_codes(_dr_map["keypad"]["legend"], _dr_hw.buttons,
                                         len(_dr_hw.rows) * len(_dr_hw.cols)), time.ticks_ms)
for _dr_i in range(box.keys.COUNT):
    _dr_k.set_long(_dr_i, False)
def _dr_scan(ms):
    t = time.ticks_ms()
    while time.ticks_diff(time.ticks_ms(), t) < ms:
        for _ in range(_dr_k.poll()):
            return _dr_k.events[0] & box.keys.CODE
        time.sleep_ms(5)
    return -1
def _dr_wait(ms):
    k = _dr_scan(ms)
    print("KEY", box.keys.NAMES[k] if k >= 0 else "-")
_dr_scan(100)
print("HELD", " ".join([box.keys.NAMES[k] for k in range(box.keys.COUNT) if _dr_k.held(k)]))
"""


def _usable(pinmap):
    """True when a board's pin map is one the checks can follow (box.pincheck finds nothing)."""
    try:
        return not resources.firmware_module("box.pincheck").problems(pinmap)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError):
        return False


class Checks:
    """Steps 2 to 6 on a board in maintenance mode."""

    def __init__(self, board, report, pinmap, firmware=FIRMWARE):
        self.board = board
        self.report = report
        self.pinmap = pinmap
        self.firmware = firmware
        self.hw = None  # why the board's hardware could not be built, or True when it was
        self.answering = []

    def run(self, yes, skip_keys, interactive, ask, key_timeout, light_seconds):
        self.checks(yes, skip_keys, interactive, ask, key_timeout, light_seconds)
        self.records()

    def records(self):
        """Say which damaged records the box kept (games/damaged/, broken.txt): what each
        lost or had repaired, and how to get it back. A note, not a problem: the box kept them."""
        board = self.board
        paths = board.list_files(DAMAGED)
        if board.file_size(BROKEN) is not None:
            paths.append(BROKEN)
        if not paths:
            return
        r = self.report
        one = len(paths) == 1
        r.say("records: %d damaged record%s kept on the box's flash (it showed rEPr or LoSt at "
              "power-up); `matchbox pull` brings %s home, `matchbox replay --salvage FILE` shows "
              "what %s still prove%s:" % (len(paths), "" if one else "s", "it" if one else "them",
                                          "it" if one else "they", "s" if one else ""))
        for path in paths:
            data = board.read_file(path)
            repaired = []
            game, error = replay_portable.replay_file(io.BytesIO(data), repaired)
            lines = data.count(b"\n") + (data[-1:] not in (b"", b"\n"))
            count = "%d line%s" % (lines, "" if lines == 1 else "s")
            fixed = "line%s %s repaired by %s checksum tag%s; " % (
                "s" if len(repaired) > 1 else "", ", ".join(map(str, repaired)),
                "their" if len(repaired) > 1 else "its", "s" if len(repaired) > 1 else "") \
                if repaired else ""
            if error is None:
                what = "%severy action resumed (%s)" % (fixed, count) if repaired else \
                    "no damage found (%s)" % count
            elif game is None:
                what = "line %d: %s: %s; no game in it (%s)" % (error + (count,))
            else:
                what = "%sline %d: %s: %s; %d of its %d lines not resumed" % (
                    (fixed,) + error + (lines - error[0] + 1, lines))
            r.note("%s: %s" % (shown(path), what))

    def checks(self, yes, skip_keys, interactive, ask, key_timeout, light_seconds):
        if not self.firmware_check():
            self.report.skip_rest("needs the firmware: run `matchbox flash` first")
            return
        self.selftest()
        self.i2c()
        self.displays(yes, interactive, ask, light_seconds)
        if skip_keys:
            self.report.skip("--skip-keys")
        elif yes or not interactive:
            self.report.skip("the key test needs a person at a terminal (run doctor in a terminal, without --yes)")
        else:
            self.keys(key_timeout)

    def firmware_check(self):
        r = self.report
        want = local_version(self.firmware)
        version = self.board.info()["version"]
        reason = unsupported(version)
        out = self.board.run("try:\n import box.version as _dr_v\n print('VERSION', _dr_v.VERSION)\n"
                                 "except ImportError:\n print('MISSING')")
        found = re.search(r"^VERSION (\S+)", out, re.M)
        missing = [p[1:] for p in ("/main.py", resources.BOARD_PINMAP)
                   if self.board.file_size(p) is None]
        if reason:
            r.problem("the board runs %s; then run `matchbox flash`" % reason)
            return False
        if not found or missing:
            what = "no Matchbox firmware on the board" if not found else "the firmware is incomplete (%s missing)" % ", ".join(missing)
            r.problem("%s: run `matchbox flash`" % what)
            return False
        runs = "MicroPython %s (supported)" % ".".join(str(v) for v in version[:3])
        try:
            theirs = json.loads(self.board.read_file(resources.BOARD_PINMAP).decode("utf-8", "replace"))
        except ValueError:
            theirs = None
        if found.group(1) != want:
            r.problem("%s; the board runs firmware %s, this matchbox command has %s: run `matchbox flash`"
                      % (runs, found.group(1), want))
        elif not isinstance(theirs, dict):
            r.problem("%s; the board's %s is not JSON: `matchbox flash --pinmap %s` replaces it"
                      % (runs, resources.BOARD_PINMAP[1:], resources.PINMAP_SOURCE))
        else:
            r.ok("%s, firmware %s, the same as this matchbox command" % (runs, want))
        if isinstance(theirs, dict) and theirs != self.pinmap:
            usable = _usable(theirs)
            r.note("the board keeps its own %s, not %s: %s"
                   % (resources.BOARD_PINMAP[1:], resources.PINMAP_SOURCE,
                      "the checks below use the board's" if usable else
                      "it has mistakes (see the self-test), so the checks below use %s"
                      % resources.PINMAP_SOURCE))
            if usable:
                self.pinmap = theirs
        return True

    def selftest(self):
        r = self.report
        try:
            out = self.board.run("import box.selftest\nbox.selftest.run()", timeout=SELFTEST_TIMEOUT)
        except TransportExecError as exc:
            if "ImportError" in exc.error_output:
                r.problem("the board's firmware has no self-test (older firmware): run `matchbox flash`")
            else:
                r.problem("the self-test crashed: %s" % _last_line(exc))
            return
        out = out.replace("\r\n", "\n")   # a Pico's USB serial ends its lines with CR LF
        lines = [ln for ln in out.splitlines() if ln.strip()]
        summary = re.search(r"^selftest: (\d+) passed, (\d+) failed$", out, re.M)
        if not summary:
            r.problem("the self-test did not finish: %s" % (lines[-1] if lines else "no output"))
        elif int(summary.group(2)):
            r.problem("%s passed, %s failed (FAIL lines below): run `matchbox flash`; if it still "
                      "fails, the flash or the firmware is damaged" % summary.groups())
        else:
            r.ok("%s passed, %s failed" % summary.groups())
        for line in lines:
            if not line.startswith("selftest:"):
                r.note(line)

    def _build_hw(self):
        """Build the board's own hardware object (box.hw_pico) once; False when it has none."""
        if self.hw is None:
            if not (_has(self.board, "machine", "I2C") and _has(self.board, "machine", "Pin")):
                self.hw = "this board has no machine.I2C (the virtual Pico, the MicroPython unix port, has none)"
            else:
                try:
                    self.board.run(HW_SETUP)
                    self.hw = True
                except TransportExecError as exc:
                    self.hw = "the board could not set up its pins and bus: %s" % _last_line(exc)
        return self.hw is True

    def i2c(self):
        r = self.report
        bus = self.pinmap["i2c"]
        if not self._build_hw():
            if self.hw.startswith("this board has no"):
                r.skip("%s: the bus cannot be scanned here" % self.hw)
            else:
                r.problem(self.hw)
            return
        try:
            found = json.loads(self.board.run("print(list(_dr_hw.i2c.scan()))").strip())
        except TransportExecError as exc:
            r.problem("scanning the bus failed (%s): check SDA GP%d and SCL GP%d for shorts"
                      % (_last_line(exc), bus["sda"], bus["scl"]))
            return
        displays = self.pinmap["displays"]
        self.answering = [d["address"] for d in displays if d["address"] in found]
        extra = [a for a in found if a not in [d["address"] for d in displays]]
        if not found:
            r.problem("no device answers on the I2C bus: check 3V3 and GND to the backpacks, "
                      "SDA to GP%d and SCL to GP%d (not swapped)" % (bus["sda"], bus["scl"]))
            return
        missing = [d for d in displays if d["address"] not in found]
        if missing:
            r.problem("%d of %d displays answer; missing: %s" % (
                len(displays) - len(missing), len(displays),
                "; ".join("0x%02x (%s; address jumpers %s)" % (d["address"], d["role"].split(":")[0], jumpers(d["address"]))
                          for d in missing)))
            r.note("check the missing backpack's wiring and jumpers; a box without it: remove it from "
                   "%s and flash again" % resources.PINMAP_SOURCE)
        else:
            r.ok("all %d displays answer: %s" % (len(displays), " ".join("0x%02x" % a for a in self.answering)))
        if extra:
            r.note("also answering, not in the pin map: %s" % " ".join("0x%02x" % a for a in extra))

    def displays(self, yes, interactive, ask, light_seconds):
        r = self.report
        if self.hw is not True:
            r.skip("no I2C bus here: nothing to light")
            return
        if not self.answering:
            r.skip("no display answered the scan: nothing to light")
            return
        online = json.loads(self.board.run(LIGHT % self.answering).strip().lower())
        try:
            if yes or not interactive:
                time.sleep(light_seconds)
                answer = None
            else:
                try:
                    answer = ask("   Every segment, decimal point and colon of the %d display(s) should be "
                                 "lit (8.8.:8.8.). Are they all lit? [Y/n] " % len(self.answering)).strip().lower()
                except EOFError:
                    answer = None
        finally:
            self.board.run(DARK)
        dark = [a for a, on in zip(self.answering, online) if not on]
        if dark:
            r.problem("lost %s while lighting it: check its power and I2C wires"
                      % " ".join("0x%02x" % a for a in dark))
        elif answer is None:
            r.ok("lit every segment of %d display(s) (not confirmed: %s)" % (
                len(self.answering), "--yes" if yes else "no answer" if interactive else "not a terminal"))
        elif answer.startswith("n"):
            r.problem("some segments stay dark: reseat the display on its backpack and check its "
                      "solder joints (a whole digit dark: its pins; one segment everywhere: a common line)")
        else:
            r.ok("all segments of %d display(s) light (confirmed)" % len(self.answering))

    def keys(self, key_timeout):
        r = self.report
        if not self._build_hw():
            r.skip("%s: no keys to test there" % self.hw)
            return
        where = key_wiring(self.pinmap)
        r.note("key test: press each key on the box when asked (%gs each; Ctrl-C stops the test)" % key_timeout)
        out = self.board.run(KEYS_SETUP)
        held = re.search(r"^HELD ?(.*)$", out, re.M)
        stuck = held.group(1).split() if held else []
        if stuck:
            r.note("read as pressed before the test, with nobody touching them: %s" % ", ".join(stuck))
        bad = ["%s stuck down (%s)" % (k, where.get(k, "?")) for k in stuck]
        for name in key_order(self.pinmap):
            print("      press %-5s ... " % name, end="", file=r.out, flush=True)
            got = self.board.run("_dr_wait(%d)" % int(key_timeout * 1000), timeout=key_timeout + 10)
            m = re.search(r"^KEY (\S+)", got, re.M)
            seen = m.group(1) if m else "-"
            if seen == name:
                r.say("ok")
            elif seen == "-":
                r.say("nothing within %gs" % key_timeout)
                bad.append("%s not seen (%s)" % (name, where.get(name, "?")))
            else:
                r.say("the board saw %s" % seen)
                bad.append("%s read as %s (%s; %s is %s)" % (name, seen, where.get(name, "?"), seen, where.get(seen, "?")))
        if bad:
            r.problem("; ".join(bad) + ": check those wires, or the legend in " + resources.PINMAP_SOURCE)
        else:
            r.ok("all %d keys seen" % len(key_order(self.pinmap)))
