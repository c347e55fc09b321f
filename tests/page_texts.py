"""Every text a person sees in a Qt widget tree, and the rule that tells a raw key from words.

:func:`visible_texts` walks a shown window: labels (rich text made plain, with its code spans
apart), buttons and check boxes, group boxes, tab titles, combo box entries, list items, the
headers and cells of tables and trees, line-edit placeholders, the menu bar's menus, the status
bar's message, and the titles, axis labels, legends and text items of pyqtgraph plots. Each text
comes with where it is (widget, row, column), the header of its column and, in trees and tables,
the label of its row.

:func:`raw_keys` says which parts of a text are keys rather than words:

- a snake_case identifier that the report or its contract uses as a field name
  (``total_bytes``, ``cores_per_socket``: any depth of the reports shown, the properties of
  accelgui/report.schema.json, the columns of the reference tables) or that names a message of
  the catalogue; in a header or a label cell, any snake_case identifier. The names of programs
  and functions that a route's prose mentions (``benchmark_app``, ``quantize_dynamic``) are
  words of that prose, and data the report holds as a name (a driver such as ``intel_vpu``, a
  CPU feature such as ``avx512_vnni``, a package) is data, never a key, but the name of one of
  accelgui's own probes (``gpu_nvidia``) or a measured point's label (``stream_triad``) is an id;
- a dotted path whose first part is a report section, a benchmark section or a message
  catalogue area (``memory.available_bytes``, ``cpu.fma.accumulators``, ``app.label.x``);
- a table or tree label cell that is exactly a report field name (``contract``);
- a device or a family named by its family id (``amd-gpu card1``, a "Family" row or column
  whose value is ``nvidia-gpu`` where the family has a display name);
- a table or tree cell cut short by the program (ending in ``…``).

What is code is never a key: text inside ``<code>``/``<tt>``/``<pre>``/``<kbd>`` or backticks,
paths and URLs, environment variable assignments (``XLA_FLAGS=…``), command-line options
(``--probe``), and the values of a row or column that names a driver, package, module,
provider, command, path or file.
"""

from __future__ import annotations

import html
import json
import os
import re
import sys
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# rows and columns whose values are names of software or places, in both languages
NAME_HEADINGS = re.compile(
    r"driver|package|module|provider|command|path|file|folder|kernel|compiler|toolkit|library|"
    r"\u9a71\u52a8|\u8f6f\u4ef6\u5305|\u5305|\u6a21\u5757|\u63d0\u4f9b|\u547d\u4ee4|\u8def\u5f84|"
    r"\u6587\u4ef6|\u5185\u6838|\u7f16\u8bd1\u5668|\u5de5\u5177\u5305|\u5e93",
    re.IGNORECASE)
# the keys of a report whose string values are names (of a driver, a module, a package, a host)
NAME_FIELDS = re.compile(r"(^|_)(name|names|driver|drivers|module|modules|provider|providers|"
                         r"kernel|hostname|model|vendor|path|compiler|blas|features|flags)$")
# the records of the program's own parts: their names are ids (a probe "gpu_nvidia"), not data
OWN_PARTS = re.compile(r"^probes$")
# maps of a report keyed by names, not by fields (``software.packages``: {"torch": "2.5.1"})
NAME_KEYED = re.compile(r"(^|\.)(packages|compilers|environments|providers)$")

SNAKE = re.compile(r"(?<![\w./\\$%{-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/(=-])")
DOTTED = re.compile(r"(?<![\w./\\@:-])[a-z][a-z0-9_]*(?:\.[a-z0-9_][a-z0-9_-]*)+(?![\w/(]|\.\w)")
CODE_SPAN = re.compile(r"<(code|tt|pre|kbd)\b[^>]*>.*?</\1>", re.IGNORECASE | re.DOTALL)
BACKTICKS = re.compile(r"`[^`]*`")
CODE_WORD = re.compile(r"\S*(?:://|/|\\)\S*"           # a path or a URL
                       r"|\b[A-Z][A-Z0-9_]*=\S*"      # an environment variable assignment
                       r"|(?<!\S)--?[a-z][\w-]*(?:=\S*)?")   # a command-line option
