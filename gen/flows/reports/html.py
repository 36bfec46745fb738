"""report.html: the family table as one self-contained page (``termwise report``).

The page is rendered from report.json's document alone (the rows, their drill-down
``detail`` from :mod:`.detail`, the methods) and the report's PNG plots, embedded as data
URIs: no other file, no network, no external script. It opens offline in any browser.

* **The table**, one row per design, every column sortable (click its header: ascending,
  again descending; numbers sort by value, a missing figure last). The footing (equal
  peak throughput) is stated above it.
* **A drill-down per design** (``<details>``, opened from the row's name or its own
  summary): area and power by kind, the critical path by kind and what bounds Fmax, the
  SRAM macros and their accesses, the energy split, the paper's claim and the stated reason
  for the difference, the power method and what it does not model.
* **The plots** and **the methods** (how each figure is obtained).

The same document gives the same bytes (no timestamps), like report.md.
"""

from __future__ import annotations

import base64
import html
import os

from .detail import figure

__all__ = ["COLUMNS", "to_html", "write_html"]

#: The table's columns: (row key, header, format). A ``None`` figure prints as "-".
COLUMNS = (
    ("design", "design", "{}"),
    ("area_mm2", "area mm2", "{:.2f}"),
    ("area_without_buffers_mm2", "without buffers mm2", "{:.2f}"),
    ("fmax_mhz", "Fmax MHz", "{:.1f}"),
    ("power_mw", "power mW", "{:.1f}"),
    ("speedup_cycles", "speedup (cycles)", "{:.2f}x"),
    ("speedup_time", "speedup (time)", "{:.2f}x"),
    ("perf_per_mm2_over_baseline", "inf/s/mm2 (x base)", "{:.2f}x"),
    ("energy_per_inference_uj", "energy/inference uJ", "{:,.0f}"),
    ("energy_efficiency", "energy eff. (x base)", "{:.2f}x"),
)

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#222}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #bbb;padding:.25em .6em;text-align:right}
th:first-child,td:first-child{text-align:left}
thead th{background:#eee;cursor:pointer;user-select:none}
thead th[aria-sort=ascending]::after{content:" \\25B2"}
thead th[aria-sort=descending]::after{content:" \\25BC"}
details{border:1px solid #ccc;margin:.4em 0;padding:.3em .8em}
summary{cursor:pointer;font-weight:600}
img{max-width:100%;display:block;margin:.5em 0}
.note{color:#555;font-size:.92em}
"""

#: Sorting and opening a drill-down from its row: plain DOM, no library.
_SCRIPT = """
function sortTable(th) {
  const table = th.closest("table"), body = table.tBodies[0];
  const col = Array.from(th.parentNode.children).indexOf(th);
  const dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
  for (const h of th.parentNode.children) h.removeAttribute("aria-sort");
  th.setAttribute("aria-sort", dir);
  const key = (row) => row.children[col].dataset.value;
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = key(a), y = key(b);
    if (x === "" || y === "") return (x === "") - (y === "");   // missing figures last
    const nx = Number(x), ny = Number(y);
    const c = isNaN(nx) || isNaN(ny) ? x.localeCompare(y) : nx - ny;
    return dir === "ascending" ? c : -c;
  });
  for (const r of rows) body.appendChild(r);
}
for (const th of document.querySelectorAll("thead th")) {
  th.addEventListener("click", () => sortTable(th));
}
for (const a of document.querySelectorAll("a.drill")) {
  a.addEventListener("click", () => {
    document.getElementById(a.getAttribute("href").slice(1)).open = true;
  });
}
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _cell(row: dict, key: str, fmt: str) -> str:
    value = row.get(key)
    if key == "design":
        return (f'<td data-value="{_e(value)}"><a class="drill" href="#detail-{_e(value)}">'
                f"{_e(value)}</a></td>")
    text = figure(value, fmt)
    sortable = "" if text == "-" else repr(float(value))     # missing figures sort last
    if key == "fmax_mhz" and row.get("drv_violations") not in (0, None):
        text += "*"
    return f'<td data-value="{sortable}">{_e(text)}</td>'


def _table(rows: list[dict]) -> list[str]:
    head = "".join(f'<th scope="col" data-key="{k}">{_e(h)}</th>' for k, h, _ in COLUMNS)
    out = ['<table id="family">', f"<thead><tr>{head}</tr></thead>", "<tbody>"]
    for r in rows:
        cells = "".join(_cell(r, k, f) for k, _, f in COLUMNS)
        out.append(f'<tr data-design="{_e(r["design"])}">{cells}</tr>')
    return out + ["</tbody>", "</table>"]


def _pairs(title: str, items, unit_fmt: str, total_label: str | None = None) -> list[str]:
    """A two-column table of ``(name, value)`` pairs, largest first, with its total."""
    items = sorted(((k, v) for k, v in items if v), key=lambda kv: -kv[1])   # zeros: none
    if not items:
        return []
    out = [f"<h4>{_e(title)}</h4>", "<table>"]
    out += [f"<tr><td>{_e(k)}</td><td>{_e(unit_fmt.format(v))}</td></tr>" for k, v in items]
    if total_label:
        out.append(f"<tr><th>{_e(total_label)}</th>"
                   f"<th>{_e(unit_fmt.format(sum(v for _, v in items)))}</th></tr>")
    return out + ["</table>"]


def _critical_path(cp: dict) -> list[str]:
    bound = cp.get("bound_by") or "logic"
    out = ["<h4>Critical path</h4>",
           f"<p>{_e(figure(cp.get('delay_ns'), '{:.2f}'))} ns, logic depth "
           f"{_e(figure(cp.get('logic_depth'), '{}'))}, from <code>{_e(cp.get('startpoint'))}"
           f"</code> to <code>{_e(cp.get('endpoint'))}</code>; slowest kind: "
           f"{_e(cp.get('slowest_kind') or '-')}. Fmax bound by: {_e(bound)}"
           + (f" (logic {_e(figure(cp.get('fmax_logic_mhz'), '{:.1f}'))} MHz, macros "
              f"{_e(figure(cp.get('fmax_macro_mhz'), '{:.1f}'))} MHz)"
              if cp.get("fmax_macro_mhz") is not None else "") + ".</p>"]
    return out + _pairs("Path delay by kind (ns)",
                        (cp.get("delay_by_kind_ns") or {}).items(), "{:.3f}")


def _macros(d: dict) -> list[str]:
    macros, accesses = d.get("macros") or {}, d.get("macro_accesses") or {}
    if not macros and not accesses:
        return ["<h4>SRAM macros</h4><p>none: the operand buffers are flip-flops.</p>"]
    out = ["<h4>SRAM macros</h4>", "<table>",
           "<tr><th>macro</th><th>words</th><th>width</th><th>min. period ns</th></tr>"]
    out += [f"<tr><td>{_e(n)}</td><td>{_e(m.get('words'))}</td><td>{_e(m.get('width'))}</td>"
            f"<td>{_e(figure(m.get('min_period_ns'), '{:.2f}'))}</td></tr>"
            for n, m in sorted(macros.items())]
    out.append("</table>")
    if accesses:
        out += ["<table>", "<tr><th>buffer</th><th>macros</th><th>reads</th><th>writes</th>"
                "</tr>"]
        out += [f"<tr><td>{_e(n)}</td><td>{_e(a.get('macros'))}</td><td>{_e(a.get('reads'))}"
                f"</td><td>{_e(a.get('writes'))}</td></tr>" for n, a in sorted(accesses.items())]
        out.append("</table>")
    return out


def _paper(r: dict) -> list[str]:
    p = r.get("paper")
    if not p:
        return ["<h4>Beside the paper</h4><p>no paper figure.</p>"]
    return ["<h4>Beside the paper</h4>",
            f"<p>{_e(p.get('source'))}: speed {_e(p.get('speedup_text') or '-')}; energy "
            f"{_e(p.get('energy_text') or '-')}; area {_e(p.get('area_text') or '-')}.</p>",
            f"<p>Here vs the paper: {_e(r.get('vs_paper') or '-')}</p>"]


def _drill_down(r: dict) -> list[str]:
    d = r.get("detail") or {}
    name = r["design"]
    out = [f'<details id="detail-{_e(name)}" data-design="{_e(name)}">',
           f"<summary>{_e(name)} ({_e(r.get('preset'))}, <code>{_e(r.get('top'))}</code>)"
           "</summary>",
           f"<p>{_e(figure(d.get('cells'), '{:,}'))} cells, {_e(figure(d.get('flops'), '{:,}'))} "
           f"flip-flops. Storage: {_e(r.get('storage') or '-')}</p>"]
    out += _pairs("Area by kind (mm2)", (d.get("area_by_kind_mm2") or {}).items(), "{:.3f}",
                  "total")
    out += _critical_path(d.get("critical_path") or {})
    if r.get("power_mw") is None:
        out.append(f"<h4>Power</h4><p>not measured: {_e(r.get('power_error'))}</p>")
    else:
        out += _pairs("Power by kind (mW, the power run's average)",
                      (d.get("power_by_kind_mw") or {}).items(), "{:.2f}", "tile")
        out.append(f"<p>Clock network, estimated apart: "
                   f"{_e(figure(d.get('clock_network_mw'), '{:.2f}'))} mW; the IO wrapper "
                   f"(not the tile's): {_e(figure(d.get('io_wrapper_mw'), '{:.2f}'))} mW. The "
                   "table's power is the tile's while it computes (busy cycles measured "
                   "apart where the report has them), with its clock network. Method: "
                   f"{_e(r.get('power_method'))}; activity: {_e(r.get('power_activity'))}."
                   "</p>")
    out += _macros(d)
    out += _pairs("Energy per inference (uJ)",
                  [("compute", r.get("compute_uj")), ("on-chip memory", r.get("onchip_uj")),
                   ("off-chip memory", r.get("offchip_uj"))], "{:,.1f}", "total")
    out += _paper(r)
    if d.get("not_modelled"):
        out += ["<h4>Not modelled</h4>", "<ul>"]
        out += [f"<li>{_e(x)}</li>" for x in d["not_modelled"]]
        out.append("</ul>")
    return out + ["</details>"]


def to_html(doc: dict, images: dict[str, bytes]) -> str:
    """The page of the report document ``doc``; ``images``: PNG name -> bytes, embedded."""
    rows = doc["rows"]
    title = (f"The family on {doc['workload']} ({doc['precision']}-bit): area, Fmax, power, "
             "speed and energy")
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{_e(title)}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
           f"<h1>{_e(title)}</h1>",
           f'<p id="footing">Footing: {_e(doc.get("equal_peak_throughput"))}. Hardware: '
           f"{_e(doc.get('hardware'))}; flow: {_e(doc.get('flow'))}; fc layers: "
           f"{_e(doc.get('fc'))}. Ratios divide by the baseline. Click a header to sort, a "
           "design to open its drill-down.</p>"]
    out += _table(rows)
    if any(r.get("drv_violations") not in (0, None) for r in rows):
        out.append('<p class="note">* Fmax extrapolated: the netlist breaks the liberty\'s '
                   "design rules; not signable.</p>")
    out.append("<h2>Per design</h2>")
    for r in rows:
        out += _drill_down(r)
    if images:
        out.append("<h2>Plots</h2>")
        for name, data in images.items():
            uri = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
            out.append(f'<img alt="{_e(name)}" src="{uri}">')
    out += ["<h2>How each figure is obtained</h2>", "<ul>"]
    out += [f"<li><b>{_e(k)}</b>: {_e(v)}</li>" for k, v in (doc.get("methods") or {}).items()]
    out += ["</ul>", "<h2>Every row also differs from its paper in</h2>", "<ul>"]
    out += [f"<li>{_e(x)}</li>" for x in doc.get("common_differences") or []]
    out += ["</ul>", f"<script>{_SCRIPT}</script>", "</body>", "</html>", ""]
    return "\n".join(out)


def write_html(out_dir: str, doc: dict) -> str:
    """Write ``report.html`` into ``out_dir`` from ``doc`` and the PNGs its ``files`` name
    there; returns its path."""
    from ...emit import write_atomically
    images = {}
    for name in doc.get("files") or []:
        if name.endswith(".png") and os.path.exists(os.path.join(out_dir, name)):
            with open(os.path.join(out_dir, name), "rb") as f:
                images[name] = f.read()
    path = os.path.join(out_dir, "report.html")
    write_atomically(path, to_html(doc, images))
    return path
