"""Cross-check every registered convolution algorithm against the direct reference."""

import numpy as np
import pytest

from termwise.golden.primitives.base import NotApplicable
from termwise.golden.primitives.direct import conv2d_direct
from termwise.golden.primitives.problem import ConvProblem
from termwise.golden.primitives.registry import (
    ALGORITHMS,
    applicable_algorithms,
    conv2d,
    explain,
    get_algorithm,
)
from termwise.golden.primitives.verify import (
    FP32_THRESHOLD,
    FP64_THRESHOLD,
    assert_close,
    assert_exact,
    checkerboard_ints,
)

# Fixed problems that exercise each algorithm's domain, then seeded random ones.
# (N, C, H, W, K, R, S, stride, padding, dilation, groups, bias)
FIXED = [
    (1, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, True),  # 3x3 same: Winograd
    (2, 4, 9, 7, 6, 3, 3, 1, (0, 2), 1, 2, False),  # ragged tiles, groups
    (1, 5, 6, 10, 5, 3, 3, 1, 1, 1, 5, True),  # depthwise 3x3
    (1, 6, 7, 7, 6, 5, 5, 1, 2, 1, 6, False),  # depthwise 5x5
    (2, 8, 5, 6, 4, 1, 1, 1, 0, 1, 1, True),  # 1x1 GEMM
    (1, 4, 9, 9, 6, 1, 1, 2, 0, 1, 2, False),  # 1x1 stride 2, groups
    (2, 3, 5, 7, 3, 1, 1, (3, 1), 0, 2, 3, True),  # 1x1 depthwise, dilation irrelevant
    (1, 16, 4, 4, 10, 1, 1, 1, 1, 1, 1, True),  # 1x1 padded: not gemm_1x1
    (1, 3, 23, 23, 4, 11, 11, 4, 0, 1, 1, True),  # AlexNet conv1 shape, scaled down
    (1, 4, 10, 11, 4, 3, 2, (1, 2), (2, 1), (2, 3), 1, True),  # dilation
    (1, 2, 4, 4, 2, 3, 3, 1, 0, 1, 1, False),  # single 2x2 output
    (1, 1, 3, 3, 1, 3, 3, 1, 0, 1, 1, True),  # single output
]


