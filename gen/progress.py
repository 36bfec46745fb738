"""Progress on the long commands (synth, power, sim, report, sweep, tune): what stage, which
design or layer, how far, as tqdm bars on standard error.

Bars are drawn only when standard error is a terminal (``TERMWISE_PROGRESS=always`` or
``never`` overrides: the tests use ``always`` under a pseudo-terminal); otherwise nothing
is drawn and the commands' log lines, which say the same a line at a time, are all there
is. Lines logged while a bar is drawn go through :func:`note`, above the bar.

tqdm, not a progress bar of our own: it is maintained, handles terminal width, rates and
remaining time, and draws nothing when disabled.
"""

from __future__ import annotations

import os
import sys

from tqdm import tqdm

__all__ = ["ENV", "active", "Bar", "note"]

#: The environment variable that forces bars on (``always``) or off (``never``).
ENV = "TERMWISE_PROGRESS"


def active() -> bool:
    """Whether bars are drawn: standard error is a terminal, unless :data:`ENV` says."""
    mode = os.environ.get(ENV, "auto")
    if mode == "always":
        return True
    if mode == "never":
        return False
    return sys.stderr.isatty()


def note(line: str) -> None:
    """Log ``line`` on standard error, above any bar being drawn."""
    tqdm.write(line, file=sys.stderr)
    sys.stderr.flush()


class Bar:
    """One stage's bar: ``total`` steps of ``unit``, described by ``desc``; a context
    manager. Draws nothing unless :func:`active`.

    ``step(text)`` advances it by one (or ``n``) and shows ``text`` (the design, layer or
    module just done) beside it."""

    def __init__(self, total: int, desc: str, unit: str = "step"):
        self._bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr,
                         disable=not active(), leave=False, dynamic_ncols=True,
                         mininterval=0.2)

    def step(self, text: str = "", n: int = 1) -> None:
        if text:
            self._bar.set_postfix_str(text, refresh=False)
        self._bar.update(n)

    def describe(self, desc: str) -> None:
        """Name the stage now running (a bar over a command's stages)."""
        self._bar.set_description_str(desc)

    def close(self) -> None:
        self._bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
