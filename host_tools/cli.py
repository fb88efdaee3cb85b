"""The `matchbox` command: one subcommand per module, each with add_arguments() and run().

This is the one place that reports what went wrong: a MatchboxError (host_tools.errors) a
command raises, a usage error, Ctrl-C or SIGTERM become one line on stderr,
`matchbox COMMAND: what: why`, and the exit status of host_tools.errors; never a traceback.
"""
import os
import signal
import sys


def _early_interrupt(signum, frame):
    # Ctrl-C while the command's modules are still being imported, before main() can catch it:
    # the same one line and status as later (130)
    words = [a for a in sys.argv[1:] if not a.startswith("-")]
    try:
        sys.stderr.write("matchbox%s: stopped: interrupted (Ctrl-C)\n"
                         % (" " + words[0] if words else ""))
        sys.stderr.flush()
    finally:
        os._exit(130)


# Only when this is the `matchbox` program (the console script, or python -m host_tools.cli),
# not when a test imports the module.
if os.path.basename(sys.argv[0] if sys.argv else "") in ("matchbox", "cli.py"):
    try:
        signal.signal(signal.SIGINT, _early_interrupt)
    except ValueError:   # not the main thread
        pass

import argparse  # noqa: E402
import importlib  # noqa: E402

from host_tools import files, resources  # noqa: E402
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


def main(argv=None):
    try:
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)   # KeyboardInterrupt from here
        except ValueError:   # not the main thread
            pass
        parser = build_parser()
        args, extra = parser.parse_known_args(argv)
        if extra:   # said by the command's own parser: `matchbox wiring: unrecognized ...`
            parser.commands[args.command].error("unrecognized arguments: " + " ".join(extra))
    except KeyboardInterrupt:
        say("", "stopped: interrupted (Ctrl-C)")
        return INTERRUPTED
    command = args.command
    try:
        previous = signal.signal(signal.SIGTERM, _terminated)
    except ValueError:   # not the main thread (a test): SIGTERM keeps its handler
        previous = None
    try:
        return args.run(args) or 0
    except MatchboxError as exc:
        say(command, str(exc))
        return exc.status
    except KeyboardInterrupt:
        say(command, "stopped: interrupted (Ctrl-C)")
        return INTERRUPTED
    except BrokenPipeError:
        # the reader of our output went away (`| head`): nothing more to say to it
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except OSError as exc:
        where = exc.filename if exc.filename is not None else "input/output"
        say(command, "%s: %s" % (where, files.reason(exc)))
        return CANNOT
    except MemoryError:
        say(command, "out of memory")
        return CANNOT
    except Exception as exc:
        if os.environ.get(TRACEBACK):
            raise
        say(command, "internal error: %s: %s (a bug in matchbox: please report it with the "
                     "command; %s=1 shows where it happened)"
            % (type(exc).__name__, exc, TRACEBACK))
        return 3
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
