"""The one configuration object that drives RTL, golden models, testbenches and synthesis.

A :class:`TileConfig` is immutable. Every derived value (widths, names, peak throughput) is
computed here and nowhere else, so the generator, the golden model, the testbench and the
synthesis flow cannot drift apart. Validation happens in :meth:`TileConfig.__post_init__`:
an impossible configuration raises :class:`ConfigError`, whose message is one line that
names the field and its valid range.

Semantics follow ``docs/papers.md``: a tile computes
``out[f][w] = sum_k act[w][k] * wgt[f][k]`` for ``filters`` filters and ``windows`` windows,
``k`` in bricks of ``lanes`` values.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

__all__ = [
    "Arch", "ARCHS", "OPTIONS", "DTYPE_FIELDS", "ConfigError", "TileConfig", "load_presets",
    "preset", "from_toml", "from_mapping", "with_dtype_fields", "to_toml",
]

@dataclass(frozen=True)
class Arch:
    """What one architecture is: its description, its design options (name -> (default,
    valid values)) and the runtime registers its command carries."""

    description: str
    options: dict = field(default_factory=dict)
    runtime: tuple = ()


#: Architectures this generator knows. Options not listed for an arch are rejected for it.
ARCHS = {
    "baseline": Arch("bit-parallel DaDianNao-like tile: one brick per filter per window per "
                     "cycle"),
    "stripes": Arch("Stripes (MICRO 2016): activations bit-serial at a runtime precision P",
                    runtime=("precision",)),
    "dstripes": Arch("Dynamic Stripes (arXiv 1706.00504): bit-serial at the precision detected "
                     "per step"),
    "loom": Arch("Loom (DAC 2018): weights bit-serial at a runtime precision Pw, activations "
                 "serial_bits at a time at the detected precision",
                 options={"serial_bits": (1, (1, 2, 4))}, runtime=("wgt_precision",)),
    "pragmatic": Arch("Bit-Pragmatic (MICRO 2017): only the activations' non-zero terms, "
                      "two-stage shifting",
                      options={"first_stage_bits": (2, (0, 1, 2, 3, 4)),
                               "encoding": ("plain", ("plain", "booth")),
                               "sync": ("pallet", ("pallet", "column")),
                               "column_registers": (0, tuple(range(0, 9)))}),
    "laconic": Arch("Laconic (ISCA 2019): Booth terms of weights and activations, one term "
                    "pair per lane per cycle",
                    options={"encoding": ("booth", ("booth",))}),
    "cnvlutin": Arch("Cnvlutin (ISCA 2016): zero activations skipped, zero-free bricks with "
                     "offsets, decoupled lanes"),
    "tactical": Arch("Bit-Tactical (ASPLOS 2019): zero weights skipped by an offline schedule "
                     "within a lookahead/lookaside window; TCLp or TCLe back end",
                     options={"backend": ("tclp", ("tclp", "tcle")),
                              "shape": ("T", ("T", "L")),
                              "lookahead": (2, (1, 2, 3, 4)),
                              "lookaside": (5, tuple(range(0, 8))),
                              "first_stage_bits": (2, (0, 1, 2, 3, 4)),
                              "encoding": ("booth", ("plain", "booth"))}),
    "diffy": Arch("Diffy (MICRO 2018): differential convolution along x, Booth-encoded deltas "
                  "on the Bit-Pragmatic datapath, with a reconstruction unit",
                  options={"first_stage_bits": (2, (0, 1, 2, 3, 4)),
                           "delta_source": ("on_the_fly", ("on_the_fly", "stored"))},
                  runtime=("restart",)),
}

#: Every design option of any arch (fields of :class:`TileConfig`, ``None`` = arch default).
OPTIONS = ("serial_bits", "first_stage_bits", "encoding", "sync", "column_registers",
           "backend", "shape", "lookahead", "lookaside", "delta_source")

#: Fields a data type fixes: a bf16 tile has 16-bit operands and fp32 (32-bit) accumulators,
#: so naming the type is enough and nobody has to spell out its only valid widths.
DTYPE_FIELDS = {
    "int": {},
    "bf16": {"act_bits": 16, "wgt_bits": 16, "acc_bits": 32},
}


def with_dtype_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` plus the values its ``dtype`` implies, where ``fields`` does not give them
    (a value that is given is kept, and validated by :class:`TileConfig`)."""
    implied = DTYPE_FIELDS.get(fields.get("dtype"), {})
    return {**{k: v for k, v in implied.items() if fields.get(k) is None}, **fields}


