"""The TCP paper's Figure 9: TCP against CoAP under injected loss."""
from .core import Outcome, Panel, Row, Series, pv



def _fig9_available() -> bool:
    """Whether helper fig9's experiment (python/wren/experiments/coap_vs_tcp.py)
    is in this tree (found without importing it)."""
    import importlib.util
    try:
        return importlib.util.find_spec("wren.experiments.coap_vs_tcp") is not None
    except ImportError:
        return False


def tcp_fig9(quick: bool) -> Outcome:
    """The TCP paper's Figure 9 through helper fig9's experiment
    (coap_vs_tcp.run_point: a 3-hop line, a sleepy sensor sending batches of
    82-byte readings, loss injected at the border router)."""
    from ..experiments import coap_vs_tcp as cv  # type: ignore[import-not-found, unused-ignore]
    losses = (0.0, 6.0, 12.0, 21.0) if quick else tuple(float(x) for x in cv.LOSSES)
    seeds = (1, 2) if quick else tuple(cv.SEEDS)
    readings = 1280 if quick else int(cv.READINGS)
    protos = ("tcp", "coap")
    pts: dict[tuple[str, float], dict[str, float]] = {}
    for p in protos:
        for loss in losses:
            rs = [cv.run_point(p, loss, seed=sd, readings=readings) for sd in seeds]
            pts[(p, loss)] = {k: sum(float(r[k]) for r in rs) / len(rs)
                              for k in ("reliability", "radio_dc", "cpu_dc",
                                        "cpu_dc_with_upload")}
    below = max(x for x in losses if x < 15.0)
    paper = pv("tcp.fig9.reliability")
    return Outcome(
        rows=[Row(f"{p.upper()}: reliability at {below:g} % injected loss", "%",
                  100 * pts[(p, below)]["reliability"], paper) for p in protos],
        panels=[Panel("(a) reliability", "injected loss (%)", "readings delivered (%)",
                      [Series(f"wren: {p.upper()}", list(losses),
                              [100 * pts[(p, x)]["reliability"] for x in losses], st)
                       for p, st in zip(protos, ("o-", "s-"))]
                      + [Series("paper: nearly 100 % below 15 % loss", [0, 15],
                                [paper.value or 100.0] * 2, "r--", True)]),
                Panel("(c) the sensor's radio and CPU duty cycle", "injected loss (%)", "%",
                      [Series(f"wren: {p.upper()} radio", list(losses),
                              [100 * pts[(p, x)]["radio_dc"] for x in losses], st)
                       for p, st in zip(protos, ("o-", "s-"))]
                      + [Series(f"wren: {p.upper()} CPU (estimated, frames/datagrams only)",
                                list(losses), [100 * pts[(p, x)]["cpu_dc"] for x in losses], st)
                         for p, st in zip(protos, ("^--", "v--"))]
                      + [Series(f"wren: {p.upper()} CPU + modelled radio upload", list(losses),
                                [100 * pts[(p, x)]["cpu_dc_with_upload"] for x in losses], st)
                         for p, st in zip(protos, ("^-.", "v-."))]
                      + [Series(f"paper Table 8: {p.upper()} CPU (testbed day, not Fig. 9)",
                                [losses[0], losses[-1]],
                                [float(cv.PAPER["table8"][f"{p}_cpu_dc_pct"])] * 2, st, True)
                         for p, st in zip(protos, ("r:", "m:"))])],
        notes=["wren: helper fig9's experiment (wren.experiments.coap_vs_tcp.run_point), "
               f"{readings} readings per run, seeds {', '.join(map(str, seeds))}; the paper "
               "gives Figure 9's points only in "
               "its plot, so the text's statement is the comparison. CPU duty cycle: wren.cpu's "
               "estimate (Cortex-M3 instructions per frame and datagram measured under qemu x "
               "the sensor's counters, CPI 1.5, 72 MHz), TCP/CoAP processing and timers not "
               "charged: a lower bound; \"+ modelled radio upload\" adds the simulated per-frame "
               "upload delay (radio.proc_us) as if the driver waited it out (the paper's "
               "Table 8, a testbed day: TCP "
               f"{cv.PAPER['table8']['tcp_cpu_dc_pct']} %, CoAP "
               f"{cv.PAPER['table8']['coap_cpu_dc_pct']} %)."])
