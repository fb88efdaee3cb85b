"""`matchbox watch`: a live mirror of the box over USB serial (a spectator screen, a stream).

The firmware prints one JSON state line (tycoon.writer.to_json) after every accepted action,
after an undo and when a game starts; and at power-up, when its record was damaged, one line
saying what it repaired, lost and kept (state_log.notice_text), which watch shows in words. watch only listens: it never writes to the port, so the
game goes on undisturbed. Other lines (boot messages, tracebacks) are skipped. What happened is
read off two consecutive states ("seat 3 played 2 x 9 (2 sticks)", "seat 4 passed", ...).

On a terminal the screen is redrawn after each state; otherwise each state appends its log
lines and a one-line summary. `--file FILE` (or `-` for stdin) reads the lines from a file.
Exit status: 0 at the end of the input, 1 when the input held no state line (an empty file),
2 when the port or file cannot be opened.
"""
import os
import sys
import time

import serial

from host_tools import files
from host_tools.device.serial_board import BoardError, find_pico, probe_port
from host_tools.errors import VERDICT, MatchboxError, int_in
from host_tools.reports.state_log import (_sticks, _turn, changes, notice_text, order_text, parse_state,
                                  table_text)

CLEAR = "\x1b[H\x1b[2J"
MAX_LINE = 4096  # a state line is a few hundred bytes; longer "lines" are noise
RETRY_S = 1.0


def add_arguments(parser):
    parser.add_argument("--port", default="auto",
                        help="serial port of the box (default: auto, the one Pico running "
                             "MicroPython, told by its USB ids)")
    parser.add_argument("--file", metavar="FILE",
                        help="read state lines from FILE (- for stdin) instead of a port")
    parser.add_argument("--count", type=int_in(1), metavar="N",
                        help="stop after N states")
    parser.add_argument("--once", action="store_true",
                        help="stop when the box goes away instead of waiting for it to come back")
    parser.add_argument("--plain", action="store_true",
                        help="append plain lines even on a terminal (no screen redraw)")
    parser.add_argument("--log", type=int_in(0, 1000), default=12, metavar="N",
                        help="log lines kept on the screen (default %(default)s)")


def run(args):
    redraw = sys.stdout.isatty() and not args.plain
    counts = {}
    # following a board or stdin, Ctrl-C is the way to stop it: said `stopped` (cli)
    args.serving = not args.file or args.file == "-"
    try:
        if args.file:
            source = file_lines(args.file, counts)
        else:
            source = port_lines(args.port, once=args.once)
        seen = watch(source, redraw=redraw, count=args.count, log_size=args.log)
    except BoardError as exc:
        raise MatchboxError("", str(exc)) from None
    if args.file and not seen:
        name = "stdin" if args.file == "-" else args.file
        if not counts.get("bytes"):
            why = "it is empty (a state line comes after each action on the box)"
        else:
            why = ("none of its %d lines is a state line (the JSON the box prints after each "
                   "action)" % counts.get("lines", 0))
        raise MatchboxError("no state in %s" % name, why, VERDICT)
    return 0


# --- reading ----------------------------------------------------------------------------------

def _split(chunks, counts=None):
    """Text lines from an iterable of byte chunks (CR/LF endings, over-long lines dropped);
    counts (a dict), when given, gets the "bytes" and "lines" seen."""
    counts = {} if counts is None else counts
    counts["bytes"] = counts["lines"] = 0
    buf = b""
    for chunk in chunks:
        counts["bytes"] += len(chunk)
        lines, seen, buf = files.whole_lines(buf + chunk, MAX_LINE)
        counts["lines"] += seen
        for line in lines:
            yield line.decode("utf-8", "replace")
    if buf:
        counts["lines"] += 1
        if len(buf) <= MAX_LINE:
            yield buf.decode("utf-8", "replace").rstrip("\r")


def file_lines(path, counts=None):
    """Lines of a file, or of stdin for '-'; BoardError when the file cannot be opened or is
    a folder. Read in chunks: a line is at most MAX_LINE bytes, whatever the file's size."""
    if path == "-":
        return _split(iter(lambda: sys.stdin.buffer.read1(4096), b""), counts)
    try:
        f = open(path, "rb")
        if os.path.isdir(path):
            f.close()
            raise IsADirectoryError(21, "Is a directory")
    except OSError as exc:
        raise BoardError(files.cannot_read(path, exc)) from None

    def chunks():
        with f:
            try:
                yield from iter(lambda: f.read(4096), b"")
            except OSError as exc:
                raise BoardError(files.cannot_read(path, exc)) from None
    return _split(chunks(), counts)


