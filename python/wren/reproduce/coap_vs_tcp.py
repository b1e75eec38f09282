"""The TCP paper's Figure 9: TCP against CoAP under injected loss."""
from typing import Any

from .core import Outcome, Panel, Row, Series, pv


def _fig9_available() -> bool:
    """Whether helper fig9's experiment (python/wren/experiments/coap_vs_tcp.py)
    is in this tree (found without importing it)."""
    import importlib.util
    try:
        return importlib.util.find_spec("wren.experiments.coap_vs_tcp") is not None
    except ImportError:
        return False


MEASURED = ("readings the sink received whole / readings the four sensors made, in wren's "
            "simulator ({n} readings per sensor, seeds {seeds})")
MODELLED = ("links: each frame and ACK through with PRR {prr}; loss: each datagram dropped at "
            "the border router with the given probability, both ways")
DIFFERS = ("simulated tree (static routes, sensors 3/4/4/5 hops) vs the paper's office testbed "
           "(OpenThread routing, real interference; Figure 3's hop counts not in the text)")


def _cells(cv: Any, quick: bool) -> tuple[dict[tuple[str, float], dict[str, Any]], Any, Any]:
    losses = (0.0, 9.0, 15.0, 21.0) if quick else tuple(float(x) for x in cv.LOSSES)
    seeds = (1, 2) if quick else tuple(cv.SEEDS)
    readings = 1280 if quick else int(cv.READINGS)
    points = [cv.run_point(p, loss, seed=sd, readings=readings)
              for p in cv.PROTOCOLS for loss in losses for sd in seeds]
    summary = cv.summarize(points)
    return {(c["protocol"], c["loss_pct"]): c for c in summary}, summary, (losses, seeds,
                                                                          readings)


def _reliability_row(cv: Any, cell: dict[str, Any], what: dict[str, str]) -> Row:
    proto, loss = cell["protocol"], cell["loss_pct"]
    target = cv.TARGETS[loss]
    if loss < 15.0:
        paper, kind = pv("tcp.fig9.reliability"), "paper"
        note = f"target >= {target:g} % (the paper's \"nearly 100%\" below 15 %)"
    elif target is not None:
        paper, kind = pv("tcp.fig9.at_15pct"), "label"
        note = (f"target >= {target:g} %: wren's reading at the edge of the paper's "
                "\"less than 15%\" band, not a number of the paper")
    else:
        paper, kind = pv("tcp.fig9.coap_above_tcp"), "label"
        note = "no level in the paper, only the ordering (next row)"
    return Row(f"{proto.upper()}: reliability at {loss:g} % injected loss", "%",
               cell["reliability_pct"], paper, note=note, kind=kind, headline=loss == 9.0,
               measured=what["measured"], modelled=what["modelled"], differs=what["differs"])


def _ordering_row(cv: Any, summary: Any, what: dict[str, str]) -> Row:
    order = cv.ordering(summary)
    t, c = order["tcp"], order["coap"]
    why = ("" if order["reproduced"] else
           f"; per 1,000 readings CoAP lost {c['lost_queue_full_per_1k']:.0f} to a full queue "
           f"and {c['lost_given_up_per_1k']:.0f} to {c['gave_up']} given-up blocks, TCP "
           f"{t['lost_queue_full_per_1k']:.0f} and {t['lost_given_up_per_1k']:.0f} "
           f"({t['gave_up']} connections given up); CoAP's sensors sat "
           f"{c['coap_wait_s_per_1k']:.0f} s per 1,000 readings in expired 3-4.5 s (doubling) "
           f"timeouts with one block in flight, TCP's RTO was {t['tcp_rto_ms']:.0f} ms (SRTT "
           f"{t['tcp_srtt_ms']:.0f} ms) with a window of segments in flight")
    return Row(f"CoAP above TCP at {order['loss_pct']:g} % (1 = the paper's ordering holds)",
               "0/1", 1.0 if order["reproduced"] else 0.0, pv("tcp.fig9.coap_above_tcp"),
               paper_value=1.0, kind="label", headline=True,
               note=(f"CoAP {c['reliability_pct']:.2f} % vs TCP {t['reliability_pct']:.2f} %" + why),
               measured="the two reliabilities' order, means over the seeds",
               modelled=what["modelled"], differs=what["differs"])


