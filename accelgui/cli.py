"""Command line: ``accelgui`` opens the app; ``accelgui --probe`` prints a report.

The headless paths (--probe, --routes, --compare, --record-tree, --done/--undo) never import
Qt, pyqtgraph or Numba: benchmarks run in a child process, and the PDF exporter imports Qt
only when that format is asked for.
"""

from __future__ import annotations

import os
import sys

# the parser and what the commands share live in accelgui.options (the app reads the same
# options); re-exported here, where scripts and tests have always found them
from accelgui.options import (EXIT_FAIL, EXIT_OK, EXIT_USAGE, UsageError, apply_goal_option,
                              build_parser, check_sysroot, lang_of)

__all__ = ["EXIT_FAIL", "EXIT_OK", "EXIT_USAGE", "UsageError", "advise", "apply_goal_option",
           "build_parser", "goal_and_source", "main", "make_report"]
_lang = lang_of


def _emit(data: str | bytes, output: str | None) -> None:
    if output:
        from accelgui.atomic import write_atomic

        write_atomic(output, data)
        return
    if isinstance(data, bytes):
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(data if data.endswith("\n") else data + "\n")
        sys.stdout.flush()


def make_report(args, on_progress=None):
    """``--probe``: probe (``--sysroot``), optionally benchmark (``--bench``), then advise.
    (The app's workers do the same steps in accelgui.gui.workers, each in its own thread.)"""
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    if getattr(args, "python", None):
        from accelgui.probes.software import EXTRA_PYTHONS_VAR

        os.environ[EXTRA_PYTHONS_VAR] = os.pathsep.join(args.python)
    ctx = ProbeContext(root=check_sysroot(args.sysroot), deep=bool(getattr(args, "deep", False)))
    report = run_probes(ctx, timeout_s=args.timeout)
    if getattr(args, "bench", None):
        from accelgui.probes.kernels.client import run_benchmarks

        report = report.replace(benchmarks=run_benchmarks(args.bench, on_progress=on_progress))
    if not getattr(args, "no_advice", False):
        goal, source = goal_and_source(args)
        report = advise(report, args.knowledge, lang=_lang(args), goal=goal,
                        context=getattr(args, "context", None), goal_source=source)
    return report


def _goal(args) -> str | None:
    """The goal of --goal (remembered), else the one remembered with the progress."""
    return goal_and_source(args)[0]


def goal_and_source(args) -> tuple[str | None, str | None]:
    """(goal, where it came from): ``--goal`` ("option"; applied by :func:`apply_goal_option`),
    else the one saved with the progress ("saved"), else (None, None)."""
    from accelgui import advisor
    from accelgui.progress import load_goal

    if getattr(args, "goal", None) is not None:
        goal = apply_goal_option(args)
        return goal, ("option" if goal else None)
    try:                        # a hand-edited progress file may hold an id the advisor lacks
        goal = advisor.check_goal(load_goal())
    except ValueError as exc:
        sys.stderr.write(f"accelgui: warning: ignoring the saved goal: {exc}\n")
        return None, None
    return goal, ("saved" if goal else None)


def advise(report, knowledge_dir=None, lang: str = "en", goal: str | None = None,
           context: int | None = None, goal_source: str | None = None):
    """Fill routes, estimates and the advice (the goal and "Start here", accelgui.export.advice)
    from the knowledge base and the learner's progress. ``goal_source``: "option" (--goal),
    "saved" (the progress file) or None."""
    from accelgui import advisor
    from accelgui.export.advice import build
    from accelgui.knowledge import load_knowledge
    from accelgui.progress import load_done

    if knowledge_dir:               # every export of this run reads the same routes
        from accelgui.knowledge import use_override

        use_override(knowledge_dir)
    kb = load_knowledge(knowledge_dir)
    for error in kb.errors:         # a broken --knowledge dir is said, on stderr
        sys.stderr.write(f"accelgui: knowledge: {error}\n")
    routes = advisor.assess(report, kb, load_done(), lang=lang, goal=goal)
    return report.replace(routes=routes,
                          estimates=advisor.estimates(report, lang=lang, context=context),
                          advice=build(routes, kb, lang=lang, goal_source=goal_source))


