"""Guard of CYCLE_MODEL_VERSION (gen/results/versions.py): a sample of the shipped system
perf-db's cycles results, recomputed with this checkout's cycle model, is identical, so a
change of the cycle model that forgot to bump the version (and rebuild the system db) fails
``make test``.

The sample, at 8 and 16 bits, under the method each row was recorded with
(:func:`termwise.gen.flows.sweep.jobs.layer_cycles`, the sweep's own function): on
digits-cnn's last layer (the classifier) the first and the last configuration (by top name)
of every design the system db holds, on its last convolution the first configuration of
every design (the cheapest layers: ~0.05 s and ~0.2 s a configuration; loading the
workload is most of the time). Every value field is compared exactly.
"""

import json
import sqlite3

import pytest

from termwise.gen.config import from_mapping
from termwise.gen.flows.perfdb import layer_key, system_db_path
from termwise.gen.flows.sweep.jobs import layer_cycles, versions, workload_layers
from termwise.gen.results.versions import CYCLE_MODEL_VERSION

BUMP = ("the cycle model's results changed: bump CYCLE_MODEL_VERSION and rebuild the system "
        "db (termwise db build-system)")
WORKLOAD = "digits-cnn"


def _rows(keys: list[str]) -> list[tuple]:
    """``(problem key, arch, top, fields, method, versions, value)`` of the system db's ok
    cycles rows of problems ``keys``."""
    con = sqlite3.connect(f"file:{system_db_path()}?mode=ro", uri=True)
    try:
        return con.execute(
            "SELECT p.key, c.arch, c.top, c.fields, r.method, r.versions, r.value "
            "FROM result r JOIN problem p ON p.id = r.problem_id "
            "JOIN config c ON c.id = r.config_id WHERE r.kind = 'cycles' "
            f"AND r.status = 'ok' AND p.key IN ({','.join('?' * len(keys))}) "
            "ORDER BY p.key, c.arch, c.top", keys).fetchall()
    finally:
        con.close()


def _sample(bits: int) -> list[tuple]:
    """``(layer, row)`` of the sample (see the module's docstring)."""
    conv, fc = workload_layers(WORKLOAD, bits)[-2:]
    out = []
    for layer, ends in ((fc, (0, -1)), (conv, (0,))):
        by_arch: dict = {}
        for row in _rows([layer_key(layer)]):
            by_arch.setdefault(row[1], []).append(row)
        out += [(layer, r) for arch in sorted(by_arch)
                for r in dict.fromkeys(by_arch[arch][i] for i in ends)]
    return out


@pytest.mark.parametrize("bits", [8, 16])
def test_shipped_cycles_are_what_the_cycle_model_computes(bits):
    sample = _sample(bits)
    assert len({r[1] for _, r in sample}) >= 10, "the system db holds too few designs"
    assert len({id(layer) for layer, _ in sample}) == 2, "a sampled layer is not in the db"
    now = versions("cycles")
    bad = []
    for layer, (key, _, top, fields, method, vers, value) in sample:
        if json.loads(vers) != now:
            bad.append(f"{top}: recorded under {vers}, the model now is {now}")
            continue
        got = layer_cycles(layer, from_mapping(json.loads(fields)), json.loads(method))
        if got != json.loads(value):
            bad.append(f"{top} on {layer.name} ({key}): shipped {value}, now {got}")
    assert not bad, f"{BUMP} (CYCLE_MODEL_VERSION = {CYCLE_MODEL_VERSION}):\n" + "\n".join(bad)
