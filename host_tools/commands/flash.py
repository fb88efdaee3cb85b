"""`matchbox flash`: compile the firmware and bring a Pico's code up to date over USB serial.

The Pico runs official MicroPython (v1.28.0 or later, from micropython.org) and the box lives on
its littlefs, as `matchbox uf2` also puts it. Flash stages the build (lib modules as .mpy,
main.py/boot.py as .py), refuses a MicroPython the box does not support or one that cannot load
this .mpy format, hashes the firmware files on the board, removes stale firmware files, copies
the changed ones, verifies every file by sha256 and resets the board.
Only firmware files are ever touched: /main.py, /boot.py, files under /lib/box/ and
/lib/tycoon/ (and any other /lib/PACKAGE/ the build has). The pin map /pinmap.json is copied
only to a board that has none, or with `--pinmap FILE`; a board's own is kept byte for byte.
With `--hall-settings FILE` also /hall.json (the box's settings for the hall, checked first by
the firmware's own reader; the hall's CA it carries for TLS, a certificate), copied and
verified as the others; without it /hall.json is left
as it is. /games/ (the games and the setup) never is touched, nor any other file of the
maker's. Exit status: 0 done, 1 build error or verify mismatch, 2 board/port problem or
refusal. `--dry-run` with no board to reach lists what a fresh board would receive (exit 0).
"""
import errno
import hashlib
import json
import os
import sys
import tempfile

from mpremote.transport import TransportExecError

from host_tools.resources import BOARD_PINMAP, FIRMWARE, PINMAP_SOURCE
from host_tools.device import build
from host_tools.device.board_info import describe, incompatibility, unsupported
from host_tools.device.serial_board import COMM_ERRORS, CONNECT_TIMEOUT, BoardError, NoPico, connect
from host_tools.errors import (CANNOT, VERDICT, MatchboxError, check_input, read_bounded,
                               seconds_in)
from host_tools.files import write_whole

OWNED_DIRS = ("/lib/box", "/lib/tycoon")
OWNED_FILES = ("/main.py",)   # and every top-level file of the build
PROTECTED = "/games/"
HALL_SETTINGS = "/hall.json"   # copied only with --hall-settings, never removed
MAX_PINMAP = 64 * 1024         # a pin map is under 2 KB


def add_arguments(parser):
    parser.add_argument("--port", default="auto",
                        help="serial port of the Pico (default: auto, the one Pico running MicroPython, "
                             "a Matchbox or a fresh one; never another USB serial device)")
    parser.add_argument("--source", action="store_true",
                        help="copy the .py sources instead of compiled .mpy (skips the .mpy version check)")
    parser.add_argument("--dry-run", action="store_true",
                        help="show what would be copied and removed, change nothing")
    parser.add_argument("--timeout", type=seconds_in(0, 3600), default=CONNECT_TIMEOUT,
                        help="seconds to wait for the board's raw REPL (default %(default)s)")
    parser.add_argument("--firmware", default=FIRMWARE, help="firmware folder to flash (default: the one this matchbox ships)")
    parser.add_argument("--hall-settings", metavar="FILE",
                        help="also put this file on the box as hall.json: its settings for the "
                             "hall, as `matchbox hall enrol` writes them (docs/hall.md)")
    parser.add_argument("--pinmap", metavar="FILE",
                        help="replace the board's pin map with this one (without it a board "
                             "keeps its own pinmap.json; one that has none gets %s)"
                             % PINMAP_SOURCE)


def run(args):
    return flash(port=args.port, source=args.source, dry_run=args.dry_run,
                 root=args.firmware, timeout=args.timeout, hall_settings=args.hall_settings,
                 pinmap=args.pinmap)


def owned(staged_paths):
    """(folders walked, single files checked) that flashing may change on the board."""
    dirs = set(OWNED_DIRS)
    files = set(OWNED_FILES)
    for path in staged_paths:
        parts = path.strip("/").split("/")
        if len(parts) == 1:
            files.add(path)
        elif parts[0] == "lib" and len(parts) > 2:
            dirs.add("/lib/" + parts[1])
    return sorted(dirs), sorted(files)


