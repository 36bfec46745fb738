"""The root folder of every result store.

=========================  ==============================================================
store                      where
=========================  ==============================================================
synthesis cache            ``build/synth-cache`` of the working directory (a command's
                           ``--cache`` overrides it)
power cache                ``power-cache`` beside the synthesis cache
emission cache             ``emit-cache`` beside the synthesis cache (rendered Verilog)
measured results           ``$TERMWISE_MEASURED`` if it names a folder, else the package's
                           ``synth/measured``; ``TERMWISE_MEASURED=0`` turns them off
perf-db, user              ``$TERMWISE_PERFDB``, else ``$XDG_CACHE_HOME/termwise/
                           perfdb.sqlite``, else ``~/.cache/termwise/perfdb.sqlite``
perf-db, system            ``gen/flows/perfdb/system.sqlite`` in the package (shipped)
workload trace cache       ``$TERMWISE_WORKLOADS``, else ``build/workloads`` of the checkout
=========================  ==============================================================

The package paths are found from this file: the ``termwise`` package holds ``gen``,
``synth`` and (in a checkout) ``build`` side by side, installed or editable.
"""

from __future__ import annotations

import os

__all__ = ["PACKAGE_ROOT", "SYNTH_CACHE_DEFAULT", "synth_cache_root", "power_cache_dir",
           "emit_cache_dir",
           "MEASURED_DEFAULT", "measured_root", "measured_enabled", "user_db_path",
           "system_db_path", "workload_cache_dir"]

#: The folder holding termwise's packages gen/, synth/ (the checkout, or site-packages/
#: termwise when installed).
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: The synthesis cache's default, relative to the working directory (as every command's
#: ``--cache`` default has always been).
SYNTH_CACHE_DEFAULT = os.path.join("build", "synth-cache")
#: The measured results shipped in the package.
MEASURED_DEFAULT = os.path.join(PACKAGE_ROOT, "synth", "measured")


def synth_cache_root(cache_root: str | None = None) -> str:
    """The synthesis cache: ``cache_root`` if given, else :data:`SYNTH_CACHE_DEFAULT`."""
    return cache_root or SYNTH_CACHE_DEFAULT


def power_cache_dir(cache_root: str | None = None) -> str:
    """The power cache beside the synthesis cache ``cache_root``.

    Parameters
    ----------
    cache_root : str or None
        The synthesis cache's folder; None for :data:`SYNTH_CACHE_DEFAULT`.

    Returns
    -------
    str
        The absolute path of its sibling ``power-cache``.
    """
    root = synth_cache_root(cache_root)
    return os.path.join(os.path.dirname(os.path.abspath(root)), "power-cache")


def emit_cache_dir(cache_root: str | None = None) -> str:
    """The emission cache (:func:`termwise.gen.emit.rendered`) beside the synthesis cache
    ``cache_root`` (None for :data:`SYNTH_CACHE_DEFAULT`): its sibling ``emit-cache``."""
    root = synth_cache_root(cache_root)
    return os.path.join(os.path.dirname(os.path.abspath(root)), "emit-cache")


def measured_root() -> str:
    """The measured results' folder: ``$TERMWISE_MEASURED`` if it names one (say, a lab's
    shared store), else :data:`MEASURED_DEFAULT` (``0`` and ``1`` are switches, not
    folders)."""
    env = os.environ.get("TERMWISE_MEASURED", "")
    return os.path.abspath(env) if env not in ("", "0", "1") else MEASURED_DEFAULT


def measured_enabled() -> bool:
    """False when ``$TERMWISE_MEASURED`` is ``0``: every lookup of a measured result
    misses (a run that must measure)."""
    return os.environ.get("TERMWISE_MEASURED", "1") != "0"


def user_db_path() -> str:
    """The user perf-db's path (written): ``$TERMWISE_PERFDB``, else the XDG cache's."""
    env = os.environ.get("TERMWISE_PERFDB")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(os.path.abspath(cache), "termwise", "perfdb.sqlite")


def system_db_path() -> str:
    """The system perf-db's path in the package (shipped, read-only; it may not exist)."""
    return os.path.join(PACKAGE_ROOT, "gen", "flows", "perfdb", "system.sqlite")


def workload_cache_dir() -> str:
    """The workload trace cache: ``$TERMWISE_WORKLOADS``, else ``build/workloads`` beside
    the packages (the checkout's build folder), absolute."""
    root = os.environ.get("TERMWISE_WORKLOADS",
                          os.path.join(PACKAGE_ROOT, "build", "workloads"))
    return os.path.abspath(root)
