"""SRAM macros and banked buffers at 0.18 um / 1.8 V, from OpenRAM's characterised shapes.

:func:`macro` gives one single-port macro's figures: a characterised shape's own (scaled)
figures, any other shape's from a least-squares fit over the characterised shapes, of a
physically motivated form per figure (``N = words``, ``W = width``):

====================  =======================================  ==========================
figure                form                                     terms
====================  =======================================  ==========================
area                  A_cell N W + a0 + a1 W + a2 N            bitcells (fixed, the
                                                               OpenRAM cell's outline
                                                               scaled) + periphery
read / write energy   e0 + e1 W + e2 N W                       control and decoder, per
                                                               column (sense amplifier /
                                                               write driver, data flops),
                                                               bitline charge (rows x
                                                               columns)
leakage               l0 + l1 W                                periphery, columns (the
                                                               static current of the
                                                               scn4m_subm netlist does
                                                               not grow with the rows:
                                                               30.1 mW at 16 x 32, 22.4
                                                               at 64 x 32)
access, min period    t0 + t1 N + t2 W                         control, bitline (rows),
                                                               wordline (columns)
====================  =======================================  ==========================

The fit's largest relative error on the characterised shapes is :data:`FIT_ERROR` (per
figure, computed when the module loads); for the figures termwise charges (area, access
energies, times: :data:`CHARGED`) it is at most :data:`FIT_ERROR_BOUND` (tested). With the
shipped data (16 x 16, 16 x 32, 64 x 32, 16 x 64; docs/sram.md: four shapes, three terms,
so the fit is checked by them) it is 4.6 % for area, 9.9 % read energy, 2.5 % write energy,
0.3 % access time, 2.4 % setup, 0 % minimum period; leakage (two terms, never charged:
docs/sram.md "Leakage") 42 %.
Outside the characterised range (:data:`CHARACTERISED_RANGE`) the fit extrapolates; the
``source`` text says so.

:func:`bank` puts macros side by side (``ceil(width / max_width)`` columns of equal width)
and stacks them (``ceil(words / max_words)`` rows): a row access reads or writes one macro
of each column; every macro leaks. Not modelled: the bank-select decoder and the output
multiplexer between stacked macros, the wiring between macros, their placement (docs/
sram.md, "What is not modelled").
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass

import numpy as np

from termwise.gen.errors import ConfigError
from termwise.gen.fields import MACRO_MAX_WIDTH, MACRO_MIN_WORDS

from .data import shapes as _shapes
from .scaling import AREA as _AREA, ENERGY as _ENERGY

__all__ = ["SramMacro", "SramBank", "macro", "bank", "FIT_ERROR", "FIT_ERROR_BOUND", "CHARGED",
           "FIT_COEFFICIENTS", "CHARACTERISED", "CHARACTERISED_RANGE", "BITCELL_UM2",
           "MIN_WORDS", "DEFAULT_MAX_WIDTH", "DEFAULT_MAX_WORDS"]

#: OpenRAM's smallest macro (16 words: its decoder needs 4 address bits) and termwise's
#: (:data:`termwise.gen.fields.MACRO_MIN_WORDS`, which the configurations check).
MIN_WORDS = MACRO_MIN_WORDS
#: The scn4m_subm 1RW bitcell's outline, 34 x 52 lambda = 6.8 x 10.4 um (OpenRAM 1.2.48
#: technology/scn4m_subm/mag_lib/cell_1rw.mag, ``<< bb >> rect 0 0 34 52``), scaled.
BITCELL_RAW_UM2 = 6.8 * 10.4
BITCELL_UM2 = BITCELL_RAW_UM2 * _AREA
#: The largest relative fit error allowed on a characterised shape (tests check it).
FIT_ERROR_BOUND = 0.25

_FIGURES = ("area_um2", "read_pj", "write_pj", "leakage_w", "access_ns", "min_period_ns",
            "setup_ns")
#: The figures termwise charges (every one but the leakage, docs/sram.md "Leakage"): the
#: ones :data:`FIT_ERROR_BOUND` holds for.
CHARGED = tuple(f for f in _FIGURES if f != "leakage_w")


@dataclass(frozen=True)
class SramMacro:
    """One single-port macro at 0.18 um / 1.8 V: ``read_pj`` / ``write_pj`` per access of
    the whole word (over a deselected clocked cycle), ``leakage_w`` the macro's static
    power as OpenRAM's SPICE netlist draws it with the clock stopped, scaled (an upper
    bound: in scn4m_subm it is a DC current, 10^4-10^5 x the published GF180MCU macro's
    leakage, docs/sram.md "Leakage"), ``clk_to_q_ns`` the access time from the clock's
    rising edge, ``min_period_ns`` the cycle time, ``setup_ns`` the inputs' setup time
    before the rising edge (the largest characterised ``setup_rising``), ``source`` where
    they come from."""
    words: int
    width: int
    area_um2: float
    read_pj: float
    write_pj: float
    leakage_w: float
    clk_to_q_ns: float
    min_period_ns: float
    setup_ns: float
    source: str


@dataclass(frozen=True)
class SramBank:
    """A buffer of ``words`` x ``width`` bits from ``columns`` x ``rows`` copies of
    ``macro``: ``read_pj`` / ``write_pj`` per row of the buffer (one macro per column),
    ``leakage_w`` of all macros, the timing of one macro."""
    words: int
    width: int
    macro: SramMacro
    columns: int
    rows: int
    area_um2: float
    read_pj: float
    write_pj: float
    leakage_w: float
    clk_to_q_ns: float
    min_period_ns: float
    source: str

    @property
    def macros(self) -> int:
        return self.columns * self.rows


def _features(figure: str, words, width) -> np.ndarray:
    n, w = np.asarray(words, float), np.asarray(width, float)
    one = np.ones_like(n * w)
    if figure == "area_um2":
        return np.stack([one, w, n], axis=-1)
    if figure in ("read_pj", "write_pj"):
        return np.stack([one, w, n * w], axis=-1)
    if figure == "leakage_w":
        return np.stack([one, w], axis=-1)
    return np.stack([one, n, w], axis=-1)


def _offset(figure: str, words, width):
    """The part of a figure that is not fitted: the bitcells' area."""
    if figure == "area_um2":
        return BITCELL_UM2 * np.asarray(words, float) * np.asarray(width, float)
    return 0.0


