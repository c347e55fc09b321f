"""Grades sat_add.v: simulated with Icarus Verilog on vectors chosen here; Python checks each line."""

import os
import random
import shutil
import subprocess

TB = """`timescale 1ns/1ps
module tb;
    reg  [{w1}:0] a, b;
    wire [{w1}:0] y;
    wire ov;
    sat_add #(.W({w})) dut (.a(a), .b(b), .y(y), .overflow(ov));
    initial begin
{vectors}
        $finish;
    end
endmodule
"""


def _vectors(rng, w):
    top = (1 << w) - 1
    pairs = [(0, 0), (top, 0), (0, top), (top, top), (top, 1), (1 << (w - 1), 1 << (w - 1)),
             ((1 << (w - 1)) - 1, 1 << (w - 1))]
    pairs += [(rng.randrange(top + 1), rng.randrange(top + 1)) for _ in range(200)]
    return pairs


def grade(g):
    rng = random.Random(g.seed)
    tag = f"R{rng.randrange(1 << 30)}"
    src = os.path.join(g.scratch, "sat_add.v")
    shutil.copy(g.path("sat_add.v"), src)
    for w in (8, rng.choice((5, 11, 13))):
        pairs = _vectors(rng, w)
        lines = "\n".join(f'        a = {w}\'d{x}; b = {w}\'d{y}; #1 $display("{tag} %0d %0d %0d %0d", a, b, y, ov);'
                          for x, y in pairs)
        tb = os.path.join(g.scratch, f"tb{w}.v")
        with open(tb, "w") as fh:
            fh.write(TB.format(w=w, w1=w - 1, vectors=lines))
        sim = os.path.join(g.scratch, f"sim{w}")
        built = subprocess.run(["iverilog", "-g2012", "-o", sim, tb, src], capture_output=True, text=True)
        if not g.check(f"compiles-W{w}", built.returncode == 0, built.stderr[-400:]):
            return
        ran = subprocess.run(["vvp", "-n", sim], capture_output=True, text=True, timeout=30)
        got = [ln.split()[1:] for ln in ran.stdout.splitlines() if ln.startswith(tag + " ")]
        bad = []
        for (x, y), row in zip(pairs, got):
            want = (min(x + y, (1 << w) - 1), int(x + y > (1 << w) - 1))
            if len(row) != 4 or not all(v.isdigit() for v in row) or (int(row[2]), int(row[3])) != want:
                bad.append(f"a={x} b={y}: got y/overflow {' '.join(row[2:]) or '?'}, expected {want[0]} {want[1]}")
        if len(got) != len(pairs):
            bad.append(f"{len(got)} of {len(pairs)} vectors simulated")
        g.figure(f"vectors_passed_W{w}", len(pairs) - len(bad))
        if not g.check(f"vectors-W{w}", not bad, "; ".join(bad[:3])):
            return
