"""Overview: the machine at a glance, each accelerator's readiness, the verdict, what next."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (QGridLayout, QHBoxLayout, QProgressBar, QPushButton,
                               QSizePolicy, QVBoxLayout, QWidget)

from accelgui.advisor import source_kind
from accelgui.export.advice import START_HERE_N, goal_line, start_entries
from accelgui.export.labels import bus_label, vendor_label
from accelgui.report import driver_missing
from accelgui.gui.views.goal import GoalPicker, assessed_goal
from accelgui.l10n import field_text as device_text
from accelgui.gui.views.common import (lead, READINESS_COLOURS, STATUS_COLOURS, Badge, Card, key_label, tone,
                                       ViewState, clear_layout, fmt_bytes, heading, html_escape,
                                       fmt_num, kind_text, level_text, muted, para, readiness_text,
                                       scroll_page, source_text, status_text, tr_obj, unknown)

STATUS_ORDER = ("ready", "partial", "remote", "unavailable")
CARD_COLUMNS = 3


def route_title(route, kb, lang: str) -> str:
    data = kb.routes.get(route.id) if kb is not None else None
    if data:
        return tr_obj(data.get("title"), lang)
    return route.title or route.id


def step_title(step_id: str, kb, lang: str) -> str:
    step = kb.steps.get(step_id) if kb is not None else None
    return tr_obj(step.get("title"), lang) if step else step_id


def top_next_steps(report, kb=None, done=frozenset(), limit: int = START_HERE_N) -> list[tuple[str, str]]:
    """[(route id, step id)]: the report's "Start here" (its ``advice``, built once with the
    report; for an older report the same, computed once: accelgui.export.advice), without the
    steps in ``done`` (ticked since the advisor last ran; the new advice follows at once)."""
    done = frozenset(done or ())
    return [(e.get("route") or "", e["step"]) for e in start_entries(report)
            if e["step"] not in done][:limit]


def _entry_text(entry: dict, field: str, lang: str) -> str:
    both = entry.get(f"{field}_msg")
    return tr_obj(both, lang) if isinstance(both, dict) else str(entry.get(field) or "")


#: feature families shown as one item with their members: "avx512 (f, bw, vnni, bf16)"
FEATURE_FAMILIES = ("avx512", "amx")


def feature_summary(features: list[str]) -> str:
    """Every feature, none cut off (the widest ones come last in the kernel's order): the
    members of a family (AVX-512, AMX) folded into one item where they first appear."""
    members: dict[str, list[str]] = {}
    items: list[str] = []
    for feature in features:
        family = next((f for f in FEATURE_FAMILIES if feature.startswith(f)), None)
        if family is None:
            items.append(feature)
            continue
        if family not in members:
            members[family] = []
            items.append(family)
        rest = feature[len(family):].lstrip("_")
        if rest:
            members[family].append(rest)
    return ", ".join(f"{item} ({', '.join(members[item])})" if members.get(item) else item
                     for item in items)


class OverviewView(QWidget):
    open_route = Signal(str)
    open_page = Signal(str)
    goal_chosen = Signal(str)       # an advisor.GOALS id, "" for no particular goal

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.goal_picker: GoalPicker | None = None
        self._picker_focus = False      # the picker was used: the one rebuilt takes the focus
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self._area, self._inner, self._body = scroll_page(self)
        outer.addWidget(self._area)
        self.state = ViewState()
        self._waiting = None            # what the page without a report was drawn from
        self._sections: dict = {}       # name -> [box, its layout, what it was drawn from]

    def retranslate(self) -> None:
        self._waiting = None
        for entry in self._sections.values():
            entry[2] = None
        self.render(self.state)

    def _common_key(self, state: ViewState) -> tuple:
        palette = self.palette()
        return (state.lang, palette.color(QPalette.ColorRole.Base).name(),
                palette.color(QPalette.ColorRole.Text).name())

    # -- rendering ---------------------------------------------------------------------------
    def render(self, state: ViewState) -> None:
        """Build what changed: each section keeps what it was drawn from (:meth:`_section_keys`),
        so benchmark figures alone (the page shows none) rebuild nothing."""
        self.state = state
        report = state.report
        if report is None:
            waiting = (state.error, self._common_key(state))
            if waiting != self._waiting:
                clear_layout(self._body)
                self._sections = {}
                self._render_waiting(state)
                self._waiting = waiting
            return
        self._waiting = None
        if not self._sections:          # the first report (or the one after the waiting page)
            clear_layout(self._body)
            for name in SECTIONS:
                box = QWidget()
                layout = QVBoxLayout(box)
                layout.setContentsMargins(0, 0, 0, 0)
                layout.setSpacing(self._body.spacing())
                self._body.addWidget(box)
                self._sections[name] = [box, layout, None]
            self._body.addStretch(1)
        # only the sections whose facts changed are built again: the advice arriving rebuilds
        # the verdict, next steps and estimates, not the machine and its devices (~50 ms whole)
        body = self._body
        try:
            for name, key in self._section_keys(state).items():
                box, layout, drawn_from = self._sections[name]
                if key == drawn_from:
                    continue
                clear_layout(layout)
                self._body = layout
                getattr(self, f"_render_{name}")(state)
                self._sections[name][2] = key
                box.setVisible(layout.count() > 0)
        finally:
            self._body = body

    def _section_keys(self, state: ViewState) -> dict:
        """What each section is drawn from (its render function reads nothing else)."""
        r = state.report
        common = self._common_key(state)
        return {
            "header": (r.created, r.sysroot, r.platform, r.accelgui_version, state.live,
                       state.source, r.routes, common),     # the goal picker shows the routes' goal
            "machine": (r.cpu, r.memory, r.platform, common),
            "accelerators": (r.cpu, r.devices, r.probes, common),
            "verdict": (r.routes, state.kb, state.busy, state.advice_error, common),
            "next_steps": (r.routes, r.advice, state.kb, state.done, common),
            "estimates": (r.estimates, common),
            "probe_problems": (r.probes, common),
        }

    def _render_waiting(self, state: ViewState) -> None:
        self._body.addWidget(heading(self.tr("This machine"), 6))
        if state.error:
            card = Card(READINESS_COLOURS["driver-missing"])
            card.body.addWidget(heading(self.tr("Probing failed"), 1))
            card.body.addWidget(para(state.error))
            self._body.addWidget(card)
        else:
            self._body.addWidget(muted(self.tr("Probing this machine… the pages fill in as the "
                                               "results arrive.")))
            bar = QProgressBar()
            bar.setRange(0, 0)
            bar.setMaximumWidth(320)
            self._body.addWidget(bar)
        self._body.addStretch(1)

    def _render_header(self, state: ViewState) -> None:
        report = state.report
        if state.live:
            title = self.tr("This machine")
            sub = self.tr("Probed {when}").format(when=_short_time(report.created))
            if report.sysroot and report.sysroot != "/":
                title = source_text(report, state.lang)       # "Recorded: <tree>"
                sub += " · " + self.tr("recorded tree {path}").format(path=report.sysroot)
        else:
            host = report.platform.hostname or self.tr("another machine")
            title = source_text(report, state.lang, state.source, live=False)   # "Opened report: <file>"
            sub = self.tr("Report from {host}").format(host=host) + " · " + \
                self.tr("Opened from {path} · created {when} · accelgui {version}").format(
                path=state.source or "?", when=_short_time(report.created),
                version=report.accelgui_version)
        top = QHBoxLayout()
        top.addWidget(heading(title, 6), 1)
        self._add_goal_picker(top, state)      # at the top: in view at 1280x800 and above
        self._body.addLayout(top)
        self._body.addWidget(muted(sub))

    def _render_machine(self, state: ViewState) -> None:
        report = state.report
        cpu, mem, plat = report.cpu, report.memory, report.platform
        card = Card()
        grid = QGridLayout()
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(6)
        rows = [
            (self.tr("Processor"), self._cpu_line(cpu)),
            (self.tr("Vector features"), feature_summary(cpu.features) or self.tr("none reported")),
            (self.tr("Memory"), self._memory_line(mem)),
            (self.tr("System"), " · ".join(x for x in (plat.os_release or plat.os, (
                self.tr("kernel {version}").format(version=plat.kernel) if plat.kernel else None),
                plat.machine or cpu.arch) if x) or unknown()),
            (self.tr("Runs on"), self._where_line(plat)),
        ]
        if plat.hostname:
            rows.append((self.tr("Host name"), plat.hostname))
        for i, (name, value) in enumerate(rows):
            key = key_label(name)
            key.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
            grid.addWidget(key, i, 0)
            grid.addWidget(para(value), i, 1)
        grid.setColumnStretch(1, 1)
        card.body.addLayout(grid)
        self._body.addWidget(card)

    def _cpu_line(self, cpu) -> str:
        parts = [cpu.model_name or self.tr("unknown processor")]
        if cpu.microarchitecture:
            parts.append(cpu.microarchitecture)
        cores = None
        if cpu.cores_per_socket and cpu.sockets:
            cores = cpu.cores_per_socket * cpu.sockets
        threads = cpu.logical_cpus
        if cores and threads:
            parts.append(self.tr("{cores} cores / {threads} threads").format(cores=cores, threads=threads))
        elif threads:
            parts.append(self.tr("{threads} logical CPUs").format(threads=threads))
        if cpu.sockets and cpu.sockets > 1:
            parts.append(self.tr("{n} sockets").format(n=cpu.sockets))
        if cpu.max_mhz:
            parts.append(f"{cpu.max_mhz / 1000:.2f} GHz")
        return " · ".join(parts)

    def _memory_line(self, mem) -> str:
        if mem.total_bytes is None:
            return unknown()
        text = fmt_bytes(mem.total_bytes)
        if mem.available_bytes is not None:
            text += " " + self.tr("({available} available)").format(available=fmt_bytes(mem.available_bytes))
        if mem.numa_nodes and mem.numa_nodes > 1:
            text += " · " + self.tr("{n} NUMA nodes").format(n=mem.numa_nodes)
        return text

    def _where_line(self, plat) -> str:
        parts = []
        if plat.virtualization:
            parts.append(self.tr("{hv} virtual machine").format(hv=plat.virtualization.upper()
                                                                if len(plat.virtualization) <= 4
                                                                else plat.virtualization))
        if plat.cloud:
            provider = (plat.cloud or {}).get("provider") or "?"
            itype = (plat.cloud or {}).get("instance_type")
            cloud = self.tr("on the {provider} cloud").format(provider=provider.upper()
                                                              if len(provider) <= 3 else provider)
            if itype:
                cloud += f" ({itype})"
            parts.append(cloud)
        if plat.container:
            parts.append(self.tr("inside a {kind} container").format(kind=plat.container))
        if not parts:
            return self.tr("no virtualisation detected (bare metal)")
        return " · ".join(parts)

    def _render_accelerators(self, state: ViewState) -> None:
        report = state.report
        self._body.addWidget(heading(self.tr("Compute devices"), 2))
        grid = QGridLayout()
        grid.setSpacing(12)
        cards = [self._cpu_card(report)]
        cards += [self._device_card(group, state.lang) for group in group_devices(report.devices)]
        if not report.devices:
            cards.append(self._no_device_card(report))
        for i, card in enumerate(cards):
            grid.addWidget(card, i // CARD_COLUMNS, i % CARD_COLUMNS)
        for col in range(CARD_COLUMNS):
            grid.setColumnStretch(col, 1)
        self._body.addLayout(grid)

    def _card_top(self, card: Card, title: str, badge: Badge | None) -> None:
        """The card's title with its badge beside it, or under it when both would not fit a
        narrow card (1024 px window, a long title or badge, wide Chinese glyphs)."""
        label = heading(title, 1)
        if badge is None:
            card.body.addWidget(label)
            return
        width = sum(2 if ord(ch) > 0x2e80 else 1 for ch in title + badge.text())
        if width > 22:
            card.body.addWidget(label)
            row = QHBoxLayout()
            row.addWidget(badge)
            row.addStretch(1)
            card.body.addLayout(row)
            return
        row = QHBoxLayout()
        row.addWidget(label, 1)
        row.addWidget(badge)
        card.body.addLayout(row)

    def _cpu_card(self, report) -> Card:
        cpu = report.cpu
        card = Card(READINESS_COLOURS["ready"])
        self._card_top(card, self.tr("CPU"), Badge(readiness_text("ready"), READINESS_COLOURS["ready"]))
        card.body.addWidget(para(cpu.model_name or self.tr("unknown processor")))
        simd_prefixes = ("avx", "amx", "sve", "sme", "neon", "fma", "vsx", "rvv", "lsx", "lasx")
        simd = [f for f in cpu.features if f.startswith(simd_prefixes)]
        if simd:
            card.body.addWidget(muted(self.tr("SIMD: {features}").format(features=feature_summary(simd))))
        else:
            card.body.addWidget(muted(self.tr("No wide SIMD extensions reported")))
        card.body.addStretch(1)
        return card

    def _device_card(self, group: list, lang: str = "en") -> Card:
        dev = group[0]
        colour = READINESS_COLOURS.get(dev.readiness, READINESS_COLOURS["unknown"])
        card = Card(colour)
        title = kind_text(dev.kind)
        if len(group) > 1:
            title = f"{len(group)} × {title}"
        if dev.integrated:
            title += " · " + self.tr("integrated")
        self._card_top(card, title, Badge(readiness_text(dev.readiness), colour))
        card.body.addWidget(para(dev.name or self.tr("unnamed device")))
        bus = bus_label(dev.bus)
        address = bus and dev.address and f"{bus} {dev.address}"
        if len(group) > 1 and address:
            address = self.tr("{bus} {first} … {last}").format(bus=bus, first=dev.address,
                                                              last=group[-1].address)
        where = [x for x in (vendor_label(dev.vendor, lang), address,
                             dev.driver and self.tr("driver {name}").format(name=dev.driver)) if x]
        if driver_missing(dev.readiness, dev.driver, dev.details):
            where.append(self.tr("no driver bound"))
        card.body.addWidget(muted(" · ".join(where)))
        details = dev.details or {}
        facts = []
        if details.get("memory_bytes"):
            facts.append(self.tr("{size} memory").format(size=fmt_bytes(details["memory_bytes"])))
        if details.get("compute_capability"):
            facts.append(self.tr("compute capability {cc}").format(cc=details["compute_capability"]))
        if details.get("gfx_target"):
            facts.append(str(details["gfx_target"]))
        if facts:
            card.body.addWidget(muted(" · ".join(facts)))
        reason = device_text(dev, "readiness_reason", lang)
        fix_text = device_text(dev, "fix", lang)
        if reason:
            card.body.addWidget(para(reason))
        if fix_text:
            fix = para(lead(self.tr("Fix:")) + html_escape(fix_text), rich=True)
            fix.setObjectName("deviceFix")
            card.body.addWidget(fix)
        card.body.addStretch(1)
        return card

    def _no_device_card(self, report) -> Card:
        card = Card(READINESS_COLOURS["unknown"])
        self._card_top(card, self.tr("No accelerator found"), None)
        card.body.addWidget(para(self.tr(
            "The probes saw no GPU, NPU, TPU or FPGA on this machine. The CPU routes run here; "
            "GPU and TPU work can still be learned on a cloud instance or a free notebook "
            "service.")))
        failed = [p.name for p in report.probes if p.status in ("error", "timeout")]
        if failed:
            card.body.addWidget(muted(self.tr("Some probes failed ({names}), so a device may "
                                              "have been missed.").format(names=", ".join(failed))))
        card.body.addStretch(1)
        return card

    def _render_verdict(self, state: ViewState) -> None:
        report, kb, lang = state.report, state.kb, state.lang
        card = Card()
        card.body.addWidget(heading(self.tr("Verdict"), 2))
        if not report.routes:
            if state.busy == "advising":
                card.body.addWidget(muted(self.tr("Working out which learning routes fit this machine…")))
            elif state.advice_error:
                card.body.addWidget(para(self.tr("The advisor could not run: {error}").format(
                    error=state.advice_error)))
            else:
                card.body.addWidget(muted(self.tr("This report carries no route assessment.")))
            self._body.addWidget(card)
            return
        groups: dict[str, list] = {s: [] for s in STATUS_ORDER}
        for route in report.routes:
            groups.setdefault(route.status, []).append(route)
        total = len(report.routes)
        here = len(groups["ready"]) + len(groups["partial"])
        headline = self.tr("{here} of {total} learning routes can be followed on this machine").format(
            here=here, total=total)
        if groups["remote"]:
            headline += self.tr("; {n} more through the cloud or emulation").format(n=len(groups["remote"]))
        headline += self.tr(".")
        card.body.addWidget(para(headline))
        labels = {
            "ready": self.tr("Ready here"),
            "partial": self.tr("Partly ready (something to install)"),
            "remote": self.tr("Through the cloud or emulation"),
            "unavailable": self.tr("Not available"),
        }
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(8)
        row = 0
        for status in STATUS_ORDER:
            if not groups.get(status):
                continue
            label = key_label(labels[status])
            label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
            label.setContentsMargins(0, 3, 0, 0)
            grid.addWidget(label, row, 0)
            chips = FlowRow()
            for route in groups[status]:
                chips.add(self._route_chip(route, kb, lang))
            grid.addWidget(chips, row, 1)
            row += 1
        grid.setColumnStretch(1, 1)
        card.body.addLayout(grid)
        self._body.addWidget(card)

    def _route_chip(self, route, kb, lang) -> QPushButton:
        button = QPushButton(route_title(route, kb, lang))
        colour = STATUS_COLOURS.get(route.status, STATUS_COLOURS["unavailable"])
        button.setToolTip("\n".join([status_text(route.status)] + [str(r) for r in route.reasons[:3]]))
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setObjectName("chip")
        button.setAutoDefault(True)          # Enter opens it too, not only Space
        button.setAccessibleName(self.tr("{route}: {status}").format(
            route=route_title(route, kb, lang), status=status_text(route.status)))
        button.setProperty("tone", tone(colour))
        button.clicked.connect(lambda _=False, rid=route.id: self.open_route.emit(rid))
        return button

    def _render_next_steps(self, state: ViewState) -> None:
        report, kb, lang = state.report, state.kb, state.lang
        if not report.routes:
            return
        done = frozenset(state.done or ())
        entries = [e for e in start_entries(report) if e["step"] not in done]
        card = Card()
        card.body.addLayout(self._next_steps_top(state))
        goal = goal_line(report, lang, face="app")
        if goal:
            goal_label = muted(goal)
            goal_label.setObjectName("goalLine")
            card.body.addWidget(goal_label)
        if not entries:
            card.body.addWidget(muted(self.tr("Nothing left to suggest: every step of the routes "
                                              "that fit this machine is done.")))
        for i, entry in enumerate(entries, 1):
            route_id, step_id = entry.get("route") or "", entry["step"]
            step = kb.steps.get(step_id) if kb is not None else None
            meta = [_entry_text(entry, "route_title", lang) or route_id]
            if entry.get("level"):
                meta.append(level_text(entry["level"]))
            if entry.get("hours"):
                meta.append(self.tr("{hours} h").format(hours=entry["hours"]))
            text = (f"{i}. <a href='route:{html_escape(route_id)}'>"
                    f"{html_escape(_entry_text(entry, 'title', lang) or step_id)}</a>"
                    f" <span>— {html_escape(' · '.join(meta))}</span>")
            label = para(text, rich=True)
            label.linkActivated.connect(self._on_link)
            card.body.addWidget(label)
            reason = _entry_text(entry, "reason", lang)
            if reason:
                why = muted(reason)
                why.setObjectName("startReason")
                why.setContentsMargins(18, 0, 0, 0)
                card.body.addWidget(why)
            if step and step.get("summary"):
                summary = muted(tr_obj(step["summary"], lang))
                summary.setContentsMargins(18, 0, 0, 4)
                card.body.addWidget(summary)
        self._body.addWidget(card)

    def _next_steps_top(self, state: ViewState) -> QHBoxLayout:
        """The card's heading (the goal picker it is ranked by sits in the page's header)."""
        row = QHBoxLayout()
        row.addWidget(heading(self.tr("Next steps"), 2), 1)
        return row

    def _add_goal_picker(self, row: QHBoxLayout, state: ViewState) -> None:
        """"My goal:" and its picker at the end of ``row``. The new advice rebuilds the header;
        a picker just used gives its successor the focus, so that a keyboard user going
        through the goals with the arrow keys keeps their place."""
        picker = GoalPicker(state.lang, assessed_goal(state.report))
        picker.activated.connect(lambda _i, p=picker: self._goal_activated(p))
        picker.left.connect(self._goal_left)
        row.addWidget(picker.label)
        row.addWidget(picker)
        self.goal_picker = picker
        if self._picker_focus:
            picker.take_focus()

    def _goal_activated(self, picker: GoalPicker) -> None:
        self._picker_focus = True
        self.goal_chosen.emit(picker.goal() or "")

    def _goal_left(self) -> None:
        self._picker_focus = False

    def _device_cell(self, dev: dict) -> str:
        text = str(dev.get("device") or "?")
        if dev.get("needs_driver"):
            text += " " + self.tr("(once its driver is installed)")
        elif dev.get("needs_runtime"):
            text += " " + self.tr("(once a compute runtime is installed)")
        return text

    def _run_cells(self, dev: dict) -> tuple[str, str]:
        """What a device can run: the largest model at a usable speed (with its speed and
        where the bandwidth figure came from), and the largest that merely fits."""
        source = self.tr("(measured bandwidth)") if source_kind(dev.get("bandwidth_source") or "") \
            == "measured" else self.tr("(specification)")

        def pick(p: dict) -> str:
            speed = p.get("decode_tokens_per_s")
            if not isinstance(speed, (int, float)):
                return f"{p.get('size')} {p.get('quant')}"
            return self.tr("{model}, ~{n} tokens/s").format(
                model=f"{p.get('size')} {p.get('quant')}", n=fmt_num(speed))

        big = dev.get("largest_fitting") or {}
        usable = dev.get("largest_usable") or {}
        if not big:
            return self.tr("none of the listed sizes"), self.tr("none of the listed sizes")
        if not isinstance(big.get("decode_tokens_per_s"), (int, float)):
            return self.tr("needs a bandwidth figure"), pick(big)
        first = pick(usable) + " " + source if usable else self.tr("none of the listed sizes")
        return first, pick(big)

    def _render_estimates(self, state: ViewState) -> None:
        est = state.report.estimates
        if not isinstance(est, dict) or not est:
            return
        card = Card()
        card.body.addWidget(heading(self.tr("What this machine can run (estimates)"), 2))
        devices = [d for d in est.get("devices") or [] if isinstance(d, dict)]
        if devices:
            grid = QGridLayout()
            grid.setHorizontalSpacing(16)
            grid.setVerticalSpacing(4)
            headers = (self.tr("Device"), self.tr("Memory for weights"),
                       self.tr("Runs at a usable speed (5+ tokens/s)"),
                       self.tr("Largest that fits"), self.tr("Fine-tuning fits"))
            for col, text in enumerate(headers):
                label = key_label(text)
                grid.addWidget(label, 0, col)
            for row, dev in enumerate(devices[:6], 1):
                cells = [self._device_cell(dev), fmt_bytes(dev.get("memory_bytes")),
                         *self._run_cells(dev), self._finetune_text(dev.get("finetune") or [])]
                for col, text in enumerate(cells):
                    grid.addWidget(para(text), row, col)
            grid.setColumnStretch(0, 3)
            for col in range(1, 5):
                grid.setColumnStretch(col, 2)
            card.body.addLayout(grid)
        else:
            lines = [str(x) for x in est.get("summary") or [] if x]
            for row in est.get("llm") or []:
                if not isinstance(row, dict):
                    continue
                speed = row.get("decode_tokens_per_s")
                text = f"{row.get('model', '?')} {row.get('quant', '')}: " + (
                    self.tr("fits") if row.get("fits") else self.tr("does not fit"))
                if row.get("fits") and speed:
                    text += " · " + self.tr("~{n} tokens/s").format(n=speed)
                lines.append(text)
            if not lines:
                return
            for line in lines[:6]:
                card.body.addWidget(para("• " + line))
        card.body.addWidget(muted(self.tr(
            "Estimates from formulas, not measurements: real speed depends on the runtime, batch "
            "size and context length. Run a benchmark to base them on this machine's own "
            "bandwidth.")))
        self._body.addWidget(card)

    def _finetune_text(self, rows: list) -> str:
        best: dict = {}
        for r in rows:
            if not isinstance(r, dict) or not r.get("fits"):
                continue
            method = re.split(r"[ ,;:\uff0c\uff1b\uff1a\uff08(]", str(r.get("method") or ""), maxsplit=1)[0]
            if r.get("params_b", 0) >= best.get(method, {}).get("params_b", -1):
                best[method] = r
        if not best:
            return self.tr("none of the listed sizes")
        return " · ".join(f"{m} {r.get('size')}" for m, r in best.items())

    def _render_probe_problems(self, state: ViewState) -> None:
        bad = [p for p in state.report.probes if p.status in ("error", "timeout")]
        if not bad:
            return
        names = ", ".join(f"{p.name} ({p.status})" for p in bad)
        label = para(self.tr("Some probes had problems: {names}. <a href='page:hardware'>See the "
                             "details on the Hardware page</a>.").format(names=html_escape(names)),
                     rich=True)
        label.linkActivated.connect(self._on_link)
        self._body.addWidget(label)

    def _on_link(self, link: str) -> None:
        kind, _, value = link.partition(":")
        if kind == "route":
            self.open_route.emit(value)
        elif kind == "page":
            self.open_page.emit(value)


SECTIONS = ("header", "machine", "accelerators", "verdict", "next_steps", "estimates",
            "probe_problems")


def group_devices(devices: list) -> list[list]:
    """Identical devices (same kind, model, driver and state) share one card: "8 × GPU"."""
    groups: dict = {}
    for dev in devices:
        details = dev.details or {}
        key = (dev.kind, dev.vendor, dev.name, dev.driver, dev.readiness, dev.integrated,
               dev.readiness_reason, dev.fix, details.get("memory_bytes"),
               details.get("compute_capability"))
        groups.setdefault(key, []).append(dev)
    return list(groups.values())


class FlowRow(QWidget):
    """Widgets left to right, wrapping to a new row when the width runs out."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._items: list[QWidget] = []
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._spacing = 8

    def add(self, widget: QWidget) -> None:
        widget.setParent(self)
        self._items.append(widget)
        widget.show()
        self.updateGeometry()

    def _layout(self, width: int, apply: bool) -> int:
        x = y = row_h = 0
        for w in self._items:
            hint = w.sizeHint()
            if x and x + hint.width() > width:
                x, y = 0, y + row_h + self._spacing
                row_h = 0
            if apply:
                w.setGeometry(x, y, hint.width(), hint.height())
            x += hint.width() + self._spacing
            row_h = max(row_h, hint.height())
        return y + row_h

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._layout(width, False)

    def sizeHint(self):
        from PySide6.QtCore import QSize

        return QSize(400, self._layout(max(self.width(), 400), False))

    def minimumSizeHint(self):
        from PySide6.QtCore import QSize

        return QSize(100, self._layout(max(self.width(), 100), False))

    def resizeEvent(self, event) -> None:
        self._layout(self.width(), True)
        super().resizeEvent(event)


def _short_time(iso: str | None) -> str:
    if not iso:
        return "?"
    return iso.replace("T", " ")[:16]
