"""The TCP paper's section 9.4 / Figure 9 in the simulator: TCP against CoAP
under injected packet loss.

Setup (the paper's 9.2-9.4, `python/wren/data/tcp_paper_fig9.toml`): a line
of four nodes 10 m apart, each hearing only its neighbours; node 0 is the
border router and the sink (the paper's cloud server beyond it was ~12 ms
away, against ~300 ms inside the mesh), node 3 the sensor, three hops away,
a sleepy child of node 2 that polls every 100 ms while it awaits an answer
and every 4 minutes otherwise. The sensor's application (runtime/sim/sensor.h,
the shell's `sensor` command) makes an 82-byte reading every second and hands
the queue to the transport once 64 wait: TCP (one connection, MSS 500, a
segment = 5 frames, 2 KiB buffers, SACK and timestamps) or CoAP (CON POSTs
with Block1, 512-byte blocks = 5 frames, RFC 7252's retransmissions: a block
is given up after 4). The border router's 6LoWPAN layer drops each datagram
it receives or sends with probability p (`ifconfig 1 dgloss P SEED`): the
paper's "packet-level loss rate after link retries and 6LoWPAN reassembly".
The links are otherwise clean; the MACs use the 802.15.4 defaults with the
paper's 0..40 ms retry delay, and every radio needs 8.2 ms per full frame
(the paper's hardware; bench_tcp.TCP_PROC_US).

Measured per point: reliability (readings the sink received whole / readings
made), retransmissions by cause, and the sensor's radio duty cycle (time not
asleep, over the batches' steady state) and the sensor's CPU duty cycle over
the same window, estimated by wren.cpu: the Cortex-M3 instructions measured
per frame and per datagram times the sensor's counters, CPI 1.5 at 72 MHz.
That estimate charges frames and datagrams only: TCP's and CoAP's own
processing, timers and the MAC's polls are not in it, so it is a lower bound
and says little about TCP against CoAP (the paper's Table 8 CPU DC is drawn
beside it). Beside it, cpu_dc_with_upload adds the sensor's radio.proc_us,
the modelled radio upload of each frame (bench_tcp.TCP_PROC_US per attempt), as
if the driver waited each SPI transfer out: an upper-side figure for the same
work (downloads of received frames are still not in it).

    from wren.experiments import coap_vs_tcp
    r = coap_vs_tcp.run_point("coap", 15.0, seed=1)
    res = coap_vs_tcp.sweep(Path("out"))   # plot + JSON, see sweep()
"""
from __future__ import annotations

import json
import re
import statistics
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import cpu, paths
from ..bench_tcp import TCP_PROC_US, _tcp_addr, _tcp_line

#: what the paper says (its text; Figure 9's points are not in the stored text)
PAPER: dict[str, Any] = tomllib.loads(
    (Path(__file__).resolve().parent.parent / "data" / "tcp_paper_fig9.toml").read_text())

PROTOCOLS = ("tcp", "coap")
LOSSES = (0.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0, 21.0)  # % per datagram at the border router
SEEDS = tuple(range(1, 11))
READINGS = 3200           # per run: 50 batches, 53 simulated minutes
BATCH = 64
HOPS = 3
POLL_MS = 100             # the paper's data-request interval while an answer is awaited
DRAIN_S = 1200.0          # after the last reading: time for the queue to drain
BR, SENSOR = 0, HOPS
FIG_NAME = "fig9_coap_vs_tcp"

_KV = re.compile(r"([a-z_]+) (\d+)")


