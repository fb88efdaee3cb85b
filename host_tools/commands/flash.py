"""`matchbox flash`: compile the firmware and bring a Pico's code up to date over USB serial.

Two kinds of board, told apart by asking the board (host_tools.device.romfs_board):
- Matchbox's own image (`make uf2`): the box's modules live in a ROMFS partition, which comes
  before littlefs on sys.path. Flash builds the ROMFS image, deploys it when it differs (header
  last: a cut leaves the whole new image or none), writes the pin map (and /main.py where
  main.py is not frozen) only when changed, removes the littlefs copies of the box's modules
  that would never run, resets the board and checks what runs: the image's sha256 on the board
  and the file each box module is imported from.
- Stock MicroPython: stage the build (lib modules as .mpy, main.py/boot.py as .py), refuse
  when the board cannot load this .mpy format, hash the firmware files on the board, remove
  stale firmware files, copy the changed ones, verify every file by sha256, reset.
Only firmware files are ever touched: /main.py, /boot.py, the pin map, files under /lib/box/
and /lib/tycoon/ (and any other /lib/PACKAGE/ the build has), and the ROMFS partition; with
`--hall-settings FILE` also /hall.json (the box's settings for the hall, checked first by the
firmware's own reader), copied and verified as the others; without it /hall.json is left as it
is. /games/ never is touched. Exit status: 0 done, 1 build error or verify mismatch, 2 board/port problem
or refusal. `--dry-run` with no board to reach lists what a fresh board would receive (exit 0).
"""
import errno
import hashlib
import os
import sys
import tempfile

from mpremote.transport import TransportExecError

from host_tools.resources import BOARD_PINMAP, FIRMWARE
from host_tools.device import build, image, romfs_board
from host_tools.device.board_info import describe, incompatibility
from host_tools.device.serial_board import (COMM_ERRORS, CONNECT_TIMEOUT, BoardError, connect,
                                            reconnect)
from host_tools.errors import CANNOT, VERDICT, MatchboxError, seconds_in

OWNED_DIRS = ("/lib/box", "/lib/tycoon")
OWNED_FILES = ("/main.py", "/boot.py", BOARD_PINMAP)
PROTECTED = "/games/"
HALL_SETTINGS = "/hall.json"   # copied only with --hall-settings, never removed


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


def run(args):
    return flash(port=args.port, source=args.source, dry_run=args.dry_run,
                 root=args.firmware, timeout=args.timeout, hall_settings=args.hall_settings)


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
    store = resources.firmware_module("box.store").Store()
    try:
        link.load(store, path)
        with open(path, "rb") as f:
            return f.read()
    except link.SettingsError as exc:
        raise MatchboxError("--hall-settings", str(exc)) from None
    except OSError as exc:
        raise MatchboxError("--hall-settings", "%s: %s" % (path, exc.strerror or exc)) from None


def flash(port="auto", source=False, dry_run=False, root=FIRMWARE, timeout=CONNECT_TIMEOUT,
          hall_settings=None):
    """Flash the firmware tree at root to the board on port (and `hall_settings`, a file, as
    /hall.json); returns the exit status."""
    settings = read_hall_settings(hall_settings) if hall_settings else None
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
        if settings is not None:
            with open(stage_dir + HALL_SETTINGS, "wb") as f:
                f.write(settings)
            local[HALL_SETTINGS] = hashlib.sha256(settings).hexdigest()
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
                return _dry_run_fresh(stage_dir, local, source, str(exc))
            return _error(str(exc))
        with board:
            try:
                part = romfs_board.query(board)
                if part is not None:
                    return _flash_image(board, part, stage_dir, local, source, dry_run, root,
                                        timeout)
                return _flash(board, stage_dir, local, native, source, dry_run)
            except BoardError as exc:
                return _error(str(exc))
            except TransportExecError as exc:
                lines = exc.error_output.strip().splitlines()
                return _error("the board reported: %s" % (lines[-1] if lines else "an error"))
            except COMM_ERRORS as exc:
                return _error("lost the board on %s: %s" % (board.port, exc))


def _dry_run_fresh(stage_dir, local, source, reason):
    """--dry-run with no board to compare against: list what a fresh board would receive."""
    print("no board to compare with (%s)" % reason)
    kind = "as .py sources" if source else "modules as mpy v%d.%d bytecode" % build.mpy_version()[:2]
    print("on a fresh board (no firmware on it yet) flash would copy %d files, %s:" % (len(local), kind))
    copy, _ = plan(local, {})
    for i, path in enumerate(copy, 1):
        print("would copy [%d/%d] %s (%d bytes)" % (i, len(copy), path[1:],
                                                   os.path.getsize(stage_dir + path)))
    print("dry run: %d to copy to a fresh board; a board that has firmware gets only the files "
          "that differ; no board was touched" % len(copy))
    return 0


