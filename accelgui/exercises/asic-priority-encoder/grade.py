"""Grades prio_enc.v with Yosys: no latches, formally equivalent to a reference, and its size."""

import os
import re
import shutil
import subprocess

GOLD = """module gold (input wire [7:0] req, output reg [2:0] idx, output reg valid);
    integer i;
    always @* begin
        idx = 3'd0;
        valid = |req;
        for (i = 0; i < 8; i = i + 1)
            if (req[i]) idx = i[2:0];
    end
endmodule
"""
GATES = "AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX"


def _yosys(g, script, *files):
    reads = "".join(f"read_verilog -sv {os.path.basename(f)}; " for f in files)
    ran = subprocess.run(["yosys", "-q", "-p", reads + script], capture_output=True, text=True,
                         timeout=60, cwd=g.scratch)
    return ran.returncode, ran.stdout + ran.stderr


def _cells(text):
    found = re.findall(r"Number of cells:\s+(\d+)", text)
    return int(found[-1]) if found else None


def grade(g):
    mine = os.path.join(g.scratch, "prio_enc.v")
    shutil.copy(g.path("prio_enc.v"), mine)
    gold = os.path.join(g.scratch, "gold.v")
    with open(gold, "w") as fh:
        fh.write(GOLD)
    rc, log = _yosys(g, "hierarchy -top prio_enc; proc; check -assert", mine)
    if not g.check("synthesisable", rc == 0, log[-400:]):
        return
    rc, log = _yosys(g, "hierarchy -top prio_enc; proc; select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$sr",
                     mine)
    if not g.check("no-latches", rc == 0, "synthesis inferred a latch: some output keeps its old value on a path "
                   "through the always block"):
        return
    rc, log = _yosys(g, "proc; rename prio_enc mine; "
                     "miter -equiv -flatten -make_outputs -ignore_gold_x gold mine miter; hierarchy -top miter; "
                     "flatten; opt; sat -verify -prove trigger 0 -show-inputs miter", gold, mine)
    if not g.check("equivalent", rc == 0, "not equivalent to a priority encoder; counterexample: "
                   + " ".join(ln.strip() for ln in log.splitlines() if "\\in_req" in ln)[:300]):
        return
    for top, path, name in (("prio_enc", mine, "cells"), ("gold", gold, "reference_cells")):
        out = os.path.join(g.scratch, f"{top}.stat")
        _yosys(g, f"synth -top {top}; abc -g {GATES}; opt_clean; tee -q -o {out} stat", path)
        try:
            with open(out) as fh:
                g.figure(name, _cells(fh.read()))
        except OSError:
            g.figure(name, None)
