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
from .core import CPU_MODEL, Figure, Outcome, Row, fmt, papers, pv



# ---- plotting ---------------------------------------------------------------------

def _band_ys(s: Any) -> tuple[list[float], list[float]]:
    lo, hi = s.band
    return ([float("nan") if y is None else y for y in lo],
            [float("nan") if y is None else y for y in hi])


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
        if p.bars:
            cats: list[Any] = []
            for s in p.series:
                cats += [x for x in s.xs if x not in cats]
            width = 0.8 / max(len(p.series), 1)
            for k, s in enumerate(p.series):
                xs = [cats.index(x) + (k - (len(p.series) - 1) / 2) * width for x in s.xs]
                ys = [float("nan") if y is None else y for y in s.ys]
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
        else:
            for s in p.series:
                ys = [float("nan") if y is None else y for y in s.ys]
                kw = {"markersize": 10, "markeredgewidth": 2} if s.paper else {}
                line = ax.plot(s.xs, ys, s.style, label=s.label, **kw)[0]
                if s.band is not None:   # the series' sensitivity band, shaded
                    ax.fill_between(s.xs, *_band_ys(s), color=line.get_color(), alpha=0.15,
                                    linewidth=0)
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
    mfig.suptitle(f"{fig.name}: {fig.title}\n(the paper's values in red)", fontsize=10)
    mfig.tight_layout()
    directory.mkdir(parents=True, exist_ok=True)
    files = []
    for ext in ("png", "svg"):
        f = directory / f"{fig.name}.{ext}"
        mfig.savefig(f, dpi=90)
        files.append(f)
    plt.close(mfig)
    return files


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
                  "paper": r.paper_number, "paper_text": r.paper_text(), "ratio": r.ratio,
                  "bound": r.paper.bound if r.paper else None,
                  "source": r.paper.key if r.paper else None,
                  "cite": r.paper.cite() if r.paper else None, "note": r.note}
                 for r in out.rows]}


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def write_report(results: list[tuple[Figure, Outcome]], quick: bool, directory: Path,
                 command: str) -> list[Path]:
    """report.md, report.html (plots embedded) and report.json in @directory."""
    directory.mkdir(parents=True, exist_ok=True)
    head = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": _git_head(), "machine": f"{platform.machine()}, "
            f"{platform.processor() or 'cpu'}, python {platform.python_version()}",
            "mode": "quick" if quick else "full", "command": command}
    data = {**head, "cpu_model": CPU_MODEL,
            "figures": [_rows_json(f, o, quick) for f, o in results]}
    (directory / "report.json").write_text(json.dumps(data, indent=1))
    ptitle = {k: v["title"] for k, v in papers().items()}

    md = ["# wren: the papers' figures, reproduced\n",
          f"{head['date']}, commit {head['commit']}, {head['machine']}; mode {head['mode']}; "
          f"`{command}`.\n",
          f"{len(results)} figures: {sum(1 for _, o in results if not o.reason)} measured, "
          f"{sum(1 for _, o in results if o.reason)} cannot run (the reason is in the table).\n",
          "Paper values come from `python/wren/data/paper_values.toml` (each with its section "
          "and a quote); wren's are measured by the command in the last column. "
          "Ratio = wren / paper.\n",
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
            md.append(f"| {f.name} | {_md_cell(r.quantity)} | {_md_cell(r.paper_text())} "
                      f"[{r.unit}] | {_md_cell(r.wren_text())} | {fmt(r.ratio)} | {cmd} |")
    md.append("")
    for f, o in results:
        md.append(f"## {f.name}: {f.title}\n")
        md.append(f"Paper: {ptitle.get(f.paper, f.paper)}. Command: `{f.command(quick)}`"
                  + (f" ({o.seconds:.1f} s)" if not o.reason else "") + "\n")
        if o.reason:
            md.append(f"**Cannot run:** {o.reason}\n")
        for p in o.files:
            if p.endswith(".png"):
                md.append(f"![{f.name}]({Path(p).name})\n")
        for n in o.notes:
            md.append(f"- {n}")
        for r in o.rows:
            if r.paper:
                md.append(f"- {r.quantity}: {r.paper.cite()}")
            if r.note:
                md.append(f"- {r.quantity}: {r.note}")
        md.append("")
    (directory / "report.md").write_text("\n".join(md) + "\n")

    h = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>wren: the papers' figures"
         "</title><style>body{font-family:sans-serif;max-width:1200px;margin:auto}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 6px;"
         "font-size:13px}td.n{text-align:right}.why{color:#a00}img{max-width:100%}</style>"
         "</head><body>",
         "<h1>wren: the papers' figures, reproduced</h1>",
         f"<p>{html.escape(head['date'])}, commit {html.escape(head['commit'])}, "
         f"{html.escape(head['machine'])}; mode {head['mode']}; "
         f"<code>{html.escape(command)}</code>. Paper values: "
         "<code>python/wren/data/paper_values.toml</code>. Ratio = wren / paper.</p>",
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
            h.append(f"<tr><td>{link}</td><td>{html.escape(r.quantity)}</td>"
                     f"<td class='n'>{html.escape(r.paper_text())} {html.escape(r.unit)}</td>"
                     f"<td class='n'>{html.escape(r.wren_text())}</td>"
                     f"<td class='n'>{fmt(r.ratio)}</td>"
                     f"<td>{cmd}</td></tr>")
    h.append("</table>")
    for f, o in results:
        h.append(f"<h2 id='{f.name}'>{f.name}: {html.escape(f.title)}</h2>")
        h.append(f"<p>Paper: {html.escape(ptitle.get(f.paper, f.paper))}. Command: "
                 f"<code>{html.escape(f.command(quick))}</code></p>")
        if o.reason:
            h.append(f"<p class='why'>Cannot run: {html.escape(o.reason)}</p>")
        for p in o.files:
            if p.endswith(".png"):
                b64 = base64.b64encode(Path(p).read_bytes()).decode()
                h.append(f"<img alt='{f.name}' src='data:image/png;base64,{b64}'>")
        items = list(o.notes) + [f"{r.quantity}: {r.paper.cite()}" for r in o.rows if r.paper] \
            + [f"{r.quantity}: {r.note}" for r in o.rows if r.note]
        if items:
            h.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>")
    h.append("</body></html>")
    (directory / "report.html").write_text("\n".join(h) + "\n")
    return [directory / "report.md", directory / "report.html", directory / "report.json"]
