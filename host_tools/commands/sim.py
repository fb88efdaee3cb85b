"""`matchbox sim`: run the real firmware on the virtual box (host_tools.virtual.box), or with
`--pico` on the emulated Pico (host_tools.virtual.emulated_pico: an emulated RP2040 running
an official MicroPython UF2 with the box on its littlefs, as `matchbox uf2` puts it there): it
needs the UF2 and the RP2040 boot ROM given by path (`--uf2`, `--bootrom`, or
MATCHBOX_PICO_UF2, MATCHBOX_PICO_BOOTROM); without them, Node or rp2040js, or with a file that
is not what it should be, `--pico` exits 2 with one line saying what to give.

`--headless` boots the box, presses the given keys, lets announcements settle and prints one
JSON object: {"displays": [...], "state": STATE or null, "journal": "record text"}. With
`--stream` it prints instead the state lines the firmware sends over USB, as they come, which
is what `matchbox watch --file -` reads.
Key words (case does not matter; docs/simulator.md):
  0-9 A-F G H AS PLAY PASS DEL UNDO MENU   a press: held 60 ms, then 60 ms released
  NAME:long                                 held 1000 ms (a long press)
  NAME:MS                                   held MS milliseconds
  WAIT:MS                                   nothing pressed for MS milliseconds (with
                                            --uplink, MS of the wall clock too)
"""
import json
import os
import sys
import time

from host_tools import resources
from host_tools.errors import VERDICT, MatchboxError, check_folder, int_in, one_line, seconds_in
from host_tools.virtual.board_link import GAP_MS
from host_tools.virtual.box import BoxError, parse_keys, read_record
from host_tools.virtual.make_box import make_box

SETTLE_MS = 3000  # longer than the firmware's error (2 s) and announcement (1.5 s) overlays
LIVE_STEP_MS = 20  # the box's time let pass at a time while a WAIT keeps to the wall clock


def add_arguments(parser):
    parser.add_argument("--headless", action="store_true",
                        help="no terminal UI: press --keys, print displays, state and journal as JSON")
    parser.add_argument("--journal", metavar="FILE",
                        help="power on with this game record as the box's games/current.txt (a resume)")
    parser.add_argument("--keys", default="", metavar='"K K ..."',
                        help="keys to press: 0-F G H AS PLAY PASS DEL UNDO MENU, NAME:long, "
                             "NAME:MS (held MS ms), WAIT:MS")
    parser.add_argument("--stream", action="store_true",
                        help="headless: print the firmware's USB state lines as they come "
                             "(for `matchbox watch --file -`) instead of the JSON")
    parser.add_argument("--settle", type=int_in(0, 3600000), default=SETTLE_MS, metavar="MS",
                        help="virtual ms to let pass after the last key (default %d)" % SETTLE_MS)
    parser.add_argument("--displays", type=int, metavar="N",
                        help="fit only the first N displays (1-4; default all) to see paging")
    parser.add_argument("--pico", action="store_true",
                        help="run on the emulated RP2040 (the Pico's MicroPython in rp2040js, "
                             "docs/emulated-pico.md) instead of the unix port")
    parser.add_argument("--uf2", metavar="PATH",
                        help="with --pico: the MicroPython UF2 for RPI_PICO to boot, with the box "
                             "on its littlefs (default: $MATCHBOX_PICO_UF2)")
    parser.add_argument("--bootrom", metavar="PATH",
                        help="with --pico: the RP2040 boot ROM, 16 KB (default: "
                             "$MATCHBOX_PICO_BOOTROM; `matchbox doctor --boot-rom FILE` reads "
                             "a Pico's)")
    parser.add_argument("--flash", metavar="DIR",
                        help="keep the box's flash in DIR (created if missing), so a game "
                             "survives restarting the simulator; with --journal a game kept "
                             "there is archived first, as the box does for a new game")
    parser.add_argument("--uplink", metavar="URL",
                        help="with --flash: send the journal to a hall (mqtt://BOX:PASSWORD@HOST"
                             ":PORT, from `matchbox hall enrol`); exits once the hall has it all")
    parser.add_argument("--uplink-ca", metavar="FILE",
                        help="with an mqtts:// --uplink: the hall's CA certificate (the hall's "
                             "tls/ca.pem), which the box checks the broker against")
    parser.add_argument("--uplink-timeout", type=seconds_in(0, 3600), default=30, metavar="S",
                        help="seconds to wait for the hall's acknowledgement of every line "
                             "(default 30); then status 2 and how far it got")


def headless(args, steps, record, warning, devices, out=None, after=None):
    """Run the box without a UI, pressing steps (parse_keys); returns the exit status.
    `after(box)` runs once the keys have settled, while the box is still on."""
    out = out or sys.stdout
    if warning:
        print(warning, file=sys.stderr)
    box = make_box(args, record, devices)
    with box:
        sent = 0

        def stream():
            nonlocal sent
            if args.stream:
                for line in box.emitted[sent:]:
                    out.write(line + "\n")
                out.flush()
                sent = len(box.emitted)
        try:
            box.boot()
            for kind, name, ms in steps:
                if kind == "wait" and args.uplink:
                    wait_live(box, ms)
                elif kind == "wait":
                    box.advance(ms)
                else:
                    box.tap(name, ms, GAP_MS)
                stream()
            box.advance(max(args.settle, 1))
            stream()
            result = {"displays": box.displays(), "state": box.state(),
                      "journal": box.journal_text()}
            if not args.stream:
                out.write(json.dumps(result) + "\n")
                out.flush()
            if after is not None:
                after(box)
        except BoxError as exc:
            raise MatchboxError("the box failed", one_line(exc), VERDICT) from None
        if box.mode != "running":
            lines = [line for line in box.console if line.strip()]
            raise MatchboxError("the firmware stopped (%s)" % box.mode, one_line(
                lines[-1] if lines else "it printed nothing"), VERDICT)
    return 0


