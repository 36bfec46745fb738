"""``termwise tune``: the best tile configuration of a workload per layer and for the whole
network, from the perf-db, under an objective (cycles, energy, EDP, performance per area).

* :mod:`.space`: the candidate space (equal-peak presets and a small grid around them);
* :mod:`.objectives`: the objectives' costs and what they need;
* :mod:`.collect`: the candidates' figures from the perf-db, the analytic fallback, energy;
* :mod:`.power`: tile power from ``termwise power`` reports, in the perf-db;
* :mod:`.rank`: ranking, per-layer choice, Pareto front;
* :mod:`.run`: the run (find mode through the sweep engine);
* :mod:`.report`: tune.json, tune.md, best.toml, tune_pareto.png.
"""

from __future__ import annotations

from .run import MODES, run_tune

__all__ = ["MODES", "run_tune"]
