"""`termwise sweep` end to end: a 12-point sim sweep through the local pool and through a
2-worker Dask LocalCluster (identical results; totals checked against hand counts and the
golden model called directly), resuming after a real interrupt, a failed point recorded and
retried, a synthesis job on the smallest tile, and the refusals."""

import os
import signal
import sqlite3
import subprocess
import time

import pytest

from termwise_e2e import (SYNTH_CACHE, TERMWISE_EXE, WORKLOADS, assert_usage_error, e2e_env,
                          load_json, ok)

GRID12 = """\
workload = "digits-cnn"
precision = 8

[[grid]]
preset = "stripes-4x4"
windows = [2, 4, 8]
depth = [16, 64]

[[grid]]
preset = "baseline-4x4"
lanes = [2, 4]

[[grid]]
preset = "loom-4x4"
serial_bits = [1, 2]

[[grid]]
preset = "diffy-4x4"
windows = [4, 8]
"""

#: Hand count of baseline-4x4 (4 filters, 1 window, depth 64) with `lanes` lanes on the
#: 8-bit digits CNN (360 images): one cycle per brick step; conv1 1x8x8 3x3 p1 -> 8: 360*64
#: windows x 2 filter groups x ceil(1/lanes)*9 bricks; conv2 8x8x8 3x3/2 p1 -> 16: 360*16
#: windows x 4 filter groups x ceil(8/lanes)*9 bricks; fc 256 -> 10: 360 windows x 3 filter
#: groups x 256/lanes bricks.
BASELINE_CYCLES = {
    4: 360 * 64 * 2 * 9 + 360 * 16 * 4 * 18 + 360 * 3 * 64,
    2: 360 * 64 * 2 * 9 + 360 * 16 * 4 * 36 + 360 * 3 * 128,
}


def _results(doc):
    """The points without where each came from (run or db)."""
    return [{k: ({kk: vv for kk, vv in v.items() if kk != "source"}
                 if k in ("sim", "synth") else v) for k, v in p.items()}
            for p in doc["points"]]


def _golden_total(cfg_dict):
    """The digits CNN's cycles on a tile, from the golden model called layer by layer."""
    from termwise.gen.config import from_mapping
    from termwise.golden.netsim.simulate import simulate_layer
    from termwise.golden.workloads import load_workload
    cfg = from_mapping(cfg_dict)
    layers = load_workload("digits-cnn", 8, log=lambda m: None).layers
    return sum(simulate_layer(layer, {"x": cfg}, sample_pairs=1 << 23).designs["x"]["cycles"]
               for layer in layers)


def test_local_pool_and_local_cluster_agree(termwise, tmp_path, monkeypatch):
    (tmp_path / "grid.toml").write_text(GRID12)
    t0 = time.perf_counter()
    r = ok(termwise("sweep", "grid.toml", "-o", "local", "--db", "local.sqlite",
                    "--workers", "2"))
    local_s = time.perf_counter() - t0
    assert r.stdout == "sim: 12 evaluated, 0 from the perf-db, 0 failed\n"
    local = load_json(tmp_path / "local" / "sweep.json")
    assert len(local["points"]) == 12 and local["executor"] == "local pool, 2 workers"
    baseline = {p["config"]["lanes"]: p["sim"]["cycles"] for p in local["points"]
                if p["arch"] == "baseline"}
    assert baseline == BASELINE_CYCLES
    for p in (local["points"][0], local["points"][9], local["points"][11]):   # stripes, loom, diffy
        assert p["sim"]["cycles"] == _golden_total(p["config"]), p["top"]
    con = sqlite3.connect(tmp_path / "local.sqlite")
    assert con.execute("SELECT count(*) FROM result WHERE status = 'ok'").fetchone()[0] == 12 * 3
    assert "| 11 | `termwise_diffy_" in (tmp_path / "local" / "sweep.md").read_text()

    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv("TERMWISE_WORKLOADS", str(WORKLOADS))   # the workers' trace cache
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        t0 = time.perf_counter()
        r = ok(termwise("sweep", "grid.toml", "-o", "dask", "--db", "dask.sqlite",
                        "--scheduler", cluster.scheduler_address))
        dask_s = time.perf_counter() - t0
    dask = load_json(tmp_path / "dask" / "sweep.json")
    assert dask["executor"] == f"Dask scheduler {cluster.scheduler_address}"
    assert dask["evaluated"] == {"sim": 12}
    assert _results(dask) == _results(local)
    print(f"12-point sim sweep: local pool {local_s:.1f} s, LocalCluster(2) {dask_s:.1f} s")


