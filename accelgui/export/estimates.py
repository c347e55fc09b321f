"""Tables for the advisor's estimates (what fits, how fast it decodes; not measurements)."""

from __future__ import annotations

from accelgui.export.common import num
from accelgui.export.labels import in_words, label, tr, word
from accelgui.export.numbers import fmt_bytes, fmt_num, fmt_value
from accelgui.export.sanitize import clean, label_text
from accelgui.export.table import Table

def estimate_tables(estimates, lang: str = "en") -> tuple[list[list[str]], list["Table"]]:
    """Generic rendering of the advisor's estimates: scalar leaves as key/value rows, lists of
    objects as column tables (columns = the union of their scalar keys)."""
    kv: list[list[str]] = []
    tables: list[Table] = []
    if not isinstance(estimates, dict):
        return kv, tables

    def walk(obj, prefix):
        if isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, f"{prefix}.{k}" if prefix else str(k))
        elif isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
            cols: list[str] = []
            for x in obj:
                for k, v in x.items():
                    if not isinstance(v, (dict, list)) and k not in cols:
                        cols.append(k)
            rows = [[fmt_value(c, x.get(c), lang) if x.get(c) is not None else ""
                     for c in cols] for x in obj]
            tables.append(Table(key="estimates", title=clean(prefix), headers=[clean(c) for c in cols],
                                rows=rows))
        elif isinstance(obj, list):
            kv.append([clean(prefix), ", ".join(clean(tr(x, lang)) if not isinstance(x, (int, float))
                                                else fmt_num(x) for x in obj)])
        else:
            kv.append([clean(prefix), fmt_value(prefix.split(".")[-1], obj, lang)])

    walk(estimates, "")
    return kv, tables


def _tok(v) -> str:
    return f"{fmt_num(v)} tok/s" if num(v) is not None else ""


def _grid(rows: list[dict], column: str, cell) -> tuple[list[str], list[list[str]]]:
    """A model-size x ``column`` grid (quantisation, fine-tuning method): the column names in
    first-seen order and one row per model size, each cell ``cell(row)``."""
    cols: list[str] = []
    sizes: list[str] = []
    cells: dict[tuple, str] = {}
    for r in rows:
        col, size = clean(r.get(column)), clean(r.get("size") or r.get("params_b"))
        if col not in cols:
            cols.append(col)
        if size not in sizes:
            sizes.append(size)
        cells[(size, col)] = cell(r)
    return cols, [[sz] + [cells.get((sz, c), "") for c in cols] for sz in sizes]


def estimate_sections(estimates, lang: str = "en") -> list["Table"]:
    """Sections for the advisor's estimates: its summary lines, then per device an LLM-fit
    table (model size x quantisation) and a fine-tuning table, then the formulas; anything of
    another shape is rendered generically."""
    L = lambda k, **f: label(k, lang, **f)  # noqa: E731
    if not isinstance(estimates, dict) or not estimates:
        return []
    devices = estimates.get("devices")
    known = isinstance(devices, list) and all(isinstance(d, dict) for d in devices) and \
        any(isinstance(d.get("llm"), list) for d in devices)
    if not known:
        kv, tables = estimate_tables(estimates, lang)
        for t in tables:
            t.level = 3
        return [Table("estimates", L("estimates"), None, kv)] + tables
    summary = [clean(in_words(tr(x, lang), lang)) for x in estimates.get("summary") or [] if x]
    notes = " ".join(clean(in_words(tr(x, lang), lang)) for x in estimates.get("notes") or [] if x)
    out = [Table("estimates", L("estimates"), [L("summary")], [[x] for x in summary],
                 note=(f"{L('basis')}: {word(estimates.get('basis'), lang)}. " if estimates.get("basis") else "")
                 + notes)]
    for dev in devices:
        name = label_text(dev.get("device")) or label_text(dev.get("kind")) \
            or L("unknown")
        facts = []
        for key, src in (("memory_bytes", "memory_source"), ("bandwidth_gbps", "bandwidth_source"),
                         ("flops_gflops", "flops_source")):
            if dev.get(key) is not None:
                facts.append(f"{fmt_value(key, dev[key], lang)}"
                             + (f" ({clean(in_words(tr(dev.get(src), lang), lang))})" if dev.get(src) else ""))
        def llm_cell(r):
            if not r.get("fits"):
                return L("too_big") + (f" ({fmt_bytes(r['total_bytes'], lang)})"
                                       if r.get("total_bytes") is not None else "")
            text = L("fits")
            if r.get("total_bytes") is not None:
                text += f", {fmt_bytes(r['total_bytes'], lang)}"
            if num(r.get("decode_tokens_per_s")) is not None:
                text += f", {_tok(r['decode_tokens_per_s'])}"
            return text

        llm = [r for r in dev.get("llm") or [] if isinstance(r, dict)]
        if llm:
            quants, rows = _grid(llm, "quant", llm_cell)
            out.append(Table("estimates_llm", f"{name}: {L('llm_fit')}", [L("model_size")] + quants,
                             rows, note="; ".join(facts) or None, level=3, in_summary=False))
        ft = [r for r in dev.get("finetune") or [] if isinstance(r, dict)]
        if ft:
            methods, rows = _grid(ft, "method", lambda r: (L("fits") if r.get("fits") else L("too_big")) + (
                f", {fmt_bytes(r['bytes'], lang)}" if r.get("bytes") is not None else ""))
            out.append(Table("estimates_finetune", f"{name}: {L('finetune')}", [L("model_size")] + methods,
                             rows, level=3, in_summary=False))
    formulas = estimates.get("formulas")
    if isinstance(formulas, dict) and formulas:
        out.append(Table("estimates_formulas", L("formulas"), None,
                         [[label_text(k), clean(tr(v, lang))] for k, v in formulas.items()], level=3,
                         on_paper=False, in_summary=False))
    return out