def random_problems(count, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        r, s = (int(v) for v in rng.choice([1, 2, 3, 3, 3, 5], 2))
        if rng.random() < 0.4:
            s = r
        mode = rng.choice(["plain", "groups", "depthwise"])
        if mode == "depthwise":
            g = int(rng.integers(2, 6))
            c = k = g
        elif mode == "groups":
            g = int(rng.integers(2, 4))
            c, k = g * int(rng.integers(1, 4)), g * int(rng.integers(1, 4))
        else:
            g, c, k = 1, int(rng.integers(1, 7)), int(rng.integers(1, 7))
        stride = (int(rng.integers(1, 4)), int(rng.integers(1, 4))) if rng.random() < 0.4 else 1
        dil = (int(rng.integers(1, 3)), int(rng.integers(1, 3))) if rng.random() < 0.3 else 1
        pad = (int(rng.integers(0, 3)), int(rng.integers(0, 3)))
        n, h, w = int(rng.integers(1, 3)), int(rng.integers(3, 14)), int(rng.integers(3, 14))
        try:
            ConvProblem(n, c, h, w, k, r, s, stride, pad, dil, g)
        except ValueError:
            continue
        out.append((n, c, h, w, k, r, s, stride, pad, dil, g, bool(rng.random() < 0.5)))
    return out


PROBLEMS = FIXED + random_problems(30, seed=2024)


def problem_of(case):
    n, c, h, w, k, r, s, st, pd, dl, g, b = case
    return ConvProblem(n, c, h, w, k, r, s, st, pd, dl, g, b)


def operands(case, rng, kind):
    n, c, h, w, k, r, s, st, pd, dl, g, b = case
    xs, ws = (n, c, h, w), (k, c // g, r, s)
    if kind == "int":
        x = rng.integers(-128, 128, xs, dtype=np.int8)
        wt = rng.integers(-128, 128, ws, dtype=np.int8)
        bias = rng.integers(-(2**20), 2**20, k, dtype=np.int32) if b else None
    elif kind == "checker":
        x = checkerboard_ints(xs, rng)
        wt = checkerboard_ints(ws, rng)
        bias = checkerboard_ints((k,), rng) if b else None
    else:
        dt = np.float32 if kind == "fp32" else np.float64
        x = rng.standard_normal(xs).astype(dt)
        wt = rng.standard_normal(ws).astype(dt)
        bias = rng.standard_normal(k).astype(dt) if b else None
    kw = dict(stride=st, padding=pd, dilation=dl, groups=g)
    return x, wt, bias, kw


def ids(case):
    return problem_of(case).key


@pytest.mark.parametrize("case", PROBLEMS, ids=ids)
def test_all_applicable_algorithms_match_direct(case):
    problem = problem_of(case)
    algs = applicable_algorithms(problem)
    assert "direct" in [a.name for a in algs] and "im2col_gemm" in [a.name for a in algs]
    rng = np.random.default_rng([ord(ch) for ch in problem.key])

    # integers: exact for integer-exact algorithms, float64 metric otherwise
    x, w, b, kw = operands(case, rng, "int")
    ref = conv2d_direct(x, w, b, **kw)
    assert ref.dtype == np.int64
    for alg in algs:
        got = alg(x, w, b, **kw)
        if alg.integer_exact:
            assert got.dtype == np.int64, alg.name
            assert_exact(got, ref)
        else:
            assert got.dtype == np.float64, alg.name
            assert_close(got, ref, FP64_THRESHOLD)

    # integer-valued float32 data: exact where no inexact constants are involved
    x, w, b, kw = operands(case, rng, "checker")
    ref = conv2d_direct(x, w, b, **kw)
    exact = conv2d_direct(x.astype(np.int64), w.astype(np.int64),
                          None if b is None else b.astype(np.int64), **kw)
    assert_exact(ref, exact.astype(np.float32))  # the reference itself is exact here
    for alg in algs:
        got = alg(x, w, b, **kw)
        assert got.dtype == np.float32, alg.name
        if alg.float_exact_on_integers:
            assert_exact(got, ref)
        else:
            assert_close(got, ref, FP32_THRESHOLD)

    # random float32 and float64
    for kind, dt, thr in (("fp32", np.float32, FP32_THRESHOLD), ("fp64", np.float64, FP64_THRESHOLD)):
        x, w, b, kw = operands(case, rng, kind)
        ref = conv2d_direct(x, w, b, **kw)
        for alg in algs:
            got = alg(x, w, b, **kw)
            assert got.dtype == dt, alg.name
            assert got.shape == (problem.n, problem.k, problem.oh, problem.ow)
            assert_close(got, ref, thr)


def test_every_algorithm_is_exercised():
    counts = {name: 0 for name in ALGORITHMS}
    for case in PROBLEMS:
        for alg in applicable_algorithms(problem_of(case)):
            counts[alg.name] += 1
    assert all(v >= 3 for v in counts.values()), counts
    assert len(ALGORITHMS) >= 5


def test_winograd_integer_exact_at_int16_range():
    rng = np.random.default_rng(7)
    x = rng.integers(-(2**15), 2**15, (1, 64, 6, 6))
    w = rng.integers(-(2**15), 2**15, (3, 64, 3, 3))
    ref = conv2d_direct(x, w, padding=1)
    for name in ("winograd_f2x3", "winograd_f4x3"):
        assert_exact(get_algorithm(name)(x, w, padding=1), ref)


def test_winograd_integer_overflow_is_refused():
    x = np.full((1, 4, 4, 4), 2**28, dtype=np.int64)
    w = np.full((1, 4, 3, 3), 2**20, dtype=np.int64)
    conv2d_direct(x, w)  # the direct bound holds: 2**48 * 36
    with pytest.raises(OverflowError, match="winograd"):
        get_algorithm("winograd_f4x3")(x, w)


@pytest.mark.parametrize(
    "name, case, reason",
    [
        ("winograd_f2x3", dict(r=5, s=5), "3x3 filter, got 5x5"),
        ("winograd_f4x3", dict(r=5, s=5), "3x3 filter, got 5x5"),
        ("winograd_f2x3", dict(stride=2), "stride 1x1, got 2x2"),
        ("winograd_f4x3", dict(stride=(1, 2)), "stride 1x1, got 1x2"),
        ("winograd_f2x3", dict(dilation=2), "dilation 1x1, got 2x2"),
        ("gemm_1x1", dict(), "1x1 filter, got 3x3"),
        ("gemm_1x1", dict(r=1, s=1, padding=1), "zero padding, got 1x1"),
        ("fft", dict(stride=2), "stride 1x1, got 2x2"),
    ],
)
def test_refusals(name, case, reason):
    r, s = case.pop("r", 3), case.pop("s", 3)
    kw = dict(stride=1, padding=0, dilation=1, groups=1)
    kw.update(case)
    problem = ConvProblem(1, 2, 9, 9, 2, r, s, **kw)
    alg = get_algorithm(name)
    assert not alg.applicable(problem)
    assert reason in alg.check(problem)
    assert explain(problem)[name] == alg.check(problem)
    x = np.ones((1, 2, 9, 9), np.float32)
    w = np.ones((2, 2, r, s), np.float32)
    with pytest.raises(NotApplicable, match=reason) as info:
        alg(x, w, **kw)
    assert info.value.reason == alg.check(problem)
    assert info.value.algorithm == name


def test_conv2d_dispatch():
    rng = np.random.default_rng(3)
    x = rng.integers(-5, 5, (1, 3, 8, 8))
    w = rng.integers(-5, 5, (4, 3, 3, 3))
    ref = conv2d_direct(x, w, padding=1)
    assert_exact(conv2d(x, w, padding=1, algorithm="auto"), ref)
    assert_exact(conv2d(x, w, padding=1, algorithm="winograd_f2x3"), ref)
    with pytest.raises(NotApplicable):
        conv2d(x, w, stride=2, algorithm="winograd_f2x3")
    with pytest.raises(KeyError, match="unknown convolution algorithm"):
        conv2d(x, w, algorithm="nope")
    xf = x.astype(np.float32)
    wf = w.astype(np.float32)
    assert_close(conv2d(xf, wf, stride=2, algorithm="auto"), conv2d_direct(xf, wf, stride=2),
                 FP32_THRESHOLD)


def test_algorithm_validation_errors_propagate():
    for alg in ALGORITHMS.values():
        with pytest.raises(ValueError, match="groups: C=6 is not divisible by groups=4"):
            alg(np.zeros((1, 6, 5, 5)), np.zeros((4, 1, 3, 3)), groups=4)