def tcp_fig9(quick: bool) -> Outcome:
    """The TCP paper's Figure 9 through helper fig9's experiment
    (coap_vs_tcp.run_point: four sleepy sensors 3-5 hops from the border
    router over lossy links, batches of 82-byte readings, loss injected at
    the border router)."""
    from ..experiments import coap_vs_tcp as cv  # type: ignore[import-not-found, unused-ignore]
    pts, summary, (losses, seeds, readings) = _cells(cv, quick)
    protos = cv.PROTOCOLS
    what = {"measured": MEASURED.format(n=readings, seeds=", ".join(map(str, seeds))),
            "modelled": MODELLED.format(prr=cv.LINK_PRR), "differs": DIFFERS}
    rows = [_reliability_row(cv, pts[(p, loss)], what)
            for loss in cv.RECORD_LOSSES for p in protos if (p, loss) in pts]
    rows.append(_ordering_row(cv, summary, what))
    cpu_what = dict(what, measured="the sensors' mean CPU duty cycle over their batches",
                    modelled="wren.cpu's estimate: Cortex-M3 instructions per frame and "
                             "datagram (qemu) x the sensors' counters; TCP/CoAP work not charged",
                    differs="an estimate from counters, the paper instrumented RIOT's scheduler")
    rows += [Row(f"{p.upper()}: CPU duty cycle at 0 % injected loss (estimate)", "%",
                 pts[(p, 0.0)]["cpu_dc_pct"], None, kind="label", note="a lower bound: frames and datagrams only", **cpu_what)
             for p in protos if (p, 0.0) in pts]
    paper = pv("tcp.fig9.reliability")
    return Outcome(
        rows=rows,
        panels=[Panel("(a) reliability", "injected loss (%)", "readings delivered (%)",
                      [Series(f"wren: {p.upper()}", list(losses),
                              [pts[(p, x)]["reliability_pct"] for x in losses], st)
                       for p, st in zip(protos, ("o-", "s-"))]
                      + [Series("paper: nearly 100 % below 15 % loss", [0, 15],
                                [paper.value or 100.0] * 2, "r--", True)]),
                Panel("(b) readings lost per 1,000", "injected loss (%)", "readings per 1,000",
                      [Series(f"wren: {p.upper()} {k}", list(losses),
                              [pts[(p, x)][f"lost_{key}_per_1k"] for x in losses], st)
                       for p, st0 in zip(protos, ("o", "s"))
                       for k, key, st in (("queue full", "queue_full", st0 + "-"),
                                          ("given up", "given_up", st0 + "--"))]),
                Panel("(c) the sensors' radio and CPU duty cycle", "injected loss (%)", "%",
                      [Series(f"wren: {p.upper()} radio", list(losses),
                              [pts[(p, x)]["radio_dc_pct"] for x in losses], st)
                       for p, st in zip(protos, ("o-", "s-"))]
                      + [Series(f"wren: {p.upper()} CPU (estimated, frames/datagrams only)",
                                list(losses), [pts[(p, x)]["cpu_dc_pct"] for x in losses], st)
                         for p, st in zip(protos, ("^--", "v--"))]
                      + [Series(f"paper Table 8: {p.upper()} CPU (testbed day, not Fig. 9)",
                                [losses[0], losses[-1]],
                                [float(cv.PAPER["table8"][f"{p}_cpu_dc_pct"])] * 2, st, True)
                         for p, st in zip(protos, ("r:", "m:"))])],
        notes=["wren: helper fig9's experiment (wren.experiments.coap_vs_tcp.run_point): four "
               "sleepy sensors 3, 4, 4 and 5 hops from the border router over links of PRR "
               f"{cv.LINK_PRR}, Contiki CoAP's timers (3 s, x1.5, 4 retransmissions), TCP with "
               f"12 retransmissions and a 40-reading send buffer; {readings} readings per sensor "
               f"and run, seeds {', '.join(map(str, seeds))}. The paper gives Figure 9's points "
               "only in its plot, so its text's statements are the comparison. CPU duty cycle: "
               "wren.cpu's estimate (Cortex-M3 instructions per frame and datagram measured under "
               "qemu x the sensors' counters), TCP/CoAP processing and timers not charged: a "
               "lower bound (the paper's Table 8, a testbed day: TCP "
               f"{cv.PAPER['table8']['tcp_cpu_dc_pct']} %, CoAP "
               f"{cv.PAPER['table8']['coap_cpu_dc_pct']} %)."])
