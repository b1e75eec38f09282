"""The 6TiSCH paper's Figs. 4-5: PDR and duty cycle of 30-node networks."""
import functools
from typing import Any

from .. import paths
from .core import Outcome, Panel, Row, Series, fmt, pv



TSCH_QUICK = dict(seeds=(1,), duration_s=300.0)


def _tsch_available() -> bool:
    from ..experiments import tsch_paper
    return tsch_paper.tsch_available() is None


@functools.cache
def _tsch_runs(quick: bool) -> dict[str, Any]:
    """The 30-node experiment (wren.experiments.tsch_paper) for both figures:
    quick, one seed of 5 simulated minutes on TSCH (Table I and Trickle DIOs) and CSMA; else the paper's
    10 seeds of 2 h on every variant (runs kept in out/tsch_paper/runs, which
    `./wren bench tsch_paper` fills too)."""
    from ..experiments import tsch_paper as tp
    if quick:
        return tp.experiment(["tsch", "tsch_trickle", "csma"], out_dir=paths.OUT / "tsch_paper_quick",
                             verbose=False, **TSCH_QUICK)  # type: ignore[arg-type]
    return tp.experiment(tp.MACS, verbose=False)


def _tsch_fig(quick: bool, key: str, paper_key: str, what: str, unit_scale: float) -> Outcome:
    from ..experiments import tsch_paper as tp
    res = _tsch_runs(quick)
    summ = res["summary"]
    paper = pv(paper_key)
    rows = []
    for v, s in summ.items():
        ci = s[key]
        half = (f"95 % CI {unit_scale * ci['ci95_low']:.3g}..{unit_scale * ci['ci95_high']:.3g}"
                if ci["ci95_low"] is not None else "one run: no CI")
        rows.append(Row(f"{tp.label(v)}: {what}, mean of {s['runs']} runs", "%",
                        unit_scale * ci["mean"], paper,
                        note=half + ("" if v == "tsch" else
                                     "; TSCH with Trickle DIOs, not Table I's fixed period"
                                     if v == "tsch_trickle" else
                                     "; a comparison: the paper's figure is TSCH's")))
    cats = [tp.label(v) for v in summ]
    series = []
    for k, (v, s) in enumerate(summ.items()):
        ys = [unit_scale * x for x in s[f"{key}_per_run"]]
        series.append(Series(f"wren {tp.label(v)}: runs (o), mean (*)",
                             [cats[k]] * len(ys), ys, f"C{k}o"))
        series.append(Series("", [cats[k]], [unit_scale * s[key]["mean"]], f"C{k}*"))
    log = key == "duty_cycle" and any(s[key]["mean"] > 0.2 for s in summ.values())
    bound = "above" if paper.bound == "lower" else "below"
    panel = Panel(f"{what}, 30 nodes, 1 datagram/min/node", "", f"{what} (%)", series,
                  hlines=[(paper.value or 0, f"paper: {bound} {fmt(paper.value)} %")], logy=log)
    n = len(next(iter(summ.values()))["seeds"])
    dur = res["runs"][0]["duration_s"] if res["runs"] else 0
    notes = [f"wren: wren.experiments.tsch_paper, {n} seed(s) of {dur / 60:g} simulated minutes "
             f"per variant (the paper: 10 runs of 2 h); 30 nodes at random on a 100 x 60 m "
             f"floor, links from a log-distance path-loss model with shadowing; Table I's "
             f"parameters as the module sets them: "
             + "; ".join(f"{k}: {v[0]} -> {v[1]}" for k, v in tp.TABLE_I.items()),
             "The paper gives Figs. 4-5's points only in its plots; the text's bounds are "
             "the comparison."]
    notes += [f"{v}: {why}" for v, why in res["skipped"].items()]
    notes += [f"{tp.label(v)}: the DODAG had not formed within {tp.FORM_LIMIT_S:.0f} "
              f"simulated s in the runs of seeds {s['not_formed']}; their flows started all the "
              f"same (datagrams without a route count as lost)"
              for v, s in summ.items() if s["not_formed"]]
    return Outcome(rows=rows, panels=[panel], notes=notes)


def tsch_fig4(quick: bool) -> Outcome:
    return _tsch_fig(quick, "pdr", "tsch.fig4.pdr", "end-to-end PDR", 100.0)


def tsch_fig5(quick: bool) -> Outcome:
    return _tsch_fig(quick, "duty_cycle", "tsch.fig5.duty", "radio duty cycle", 100.0)
