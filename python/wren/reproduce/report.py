"""Plots, running a figure, and the report (report.md, .html, .json)."""
import base64
import datetime
import html
import json
import subprocess
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any
import platform

from .. import paths
from .core import CPU_MODEL, KIND_LABEL, Figure, Outcome, Panel, Row, fmt, papers, pv



# ---- plotting ---------------------------------------------------------------------

def _band_ys(s: Any) -> tuple[list[float], list[float]]:
    lo, hi = s.band
    return _nan(lo), _nan(hi)


def _nan(ys: Any) -> list[float]:
    return [float("nan") if y is None else y for y in ys]


def _draw_bars(ax: Any, p: Panel) -> None:
    """@p's series as groups of bars over its categories, a band as error bars."""
    cats: list[Any] = []
    for s in p.series:
        cats += [x for x in s.xs if x not in cats]
    width = 0.8 / max(len(p.series), 1)
    for k, s in enumerate(p.series):
        xs = [cats.index(x) + (k - (len(p.series) - 1) / 2) * width for x in s.xs]
        ys = _nan(s.ys)
        ax.bar(xs, ys, width, label=s.label, color=s.style,
               hatch="//" if s.paper else None, edgecolor="black" if s.paper else None)
        if s.band is not None:   # the series' sensitivity band as error bars
            lo, hi = _band_ys(s)
            ax.errorbar(xs, ys, yerr=[[y - a for y, a in zip(ys, lo)],
                                      [b - y for y, b in zip(ys, hi)]],
                        fmt="none", ecolor="black", capsize=4)
    ax.set_xticks(range(len(cats)))
    ax.set_xticklabels([str(c) for c in cats], rotation=20 if len(cats) > 4 else 0,
                       ha="right" if len(cats) > 4 else "center", fontsize=8)


def _draw_lines(ax: Any, p: Panel) -> None:
    """@p's series as lines (the paper's with large markers), a band shaded."""
    for s in p.series:
        kw = {"markersize": 10, "markeredgewidth": 2} if s.paper else {}
        line = ax.plot(s.xs, _nan(s.ys), s.style, label=s.label, **kw)[0]
        if s.band is not None:   # the series' sensitivity band, shaded
            ax.fill_between(s.xs, *_band_ys(s), color=line.get_color(), alpha=0.15,
                            linewidth=0)


