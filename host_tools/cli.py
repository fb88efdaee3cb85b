"""The `matchbox` command: one subcommand per module, each with add_arguments() and run()."""
import argparse
import importlib
import sys

from host_tools import resources

# subcommand -> (module, one-line help). A module provides add_arguments(parser) and
# run(args) -> exit status.
COMMANDS = (
    ("replay", "host_tools.replay", "check game records and show the final state"),
    ("ref", "host_tools.ref", "quick reference: the values each face can become and their cost"),
    ("sim", "host_tools.sim", "run the box in the simulator (terminal, or --headless)"),
    ("flash", "host_tools.flash", "compile and copy the firmware to a Pico over mpremote"),
    ("pull", "host_tools.pull", "download the current and archived games from the box"),
    ("report", "host_tools.report", "turn a game record into a plot and an HTML page"),
    ("doctor", "host_tools.doctor", "check a connected box: firmware, displays, keys"),
    ("watch", "host_tools.watch", "live mirror of a box over USB serial"),
    ("wiring", "host_tools.wiring", "regenerate the wiring diagram from the pin map"),
    ("web", "host_tools.web", "the box in a web browser: build the page, serve it, open it"),
)


def build_parser():
    parser = argparse.ArgumentParser(prog="matchbox", description="Matchbox referee box tools")
    # The firmware's box/version.py is the package's version too (setup.py reads it).
    parser.add_argument("--version", action="version",
                        version="matchbox " + resources.read_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
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
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.run(args) or 0
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