def _terminal_progress(stream=sys.stderr):
    if not stream.isatty():
        return None

    def show(event: dict) -> None:
        frac = max(0.0, min(1.0, float(event.get("fraction") or 0.0)))
        bar = "#" * int(frac * 30)
        stream.write(f"\r[{bar:<30}] {frac * 100:5.1f}%  {str(event.get('stage') or '')[:30]:<30}")
        if frac >= 1.0:
            stream.write("\n")
        stream.flush()
    return show


def check_output_format(fmt: str, output: str | None) -> None:
    """Before any work: a binary format (PDF) is never written to a terminal, and the PDF
    renderer's Qt is installed (else the install command, exit 2, not a traceback)."""
    if fmt != "pdf":
        return
    if not output and sys.stdout.isatty():
        raise UsageError("--format pdf writes a binary file: give --output FILE "
                         "(or redirect the output to a file)")
    from accelgui.extras import require

    require("gui", "--format pdf")


def _render(report, fmt: str, lang: str) -> str | bytes:
    """The report in ``fmt``; a PDF renderer whose Qt libraries cannot load is an error."""
    from accelgui.export import render

    try:
        return render(report, fmt, lang=lang)
    except ImportError as exc:      # PySide6 installed, a system library it needs is not
        raise OSError(f"the {fmt.upper()} export cannot load Qt: {exc}") from None


def cmd_probe(args) -> int:
    fmt = args.format or "json"
    if args.bench and args.sysroot != "/":
        raise UsageError("--bench measures this machine; it cannot describe a --sysroot tree")
    check_output_format(fmt, args.output)
    report = make_report(args, on_progress=_terminal_progress() if args.bench else None)
    if args.bench:
        _record_history(report)
    if args.redact:
        from accelgui.redact import redact

        report = redact(report)
    _emit(_render(report, fmt, _lang(args)), args.output)
    return EXIT_OK


def _record_history(report) -> None:
    """Keep the run in the benchmark history of this machine (accelgui.history); a history
    that cannot be written is said on stderr and never costs the report."""
    if not report.benchmarks:
        return
    try:
        from accelgui import history

        history.record(report.to_dict(), report.benchmarks)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"accelgui: warning: the benchmark history was not updated: {exc}\n")


def cmd_render_report(args) -> int:
    """``--report FILE --format F``: a saved report rendered in any export format."""
    from accelgui.export.advice import advice_of
    from accelgui.report import load_report

    check_output_format(args.format, args.output)

    report = load_report(args.report)
    advice = advice_of(report)
    if advice is not None:
        # the advice the report was made with (computed from its routes for an older report,
        # so every format, JSON included, carries it); its goal is the report's, not one
        # saved on this machine: no "saved" or "--goal" wording when it is shown again
        report = report.replace(advice=dict(advice, goal_source=None))
    if args.redact:
        from accelgui.redact import redact

        report = redact(report)
    _emit(_render(report, args.format, _lang(args)), args.output)
    return EXIT_OK


def cmd_desktop(args) -> int:
    from accelgui import cli_docs
    from accelgui.desktop import data_dir, install, uninstall

    if args.system and hasattr(os, "geteuid") and os.geteuid() != 0:
        raise UsageError("--system installs into /usr/local/share: run it as root")
    done = (install if args.install_desktop else uninstall)(system=args.system)
    # and the man page and the shell completions, made from this parser
    base = data_dir(args.system)
    done += cli_docs.install(base) if args.install_desktop else cli_docs.uninstall(base)
    verb = "installed" if args.install_desktop else "removed"
    for path in done:
        print(f"{verb}: {path}")
    if not done:
        print("nothing to remove" if args.uninstall_desktop else "nothing installed")
    return EXIT_OK


