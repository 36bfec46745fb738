"""What a design declares about itself: :class:`DesignSpec`, its :class:`Option` s and its
:class:`Testbench`.

Each design has one spec module in :mod:`termwise.gen.designs` (``gen/designs/<name>.py``)
that builds a :class:`DesignSpec`; the registry there collects them. Everything shared --
configuration validation, the command line, the network simulator, the ideal-work model,
the synthesis area table, the testbench choice and the regression lists -- loops over the
registry and never branches on a design's name. This module imports nothing else of the
project, so every layer (rtl, golden, tb, synth) may depend on it.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Callable

from .errors import ConfigError   # defined below every layer (gen/errors.py); re-exported

__all__ = ["ConfigError", "Option", "Testbench", "Regression", "PaperClaim", "StuckAt",
           "FormalSpec", "TuneAxis", "DesignSpec"]


@dataclass(frozen=True)
class Option:
    """A design option: a configuration field only the designs that declare it accept.

    Parameters
    ----------
    name : str
        The field name (``TileConfig`` attribute, TOML key, ``--name`` on the command line
        with ``_`` written ``-``).
    default :
        The value when the configuration does not give one.
    valid : tuple
        Every accepted value (integers or strings, one type).
    short : str
        Prefix of the value in the tile's Verilog name (``s`` gives ``_s2`` for 2).
    help : str
        One line for ``--help``.
    named_at_default : bool
        Whether the Verilog name shows the option at its default value (False for an
        option that adds hardware only when set, so that a tile without it keeps its name).
    """

    name: str
    default: Any
    valid: tuple
    short: str = ""
    help: str = ""
    named_at_default: bool = True

    def __post_init__(self):
        if self.default not in self.valid:
            raise ValueError(f"option {self.name}: default {self.default!r} not in {self.valid}")
        if len({type(v) for v in self.valid}) != 1:
            raise ValueError(f"option {self.name}: valid values must share one type")

    @property
    def type(self) -> type:
        """``int`` or ``str``: the type of every valid value."""
        return type(self.valid[0])

    def shown(self) -> str:
        """The valid values as an error message shows them (``0..4`` when contiguous)."""
        v = self.valid
        if self.type is int and list(v) == list(range(v[0], v[-1] + 1)):
            return f"{v[0]}..{v[-1]}"
        return ", ".join(map(str, v))


@dataclass(frozen=True)
class Testbench:
    """A cocotb test module and the suites it runs for a configuration.

    Attributes
    ----------
    module : str
        Dotted name of the cocotb test module.
    suites : tuple of str
        Every suite the module runs for this configuration.
    default : tuple of str
        The suites of a normal regression (``termwise demo``, ``termwise verify``).
    """

    module: str
    suites: tuple
    default: tuple

    def check_suites(self, names) -> tuple:
        """``names`` validated against :attr:`suites` (``ValueError`` naming the valid ones)."""
        names = tuple(dict.fromkeys(names))
        if not names:
            raise ValueError(f"give one or more of {', '.join(self.suites)}")
        for name in names:
            if name not in self.suites:
                raise ValueError(f"unknown suite {name!r} for this configuration (valid: "
                                 f"{', '.join(self.suites)})")
        return names


@dataclass(frozen=True)
class Regression:
    """One configuration the test suite regresses: a preset with changes, and its suites
    (``None``: the testbench's default). ``slow`` ones run in ``make test-all`` only."""

    preset: str
    changes: dict = field(default_factory=dict)
    suites: tuple | None = None
    slow: bool = False

    @property
    def id(self) -> str:
        return self.preset + "".join(f"-{k}={v}" for k, v in self.changes.items())


@dataclass(frozen=True)
class PaperClaim:
    """What a design's paper reports, to print beside termwise's own figures
    (docs/papers.md#headline-figures: the abstracts' figures, on the papers' own benchmarks,
    baselines and technology; termwise reproduces the models, not these numbers).

    Parameters
    ----------
    source : str
        The paper (authors, venue) and where the figure is stated.
    speedup : float or None
        The headline speedup over the paper's bit-parallel baseline, when it states one
        number against that baseline; None when its figure is relative to something else.
    speedup_text : str
        The paper's performance claim in words (ranges, the reference design).
    energy_efficiency : float or None
        The headline energy efficiency over that baseline (its energy / the design's), when
        the paper states one in termwise's sources.
    energy_text : str
        The energy claim in words, or why there is none here.
    area_text : str
        The area claim in words ("" when the sources state none).
    why_different : str
        What in the paper's setting, beyond the workload, precisions and technology every
        row differs in, makes termwise's figure differ (e.g. pruned networks for
        Bit-Tactical).
    """

    source: str
    speedup: float | None
    speedup_text: str
    energy_efficiency: float | None = None
    energy_text: str = "no energy figure in termwise's sources (docs/papers.md)"
    area_text: str = ""
    why_different: str = ""

    def __post_init__(self):
        for name in ("speedup", "energy_efficiency"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and v > 0):
                raise ValueError(f"PaperClaim.{name} must be a positive number or None, "
                                 f"got {v!r}")


@dataclass(frozen=True)
class StuckAt:
    """A fault for a proof that must fail: bit ``bit`` of input ``port`` of PE instance
    ``instance`` stuck at 0 (``port`` "": the PE's first input).
    :class:`termwise.tb.formal.FaultyLibrary` injects it."""

    instance: str = "pe_f0_w0"
    port: str = ""
    bit: int = 0


@dataclass(frozen=True)
class FormalSpec:
    """What the formal proofs (:mod:`termwise.tb.formal`) know of a design.

    Parameters
    ----------
    fault : StuckAt or callable(cfg) -> StuckAt, optional
        The PE input bit a deliberately broken array loses (a lane's activation or weight
        bit, or a sign): the proof of that array must fail, so that no proof passes
        vacuously. A callable for a design whose PEs depend on an option (Bit-Tactical's
        back end). :meth:`fault_for` reads it.
    act_precision : bool
        The design multiplies only the ``precision`` least significant bits of each
        activation (two's complement from bit ``precision - 1`` in a signed run; Stripes'
        runtime register). The shared harness's reference narrows the activations so.
        Written from the paper's semantics, not read from the golden model, so the proof
        checks both (tests/formal compares it with the golden ``effective_operands``).
    wgt_precision : bool
        The same for the ``wgt_precision`` least significant bits of each weight, always
        two's complement (Loom's weight precision register).
    module : str, optional
        Dotted name of the design's own formal module (``termwise.tb.<arch>_formal``), for
        what the shared harness does not cover. It may define either or both of
        ``harness(cfg, case, library, worst_step)``: the design's harness, which
        :func:`termwise.tb.formal.harness_for` builds (an array that owns its operands
        needs one); ``worst_step_cycles(cfg)``: the costliest step of the cycle bound, when
        enumerating one brick of each operand is not it (Diffy's deltas read two windows).
        A design with a module is proven by a test of its own
        (``tests/formal/test_<arch>_proof.py``); one without, by
        ``tests/formal/test_array_proofs.py`` with the shared harness.
    two_bricks : bool
        ``tests/formal/test_array_proofs.py`` proves runs of two bricks too (brick-to-brick
        pipelining; ``slow``).
    """

    fault: Any = None
    act_precision: bool = False
    wgt_precision: bool = False
    module: str | None = None
    two_bricks: bool = False

    def fault_for(self, cfg) -> StuckAt | None:
        """The fault of ``cfg``'s broken array (:attr:`fault`, called when callable)."""
        return self.fault(cfg) if callable(self.fault) else self.fault


@dataclass(frozen=True)
class TuneAxis:
    """One axis of the option grid ``termwise tune`` tries around a design's preset.

    Parameters
    ----------
    name : str
        What the axis varies, as tune.md names it (``first_stage_bits``, ``connectivity``).
    points : dict
        Label (as tune.md shows it) -> the option changes of that point, e.g.
        ``{"column (2 registers)": {"sync": "column", "column_registers": 2}}``.
    """

    name: str
    points: dict

    def __post_init__(self):
        if not (self.points and all(isinstance(k, str) and isinstance(v, dict) and v
                                    for k, v in self.points.items())):
            raise ValueError(f"tune axis {self.name}: points must map labels to option "
                             f"changes, got {self.points!r}")


@dataclass(frozen=True)
class DesignSpec:
    """Everything the shared code needs to know about one design.

    Parameters
    ----------
    arch : str
        The configuration's ``arch``.
    description : str
        One line: the design and its paper.
    order : int
        Position in listings (``termwise sim --arch all``, help texts): the family's order.
    dtype : str
        The operand type this spec implements (``int``, or e.g. ``bf16`` for a floating-point
        variant of an arch: the pair (arch, dtype) names a spec).
    options : tuple of Option
        The design options, in the order they appear in the tile's Verilog name.
    runtime : tuple of str
        Runtime registers the command carries (``precision``, ``wgt_precision``, ...).
    worst_step_cycles : callable(cfg, precision) -> int
        Cycles one step (a brick of every window and filter) takes in the worst case with
        ``precision``-bit operands: the basis of peak throughput.
    check : callable(cfg) -> None, optional
        Cross-field validation; raises :class:`ConfigError`.
    implies : dict
        Fields the dtype fixes (e.g. bf16: 16-bit operands, 32-bit accumulators).
    rtl : str
        Module of :mod:`termwise.rtl` whose ``ARRAY`` is the PE array.
    golden : str
        Module of :mod:`termwise.golden.arch` with the golden functional and cycle model.
    testbench : callable(cfg) -> Testbench
        The cocotb testbench that regresses a configuration of this design.
    regressions : tuple of Regression
        What the test suite regresses in RTL.
    area_kinds : tuple of (regex, kind, what)
        Area-kind patterns for this design's own modules (see :mod:`termwise.synth.kinds`).
    sim_designs : dict
        ``termwise sim`` design name -> ``{hardware width in bits: preset}``: the design's
        equal-peak-throughput preset for workloads of that fixed-point width (e.g.
        ``{"stripes": {16: "stripes-16x16", 8: "stripes-16x16-8b"}}``). Every preset of a
        width has the same peak (256 MAC/cycle at that width) as the baseline's of that
        width, the reference its speedups divide by; an 8-bit workload runs on the 8-bit
        presets, so a speedup is never the width ratio of data and hardware.
    derived : callable(cfg) -> dict, optional
        The design's own derived values (e.g. a pipeline's depth), added to
        :meth:`termwise.gen.config.TileConfig.derived` and so to the manifest.
    papers : dict
        ``termwise sim`` design name -> :class:`PaperClaim`: what the design's paper
        reports, printed beside termwise's figures by ``termwise report``.
    formal : FormalSpec, optional
        What the formal proofs know of the design (its fault, precision semantics and own
        harness module); None: not formally proven by the array proofs (e.g. bf16, whose
        arithmetic :mod:`termwise.tb.fp_proof` proves).
    tune_variants : dict
        ``termwise sim`` design name -> the option grid ``termwise tune`` tries around its
        equal-peak preset (:mod:`termwise.gen.flows.tune.space`): a tuple of
        :class:`TuneAxis`; the candidates are the axes' cartesian product, each brought
        back to the preset's peak by its ``windows``. A design without one is tuned on its
        preset alone.
    own_stores : str or None
        What the design keeps its operands in when its array owns them (the array's
        ``OWNS_OPERANDS``: no tile operand buffers), in words for the error that refuses
        ``buffers = macros`` for it; None: the tile's operand buffers hold them.
    """

    arch: str
    description: str
    order: int
    worst_step_cycles: Callable[[Any, int], int]
    rtl: str
    golden: str
    testbench: Callable[[Any], Testbench]
    dtype: str = "int"
    options: tuple = ()
    runtime: tuple = ()
    check: Callable[[Any], None] | None = None
    implies: dict = field(default_factory=dict)
    regressions: tuple = ()
    area_kinds: tuple = ()
    sim_designs: dict = field(default_factory=dict)
    derived: Callable[[Any], dict] | None = None
    papers: dict = field(default_factory=dict)
    formal: FormalSpec | None = None
    tune_variants: dict = field(default_factory=dict)
    own_stores: str | None = None

    def __post_init__(self):
        operator.index(self.order)
        names = [o.name for o in self.options]
        if len(set(names)) != len(names):
            raise ValueError(f"design {self.arch}: an option is declared twice")
        for design, by_bits in self.sim_designs.items():
            if not (isinstance(by_bits, dict) and by_bits
                    and all(isinstance(b, int) and not isinstance(b, bool) and b > 0
                            and isinstance(p, str) for b, p in by_bits.items())):
                raise ValueError(f"design {self.arch}: sim_designs[{design!r}] must map "
                                 f"hardware widths (bits) to preset names, got {by_bits!r}")
        for design, claim in self.papers.items():
            if design not in self.sim_designs or not isinstance(claim, PaperClaim):
                raise ValueError(f"design {self.arch}: papers[{design!r}] must be a "
                                 "PaperClaim of one of its sim_designs")
        for design, axes in self.tune_variants.items():
            if design not in self.sim_designs or not (
                    isinstance(axes, tuple) and all(
                        isinstance(axis, TuneAxis)
                        and all(set(c) <= set(names) for c in axis.points.values())
                        for axis in axes)):
                raise ValueError(f"design {self.arch}: tune_variants[{design!r}] must be a "
                                 "tuple of TuneAxis changing its own options, of one of "
                                 "its sim_designs")
        if self.formal is not None and not isinstance(self.formal, FormalSpec):
            raise ValueError(f"design {self.arch}: formal must be a FormalSpec, got "
                             f"{self.formal!r}")

    @property
    def key(self) -> tuple:
        return (self.arch, self.dtype)

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)
