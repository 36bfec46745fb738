"""The one configuration object that drives RTL, golden models, testbenches and synthesis.

A :class:`TileConfig` is immutable. Every derived value (widths, names, peak throughput) is
computed here and nowhere else, so the generator, the golden model, the testbench and the
synthesis flow cannot drift apart; what differs between designs comes from each design's
spec (:mod:`termwise.gen.designs`). Validation happens when a configuration is made: an
impossible configuration raises :class:`ConfigError`, whose message is one line that names
the field and its valid range. This module imports only the spec layer
(:mod:`termwise.gen.spec`, :mod:`termwise.gen.designs`) and the modules beside it that it
is made of: :mod:`~termwise.gen.fields` (the fields, their ranges and checks),
:mod:`~termwise.gen.options` (design options), :mod:`~termwise.gen.runtime_registers`
(the command's registers) and :mod:`~termwise.gen.toml_io` (TOML files and presets), whose
public names it re-exports.

Semantics follow ``docs/papers.md``: a tile computes
``out[f][w] = sum_k act[w][k] * wgt[f][k]`` for ``filters`` filters and ``windows`` windows,
``k`` in bricks of ``lanes`` values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import designs
from .fields import (BUFFERS, CORE_FIELDS, MACRO_MIN_WORDS, MAX_PORT_BITS, MOVED_TO_RUNTIME,
                     PE_STAGE_GROUP,
                     PE_STAGE_MIN_PES, RANGES, check_int, clog2, fields_of,
                     with_dtype_fields)
from .options import option_value, resolve_options, unknown_option
from .runtime_registers import register_ranges, runtime_values
from .spec import ConfigError, DesignSpec
from .toml_io import load_presets, preset_table, read_config_table, to_toml

__all__ = [
    "ConfigError", "TileConfig", "load_presets", "preset", "from_toml", "from_mapping",
    "storage_variant",
    "with_dtype_fields", "to_toml", "clog2", "CORE_FIELDS",
    # defined beside this module (fields), importable from here as before
    "RANGES", "PE_STAGE_MIN_PES", "PE_STAGE_GROUP", "MOVED_TO_RUNTIME",
]


@dataclass(frozen=True, init=False)
class TileConfig:
    """One tile configuration.

    Parameters
    ----------
    arch : str
        A registered design (:func:`termwise.gen.designs.archs`).
    filters, windows, lanes : int
        Tile geometry: ``filters`` x ``windows`` processing elements, each ``lanes`` wide.
    act_bits, wgt_bits : int
        Storage width of activations and weights. Weights are two's complement; whether
        activations are two's complement or unsigned is a runtime register of each run
        (``act_signed``, see :meth:`runtime_values`), so one tile runs both kinds of layer.
    acc_bits : int or None
        Accumulator width; ``None`` derives the smallest width that cannot overflow for
        ``depth`` bricks (see :attr:`acc_bits_min`). Wider sums wrap modulo ``2**acc_bits``.
    depth : int
        Bricks held by the on-tile operand buffers: the longest inner product of one run is
        ``depth * lanes``.
    dtype : str
        ``int``, or a floating-point type a spec of ``arch`` implements (``bf16``).
    bias, residual, activation, out_bits
        The fused output stage (see rtl/output_stage.py).
    pe_stages : int or None
        Registers every PE input passes through (``rtl/pe_stage.py``: control and operands
        registered and replicated, one copy per :data:`PE_STAGE_GROUP` PEs), so that no
        broadcast reaches the whole array in one cycle. Each adds a cycle to every run.
        ``None`` derives it from the array size: 1 from :data:`PE_STAGE_MIN_PES` PEs on, else 0.
    buffers : str
        What the operand buffers are built from (:data:`termwise.gen.fields.BUFFERS`):
        ``flops`` (default), or ``macros``: single-port SRAM macros of at most
        :data:`~termwise.gen.fields.MACRO_MAX_WIDTH` bits side by side
        (:class:`termwise.rtl.buffer.SramMacro`; needs ``depth`` >= 16 and tile operand
        buffers, i.e. not Cnvlutin's or Bit-Tactical's own stores). Same cycles either way.
    clock_gating : bool
        Synthesis gates the clocks of the registers that hold (an ICG of OSU018 cells per
        enable, :mod:`termwise.synth.clock_gating`, docs/clock-gating.md). The RTL is the
        same but for its name (``_cg``), so every result of a gated tile is keyed apart.
    name : str or None
        The preset name this configuration came from, if any (informational).
    **options
        Design options (e.g. ``serial_bits``): only those the design's spec declares;
        missing ones take the spec's default. Read them as attributes (``cfg.serial_bits``),
        the design's own only: shared code uses :meth:`option`, which states the default of
        a design without the option (reading another design's option as an attribute
        raises AttributeError naming the option and the design).
    """

    arch: str
    filters: int
    windows: int
    lanes: int
    act_bits: int
    wgt_bits: int
    acc_bits: int | None = None
    depth: int = 64
    dtype: str = "int"
    bias: bool = False
    residual: bool = False
    activation: str = "none"
    out_bits: int | None = None
    pe_stages: int | None = None
    buffers: str = "flops"
    clock_gating: bool = False
    #: ``((name, value), ...)`` in the spec's order.
    options: tuple = ()
    name: str | None = field(default=None, compare=False)

    def __init__(self, arch, filters, windows, lanes, act_bits, wgt_bits,
                 acc_bits=None, depth=64, dtype="int", bias=False, residual=False,
                 activation="none", out_bits=None, pe_stages=None, buffers="flops",
                 clock_gating=False, name=None, **options):
        core = dict(arch=arch, filters=filters, windows=windows, lanes=lanes,
                    act_bits=act_bits, wgt_bits=wgt_bits,
                    acc_bits=acc_bits, depth=depth, dtype=dtype, bias=bias, residual=residual,
                    activation=activation, out_bits=out_bits, pe_stages=pe_stages,
                    buffers=buffers, clock_gating=clock_gating, name=name)
        for key, value in core.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "options", resolve_options(arch, dtype, options))
        self._validate()

    def __getattr__(self, item):
        # Design options read as attributes, only this design's: another design's option
        # is no field of this configuration, so a misplaced read should fail instead of
        # reading as a value the design never had (shared code states its default with
        # option()).
        if item.startswith("_"):
            raise AttributeError(item)
        for key, value in self.__dict__.get("options", ()):
            if key == item:
                return value
        raise unknown_option(self.__dict__.get("arch"), item)

    def option(self, name: str, *, default):
        """Design option ``name``, or ``default`` when this configuration's design does not
        declare it.

        For shared code that asks every design about an option, stating what a design
        without it means (e.g. ``cfg.option("encoding", default=None)``); a design's own
        code reads its options as attributes (``cfg.serial_bits``), which fails for an
        option the design does not have. A name no design declares raises AttributeError."""
        return option_value(self.arch, self.options, name, default)

    @property
    def has_fc_columns(self) -> bool:
        """Whether the tile has per-column weight registers (the ``fc_columns`` option,
        :mod:`termwise.rtl.column_weights`). False for a design that does not declare the
        option: it has no such registers. A property rather than ``cfg.option(...)`` at each
        use, since the tile, the array, the lowering, the testbench and the simulators all
        ask it of every design."""
        return bool(self.option("fc_columns", default=0))

    @property
    def spec(self) -> DesignSpec:
        """This configuration's design spec (:mod:`termwise.gen.designs`)."""
        return designs.spec(self)

    def _validate(self):
        for flag in ("bias", "residual", "clock_gating"):
            if not isinstance(getattr(self, flag), bool):
                raise ConfigError(flag, f"must be true or false, got {getattr(self, flag)!r}")
        if self.activation not in ("none", "relu", "relu6"):
            raise ConfigError("activation", f"must be none, relu or relu6, got "
                              f"{self.activation!r}")
        if self.out_bits is not None:
            check_int("out_bits", self.out_bits, 2, 32)
        if self.output_stage and self.dtype != "int":
            raise ConfigError("dtype", "the fused output stage (bias, residual, activation, "
                              "out_bits) needs dtype = int")
        for name in ("filters", "windows", "lanes", "act_bits", "wgt_bits", "depth"):
            check_int(name, getattr(self, name))
        if self.dtype == "int" and self.act_bits < 2:
            raise ConfigError("act_bits", "must be in 2..32 (runs may hold signed activations), "
                              "got 1")
        # Remember whether acc_bits was derived, so replace() derives it again.
        object.__setattr__(self, "_acc_derived", self.acc_bits is None)
        if self.acc_bits is None:
            object.__setattr__(self, "acc_bits", self.spec.implies.get("acc_bits",
                                                                       self.acc_bits_min))
        elif "acc_bits" not in self.spec.implies:      # a dtype's own width: its check
            check_int("acc_bits", self.acc_bits, self.brick_sum_bits, RANGES["acc_bits"][1])
        if self.acc_bits > RANGES["acc_bits"][1]:
            raise ConfigError("acc_bits", f"derived width {self.acc_bits} exceeds "
                              f"{RANGES['acc_bits'][1]}: reduce depth, lanes or operand bits")
        # Remember whether pe_stages was derived, so replace() and twin() derive it again.
        object.__setattr__(self, "_pe_stages_derived", self.pe_stages is None)
        if self.pe_stages is None:
            object.__setattr__(self, "pe_stages", int(self.pes >= PE_STAGE_MIN_PES))
        else:
            check_int("pe_stages", self.pe_stages)
        if self.has_fc_columns:
            if self.windows < 2:
                raise ConfigError("windows", "must be at least 2 with fc_columns = 1 (the "
                                  f"input bricks are dealt over the columns), got {self.windows}")
            if self.depth < self.windows:
                raise ConfigError("depth", f"must be at least windows ({self.windows}) with "
                                  "fc_columns = 1 (an fc round takes a weight row per "
                                  f"column), got {self.depth}")
        self._check_buffers()
        self._check_port_widths()
        if self.spec.check is not None:
            self.spec.check(self)

    def _check_port_widths(self):
        """Refuse a tile whose widest ports Amaranth cannot build: a row of the buffers and
        the array's accumulators are one port each, and Amaranth 0.5 makes no port of
        :data:`MAX_PORT_BITS` bits or more (its netlist numbers a cell's bits below 65,536
        and looks one past the last: the emission ends in an assertion, after minutes)."""
        for field, what, bits in (
                ("windows", "windows x lanes x act_bits (an activation row)", self.act_row_bits),
                ("filters", "filters x lanes x wgt_bits (a weight row)", self.wgt_row_bits),
                ("windows", "windows x filters x acc_bits (the accumulators)",
                 self.windows * self.filters * self.acc_bits)):
            if bits >= MAX_PORT_BITS:
                raise ConfigError(field, f"{what} is {bits:,} bits; the RTL builds it as one "
                                  f"port and Amaranth's limit is {MAX_PORT_BITS - 1:,}")
        # The tile's input ports are one cell of Amaranth's netlist, so the two rows together
        # meet the same limit (32 filters x 32 windows x 64 lanes at 16 bits, 65,536 bits:
        # accepted before, then an assertion after 12 s of emission).
        rows = self.act_row_bits + self.wgt_row_bits
        if rows >= MAX_PORT_BITS:
            raise ConfigError("lanes", f"an activation row and a weight row are {rows:,} bits "
                              "together, the tile's inputs in one Amaranth cell; the limit "
                              f"is {MAX_PORT_BITS - 1:,}")

    def _check_buffers(self):
        if self.buffers not in BUFFERS:
            raise ConfigError("buffers", f"must be one of {', '.join(BUFFERS)}, got "
                              f"{self.buffers!r}")
        if self.buffers != "macros":
            return
        if self.spec.own_stores is not None:
            raise ConfigError("buffers", f"{self.arch} keeps its operands in stores of its "
                              f"own ({self.spec.own_stores}), not in SRAM macros: use flops")
        if self.depth < MACRO_MIN_WORDS:
            raise ConfigError("depth", f"must be at least {MACRO_MIN_WORDS} with buffers = "
                              f"macros (the smallest SRAM macro), got {self.depth}")

    # ---- derived values: computed here and only here --------------------------------------
    @property
    def product_bits(self) -> int:
        """Signed width of one product act * wgt (an unsigned A-bit activation times a signed
        B-bit weight also fits in A + B signed bits)."""
        return self.act_bits + self.wgt_bits

    @property
    def brick_sum_bits(self) -> int:
        """Signed width of one brick's dot product (``lanes`` products summed)."""
        return self.act_bits + self.wgt_bits + clog2(self.lanes)

    @property
    def acc_bits_min(self) -> int:
        """Smallest accumulator width that never overflows for ``depth`` bricks."""
        return self.act_bits + self.wgt_bits + clog2(self.lanes * self.depth)

    @property
    def top_name(self) -> str:
        """Verilog name of the tile: the configuration spelled out, so files never collide."""
        options = "".join(f"_{opt.short}{v}" for opt, v in
                          ((self.spec.option(k), v) for k, v in self.options)
                          if opt.named_at_default or v != opt.default)
        if self.dtype != "int":
            options += f"_{self.dtype}"
        if self.output_stage:
            options += ("_o" + ("b" if self.bias else "") + ("r" if self.residual else "")
                        + {"none": "", "relu": "relu", "relu6": "relu6"}[self.activation]
                        + (f"q{self.out_bits}" if self.out_bits else ""))
        if self.pe_stages:
            options += f"_ps{self.pe_stages}"
        if self.buffers == "macros":
            options += "_sram"
        if self.clock_gating:
            options += "_cg"
        return (f"termwise_{self.arch}_f{self.filters}w{self.windows}l{self.lanes}"
                f"_a{self.act_bits}w{self.wgt_bits}_acc{self.acc_bits}_d{self.depth}"
                f"{options}")

    @property
    def pes(self) -> int:
        return self.filters * self.windows

    @property
    def runtime(self) -> tuple:
        """Runtime registers the command carries for this design (``precision``,
        ``wgt_precision``, ...; ``act_signed`` on every integer tile)."""
        return ((("act_signed",) if self.dtype == "int" else ()) + self.spec.runtime
                + (("fc",) if self.has_fc_columns else ()))

    @property
    def fc_rounds(self) -> int:
        """With ``fc_columns``: the most rounds (rows of ``windows`` input bricks) one fc
        run holds, each round taking ``windows`` weight rows of the ``depth``-row buffer."""
        return self.depth // self.windows

    def worst_brick_cycles(self, precision: int) -> int:
        """Cycles a brick takes in the worst case with ``precision``-bit operands (the
        basis of peak throughput): the design's ``worst_step_cycles``."""
        return self.spec.worst_step_cycles(self, precision)

    @property
    def output_stage(self) -> bool:
        """Whether the tile has a fused output stage (see rtl/output_stage.py)."""
        return (self.bias or self.residual or self.activation != "none"
                or self.out_bits is not None)

    @property
    def output_latency(self) -> int:
        """Registers an output row passes through in the pipelined fused output stage
        (rtl/output_stage.py): the sum, with ``out_bits`` the requantisation's two half
        products, their sum and the shifted floor with its rounding flags, and the result;
        0 without a stage. A run's first result comes that many cycles later."""
        if not self.output_stage:
            return 0
        return 5 if self.out_bits else 2

    @property
    def pipeline_latency(self) -> int:
        """Cycles a run takes beyond its design's cycle model (``RUN_OVERHEAD`` and steps):
        the PE input stages (``pe_stages``: the PEs see everything that many cycles late)
        and the fused output stage (:attr:`output_latency`)."""
        return self.pe_stages + self.output_latency

    @property
    def out_value_bits(self) -> int:
        """Width of one output value: ``out_bits`` after requantisation, else ``acc_bits``."""
        return self.out_bits or self.acc_bits

    @property
    def act_row_bits(self) -> int:
        """One activation buffer row: a brick for every window."""
        return self.windows * self.lanes * self.act_bits

    @property
    def wgt_row_bits(self) -> int:
        """One weight buffer row: a brick for every filter."""
        return self.filters * self.lanes * self.wgt_bits

    @property
    def out_row_bits(self) -> int:
        """One output row: one value per filter, for one window."""
        return self.filters * self.out_value_bits

    def peak_macs_per_cycle(self, precision: int = 16) -> float:
        """Peak (worst-case, dense) multiply-accumulates per cycle with ``precision``-bit
        operands."""
        return self.filters * self.windows * self.lanes / self.worst_brick_cycles(precision)

    def check_precision(self, precision: int) -> int:
        """Validate a runtime activation precision against this datapath."""
        return check_int("precision", precision, *self.register_ranges()["precision"])

    def register_ranges(self) -> dict:
        """The legal values ``(lo, hi)`` of every field of this tile's command: the run
        length ``bricks`` (outside an fc run) and each runtime register, as
        :meth:`runtime_values` accepts them (``act_signed`` and ``fc`` as 0..1). A field
        may be wider than its range (a precision's can say 0, or more bits than the
        datapath has): what the tile does then is the tile's promise (``rtl/tile.py``),
        which the golden models state (:mod:`termwise.golden.registers`)."""
        return register_ranges(self)

    def runtime_values(self, precision: int | None = None, wgt_precision: int | None = None,
                       *, act_signed: bool | None = None, restart: int | None = None,
                       multiplier: int | None = None, shift: int | None = None,
                       cap: int | None = None, fc: bool | None = None) -> dict:
        """The runtime registers of one run, validated. Defaults: full precisions, signed
        (two's complement) activations; a design with per-window ``restart`` bits (Diffy)
        restarts window 0 only (1); for the output stage a scale of 1 (multiplier 1,
        shift 0) and the largest cap.

        ``act_signed`` says how the run's ``act_bits``-bit activations are read: two's
        complement, or unsigned (``0 .. 2**act_bits - 1``, e.g. after a ReLU), so that
        precision detectors and serial PEs spend no bit on a sign that is always 0. Every
        integer design has it; a bf16 tile has no such register.

        ``fc`` (only with the ``fc_columns`` option, default False): the run is a
        fully-connected one whose input bricks are dealt over the window columns, each
        column with its own weights (:func:`termwise.golden.lowering.lower_fc_columns`)."""
        return runtime_values(self, precision, wgt_precision, act_signed=act_signed,
                              restart=restart, multiplier=multiplier, shift=shift, cap=cap,
                              fc=fc)

    def derived(self) -> dict[str, Any]:
        """Every derived value, for the manifest and the reports."""
        return {
            "top_name": self.top_name,
            "pes": self.pes,
            "product_bits": self.product_bits,
            "brick_sum_bits": self.brick_sum_bits,
            "acc_bits_min": self.acc_bits_min,
            "act_row_bits": self.act_row_bits,
            "wgt_row_bits": self.wgt_row_bits,
            "out_row_bits": self.out_row_bits,
            "output_stage": self.output_stage,
            **({"output_latency": self.output_latency} if self.output_stage else {}),
            "out_value_bits": self.out_value_bits,
            "pe_stages": self.pe_stages,
            "pe_stages_derived": self._pe_stages_derived,
            "pe_stage_group": PE_STAGE_GROUP,
            "pipeline_latency": self.pipeline_latency,
            "max_k": self.depth * self.lanes,
            "runtime": list(self.runtime),
            "peak_macs_per_cycle_at_16b": self.peak_macs_per_cycle(16),
            "peak_macs_per_cycle_at_act_bits": self.peak_macs_per_cycle(self.act_bits),
            **(self.spec.derived(self) if self.spec.derived else {}),
        }

    def to_dict(self) -> dict[str, Any]:
        """The full configuration as plain data (round-trips through :func:`from_mapping`)."""
        d = {k: getattr(self, k) for k in CORE_FIELDS[:CORE_FIELDS.index("dtype")]}
        d.update(self.options)
        for key, default in (("dtype", "int"), ("bias", False), ("residual", False),
                             ("activation", "none"), ("out_bits", None), ("buffers", "flops"),
                             ("clock_gating", False)):
            if getattr(self, key) != default:
                d[key] = getattr(self, key)
        if not self._pe_stages_derived:
            d["pe_stages"] = self.pe_stages
        return {k: v for k, v in d.items() if v is not None}

    def twin(self, arch: str, **changes) -> "TileConfig":
        """The configuration of ``arch`` that shares this one's geometry, widths, depth and
        every design option both archs have (e.g. the Bit-Pragmatic datapath inside a Diffy
        tile), with ``changes`` on top. Options ``arch`` does not have are dropped, so a
        twin never needs its fields copied by hand."""
        target = designs.lookup(arch, changes.get("dtype", "int"))
        fields = {k: v for k, v in self.to_dict().items()
                  if k in CORE_FIELDS or (target and target.option(k))}
        fields.update(arch=arch, **changes)
        if self._acc_derived and "acc_bits" not in changes:
            fields["acc_bits"] = None
        return TileConfig(**fields)

    def replace(self, **changes) -> "TileConfig":
        """A copy with ``changes``; a derived ``acc_bits`` is derived again."""
        fields = self.to_dict()
        if self._acc_derived:
            fields["acc_bits"] = None
        fields.update(changes)
        fields.setdefault("name", self.name)
        return TileConfig(**fields)


