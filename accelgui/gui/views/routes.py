"""Routes: one card per learning route coloured by status; a route's learning path on click.

Ticking a step's checkbox records it with :mod:`accelgui.progress` (the same file the CLI's
``--done`` writes) and asks the main window to re-run the advisor. A step with a check or an
exercise (accelgui.exercises) gets Verify (and Start exercise) buttons, which act on this computer
only: when the window shows an opened report or a recorded tree (:meth:`RoutesView.set_source`,
contract 1 of accelgui.appstate) they are disabled and say which machine they would not check.
Each step says where the learner stands: "done: your work passed" (with the figures kept),
"ticked by hand" or "ready to start" (an environment check passed).
"""

from __future__ import annotations

import os

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (QCheckBox, QGridLayout, QHBoxLayout, QLabel, QMessageBox,
                               QPushButton, QStackedWidget, QVBoxLayout, QWidget)

from accelgui.advisor import goal_label, route_goals
from accelgui.export.advice import goal_line
from accelgui.gui.views.common import (lead, STATUS_COLOURS, Badge, Card, ViewState, clear_layout,
                                       heading, html_escape, level_text, muted, para,
                                       scroll_page, status_text, tr_obj)
from accelgui.gui.views.goal import assessed_goal
from accelgui.report import report_dict as as_report_dict

CARD_COLUMNS = 2
ONE_COLUMN_BELOW_PX = 980
FALLBACK_NAMES = {"cloud", "emulation", "simulation", "none"}


def open_url(url: str) -> bool:
    """Open a resource in the user's browser (patched in tests)."""
    return QDesktopServices.openUrl(QUrl(url))


def open_folder(path: str) -> bool:
    """Open an exercise folder in the file manager (patched in tests)."""
    return QDesktopServices.openUrl(QUrl.fromLocalFile(path))


def confirm_root(parent: QWidget) -> bool:
    """Ask before running a step's check as root (patched in tests)."""
    from accelgui.l10n import tr as msg_tr

    lang = getattr(getattr(parent, "state", None), "lang", "en")
    answer = QMessageBox.question(parent, msg_tr("knowledge.verify.root_title", lang),
                                  msg_tr("knowledge.verify.root_question", lang))
    return answer == QMessageBox.StandardButton.Yes


