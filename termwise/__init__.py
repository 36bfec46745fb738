"""termwise: RTL generator and verification flow for value-based DNN accelerators.

The top-level folders of the repository (``rtl/``, ``gen/``, ``golden/``, ``tb/``, ``synth/``)
are installed as the sub-packages ``termwise.rtl``, ``termwise.gen`` and so on.

Importing termwise before NumPy pins NumPy's OpenBLAS to one kernel on x86-64
(:data:`BLAS_CORETYPE`): see :func:`pin_blas_kernel`.
"""

import os
import platform
import sys

__version__ = "0.1.0"

#: The OpenBLAS kernel the real-network traces are computed with on x86-64: AVX2, which
#: every x86-64 CPU since 2013 runs (the kernel OpenBLAS picks for an AVX2-only CPU).
BLAS_CORETYPE = "Haswell"


def pin_blas_kernel() -> bool:
    """Set ``OPENBLAS_CORETYPE`` to :data:`BLAS_CORETYPE` on x86-64 unless NumPy is loaded
    already (OpenBLAS reads it once, when it loads) or the user set it; True if set here.

    Why: a real workload's trace (golden/workloads) runs the float32 network through
    NumPy's matrix products, and OpenBLAS picks its kernel by CPU. Another kernel sums in
    another order and rounds differently: EfficientNet-Lite0's 16-bit precision profile,
    searched on those floats, gave one layer 3 activation bits under the AVX-512 kernel and
    4 under the AVX2 one, and the value-based designs' cycles moved by up to 1.2% (Stripes
    1,363,376 vs 1,377,026). One kernel makes the trace, and every figure measured on it,
    the same on every x86-64 machine (README.md, Workloads)."""
    if platform.machine().lower() not in ("x86_64", "amd64") or "numpy" in sys.modules:
        return False
    if "OPENBLAS_CORETYPE" in os.environ:
        return False
    os.environ["OPENBLAS_CORETYPE"] = BLAS_CORETYPE
    return True


def blas_kernel_chosen() -> bool:
    """True unless this process's OpenBLAS picked its kernel by CPU on x86-64: NumPy was
    loaded before termwise could pin it and no ``OPENBLAS_CORETYPE`` was set.

    A trace built then differs from the pinned one in the last bits of its floats, and
    through the precision search and the rounding of activations in about 1% of the
    codes of EfficientNet-Lite0's deeper layers (measured: 47 of its 100 arrays differ),
    so every result keyed on the trace (power reports) is another's. The trace builder
    (golden/workloads/trace_builder.py) refuses to build a trace in such a process."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return True
    return "OPENBLAS_CORETYPE" in os.environ


pin_blas_kernel()
