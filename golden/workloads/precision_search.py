"""Per-layer precision-profile search of the traced networks.

A profile is the smallest per-layer precision (low-order bits dropped from the ``bits``-bit
format, the calibrated range kept) whose quantised network still meets a criterion. The
search is the same for every network: each layer's minimum alone by bisection on
``[1, bits]`` (the criterion taken as monotone in a layer's precision), then all minima
together plus ``extra`` bits each, ``extra`` raised until the criterion holds.
:func:`bisect_precision` and :func:`combined_extra` are those two steps; EfficientNet
drives them with its top-1 criterion, DnCNN and FFDNet through :func:`search_profile`
with a PSNR floor (which also gives extra bits back layer by layer).
"""

from __future__ import annotations

__all__ = ["bisect_precision", "combined_extra", "profile_search", "search_profile"]


def bisect_precision(ok, bits: int) -> int:
    """The smallest ``p`` in ``[1, bits]`` with ``ok(p)`` (``bits`` itself is not tested),
    by bisection."""
    lo, hi = 1, bits
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def combined_extra(ok, single, bits: int) -> tuple[int, list]:
    """``(extra, prec)``: the smallest ``extra`` (up to ``bits``) such that ``ok(prec)`` for
    ``prec = [min(bits, p + extra) for p in single]``; ``ok`` sees every tried setting."""
    extra = 0
    while True:
        prec = [min(bits, p + extra) for p in single]
        if ok(prec) or extra >= bits:
            return extra, prec
        extra += 1


def profile_search(model, which, act_base, floor, log) -> dict:
    """One operand's profile on ``model`` (``n``, ``bits``, ``start()``, ``advance(aprec,
    wprec, xs, i)``, ``psnr(aprec, wprec, xs, i)``).

    Single-layer minima first (the others at their base: ``bits`` for the searched operand,
    ``act_base`` for the activations when searching weights), by bisection; then all minima
    together plus ``extra`` bits each, ``extra`` raised until ``psnr >= floor``; then,
    since the single minima each spend up to the whole margin, every layer in order gives
    back as many of its extra bits as the criterion allows. Every accepted setting was
    evaluated whole, so the returned profile meets ``floor``."""
    n, bits = model.n, model.bits
    full = [bits] * n

    def pair(prec):
        return (prec, full) if which == "act" else (act_base, prec)

    def layer_at(i, p):
        prec = list(full)
        prec[i] = p
        return prec

    single, xs = [], model.start()
    for i in range(n):
        lo = bisect_precision(lambda p: model.psnr(*pair(layer_at(i, p)), xs, i) >= floor,
                              bits)
        single.append(lo)
        if log:
            log(f"  {which} conv{i + 1}: {lo} bits alone")
        xs = model.advance(*pair(full), xs, i)
    scores = []

    def ok(prec):
        scores.append(model.psnr(*pair(prec)))
        return scores[-1] >= floor
    extra, prec = combined_extra(ok, single, bits)
    score = scores[-1]
    if extra:
        xs = model.start()
        for i in range(n):
            while prec[i] > single[i]:
                trial = list(prec)
                trial[i] -= 1
                s = model.psnr(*pair(trial), xs, i)
                if s < floor:
                    break
                prec, score = trial, s
            xs = model.advance(*pair(prec), xs, i)
    if log:
        log(f"  {which} profile {prec}: {score:.3f} dB (floor {floor:.3f} dB)")
    return {"per_layer_single": single, "extra_bits_combined": extra, "profile": prec,
            "psnr": score}


def search_profile(model, bits: int, margin: float, criterion: str, what: str,
                   log=None) -> dict:
    """The two-pass profile search on ``model`` (activations first, weights at ``bits``;
    then weights with the activations at their profile, both against the floor ``margin``
    dB under the full ``bits``-bit model's PSNR) and its record; ``criterion`` describes
    what the PSNR is measured on, ``what`` names it in the log."""
    full = [bits] * model.n
    ref = model.psnr(full, full)
    floor = ref - margin
    if log:
        log(f"  full {bits}-bit model: {what} PSNR {ref:.3f} dB")
    act = profile_search(model, "act", None, floor, log)
    wgt = profile_search(model, "wgt", act["profile"], floor, log)
    return {"bits": bits, "margin_db": margin, "criterion": criterion,
            "reference_psnr": ref, "floor": floor, "act": act, "wgt": wgt,
            "act_profile": act["profile"], "wgt_profile": wgt["profile"],
            "psnr": wgt["psnr"], "evaluations": model.evaluations}
