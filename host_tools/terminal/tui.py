"""The interactive `matchbox sim`: the real firmware on the virtual box, in a terminal.

host_tools.virtual.box runs firmware/main.py under the MicroPython unix port; the terminal
simulator draws its displays as large seven-segment digits (host_tools.virtual.display_text),
maps the keyboard to the box's keys, lets the virtual clock follow the wall clock while nobody
types (so error codes, announcements and paging time out as on the box) and explains in plain
words what the box shows, the buzzer's tones included. It adapts to the terminal's size:
smaller digits, then a one-line key map, then the displays as plain text.

Its parts, one job each, all in host_tools/terminal/: `keyboard` (keys in), `words` (what the
box shows, in words), `layout` (what fits), `session` (the box and what is known of it),
`painter` (curses drawing) and this module, the curses loop. `run(args)` is the entry point
(called by host_tools.commands.sim). Only curses, the standard library and the engine's
notation reader are used.
"""
import curses
import locale
import os
import signal
import sys

from host_tools.errors import VERDICT, MatchboxError, interrupted, one_line
from host_tools.terminal import words
from host_tools.terminal.keyboard import action
from host_tools.terminal.painter import Painter
from host_tools.terminal.session import Session
from host_tools.virtual.box import BoxError
from host_tools.virtual.make_box import make_box

FRAME_MS = 40         # one screen update while idle


def _main_loop(scr, session):
    try:
        curses.curs_set(0)
    except curses.error:
        pass  # a terminal that cannot hide its cursor
    scr.keypad(True)
    scr.timeout(FRAME_MS)
    painter = Painter(scr)
    painter.draw(session)
    while True:
        try:
            key = scr.get_wch()
        except curses.error:
            key = None
        while key is not None:
            act = action(key)
            if act is not None:
                if act[0] == "resize":
                    curses.update_lines_cols()
                    scr.clear()
                elif not session.do(act):
                    return 0
            scr.timeout(0)
            try:
                key = scr.get_wch()
            except curses.error:
                key = None
            scr.timeout(FRAME_MS)
        session.tick()
        painter.draw(session)


def check_terminal():
    """MatchboxError unless stdin and stdout are a terminal curses can draw on (its TERM
    known, the cursor movable): said before anything starts."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise MatchboxError("the simulator", "needs a terminal (or use --headless)")
    term = os.environ.get("TERM") or "(unset)"
    try:
        curses.setupterm(fd=sys.stdout.fileno())
        movable = curses.tigetstr("cup") and curses.tigetstr("clear")
    except curses.error:
        raise MatchboxError("the terminal", "TERM=%s is not a terminal type this system knows: "
                            "use a terminal such as xterm, or --headless" % term) from None
    if not movable:
        raise MatchboxError("the terminal", "TERM=%s cannot place the cursor: use a terminal "
                            "such as xterm, or --headless" % term)


def run(args, record=None, warning=None, devices=None):
    """`matchbox sim` without --headless (host_tools.commands.sim has checked the terminal, read the
    journal and counted the displays); returns the exit status."""
    box = make_box(args, record, devices=devices)
    locale.setlocale(locale.LC_ALL, "")
    os.environ.setdefault("ESCDELAY", "25")

    def stop(signum, frame):
        raise SystemExit(0)

    old = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    failure = None
    status = 0
    session = None
    try:
        box.boot()
        session = Session(box, keeps=bool(getattr(args, "flash", None)))
        session.refresh()
        if warning:
            session.say(warning, until_key=True)
        status = curses.wrapper(_main_loop, session)
    except KeyboardInterrupt:
        interrupted(forget=True)   # Ctrl-C is a key of the simulator: quit (docs/display.md)
        status = 0
        if session is not None and session.unkept():   # at once, without q's question
            print("matchbox sim: " + words.LOST_UNKEPT, file=sys.stderr)
    except BoxError as exc:
        failure = MatchboxError("the box failed", one_line(exc), VERDICT)
    except curses.error as exc:
        failure = MatchboxError("the terminal", "cannot be used (%s): try --headless" % exc)
    finally:
        box.close()
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if failure:
        raise failure
    return status