def _open(port):
    probe_port(port)  # the clear messages of `matchbox flash` for missing or busy ports
    try:
        return serial.Serial(port, baudrate=115200, timeout=0.2, exclusive=True)
    except serial.SerialException as exc:
        raise BoardError("cannot open %s: %s" % (port, exc)) from None


def _serial_chunks(ser):
    while True:
        try:
            data = ser.read(ser.in_waiting or 1)
        except (serial.SerialException, OSError):
            return  # unplugged or reset: the device went away
        if data:
            yield data


def port_lines(port="auto", once=False):
    """Lines from the box's serial port, read-only. When the box goes away (reset, unplugged),
    wait for it to come back, unless once. The first open's errors raise BoardError."""
    picked = ""
    if not port or port == "auto":   # by its USB ids alone: opening its REPL would stop the box
        port = find_pico("Matchbox")
        picked = ", the one Pico running MicroPython plugged in"
    elif port.startswith("port:"):
        port = port[len("port:"):]
    ser = _open(port)
    print("watching %s%s (a state shows after each action on the box; Ctrl-C to stop)" % (
        port, picked), file=sys.stderr, flush=True)

    def lines():
        current = ser
        while True:
            with current:
                yield from _split(_serial_chunks(current))
            if once:
                return
            print("lost the box on %s; waiting for it to come back..." % port, file=sys.stderr, flush=True)
            while True:
                time.sleep(RETRY_S)
                try:
                    current = _open(port)
                    break
                except BoardError:
                    pass
            print("the box is back on %s" % port, file=sys.stderr, flush=True)
    return lines()


# --- showing ----------------------------------------------------------------------------------

def summary(s):
    """The state in one line."""
    seats = " ".join("%d:%d/%d%s" % (x["seat"], x["cards"], x["sticks"], "#%d" % x["rank"] if x["rank"] else "")
                     for x in s["seats"])
    return "  [%s | table %s | %s | supply %d | seat:cards/sticks#rank %s]" % (
        _turn(s), table_text(s), order_text(s), s["supply"], seats)


def render(s, log, ignored=0):
    """The full screen for a state and the recent log lines."""
    lines = ["MATCHBOX  %d players%s" % (s["players"], "   (game over)" if s["finished"] else ""), ""]
    lines.append("  table   %s" % table_text(s))
    lines.append("  order   %s" % order_text(s))
    lines.append("  supply  %s" % _sticks(s["supply"]))
    lines.append("")
    lines.append("      seat  cards  sticks  rank")
    for x in s["seats"]:
        mark = ">>" if x["seat"] == s["turn"] else "  "
        lines.append("  %s  %4d  %5d  %6d  %4s" % (mark, x["seat"], x["cards"], x["sticks"],
                                                  x["rank"] if x["rank"] else ""))
    lines.append("")
    if s["finished"]:
        lines.append("  GAME OVER   ranking %s" % " ".join(str(x) for x in s["ranking"]))
    else:
        lines.append("  TURN    seat %d" % s["turn"])
    lines.append("")
    lines.append("  -- what happened " + "-" * 30)
    lines.extend("  " + line for line in log)
    if ignored:
        lines.append("")
        lines.append("  (%d other line%s skipped)" % (ignored, "s" if ignored > 1 else ""))
    return "\n".join(lines) + "\n"


def watch(lines, redraw=False, count=None, log_size=12, out=None):
    """Mirror the states among `lines`; returns how many states it showed. redraw: a full
    screen per state (terminal)."""
    out = out or sys.stdout
    prev = None
    log = []
    seen = ignored = 0
    for line in lines:
        cur = parse_state(line)
        if cur is None:
            note = notice_text(line)
            if note is not None:   # the record was damaged: said before the game's states
                log = (log + [note])[-log_size:] if log_size > 0 else []
                if not redraw:
                    out.write(note + "\n")
                    out.flush()
                continue
            ignored += 1 if line.strip() else 0
            continue
        new = changes(prev, cur)
        prev = cur
        seen += 1
        if redraw:
            log = (log + new)[-log_size:] if log_size > 0 else []
            out.write(CLEAR + render(cur, log, ignored))
        else:
            for text in new:
                out.write(text + "\n")
            out.write(summary(cur) + "\n")
        out.flush()
        if count is not None and seen >= count:
            break
    return seen
