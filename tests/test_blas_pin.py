"""termwise/__init__.py pins NumPy's OpenBLAS kernel on x86-64 when it loads first, leaves
a user's OPENBLAS_CORETYPE alone and cannot pin once NumPy is loaded; this test process
(tests/conftest.py) runs pinned. The kernel is read back from OpenBLAS itself
(threadpoolctl), not from the variable."""

import os
import platform
import subprocess
import sys

import pytest

import termwise

x86 = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                         reason="the pin is for x86-64's OpenBLAS kernels")
KERNEL = ("import threadpoolctl; print(os.environ.get('OPENBLAS_CORETYPE'), [i.get("
          "'architecture') for i in threadpoolctl.threadpool_info() if i['internal_api'] "
          "== 'openblas'])")


def _python(code: str, **env) -> str:
    e = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    e.update(env)
    r = subprocess.run([sys.executable, "-c", "import os\n" + code], env=e,
                       capture_output=True, text=True, check=True, timeout=120)
    return r.stdout.strip()


@x86
def test_termwise_first_pins_the_kernel():
    assert _python("import termwise, numpy\n" + KERNEL) == "Haswell ['Haswell']"


@x86
def test_a_users_kernel_wins():
    assert _python("import termwise, numpy\n" + KERNEL,
                   OPENBLAS_CORETYPE="Sandybridge") == "Sandybridge ['Sandybridge']"


@x86
def test_numpy_first_cannot_be_pinned():
    out = _python("import numpy, termwise\nprint(termwise.pin_blas_kernel())\n" + KERNEL)
    assert out.splitlines()[0] == "False"
    assert out.splitlines()[1].startswith("None ")


@x86
def test_this_test_process_is_pinned():
    import numpy  # noqa: F401  (loads OpenBLAS, if no test did)
    import threadpoolctl
    kernels = [i.get("architecture") for i in threadpoolctl.threadpool_info()
               if i["internal_api"] == "openblas"]
    assert os.environ.get("OPENBLAS_CORETYPE") == termwise.BLAS_CORETYPE
    assert kernels and set(kernels) == {termwise.BLAS_CORETYPE}