TAGS = re.compile(r"<[^>]+>")
FILE_ENDINGS = {"json", "py", "md", "txt", "csv", "pdf", "html", "so", "ko", "sh", "toml", "yaml",
                "yml", "com", "org", "net", "io", "dev", "ai", "cn", "edu", "gov"}


@dataclass(frozen=True)
class Seen:
    """One visible text: where it is and what names its row and column."""
    where: str
    text: str
    column: str = ""        # the header of its column (tables, trees)
    row: str = ""           # the label of its row (first column), for value cells
    cell: bool = False      # a table or tree cell
    label_cell: bool = False  # the first column of a table or tree


# == collecting ==========================================================================

def _name(widget) -> str:
    name = widget.objectName()
    return type(widget).__name__ + (f"#{name}" if name else "")


def _plain(text: str, rich: bool) -> str:
    """The words of a label as shown: code spans removed (code is never a key), tags dropped."""
    if rich:
        text = CODE_SPAN.sub(" ", text)
        text = html.unescape(TAGS.sub(" ", text.replace("<br>", "\n")))
    return BACKTICKS.sub(" ", text)


def _label_text(label) -> tuple[str, bool]:
    from PySide6.QtGui import Qt        # mightBeRichText lives in QtGui's Qt namespace

    fmt = label.textFormat()
    text = label.text()
    rich = fmt == Qt.TextFormat.RichText or (fmt == Qt.TextFormat.AutoText and Qt.mightBeRichText(text))
    return text, rich


def _table(table, where: str) -> list[Seen]:
    out = []
    header = [table.horizontalHeaderItem(c).text() if table.horizontalHeaderItem(c) else ""
              for c in range(table.columnCount())]
    if table.horizontalHeader().isVisible():
        out += [Seen(f"{where} header", h) for h in header if h]
    for r in range(table.rowCount()):
        if table.isRowHidden(r):
            continue
        first = table.item(r, 0).text() if table.item(r, 0) else ""
        for c in range(table.columnCount()):
            item = table.item(r, c)
            if item is None or table.isColumnHidden(c) or not item.text():
                continue
            out.append(Seen(f"{where} row {r} column {c}", item.text(), header[c],
                            first if c else "", True, c == 0))
    return out


def _tree(tree, where: str) -> list[Seen]:
    header = [tree.headerItem().text(c) for c in range(tree.columnCount())]
    out = [Seen(f"{where} header", h) for h in header if h and not tree.isHeaderHidden()]

    def visit(item, path):
        label = item.text(0)
        for c in range(tree.columnCount()):
            if item.text(c):
                out.append(Seen(f"{where} {path} column {c}", item.text(c), header[c],
                                label if c else "", True, c == 0))
        for i in range(item.childCount()):
            if not item.child(i).isHidden():
                visit(item.child(i), f"{path}/{item.child(i).text(0)[:40]}")

    for i in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(i)
        if not top.isHidden():
            visit(top, top.text(0)[:40])
    return out


def _plot_item_texts(item, where: str, pg) -> list[Seen]:
    out = []
    if item.titleLabel.isVisible() and item.titleLabel.text:
        out.append(Seen(f"{where} title", _plain(item.titleLabel.text, True)))
    for side in ("left", "bottom", "right", "top"):
        axis = item.getAxis(side)
        if axis.isVisible() and axis.labelText:
            out.append(Seen(f"{where} {side} axis", _plain(axis.labelText, True)))
    if item.legend is not None and item.legend.isVisible():
        out += [Seen(f"{where} legend", _plain(label.text, True)) for _sample, label in item.legend.items]
    out += [Seen(f"{where} text", child.toPlainText()) for child in item.items
            if isinstance(child, pg.TextItem) and child.isVisible()]
    return out


def _plots(root) -> list[Seen]:
    """Titles, axis labels, legend entries and text items of the pyqtgraph plots shown (when
    pyqtgraph is in use): plot widgets and the plots of graphics layouts alike."""
    pg = sys.modules.get("pyqtgraph")
    if pg is None or not hasattr(pg, "PlotItem") or not hasattr(pg, "GraphicsView"):
        return []       # not imported, or still being imported (off the GUI thread): no plot yet
    out = []
    for view in root.findChildren(pg.GraphicsView):
        if not view.isVisible() or view.scene() is None:
            continue
        items = [i for i in view.scene().items() if isinstance(i, pg.PlotItem) and i.isVisible()]
        for item in sorted(items, key=lambda i: (i.pos().y(), i.pos().x())):
            out += _plot_item_texts(item, _name(view), pg)
    return out