#: Loaded by the interrupted sweep's Python at start-up (``sitecustomize``): every job after
#: the first waits 60 s before it runs, so the interrupt lands mid-sweep however late the
#: test reads the first progress line. Without it the 12 points (0.2 s each) raced the
#: test's read: on a loaded machine the sweep once finished before the signal (exit 0).
HOLD_AFTER_FIRST_JOB = """\
import time
from termwise.gen.flows.sweep import executors
_run_job, _started = executors.run_job, []
def run_job(spec):
    if _started:
        time.sleep(60)
    _started.append(spec)
    return _run_job(spec)
executors.run_job = run_job
"""


def _default_sigint():
    """In the child before exec: SIGINT back to its default. A test suite started in the
    background by a non-interactive shell (``make test &``, nohup) inherits SIGINT ignored,
    and a Python started with it ignored never raises KeyboardInterrupt (measured: so
    started, the sweep ran on past the signal, exit 0, and once held, past the timeout)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_resume_after_interrupt_reruns_nothing_finished(termwise, tmp_path):
    (tmp_path / "grid.toml").write_text(GRID12)
    db = tmp_path / "perf.sqlite"
    hook = tmp_path / "hold"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOLD_AFTER_FIRST_JOB)
    env = e2e_env()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hook), env.get("PYTHONPATH")]))
    proc = subprocess.Popen([str(TERMWISE_EXE), "sweep", "grid.toml", "-o", "first", "--db",
                             str(db), "--workers", "1"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_default_sigint)

    def finished_points():
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            return con.execute("SELECT count(DISTINCT config_id) FROM result "
                               "WHERE status = 'ok'").fetchone()[0]
        except sqlite3.Error:
            return 0

    # Interrupt on the sweep's first progress line, read blocking (the engine records a
    # point before it reports it, gen/flows/sweep/engine.py). Polling the db instead slept
    # through the whole 6-second sweep twice on a loaded machine: a read-only connection
    # to the WAL db being written can fail, and the poll then saw no point until the end.
    head = ""
    while proc.poll() is None:
        line = proc.stderr.readline()
        head += line
        if not line or line.startswith("1/12 "):
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    err = head + err
    assert proc.returncode == 130, err
    assert err.endswith("error: interrupted\n") and "Traceback" not in err
    assert not (tmp_path / "first").exists()              # no report of a partial sweep
    done = finished_points()
    assert done == 1                    # the first job only: the rest were held
    r = ok(termwise("sweep", "grid.toml", "-o", "second", "--db", db, "--workers", "1"))
    doc = load_json(tmp_path / "second" / "sweep.json")
    assert doc["evaluated"] == {"sim": 12 - done} and doc["reused"] == {"sim": done}
    assert sum(p["sim"]["source"] == "db" for p in doc["points"]) == done
    # A third run evaluates nothing, and answers the same.
    ok(termwise("sweep", "grid.toml", "-o", "third", "--db", db))
    third = load_json(tmp_path / "third" / "sweep.json")
    assert third["evaluated"] == {"sim": 0} and _results(third) == _results(doc)


def test_grown_grid_evaluates_only_new_points(termwise, tmp_path):
    small = GRID12.split("[[grid]]\npreset = \"baseline-4x4\"")[0]       # the 6 stripes
    (tmp_path / "small.toml").write_text(small)
    (tmp_path / "grid.toml").write_text(GRID12)
    ok(termwise("sweep", "small.toml", "-o", "a", "--db", "p.sqlite"))
    ok(termwise("sweep", "grid.toml", "-o", "b", "--db", "p.sqlite"))
    doc = load_json(tmp_path / "b" / "sweep.json")
    assert doc["evaluated"] == {"sim": 6} and doc["reused"] == {"sim": 6}
    assert [p["sim"]["source"] for p in doc["points"]] == ["db"] * 6 + ["run"] * 6


def test_failed_point_is_recorded_and_retried(termwise, tmp_path):
    (tmp_path / "grid.toml").write_text('workload = "digits-cnn"\nprecision = 8\n'
                                        '[[grid]]\npreset = "loom-4x4"\nact_bits = [4, 8]\n')
    r = termwise("sweep", "grid.toml", "-o", "out", "--db", "p.sqlite")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stdout == "sim: 2 evaluated, 0 from the perf-db, 1 failed\n"
    doc = load_json(tmp_path / "out" / "sweep.json")
    assert doc["points"][0]["sim"] == {
        "status": "failed", "source": "run",
        "error": "ValueError: act_bits = 4 is narrower than the workload's 8-bit values"}
    assert doc["points"][1]["sim"]["status"] == "ok"
    assert "## Failed points" in (tmp_path / "out" / "sweep.md").read_text()
    con = sqlite3.connect(tmp_path / "p.sqlite")
    assert con.execute("SELECT status, count(*) FROM result GROUP BY status ORDER BY status"
                       ).fetchall() == [("failed", 3), ("ok", 3)]
    r = termwise("sweep", "grid.toml", "-o", "again", "--db", "p.sqlite")
    assert r.stdout == "sim: 1 evaluated, 1 from the perf-db, 1 failed\n"


def test_synth_job_on_the_smallest_tile(termwise, tmp_path):
    (tmp_path / "grid.toml").write_text(
        'jobs = ["synth"]\n[[grid]]\narch = "baseline"\nfilters = 1\nwindows = 1\n'
        'lanes = 2\nact_bits = 4\nwgt_bits = 4\ndepth = 4\n')
    ok(termwise("sweep", "grid.toml", "-o", "out", "--db", "p.sqlite",
                "--cache-dir", SYNTH_CACHE))
    ok(termwise("synth", "--arch", "baseline", "--filters", "1", "--windows", "1", "--lanes",
                "2", "--act-bits", "4", "--wgt-bits", "4", "--depth", "4", "--cache-dir",
                SYNTH_CACHE, "-o", "synth"))
    want = load_json(tmp_path / "synth" / "synth_report.json")["asic"]
    got = load_json(tmp_path / "out" / "sweep.json")["points"][0]["synth"]
    assert (got["area_um2"], got["fmax_mhz"]) == (want["area_um2"], want["fmax_mhz"])
    r = ok(termwise("sweep", "grid.toml", "-o", "again", "--db", "p.sqlite",
                    "--cache-dir", SYNTH_CACHE))
    assert r.stdout == "synth: 0 evaluated, 1 from the perf-db, 0 failed\n"


@pytest.mark.parametrize("grid, args, words", [
    ('workload = "digits-cnn"\n[[grid]]\npreset = "stripes-4x4"\narch = ["stripes", "warp"]\n',
     (), "error: grid[0].arch: must be one of"),
    ('workload = "digits-cnn"\n[[grid]]\npreset = "stripes-4x4"\nturbo = [1, 2]\n',
     (), "error: grid[0].turbo: unknown field"),
    ('workload = "digits-cnn"\n[[grid]]\npreset = "stripes-4x4"\nserial_bits = [2]\n',
     (), "error: grid[0].serial_bits: applies only to arch loom"),
    ('workload = "digits-cnn"\n', (), "error: grid: is empty"),
    ('workload = "digits-cnn"\n[[grid]]\npreset = "stripes-4x4"\nwindows = []\n',
     (), "error: grid[0].windows: is an empty list"),
    ('workload = "digits-cnn"\n[[grid]]\npreset = "stripes-4x4"\n',
     ("--scheduler", "tcp://127.0.0.1:1"), "error: scheduler: cannot reach tcp://127.0.0.1:1"),
    ('workload = "digits-cnn"\n[[grid]]\npreset = "stripes-4x4"\n',
     ("--scheduler", "localhost"), "error: scheduler: must be tcp://HOST:PORT"),
    ('workload = "digits-cnn"\n[[grid]]\npreset = "stripes-4x4"\n',
     ("--jobs", "sim,place"), "error: jobs: must be one or more of sim, synth"),
])
def test_refusals(termwise, tmp_path, grid, args, words):
    (tmp_path / "grid.toml").write_text(grid)
    r = termwise("sweep", "grid.toml", "-o", "out", "--db", "p.sqlite", *args)
    assert_usage_error(r, tmp_path / "out", words)
    assert not (tmp_path / "p.sqlite").exists()


def test_corrupt_db_refused(termwise, tmp_path):
    (tmp_path / "grid.toml").write_text('workload = "digits-cnn"\n[[grid]]\n'
                                        'preset = "stripes-4x4"\n')
    (tmp_path / "p.sqlite").write_bytes(b"garbage" * 1000)
    r = termwise("sweep", "grid.toml", "-o", "out", "--db", "p.sqlite")
    assert_usage_error(r, tmp_path / "out", "error: db: ", "is not a termwise perf-db")
    assert (tmp_path / "p.sqlite").read_bytes() == b"garbage" * 1000
