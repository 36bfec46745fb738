"""Whole networks on the layer model (:func:`.simulate.simulate_layer`): every layer of a
network on every design, the layers spread over forked worker processes."""

from __future__ import annotations

import multiprocessing as mp
import os

from ..lowering import DEFAULT_DEPTHWISE, DEFAULT_ORDER, check_depthwise, check_order
from .presets import DEFAULT_FC, hardware_bits, sim_config
from .simulate import LayerResult, check_signed_digits, simulate_layer

__all__ = ["default_workers", "simulate_layers"]


def default_workers() -> int:
    """Worker processes of :func:`simulate_layers`: ``TERMWISE_SIM_WORKERS`` if set, else
    up to 2 (the target machine's cores), never more than the CPUs present."""
    env = os.environ.get("TERMWISE_SIM_WORKERS")
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ValueError(f"TERMWISE_SIM_WORKERS must be an integer, got {env!r}") from None
    return max(1, min(2, os.cpu_count() or 1))


#: (layers, cfgs, options) of the running :func:`simulate_layers`, inherited by the forked
#: workers so that only layer indices cross the process boundary.
_JOB = None


def _simulate_index(i: int) -> LayerResult:
    layers, cfgs, kw = _JOB
    return simulate_layer(layers[i], cfgs, **kw)


def simulate_layers(layers, archs, *, bits: int | None = None, order: str = DEFAULT_ORDER,
                    depthwise: str = DEFAULT_DEPTHWISE, max_window_groups=None,
                    sample_pairs=None, progress=None, workers: int | None = None,
                    signed_digits: str = "booth", fc: str = DEFAULT_FC) -> list:
    """Simulate every layer on every design of ``archs``, each on its equal-peak 16x16
    preset of ``bits``-bit hardware (:func:`.presets.design_config`; default
    :func:`.presets.hardware_bits` of the layers: 8-bit values run on the 8-bit presets), the
    convolutions lowered in brick ``order`` (default the papers' ``"position"``: the
    channels of one kernel position per brick; ``"channel"``: the channel-major im2col row)
    and the depthwise ones in mapping ``depthwise`` (default ``"diagonal"``: ``lanes``
    channels per tile group, block-diagonal weights; ``"group"``: one group per channel);
    the Booth-coded designs' terms counted in ``signed_digits``
    (:func:`.simulate.simulate_layer`); batch-1 fully-connected layers mapped as ``fc`` says
    (:data:`.presets.FC_MAPPINGS`, :func:`.presets.sim_config`).

    Layers are independent, so they are spread over ``workers`` forked processes (default
    :func:`default_workers`); results come back in layer order and do not depend on the
    worker count (sampling seeds are per layer). ``progress(i, n, layer, seconds)`` is
    called after each layer, in order. Designs without a golden model raise ``ValueError``
    from :func:`termwise.golden.arch.model`: check first with
    :func:`.presets.available_designs`.
    """
    global _JOB
    bits = hardware_bits(layers) if bits is None else bits
    cfgs = {arch: sim_config(arch, bits, fc) for arch in archs}
    kw = {"order": check_order(order), "depthwise": check_depthwise(depthwise),
          "signed_digits": check_signed_digits(signed_digits),
          "max_window_groups": max_window_groups, "sample_pairs": sample_pairs}
    n = len(layers)
    workers = default_workers() if workers is None else max(1, int(workers))
    if workers == 1 or n < 2 or "fork" not in mp.get_all_start_methods():
        done = (simulate_layer(layer, cfgs, **kw) for layer in layers)
        pool = None
    else:
        _JOB = (layers, cfgs, kw)
        pool = mp.get_context("fork").Pool(min(workers, n))
        done = pool.imap(_simulate_index, range(n))
    results = []
    try:
        for i, res in enumerate(done):
            results.append(res)
            if progress:
                progress(i + 1, n, layers[i], res.seconds)
    except BaseException:
        if pool is not None:
            pool.terminate()
        raise
    finally:
        if pool is not None:
            pool.close()
            pool.join()
            _JOB = None
    return results
