"""Every test process imports termwise before NumPy, so that the traces a test builds use
the pinned OpenBLAS kernel as the `termwise` command does (termwise/__init__.py)."""

import termwise  # noqa: F401
