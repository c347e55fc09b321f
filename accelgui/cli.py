"""Command line: ``accelgui`` opens the app; ``accelgui --probe`` prints a report.

The headless paths (--probe, --routes, --compare, --record-tree, --done/--undo) never import
Qt, pyqtgraph or Numba: benchmarks run in a child process, and the PDF exporter imports Qt
only when that format is asked for.
"""

from __future__ import annotations

import argparse
import os
import sys

from accelgui import METRICS_ADDRESS, __version__

FORMATS = ("json", "text", "markdown", "html", "pdf", "prometheus", "nfd")
COMPARE_FORMATS = ("text", "markdown", "html", "json")
EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments the user can fix; exit code 2."""


def _seconds(text: str) -> float:
    """--timeout: a finite number of seconds above zero (inf would overflow a thread join,
    0, negative or nan would time every probe out)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < 1e6:
        raise argparse.ArgumentTypeError(f"must be more than 0 and less than 1e6 seconds: {text!r}")
    return value


def _tokens(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of tokens: {text!r}") from None
    if not 1 <= n <= 10_000_000:
        raise argparse.ArgumentTypeError("context must be between 1 and 10000000 tokens")
    return n


def _columns() -> int:
    """The terminal's width as shutil.get_terminal_size reads it ($COLUMNS, else the terminal
    of stdout, else 80), without importing shutil: argparse would, for every parser, and shutil
    pulls in the compression modules (milliseconds of every headless start)."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _HelpFormatter(argparse.HelpFormatter):
    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        super().__init__(prog, indent_increment, max_help_position,
                         _columns() - 2 if width is None else width)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="accelgui",
        formatter_class=_HelpFormatter,
        description="What this machine can do for accelerated computing. "
                    "Without options, opens the desktop app.",
        epilog="Examples: accelgui --probe --format text | accelgui --probe --bench quick "
               "--output report.json | accelgui --routes --lang zh | "
               "accelgui --compare old.json new.json")
    mode = p.add_argument_group("what to do")
    mode.add_argument("--probe", action="store_true", help="probe this machine and print a report")
    mode.add_argument("--report", metavar="FILE",
                      help="open a saved report in the app; with --format, render it (to --output)")
    mode.add_argument("--routes", action="store_true", help="print the learning routes catalogue")
    mode.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"),
                      help="show what differs between two saved reports")
    mode.add_argument("--record-tree", metavar="DIR",
                      help="copy the files the probes read into DIR (redacted), for bug reports; "
                           "replay with --sysroot DIR")
    mode.add_argument("--done", metavar="STEP", action="append", default=[],
                      help="mark a learning step as done (repeatable)")
    mode.add_argument("--undo", metavar="STEP", action="append", default=[],
                      help="mark a learning step as not done (repeatable)")
    mode.add_argument("--facts", nargs="?", const="all", metavar="TABLE",
                      help="print the dated fact tables (or one), this machine's rows marked")
    mode.add_argument("--verify", metavar="STEP", action="append", default=[],
                      help="run a learning step's check and record the evidence (repeatable)")
    mode.add_argument("--install-desktop", action="store_true",
                      help="install the desktop entry, AppStream metainfo and icons for this user "
                           "($XDG_DATA_HOME or ~/.local/share)")
    mode.add_argument("--uninstall-desktop", action="store_true",
                      help="remove what --install-desktop installed")
    mode.add_argument("--version", action="version", version=f"accelgui {__version__}")
    mode.add_argument("--schema", action="store_true",
                      help="print the JSON schema of the report (--probe's JSON output)")
    mode.add_argument("--print-man", action="store_true", help="print the man page (troff), e.g. > accelgui.1")
    mode.add_argument("--print-completion", choices=("bash", "zsh", "fish"), metavar="SHELL",
                      help="print the shell completion script for SHELL: bash, zsh or fish")
    opt = p.add_argument_group("settings")
    opt.add_argument("--format", choices=FORMATS, default=None,
                     help="output format (default: json for --probe, text for --routes/--compare)")
    opt.add_argument("--output", "-o", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    opt.add_argument("--sysroot", metavar="DIR", default="/",
                     help="read a recorded machine tree instead of the running system")
    opt.add_argument("--redact", action="store_true",
                     help="remove host name, serials, UUIDs, MAC addresses and user names")
    opt.add_argument("--timeout", type=_seconds, default=5.0, metavar="S",
                     help="per-probe timeout in seconds (default 5)")
    opt.add_argument("--bench", choices=("quick", "full"),
                     help="also measure throughput (runs in a child process)")
    opt.add_argument("--deep", action="store_true",
                     help="import frameworks to confirm which back ends really work (slower)")
    opt.add_argument("--lang", choices=("en", "zh"), default=None, help="language of texts")
    opt.add_argument("--knowledge", metavar="DIR",
                     help="extra or replacement route files (also $ACCELGUI_KNOWLEDGE_DIR)")
    opt.add_argument("--python", metavar="PATH", action="append", default=[],
                     help="also read this Python interpreter's packages (repeatable)")
    opt.add_argument("--context", metavar="TOKENS", type=_tokens, default=None,
                     help="context length for the LLM estimates (default 4096)")
    opt.add_argument("--goal", metavar="GOAL", default=None,
                     help="what you want to learn for: train, serve-llm, inference, edge, hardware-design, hpc, "
                          "basics (re-ranks routes and steps; saved with your progress, so later "
                          "runs use it and say so; 'none' clears it, with any command)")
    opt.add_argument("--allow-root", action="store_true",
                     help="let --verify run step checks as root")
    opt.add_argument("--verify-python", metavar="PATH",
                     help="Python interpreter (environment) that --verify runs Python checks in")
    opt.add_argument("--no-advice", action="store_true",
                     help="leave routes and estimates out of the report")
    # the live monitor (accelgui/monitor_cli.py, imported only when asked for)
    mode.add_argument("--monitor", action="store_true",
                      help="watch utilisation, clocks, memory, temperature and power live")
    mode.add_argument("--serve-metrics", nargs="?", const=METRICS_ADDRESS, default=None, metavar="HOST:PORT",
                      help=f"serve live Prometheus metrics (default {METRICS_ADDRESS}, loopback)")
    mode.add_argument("--fleet", metavar="PROMETHEUS_URL", default=None,
                      help="list every node a Prometheus server scrapes accelgui metrics from: "
                           "devices, readiness, utilisation, temperature, memory, last seen "
                           "(--format text or json)")
    opt.add_argument("--interval", type=float, default=1.0, metavar="S",
                     help="seconds between samples for --monitor / --serve-metrics (default 1)")
    opt.add_argument("--count", type=int, default=None, metavar="N", help="--monitor: stop after N samples")
    opt.add_argument("--system", action="store_true",
                     help="with --install-desktop/--uninstall-desktop: for every user, in /usr/local/share (root)")
    app = p.add_argument_group("app")
    app.add_argument("--theme", choices=("system", "light", "dark"), default=None,
                     help="colour theme of the app (default: the last one chosen)")
    app.add_argument("--page", metavar="NAME", default=None,
                     help="page the app opens on: overview, hardware, benchmarks, monitor, routes, "
                          "reference, reports, fleet")
    return p


def _check_sysroot(path: str) -> str:
    if path == "/":
        return path
    if not os.path.exists(path):
        raise UsageError(f"--sysroot {path}: no such directory")
    if not os.path.isdir(path):
        raise UsageError(f"--sysroot {path}: not a directory")
    if not os.access(path, os.R_OK | os.X_OK):
        raise UsageError(f"--sysroot {path}: not readable")
    return os.path.abspath(path)


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


def _lang(args) -> str:
    if args.lang:
        return args.lang
    env = os.environ.get("LC_ALL") or os.environ.get("LC_MESSAGES") or os.environ.get("LANG") or ""
    return "zh" if env.lower().startswith("zh") else "en"


def make_report(args, on_progress=None):
    """Probe, optionally benchmark, then advise. Shared by the CLI and the app's worker."""
    from accelgui.probes.context import ProbeContext
    from accelgui.runner import run_probes

    if getattr(args, "python", None):
        from accelgui.probes.software import EXTRA_PYTHONS_VAR

        os.environ[EXTRA_PYTHONS_VAR] = os.pathsep.join(args.python)
    ctx = ProbeContext(root=_check_sysroot(args.sysroot), deep=bool(getattr(args, "deep", False)))
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


def apply_goal_option(args, stream=None) -> str | None:
    """Save (or, with ``--goal none``, clear) the goal of ``--goal`` once per command and say
    so on ``stream`` (stderr by default: stdout may be a report); returns the goal."""
    from accelgui import advisor, l10n
    from accelgui.progress import set_goal

    applied = getattr(args, "_goal_applied", None)
    if applied is not None:
        return applied[0]
    goal = None if args.goal.strip().lower() in ("none", "") else args.goal
    try:
        advisor.check_goal(goal)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    lang = _lang(args)
    before = set_goal(goal)
    if goal is None:
        text = l10n.tr("advice.goal.cleared", lang, goal=advisor.goal_label(before, lang)
                       if before in advisor.GOALS else before) if before else \
            l10n.tr("advice.goal.none_saved", lang)
    else:
        text = l10n.tr("advice.goal.set", lang, goal=advisor.goal_label(goal, lang))
    (stream or sys.stderr).write(f"accelgui: {text}\n")
    args._goal_applied = (goal,)
    return goal


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


def cmd_probe(args) -> int:
    fmt = args.format or "json"
    if args.bench and args.sysroot != "/":
        raise UsageError("--bench measures this machine; it cannot describe a --sysroot tree")
    report = make_report(args, on_progress=_terminal_progress() if args.bench else None)
    if args.redact:
        from accelgui.redact import redact

        report = redact(report)
    from accelgui.export import render

    _emit(render(report, fmt, lang=_lang(args)), args.output)
    return EXIT_OK


def cmd_render_report(args) -> int:
    """``--report FILE --format F``: a saved report rendered in any export format."""
    from accelgui.export import render
    from accelgui.report import load_report

    from accelgui.export.advice import advice_of

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
    _emit(render(report, args.format, lang=_lang(args)), args.output)
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
    from accelgui.compare import compare_files

    fmt = args.format or "text"
    if fmt not in COMPARE_FORMATS:
        raise UsageError(f"--compare prints --format {', '.join(COMPARE_FORMATS)}")
    _emit(compare_files(args.compare[0], args.compare[1], fmt, lang=_lang(args)), args.output)
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
                           python=args.verify_python, sysroot=_check_sysroot(args.sysroot),
                           knowledge=args.knowledge)
        from accelgui.facts_cli import run_cli

        return run_cli(args.facts, _lang(args), fmt, sysroot=_check_sysroot(args.sysroot),
                       report_path=args.report)
    except KeyError as exc:
        what = "step id" if args.verify else "table"
        raise UsageError(f"unknown {what}: {exc.args[0]} (see accelgui --routes / --facts)") from None
    except PermissionError as exc:
        raise UsageError(str(exc)) from None


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

    count = record_tree(args.record_tree, source_root=_check_sysroot(args.sysroot))
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