def cmd_routes(args) -> int:
    from accelgui.routes_cli import print_routes

    fmt = args.format or "text"
    if fmt not in ("text", "json"):
        raise UsageError("--routes prints --format text or json")
    import io

    report = None
    if args.report:             # --routes --report FILE: that report's goal and "Start here"
        from accelgui.report import load_report

        report = load_report(args.report)
        goal, source = None, None
    else:
        goal, source = goal_and_source(args)
    buf = io.StringIO()
    rc = print_routes(_lang(args), fmt, args.knowledge, buf, goal=goal, goal_source=source,
                      report=report)
    _emit(buf.getvalue(), args.output)
    return rc


def cmd_compare(args) -> int:
    from accelgui.compare import FORMATS, compare_files

    fmt = args.format or "text"
    if fmt not in FORMATS:
        raise UsageError(f"--compare prints --format {', '.join(FORMATS)}")
    _emit(compare_files(args.compare[0], args.compare[1], fmt, lang=_lang(args),
                        all_rows=getattr(args, "all_rows", False)), args.output)
    return EXIT_OK


def cmd_progress(args) -> int:
    from accelgui.knowledge import load_knowledge
    from accelgui.progress import mark_done, unmark

    kb = load_knowledge(args.knowledge)
    for step in args.done + args.undo:
        if step not in kb.steps:
            raise UsageError(f"unknown step id: {step} (see accelgui --routes)")
    for step in args.done:
        mark_done(step)
        print(f"done: {step}")
    for step in args.undo:
        unmark(step)
        print(f"not done: {step}")
    return EXIT_OK


def cmd_knowledge(args) -> int:
    """--facts and --verify (accelgui.facts_cli, accelgui.verify_cli)."""
    fmt = args.format or "text"
    if fmt not in ("text", "json"):
        raise UsageError("--facts and --verify print --format text or json")
    try:
        if args.verify:
            from accelgui.verify_cli import run_cli

            return run_cli(args.verify, _lang(args), fmt, allow_root=args.allow_root,
                           python=args.verify_python, sysroot=check_sysroot(args.sysroot),
                           knowledge=args.knowledge, workspace=args.workspace)
        from accelgui.facts_cli import run_cli

        return run_cli(args.facts, _lang(args), fmt, sysroot=check_sysroot(args.sysroot),
                       report_path=args.report)
    except KeyError as exc:
        what = "step id" if args.verify else "table"
        raise UsageError(f"unknown {what}: {exc.args[0]} (see accelgui --routes / --facts)") from None
    except PermissionError as exc:
        raise UsageError(str(exc)) from None


def cmd_exercise(args) -> int:
    """--exercise STEP (accelgui.verify_cli.run_exercise_cli)."""
    from accelgui.verify_cli import run_exercise_cli

    try:
        return run_exercise_cli(args.exercise, _lang(args), workspace=args.workspace, force=args.force)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None


def cmd_links(args) -> int:
    """``--links [WHICH]``: the knowledge base's links and their age (accelgui.links_cli)."""
    import io

    from accelgui.links_cli import run_cli

    fmt = args.format or "text"
    if fmt not in ("text", "json"):
        raise UsageError("--links prints --format text or json")
    buf = io.StringIO()
    status = run_cli(args.links, _lang(args), fmt, buf)
    _emit(buf.getvalue(), args.output)
    return status


def cmd_fleet(args) -> int:
    """``--fleet URL``: one row per node from a Prometheus server (accelgui.fleet)."""
    from accelgui import fleet

    fmt = args.format or "text"
    if fmt not in ("text", "json"):
        raise UsageError("--fleet prints --format text or json")
    lang = _lang(args)
    try:
        doc = fleet.fleet(args.fleet, timeout=args.timeout, lang=lang)
    except fleet.FleetUsageError as exc:
        raise UsageError(f"--fleet: {exc}") from None
    except fleet.FleetError as exc:
        sys.stderr.write(f"accelgui: error: {exc}\n")
        return EXIT_FAIL
    _emit(fleet.render_json(doc) if fmt == "json" else fleet.render_text(doc, lang), args.output)
    return EXIT_OK


def cmd_record_tree(args) -> int:
    from accelgui.probes.record import record_tree

    count = record_tree(args.record_tree, source_root=check_sysroot(args.sysroot))
    print(f"recorded {count} files into {args.record_tree}; replay with "
          f"accelgui --probe --sysroot {args.record_tree}")
    return EXIT_OK


