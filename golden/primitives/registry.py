"""Registry of forward-convolution algorithms and dispatch.

Every algorithm is a :class:`~termwise.golden.primitives.base.ConvAlgorithm` instance
registered under its name. ``direct`` is the reference the others are checked against.
"""

from __future__ import annotations

from ._args import ConvArgs
from .base import ConvAlgorithm, NotApplicable
from .direct import conv2d_direct
from .fft import FFTConv
from .im2col import Gemm1x1, Im2colGemm, ImplicitGemm
from .problem import ConvProblem
from .taps import DepthwiseTaps, TapGemm, TapGemmBands
from .winograd import WinogradF2x3, WinogradF4x3

__all__ = ["Direct", "ALGORITHMS", "get_algorithm", "applicable_algorithms", "explain", "conv2d",
           "register"]


class Direct(ConvAlgorithm):
    """The reference :func:`~termwise.golden.primitives.direct.conv2d_direct`."""

    name = "direct"
    integer_exact = True
    summary = "any problem (the reference)"

    def check(self, problem: ConvProblem) -> str | None:
        return None

    def _compute(self, x, w, bias, args: ConvArgs, dtype):
        return conv2d_direct(x, w, bias, stride=args.stride, padding=args.padding,
                             dilation=args.dilation, groups=args.groups)


#: name -> algorithm, in preference order for :func:`conv2d` with ``algorithm="auto"``. The
#: tap-major algorithms the workloads call by name come after ``direct``, so ``"auto"``
#: never picks them: adding them changed no dispatch.
ALGORITHMS: dict[str, ConvAlgorithm] = {}


def register(algorithm: ConvAlgorithm) -> ConvAlgorithm:
    """Add ``algorithm`` to :data:`ALGORITHMS` (``ValueError`` on a duplicate name)."""
    if algorithm.name in ALGORITHMS:
        raise ValueError(f"algorithm {algorithm.name!r} already registered")
    ALGORITHMS[algorithm.name] = algorithm
    return algorithm


for _alg in (WinogradF4x3(), WinogradF2x3(), Gemm1x1(), Im2colGemm(), ImplicitGemm(), FFTConv(),
             Direct(), TapGemm(), TapGemmBands(), DepthwiseTaps()):
    register(_alg)


def get_algorithm(name: str) -> ConvAlgorithm:
    """Algorithm registered as ``name``; ``KeyError`` listing the known names otherwise."""
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise KeyError(f"unknown convolution algorithm {name!r}; known: {sorted(ALGORITHMS)}") from None


def applicable_algorithms(problem: ConvProblem) -> list[ConvAlgorithm]:
    """Registered algorithms that apply to ``problem``, in preference order."""
    return [a for a in ALGORITHMS.values() if a.applicable(problem)]


def explain(problem: ConvProblem) -> dict[str, str]:
    """Map each algorithm name to ``"applicable"`` or the reason it refuses ``problem``."""
    return {name: a.reason(problem) for name, a in ALGORITHMS.items()}


def conv2d(x, w, bias=None, *, stride=1, padding=0, dilation=1, groups=1, algorithm="direct"):
    """Convolve with a named algorithm, or ``"auto"`` for the first applicable one.

    ``"auto"`` skips algorithms that are not exact for integer inputs when the inputs are
    integers. Raises :class:`NotApplicable` if the named algorithm refuses the problem.
    """
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    if algorithm != "auto":
        return get_algorithm(algorithm)(x, w, bias, **kw)
    problem = ConvProblem.from_arrays(x, w, bias, **kw)
    integer = problem.dtype.startswith(("INT", "UINT"))
    for alg in applicable_algorithms(problem):
        if integer and not alg.integer_exact:
            continue
        return alg(x, w, bias, **kw)
    raise NotApplicable("no registered algorithm applies", "auto")  # pragma: no cover