def _fit() -> tuple[dict, dict]:
    """Least-squares coefficients per figure and their largest relative error."""
    rows = _shapes()
    n = np.array([s["words"] for s in rows], float)
    w = np.array([s["width"] for s in rows], float)
    coef, err = {}, {}
    for fig in _FIGURES:
        y = np.array([s["scaled"][fig] for s in rows], float)
        a = _features(fig, n, w)
        c, *_ = np.linalg.lstsq(a, y - _offset(fig, n, w), rcond=None)
        pred = a @ c + _offset(fig, n, w)
        coef[fig] = tuple(float(x) for x in c)
        err[fig] = float(np.max(np.abs(pred - y) / np.abs(y)))
    return coef, err


#: The fitted coefficients per figure, in :func:`_features`' order.
FIT_COEFFICIENTS, FIT_ERROR = _fit()
#: The characterised shapes by (words, width), scaled figures.
CHARACTERISED = {(s["words"], s["width"]): s["scaled"] for s in _shapes()}
#: ((min words, max words), (min width, max width)) characterised.
CHARACTERISED_RANGE = ((min(k[0] for k in CHARACTERISED), max(k[0] for k in CHARACTERISED)),
                       (min(k[1] for k in CHARACTERISED), max(k[1] for k in CHARACTERISED)))
#: The widest and deepest macro a bank uses by default: the widest and deepest
#: characterised, so that a default bank is never extrapolated; pass ``max_width`` /
#: ``max_words`` for wider or deeper (extrapolated) macros (issue 41: 64-256 bits).
DEFAULT_MAX_WIDTH = CHARACTERISED_RANGE[1][1]
DEFAULT_MAX_WORDS = CHARACTERISED_RANGE[0][1]


