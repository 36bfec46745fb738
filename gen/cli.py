"""The ``termwise`` command line.

Each subcommand is a module of :mod:`termwise.gen.commands` (``register`` + ``ORDER``);
this module only builds the parser from them and turns user errors into one line.

Every user error (a bad configuration, a malformed file, an impossible option) prints one
line ``error: <field>: <what is valid>`` and exits with status 2: no traceback, nothing
written.
"""

from __future__ import annotations

import sys

from .commands import modules
from .commands.args import Parser, UsageError
from .spec import ConfigError

__all__ = ["main", "build_parser"]


def build_parser() -> Parser:
    parser = Parser(prog="termwise", description="termwise: RTL generator and verification "
                    "flow for value-based deep-learning accelerators")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for module in modules():
        module.register(sub)
    return parser


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except (ConfigError, UsageError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``termwise db list | head``): stop quietly, as a Unix
        # filter does; point stdout at devnull so the interpreter's final flush cannot
        # raise again.
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
