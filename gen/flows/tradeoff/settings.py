"""The precision settings ``termwise tradeoff`` measures on the digits CNN: uniform
activation and weight precisions, one layer lowered at a time, the lossless per-layer
profiles and the 8-bit base."""

from __future__ import annotations

__all__ = ["UNIFORM_ACT", "UNIFORM_WGT", "SINGLE_LAYER", "settings"]

UNIFORM_ACT = (16, 12, 10, 8, 7, 6, 5, 4, 3, 2)
UNIFORM_WGT = (12, 10, 8, 7, 6, 5, 4, 3, 2)
SINGLE_LAYER = (8, 6, 5, 4, 3, 2)


def settings(prof16: dict, prof8: dict) -> list[dict]:
    """The precision settings: ``{"group", "label", "bits", "act", "wgt"}``."""
    from ....golden.workloads.digits import ARCH, LAYER_NAMES
    n = len(ARCH)
    out = []
    for p in UNIFORM_ACT:
        out.append({"group": "uniform act", "label": f"act {p}b, wgt 16b", "bits": 16,
                    "act": [p] * n, "wgt": [16] * n})
    for pw in UNIFORM_WGT:
        out.append({"group": "uniform wgt", "label": f"act 16b, wgt {pw}b", "bits": 16,
                    "act": [16] * n, "wgt": [pw] * n})
    for i, name in enumerate(LAYER_NAMES):
        for p in SINGLE_LAYER:
            act = [16] * n
            act[i] = p
            out.append({"group": "one layer act", "label": f"act {name}={p}b, others 16b",
                        "bits": 16, "act": act, "wgt": [16] * n})
    ap, wp = prof16["act_profile"]["profile"], prof16["wgt_profile"]["profile"]
    out.append({"group": "profile", "label": f"lossless act profile {ap}, wgt 16b",
                "bits": 16, "act": list(ap), "wgt": [16] * n})
    out.append({"group": "profile", "label": f"lossless act {ap} + wgt {wp} profile",
                "bits": 16, "act": list(ap), "wgt": list(wp)})
    out.append({"group": "8-bit base", "label": "8-bit base, act 8b, wgt 8b", "bits": 8,
                "act": [8] * n, "wgt": [8] * n})
    ap8, wp8 = prof8["act_profile"]["profile"], prof8["wgt_profile"]["profile"]
    out.append({"group": "8-bit base", "label": f"8-bit base, lossless act {ap8} + wgt {wp8}",
                "bits": 8, "act": list(ap8), "wgt": list(wp8)})
    return out