def _decorate(ax: Any, p: Panel) -> None:
    """The paper's levels and positions in red, scales, titles, grid, legend."""
    for y, label in p.hlines:
        ax.axhline(y, color="red", linestyle="--", label=label)
    for k, (x, label) in enumerate(p.vlines):
        ax.axvline(x, color="red", linestyle="--" if k == 0 else ":", label=label)
    if p.logy:
        ax.set_yscale("log")
    elif not p.bars:
        ax.set_ylim(bottom=0)
    ax.set_title(p.title, fontsize=10)
    ax.set_xlabel(p.xlabel)
    ax.set_ylabel(p.ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def plot(fig: Figure, out: Outcome, directory: Path) -> list[Path]:
    """NAME.png and NAME.svg of @fig's panels; [] when it has none."""
    if not out.panels:
        return []
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(out.panels)
    mfig, axes = plt.subplots(1, n, figsize=(6.4 * n, 4.4), squeeze=False)
    for ax, p in zip(axes[0], out.panels):
        (_draw_bars if p.bars else _draw_lines)(ax, p)
        _decorate(ax, p)
    mfig.suptitle(f"{fig.name}: {fig.title}\n(the paper's values in red)", fontsize=10)
    _caption(mfig, out)
    directory.mkdir(parents=True, exist_ok=True)
    files = []
    for ext in ("png", "svg"):
        f = directory / f"{fig.name}.{ext}"
        mfig.savefig(f, dpi=90)
        files.append(f)
    plt.close(mfig)
    return files


def statements(out: Outcome) -> list[str]:
    """The one-line statements of @out's rows that have a wren value, each
    once: alone when every row shares it, else after the first row's
    quantity it stands for; a consistency check or a label says so."""
    groups: dict[str, list[Row]] = {}
    for r in out.rows:
        if r.wren is not None:
            groups.setdefault(r.basis() or NO_BASIS, []).append(r)
    lines = []
    for basis, rows in groups.items():
        kinds = "".join(sorted({f"[{KIND_LABEL[r.kind]}] " for r in rows if KIND_LABEL[r.kind]}))
        who = "" if len(groups) == 1 else \
            rows[0].quantity + (f" (and {len(rows) - 1} more)" if len(rows) > 1 else "") + ": "
        lines.append(f"{kinds}{who}{basis}")
    return lines


def _caption(mfig: Any, out: Outcome) -> None:
    """Lay @mfig out with its rows' statements (statements()) as a caption
    under the panels, the figure made taller to hold it."""
    import textwrap
    width = mfig.get_figwidth()
    lines = [ln for s in statements(out) for ln in textwrap.wrap(s, int(width * 17))]
    if not lines:
        mfig.tight_layout()
        return
    h, extra = mfig.get_figheight(), 0.13 * len(lines) + 0.15
    mfig.set_figheight(h + extra)
    mfig.text(0.01, 0.01, "\n".join(lines), fontsize=7, va="bottom", ha="left")
    mfig.tight_layout(rect=(0, extra / (h + extra), 1, 1))


# ---- running and the report -------------------------------------------------------

def run_figure(fig: Figure, quick: bool, directory: Path) -> Outcome:
    if fig.run is None:
        return Outcome(reason=fig.reason,
                       rows=[Row("(cannot run)", pv(k).unit, None, pv(k)) for k in fig.cited])
    t0 = time.monotonic()
    try:
        with redirect_stdout(StringIO()):
            out = fig.run(quick)
    except Exception as e:  # noqa: BLE001
        # a tool this figure needs is missing or failed: the report says so,
        # with the error, and the other figures still run
        out = Outcome(reason=f"failed to run: {type(e).__name__}: {str(e).strip()[:300]}",
                      failed=True)
    out.seconds = time.monotonic() - t0
    if out.reason is None and not any(r.wren is not None for r in out.rows):
        out.reason = "it ran but measured nothing (a bug in the figure's code)"
        out.panels = []
        out.failed = True
    out.files = [str(f) for f in plot(fig, out, directory)]
    return out


def _git_head() -> str:
    try:
        return subprocess.run(["git", "-C", str(paths.ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def _rows_json(fig: Figure, out: Outcome, quick: bool) -> dict[str, Any]:
    return {
        "name": fig.name, "paper": fig.paper, "title": fig.title,
        "command": fig.command(quick), "reason": out.reason, "failed": out.failed,
        "seconds": round(out.seconds, 2),
        "plots": [Path(f).name for f in out.files], "notes": out.notes,
        "rows": [{"quantity": r.quantity, "unit": r.unit, "wren": r.wren,
                  "paper": r.paper_number, "paper_text": r.paper_text(),
                  "ratio": r.claimed_ratio, "kind": r.kind, "headline": r.headline,
                  "measured": r.measured, "modelled": r.modelled, "differs": r.differs,
                  "basis": r.basis(),
                  "bound": r.paper.bound if r.paper else None,
                  "source": r.paper.key if r.paper else None,
                  "cite": r.paper.cite() if r.paper else None, "note": r.note}
                 for r in out.rows]}


def unstated(data: dict[str, Any]) -> list[str]:
    """"figure: quantity" of every row of a report.json's @data that has a
    wren value but does not say what is measured and what differs from the
    paper (issue 27: every row states its basis)."""
    return [f"{f['name']}: {r['quantity']}" for f in data["figures"] for r in f["rows"]
            if r["wren"] is not None and not (r.get("measured") and r.get("differs"))]


def _quantity(r: Row) -> str:
    """The row's quantity, with its kind when it is not set beside the paper."""
    label = KIND_LABEL[r.kind]
    return f"{r.quantity} ({label})" if label else r.quantity


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


NO_BASIS = "(no statement of what is measured)"
Results = list[tuple[Figure, Outcome]]


def write_report(results: Results, quick: bool, directory: Path, command: str) -> list[Path]:
    """report.md, report.html (plots embedded) and report.json in @directory."""
    directory.mkdir(parents=True, exist_ok=True)
    head = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": _git_head(), "machine": f"{platform.machine()}, "
            f"{platform.processor() or 'cpu'}, python {platform.python_version()}",
            "mode": "quick" if quick else "full", "command": command}
    data = {**head, "cpu_model": CPU_MODEL,
            "figures": [_rows_json(f, o, quick) for f, o in results]}
    (directory / "report.json").write_text(json.dumps(data, indent=1))
    (directory / "report.md").write_text("\n".join(_markdown(results, quick, head)) + "\n")
    (directory / "report.html").write_text("\n".join(_html(results, quick, head)) + "\n")
    return [directory / "report.md", directory / "report.html", directory / "report.json"]


def _markdown(results: Results, quick: bool, head: dict[str, str]) -> list[str]:
    md = ["# wren: the papers' figures, reproduced\n",
          f"{head['date']}, commit {head['commit']}, {head['machine']}; mode {head['mode']}; "
          f"`{head['command']}`.\n",
          f"{len(results)} figures: {sum(1 for _, o in results if not o.reason)} measured, "
          f"{sum(1 for _, o in results if o.reason)} cannot run (the reason is in the table).\n",
          "Paper values come from `python/wren/data/paper_values.toml` (each with its section "
          "and a quote); wren's are measured by the command in the last column. "
          "Ratio = wren / paper, for rows set beside the paper only: a consistency check "
          "(value and bound from wren's own model) and a row for context claim none. Under "
          "each figure, every row's basis: what is measured, what is modelled, what "
          "differs from the paper.\n",
          "| figure | quantity | paper | wren | ratio | command |",
          "|---|---|---|---|---|---|"]
    for f, o in results:
        cmd = f"`{f.command(quick)}`"
        if o.reason:
            md.append(f"| {f.name} | {_md_cell(f.title)} | - | cannot run: "
                      f"{_md_cell(o.reason)} | - | {cmd} |")
        for r in o.rows:
            if o.reason and r.wren is None:
                continue
            md.append(f"| {f.name} | {_md_cell(_quantity(r))} | {_md_cell(r.paper_text())} "
                      f"[{r.unit}] | {_md_cell(r.wren_text())} | {fmt(r.claimed_ratio)} "
                      f"| {cmd} |")
    md.append("")
    ptitle = {k: v["title"] for k, v in papers().items()}
    for f, o in results:
        md += _md_figure(f, o, quick, ptitle.get(f.paper, f.paper))
    return md


def _md_figure(f: Figure, o: Outcome, quick: bool, paper: str) -> list[str]:
    md = [f"## {f.name}: {f.title}\n",
          f"Paper: {paper}. Command: `{f.command(quick)}`"
          + (f" ({o.seconds:.1f} s)" if not o.reason else "") + "\n"]
    if o.reason:
        md.append(f"**Cannot run:** {o.reason}\n")
    md += [f"![{f.name}]({Path(p).name})\n" for p in o.files if p.endswith(".png")]
    md += [f"- **{_md_cell(_quantity(r))}**: {r.basis() or NO_BASIS}"
           for r in o.rows if r.wren is not None]
    md += [f"- {n}" for n in o.notes]
    for r in o.rows:
        if r.paper:
            md.append(f"- {r.quantity}: {r.paper.cite()}")
        if r.note:
            md.append(f"- {r.quantity}: {r.note}")
    return md + [""]


def _html(results: Results, quick: bool, head: dict[str, str]) -> list[str]:
    h = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>wren: the papers' figures"
         "</title><style>body{font-family:sans-serif;max-width:1200px;margin:auto}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 6px;"
         "font-size:13px}td.n{text-align:right}.why{color:#a00}img{max-width:100%}</style>"
         "</head><body>",
         "<h1>wren: the papers' figures, reproduced</h1>",
         f"<p>{html.escape(head['date'])}, commit {html.escape(head['commit'])}, "
         f"{html.escape(head['machine'])}; mode {head['mode']}; "
         f"<code>{html.escape(head['command'])}</code>. Paper values: "
         "<code>python/wren/data/paper_values.toml</code>. Ratio = wren / paper, for rows "
         "set beside the paper only (not for a consistency check or a row for context). "
         "Under each figure, every row's basis.</p>",
         "<table><tr><th>figure</th><th>quantity</th><th>paper</th><th>wren</th>"
         "<th>ratio</th><th>command</th></tr>"]
    for f, o in results:
        cmd = f"<code>{html.escape(f.command(quick))}</code>"
        link = f"<a href='#{f.name}'>{f.name}</a>"
        if o.reason:
            h.append(f"<tr><td>{link}</td><td>{html.escape(f.title)}</td><td>-</td>"
                     f"<td class='why'>cannot run: {html.escape(o.reason)}</td><td>-</td>"
                     f"<td>{cmd}</td></tr>")
        for r in o.rows:
            if o.reason and r.wren is None:
                continue
            h.append(f"<tr><td>{link}</td><td>{html.escape(_quantity(r))}</td>"
                     f"<td class='n'>{html.escape(r.paper_text())} {html.escape(r.unit)}</td>"
                     f"<td class='n'>{html.escape(r.wren_text())}</td>"
                     f"<td class='n'>{fmt(r.claimed_ratio)}</td>"
                     f"<td>{cmd}</td></tr>")
    h.append("</table>")
    ptitle = {k: v["title"] for k, v in papers().items()}
    for f, o in results:
        h += _html_figure(f, o, quick, ptitle.get(f.paper, f.paper))
    return h + ["</body></html>"]


def _html_figure(f: Figure, o: Outcome, quick: bool, paper: str) -> list[str]:
    h = [f"<h2 id='{f.name}'>{f.name}: {html.escape(f.title)}</h2>",
         f"<p>Paper: {html.escape(paper)}. Command: "
         f"<code>{html.escape(f.command(quick))}</code></p>"]
    if o.reason:
        h.append(f"<p class='why'>Cannot run: {html.escape(o.reason)}</p>")
    for p in o.files:
        if p.endswith(".png"):
            b64 = base64.b64encode(Path(p).read_bytes()).decode()
            h.append(f"<img alt='{f.name}' src='data:image/png;base64,{b64}'>")
    basis = [f"<li><b>{html.escape(_quantity(r))}</b>: {html.escape(r.basis() or NO_BASIS)}"
             "</li>" for r in o.rows if r.wren is not None]
    if basis:
        h.append("<ul>" + "".join(basis) + "</ul>")
    items = list(o.notes) + [f"{r.quantity}: {r.paper.cite()}" for r in o.rows if r.paper] \
        + [f"{r.quantity}: {r.note}" for r in o.rows if r.note]
    if items:
        h.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>")
    return h
