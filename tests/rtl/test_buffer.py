"""rtl/buffer.py in Amaranth's simulator against pure references: the SRAM macro's model
(a word store read and written at the clock edge) and the operand buffer built of macros
(the row addressed on the previous cycle, as the flop buffer shows it, on every cycle after
one that used it), with the macros' reads counted: one per change of a used row, none
while the address holds or the row is not used."""

import random

from termwise.rtl.buffer import OperandBuffer, SramMacro
from termwise.tb.amaranth_sim import InlineLibrary, run_simulation


def test_sram_macro_reads_and_writes_at_the_edge():
    """Random enables, addresses and data: after each edge ``dout`` is the word read by
    the last read (a write leaves it as it was)."""
    rng = random.Random(1)
    dut = SramMacro(16, 8)
    words, shown, seen = [0] * 16, 0, []

    async def bench(ctx):
        nonlocal shown
        for _ in range(400):
            ce, we, addr, din = rng.random() < 0.7, rng.random() < 0.4, rng.randrange(16), \
                rng.randrange(256)
            ctx.set(dut.ce, ce)
            ctx.set(dut.we, we)
            ctx.set(dut.addr, addr)
            ctx.set(dut.din, din)
            await ctx.tick()
            if ce and we:
                words[addr] = din
            elif ce:
                shown = words[addr]
            seen.append((ctx.get(dut.dout), shown))

    run_simulation(dut, bench)
    assert all(got == want for got, want in seen)
    assert len({want for _, want in seen}) > 20        # the sequence did read many words


def _drive(dut, rng, ports, cycles=600):
    """Loads (enable low, random writes, rewinds) and runs (enable high, random addresses,
    often held, ``read_enable`` high on 80% of their cycles); returns the bench, its log
    per cycle (read_data, expected, this cycle's row was not to be shown: a write, or
    ``read_enable`` low) and the reads counted: ``[expected, seen]``, expected one per
    cycle with ``read_enable`` whose row changed (a new address, or the first after a
    write), seen on ``ports[0]``."""
    rows = [0] * dut.depth
    log, reads = [], [0, 0]
    pointer, prev_addr, wrote = 0, None, True

    async def bench(ctx):
        nonlocal pointer, prev_addr, wrote
        addr = 0
        for t in range(cycles):
            running = (t // 40) % 2 == 1
            rewind = not running and rng.random() < 0.05
            valid = not running and rng.random() < 0.6
            if running and rng.random() < 0.3:
                addr = rng.randrange(dut.depth)
            # the tile uses the rows of its runs, not always (past a run's last brick)
            used = running and rng.random() < 0.8
            payload = rng.getrandbits(dut.width)
            for sig, v in ((dut.enable, int(not running)), (dut.rewind, int(rewind)),
                           (dut.write.valid, int(valid)), (dut.write.payload, payload),
                           (dut.read_addr, addr), (dut.read_enable, int(used))):
                ctx.set(sig, v)
            take = valid and not running and pointer < dut.depth
            if used and not take and (wrote or addr != prev_addr):
                reads[0] += 1
                prev_addr, wrote = addr, False
            reads[1] += int(ctx.get(ports[0].ce) and not ctx.get(ports[0].we))
            await ctx.tick()
            if take:
                rows[pointer] = payload
                wrote = True
            pointer = 0 if rewind else pointer + int(take)
            log.append((ctx.get(dut.read_data), rows[addr], not used or take))

    return bench, log, reads


def test_operand_buffer_of_macros_shows_the_previous_cycles_row():
    """A 16 x 300 buffer: 5 macros of 60 bits side by side (MACRO_MAX_WIDTH = 64); ``read_data`` equals the row
    addressed on the previous cycle whenever that cycle used it (``read_enable``, no write),
    and the macros read once per change of a used row, never for a row not used."""
    rng = random.Random(7)
    library = InlineLibrary({})
    dut = OperandBuffer(300, 16, library)
    counted = []
    bench, log, reads = _drive(dut, rng, counted)
    original = library.instantiate

    def counting(m, name, instance_name, *, clocked=True):
        port = original(m, name, instance_name, clocked=clocked)
        counted.append(port)
        return port

    library.instantiate = counting
    run_simulation(dut, bench)
    assert len(counted) == 5 and {p.width for p in counted} == {60}
    checked = [(got, want) for got, want, unused in log if not unused]
    assert len(checked) > 200 and all(got == want for got, want in checked)
    assert reads[1] == reads[0] and 30 < reads[0] < 300      # held addresses: no read