class RoutesView(QWidget):
    step_toggled = Signal(str, bool)        # step id, done
    step_verified = Signal(str)             # step id whose check ran (accelgui.verify)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = ViewState()
        self.current_route: str | None = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.stack = QStackedWidget()
        outer.addWidget(self.stack)
        self._list_area, _, self._list = scroll_page()
        self._detail_area, _, self._detail = scroll_page()
        self.stack.addWidget(self._list_area)
        self.stack.addWidget(self._detail_area)
        self.checkboxes: dict[str, QCheckBox] = {}
        self.verify_results: dict[str, dict] = {}   # step id -> last accelgui.verify result
        self.exercise_notes: dict[str, str] = {}    # step id -> what Start exercise did
        self._verify_tasks: set = set()
        self.source = None                          # accelgui.appstate.Source; None: this computer

    def set_source(self, source) -> None:
        """The machine the window shows (contract 1): Verify and Start exercise check and
        write on this computer, so they are enabled only when it shows this computer."""
        self.source = source
        self.render(self.state)

    def _is_live(self) -> bool:
        return self.source is None or bool(getattr(self.source, "is_live", True))

    def _acts_here_text(self) -> str:
        if self._is_live():
            return self.tr("Checks this computer")
        name = getattr(self.source, "name", None) or self.tr("the opened report")
        return self.tr("Checks this computer, not {machine}").format(machine=name)

    def start_exercise(self, step_id: str) -> None:
        """Write the step's exercise into its default workspace (never over edited files)."""
        from accelgui import exercises

        try:
            written = exercises.write_starter(step_id, lang=self.state.lang)
            self.exercise_notes[step_id] = self.tr(
                "Exercise written to {path}: edit it, then press Verify to grade it on this "
                "computer.").format(path=written["workspace"])
        except exercises.WorkspaceEditedError as exc:
            self.exercise_notes[step_id] = self.tr(
                "Your exercise files are in {path} (nothing was overwritten); press Verify to "
                "grade them.").format(path=exc.workspace)
        except OSError as exc:
            self.exercise_notes[step_id] = self.tr("Cannot write the exercise: {error}").format(error=str(exc))
        self.render(self.state)

    def verify_step(self, step_id: str) -> None:
        """Run the step's check in a worker thread (a child process with a timeout, no network)."""
        from accelgui import exercises, verify
        from accelgui.gui.workers import Task

        if not self._is_live() or (verify.is_root() and not confirm_root(self)):
            return
        report = self.state.report
        report_dict = as_report_dict(report)
        task = Task(exercises.verify_step, step_id, self.state.kb, None, None, report_dict,
                    name="accelgui-verify")
        self.verify_results[step_id] = {"status": "running"}
        self._verify_tasks.add(task)

        def finished(result, t=task):
            self._verify_tasks.discard(t)
            self.verify_results[step_id] = result
            self.step_verified.emit(step_id)
            self.render(self.state)

        def failed(message, t=task):
            self._verify_tasks.discard(t)
            self.verify_results[step_id] = {"status": "error", "reason": message}
            self.render(self.state)

        task.done.connect(finished)
        task.failed.connect(failed)
        task.start()
        self.render(self.state)

    def _verify_row(self, step: dict, card) -> None:
        """Where the learner stands on a step, its Verify / Start exercise buttons (this
        computer only) and the last result of its check or grading."""
        from accelgui import exercises, verify
        from accelgui.l10n import tr as msg_tr
        from accelgui.progress import load_verified, step_progress

        sid, lang = step.get("id", ""), self.state.lang
        kb = self.state.kb
        soft = [tr_obj(kb.steps[s].get("title"), lang) if kb is not None and s in kb.steps else s
                for s in step.get("prerequisites_soft") or []]
        if soft:
            card.body.addWidget(muted(msg_tr("knowledge.routes.helps", lang, steps="; ".join(soft))))
        if step.get("cost_class"):
            card.body.addWidget(muted(msg_tr("knowledge.routes.cost", lang,
                                             cost=msg_tr(f"knowledge.cost.{step['cost_class']}", lang))))
        verified = load_verified()
        evidence = verified.get(sid)
        where = step_progress(sid, {s: None for s in self.state.done}, verified)
        manifest = exercises.for_step(sid)
        row = QHBoxLayout()
        if where:
            colour = {"passed": STATUS_COLOURS["ready"], "ready": STATUS_COLOURS["remote"]}.get(where, "#546e7a")
            badge = Badge(msg_tr(f"verify.progress.{where}", lang), colour)
            badge.setObjectName(f"progress-{sid}")
            if evidence:
                badge.setToolTip(str(evidence.get("date", ""))[:10])
            row.addWidget(badge)
        row.addStretch(1)
        where = self._action_buttons(row, sid, manifest) if verify.has_check(step) or manifest else None
        card.body.addLayout(row)
        if where is not None:
            card.body.addWidget(where)
        if manifest:
            card.body.addWidget(muted(self.tr("Exercise graded on this computer: {title}").format(
                title=tr_obj(manifest["title"], lang))))
        if evidence:
            self._evidence_label(card, sid, evidence)
        if self.exercise_notes.get(sid):
            note = muted(self.exercise_notes[sid])
            note.setObjectName(f"exercise-note-{sid}")
            card.body.addWidget(note)
        self._result_label(card, sid)

    def _action_buttons(self, row, sid: str, manifest: dict | None) -> QLabel:
        """Start exercise / Open folder / Verify into ``row``; the label saying which machine
        they act on (shown under the row)."""
        from accelgui import exercises
        from accelgui.l10n import tr as msg_tr

        live, lang = self._is_live(), self.state.lang
        where = self._acts_here_text()
        if manifest:
            start = QPushButton(self.tr("Start exercise"))
            start.setObjectName(f"exercise-{sid}")
            start.setToolTip(where)
            start.setEnabled(live)
            start.clicked.connect(lambda _=False, s=sid: self.start_exercise(s))
            row.addWidget(start)
            folder = exercises.default_workspace(manifest)
            if live and os.path.isdir(folder):
                opener = QPushButton(self.tr("Open folder"))
                opener.setObjectName(f"exercise-folder-{sid}")
                opener.clicked.connect(lambda _=False, f=folder: open_folder(f))
                row.addWidget(opener)
        button = QPushButton(msg_tr("knowledge.verify.button", lang))
        button.setObjectName(f"verify-{sid}")
        button.setToolTip(msg_tr("knowledge.verify.button_tip", lang) + " (" + where + ")")
        running = self.verify_results.get(sid, {}).get("status") == "running"
        button.setEnabled(live and not running)
        button.clicked.connect(lambda _=False, s=sid: self.verify_step(s))
        row.addWidget(button)
        here = muted(where)
        here.setObjectName(f"verify-where-{sid}")
        return here

    def _evidence_label(self, card, sid: str, evidence: dict) -> None:
        """The evidence kept for a step: when, and for the learner's passed work each target
        as measured (or its figures); for an environment check, what it proved."""
        from accelgui.l10n import render as render_msg

        lang, date = self.state.lang, str(evidence.get("date", ""))[:10]
        if evidence.get("proves") != "work":
            lines = [self.tr("Ready to start since {date}: the tools this step needs work on this "
                             "computer.").format(date=date)]
        else:
            lines = [self.tr("Your work passed on {date}:").format(date=date)]
            lines += [render_msg(t["msg"], lang) for t in evidence.get("targets") or [] if t.get("msg")]
            if len(lines) == 1:
                lines.append(", ".join(f"{k} {v:.4g}" for k, v in (evidence.get("figures") or {}).items()
                                       if isinstance(v, (int, float))))
        label = para("<br>".join(html_escape(x) for x in lines if x), rich=True)
        label.setObjectName(f"evidence-{sid}")
        card.body.addWidget(label)

    def _result_label(self, card, sid: str) -> None:
        from accelgui.l10n import render as render_msg
        from accelgui.l10n import tr as msg_tr

        lang = self.state.lang
        result = self.verify_results.get(sid)
        if not result or result.get("status") == "running":
            return
        status = msg_tr(f"verify.status.{result['status']}", lang)
        reason = render_msg(result["reason_msg"], lang) if result.get("reason_msg") else result.get("reason", "")
        text = lead(status + ":") + html_escape(reason)
        for target in result.get("targets") or []:
            if len(result["targets"]) > 1:
                text += "<br>" + html_escape(("✓ " if target.get("met") else "✗ ") + render_msg(target["msg"], lang))
        if result["status"] == "ready":
            text += "<br>" + html_escape(msg_tr("verify.ready_note", lang))
        if result.get("check_override") and result.get("check_file"):
            # a check from an override folder is code the user chose to run: say so
            text += "<br>" + html_escape(msg_tr("verify.source.override", lang, file=result["check_file"]))
        if result.get("excerpt") and result["status"] != "done":
            text += "<br><small>" + html_escape(result["excerpt"][:400]).replace("\n", "<br>") + "</small>"
        label = para(text, rich=True)
        label.setObjectName(f"verify-result-{sid}")
        card.body.addWidget(label)

    def retranslate(self) -> None:
        self.render(self.state)

    def _columns(self) -> int:
        return CARD_COLUMNS if self.width() >= ONE_COLUMN_BELOW_PX else 1

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if getattr(self, "_rendered_columns", None) not in (None, self._columns()):
            self._render_list(self.state)

    # -- list of routes --------------------------------------------------------------------------
    def render(self, state: ViewState) -> None:
        self.state = state
        self._render_list(state)
        if self.current_route:
            scroll = self._detail_area.verticalScrollBar().value()
            self._render_detail(self.current_route)
            self._detail_area.verticalScrollBar().setValue(scroll)
            self.stack.setCurrentIndex(1)
        else:
            self.stack.setCurrentIndex(0)

    def _routes(self) -> list:
        """[(route id, RouteAssessment or None)] in knowledge-base order; with a goal (the one
        the routes were assessed for), the routes serving it first."""
        report, kb = self.state.report, self.state.kb
        assessed = {r.id: r for r in report.routes} if report is not None else {}
        ids = list(kb.routes) if kb is not None else []
        ids += [rid for rid in assessed if rid not in ids]
        goal = assessed_goal(report)
        if goal:
            serves = route_goals()
            ids.sort(key=lambda rid: goal not in serves.get(rid, ()))
        return [(rid, assessed.get(rid)) for rid in ids]

    def _render_list(self, state: ViewState) -> None:
        clear_layout(self._list)
        self._list.addWidget(heading(self.tr("Learning routes"), 6))
        routes = self._routes()
        if not routes:
            if state.busy:
                text = self.tr("Working out which learning routes fit this machine…")
            elif state.advice_error:
                text = self.tr("The advisor could not run: {error}").format(error=state.advice_error)
            else:
                text = self.tr("No learning routes are available (the knowledge base did not load).")
            self._list.addWidget(muted(text))
            self._list.addStretch(1)
            return
        self._list.addWidget(muted(self.tr(
            "Green: ready on this machine. Amber: something to install first. Blue: follow it "
            "through the cloud, an emulator or a simulator. Grey: not possible here. Open a "
            "route to see its learning path.")))
        goal = assessed_goal(state.report)
        line = goal_line(state.report, state.lang, face="app") if goal else None
        if line:
            goal_text = muted(line)
            goal_text.setObjectName("goalLine")
            self._list.addWidget(goal_text)
        if goal:
            self._list.addWidget(muted(self.tr("The routes for your goal, {goal}, come first; "
                                               "change the goal under Next steps on the "
                                               "Overview.").format(goal=goal_label(goal, state.lang))))
        grid = QGridLayout()
        grid.setSpacing(12)
        columns = self._columns()
        self._rendered_columns = columns
        for i, (rid, assessment) in enumerate(routes):
            grid.addWidget(self._route_card(rid, assessment), i // columns, i % columns)
        for c in range(columns):
            grid.setColumnStretch(c, 1)
        self._list.addLayout(grid)
        self._list.addStretch(1)

    def _route_card(self, rid: str, assessment) -> Card:
        kb, lang = self.state.kb, self.state.lang
        data = kb.routes.get(rid) if kb is not None else None
        status = assessment.status if assessment else None
        colour = STATUS_COLOURS.get(status or "unavailable", STATUS_COLOURS["unavailable"])
        card = Card(colour)
        card.setObjectName("card")
        card.setProperty("route_id", rid)
        top = QHBoxLayout()
        title = tr_obj(data.get("title"), lang) if data else (assessment.title or rid)
        top.addWidget(heading(title, 2), 1)
        top.addWidget(Badge(status_text(status) if status else self.tr("not assessed"), colour))
        card.body.addLayout(top)
        if data and data.get("summary"):
            summary = tr_obj(data["summary"], lang)
            stop = "\u3002"                      # the ideographic full stop
            first = summary.split(". ")[0].split(stop)[0]
            card.body.addWidget(muted(first.rstrip("." + stop) + ("." if lang != "zh" else stop)))
        if assessment:
            for reason in assessment.reasons[:3]:
                card.body.addWidget(para("• " + str(reason)))
        steps = (data or {}).get("steps", [])
        done = sum(1 for s in steps if s.get("id") in self.state.done)
        row = QHBoxLayout()
        if steps:
            hours = sum(s.get("hours") or 0 for s in steps)
            row.addWidget(muted(self.tr("{n} steps · about {hours} h · {done} done").format(
                n=len(steps), hours=hours, done=done)), 1)
        else:
            row.addStretch(1)
        button = QPushButton(self.tr("Open learning path"))
        button.setObjectName(f"open-{rid}")
        button.setAutoDefault(True)          # Enter opens it too, not only Space
        button.clicked.connect(lambda _=False, r=rid: self.open_route(r))
        button.setEnabled(bool(data))
        row.addWidget(button)
        card.body.addLayout(row)
        card.body.addStretch(1)
        return card

    # -- one route's learning path ---------------------------------------------------------------
    def open_route(self, route_id: str) -> None:
        self.current_route = route_id
        self._render_detail(route_id)
        self._detail_area.verticalScrollBar().setValue(0)
        self.stack.setCurrentIndex(1)

    def show_list(self) -> None:
        self.current_route = None
        self.stack.setCurrentIndex(0)

    def _render_detail(self, route_id: str) -> None:
        clear_layout(self._detail)
        self.checkboxes = {}
        kb, lang, report = self.state.kb, self.state.lang, self.state.report
        data = kb.routes.get(route_id) if kb is not None else None
        assessment = next((r for r in report.routes if r.id == route_id), None) if report else None
        back = QPushButton(self.tr("← All routes"))
        back.setShortcut("Alt+Left")
        back.clicked.connect(self.show_list)
        row = QHBoxLayout()
        row.addWidget(back)
        row.addStretch(1)
        self._detail.addLayout(row)
        if data is None:
            self._detail.addWidget(muted(self.tr("This route is not in the knowledge base.")))
            self._detail.addStretch(1)
            return
        top = QHBoxLayout()
        top.addWidget(heading(tr_obj(data.get("title"), lang), 6), 1)
        if assessment:
            top.addWidget(Badge(status_text(assessment.status),
                                STATUS_COLOURS.get(assessment.status, STATUS_COLOURS["unavailable"])))
        self._detail.addLayout(top)
        self._detail.addWidget(para(tr_obj(data.get("summary"), lang)))
        self._render_fit(data, assessment)
        self._render_steps(data, assessment)
        self._render_capstone(data)
        self._render_corrections(data)
        self._detail.addStretch(1)

    def _render_fit(self, data: dict, assessment) -> None:
        lang = self.state.lang
        card = Card(STATUS_COLOURS.get(assessment.status, None) if assessment else None)
        card.body.addWidget(heading(self.tr("On this machine"), 1))
        if assessment is None:
            card.body.addWidget(muted(self.tr("Not assessed for this report.")))
        else:
            for reason in assessment.reasons:
                card.body.addWidget(para("• " + str(reason)))
            for block in assessment.blocking or []:
                req = block.get("requirement") if isinstance(block, dict) else None
                req_data = next((r for r in data.get("requirements", []) if r.get("id") == req), None)
                label = tr_obj(req_data.get("label"), lang) if req_data else str(req)
                fix = block.get("fix") if isinstance(block, dict) else None
                fix_text = tr_obj(fix, lang) if fix else (tr_obj(req_data.get("fix"), lang) if req_data else "")
                fallback = block.get("fallback") if isinstance(block, dict) else None
                text = lead(self.tr("Missing:")) + html_escape(label)
                if fix_text:
                    text += "<br>" + lead(self.tr("What to do:")) + html_escape(fix_text)
                if fallback and fallback != "none":
                    text += "<br>" + html_escape(self.tr("Meanwhile: {fallback}").format(
                        fallback=self._fallback_text(fallback)))
                card.body.addWidget(para(text, rich=True))
        tools = data.get("tools") or []
        if tools:
            links = ", ".join(f"<a href='{html_escape(t.get('url', ''))}'>{html_escape(t.get('name', ''))}</a>"
                              for t in tools if t.get("url"))
            label = para(lead(self.tr("Tools:")) + links, rich=True)
            label.linkActivated.connect(open_url_proxy)
            card.body.addWidget(label)
        self._detail.addWidget(card)

    def _fallback_text(self, fallback: str) -> str:
        return {"cloud": self.tr("use a cloud instance"), "emulation": self.tr("use an emulator"),
                "simulation": self.tr("use a simulator")}.get(fallback, fallback)

    def _render_steps(self, data: dict, assessment) -> None:
        kb, lang, done = self.state.kb, self.state.lang, self.state.done
        steps = data.get("steps", [])
        total_h = sum(s.get("hours") or 0 for s in steps)
        left_h = sum(s.get("hours") or 0 for s in steps if s.get("id") not in done)
        n_done = sum(1 for s in steps if s.get("id") in done)
        self._detail.addWidget(heading(self.tr("Learning path"), 3))
        self._detail.addWidget(muted(self.tr("{done} of {n} steps done · about {left} of {total} "
                                             "hours left").format(done=n_done, n=len(steps),
                                                                  left=left_h, total=total_h)))
        blocking = {b.get("requirement") for b in (assessment.blocking if assessment else []) or []
                    if isinstance(b, dict)}
        next_ids = list(assessment.next_steps) if assessment else []
        for number, step in enumerate(steps, 1):
            sid = step.get("id", "")
            is_next = bool(next_ids) and sid == next_ids[0]
            card = Card(STATUS_COLOURS["ready"] if sid in done else
                        (STATUS_COLOURS["remote"] if is_next else None))
            top = QHBoxLayout()
            box = QCheckBox(f"{number}. {tr_obj(step.get('title'), lang)}")
            box.setObjectName(f"step-{sid}")
            font = box.font()
            font.setBold(True)
            font.setPointSizeF(font.pointSizeF() + 1)
            box.setFont(font)
            box.setChecked(sid in done)
            box.setToolTip(self.tr("Tick when you have done this step; it is saved on this computer."))
            box.toggled.connect(lambda checked, s=sid: self.step_toggled.emit(s, checked))
            self.checkboxes[sid] = box
            top.addWidget(box, 1)
            if is_next:
                top.addWidget(Badge(self.tr("next"), STATUS_COLOURS["remote"]))
            top.addWidget(Badge(level_text(step.get("level", "")), "#546e7a"))
            if step.get("hours"):
                top.addWidget(QLabel(self.tr("{hours} h").format(hours=step["hours"])))
            card.body.addLayout(top)
            card.body.addWidget(para(tr_obj(step.get("summary"), lang)))
            prereqs = step.get("prerequisites") or []
            if prereqs:
                names = []
                for pid in prereqs:
                    pstep = kb.steps.get(pid) if kb is not None else None
                    name = tr_obj(pstep.get("title"), lang) if pstep else pid
                    names.append(("✓ " if pid in done else "") + name)
                card.body.addWidget(muted(self.tr("Before this: {steps}").format(steps=self.tr("; ").join(names))))
            needs = [n for n in step.get("needs") or [] if n in blocking]
            if needs:
                card.body.addWidget(muted(self.tr("Needs hardware or software this machine lacks; "
                                                  "use the fallback above.")))
            if step.get("verify"):
                card.body.addWidget(para(lead(self.tr("Check:"))
                                         + html_escape(tr_obj(step["verify"], lang)), rich=True))
            self._verify_row(step, card)
            resources = step.get("resources") or []
            if resources:
                items = []
                for res in resources:
                    kind = self._kind_text(res.get("kind"))
                    url = res.get("url_zh") if lang == "zh" and res.get("url_zh") else res.get("url", "")
                    items.append(f"<a href='{html_escape(url)}'>{html_escape(tr_obj(res.get('title'), lang))}</a>"
                                 + (f" <small>({html_escape(kind)})</small>" if kind else ""))
                label = para(lead(self.tr("Resources:")) + " · ".join(items), rich=True)
                label.setObjectName(f"resources-{sid}")
                label.linkActivated.connect(open_url_proxy)
                card.body.addWidget(label)
            self._detail.addWidget(card)

    def _render_capstone(self, data: dict) -> None:
        from accelgui.l10n import tr as msg_tr

        cap, lang = data.get("capstone"), self.state.lang
        if not cap:
            return
        card = Card()
        card.setObjectName("capstone")
        card.body.addWidget(heading(msg_tr("knowledge.routes.capstone", lang, title=tr_obj(cap.get("title"), lang)), 1))
        card.body.addWidget(para(tr_obj(cap.get("summary"), lang)))
        card.body.addWidget(para(html_escape(msg_tr("knowledge.routes.deliverable", lang,
                                                    text=tr_obj(cap.get("deliverable"), lang))), rich=True))
        links = " · ".join(f"<a href='{html_escape(r.get('url', ''))}'>{html_escape(tr_obj(r.get('title'), lang))}</a>"
                           for r in cap.get("resources") or [])
        if links:
            label = para(links, rich=True)
            label.linkActivated.connect(open_url_proxy)
            card.body.addWidget(label)
        self._detail.addWidget(card)

    def _kind_text(self, kind: str | None) -> str | None:
        names = {"docs": self.tr("docs"), "course": self.tr("course"), "repo": self.tr("code"),
                 "book": self.tr("book"), "paper": self.tr("paper"), "video": self.tr("video")}
        return names.get(kind, kind) if kind else None

    def _render_corrections(self, data: dict) -> None:
        lang = self.state.lang
        corrections = data.get("corrections") or []
        if not corrections:
            return
        card = Card()
        card.body.addWidget(heading(self.tr("Common misconceptions, corrected"), 1))
        for c in corrections:
            text = (lead(self.tr("Often said:")) + html_escape(tr_obj(c.get("said"), lang))
                    + "<br>" + lead(self.tr("In fact:")) + html_escape(tr_obj(c.get("correct"), lang)))
            if c.get("source_url"):
                source = self.tr("source")
                text += f" <a href='{html_escape(c['source_url'])}'>{html_escape(source)}</a>"
            label = para(text, rich=True)
            label.linkActivated.connect(open_url_proxy)
            card.body.addWidget(label)
        self._detail.addWidget(card)


def open_url_proxy(url: str) -> None:
    """Late-bound so tests can replace :func:`open_url`."""
    import accelgui.gui.views.routes as module

    module.open_url(url)
