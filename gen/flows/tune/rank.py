"""``termwise tune``'s choice: the ranking of whole-workload costs, the per-layer choice
(if the tile could switch between layers) and the Pareto front. Pure functions of the
candidate entries (:mod:`.collect`) and an objective (:mod:`.objectives`)."""

from __future__ import annotations

from .objectives import layer_costs, network_cost

__all__ = ["rank", "per_layer_choice", "pareto_front", "unranked_reason"]


def unranked_reason(entry: dict, objective: str, area_budget_mm2: float | None) -> str | None:
    """Why ``entry`` cannot be ranked under ``objective`` (and the area budget), or None."""
    if entry.get("excluded"):
        return entry["excluded"]
    if (objective == "perf-per-area" or area_budget_mm2 is not None) \
            and entry.get("area_mm2") is None:
        return "no synthesised area"
    if objective == "perf-per-area" and not entry.get("fmax_mhz"):
        return "no Fmax in its synthesis"
    if objective in ("energy", "edp") and entry.get("energy") is None:
        return "no power record (tile power of a termwise power report)"
    if area_budget_mm2 is not None and entry["area_mm2"] > area_budget_mm2:
        return f"area {entry['area_mm2']:.4f} mm2 over the budget {area_budget_mm2:g} mm2"
    return None


def rank(entries, objective: str, area_budget_mm2: float | None = None) -> tuple[list, dict]:
    """``(ranked, unranked)``: the indices of the entries that can be ranked, by ascending
    whole-workload cost (ties by top name), and ``{index: reason}`` of the others."""
    ranked, unranked = [], {}
    for i, e in enumerate(entries):
        why = unranked_reason(e, objective, area_budget_mm2)
        if why is None:
            ranked.append(i)
        else:
            unranked[i] = why
    ranked.sort(key=lambda i: (network_cost(entries[i], objective), entries[i]["top"]))
    return ranked, unranked


def per_layer_choice(entries, ranked, objective: str) -> dict | None:
    """The best of the ``ranked`` entries per layer (ties by top name) and the total of that
    choice against the one-tile winner ``ranked[0]``.

    Returns
    -------
    dict or None
        ``layers``: per layer ``{"layer", "index", "top", "cost"}``; ``total``: the switched
        workload's cost (the sum of the layer costs; for ``edp`` the summed energy x the
        summed time; for ``perf-per-area`` the time in us at each tile's Fmax);
        ``one_tile``: the one-tile winner's cost
        in the same measure; ``gain``: ``one_tile / total`` (>= 1). None without candidates.
    """
    if not ranked:
        return None
    costs = {i: layer_costs(entries[i], objective) for i in ranked}
    n = len(entries[ranked[0]]["layers"])
    layers = []
    for k in range(n):
        i = min(ranked, key=lambda j: (costs[j][k], entries[j]["top"]))
        layers.append({"layer": entries[i]["layers"][k]["layer"], "index": i,
                       "top": entries[i]["top"], "cost": costs[i][k]})
    best = entries[ranked[0]]
    if objective == "edp":
        joules = sum(entries[x["index"]]["energy"]["layers_j"][k] for k, x in enumerate(layers))
        secs = sum(entries[x["index"]]["energy"]["layers_s"][k] for k, x in enumerate(layers))
        total = joules * secs
        one = network_cost(best, objective)
    else:
        total = sum(x["cost"] for x in layers)
        one = sum(costs[ranked[0]])
    return {"layers": layers, "total": total, "one_tile": one,
            "gain": one / total if total else None}


def pareto_front(points) -> list[int]:
    """Indices of the points ``(x, y)`` no other point beats in both (both minimised), in
    ascending x."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], points[i][1]))
    front, best_y = [], float("inf")
    for i in order:
        if points[i][1] < best_y:
            front.append(i)
            best_y = points[i][1]
    return front
