"""The `matchbox` command: one subcommand per module, each with add_arguments() and run().

This is the one place that reports what went wrong: a MatchboxError (host_tools.errors) a
command raises, a usage error, Ctrl-C or SIGTERM become one line on stderr,
`matchbox COMMAND: what: why`, and the exit status of host_tools.errors; never a traceback.

Ctrl-C is status 130 and `matchbox COMMAND: interrupted` at every moment: while the modules
load (before main() runs: the line, then exit), while the command works (KeyboardInterrupt,
so that its cleanups run; noted by errors.interrupt, so that an interrupt a library turned
into another error or swallowed still ends as one) and after it (only noted). A server (hall
serve, web, uplink, watch) sets `args.serving` once it serves: Ctrl-C, the way to stop it,
is then said plainly, `matchbox COMMAND: stopped`, status 130 still.
"""
import os
import signal
import sys


def _command_word(argv):
    """The subcommand named in argv (its first word that is not an option), or ''."""
    words = [a for a in argv if not a.startswith("-")]
    return words[0] if words else ""


def _early_interrupt(signum, frame):
    # Ctrl-C while the command's modules are still being imported, before main() can catch it:
    # the same one line and status as later (130)
    try:
        word = _command_word(sys.argv[1:])
        sys.stderr.write("matchbox%s: interrupted\n" % (" " + word if word else ""))
        sys.stderr.flush()
    finally:
        os._exit(130)


# Only when this is the `matchbox` program (the console script, or python -m host_tools.cli),
# not when a test imports the module.
PROGRAM = os.path.basename(sys.argv[0] if sys.argv else "") in ("matchbox", "cli.py")
if PROGRAM:
    try:
        signal.signal(signal.SIGINT, _early_interrupt)
    except ValueError:   # not the main thread
        pass

import argparse  # noqa: E402
import importlib  # noqa: E402

from host_tools import files, resources  # noqa: E402
from host_tools import errors  # noqa: E402
from host_tools.errors import CANNOT, INTERRUPTED, MatchboxError, Stopped, one_line  # noqa: E402

# subcommand -> (module, one-line help). A module provides add_arguments(parser) and
# run(args) -> exit status.
COMMANDS = (
    ("replay", "host_tools.commands.replay", "check game records and show the final state"),
    ("ref", "host_tools.commands.ref",
     "quick reference: the values each face can become and their cost"),
    ("card", "host_tools.commands.card",
     "write the printable table card (PDF) in the players' language: en, de or ja"),
    ("sim", "host_tools.commands.sim", "run the box in the simulator (terminal, or --headless)"),
    ("uf2", "host_tools.commands.uf2",
     "add the box to a downloaded MicroPython UF2: one file to drag onto many Picos"),
    ("flash", "host_tools.commands.flash", "update the firmware on a Pico over USB serial"),
    ("pull", "host_tools.commands.pull", "download the current and archived games from the box"),
    ("report", "host_tools.commands.report", "turn a game record into a plot and an HTML page"),
    ("doctor", "host_tools.commands.doctor", "check a connected box: firmware, displays, keys"),
    ("watch", "host_tools.commands.watch", "live mirror of a box over USB serial"),
    ("wiring", "host_tools.commands.wiring", "regenerate the wiring diagram from the pin map"),
    ("enclosure", "host_tools.commands.enclosure",
     "make the printable case for the pin map (STEP, STLs, drawings) and check it"),
    ("labels", "host_tools.commands.labels",
     "write the sheet of key and button stickers (PDF) in the players' language: en, de or ja"),
    ("web", "host_tools.commands.web",
     "the box in a web browser: build the page, serve it, open it"),
    ("hall", "host_tools.hall.command", "every table of an event on one page, over MQTT"),
    ("uplink", "host_tools.commands.uplink",
     "carry the journal of a box without radio from its USB serial to the hall"),
    ("event", "host_tools.commands.event",
     "an event's rounds: players by name, seating, the boxes' setups, standings, sheets"),
)

# MATCHBOX_TRACEBACK=1 in the environment shows where an unexpected error (a bug) came from.
TRACEBACK = "MATCHBOX_TRACEBACK"


