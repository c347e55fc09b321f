"""HTML: one self-contained, printable file.

Inline CSS, charts as inline SVG, no script, nothing loaded from anywhere: a
Content-Security-Policy meta forbids every fetch except inline styles and data: images.
Every value from the report goes through :func:`common.esc_html` (control characters
removed, ``& < > " '`` escaped), both in element text and in SVG ``<text>``.

:func:`body` is shared with the PDF exporter (``qt=True``: the HTML subset QTextDocument
renders, charts left to the caller).
"""

from __future__ import annotations

import math

from accelgui.export import benchmarks as bench_export
from accelgui.export import common
from accelgui.l10n import tr

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC",
       "Microsoft YaHei", "PingFang SC", sans-serif; margin: 0 auto; max-width: 72rem;
       padding: 1.5rem; color: #1d232a; background: #fff; line-height: 1.45; font-size: 15px; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .6rem; padding-bottom: .2rem; border-bottom: 2px solid #d8dee4; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
.meta { color: #57606a; font-size: .9rem; }
table { border-collapse: collapse; width: 100%; margin: .3rem 0 .8rem; font-size: .9rem; }
th, td { border: 1px solid #d0d7de; padding: .3rem .5rem; text-align: left; vertical-align: top;
         overflow-wrap: break-word; }
table.fixed { table-layout: fixed; }   /* column widths given: long tokens wrap, never widen it */
th { background: #f6f8fa; font-weight: 600; }
table.kv th { width: 14rem; }
table.t-devices { font-size: .82rem; }
.note { color: #57606a; font-style: italic; margin: .2rem 0 .8rem; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: .8rem; font-size: .85em;
         font-weight: 600; white-space: nowrap; border: 1px solid transparent; }
.s-ready, .s-ok { background: #dafbe1; color: #116329; border-color: #4ac26b; }
.s-partial, .s-runtime-missing, .s-absent { background: #fff8c5; color: #7d4e00; border-color: #d4a72c; }
.s-remote, .s-unknown { background: #ddf4ff; color: #0a3069; border-color: #54aeff; }
.s-unavailable, .s-driver-missing, .s-no-access, .s-error, .s-timeout {
         background: #ffebe9; color: #a40e26; border-color: #ff8182; }
.cards { display: flex; flex-wrap: wrap; gap: .8rem; margin: 1rem 0; }
.card { flex: 1 1 14rem; border: 1px solid #d0d7de; border-radius: .5rem; padding: .7rem .9rem; }
.card .k { color: #57606a; font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; }
.card .v { font-size: 1.05rem; font-weight: 600; }
.verdict { margin: .2rem 0; }
figure { margin: .8rem 0 1.2rem; }
figcaption { font-weight: 600; margin-bottom: .3rem; }
svg { max-width: 100%; height: auto; font-family: inherit; }
svg text { font-size: 11px; fill: #1d232a; }
footer { margin-top: 2.5rem; color: #57606a; font-size: .85rem; border-top: 1px solid #d8dee4;
         padding-top: .5rem; }
@media print {
  body { max-width: none; padding: 0; font-size: 10.5pt; }
  h2 { break-after: avoid; page-break-after: avoid; }
  table, figure, .card { break-inside: avoid; page-break-inside: avoid; }
  thead { display: table-header-group; }
  .badge { border-color: #888; }
  a { color: inherit; text-decoration: none; }
}
@page { size: A4; margin: 14mm; }
"""

_STATUS_CLASSES = {"ready", "ok", "partial", "runtime-missing", "absent", "remote", "unknown",
                   "unavailable", "driver-missing", "no-access", "error", "timeout"}

E = common.esc_html


def badge(status, lang: str = "en", qt: bool = False) -> str:
    key = str(status) if str(status) in _STATUS_CLASSES else "unknown"
    text = E(common.word(status, lang))
    if qt:
        colour = {"ready": "#116329", "ok": "#116329", "partial": "#7d4e00", "runtime-missing": "#7d4e00",
                  "absent": "#57606a", "remote": "#0a3069", "unknown": "#57606a"}.get(key, "#a40e26")
        return f'<span style="color:{colour}; font-weight:bold">{text.replace(" ", "&nbsp;")}</span>'
    return f'<span class="badge s-{key}">{text}</span>'


def table_html(t: common.Table, lang: str = "en", qt: bool = False) -> str:
    attrs = ' border="1" cellspacing="0" cellpadding="3" width="100%"' if qt else ""
    out = []
    tag = f"h{min(6, t.level)}"
    if t.title:
        out.append(f"<{tag}>{E(t.title)}</{tag}>")
    if t.headers is None and t.rows:
        out.append(f'<table class="kv"{attrs}><tbody>')
        for k, v in t.rows:
            out.append(f"<tr><th>{E(k)}</th><td>{E(v)}</td></tr>")
        out.append("</tbody></table>")
    elif t.headers is not None and t.rows:
        widths = [f' width="{w}%"' for w in t.col_widths] if len(t.col_widths) == len(t.headers) \
            else [""] * len(t.headers)
        fixed = " fixed" if len(t.col_widths) == len(t.headers) else ""
        cls = "" if qt else f' class="t-{E(t.key)}{fixed}"'
        out.append(f"<table{cls}{attrs}><thead><tr>"
                   + "".join(f"<th{w}>{E(h)}</th>" for h, w in zip(t.headers, widths))
                   + "</tr></thead><tbody>")
        for i, row in enumerate(t.rows):
            cells = []
            for j, cell in enumerate(row):
                if t.status_col == j and i < len(t.status_keys):
                    cells.append(f"<td>{badge(t.status_keys[i], lang, qt)}</td>")
                elif qt and len(cell) <= 16:  # keep short values ("79.6 GiB") on one line
                    cells.append(f"<td>{E(cell).replace(' ', '&nbsp;')}</td>")
                else:
                    cells.append(f"<td>{E(cell)}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
    if t.note:
        out.append(f'<p class="note"><i>{E(t.note)}</i></p>')
    return "\n".join(out)


# --------------------------------------------------------------------------- SVG charts

def _svg_open(w: int, h: int, title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
            f'role="img" aria-label="{E(title)}"><title>{E(title)}</title>'
            f'<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>')


def _f(x: float) -> str:
    return f"{x:.1f}"


def bars_svg(pairs, unit: str, lang: str = "en") -> str:
    """Horizontal bars: measured (solid) over theoretical (light), with efficiency."""
    label_w, bar_w, row_h, top = 170, 300, 24, 28
    w, h = label_w + bar_w + 200, top + row_h * len(pairs) + 12
    scale = max(max(m, t or 0) for _, m, t, _ in pairs) or 1.0
    title = f"{common.label('measured_vs_theoretical', lang)} ({unit})"
    out = [_svg_open(w, h, title)]
    out.append(f'<rect x="{label_w}" y="8" width="12" height="10" fill="#2f81f7"/>'
               f'<text x="{label_w + 16}" y="17">{E(tr("figures.legend.measured_median", lang))}</text>'
               f'<rect x="{label_w + 230}" y="8" width="12" height="10" fill="#d0d7de"/>'
               f'<text x="{label_w + 246}" y="17">{E(common.label("theoretical", lang))}</text>')
    for i, (name, measured, theory, _) in enumerate(pairs):
        y = top + i * row_h
        out.append(f'<text x="{label_w - 6}" y="{y + 15}" text-anchor="end">{E(name)}</text>')
        if theory:
            out.append(f'<rect x="{label_w}" y="{y + 3}" width="{_f(bar_w * theory / scale)}" '
                       f'height="16" fill="#d0d7de"/>')
        out.append(f'<rect x="{label_w}" y="{y + 5}" width="{_f(max(1.0, bar_w * measured / scale))}" '
                   f'height="12" fill="#2f81f7"/>')
        text = f"{common.fmt_num(measured)} {unit}"
        if theory:
            text = f"{common.fmt_num(measured)} / {common.fmt_num(theory)} {unit} ({measured / theory * 100:.0f} %)"
        x_text = label_w + bar_w * max(measured, theory or 0) / scale + 6
        out.append(f'<text x="{_f(x_text)}" y="{y + 15}">{E(text)}</text>')
    out.append("</svg>")
    return "".join(out)


def _log_ticks(lo: float, hi: float, base: float = 10.0) -> list[float]:
    ticks, t = [], base ** math.floor(math.log(lo, base))
    while t <= hi * 1.0001:
        if t >= lo * 0.9999:
            ticks.append(t)
        t *= base
    return ticks


def sweep_svg(points, caches: dict, lang: str = "en") -> str:
    """Read bandwidth against working-set size, log-x, with the cache sizes marked."""
    pts = sorted((float(p["bytes"]), float(p["gbps"])) for p in points
                 if common.num(p.get("bytes")) and common.num(p.get("gbps")) is not None and p["bytes"] > 0)
    w, h, ml, mr, mt, mb = 660, 300, 58, 16, 16, 46
    x0, x1 = math.log2(pts[0][0]), math.log2(pts[-1][0])
    if x1 <= x0:
        x1 = x0 + 1
    ymax = max(g for _, g in pts) * 1.1 or 1.0

    def px(b):
        return ml + (math.log2(b) - x0) / (x1 - x0) * (w - ml - mr)

    def py(g):
        return h - mb - g / ymax * (h - mt - mb)

    title = common.label("cache_sweep", lang)
    out = [_svg_open(w, h, title)]
    out.append(f'<line x1="{ml}" y1="{h - mb}" x2="{w - mr}" y2="{h - mb}" stroke="#57606a"/>'
               f'<line x1="{ml}" y1="{mt}" x2="{ml}" y2="{h - mb}" stroke="#57606a"/>')
    for t in _log_ticks(pts[0][0], pts[-1][0], 4.0):
        x = px(t)
        out.append(f'<line x1="{_f(x)}" y1="{h - mb}" x2="{_f(x)}" y2="{h - mb + 4}" stroke="#57606a"/>'
                   f'<text x="{_f(x)}" y="{h - mb + 16}" text-anchor="middle">{E(common.fmt_bytes(t))}</text>')
    for i in range(5):
        g = ymax / 1.1 * i / 4
        y = py(g)
        out.append(f'<line x1="{ml - 4}" y1="{_f(y)}" x2="{w - mr}" y2="{_f(y)}" stroke="#eaeef2"/>'
                   f'<text x="{ml - 6}" y="{_f(y + 4)}" text-anchor="end">{E(common.fmt_num(g))}</text>')
    for name in ("l1d", "l2", "l3"):
        info = caches.get(name) if isinstance(caches, dict) else None
        if not isinstance(info, dict) or not common.num(info.get("size_bytes")):
            continue
        per = info["size_bytes"] / (info.get("instances") or 1)
        if pts[0][0] <= per <= pts[-1][0]:
            x = px(per)
            out.append(f'<line x1="{_f(x)}" y1="{mt}" x2="{_f(x)}" y2="{h - mb}" stroke="#cf222e" '
                       f'stroke-dasharray="4 3"/><text x="{_f(x + 3)}" y="{mt + 10}" fill="#cf222e">'
                       f'{E(name.upper())} {E(common.fmt_bytes(per))}</text>')
    poly = " ".join(f"{_f(px(b))},{_f(py(g))}" for b, g in pts)
    out.append(f'<polyline points="{poly}" fill="none" stroke="#2f81f7" stroke-width="2"/>')
    for b, g in pts:
        out.append(f'<circle cx="{_f(px(b))}" cy="{_f(py(g))}" r="2.5" fill="#2f81f7"/>')
    out.append(f'<text x="{(w + ml) / 2:.0f}" y="{h - 8}" text-anchor="middle">'
               f'{E(common.label("working_set", lang))}</text>'
               f'<text x="14" y="{(h - mb + mt) / 2:.0f}" text-anchor="middle" '
               f'transform="rotate(-90 14 {(h - mb + mt) / 2:.0f})">GB/s</text>')
    out.append("</svg>")
    return "".join(out)


def roofline_svg(benchmarks, lang: str = "en") -> str | None:
    """Roofline on log-log axes: the measured CPU roof (all cores, the median figures of
    ``bench_export.roofline_data``), the theoretical one, each GPU's when measured, and the points."""
    data = bench_export.roofline_data(benchmarks, lang)
    if data is None:
        return None
    roofs = []  # (name, peak_gflops, peak_gbps, colour)
    if data["roof"]:
        roofs.append((data["roof"]["label"], data["roof"]["gflops"], data["roof"]["gbps"], "#2f81f7"))
    if data["theoretical"]:
        theo = data["theoretical"]
        roofs.append((theo["label"], theo["gflops"], theo["gbps"], "#8c959f"))
    if data["gpu"]:
        roofs.append((common.clean(data["gpu"]["label"]), data["gpu"]["gflops"], data["gpu"]["gbps"], "#8250df"))
    points = [(f"{p['label']}: {common.fmt_num(p['value'])} {p['unit']}", p["flops_per_byte"], p["gflops"],
               "#1a7f37") for p in data["points"] if p["flops_per_byte"]]
    xlo, xhi = 1 / 16, 1024.0
    for _, ai, _, _ in points:
        xhi = max(xhi, ai * 2)
    ylo = min(min(bw * xlo for _, _, bw, _ in roofs), min([g for _, _, g, _ in points] or [1e9])) / 2
    yhi = max(pk for _, pk, _, _ in roofs) * 2
    w, h, ml, mr, mt, mb = 660, 320, 64, 16, 16, 46
    lx0, lx1, ly0, ly1 = math.log10(xlo), math.log10(xhi), math.log10(ylo), math.log10(yhi)

    def px(v):
        return ml + (math.log10(v) - lx0) / (lx1 - lx0) * (w - ml - mr)

    def py(v):
        return h - mb - (math.log10(v) - ly0) / (ly1 - ly0) * (h - mt - mb)

    title = common.label("roofline", lang)
    out = [_svg_open(w, h, title)]
    out.append(f'<line x1="{ml}" y1="{h - mb}" x2="{w - mr}" y2="{h - mb}" stroke="#57606a"/>'
               f'<line x1="{ml}" y1="{mt}" x2="{ml}" y2="{h - mb}" stroke="#57606a"/>')
    for t in _log_ticks(xlo, xhi, 10.0):
        out.append(f'<line x1="{_f(px(t))}" y1="{mt}" x2="{_f(px(t))}" y2="{h - mb}" stroke="#eaeef2"/>'
                   f'<text x="{_f(px(t))}" y="{h - mb + 16}" text-anchor="middle">{E(common.fmt_num(t))}</text>')
    for t in _log_ticks(ylo, yhi, 10.0):
        out.append(f'<line x1="{ml}" y1="{_f(py(t))}" x2="{w - mr}" y2="{_f(py(t))}" stroke="#eaeef2"/>'
                   f'<text x="{ml - 6}" y="{_f(py(t) + 4)}" text-anchor="end">{E(common.fmt_num(t))}</text>')
    for i, (name, peak, bw, colour) in enumerate(roofs):   # the roofs' legend: top left
        ridge = peak / bw
        xs = [xlo, min(max(ridge, xlo), xhi), xhi]
        poly = " ".join(f"{_f(px(x))},{_f(py(min(peak, bw * x)))}" for x in xs)
        out.append(f'<polyline points="{poly}" fill="none" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<line x1="{ml + 8}" y1="{mt + 8 + 14 * i}" x2="{ml + 24}" y2="{mt + 8 + 14 * i}" '
                   f'stroke="{colour}" stroke-width="2"/><text x="{ml + 28}" y="{mt + 12 + 14 * i}" '
                   f'fill="{colour}">{E(name)}</text>')
        if xlo <= ridge <= xhi:
            out.append(f'<circle cx="{_f(px(ridge))}" cy="{_f(py(peak))}" r="3" fill="{colour}"/>')
    for name, ai, g, colour in points:
        right = px(ai) > w - 160
        anchor = ' text-anchor="end"' if right else ""
        out.append(f'<circle cx="{_f(px(ai))}" cy="{_f(py(g))}" r="4" fill="none" stroke="{colour}" '
                   f'stroke-width="2"/><text x="{_f(px(ai) - 6 if right else px(ai) + 6)}" '
                   f'y="{_f(py(g) + 14)}"{anchor}>{E(name)}</text>')
    out.append(f'<text x="{(w + ml) / 2:.0f}" y="{h - 8}" text-anchor="middle">'
               f'{E(common.label("intensity", lang))}</text>'
               f'<text x="14" y="{(h - mb + mt) / 2:.0f}" text-anchor="middle" '
               f'transform="rotate(-90 14 {(h - mb + mt) / 2:.0f})">{E(common.label("gflops_axis", lang))}</text>')
    out.append("</svg>")
    return "".join(out)


def charts(report, lang: str = "en") -> list[tuple[str, str]]:
    """(caption, svg) for every chart the report's benchmarks allow."""
    b = bench_export.section(report)
    if not b:
        return []
    out = []
    pairs = common.theoretical_pairs(b, lang)
    for unit in ("GB/s", "GFLOP/s"):
        group = [p for p in pairs if p[3] == unit]
        if group:
            out.append((f"{common.label('measured_vs_theoretical', lang)} ({unit})", bars_svg(group, unit, lang)))
    sweep = common.dig(b, "cpu", "cache_sweep")
    if isinstance(sweep, list):
        pts = [p for p in sweep if isinstance(p, dict) and common.num(p.get("bytes")) and common.num(p.get("gbps"))]
        if len(pts) >= 2:
            out.append((common.label("cache_sweep", lang), sweep_svg(pts, report.cpu.caches or {}, lang)))
    roof = roofline_svg(b, lang)
    if roof:
        out.append((common.label("roofline", lang), roof))
    return out


# --------------------------------------------------------------------------- document

def _cards(report, lang: str) -> str:
    L = lambda k: common.label(k, lang)  # noqa: E731
    c, m = report.cpu, report.memory
    cards = [
        (L("cpu"), f"{common.label_text(c.model_name) or L('unknown')}",
         " ".join(common.label_text(f) for f in common.key_features(c)[:8])),
        (L("memory"), common.fmt_bytes(m.total_bytes, lang), common.cpu_topology(c, lang)),
    ]
    if report.devices:
        counts: dict[str, int] = {}
        for d in report.devices:
            k = f"{common.word(d.kind, lang)} {common.label_text(d.name)}"
            counts[k] = counts.get(k, 0) + 1
        ready = sum(1 for d in report.devices if d.readiness == "ready")
        cards.append((L("devices"), "; ".join(f"{n} × {k}" if n > 1 else k for k, n in counts.items()),
                      f"{ready}/{len(report.devices)} {common.word('ready', lang)}"))
    else:
        cards.append((L("devices"), L("none"), L("no_devices")))
    out = ['<div class="cards">']
    for k, v, sub in cards:
        out.append(f'<div class="card"><div class="k">{E(k)}</div><div class="v">{E(v)}</div>'
                   f'<div class="meta">{E(sub)}</div></div>')
    out.append("</div>")
    return "\n".join(out)


#: short key/value sections laid out side by side on paper (the PDF), left -> right
SIDE_BY_SIDE = {"summary": "platform", "cpu": "memory", "packages": "toolkits", "compilers": "providers"}


def body(report, lang: str = "en", qt: bool = False, with_charts: bool = True,
         images: list[tuple[str, str, int, int]] | None = None) -> str:
    """The report's HTML body (no <html>/<head>).

    ``qt``: the QTextDocument subset (no SVG, no cards); ``images``: (caption, resource name,
    width, height) of pre-rendered charts placed after the benchmarks table (the PDF exporter)."""
    L = lambda k, **f: common.label(k, lang, **f)  # noqa: E731
    host = common.label_text(report.platform.hostname)
    out = [f"<h1>{E(L('title'))}{': ' + E(host) if host else ''}</h1>",
           f'<p class="meta">{E(L("generated_by", v=common.label_text(report.accelgui_version)))} · '
           f'{E(report.created)} · schema {E(report.schema_version)}</p>']
    if not qt:
        out.append(_cards(report, lang))
    sections = common.build_sections(report, lang)
    if qt:
        sections = [t for t in sections if t.on_paper]
    bench_keys = [t.key for t in sections if t.key.startswith("benchmarks")]
    partner = {}
    for i, t in enumerate(sections):
        if qt and t.key in SIDE_BY_SIDE and i + 1 < len(sections) and sections[i + 1].key == SIDE_BY_SIDE[t.key]:
            partner[i] = i + 1
    beside = set(partner.values())
    for i, t in enumerate(sections):
        if i in beside:
            continue
        if i in partner:   # two short tables side by side on paper
            right = sections[partner[i]]
            out.append('<table width="100%" cellspacing="0" cellpadding="0"><tr>'
                       f'<td width="50%" valign="top">{table_html(t.narrow(), lang, qt)}</td>'
                       '<td width="2%"></td>'
                       f'<td width="48%" valign="top">{table_html(right.narrow(), lang, qt)}</td>'
                       '</tr></table>')
            continue
        out.append(table_html(t.narrow() if qt else t, lang, qt))
        if not bench_keys or t.key != bench_keys[-1]:
            continue
        if with_charts and not qt:
            for caption, svg in charts(report, lang):
                out.append(f"<figure><figcaption>{E(caption)}</figcaption>{svg}</figure>")
        if images:
            for caption, name, width, height in images:
                out.append(f"<p><b>{E(caption)}</b></p><p><img src=\"{E(name)}\" width=\"{int(width)}\" "
                           f"height=\"{int(height)}\"></p>")
    if not qt:   # every raw benchmark figure, in an appendix (not on paper)
        out.extend(table_html(t, lang, qt) for t in bench_export.appendix_sections(report, lang))
    if not qt:   # on paper the line under the title says it already
        out.append(f"<footer>{E(L('generated_by', v=common.label_text(report.accelgui_version)))}</footer>")
    return "\n".join(out)


def page(title: str, body_html: str, lang: str = "en") -> str:
    return ("<!DOCTYPE html>\n"
            f'<html lang="{common.html_lang(lang)}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<meta name="referrer" content="no-referrer">\n'
            f"<title>{E(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            f"{body_html}\n</body>\n</html>\n")


def render(report, lang: str = "en") -> str:
    host = common.label_text(report.platform.hostname)
    title = common.label("title", lang) + (f": {host}" if host else "")
    return page(title, body(report, lang), lang)
