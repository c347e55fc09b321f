"""Print the tree x route table: verdict, first reason, first next step, for recorded trees.

    .venv/bin/python tests/tools/route_table.py [acc-* cpu-*]   (glob patterns, default acc-*)
"""

from __future__ import annotations

import fnmatch
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MACHINES = os.path.join(HERE, "..", "fixtures", "machines")


def rows(pattern: str, goal: str | None = None):
    from accelgui import advisor
    from accelgui.knowledge import load_knowledge
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    kb = load_knowledge()
    for tree in sorted(os.listdir(MACHINES)):
        if not fnmatch.fnmatch(tree, pattern):
            continue
        report = run_probes(ProbeContext(root=os.path.join(MACHINES, tree)), timeout_s=10)
        kw = {"goal": goal} if goal else {}
        routes = advisor.assess(report, kb, frozenset(), "en", **kw)
        overall = advisor.overall_next_steps(routes, kb, n=3, **kw)
        yield tree, routes, overall


def main(argv):
    patterns = argv or ["acc-*"]
    for pattern in patterns:
        for tree, routes, overall in rows(pattern):
            print(f"## {tree}   overall next: {', '.join(overall)}")
            for a in routes:
                status = a.status + (f" ({a.qualifier})" if getattr(a, "qualifier", None) else "")
                reason = (a.reasons or [""])[0][:110]
                step = (a.next_steps or [""])[0]
                print(f"  {a.id:22} {status:24} {step:38} {reason}")


if __name__ == "__main__":
    main(sys.argv[1:])