def storage_variant(cfg: TileConfig, buffers: str, clock_gating: bool) -> TileConfig:
    """``cfg`` with its operand buffers as ``buffers`` and ``clock_gating`` set, where the
    configuration allows them: ``macros`` stay ``flops`` for a design that keeps operands in
    stores of its own or a buffer shallower than the smallest macro (each report row says
    how its tile stores). ``ConfigError`` on an unknown ``buffers``."""
    if buffers not in BUFFERS:
        raise ConfigError("buffers", f"must be one of {', '.join(BUFFERS)}, got {buffers!r}")
    if buffers == "macros" and (cfg.spec.own_stores is not None
                                or cfg.depth < MACRO_MIN_WORDS):
        buffers = "flops"
    return cfg.replace(buffers=buffers, clock_gating=bool(clock_gating))


def from_mapping(mapping: dict[str, Any], *, name: str | None = None) -> TileConfig:
    """Build a configuration from a mapping (a TOML table), rejecting unknown fields."""
    known = fields_of(mapping.get("arch"))
    everything = fields_of(None)
    for key in mapping:
        if key in MOVED_TO_RUNTIME:
            raise ConfigError(key, MOVED_TO_RUNTIME[key])
        if key not in everything:
            raise ConfigError(key, f"unknown field (valid fields: {', '.join(sorted(known))})")
    mapping = with_dtype_fields(mapping)
    missing = [f for f in ("arch", "filters", "windows", "lanes", "act_bits", "wgt_bits")
               if f not in mapping]
    if missing:
        raise ConfigError(missing[0], "is required")
    return TileConfig(**mapping, name=name)


def from_toml(path: str) -> TileConfig:
    """Read a configuration file: a TOML table with the :class:`TileConfig` fields (at the
    top level or as the only table ``[tile]``)."""
    return from_mapping(read_config_table(path))


def preset(name: str) -> TileConfig:
    """The configuration of preset ``name`` (``gen/presets.toml``)."""
    return from_mapping(preset_table(name), name=name)