def plan(local, on_board):
    """(paths to copy, paths to remove) from {path: sha256} here and on the board."""
    copy = [p for p in local if on_board.get(p) != local[p]]
    copy.sort(key=lambda p: (p == "/main.py", p.count("/") == 1, p))  # libraries first, main.py last
    remove = sorted(p for p in on_board if p not in local and not p.startswith(PROTECTED))
    return copy, remove


def _error(message, status=CANNOT):
    raise MatchboxError("", message, status)


def read_hall_settings(path):
    """The bytes of a hall.json for the box, checked by the firmware's own reader
    (box.mqtt_link.load); MatchboxError saying what is wrong."""
    from host_tools import resources
    link = resources.firmware_module("box.mqtt_link")
    store = resources.firmware_module("box.journal").Store()
    try:
        check_input(path)
    except MatchboxError as exc:
        raise MatchboxError("--hall-settings", str(exc)) from None
    try:
        settings = link.load(store, path)
        with open(path, "rb") as f:
            data = f.read()
    except link.SettingsError as exc:
        raise MatchboxError("--hall-settings", str(exc)) from None
    except OSError as exc:
        raise MatchboxError("--hall-settings", "%s: %s" % (path, exc.strerror or exc)) from None
    if settings.get("ca") is not None:   # the hall's CA, which the box checks the broker against
        from host_tools.hall import certs
        try:
            certs.der_certificate(settings["ca"])
        except certs.CertError as exc:
            raise MatchboxError("--hall-settings", "%s: %s" % (path, exc)) from None
    return data


def read_pinmap(path):
    """The bytes of a pin map for --pinmap, checked as the box's self-test checks its own
    (box.pincheck); MatchboxError saying what is wrong."""
    from host_tools import resources
    data = read_bounded(path, MAX_PINMAP, "pin map")
    try:
        problems = resources.firmware_module("box.pincheck").problems(json.loads(data))
    except ValueError as exc:
        raise MatchboxError("--pinmap", "%s is not JSON: %s" % (path, exc)) from None
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise MatchboxError("--pinmap", "%s is not a pin map like %s (%s %s)"
                            % (path, PINMAP_SOURCE, type(exc).__name__, exc)) from None
    if problems:
        raise MatchboxError("--pinmap", "%s: %s" % (path, "; ".join(problems)))
    return data


def flash(port="auto", source=False, dry_run=False, root=FIRMWARE, timeout=CONNECT_TIMEOUT,
          hall_settings=None, pinmap=None):
    """Flash the firmware tree at root to the board on port (and `hall_settings`, a file, as
    /hall.json; `pinmap`, a file, as the board's pin map); returns the exit status."""
    settings = read_hall_settings(hall_settings) if hall_settings else None
    own_map = read_pinmap(pinmap) if pinmap else None
    if not os.path.isfile(os.path.join(root, "main.py")):
        _error("%s is not a firmware folder: it has no main.py (--firmware names a folder "
               "like firmware/ of this project)" % root)
    with tempfile.TemporaryDirectory(prefix="matchbox-stage-") as stage_dir:
        try:
            staged = build.stage(stage_dir, source=source, root=root)
        except build.BuildError as exc:
            for err in exc.errors:
                print(build.format_error(err), file=sys.stderr)
            return _error("the firmware does not compile; nothing was copied", VERDICT)
        if not staged:
            return _error("no firmware files under %s" % root)
        local = {"/" + name: digest for name, digest in staged}
        # the given files join the staged ones (the staged pin map, never a link, is replaced)
        for path, data in ((HALL_SETTINGS, settings), (BOARD_PINMAP, own_map)):
            if data is not None:
                write_whole(stage_dir + path, data)
                local[path] = hashlib.sha256(data).hexdigest()
        native = set()
        for name, _ in staged:
            if name.endswith(".mpy"):
                with open("%s/%s" % (stage_dir, name), "rb") as f:
                    arch = build.mpy_header(f.read(4))["arch"]
                if arch:
                    native.add(arch)
        try:
            board = connect(port, timeout=timeout)
        except BoardError as exc:
            if dry_run:
                return _dry_run_fresh(stage_dir, local, source, exc)
            return _error(str(exc))
        with board:
            try:
                return _flash(board, stage_dir, local, native, source, dry_run,
                              keep_map=own_map is None)
            except BoardError as exc:
                return _error(str(exc))
            except TransportExecError as exc:
                lines = exc.error_output.strip().splitlines()
                return _error("the board reported: %s" % (lines[-1] if lines else "an error"))
            except COMM_ERRORS as exc:
                return _error("lost the board on %s: %s" % (board.port, exc))


