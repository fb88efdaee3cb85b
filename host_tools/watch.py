"""`matchbox watch`: a live mirror of the box over USB serial (a spectator screen, a stream).

The firmware prints one JSON state line (tycoon.state.to_json) after every accepted action,
after an undo and when a game starts. watch only listens: it never writes to the port, so the
game goes on undisturbed. Other lines (boot messages, tracebacks) are skipped. What happened is
read off two consecutive states ("seat 3 played 2 x 9 (2 sticks)", "seat 4 passed", ...).

On a terminal the screen is redrawn after each state; otherwise each state appends its log
lines and a one-line summary. `--file FILE` (or `-` for stdin) reads the lines from a file.
Exit status: 0 at the end of the input, 2 when the port or file cannot be opened.
"""
import json
import sys
import time

import serial

from host_tools import files
from host_tools.device.serial_board import BoardError, find_port, probe_port

CLEAR = "\x1b[H\x1b[2J"
MAX_LINE = 4096  # a state line is a few hundred bytes; longer "lines" are noise
RETRY_S = 1.0


def add_arguments(parser):
    parser.add_argument("--port", default="auto",
                        help="serial port of the box (default: auto, the first USB serial device)")
    parser.add_argument("--file", metavar="FILE",
                        help="read state lines from FILE (- for stdin) instead of a port")
    parser.add_argument("--count", type=int, metavar="N",
                        help="stop after N states")
    parser.add_argument("--once", action="store_true",
                        help="stop when the box goes away instead of waiting for it to come back")
    parser.add_argument("--plain", action="store_true",
                        help="append plain lines even on a terminal (no screen redraw)")
    parser.add_argument("--log", type=int, default=12, metavar="N",
                        help="log lines kept on the screen (default %(default)s)")


def run(args):
    redraw = sys.stdout.isatty() and not args.plain
    try:
        if args.file:
            source = file_lines(args.file)
        else:
            source = port_lines(args.port, once=args.once)
        return watch(source, redraw=redraw, count=args.count, log_size=args.log)
    except BoardError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2


# --- reading ----------------------------------------------------------------------------------

def _split(chunks):
    """Text lines from an iterable of byte chunks (CR/LF endings, over-long lines dropped)."""
    buf = b""
    for chunk in chunks:
        buf += chunk
        while True:
            i = buf.find(b"\n")
            if i < 0:
                break
            line, buf = buf[:i], buf[i + 1:]
            if len(line) <= MAX_LINE:
                yield line.decode("utf-8", "replace").rstrip("\r")
        if len(buf) > MAX_LINE:
            buf = b""
    if buf and len(buf) <= MAX_LINE:
        yield buf.decode("utf-8", "replace").rstrip("\r")


def file_lines(path):
    """Lines of a file, or of stdin for '-'; BoardError when the file cannot be opened."""
    if path == "-":
        return _split(iter(lambda: sys.stdin.buffer.read1(4096), b""))
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise BoardError(files.cannot_read(path, exc)) from None

    def chunks():
        with f:
            yield from iter(lambda: f.read(4096), b"")
    return _split(chunks())


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
    if not port or port == "auto":
        port = find_port()
    elif port.startswith("port:"):
        port = port[len("port:"):]
    ser = _open(port)
    print("watching %s (a state shows after each action on the box; Ctrl-C to stop)" % port,
          file=sys.stderr, flush=True)

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


# --- states -----------------------------------------------------------------------------------