def _flash(board, stage_dir, local, native, source, dry_run):
    info = board.info()
    print(describe(info, board.port))
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


def _flash_image(board, part, stage_dir, local, source, dry_run, root, timeout):
    """Flash a board with a ROMFS partition (Matchbox's own image); returns the exit status."""
    print(describe(board.info(), board.port))
    has = ("an image of %d bytes, sha256 %s" % (part.image_bytes, part.sha256)
           if part.sha256 else "no valid image")
    print("firmware: %s with a %d KB ROMFS partition (%s)" % (part.build or "MicroPython",
                                                             part.size // 1024, has))
    if source:
        raise BoardError("refusing to flash: --source copies .py files to littlefs, but this "
                         "board runs the box's code from its ROMFS partition; flash without "
                         "--source")
    try:
        data, files = image.romfs_image(root)
    except build.BuildError as exc:
        for err in exc.errors:
            print(build.format_error(err), file=sys.stderr)
        return _error("the firmware does not compile; nothing was changed", 1)
    digest = hashlib.sha256(data).hexdigest()
    if len(data) > part.size:
        raise BoardError("refusing to flash: the box's ROMFS image takes %d bytes, the board's "
                         "partition holds %d" % (len(data), part.size))
    # On littlefs only the pin map (and main.py where it is not frozen); the littlefs copies
    # of the box's modules would never run (ROMFS comes first on sys.path): removed. The image
    # carries the default pin map too, for a Pico that only ever got the UF2.
    keep = [BOARD_PINMAP, HALL_SETTINGS] + ([] if part.frozen_main else ["/main.py"])
    wanted = {path: local[path] for path in keep if path in local}
    dirs, files_owned = owned(local)
    on_board = board.hashes(paths=files_owned, dirs=dirs)
    copy, remove = plan(wanted, on_board)
    fresh = part.sha256 == digest
    prefix = "would " if dry_run else ""
    if fresh:
        print("ROMFS image up to date (%d bytes, sha256 %s)" % (len(data), digest))
    else:
        print("%sdeploy the ROMFS image: %d bytes, %d files, sha256 %s"
              % (prefix, len(data), len(files), digest))
    if dry_run:
        for path in remove:
            print("would remove %s (%s)" % (path[1:], _why_stale(path)))
        for path in copy:
            print("would copy %s" % path[1:])
        print("dry run: nothing changed on the board")
        board.restart(hard=False)
        return 0
    # The pin map first: should the deploy be cut, main.py finds it on littlefs to show its
    # code on the displays.
    for path in copy:
        with open(stage_dir + path, "rb") as f:
            payload = f.read()
        print("copy %s (%d bytes)" % (path[1:], len(payload)))
        _write(board, path, payload, len(payload))
    if not fresh:
        got = romfs_board.deploy(board, part, data)
        if got != digest:
            return _error("verify failed: the board's ROMFS partition has sha256 %s after the "
                          "deploy, expected %s; flash again" % (got, digest), 1)
        print("ROMFS image deployed and verified by sha256")
    for path in remove:
        board.remove(path)
        print("removed %s (%s)" % (path[1:], _why_stale(path)))
    after = board.hashes(paths=sorted(wanted))
    bad = [p for p in sorted(wanted) if after.get(p) != wanted[p]]
    if bad:
        return _error("verify failed: %s on the board differs from this build" % ", ".join(
            p[1:] for p in bad), 1)
    print("board restarting so that /rom is mounted...")
    board.restart(hard=True)
    board.close()
    return _verify_running(board.port, timeout, digest, files)


def _why_stale(path):
    if path.startswith("/lib/"):
        return "ROMFS comes first on sys.path: this copy would never run"
    if path == "/main.py":
        return "main.py is frozen into this firmware: this copy would never run"
    return "not in this build"


def _verify_running(port, timeout, digest, files):
    """After the reset: the image on the board is ours and every box module imports from it."""
    try:
        board = reconnect(port, timeout)
    except BoardError as exc:
        return _error("the board did not come back after its reset: %s; run `matchbox doctor` "
                      "to see what it runs" % exc)
    with board:
        part = romfs_board.query(board)
        if part is None or part.sha256 != digest:
            return _error("after the reset the board's ROMFS image is %s, expected sha256 %s"
                          % ("missing" if part is None or not part.sha256 else part.sha256,
                             digest), 1)
        modules = [name[4:-4].replace("/", ".") for name, _ in files
                   if name.startswith("lib/") and name.endswith(".mpy")]
        found = romfs_board.imported_from(board, modules)
        wrong = ["%s from %s" % (m, f) for m, f in sorted(found.items())
                 if not f.startswith("/rom/")]
        if wrong:
            return _error("the board does not run the deployed code: %s" % ", ".join(wrong), 1)
        print("verified: the board runs ROMFS image sha256 %s (%d modules imported from /rom)"
              % (digest, len(found)))
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