def _count(field: str, value, least: int) -> int:
    """An integer of at least ``least`` (``operator.index``: no floats, no text)."""
    if isinstance(value, bool):
        raise ConfigError(field, f"must be an integer >= {least}, got {value!r}")
    try:
        n = operator.index(value)
    except TypeError:
        raise ConfigError(field, f"must be an integer >= {least}, got {value!r}") from None
    if n < least:
        raise ConfigError(field, f"must be >= {least}, got {n}")
    return n


def _predict(figure: str, words: int, width: int) -> float:
    a = _features(figure, words, width)
    return float(a @ np.array(FIT_COEFFICIENTS[figure]) + _offset(figure, words, width))


def macro(words, width) -> SramMacro:
    """One macro of ``words`` x ``width`` bits (``words`` >= 16, ``width`` >= 1).

    Raises
    ------
    ConfigError
        Naming ``words`` or ``width`` when not an integer in range.
    """
    words, width = _count("words", words, MIN_WORDS), _count("width", width, 1)
    if (words, width) in CHARACTERISED:
        f = dict(CHARACTERISED[(words, width)])
        source = (f"OpenRAM {words}x{width} scn4m_subm SPICE (ngspice), scaled to 0.18 um / "
                  f"1.8 V (x{_AREA:g} area, x{_ENERGY:g} energy)")
    else:
        f = {fig: _predict(fig, words, width) for fig in _FIGURES}
        (n0, n1), (w0, w1) = CHARACTERISED_RANGE
        inside = n0 <= words <= n1 and w0 <= width <= w1
        bad = [fig for fig in CHARGED if not f[fig] > 0]
        # the leakage is never charged (docs/sram.md): its two-term fit may cross zero
        # where the charged figures still hold; it is then taken as 0
        f["leakage_w"] = max(f["leakage_w"], 0.0)
        if bad:
            # A linear fit extrapolated far enough goes through zero: refuse, not invent.
            field = "words" if not n0 <= words <= n1 else "width"
            raise ConfigError(field, f"{words}x{width} is too far outside the characterised "
                                     f"{n0}-{n1} words x {w0}-{w1} bits: the fit gives "
                                     f"{', '.join(bad)} <= 0")
        source = (f"fit over {len(CHARACTERISED)} OpenRAM shapes (max error "
                  f"{max(FIT_ERROR[k] for k in CHARGED):.0%}), "
                  + ("interpolated" if inside else
                     f"extrapolated beyond {n0}-{n1} words x {w0}-{w1} bits"))
    return SramMacro(words, width, f["area_um2"], f["read_pj"], f["write_pj"], f["leakage_w"],
                     f["access_ns"], f["min_period_ns"], f["setup_ns"], source)


def bank(words, width, max_width=None, max_words=None) -> SramBank:
    """A ``words`` x ``width`` buffer of macros at most ``max_width`` bits wide and
    ``max_words`` deep (default :data:`DEFAULT_MAX_WIDTH`, :data:`DEFAULT_MAX_WORDS`):
    ``ceil(width / max_width)`` columns of equal width side by side,
    ``ceil(words / max_words)`` rows stacked (each macro ``ceil`` of the share).

    Raises
    ------
    ConfigError
        Naming the field when not an integer in range.
    """
    words, width = _count("words", words, MIN_WORDS), _count("width", width, 1)
    max_width = _count("max_width", DEFAULT_MAX_WIDTH if max_width is None else max_width, 1)
    max_words = _count("max_words", DEFAULT_MAX_WORDS if max_words is None else max_words,
                       MIN_WORDS)
    columns, rows = math.ceil(width / max_width), math.ceil(words / max_words)
    m = macro(max(MIN_WORDS, math.ceil(words / rows)), math.ceil(width / columns))
    n = columns * rows
    return SramBank(words, width, m, columns, rows, n * m.area_um2, columns * m.read_pj,
                    columns * m.write_pj, n * m.leakage_w, m.clk_to_q_ns, m.min_period_ns,
                    f"{columns} x {rows} macros of {m.words}x{m.width} ({m.source}); "
                    "no bank-select or wiring modelled")
