"""`matchbox sim`: run the real firmware on the virtual box (host_tools.virtual.box), or with
`--pico` on the emulated Pico (host_tools.virtual.emulated_pico: an emulated RP2040 running
the box's own firmware image, or the UF2 given with `--uf2 PATH` on a blank flash); without
Node, rp2040js or the boot ROM, or with a UF2 that is not one, `--pico` exits 1 with one line
saying what is missing.

`--headless` boots the box, presses the given keys, lets announcements settle and prints one
JSON object: {"displays": [...], "state": STATE or null, "journal": "record text"}. With
`--stream` it prints instead the state lines the firmware sends over USB, as they come, which
is what `matchbox watch --file -` reads.
Key words (case does not matter; docs/simulator.md):
  0-9 A-F G H AS PLAY PASS DEL UNDO MENU   a press: held 60 ms, then 60 ms released
  NAME:long                                 held 1000 ms (a long press)
  NAME:MS                                   held MS milliseconds
  WAIT:MS                                   nothing pressed for MS milliseconds
"""
import json
import sys

from host_tools.virtual.box import GAP_MS, BoxError, parse_keys, read_record
from host_tools.virtual.new_box import make_box

SETTLE_MS = 3000  # longer than the firmware's error (2 s) and announcement (1.5 s) overlays


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
    parser.add_argument("--settle", type=int, default=SETTLE_MS, metavar="MS",
                        help="virtual ms to let pass after the last key (default %d)" % SETTLE_MS)
    parser.add_argument("--displays", type=int, default=4, metavar="N",
                        help="interactive: fit only the first N displays (1-4) to see paging")
    parser.add_argument("--pico", action="store_true",
                        help="run on the emulated RP2040 (the Pico's MicroPython in rp2040js, "
                             "docs/emulated-pico.md) instead of the unix port")
    parser.add_argument("--uf2", metavar="PATH",
                        help="with --pico: boot this UF2 on a blank flash (default: the box's own "
                             "image as `make uf2` makes it; stock MicroPython gets the firmware "
                             "files on littlefs, as `matchbox flash` copies them)")
    parser.add_argument("--flash", metavar="DIR",
                        help="interactive: keep the box's flash in DIR (created if missing), "
                             "so a game survives restarting the simulator")


def headless(args, out=None):
    """Run the box without a UI; returns the exit status."""
    out = out or sys.stdout
    try:
        steps = parse_keys(args.keys)
    except ValueError as exc:
        print("matchbox sim: %s" % exc, file=sys.stderr)
        return 2
    record = None
    if args.journal:
        record, warning = read_record(args.journal)
        if record is None:
            return 2
        if warning:
            print(warning, file=sys.stderr)
    try:
        box = make_box(args, record)
    except BoxError as exc:
        print("matchbox sim: %s" % exc, file=sys.stderr)
        return 1
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
                if kind == "wait":
                    box.advance(ms)
                else:
                    box.tap(name, ms, GAP_MS)
                stream()
            box.advance(max(args.settle, 1))
            stream()
            result = {"displays": box.displays(), "state": box.state(),
                      "journal": box.journal_text()}
        except BoxError as exc:
            print("matchbox sim: the box failed: %s" % exc, file=sys.stderr)
            return 1
        if box.mode != "running":
            print("matchbox sim: the firmware stopped (%s):\n%s" % (
                box.mode, "\n".join(box.console[-20:])), file=sys.stderr)
            return 1
    if not args.stream:
        out.write(json.dumps(result) + "\n")
    return 0


def interactive(args):
    """The terminal simulator (host_tools.tui)."""
    from host_tools import tui
    return tui.run(args)


def run(args):
    if args.stream and not args.headless:
        print("matchbox sim: --stream needs --headless", file=sys.stderr)
        return 2
    if args.uf2 and not args.pico:
        print("matchbox sim: --uf2 goes with --pico (the emulated RP2040 boots the UF2)",
              file=sys.stderr)
        return 2
    if args.pico and args.flash:
        print("matchbox sim: --flash keeps a folder for the unix port; the emulated Pico "
              "starts from a fresh littlefs image (use --journal to resume a game)",
              file=sys.stderr)
        return 2
    if args.headless:
        return headless(args)
    return interactive(args)