def _connects(address, family) -> bool:
    import socket

    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(1.0)
            sock.connect(address)
        return True
    except OSError:
        return False


def x_display_reachable(display: str) -> bool:
    """Whether an X server answers at ``display`` (":0", "unix:1.0", "host:10.0",
    "/tmp/launch-x/org.xquartz:0"): its Unix socket (file or Linux abstract), or TCP 6000+N.
    Checked before Qt starts, because Qt's xcb plugin aborts the process when it cannot connect."""
    import socket

    host, _, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not number.isdigit():
        return False
    if host.startswith("/"):                     # a socket path (XQuartz launchd)
        return _connects(display, socket.AF_UNIX)
    if host in ("", "unix"):
        path = f"/tmp/.X11-unix/X{number}"
        return _connects(path, socket.AF_UNIX) or (
            sys.platform == "linux" and _connects("\0" + path, socket.AF_UNIX))
    return _connects((host, 6000 + int(number)), socket.AF_INET)


def wayland_reachable(name: str) -> bool:
    import socket

    path = name if name.startswith("/") else os.path.join(os.environ.get("XDG_RUNTIME_DIR") or "", name)
    return _connects(path, socket.AF_UNIX)


def display_problem() -> str | None:
    """Why the app cannot open a window here (None: it can)."""
    if sys.platform != "linux":
        return None
    platform_name = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0].split(";")[0]
    if platform_name in ("offscreen", "minimal", "vnc", "eglfs", "linuxfb"):
        return None
    display, wayland = os.environ.get("DISPLAY"), os.environ.get("WAYLAND_DISPLAY")
    if platform_name not in ("", "xcb") and not platform_name.startswith("wayland"):
        return None                                # another platform plugin: Qt checks it
    if not display and not wayland:
        return "no display found (DISPLAY and WAYLAND_DISPLAY are unset)"
    if platform_name != "xcb" and wayland and wayland_reachable(wayland):
        return None
    if platform_name.startswith("wayland"):
        return f"the Wayland display WAYLAND_DISPLAY={wayland or ''} does not answer"
    if display and x_display_reachable(display):
        return None
    if display:
        return f"no X server answers at DISPLAY={display}"
    return f"the Wayland display WAYLAND_DISPLAY={wayland} does not answer"


def cmd_cli_docs(args) -> int:
    """``--schema``, ``--print-man``, ``--print-completion SHELL`` (to stdout or --output)."""
    if args.schema:
        from accelgui.data import read_bytes

        _emit(read_bytes("accelgui", "report.schema.json"), args.output)
        return EXIT_OK
    from accelgui import cli_docs

    parser = build_parser()
    text = cli_docs.man_page(parser) if args.print_man else cli_docs.completion(args.print_completion, parser)
    _emit(text, args.output)
    return EXIT_OK


def gui_main(args) -> int:
    """Open the app with the options parsed here (all of them: --timeout, --goal...)."""
    import accelgui.gui  # noqa: F401 - without the gui extra: says how to install it, exits 2
    problem = display_problem()
    if problem:
        sys.stderr.write(
            f"accelgui: {problem}, so the app cannot open a window.\n"
            "Check that the desktop session is running (or start Xvfb), or use the headless probe:\n"
            "  accelgui --probe --format text      # human summary\n"
            "  accelgui --probe > report.json      # JSON report\n"
            "  accelgui --help                     # all options\n")
        return EXIT_FAIL
    try:
        from accelgui.gui.app import run_app
    except ImportError as exc:
        sys.stderr.write(f"accelgui: the desktop app cannot start: {exc}\n"
                         "Install the Qt runtime libraries (see README), or use accelgui --probe.\n")
        return EXIT_FAIL
    return run_app(args=args)


def cmd_monitor(args) -> int:
    from accelgui import monitor_cli

    run = monitor_cli.cmd_monitor if args.monitor else monitor_cli.serve_metrics
    return run(args, lang=_lang(args))


def cmd_goal_only(args) -> int:
    print(f"goal: {_goal(args) or 'none'}")
    return EXIT_OK