class Parser(argparse.ArgumentParser):
    """argparse with usage errors in the one-line shape: `matchbox sim: --port: why`."""

    def error(self, message):
        text = message[len("argument "):] if message.startswith("argument ") else message
        self.exit(CANNOT, "%s: %s (see %s --help)\n" % (self.prog, one_line(text), self.prog))


def build_parser():
    parser = Parser(prog="matchbox", description="Matchbox referee box tools")
    # The firmware's box/version.py is the package's version too (setup.py reads it).
    parser.add_argument("--version", action="version",
                        version="matchbox " + resources.read_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    parser.commands = {}
    for name, module_name, help_text in COMMANDS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue  # not built yet
        p = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
        parser.commands[name] = p
    return parser


def _terminated(signum, frame):
    raise Stopped()


def say(command, text):
    """One line on stderr: `matchbox COMMAND: text`."""
    try:
        sys.stderr.write("%s: %s\n" % (" ".join(("matchbox " + command).split()),
                                        files.shown(one_line(text))))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _quiet(unraisable, hook):
    """sys.unraisablehook: a KeyboardInterrupt raised where Python cannot raise it (a __del__,
    a callback) is not printed ("Exception ignored ..."): errors.interrupt noted it, and the
    command ends `interrupted`."""
    if not issubclass(unraisable.exc_type, KeyboardInterrupt):
        hook(unraisable)


def outcome(argv, state):
    """Run the command of argv: (exit status, the line to say or None). `state` gets the
    parsed arguments as they are known ("args"). KeyboardInterrupt goes through (main says
    it); SystemExit too (a usage error, --help)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    state["args"] = args
    if extra:   # said by the command's own parser: `matchbox wiring: unrecognized ...`
        parser.commands[args.command].error("unrecognized arguments: " + " ".join(extra))
    try:
        return args.run(args) or 0, None
    except MatchboxError as exc:
        return exc.status, str(exc)
    except BrokenPipeError:
        # the reader of our output went away (`| head`): nothing more to say to it
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0, None
    except OSError as exc:
        where = exc.filename if exc.filename is not None else "input/output"
        return CANNOT, "%s: %s" % (where, files.reason(exc))
    except MemoryError:
        return CANNOT, "out of memory"
    except Exception as exc:
        if os.environ.get(TRACEBACK) and not errors.interrupted():
            raise
        return 3, ("internal error: %s: %s (a bug in matchbox: please report it with the "
                   "command; %s=1 shows where it happened)" % (type(exc).__name__, exc, TRACEBACK))


def _handle(signum, handler):
    """Set a signal's handler; the one it had (None where this is not the main thread)."""
    try:
        return signal.signal(signum, handler)
    except ValueError:   # not the main thread (a test): the signal keeps its handler
        return None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    errors.interrupted(forget=True)
    before = {signal.SIGINT: _handle(signal.SIGINT, errors.interrupt),
              signal.SIGTERM: _handle(signal.SIGTERM, _terminated)}
    hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: _quiet(unraisable, hook)
    state = {}
    status, text = INTERRUPTED, None
    try:
        try:
            try:
                status, text = outcome(argv, state)
            finally:   # from here on a Ctrl-C is only noted: the end is said once, in one line
                _handle(signal.SIGINT, errors.note_interrupt)
        except KeyboardInterrupt:
            _handle(signal.SIGINT, errors.note_interrupt)
        args = state.get("args")
        command = args.command if args is not None else _command_word(argv)
        if errors.interrupted():
            status = INTERRUPTED
            text = "stopped" if getattr(args, "serving", False) else "interrupted"
        if text:
            say(command, text)
        return status
    finally:
        sys.unraisablehook = hook
        errors.interrupted(forget=True)   # the note was this command's (main run again in a
        #                                   process, as the tests do, starts without it)
        for signum, handler in before.items():
            if handler is not None:
                # the program's own first handler would say a second line: after main, a
                # Ctrl-C is ignored (the command has said how it ended)
                _handle(signum, signal.SIG_IGN if handler is _early_interrupt else handler)


if __name__ == "__main__":
    sys.exit(main())