def _dry_run_fresh(stage_dir, local, source, exc):
    """--dry-run with no board to compare against: say so once, then list what a fresh board
    would receive."""
    kind = "as .py sources" if source else "modules as mpy v%d.%d bytecode" % build.mpy_version()[:2]
    why = "no Pico is plugged in" if isinstance(exc, NoPico) else "no board to compare with (%s)" % exc
    print("dry run: %s, so nothing was compared; a fresh Pico (MicroPython, no box on it yet) "
          "would get these %d files, %s:" % (why, len(local), kind))
    copy, _ = plan(local, {})
    for i, path in enumerate(copy, 1):
        print("would copy [%d/%d] %s (%d bytes)" % (i, len(copy), path[1:],
                                                   os.path.getsize(stage_dir + path)))
    print("dry run: %d to copy to a fresh board; a Pico with the box on it gets only the files "
          "that differ; no board was touched" % len(copy))
    return 0


def _flash(board, stage_dir, local, native, source, dry_run, keep_map=True):
    info = board.info()
    print(describe(info, board.port))
    reason = unsupported(info["version"])
    if reason:
        raise BoardError("refusing to flash: the board runs " + reason)
    if source:
        print("build: %d files as .py sources (no .mpy check)" % len(local))
    else:
        version = build.mpy_version()
        print("build: %d files, modules as mpy v%d.%d bytecode" % (len(local), version[0], version[1]))
        reason = incompatibility(info, version, sorted(native))
        if reason:
            raise BoardError("refusing to flash: " + reason)

    dirs, files = owned(local)
    on_board = board.hashes(paths=files, dirs=dirs)
    theirs = on_board.get(BOARD_PINMAP)
    if keep_map and theirs is not None and theirs != local.get(BOARD_PINMAP):
        # the board's own pin map (the one it was given, or edited there) stays as it is
        del on_board[BOARD_PINMAP], local[BOARD_PINMAP]
        print("pin map: the board's own %s kept (--pinmap FILE replaces it)" % BOARD_PINMAP[1:])
    copy, remove = plan(local, on_board)
    prefix = "would " if dry_run else ""
    copy_prefix = "would copy " if dry_run else ""
    for path in remove:
        if not dry_run:
            board.remove(path)
        print("%sremove %s (not in this build)" % (prefix, path[1:]))
    total = sum(os.path.getsize(stage_dir + path) for path in local)
    for i, path in enumerate(copy, 1):
        with open(stage_dir + path, "rb") as f:
            data = f.read()
        print("%s[%d/%d] %s (%d bytes)" % (copy_prefix, i, len(copy), path[1:], len(data)), flush=True)
        if not dry_run:
            _write(board, path, data, total)
    unchanged = len(local) - len(copy)
    if dry_run:
        print("dry run: %d to copy, %d to remove, %d up to date; nothing changed on the board"
              % (len(copy), len(remove), unchanged))
        board.restart(hard=False)
        return 0

    after = board.hashes(paths=sorted(local))
    bad = [p for p in sorted(local) if after.get(p) != local[p]]
    if bad:
        _error("verify failed: " + "; ".join("%s on the board %s" % (
            path[1:], "is missing" if after.get(path) is None
            else "has sha256 %s, expected %s" % (after.get(path), local[path])) for path in bad),
            VERDICT)
    print("verified %d files on the board by sha256 (%d copied, %d removed, %d already up to date)"
          % (len(local), len(copy), len(remove), unchanged))
    how = board.restart(hard=True)
    print("board restarted (%s)" % how)
    return 0


def _write(board, path, data, total):
    try:
        board.write_file(path, data)
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        try:
            board.remove(path)  # a truncated module would fail in confusing ways
        except TransportExecError:
            pass
        raise BoardError(
            "flash full while writing %s (%d bytes): %d bytes free on the board, the whole build "
            "takes %d; the firmware there is now incomplete: free space (pull, then delete old "
            "games) and flash again" % (path[1:], len(data), board.free_bytes(), total)) from None
