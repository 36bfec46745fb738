"""``python -m termwise.synth.sram``: characterise the shapes (cached ones are read, not
recompiled) and rewrite the shipped JSON (``make sram``; options as
:func:`termwise.synth.sram.characterise.main`)."""

import sys

from termwise.gen.errors import ConfigError, ToolError

from .characterise import main

if __name__ == "__main__":
    try:
        sys.exit(main())
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    except ToolError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(1)
