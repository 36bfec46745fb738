"""The denoisers' shared pieces (golden/workloads/denoising.py): PSNR by hand, the conv
stack against convolutions written out here, and the PSNR model's resumable evaluation."""

import math

import numpy as np
import pytest

from termwise.golden.workloads import denoising as dn


def _conv3x3(x, w, b):
    """Padding-1 3x3 convolution by explicit shifted sums, float64."""
    n, c, h, wd = x.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, wd))
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,kc->nkhw", xp[:, :, i:i + h, j:j + wd], w[:, :, i, j])
    return out + b[None, :, None, None]


def _params(rng):
    return {"w0": rng.standard_normal((3, 1, 3, 3)).astype(np.float32) * 0.3,
            "b0": rng.standard_normal(3).astype(np.float32) * 0.1,
            "w1": rng.standard_normal((1, 3, 3, 3)).astype(np.float32) * 0.1,
            "b1": rng.standard_normal(1).astype(np.float32) * 0.01}


def test_psnr():
    ref = np.zeros((4, 4))
    assert dn.psnr(ref, np.full((4, 4), 0.1)) == pytest.approx(20.0)
    assert dn.psnr(ref, ref) == math.inf
    assert dn.psnr(ref, np.full((4, 4), -1.0)) == math.inf     # clipped to [0, 1]


def test_float_forward_and_resume():
    rng = np.random.default_rng(0)
    params = _params(rng)
    x = rng.random((2, 1, 6, 7)).astype(np.float32)
    h = np.maximum(_conv3x3(x, params["w0"], params["b0"]), 0)
    ref = _conv3x3(h, params["w1"], params["b1"])
    assert dn.n_layers(params) == 2
    seen = []
    out = dn.float_forward(params, x, record=lambda i, v: seen.append(i))
    assert seen == [0, 1] and out.dtype == np.float32
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    mid = dn.float_forward(params, x, stop=1)
    np.testing.assert_allclose(mid, h, rtol=1e-5, atol=1e-6)
    assert np.array_equal(dn.float_forward(params, mid, start=1), out)


def test_psnr_model_resumes_and_batches_by_shape():
    rng = np.random.default_rng(1)
    params = _params(rng)
    pairs = {}
    for name, shape in (("a", (6, 8)), ("b", (5, 5)), ("c", (6, 8))):
        clean = rng.random(shape).astype(np.float32)
        pairs[name] = (clean, (clean + rng.standard_normal(shape) * 0.1).astype(np.float32))

    def formats(aprec, wprec):       # a toy format: round the inputs to 2**-aprec
        wq = [params["w0"], params["w1"]]
        return (lambda i, v: (np.rint(v * 2.0 ** aprec[i]) / 2.0 ** aprec[i])
                .astype(np.float32)), wq
    model = dn.PsnrModel(params, pairs, 8, formats, lambda z: z[:, None], lambda o: o[:, 0])
    assert model.n == 2 and [c.shape for c, _ in model.batches] == [(1, 5, 5), (2, 6, 8)]
    prec = [3, 5]
    hook, wq = formats(prec, None)
    ref = []
    for clean, noisy in (pairs["b"], pairs["a"], pairs["c"]):     # the batches' order
        out = dn.float_forward(params, noisy[None, None], act_hook=hook, wgts=wq)
        ref.append(dn.psnr(clean, noisy - out[0, 0]))
    # the model's GEMM convolution sums in another order than the reference's: float32
    # rounding, far below a millidecibel
    whole = model.psnr(prec, None)
    assert whole == pytest.approx(float(np.mean(ref)), abs=1e-4)
    xs = model.advance(prec, None, model.start(), 0)
    assert model.psnr(prec, None, xs, 1) == whole          # resuming changes nothing
    assert model.evaluations == 2


def test_notes_name_the_profile_and_deltas():
    meta = {"profile": {"criterion": "crit", "reference_psnr": 30.0, "psnr": 29.95,
                        "act_profile": [5, 6], "wgt_profile": [7, 8]},
            "layers": [{"act_precision": 4, "wgt_precision": 6},
                       {"act_precision": 5, "wgt_precision": 7}],
            "deltas": {"total_macs": {"act_terms": 2.0, "delta_terms": 1.5, "ratio": 0.75}}}
    notes = dn.profile_and_delta_notes(meta, 16, 2)
    assert "activations [5, 6] bits, weights [7, 8] bits (conv1..conv2)" in notes[0]
    assert "Stripes p [4, 5], Loom Pw [6, 7]" in notes[0]
    assert notes[1].endswith("1.50 per delta (ratio 0.75)")
    del meta["profile"]
    assert len(dn.profile_and_delta_notes(meta, 8, 2)) == 1