def _menu_texts(menu, where: str) -> list[Seen]:
    """The entries of a menu (and of its sub-menus), as the menu bar opens them."""
    out = []
    for action in menu.actions():
        if action.isVisible() and not action.isSeparator() and action.text():
            out.append(Seen(where, action.text().replace("&", "")))
            if action.menu() is not None:
                out += _menu_texts(action.menu(), f"{where} > {action.text().replace('&', '')}")
    return out


def _widget_texts(widget) -> list[Seen]:
    from PySide6.QtWidgets import (QAbstractButton, QComboBox, QGroupBox, QLabel, QLineEdit,
                                   QListWidget, QMenuBar, QStatusBar, QTableWidget, QTabWidget,
                                   QTreeWidget)

    where = _name(widget)
    if isinstance(widget, QMenuBar):
        return _menu_texts(widget, where)
    if isinstance(widget, QStatusBar):
        return [Seen(f"{where} message", widget.currentMessage())]
    if isinstance(widget, QLabel):
        text, rich = _label_text(widget)
        return [Seen(where, _plain(text, rich))] if text else []
    if isinstance(widget, QAbstractButton):
        return [Seen(where, _plain(widget.text().replace("&&", "\0").replace("&", "").replace("\0", "&"), False))]
    if isinstance(widget, QGroupBox):
        return [Seen(where, widget.title())]
    if isinstance(widget, QTabWidget):
        return [Seen(f"{where} tab", widget.tabText(i)) for i in range(widget.count())
                if widget.isTabVisible(i)]
    if isinstance(widget, QComboBox):
        return [Seen(f"{where} entry", widget.itemText(i)) for i in range(widget.count())]
    if isinstance(widget, QListWidget):
        return [Seen(f"{where} item", widget.item(i).text()) for i in range(widget.count())
                if not widget.item(i).isHidden()]
    if isinstance(widget, QLineEdit):
        return [Seen(f"{where} placeholder", widget.placeholderText())]
    if isinstance(widget, QTableWidget):
        return _table(widget, where)
    if isinstance(widget, QTreeWidget):
        return _tree(widget, where)
    return []


def visible_texts(root) -> list[Seen]:
    """Every text shown in ``root`` (a shown window), after the event loop has settled."""
    from PySide6.QtWidgets import QApplication, QWidget

    for _ in range(4):      # widgets added to a shown layout appear on the next turn
        QApplication.processEvents()
    out = [Seen(_name(root) + " title", root.windowTitle())]
    for widget in [root] + root.findChildren(QWidget):
        if widget.isVisible():
            out += [s for s in _widget_texts(widget) if s.text.strip()]
    return out + _plots(root)


# == the rule ============================================================================

def _walk(obj, path: str, keys: set, names: set) -> None:
    if isinstance(obj, dict):
        keyed_by_names = bool(NAME_KEYED.search(path))
        for key, value in obj.items():
            key = str(key)
            if keyed_by_names:
                names.update(re.findall(r"[\w.-]+", key))
            elif re.fullmatch(r"[a-z][a-z0-9_]*", key):
                keys.add(key)
            if isinstance(value, str) and OWN_PARTS.match(path) and key == "name":
                keys.add(value)                     # the id of one of accelgui's probes
            elif isinstance(value, str) and (keyed_by_names or NAME_FIELDS.search(key)):
                names.update(re.findall(r"[\w.-]+", value))
            _walk(value, f"{path}.{key}" if path else key, keys, names)
    elif isinstance(obj, list):
        named = NAME_KEYED.search(path) or NAME_FIELDS.search(path.rsplit(".", 1)[-1])
        for value in obj:
            if isinstance(value, str) and named:
                names.update(re.findall(r"[\w.-]+", value))
            _walk(value, path, keys, names)


def catalogue_areas() -> set[str]:
    folder = os.path.join(ROOT, "accelgui", "l10n", "en")
    return {name[:-5] for name in os.listdir(folder) if name.endswith(".json")}


