"""The 6TiSCH paper's Figs. 4-5: PDR and duty cycle of 30-node networks, in
three windows (wren.experiments.tsch_paper.WINDOWS): from each node's join
(the primary), at steady state, from switch-on."""
import functools
from typing import Any

from .. import paths
from .core import Outcome, Panel, Row, Series, fmt, pv

TSCH_QUICK = dict(seeds=(1,), duration_s=300.0)

MODELLED = ("links from a log-distance path-loss model (exponent 4, 6 dB shadowing per pair) "
            "with the O-QPSK PRR of each frame's length; crystals within +-30 ppm")
DIFFERS = ("the paper ran OpenWSN on 30 OpenMote-B boards of the OpenTestbed (Inria-Paris "
           "offices); wren simulates its own stack on a 100 x 60 m floor with Table I's "
           "parameters")


def _tsch_available() -> bool:
    from ..experiments import tsch_paper
    return tsch_paper.tsch_available() is None


@functools.cache
def _tsch_runs(quick: bool) -> dict[str, Any]:
    """The 30-node experiment (wren.experiments.tsch_paper) for both figures:
    quick, one seed of 5 simulated minutes on TSCH (Table I and Trickle DIOs,
    each in its three windows) and CSMA; else the paper's 10 seeds of 2 h on
    every variant (runs kept in out/tsch_paper/runs, which `./wren bench
    tsch_paper` fills too)."""
    from ..experiments import tsch_paper as tp
    if quick:
        return tp.experiment(["tsch", "tsch_trickle", "csma"], out_dir=paths.OUT / "tsch_paper_quick",
                             verbose=False, **TSCH_QUICK)  # type: ignore[arg-type]
    return tp.experiment(tp.MACS, verbose=False)


def _kind(s: dict[str, Any]) -> str:
    """Beside the paper: TSCH with Table I's DIOs from each node's join (the
    paper's application sends once its node has a parent and a negotiated
    cell); every other window and variant is shown for context."""
    from ..experiments import tsch_paper as tp
    return "paper" if s["mac"] == "tsch" and s["window"] == tp.PRIMARY else "label"


def _pdr_row(v: str, s: dict[str, Any], runs: str) -> Row:
    from ..experiments import tsch_paper as tp
    ci = s["pdr"]
    joins = (f"; joins median {fmt(s['start_median_s'])} s, latest {fmt(s['start_max_s'])} s"
             if s["window"] == "join" else "")
    variant = ("" if s["mac"] == "tsch" else
               "; TSCH with Trickle DIOs, not Table I's fixed period"
               if s["mac"] == "tsch_trickle" else "; a comparison: the paper's figure is TSCH's")
    return Row(f"{tp.label(v)}: end-to-end PDR, mean of {s['runs']} runs", "%",
               100 * ci["mean"], pv("tsch.fig4.pdr"), note=_ci(ci) + joins + variant,
               measured=f"simulator: datagrams received / made by the 29 senders, {runs}; "
                        + tp.WINDOW_TEXT[s["window"]],
               modelled=MODELLED, differs=DIFFERS + variant, kind=_kind(s))


def _duty_rows(v: str, s: dict[str, Any], runs: str) -> list[Row]:
    from ..experiments import tsch_paper as tp
    remark = ("the paper's \"below 1%\" is a design remark of its section II (II-4, the "
              "OpenWSN stack), not Fig. 5's data, whose values the text does not give")
    out = []
    parts = (("duty_cycle", "all 30 nodes"), ("root_duty_cycle", "the root"),
             ("others_duty_cycle", "the 29 non-root nodes"))
    for key, who in parts if s["mac"].startswith("tsch") else parts[:1]:
        ci = s[key]
        out.append(Row(f"{tp.label(v)}: radio duty cycle, {who}, mean of {s['runs']} runs", "%",
                       100 * ci["mean"], pv("tsch.fig5.duty"), note=_ci(ci),
                       measured=f"simulator: radio on (listen + rx + tx) / each node's window, "
                                f"{who}, {runs}; " + tp.WINDOW_TEXT[s["window"]],
                       modelled=MODELLED + "; radio states as the MAC switches them",
                       differs=remark + "; " + DIFFERS, kind="label",
                       headline=v == "tsch:join" and key == "duty_cycle"))
    return out


