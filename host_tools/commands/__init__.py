"""The `matchbox` subcommands, one module each with add_arguments(parser) and run(args); the
table of them is host_tools.cli.COMMANDS."""
