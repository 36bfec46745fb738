"""Pruned workloads: exact per-layer pruning fractions, deterministic ties, the mask kept by
the fine-tune, traces from the pruned network, registration and bad input."""

import numpy as np
import pytest

from termwise.gen.config import ConfigError
from termwise.golden.workloads import WORKLOADS, load_workload
from termwise.golden.workloads import pruning
from termwise.golden.workloads.pruning import prune_magnitude, prune_mask


def _reference_mask(w, s):
    """Pure-Python reference: sort (|w|, flat index) and drop the first round(s*n)."""
    flat = [abs(float(v)) for v in np.asarray(w).ravel()]
    drop = int(s * len(flat) + 0.5)
    order = sorted(range(len(flat)), key=lambda i: (flat[i], i))
    keep = [True] * len(flat)
    for i in order[:drop]:
        keep[i] = False
    return np.array(keep).reshape(np.shape(w))


@pytest.mark.parametrize("s", [0.0, 0.5, 0.7, 0.9, 0.33])
@pytest.mark.parametrize("shape", [(7,), (4, 3, 3, 3), (10, 37)])
def test_mask_fraction_exact_and_equal_to_reference(s, shape):
    rng = np.random.default_rng(len(shape))
    w = rng.integers(-5, 6, size=shape)            # many ties in |w|
    keep = prune_mask(w, s)
    assert (~keep).sum() == int(s * w.size + 0.5)
    np.testing.assert_array_equal(keep, _reference_mask(w, s))
    # the pruned ones are never larger than a kept one
    if (~keep).any() and keep.any():
        assert np.abs(w[~keep]).max() <= np.abs(w[keep]).min()


def test_float_weights_and_dtype():
    w = np.array([[0.3, -0.1, 0.2], [-0.4, 0.1, 0.05]], dtype=np.float32)
    p = prune_magnitude(w, 0.5)
    assert p.dtype == np.float32
    np.testing.assert_array_equal(p, np.array([[0.3, 0, 0.2], [-0.4, 0, 0]], np.float32))
    # ties: -0.1 and 0.1 are equal in magnitude; the lower flat index goes first
    np.testing.assert_array_equal(prune_mask(np.array([0.1, -0.1, 0.1]), 0.34),
                                  [False, True, True])


@pytest.mark.parametrize("bad", [1.0, -0.1, "x", None, True, 1.5])
def test_bad_sparsity_names_field(bad):
    with pytest.raises(ConfigError) as err:
        prune_mask(np.ones(4), bad)
    assert str(err.value).startswith("sparsity:")


def test_registered_names():
    for base in ("digits-cnn", "efficientnet-lite0"):
        for p in (50, 70, 90):
            assert f"{base}-p{p}" in WORKLOADS
    with pytest.raises(ConfigError) as err:
        pruning.load_pruned("alexnet", 0.5)
    assert str(err.value).startswith("workload:")


def test_digits_finetune_keeps_mask():
    from termwise.golden.workloads import digits
    dense, _ = digits.trained()
    params, info = pruning.digits_pruned_params(0.7, epochs=1)
    for i in range(len(digits.ARCH)):
        w, w0 = params[f"w{i}"], dense[f"w{i}"]
        keep = prune_mask(w0, 0.7)
        assert (w[~keep] == 0).all()               # pruned stay pruned
        assert (~keep).sum() == int(0.7 * w0.size + 0.5)
        assert not np.array_equal(w[keep], w0[keep])   # the others were fine-tuned
        assert info["weight_zero_fraction"][i] == pytest.approx((~keep).mean())
    assert 0 < info["pruned_float_accuracy"] <= 100
    assert info["finetuned_float_accuracy"] >= info["pruned_float_accuracy"]


@pytest.mark.slow
def test_digits_pruned_workload_traces_the_pruned_network():
    """The traced layer inputs are those of the pruned integer network (recomputed here with
    digits.int_forward on the workload's own weights), and the notes carry the accuracy."""
    from termwise.golden.workloads import digits
    wl = load_workload("digits-cnn-p70", 16, images=20, log=None)
    assert wl.name == "digits-cnn-p70"
    for layer in wl.layers:
        assert np.mean(layer.wgt == 0) >= 0.69           # conv1: 50 of 72 pruned
    assert any("accuracy" in n and "fine-tune" in n for n in wl.notes)
    qm = digits.quant_model(*_params_amax(), 16, wl.meta["act_prec"], wl.meta["wgt_prec"])
    for i, layer in enumerate(wl.layers):
        np.testing.assert_array_equal(layer.wgt, qm.wq[i])
    acts = {}
    xte = digits.dataset()[2][:20]
    digits.int_forward(qm, xte, record=lambda i, a: acts.__setitem__(i, a))
    for i, layer in enumerate(wl.layers):
        np.testing.assert_array_equal(layer.act, acts[i])
    dense = load_workload("digits-cnn", 16, images=20, log=None)
    assert not np.array_equal(dense.layers[1].act, wl.layers[1].act)


def _params_amax():
    import json
    with np.load(pruning._digits_cache_path(0.7, pruning.FINETUNE_EPOCHS, 0, 16)) as f:
        params = {k: f[k] for k in f.files if k != "info"}
        info = json.loads(str(f["info"]))
    return params, info["amax"]