def _ci(ci: dict[str, Any]) -> str:
    if ci["ci95_low"] is None:
        return "one run: no CI"
    return f"95 % CI {100 * ci['ci95_low']:.3g}..{100 * ci['ci95_high']:.3g}"


def _notes(res: dict[str, Any]) -> list[str]:
    from ..experiments import tsch_paper as tp
    summ = res["summary"]
    n = len(next(iter(summ.values()))["seeds"])
    dur = res["runs"][0]["duration_s"] if res["runs"] else 0
    notes = [f"wren: wren.experiments.tsch_paper, {n} seed(s) of {dur / 60:g} simulated minutes "
             f"per variant and window (the paper: 10 runs of 2 h); 30 nodes at random on a "
             f"100 x 60 m floor, links from a log-distance path-loss model with shadowing; "
             f"Table I's parameters as the module sets them: "
             + "; ".join(f"{k}: {v[0]} -> {v[1]}" for k, v in tp.TABLE_I.items()),
             "Windows: " + "; ".join(f"{w}: {t}" for w, t in tp.WINDOW_TEXT.items()),
             "The paper gives Figs. 4-5's points only in its plots; the text's bounds are "
             "the comparison, and its duty-cycle bound is a design remark (section II)."]
    notes += [f"{v}: {why}" for v, why in res["skipped"].items()]
    notes += [f"{tp.label(v)}: the DODAG had not formed within {tp.FORM_LIMIT_S:.0f} "
              f"simulated s in the runs of seeds {s['not_formed']}"
              for v, s in summ.items() if s["not_formed"]]
    return notes


def _panel(summ: dict[str, Any], key: str, what: str, paper_key: str) -> Panel:
    from ..experiments import tsch_paper as tp
    paper = pv(paper_key)
    cats = [tp.label(v) for v in summ]
    series = []
    for k, (v, s) in enumerate(summ.items()):
        ys = [100 * x for x in s[f"{key}_per_run"]]
        series.append(Series(f"wren {tp.label(v)}: runs (o), mean (*)",
                             [cats[k]] * len(ys), ys, f"C{k}o"))
        series.append(Series("", [cats[k]], [100 * s[key]["mean"]], f"C{k}*"))
    log = key == "duty_cycle" and any(s[key]["mean"] > 0.2 for s in summ.values())
    bound = "above" if paper.bound == "lower" else "below"
    return Panel(f"{what}, 30 nodes, 1 datagram/min/node", "", f"{what} (%)", series,
                 hlines=[(paper.value or 0, f"paper: {bound} {fmt(paper.value)} %"
                          + ("" if key == "pdr" else " (design remark, II-4)"))], logy=log)


def _tsch_fig(quick: bool, key: str) -> Outcome:
    res = _tsch_runs(quick)
    summ = res["summary"]
    dur = res["runs"][0]["duration_s"] if res["runs"] else 0
    rows: list[Row] = []
    for v, s in summ.items():
        runs = f"{s['runs']} seed(s) x {dur / 3600:g} h"
        if key == "pdr":
            rows.append(_pdr_row(v, s, runs))
        elif s["window"] == ("join" if s["mac"].startswith("tsch") else "steady"):
            rows += _duty_rows(v, s, runs)
    what, paper_key = (("end-to-end PDR", "tsch.fig4.pdr") if key == "pdr" else
                       ("radio duty cycle (all 30 nodes)", "tsch.fig5.duty"))
    return Outcome(rows=rows, panels=[_panel(summ, key, what, paper_key)], notes=_notes(res))


def tsch_fig4(quick: bool) -> Outcome:
    return _tsch_fig(quick, "pdr")


def tsch_fig5(quick: bool) -> Outcome:
    return _tsch_fig(quick, "duty_cycle")