def _kv(text: str, prefix: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in text.splitlines():
        if line.startswith(prefix):
            out.update({k: int(v) for k, v in _KV.findall(line[len(prefix):])})
    return out


def _radio_time(sim: Any, node: int) -> dict[str, int]:
    c = sim.counters(node)
    return {k: c[f"radio.time_{k}_us"] for k in ("off", "listen", "rx", "tx")}


def run_point(protocol: str, loss_pct: float, seed: int = 1, readings: int = READINGS,
              sleepy: bool = True, pcap: str | Path | None = None) -> dict[str, Any]:
    """One run: @readings readings (a multiple of 64) over @protocol ("tcp" or
    "coap") with @loss_pct % of the datagrams dropped at the border router,
    each way; its figures as a dict (see the module's doc). @pcap: capture
    every frame there."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, not {protocol!r}")
    if not 0 <= loss_pct <= 100:
        raise ValueError(f"loss_pct must be in 0..100, not {loss_pct}")
    s = _tcp_line(HOPS, TCP_PROC_US, seed=seed)
    try:
        if pcap:
            s.open_pcap(pcap)
        s.shell(BR, f"sensor sink readings {readings + BATCH}")
        res, out = s.shell(BR, f"ifconfig 1 dgloss {loss_pct:.2f} {seed}")
        if res < 0:
            raise RuntimeError(f"dgloss: {out}")
        if sleepy:
            s.set_sleepy(SENSOR, HOPS - 1, 240000)
        poll = f" poll {POLL_MS}" if sleepy else ""
        res, out = s.shell(SENSOR, f"sensor {protocol} {_tcp_addr(BR)} count {readings}{poll}")
        if res < 0:
            raise RuntimeError(f"sensor: {out}")
        # the radio's duty cycle over the batches: from the first batch's hand-off
        # (64 s) to one batch period after the last
        s.run(BATCH)
        t0, k0 = _radio_time(s, SENSOR), s.counters(SENSOR)
        s.run(readings + BATCH)
        t1, k1 = _radio_time(s, SENSOR), s.counters(SENSOR)
        s.run(readings + DRAIN_S)
        sen = _kv(s.shell(SENSOR, "sensor stats")[1], "sensor:")
        sink = _kv(s.shell(BR, "sensor stats")[1], "sink:")
        sc, bc = s.counters(SENSOR), s.counters(BR)
        clean = s.pktbufs_clean()
    finally:
        s.close()
    d = {k: t1[k] - t0[k] for k in t0}
    total = sum(d.values())
    window = {k: k1[k] - k0.get(k, 0) for k in k1}
    cpu_est = cpu.node_cpu(window, total / 1e6, cpu.load()["instructions"])
    r: dict[str, Any] = {
        "protocol": protocol, "loss_pct": loss_pct, "seed": seed,
        "generated": sen["generated"], "delivered": sink["delivered"],
        "reliability": sink["delivered"] / sen["generated"] if sen["generated"] else 0.0,
        "lost_queue_full": sen["lost_full"], "lost_given_up": sen["lost_giveup"],
        "still_queued": sen["queued"], "acked": sen["acked"], "bad_bytes": sink["bad"],
        "batches": sen["batches"],
        "radio_dc": (total - d["off"]) / total if total else 0.0,
        # estimated: frames and datagrams only (wren.cpu), over the same window
        "cpu_dc": cpu_est["duty"],
        "cpu_dc_with_upload": cpu_est["duty_with_upload"],
        "br_dropped_rx": bc["6lowpan.rx_drop_fault"], "br_dropped_tx": bc["6lowpan.tx_drop_fault"],
        "br_datagrams_tx": bc["6lowpan.tx_datagrams"],
        "pktbufs_clean": clean,
    }
    if protocol == "tcp":
        total_rx = sc["tcp.tx_rexmt"]
        # dupACK/SACK-triggered: each fast retransmit (recovery entered) and each
        # segment the SACK scoreboard chose; every other retransmission followed
        # a retransmission timeout (the timed-out segment and those sent again
        # after it in slow start)
        dup = sc["tcp.fast_rexmt"] + sc["tcp.sack_rexmt"]
        r.update(retx=total_rx, retx_timeout=total_rx - dup, retx_dupack_sack=dup,
                 rto_expired=sc["tcp.rto_expired"], packets_sent=sc["tcp.tx_segs"],
                 tcp_failures=sen["tcp_failures"])
    else:
        # CoAP detects every loss by its timeout
        r.update(retx=sen["coap_retx"], retx_timeout=sen["coap_retx"], retx_dupack_sack=0,
                 packets_sent=sen["coap_blocks"] + sen["coap_retx"],
                 blocks_given_up=sen["coap_giveups"], coap_errors=sen["coap_errors"])
    return r


def _mean(xs: Sequence[float]) -> float:
    return statistics.fmean(xs) if xs else 0.0


def summarize(points: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean (and min, max) over seeds per (protocol, loss)."""
    cells: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for p in points:
        cells.setdefault((p["protocol"], p["loss_pct"]), []).append(p)
    out = []
    for (proto, loss), ps in sorted(cells.items()):
        per_k = [1000.0 * p["retx"] / p["generated"] for p in ps]
        out.append({
            "protocol": proto, "loss_pct": loss, "seeds": [p["seed"] for p in ps],
            "reliability_pct": 100 * _mean([p["reliability"] for p in ps]),
            "reliability_min_pct": 100 * min(p["reliability"] for p in ps),
            "reliability_max_pct": 100 * max(p["reliability"] for p in ps),
            "retx_per_1k_readings": _mean(per_k),
            "retx_timeout_per_1k": _mean([1000.0 * p["retx_timeout"] / p["generated"] for p in ps]),
            "retx_dupack_sack_per_1k": _mean([1000.0 * p["retx_dupack_sack"] / p["generated"]
                                              for p in ps]),
            "radio_dc_pct": 100 * _mean([p["radio_dc"] for p in ps]),
            "cpu_dc_pct": 100 * _mean([p["cpu_dc"] for p in ps]),
            "cpu_dc_with_upload_pct": 100 * _mean([p["cpu_dc_with_upload"] for p in ps]),
        })
    return out


def records(summary: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The bench records coap_vs_tcp_reliability_15pct_{coap,tcp}."""
    recs = []
    for proto in ("coap", "tcp"):
        cell = next((c for c in summary if c["protocol"] == proto and c["loss_pct"] == 15.0), None)
        if cell is None:
            continue
        recs.append({
            "name": f"coap_vs_tcp_reliability_15pct_{proto}",
            "value": round(cell["reliability_pct"], 2), "unit": "%", "better": "higher",
            "target": None,
            "anchor": (f"readings delivered at 15 % injected loss, 3 hops, mean of seeds "
                       f"{cell['seeds']}; TCP paper 9.4: \"{PAPER['claims']['reliability_below_15pct']}\""
                       " (Figure 9's points are not in the stored text)"),
        })
    return recs


def plot(summary: Sequence[dict[str, Any]], out_dir: Path, name: str = FIG_NAME) -> list[Path]:
    """Reliability, retransmissions by cause and radio duty cycle against loss,
    wren's beside what the paper states; PNG and SVG in @out_dir."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out_dir.mkdir(parents=True, exist_ok=True)
    colors = {"tcp": "C0", "coap": "C1"}
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    ax_rel, ax_retx, ax_dc = axes
    claims = PAPER["claims"]
    t8 = PAPER["table8"]
    fig9 = PAPER.get("figure9_points", [])
    for proto in PROTOCOLS:
        cells = [c for c in summary if c["protocol"] == proto]
        if not cells:
            continue
        xs = [c["loss_pct"] for c in cells]
        dx = -0.2 if proto == "tcp" else 0.2  # the two protocols' error bars side by side
        label = "TCP" if proto == "tcp" else "CoAP"
        rel = [c["reliability_pct"] for c in cells]
        err = [[r - c["reliability_min_pct"] for r, c in zip(rel, cells)],
               [c["reliability_max_pct"] - r for r, c in zip(rel, cells)]]
        ax_rel.errorbar([x + dx for x in xs], rel, yerr=err, fmt="o-", color=colors[proto], capsize=3,
                        label=f"wren {label} (mean, min-max of seeds)")
        ax_retx.plot(xs, [c["retx_timeout_per_1k"] for c in cells], "o-", color=colors[proto],
                     label=f"wren {label}: after a timeout")
        if proto == "tcp":
            ax_retx.plot(xs, [c["retx_dupack_sack_per_1k"] for c in cells], "s--",
                         color=colors[proto], label="wren TCP: dup ACK / SACK")
        ax_dc.plot(xs, [c["radio_dc_pct"] for c in cells], "o-", color=colors[proto],
                   label=f"wren {label} radio (sensor)")
        ax_dc.axhline(t8[f"{proto}_radio_dc_pct"], color=colors[proto], ls=":",
                      label=f"paper Table 8 {label} radio (testbed day, not Fig. 9)")
        ax_dc.plot(xs, [c["cpu_dc_pct"] for c in cells], "^--", color=colors[proto],
                   label=f"wren {label} CPU, estimated (frames, datagrams only)")
        ax_dc.plot(xs, [c["cpu_dc_with_upload_pct"] for c in cells], "v-.", color=colors[proto],
                   label=f"wren {label} CPU + modelled radio upload")
        ax_dc.axhline(t8[f"{proto}_cpu_dc_pct"], color=colors[proto], ls="-.", alpha=0.6,
                      label=f"paper Table 8 {label} CPU")
        pts = [p for p in fig9 if p.get("protocol") == proto]
        if pts:
            ax_rel.plot([p["loss_pct"] for p in pts], [p["reliability_pct"] for p in pts], "x",
                        color=colors[proto], ms=9, label=f"paper Fig. 9 {label}")
    ax_rel.hlines(claims["nearly_pct"], 0, claims["below_loss_pct"], colors="k", linewidth=6,
                  alpha=0.25, label="paper 9.4 text: both \"nearly 100%\" below 15 %")
    ax_rel.set_ylabel("reliability (% of readings delivered)")
    ax_rel.set_ylim(min(80.0, min((c["reliability_min_pct"] for c in summary), default=80) - 2),
                    101)
    ax_retx.set_ylabel("retransmissions per 1,000 readings")
    ax_dc.set_ylabel("radio and CPU duty cycle (%)")
    ax_dc.set_ylim(bottom=0)
    for ax in axes:
        ax.set_xlabel("loss injected at the border router (%)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("TCP paper 9.4 / Fig. 9 in wren's simulator: 82-byte readings each second, "
                 "batches of 64, 3 hops\neach datagram dropped with the given probability at "
                 "the border router, both ways (CPU duty cycle: wren.cpu's estimate, TCP/CoAP "
                 "processing not charged)", fontsize=9)
    fig.tight_layout()
    files = [out_dir / f"{name}.png", out_dir / f"{name}.svg"]
    fig.savefig(files[0], dpi=100)
    fig.savefig(files[1])
    plt.close(fig)
    return files


def _table(summary: Sequence[dict[str, Any]]) -> str:
    lines = [f"{'proto':<5} {'loss %':>6} {'reliab. %':>9} {'min %':>6} {'retx/1k':>8} "
             f"{'timeout':>8} {'dupack/SACK':>11} {'radio DC %':>10} {'CPU DC %':>8} {'+upload %':>9}"]
    for c in summary:
        lines.append(f"{c['protocol']:<5} {c['loss_pct']:>6.0f} {c['reliability_pct']:>9.2f} "
                     f"{c['reliability_min_pct']:>6.1f} {c['retx_per_1k_readings']:>8.1f} "
                     f"{c['retx_timeout_per_1k']:>8.1f} {c['retx_dupack_sack_per_1k']:>11.1f} "
                     f"{c['radio_dc_pct']:>10.3f} {c['cpu_dc_pct']:>8.4f} "
                     f"{c['cpu_dc_with_upload_pct']:>9.3f}")
    t8 = PAPER["table8"]
    lines.append(f"paper 9.4: \"{PAPER['claims']['reliability_below_15pct']}\"")
    lines.append(f"paper Table 8 (testbed, a day, no injected loss): TCP {t8['tcp_reliability_pct']} "
                 f"% reliable, radio DC {t8['tcp_radio_dc_pct']} %, CPU DC {t8['tcp_cpu_dc_pct']} %; "
                 f"CoAP {t8['coap_reliability_pct']} %, {t8['coap_radio_dc_pct']} %, "
                 f"{t8['coap_cpu_dc_pct']} %")
    lines.append("CPU DC: wren.cpu's estimate (Cortex-M3 instructions per frame/datagram x "
                 "counters, CPI 1.5, 72 MHz); TCP/CoAP processing, timers and MAC polls not "
                 "charged: a lower bound; +upload: with the modelled radio upload per frame "
                 "(radio.proc_us) as CPU time")
    return "\n".join(lines)


def sweep(out_dir: Path | None = None, losses: Sequence[float] = LOSSES,
          seeds: Sequence[int] = SEEDS, readings: int = READINGS, quick: bool = False,
          verbose: bool = True) -> dict[str, Any]:
    """Every (protocol, loss, seed) point; writes @out_dir/fig9_coap_vs_tcp.{png,svg,json}
    (default out/) and returns {"points", "summary", "records", "paper", "files"}.
    @quick: seeds 1-2 and 1,280 readings per run."""
    if quick:
        seeds, readings = tuple(seeds)[:2], 1280
    out_dir = out_dir or paths.OUT
    points = [run_point(proto, loss, seed, readings)
              for proto in PROTOCOLS for loss in losses for seed in seeds]
    summary = summarize(points)
    recs = records(summary)
    files = plot(summary, out_dir)
    data = {"experiment": "TCP paper 9.4 / Figure 9: TCP vs CoAP under injected loss",
            "command": "./wren bench coap_vs_tcp", "readings_per_run": readings,
            "points": points, "summary": summary, "records": recs, "paper": PAPER}
    js = out_dir / f"{FIG_NAME}.json"
    js.write_text(json.dumps(data, indent=1))
    files.append(js)
    if verbose:
        print(_table(summary))
        for f in files:
            print(f"  {f}")
    return {"points": points, "summary": summary, "records": recs, "paper": PAPER,
            "files": files}


def bench() -> list[dict[str, Any]]:
    """./wren bench coap_vs_tcp: the full sweep, its plot and its two records."""
    return sweep()["records"]