def cmd_app(args) -> int:
    """No command: the desktop app (after the checks that need no Qt)."""
    if args.report and (args.output or args.redact):
        raise UsageError("--report FILE with --output or --redact needs --format "
                         "(e.g. --report r.json --format html --output r.html)")
    if args.bench or args.format or args.output:
        raise UsageError("these options go with --probe (e.g. accelgui --probe --format text)")
    args.sysroot = check_sysroot(args.sysroot)
    if args.report and not os.path.isfile(args.report):
        raise FileNotFoundError(f"--report {args.report}: no such file")
    return gui_main(args)


#: the commands, one row each: (its flag as the user types it, whether it was asked for, what
#: runs it). At most one runs; a second is a usage error (``--probe --routes`` would drop one).
#: ``--report`` is a command of its own only with --format (else it is what the app opens, or
#: what --routes/--facts read), ``--goal`` applies to every command.
COMMANDS = (
    ("--schema", lambda a: a.schema, lambda a: cmd_cli_docs(a)),
    ("--print-man", lambda a: a.print_man, lambda a: cmd_cli_docs(a)),
    ("--print-completion", lambda a: a.print_completion, lambda a: cmd_cli_docs(a)),
    ("--compare", lambda a: a.compare, lambda a: cmd_compare(a)),
    ("--routes", lambda a: a.routes, lambda a: cmd_routes(a)),
    ("--record-tree", lambda a: a.record_tree, lambda a: cmd_record_tree(a)),
    ("--done/--undo", lambda a: a.done or a.undo, lambda a: cmd_progress(a)),
    ("--verify", lambda a: a.verify, lambda a: cmd_knowledge(a)),
    ("--exercise", lambda a: a.exercise, lambda a: cmd_exercise(a)),
    ("--facts", lambda a: a.facts, lambda a: cmd_knowledge(a)),
    ("--links", lambda a: a.links, lambda a: cmd_links(a)),
    ("--probe", lambda a: a.probe, lambda a: cmd_probe(a)),
    ("--monitor", lambda a: a.monitor, lambda a: cmd_monitor(a)),
    ("--serve-metrics", lambda a: a.serve_metrics, lambda a: cmd_monitor(a)),
    ("--fleet", lambda a: a.fleet is not None, lambda a: cmd_fleet(a)),
    ("--install-desktop", lambda a: a.install_desktop, lambda a: cmd_desktop(a)),
    ("--uninstall-desktop", lambda a: a.uninstall_desktop, lambda a: cmd_desktop(a)),
    ("--report --format", lambda a: a.report and a.format and not (a.routes or a.facts),
     lambda a: cmd_render_report(a)),
)


def _command(args):
    """The one command asked for (None: the app, or --goal alone). UsageError for two."""
    asked = [(flag, run) for flag, wanted, run in COMMANDS if wanted(args)]
    if len(asked) > 1:
        flags = " and ".join(flag for flag, _ in asked)
        raise UsageError(f"{flags} are separate commands: run one at a time")
    return asked[0][1] if asked else None


def _only_goal(args) -> bool:
    """``accelgui --goal G`` alone: save (or clear) the goal and say so; with another command,
    or with the app's options (--page, --theme, --report), the goal applies to that."""
    return _command(args) is None and not (args.page or args.theme or args.report)


def _dispatch(args) -> int:
    command = _command(args)
    if args.bench and args.probe:
        from accelgui.extras import require

        require("bench", "--bench")   # without Numba: how to install the bench extra, exit 2
    if args.goal is not None:   # saved or cleared, and said, whatever the command
        apply_goal_option(args, sys.stdout if _only_goal(args) else None)
    if command is not None:
        return command(args)
    if args.goal is not None and _only_goal(args):
        return cmd_goal_only(args)
    return cmd_app(args)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return _dispatch(args)
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        sys.stderr.write(f"accelgui: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("accelgui: interrupted\n")
        return 130
    except BrokenPipeError:  # `accelgui --probe | head`: the reader left, nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAIL
    except (OSError, ValueError) as exc:  # an output not written, an input not read, ReportError...
        sys.stderr.write(f"accelgui: error: {exc}\n")
        return EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