def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def parse_state(line):
    """The state dict of a state line, or None for any other line."""
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        s = json.loads(line)
        n = s["players"]
        ok = (_is_int(n) and 2 <= n <= 8 and len(s["seats"]) == n
              and (s["turn"] is None or _is_int(s["turn"]) and 1 <= s["turn"] <= n)
              and isinstance(s["revolution"], bool) and isinstance(s["finished"], bool)
              and isinstance(s["strongest"], str) and _is_int(s["supply"])
              and all(_is_int(x) for x in s["ranking"]))
        for i, seat in enumerate(s["seats"]):
            ok = ok and seat["seat"] == i + 1 and _is_int(seat["cards"]) and _is_int(seat["sticks"]) \
                and (seat["rank"] is None or _is_int(seat["rank"]))
        t = s["table"]
        if t is not None:
            ok = ok and isinstance(t["value"], str) and _is_int(t["count"]) and _is_int(t["seat"]) \
                and _is_int(t["sticks"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return s if ok else None


def _sticks_total(s):
    return sum(x["sticks"] for x in s["seats"]) + s["supply"] + (s["table"]["sticks"] if s["table"] else 0)


def action(prev, cur):
    """The single action that turns state prev into cur, or None when there is none:
    ("play", seat, count, value, sticks spent), ("pass", seat) or ("return", seat)."""
    n = prev["players"]
    s = prev["turn"]
    if cur["players"] != n or not s or _sticks_total(prev) != _sticks_total(cur):
        return None
    i = s - 1
    ps, cs = prev["seats"], cur["seats"]
    if any(ps[j]["cards"] != cs[j]["cards"] for j in range(n) if j != i):
        return None
    others_same = all(ps[j]["sticks"] == cs[j]["sticks"] for j in range(n) if j != i)
    played = ps[i]["cards"] - cs[i]["cards"]
    spent = ps[i]["sticks"] - cs[i]["sticks"]
    if played == 0 and others_same:
        if spent == -1 and ps[i]["cards"] and prev["table"] is not None:
            return ("pass", s)
        if spent == 1 and not ps[i]["cards"]:
            return ("return", s)
        return None
    if not 1 <= played <= 5 or spent < 0 or prev["table"] and prev["table"]["count"] != played:
        return None
    table = cur["table"]
    if table is not None:
        if table["seat"] != s or table["count"] != played or not others_same:
            return None
        return ("play", s, played, table["value"], spent)
    # Only a play of the strongest value clears the table: every other seat still in takes a stick.
    if any(cs[j]["sticks"] - ps[j]["sticks"] != (0 if cs[j]["rank"] else 1) for j in range(n) if j != i):
        return None
    return ("play", s, played, cur["strongest"], spent)


def _sticks(n):
    return "no sticks" if n == 0 else "1 stick" if n == 1 else "%d sticks" % n


def _say(act):
    if act[0] == "play":
        _, seat, count, value, spent = act
        return "seat %d played %d x %s%s" % (seat, count, value, " (%s)" % _sticks(spent) if spent else "")
    if act[0] == "pass":
        return "seat %d passed" % act[1]
    return "seat %d returned a stick" % act[1]


def _fresh(s):
    return (not s["ranking"] and s["table"] is None and not s["revolution"] and not s["finished"]
            and all(x["sticks"] == 1 for x in s["seats"]))


def _turn(s):
    return "game over" if s["finished"] else "seat %d to act" % s["turn"]


def changes(prev, cur):
    """Log lines for the step from state prev (None: the first state seen) to cur."""
    if prev is None:
        return ["watching: %d players, %s" % (cur["players"], _turn(cur))]
    if prev == cur:
        return []
    act = action(prev, cur)
    if act is None:
        back = action(cur, prev)
        if back is not None:
            return ["undo (taken back: %s)" % _say(back)]
        if _fresh(cur):
            return ["new game: %d players, cards %s, seat %d leads" % (
                cur["players"], " ".join(str(x["cards"]) for x in cur["seats"]), cur["turn"])]
        return ["the state jumped (lines missed?): %s" % _turn(cur)]
    out = [_say(act)]
    if cur["revolution"] != prev["revolution"]:
        out.append("revolution! %s is now strongest" % cur["strongest"] if cur["revolution"]
                   else "revolution again! back to the normal order, %s strongest" % cur["strongest"])
    forced = act[0] == "play" and cur["table"] is None
    if forced:
        out.append("%s is strongest: every other seat takes a stick" % act[3])
    for rank, seat in enumerate(cur["ranking"][len(prev["ranking"]):], len(prev["ranking"]) + 1):
        if cur["finished"] and rank == cur["players"]:
            out.append("seat %d is the last one left (rank %d)" % (seat, rank))
        else:
            out.append("seat %d went out (rank %d)" % (seat, rank))
    if cur["finished"]:
        out.append("game over: ranking %s" % " ".join(str(x) for x in cur["ranking"]))
    elif prev["table"] is not None and cur["table"] is None or forced:
        out.append("table cleared: seat %d leads" % cur["turn"])
    return out


# --- showing ----------------------------------------------------------------------------------

def order_text(s):
    if s["revolution"]:
        return "REVOLUTION: order reversed, %s strongest" % s["strongest"]
    return "normal order, %s strongest" % s["strongest"]


def table_text(s):
    t = s["table"]
    if t is None:
        return "empty"
    return "%d x %s by seat %d, %s on it" % (t["count"], t["value"], t["seat"], _sticks(t["sticks"]))


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
    """Mirror the states among `lines`; returns 0. redraw: a full screen per state (terminal)."""
    out = out or sys.stdout
    prev = None
    log = []
    seen = ignored = 0
    for line in lines:
        cur = parse_state(line)
        if cur is None:
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
    return 0
