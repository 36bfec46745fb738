"""SRAM macros for termwise's buffers at 0.18 um / 1.8 V: OpenRAM-compiled, SPICE-
characterised macros in scn4m_subm (:mod:`.data`), the scaling rules (:mod:`.scaling`), the
per-shape fit, :func:`macro` and :func:`bank` (:mod:`.model`), and the cross-check against
published 0.18 um figures (:mod:`.published`). docs/sram.md has the method and numbers."""

from .model import (SramBank, SramMacro, bank, macro, CHARGED, FIT_ERROR, FIT_ERROR_BOUND,
                    FIT_COEFFICIENTS, CHARACTERISED, CHARACTERISED_RANGE, BITCELL_UM2,
                    DEFAULT_MAX_WIDTH, DEFAULT_MAX_WORDS, MIN_WORDS)
from .published import cross_check

__all__ = ["SramBank", "SramMacro", "bank", "macro", "CHARGED", "FIT_ERROR", "FIT_ERROR_BOUND",
           "FIT_COEFFICIENTS", "CHARACTERISED", "CHARACTERISED_RANGE", "BITCELL_UM2",
           "DEFAULT_MAX_WIDTH", "DEFAULT_MAX_WORDS", "MIN_WORDS", "cross_check"]