def wait_live(box, ms):
    """WAIT:MS with an uplink: the box's link talks to a real broker, so MS pass on the wall
    clock as well as on the box (a script's WAIT before PLAY lets the hall's setup come)."""
    start = time.monotonic()
    done = 0
    while done < ms:
        step = min(LIVE_STEP_MS, ms - done)
        box.advance(step)
        done += step
        ahead = start + done / 1000 - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)


def display_count(args):
    """The displays to fit: --displays N checked against the pin map (1 to its count)."""
    addresses = [d["address"] for d in resources.load_pinmap()["displays"]]
    n = len(addresses) if args.displays is None else args.displays
    if not 1 <= n <= len(addresses):
        raise MatchboxError("--displays", "must be 1 to %d (the displays of the pin map), not %d"
                            % (len(addresses), n))
    return addresses[:n]


def keep_flash(folder, record):
    """Before `--journal` puts record into the kept flash folder: a game kept there
    (games/current.txt, not the same record) goes to games/archive/game-NNN.txt, the next
    number, as the box archives the running game when a new one starts. Returns the archive
    path, or None when nothing was kept."""
    games = os.path.join(folder, "games")
    current = os.path.join(games, "current.txt")
    if not os.path.isfile(current):
        return None
    with open(current, "rb") as f:
        kept = f.read(len(record) + 1)
    if kept == record or not kept.strip() or _taken(current, record):
        return None
    archive = os.path.join(games, "archive")
    os.makedirs(archive, exist_ok=True)
    numbers = [int(name[5:-4]) for name in os.listdir(archive)
               if name.startswith("game-") and name.endswith(".txt") and name[5:-4].isdigit()]
    path = os.path.join(archive, "game-%03d.txt" % (max(numbers) + 1 if numbers else 1))
    os.rename(current, path)
    return path


def _taken(path, record):
    """Whether the record at path is `record` as the box takes it: a record typed by hand
    written anew as the box's own (docs/journal.md), the same game."""
    import io
    from host_tools.errors import MAX_RECORD
    from tycoon import notation
    from tycoon.game import pack_game
    with open(path, "rb") as f:
        kept = f.read(MAX_RECORD + 1)
    (game, error, _r), (typed, typo, _t) = [notation.read(io.BytesIO(data))
                                            for data in (kept, record)]
    return error is None and typo is None and game is not None and typed is not None \
        and pack_game(game) == pack_game(typed)


def interactive(args, record, warning, devices):
    """The terminal simulator (host_tools.terminal.tui)."""
    from host_tools.terminal import tui
    return tui.run(args, record, warning, devices)


def run(args):
    if args.stream and not args.headless:
        raise MatchboxError("--stream", "needs --headless")
    for name, value in (("--uf2", args.uf2), ("--bootrom", args.bootrom)):
        if value and not args.pico:
            raise MatchboxError(name, "goes with --pico (the emulated RP2040 boots the UF2 on "
                                "the boot ROM)")
    if args.uplink:
        from host_tools.hall.uplink import check_url
        check_url(args.uplink, ca=args.uplink_ca)
        if not args.flash or args.pico:
            raise MatchboxError("--uplink", "needs --flash DIR (the uplink reads the journal "
                                "there, and sends again after a restart what the hall lacks)")
    if args.pico and args.flash:
        raise MatchboxError("--flash", "keeps a folder for the unix port; the emulated Pico "
                            "starts from a fresh littlefs image (use --journal to resume a game)")
    devices = display_count(args)
    try:
        steps = parse_keys(args.keys)
    except ValueError as exc:
        raise MatchboxError("--keys", str(exc).replace(" in --keys", "")) from None
    if not args.headless:
        from host_tools.terminal import tui
        tui.check_terminal()
    record = warning = None
    if args.journal:
        record, warning = read_record(args.journal)
    if args.flash:
        check_folder(args.flash, "folder for the box's flash")
        if record is not None:
            try:
                kept = keep_flash(args.flash, record)
            except OSError as exc:
                raise MatchboxError(args.flash, "cannot archive the game kept there: %s"
                                    % exc.strerror) from None
            if kept:
                print("matchbox sim: the game kept in %s was archived as %s (as the box does "
                      "when a new game starts)" % (args.flash, os.path.relpath(kept, args.flash)),
                      file=sys.stderr)
    if args.uplink:
        return with_uplink(args, steps, record, warning, devices)
    if args.headless:
        return headless(args, steps, record, warning, devices)
    return interactive(args, record, warning, devices)


def with_uplink(args, steps, record, warning, devices):
    """Run the box with the firmware's own hall link (box.mqtt_link under the unix port: the
    settings go into the flash folder as the box's hall.json, from the URL); after the keys,
    or once the terminal simulator is closed (the box is then powered on again from its
    journal), let it run until the hall has acknowledged every line (docs/hall.md)."""
    from host_tools.hall import uplink
    ca = uplink.read_ca(args.uplink_ca, "--uplink-ca") if args.uplink_ca else None
    os.makedirs(args.flash, exist_ok=True)
    uplink.write_settings(os.path.join(args.flash, uplink.SETTINGS),
                          uplink.settings(args.uplink, ca=ca))
    url = args.uplink

    def deliver(box):
        uplink.deliver(box, args.flash, url, args.uplink_timeout)
    if args.headless:
        return headless(args, steps, record, warning, devices, after=deliver)
    status = interactive(args, record, warning, devices)
    box = make_box(args, None, devices)
    with box:
        try:
            box.boot()
            deliver(box)
        except BoxError as exc:
            raise MatchboxError("the box failed", one_line(exc), VERDICT) from None
    return status