def gui_main(argv: list[str] | None = None) -> int:
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
    return run_app(argv or [])


def _only_goal(args) -> bool:
    """``accelgui --goal G`` alone: save (or clear) the goal and say so; with another command,
    or with the app's options (--page, --theme, --report), the goal applies to that."""
    return not any((args.probe, args.routes, args.compare, args.record_tree, args.done, args.undo,
                    args.facts, args.verify, args.monitor, args.serve_metrics, args.fleet, args.install_desktop,
                    args.uninstall_desktop, args.page, args.theme, args.report))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.schema or args.print_man or args.print_completion:
            return cmd_cli_docs(args)
        if args.bench and args.probe:
            from accelgui.extras import require

            require("bench", "--bench")   # without Numba: how to install the bench extra, exit 2
        if args.goal is not None:   # saved or cleared, and said, whatever the command
            apply_goal_option(args, sys.stdout if _only_goal(args) else None)
        if args.compare:
            return cmd_compare(args)
        if args.routes:
            return cmd_routes(args)
        if args.record_tree:
            return cmd_record_tree(args)
        if args.done or args.undo:
            return cmd_progress(args)
        if args.goal is not None and _only_goal(args):
            print(f"goal: {_goal(args) or 'none'}")
            return EXIT_OK
        if args.facts or args.verify:
            return cmd_knowledge(args)
        if args.probe:
            return cmd_probe(args)
        if args.monitor or args.serve_metrics:
            from accelgui import monitor_cli

            run = monitor_cli.cmd_monitor if args.monitor else monitor_cli.serve_metrics
            return run(args, lang=_lang(args))
        if args.fleet is not None:
            return cmd_fleet(args)
        if args.install_desktop or args.uninstall_desktop:
            return cmd_desktop(args)
        if args.report and args.format:
            return cmd_render_report(args)
        if args.output or args.redact:
            if args.report:
                raise UsageError("--report FILE with --output or --redact needs --format "
                                 "(e.g. --report r.json --format html --output r.html)")
        if args.bench or args.format or args.output:
            raise UsageError("these options go with --probe (e.g. accelgui --probe --format text)")
        gui_args = ["--sysroot", _check_sysroot(args.sysroot)] if args.sysroot != "/" else []
        if args.report:
            gui_args += ["--report", args.report]
        if args.knowledge:
            gui_args += ["--knowledge", args.knowledge]
        if args.lang:
            gui_args += ["--lang", args.lang]
        if args.theme:
            gui_args += ["--theme", args.theme]
        if args.page:
            gui_args += ["--page", args.page]
        return gui_main(gui_args)
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
    except OSError as exc:  # an output that could not be written, a report that cannot be read
        sys.stderr.write(f"accelgui: error: {exc}\n")
        return EXIT_FAIL
    except ValueError as exc:  # ReportError, KnowledgeError...
        sys.stderr.write(f"accelgui: error: {exc}\n")
        return EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
