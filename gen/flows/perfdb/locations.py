"""Where the perf-dbs live: the user db (written) and the system db (shipped, read-only).

* user db: ``$TERMWISE_PERFDB`` if set, else ``$XDG_CACHE_HOME/termwise/perfdb.sqlite``,
  else ``~/.cache/termwise/perfdb.sqlite``;
* system db: ``system.sqlite`` beside this module, in the installed package (shipped;
  built by ``termwise db build-system``, :mod:`.system_build`; lookups skip it when the file
  is absent).

On lookup the user db takes precedence over the system db
(:class:`~termwise.gen.flows.perfdb.store.PerfDBChain`). The paths are
:mod:`termwise.gen.results.locations`'s, which owns every result store's root.
"""

from __future__ import annotations

import os

from ...results import locations
from .store import PerfDB, PerfDBChain

__all__ = ["user_db_path", "system_db_path", "open_user", "open_chain"]


def user_db_path() -> str:
    """The user db's path (see the module's docstring)."""
    return locations.user_db_path()


def system_db_path() -> str:
    """The system db's path in the installed package (it may not exist)."""
    return locations.system_db_path()


def open_user(path: str | None = None) -> PerfDB:
    """The user db at ``path`` (default :func:`user_db_path`), created if missing."""
    return PerfDB(path or user_db_path(), create=True)


def open_chain(path: str | None = None, *, system: bool = True) -> PerfDBChain:
    """The user db (created if missing) over the system db, when there is one and
    ``system``."""
    dbs = [open_user(path)]
    if system and os.path.isfile(system_db_path()):
        dbs.append(PerfDB(system_db_path(), readonly=True))
    return PerfDBChain(dbs)