def _schema_keys(node, out: set) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                out.update(k for k in value if re.fullmatch(r"[a-z][a-z0-9_]*", k))
            _schema_keys(value, out)
    elif isinstance(node, list):
        for value in node:
            _schema_keys(value, out)


def contract_keys() -> set[str]:
    """The field names of the report contract and the reference tables' columns."""
    out: set[str] = set()
    with open(os.path.join(ROOT, "accelgui", "report.schema.json"), encoding="utf-8") as f:
        _schema_keys(json.load(f), out)
    from accelgui.fact_tables import facts_document

    for table in facts_document(None, "en")["tables"]:
        out.update(c for c in table["columns"] if "_" in c)
    return out


def catalogue_ids() -> set[str]:
    """The snake_case parts of the catalogue's message ids: ids the program has words for."""
    out: set[str] = set()
    folder = os.path.join(ROOT, "accelgui", "l10n", "en")
    for name in os.listdir(folder):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                _message_names(json.load(f), out)
    return out


def _message_names(node, out: set) -> None:
    """The snake_case parts of the catalogue's message ids ("app.hw.probe.gpu_drm": gpu_drm)."""
    if isinstance(node, dict):
        for key, value in node.items():
            out.update(p for p in key.split(".") if re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)+", p))
            _message_names(value, out)


def family_ids() -> set[str]:
    from accelgui.probes.families import load_families

    return set(load_families())


@dataclass
class Vocabulary:
    """The keys of the reports shown (their field names, at every depth), the ids the catalogue
    has words for, the names the reports hold as data, the first parts of dotted keys, and the
    family ids."""
    keys: set = field(default_factory=set)
    catalogue: set = field(default_factory=set)
    names: set = field(default_factory=set)
    sections: set = field(default_factory=set)
    families: set = field(default_factory=set)

    @classmethod
    def of(cls, reports) -> Vocabulary:
        vocab = cls(keys=contract_keys(), catalogue=catalogue_ids(), families=family_ids(),
                    sections=catalogue_areas())
        for report in reports:
            data = report.to_dict() if hasattr(report, "to_dict") else report
            _walk(data, "", vocab.keys, vocab.names)
            vocab.sections.update(k for k in data if isinstance(k, str))
            bench = data.get("benchmarks")
            if isinstance(bench, dict):
                vocab.sections.update(k for k in bench if isinstance(k, str))
        return vocab

    def as_json(self) -> str:
        return json.dumps({k: sorted(v) for k, v in vars(self).items()}, ensure_ascii=False)


def _code_free(text: str) -> str:
    return CODE_WORD.sub(" ", text)


def _names_a_name(seen: Seen) -> bool:
    """A value whose row or column names a driver, a package, a command…: it is a name."""
    return bool(seen.cell and not seen.label_cell and
                (NAME_HEADINGS.search(seen.column) or NAME_HEADINGS.search(seen.row)))


def raw_keys(seen: Seen, vocab: Vocabulary) -> list[str]:
    """The raw keys in one visible text (empty when it is all words and data)."""
    found = []
    text = seen.text.strip()
    if seen.cell and text.endswith("\u2026"):
        found.append(f"cut value {text!r}")
    first = text.split(" ", 1)[0]
    if first in vocab.families and (text == first or re.match(r"\S+ \S+$", text)):
        found.append(f"family id {first!r}")
    if seen.label_cell and text in vocab.keys:
        found.append(f"field name {text!r}")
    if _names_a_name(seen):
        return found
    words = _code_free(text)
    for match in DOTTED.finditer(words):
        token = match.group(0)
        parts = token.split(".")
        if parts[-1] in FILE_ENDINGS or token in vocab.names:
            continue
        if parts[0] in vocab.sections or any("_" in p and (p in vocab.keys or p in vocab.catalogue)
                                             for p in parts):
            found.append(f"dotted key {token!r}")
    words = DOTTED.sub(" ", words)
    any_snake = seen.label_cell or seen.where.endswith(" header")
    for match in SNAKE.finditer(words):
        token = match.group(0)
        named = token in vocab.names and token not in vocab.catalogue     # data, not an id
        if not named and (any_snake or token in vocab.keys or token in vocab.catalogue):
            found.append(f"snake_case key {token!r}")
    return found
