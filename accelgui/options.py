"""The command line's options: one parser for the commands and the desktop app.

``accelgui`` (accelgui.cli) and ``python -m accelgui.gui.app`` read the same options, so an
option given to ``accelgui`` that opens the app (``--timeout``, ``--sysroot``, ``--lang``,
``--goal``...) is the app's too. Also here: what several commands do with a shared option
(``--sysroot`` checked, the language, ``--goal`` saved once), and the exit codes.

Only argparse and os are imported: this module is on the path of ``accelgui --probe``.
A new command adds its flag in :func:`build_parser` and a row in ``accelgui.cli.COMMANDS``.
"""

from __future__ import annotations

import argparse
import os
import sys

from accelgui import METRICS_ADDRESS, __version__
from accelgui.export import FORMATS as EXPORT_FORMATS

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
PAGES = ("overview", "hardware", "benchmarks", "monitor", "routes", "reference", "reports", "fleet")
THEMES = ("system", "light", "dark")


class UsageError(Exception):
    """Bad arguments the user can fix; exit code 2 (EXIT_USAGE)."""


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


def _language(text: str) -> str:
    """--lang: "en" or "zh" (also as the locale spells them: en_US, zh_CN, zh-Hans)."""
    code = text.strip().lower().replace("-", "_")
    for lang in ("en", "zh"):
        if code == lang or code.startswith(lang + "_"):
            return lang
    raise argparse.ArgumentTypeError(f"not a language of accelgui (en, zh): {text!r}")


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
    mode.add_argument("--links", nargs="?", const="all", choices=("all", "stale", "unchecked", "verified"),
                      help="list every link of the knowledge base with the day it was last looked at and its "
                           "age, offline; 'stale': links older than a year and facts past their review date")
    mode.add_argument("--verify", metavar="STEP", action="append", default=[],
                      help="run a learning step's check and record the evidence (repeatable); "
                           "grades the step's exercise when its workspace exists")
    mode.add_argument("--exercise", metavar="STEP",
                      help="write a learning step's exercise (starter code, tests, README) into a "
                           "workspace folder; grade it with --verify STEP")
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
    opt.add_argument("--format", choices=tuple(EXPORT_FORMATS), default=None,
                     help="output format (default: json for --probe, text for --routes/--compare)")
    opt.add_argument("--output", "-o", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    opt.add_argument("--all", action="store_true", dest="all_rows",
                     help="--compare: list every difference, not only those that matter")
    opt.add_argument("--sysroot", metavar="DIR", default="/",
                     help="read a recorded machine tree instead of the running system")
    opt.add_argument("--redact", action="store_true",
                     help="remove host name, serials, UUIDs, MAC addresses and user names")
    opt.add_argument("--timeout", type=_seconds, default=5.0, metavar="S",
                     help="per-probe timeout in seconds, also for the app's probing (default 5)")
    opt.add_argument("--bench", choices=("quick", "full"),
                     help="also measure throughput (runs in a child process)")
    opt.add_argument("--deep", action="store_true",
                     help="import frameworks to confirm which back ends really work (slower)")
    opt.add_argument("--lang", type=_language, default=None, metavar="{en,zh}",
                     help="language of texts and of the app (default: from the locale)")
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
    opt.add_argument("--workspace", metavar="DIR",
                     help="the exercise folder of --exercise / --verify (default: in the user's data dir)")
    opt.add_argument("--force", action="store_true",
                     help="let --exercise start again over edited files (they are kept in a backup folder)")
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
    app.add_argument("--theme", choices=THEMES, default=None,
                     help="colour theme of the app (default: the last one chosen)")
    app.add_argument("--page", metavar="NAME", default=None,
                     help="page the app opens on: " + ", ".join(PAGES) + " (default: the last one shown)")
    return p


def check_sysroot(path: str) -> str:
    """``--sysroot DIR`` checked: "/" as it is, else the absolute path of a readable folder
    (UsageError otherwise)."""
    if path == "/":
        return path
    if not os.path.exists(path):
        raise UsageError(f"--sysroot {path}: no such directory")
    if not os.path.isdir(path):
        raise UsageError(f"--sysroot {path}: not a directory")
    if not os.access(path, os.R_OK | os.X_OK):
        raise UsageError(f"--sysroot {path}: not readable")
    return os.path.abspath(path)


def lang_of(args) -> str:
    """The language of texts: ``--lang``, else the locale's (LC_ALL, LC_MESSAGES, LANG)."""
    if getattr(args, "lang", None):
        return args.lang
    env = os.environ.get("LC_ALL") or os.environ.get("LC_MESSAGES") or os.environ.get("LANG") or ""
    return "zh" if env.lower().startswith("zh") else "en"


def apply_goal_option(args, stream=None) -> str | None:
    """Save (or, with ``--goal none``, clear) the goal of ``--goal`` once per command and say
    so on ``stream`` (stderr by default: stdout may be a report); returns the goal.
    UsageError for a goal the advisor does not know."""
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
    lang = lang_of(args)
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
