"""Result keys and stores: the one place every stored result's key and folder is made.

The project keeps results in five stores (the synthesis cache, the power cache, the
measured results shipped in ``synth/measured``, the perf-dbs and the workload trace cache).
Each keys its entries on explicit, versioned inputs -- configuration, tool versions, a flow
version bumped by hand when results would change, a workload trace's content hash -- and
never on source text, so editing a docstring retires nothing.

* :mod:`.versions`: every flow version constant, each saying when to bump it;
* :mod:`.keys`: the canonical key function (sha256 of canonical JSON);
* :mod:`.locations`: the root folder of every store.

This package is the bottom layer of the flows: it imports only the standard library and
:mod:`termwise.gen.errors`, so every store (synth, power, perf-db, workloads) can use it.
"""

from .keys import canonical, key, sha256_hex
from .locations import (measured_enabled, measured_root, power_cache_dir, synth_cache_root,
                        system_db_path, user_db_path, workload_cache_dir)
from .versions import (ASIC_SCRIPT_VERSION, CYCLE_MODEL_VERSION, FPGA_SCRIPT_VERSION,
                       POWER_FLOW_VERSION, POWER_REPORT_LAYOUT_VERSION, RTL_VERSION,
                       WORKLOAD_KEYS_VERSION)

__all__ = ["canonical", "key", "sha256_hex",
           "measured_enabled", "measured_root", "power_cache_dir", "synth_cache_root",
           "system_db_path", "user_db_path", "workload_cache_dir",
           "ASIC_SCRIPT_VERSION", "FPGA_SCRIPT_VERSION", "POWER_FLOW_VERSION",
           "POWER_REPORT_LAYOUT_VERSION", "CYCLE_MODEL_VERSION", "RTL_VERSION",
           "WORKLOAD_KEYS_VERSION"]
