"""The perf-db: termwise's record of evaluated (problem, tile configuration) pairs, in
SQLite (MIOpen's perf-db for the design space of value-based accelerators).

* :mod:`.schema`: the tables, the file check and WAL/busy-timeout connection;
* :mod:`.problem`: the MIOpen-style problem keys of layers and synthesis flows;
* :mod:`.store`: :class:`PerfDB` (record, lookup, export, import) and :class:`PerfDBChain`
  (the user db over the system db);
* :mod:`.locations`: where the user and system dbs are;
* :mod:`.system_build` and :mod:`.freeze`: building the system db shipped in the package
  (``termwise db build-system``) and freezing it for read-only use.
"""

from __future__ import annotations

from .locations import open_chain, open_user, system_db_path, user_db_path
from .problem import layer_key, synth_key
from .store import PerfDB, PerfDBChain, Record, canonical

__all__ = ["PerfDB", "PerfDBChain", "Record", "canonical", "layer_key", "synth_key",
           "open_chain", "open_user", "system_db_path", "user_db_path"]