#: Valid ranges of the integer fields (inclusive).
RANGES = {
    "filters": (1, 64),
    "windows": (1, 64),
    "lanes": (1, 64),
    "act_bits": (1, 32),
    "wgt_bits": (1, 32),
    "acc_bits": (2, 96),
    "depth": (1, 4096),
}


class ConfigError(ValueError):
    """A configuration value is invalid; ``str(err)`` is a one-line, user-facing message."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


def _check_int(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    lo, hi = (lo, hi) if lo is not None else RANGES[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(name, f"must be an integer in {lo}..{hi}, got {value!r}")
    if not lo <= value <= hi:
        raise ConfigError(name, f"must be in {lo}..{hi}, got {value}")
    return value


def clog2(n: int) -> int:
    """Bits needed to count ``n`` distinct things (ceil(log2(n)), 0 for n <= 1)."""
    return max(0, math.ceil(math.log2(n))) if n > 1 else 0


@dataclass(frozen=True)
class TileConfig:
    """One tile configuration.

    Parameters
    ----------
    arch : str
        One of :data:`ARCHS`.
    filters, windows, lanes : int
        Tile geometry: ``filters`` x ``windows`` processing elements, each ``lanes`` wide.
    act_bits, wgt_bits : int
        Storage width of activations and weights. Weights are two's complement.
    act_signed : bool
        Activations in two's complement (True) or unsigned (False).
    acc_bits : int or None
        Accumulator width; ``None`` derives the smallest width that cannot overflow for
        ``depth`` bricks (see :attr:`acc_bits_min`). Wider sums wrap modulo ``2**acc_bits``.
    depth : int
        Bricks held by the on-tile operand buffers: the longest inner product of one run is
        ``depth * lanes``.
    name : str or None
        The preset name this configuration came from, if any (informational).
    """

    arch: str
    filters: int
    windows: int
    lanes: int
    act_bits: int
    wgt_bits: int
    act_signed: bool = True
    acc_bits: int | None = None
    depth: int = 64
    serial_bits: int | None = None
    first_stage_bits: int | None = None
    encoding: str | None = None
    sync: str | None = None
    column_registers: int | None = None
    backend: str | None = None
    shape: str | None = None
    lookahead: int | None = None
    lookaside: int | None = None
    delta_source: str | None = None
    dtype: str = "int"
    bias: bool = False
    residual: bool = False
    activation: str = "none"
    out_bits: int | None = None
    name: str | None = field(default=None, compare=False)

    def __post_init__(self):
        if self.arch not in ARCHS:
            raise ConfigError("arch", f"must be one of {', '.join(ARCHS)}, got {self.arch!r}")
        arch = ARCHS[self.arch]
        for option in OPTIONS:
            value = getattr(self, option)
            if option not in arch.options:
                if value is not None:
                    users = [a for a, spec in ARCHS.items() if option in spec.options]
                    raise ConfigError(option, f"applies only to arch {', '.join(users)}, "
                                      f"not {self.arch}")
                continue
            default, valid = arch.options[option]
            if value is None:
                object.__setattr__(self, option, default)
            elif isinstance(value, bool) or value not in valid:
                contiguous = all(isinstance(v, int) for v in valid) and \
                    list(valid) == list(range(valid[0], valid[-1] + 1))
                shown = f"{valid[0]}..{valid[-1]}" if contiguous else ", ".join(map(str, valid))
                raise ConfigError(option, f"must be one of {shown} for {self.arch}, "
                                  f"got {value!r}")
        if self.dtype not in DTYPE_FIELDS:
            raise ConfigError("dtype", f"must be int or bf16, got {self.dtype!r}")
        if self.dtype == "bf16":
            if self.arch != "baseline":
                raise ConfigError("dtype", f"bf16 applies only to arch baseline, not {self.arch}")
            if (self.act_bits, self.wgt_bits) != (16, 16) or self.acc_bits not in (None, 32):
                raise ConfigError("dtype", "bf16 needs act_bits = wgt_bits = 16 and "
                                  "acc_bits = 32 (fp32 accumulation)")
        for flag in ("bias", "residual"):
            if not isinstance(getattr(self, flag), bool):
                raise ConfigError(flag, f"must be true or false, got {getattr(self, flag)!r}")
        if self.activation not in ("none", "relu", "relu6"):
            raise ConfigError("activation", f"must be none, relu or relu6, got "
                              f"{self.activation!r}")
        if self.out_bits is not None:
            _check_int("out_bits", self.out_bits, 2, 32)
        if self.output_stage and self.dtype != "int":
            raise ConfigError("dtype", "the fused output stage (bias, residual, activation, "
                              "out_bits) needs dtype = int")
        if self.arch == "tactical" and self.shape == "T" and \
                (self.lookahead, self.lookaside) != (2, 5):
            raise ConfigError("shape", "T is the <2,5> connectivity: lookahead must be 2 and "
                              "lookaside 5 (use shape L for other windows)")
        if self.arch == "pragmatic":
            if self.sync == "pallet" and self.column_registers:
                raise ConfigError("column_registers", "must be 0 with sync = pallet")
            if self.sync == "column" and not self.column_registers:
                raise ConfigError("column_registers", "must be in 1..8 with sync = column")
        for name in ("filters", "windows", "lanes", "act_bits", "wgt_bits", "depth"):
            _check_int(name, getattr(self, name))
        if not isinstance(self.act_signed, bool):
            raise ConfigError("act_signed", f"must be true or false, got {self.act_signed!r}")
        if self.act_signed and self.act_bits < 2:
            raise ConfigError("act_bits", "must be in 2..32 for signed activations, got 1")
        # Remember whether acc_bits was derived, so replace() derives it again.
        object.__setattr__(self, "_acc_derived", self.acc_bits is None)
        if self.dtype == "bf16":
            object.__setattr__(self, "acc_bits", 32)       # fp32 accumulators
        elif self.acc_bits is None:
            object.__setattr__(self, "acc_bits", self.acc_bits_min)
        else:
            _check_int("acc_bits", self.acc_bits, self.brick_sum_bits, RANGES["acc_bits"][1])
        if self.acc_bits > RANGES["acc_bits"][1]:
            raise ConfigError("acc_bits", f"derived width {self.acc_bits} exceeds "
                              f"{RANGES['acc_bits'][1]}: reduce depth, lanes or operand bits")

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
        sign = "s" if self.act_signed else "u"
        short = {"serial_bits": "s", "first_stage_bits": "fs", "encoding": "",
                 "sync": "", "column_registers": "r", "backend": "", "shape": "",
                 "lookahead": "h", "lookaside": "d", "delta_source": ""}
        options = "".join(f"_{short[o]}{getattr(self, o)}" for o in ARCHS[self.arch].options)
        if self.dtype != "int":
            options += f"_{self.dtype}"
        if self.output_stage:
            options += ("_o" + ("b" if self.bias else "") + ("r" if self.residual else "")
                        + {"none": "", "relu": "relu", "relu6": "relu6"}[self.activation]
                        + (f"q{self.out_bits}" if self.out_bits else ""))
        return (f"termwise_{self.arch}_f{self.filters}w{self.windows}l{self.lanes}"
                f"_a{self.act_bits}{sign}w{self.wgt_bits}_acc{self.acc_bits}_d{self.depth}"
                f"{options}")

    @property
    def pes(self) -> int:
        return self.filters * self.windows

    @property
    def runtime(self) -> tuple:
        """Runtime registers the command carries for this arch (``precision``,
        ``wgt_precision``)."""
        return ARCHS[self.arch].runtime

    def worst_brick_cycles(self, precision: int) -> int:
        """Cycles a brick takes in the worst case with ``precision``-bit operands (the
        basis of peak throughput)."""
        p = precision
        booth = (p + 1) // 2                      # Booth digits of a signed p-bit value
        # Unsigned activations are zero-extended by one bit before Booth recoding.
        act_booth = booth if self.act_signed else (p + 2) // 2
        return {
            "baseline": 1,
            "stripes": p,
            "dstripes": p,
            "loom": -(-p // (self.serial_bits or 1)) * p,
            "pragmatic": act_booth if self.encoding == "booth" else p,
            "laconic": act_booth * booth,
            "cnvlutin": 1,
            # Worst case (dense weights): the back end's dense cost per step.
            "tactical": p if self.backend == "tclp" else (
                act_booth if self.encoding == "booth" else p),
            # Deltas are one bit wider than activations, Booth encoded.
            "diffy": (p + 2) // 2,
        }[self.arch]

    @property
    def output_stage(self) -> bool:
        """Whether the tile has a fused output stage (see rtl/output_stage.py)."""
        return (self.bias or self.residual or self.activation != "none"
                or self.out_bits is not None)

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
        return _check_int("precision", precision, 1, self.act_bits)

    def runtime_values(self, precision: int | None = None, wgt_precision: int | None = None,
                       *, multiplier: int | None = None, shift: int | None = None,
                       cap: int | None = None) -> dict:
        """The runtime registers of one run, validated. Defaults: full precisions; for the
        output stage a scale of 1 (multiplier 1, shift 0) and the largest cap."""
        rt = {"precision": self.act_bits, "wgt_precision": self.wgt_bits}
        if precision is not None:
            rt["precision"] = self.check_precision(precision)
        if wgt_precision is not None:
            rt["wgt_precision"] = _check_int("wgt_precision", wgt_precision, 1, self.wgt_bits)
        if self.out_bits:
            rt["multiplier"] = _check_int("multiplier", 1 if multiplier is None else multiplier,
                                          0, (1 << 16) - 1)
            rt["shift"] = _check_int("shift", 0 if shift is None else shift, 0, 63)
        if self.activation == "relu6":
            top = (1 << (self.out_value_bits - 1)) - 1
            rt["cap"] = _check_int("cap", top if cap is None else cap, 0, top)
        return rt

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
            "out_value_bits": self.out_value_bits,
            "max_k": self.depth * self.lanes,
            "runtime": list(self.runtime),
            "peak_macs_per_cycle_at_16b": self.peak_macs_per_cycle(16),
            "peak_macs_per_cycle_at_act_bits": self.peak_macs_per_cycle(self.act_bits),
        }

    def to_dict(self) -> dict[str, Any]:
        """The full configuration as plain data (round-trips through :func:`from_mapping`)."""
        d = dataclasses.asdict(self)
        d.pop("name")
        for key, default in (("dtype", "int"), ("bias", False), ("residual", False),
                             ("activation", "none")):
            if d[key] == default:
                d.pop(key)
        return {k: v for k, v in d.items() if v is not None}

    def twin(self, arch: str, **changes) -> "TileConfig":
        """The configuration of ``arch`` that shares this one's geometry, widths, depth and
        every design option both archs have (e.g. the Bit-Pragmatic datapath inside a Diffy
        tile), with ``changes`` on top. Options ``arch`` does not have are dropped, so a
        twin never needs its fields copied by hand."""
        fields = {k: v for k, v in self.to_dict().items()
                  if k not in OPTIONS or k in ARCHS[arch].options}
        fields.update(arch=arch, **changes)
        if self._acc_derived and "acc_bits" not in changes:
            fields["acc_bits"] = None
        return TileConfig(**fields)

    def replace(self, **changes) -> "TileConfig":
        """A copy with ``changes``; a derived ``acc_bits`` is derived again."""
        if self._acc_derived and "acc_bits" not in changes:
            changes["acc_bits"] = None
        changes.setdefault("name", self.name)
        return dataclasses.replace(self, **changes)


_FIELDS = {f.name for f in dataclasses.fields(TileConfig)}


def from_mapping(mapping: dict[str, Any], *, name: str | None = None) -> TileConfig:
    """Build a configuration from a mapping (a TOML table), rejecting unknown fields."""
    for key in mapping:
        if key not in _FIELDS or key == "name":
            valid = ", ".join(sorted(_FIELDS - {"name"}))
            raise ConfigError(key, f"unknown field (valid fields: {valid})")
    mapping = with_dtype_fields(mapping)
    missing = [f for f in ("arch", "filters", "windows", "lanes", "act_bits", "wgt_bits")
               if f not in mapping]
    if missing:
        raise ConfigError(missing[0], "is required")
    return TileConfig(**mapping, name=name)


def _parse_toml(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError("toml", f"{source} is not valid TOML ({err})") from None


def from_toml(path: str) -> TileConfig:
    """Read a configuration file: a TOML table with the :class:`TileConfig` fields."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as err:
        raise ConfigError("config", f"cannot read {path}: {err.strerror}") from None
    data = _parse_toml(text, path)
    if "tile" in data and isinstance(data["tile"], dict) and len(data) == 1:
        data = data["tile"]
    return from_mapping(data)


def to_toml(cfg: TileConfig) -> str:
    """``cfg`` as a configuration file that :func:`from_toml` reads back to an equal
    configuration (``termwise gen --config`` accepts it)."""
    lines = [f"# {cfg.name}" if cfg.name else "# termwise tile configuration"]
    for key, value in cfg.to_dict().items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, int):
            text = str(value)
        else:
            text = '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


def load_presets() -> dict[str, dict[str, Any]]:
    """The named presets from ``gen/presets.toml``: name -> table (with ``description``)."""
    text = resources.files(__package__).joinpath("presets.toml").read_text(encoding="utf-8")
    return _parse_toml(text, "presets.toml")["preset"]


def preset(name: str) -> TileConfig:
    presets = load_presets()
    if name not in presets:
        raise ConfigError("preset", f"unknown preset {name!r} (valid: {', '.join(presets)})")
    table = dict(presets[name])
    table.pop("description", None)
    return from_mapping(table, name=name)
