"""Common interface of the convolution algorithms.

An algorithm states where it applies through :meth:`ConvAlgorithm.check` (``None`` when
applicable, else the reason) and refuses other problems by raising :class:`NotApplicable`.
"""

from __future__ import annotations

import numpy as np

from ._args import ConvArgs, normalize_conv
from .problem import ConvProblem

__all__ = ["NotApplicable", "ConvAlgorithm"]


class NotApplicable(ValueError):
    """Raised when an algorithm is asked to solve a problem outside its domain.

    Attributes
    ----------
    reason : str
        Why the algorithm does not apply.
    """

    def __init__(self, reason: str, algorithm: str | None = None):
        self.reason = reason
        self.algorithm = algorithm
        super().__init__(f"{algorithm}: {reason}" if algorithm else reason)


class ConvAlgorithm:
    """Base class of a forward-convolution algorithm.

    Subclasses set :attr:`name`, :attr:`integer_exact` and :attr:`summary`, and implement
    :meth:`check` and :meth:`_compute`.

    Attributes
    ----------
    name : str
        Registry name.
    integer_exact : bool
        True if integer inputs give an exact ``int64`` result (by construction); False if
        integer inputs are computed in float64 and returned as float64.
    float_exact_on_integers : bool
        True if float inputs holding small integers (e.g. 1..17 times a checkerboard sign)
        give exact float results: no inexact constants or transforms are involved.
    summary : str
        Where the algorithm applies, in one line.
    """

    name: str = "?"
    integer_exact: bool = True
    float_exact_on_integers: bool = True
    summary: str = ""

    def check(self, problem: ConvProblem) -> str | None:
        """Return ``None`` if the algorithm applies to ``problem``, else the reason it does not."""
        raise NotImplementedError

    def applicable(self, problem: ConvProblem) -> bool:
        """True if :meth:`check` finds no reason to refuse ``problem``."""
        return self.check(problem) is None

    def reason(self, problem: ConvProblem) -> str:
        """``"applicable"`` or the reason the algorithm refuses ``problem``."""
        why = self.check(problem)
        return "applicable" if why is None else why

    def __call__(self, x, w, bias=None, *, stride=1, padding=0, dilation=1, groups=1):
        """Convolve like :func:`~termwise.golden.primitives.direct.conv2d_direct`.

        Raises
        ------
        NotApplicable
            If the problem is outside the algorithm's domain.
        """
        xa, wa, ba, args, dtype = normalize_conv(
            x, w, bias, stride=stride, padding=padding, dilation=dilation, groups=groups
        )
        problem = ConvProblem.from_arrays(
            np.asarray(x), wa, bias, stride=stride, padding=padding, dilation=dilation,
            groups=groups,
        )
        why = self.check(problem)
        if why is not None:
            raise NotApplicable(why, self.name)
        return self._compute(xa, wa, ba, args, dtype)

    def _compute(self, x: np.ndarray, w: np.ndarray, bias, args: ConvArgs,
                 dtype: np.dtype) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"
