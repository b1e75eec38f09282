"""The TCP paper's section 9.4 / Figure 9 in the simulator: TCP against CoAP
under injected packet loss, four sensors 3-5 hops from the border router.

Setup (each number from the paper's 9.2-9.4 unless said; the quotes are in
`python/wren/data/tcp_paper_fig9.toml`):

- Topology (9.2: "a 3-to-5 hop topology", four sensors, "Nodes 12-15"): the
  border router (node 0, the sink: the paper's cloud server beyond it was
  ~12 ms away, against ~300 ms inside the mesh), four routers in a line
  10 m apart (nodes 1-4) and the four sensors (nodes 5-8 stand for the
  paper's 12-15), each a sleepy leaf 10 m off a router: 3, 4, 4 and 5 hops
  (TOPOLOGY). Figure 3 (the testbed snapshot) is not in the paper's stored
  text, so which sensor sat how deep is ours; the 3-5 range is the paper's.
  Routes are static along the tree (the paper's OpenThread chose its own).
- Links (lossy, not clean): every two radios at most RANGE_M apart hear each
  other, and each frame and each ACK gets through with LINK_PRR (0.95), so
  a hop's frame needs a link retry about one time in ten and the routers
  two hops apart are hidden terminals. 0.95 makes one sensor's 5-frame
  datagrams lose under 1 % end to end after link retries (measured: 0-0.3 %
  at 3 and 5 hops; 0.9 lost 2.3 %), the paper's Figure 6(b) loss at
  d = 30 ms over three hops ("less than 1% packet loss", 7.3). The MACs use the 802.15.4 defaults
  (CSMA-CA, 3 frame retries) with the paper's 40 ms link retry delay (7.1),
  and every radio needs 8.2 ms per full frame (bench_tcp.TCP_PROC_US, the
  paper's hardware).
- Traffic (9.2-9.3): each sensor makes an 82-byte reading every second and
  hands the queue to the transport once 64 wait (batching); the queue holds
  64 readings for TCP (plus TCP's send buffer of 40 readings, 3,280 bytes)
  and 104 for CoAP. Sleepy leaves poll their parent every 100 ms while they
  await an ACK or response and every 4 minutes otherwise (9.2). Each sensor
  starts at its own moment within one batch period (drawn from the seed;
  the paper does not say how its sensors' batches lined up).
- TCP (runtime/sim/sensor.h; src/tcp): one connection per sensor, MSS of
  5 frames (6.1: "we use MSS = 5 frames"; 500 bytes with wren's headers),
  SACK and timestamps, up to 12 retransmissions with exponential backoff
  (9.4: "TCP performs up to 12 retransmissions"; CONFIG_WREN_TCP_MAX_RETRIES).
- CoAP: the paper ported Contiki's CoAP (9.1), whose constants are a 3 s
  response timeout, random factor 1.5 and 4 retransmissions (Contiki's
  er-coap-constants.h: COAP_RESPONSE_TIMEOUT 3, COAP_RESPONSE_RANDOM_FACTOR
  1.5, COAP_MAX_RETRANSMIT 4; the paper 9.4: "it 'gives up' after just 4
  retransmissions ... resets its RTO to 3 seconds"): CON POSTs of Block1
  blocks of 512 bytes (5 frames, "the same size as segments in TCP", 9.3),
  the first timeout in [3, 4.5] s, doubled on each retransmission; a block
  given up loses its readings and the rest goes on (the paper's own
  block-wise code, 9.1).
- Loss (9.4: "we inject (uniformly random) packet loss at the border
  router"): the border router's 6LoWPAN layer drops each datagram it
  receives or sends with probability p (`ifconfig 1 dgloss P SEED`).

Measured per point: reliability (9.2: "the proportion of generated sensor
readings that are delivered to the server": the sink's count over the four
sensors' readings made), retransmissions by cause, give-ups, queue drops,
and the sensors' mean radio duty cycle (time not asleep, over each sensor's
batches) and CPU duty cycle over the same windows, estimated by wren.cpu:
the Cortex-M3 instructions measured per frame and per datagram times the
sensor's counters. That estimate charges frames and datagrams only: TCP's and
CoAP's own processing, timers and the MAC's polls are not in it, so it is a
lower bound and says little about TCP against CoAP (the paper's Table 8 CPU
DC is drawn beside it). Beside it, cpu_dc_with_upload adds the sensor's
radio.proc_us, the modelled radio upload of each frame (bench_tcp.TCP_PROC_US per
attempt), as if the driver waited each SPI transfer out.

    from wren.experiments import coap_vs_tcp
    r = coap_vs_tcp.run_point("coap", 15.0, seed=1)
    res = coap_vs_tcp.sweep(Path("out"))   # plot + JSON, see sweep()
"""
from __future__ import annotations

import json
import random
import re
import statistics
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import cpu, paths
from ..addr import addr
from ..bench_tcp import TCP_PROC_US, TCP_RETRY_DELAY, _tcp_addr
from ..lib import Sim

#: what the paper says (its text; Figure 9's points are not in the stored text)
PAPER: dict[str, Any] = tomllib.loads(
    (Path(__file__).resolve().parent.parent / "data" / "tcp_paper_fig9.toml").read_text())

PROTOCOLS = ("tcp", "coap")
LOSSES = (0.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0, 21.0)  # % per datagram at the border router
RECORD_LOSSES = (9.0, 15.0, 21.0)
SEEDS = tuple(range(1, 21))
READINGS = 3200           # per sensor and run: 50 batches, 53 simulated minutes
BATCH = 64
POLL_MS = 100             # the paper's data-request interval while an answer is awaited
IDLE_POLL_MS = 240000     # ... and otherwise (OpenThread's default, the paper's 9.2)
COAP_RTO_MS = 3000        # Contiki's COAP_RESPONSE_TIMEOUT (the paper's 9.1, 9.4)
DRAIN_S = 1200.0          # after the last reading: time for the queues to drain
LINK_PRR = 0.95           # each frame and each ACK, every link (see mesh())
RANGE_M = 12.0            # radios this close hear each other (neighbours on the tree)
BR = 0
#: node -> (x, y, parent): the border router, four routers in a line, four
#: sleepy sensors (the paper's nodes 12-15) hanging off routers 2, 3, 3, 4
TOPOLOGY: dict[int, tuple[float, float, int | None]] = {
    0: (0.0, 0.0, None),
    1: (10.0, 0.0, 0), 2: (20.0, 0.0, 1), 3: (30.0, 0.0, 2), 4: (40.0, 0.0, 3),
    5: (20.0, 10.0, 2), 6: (30.0, 10.0, 3), 7: (30.0, -10.0, 3), 8: (40.0, 10.0, 4),
}
SENSORS = (5, 6, 7, 8)
FIG_NAME = "fig9_coap_vs_tcp"

_KV = re.compile(r"([a-z_]+) (\d+)")


def path_to_br(node: int) -> list[int]:
    """The nodes from @node to the border router along TOPOLOGY's parents."""
    out = [node]
    while (parent := TOPOLOGY[out[-1]][2]) is not None:
        out.append(parent)
    return out


def hops(node: int) -> int:
    return len(path_to_br(node)) - 1


def _kv(text: str, prefix: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in text.splitlines():
        if line.startswith(prefix):
            out.update({k: int(v) for k, v in _KV.findall(line[len(prefix):])})
    return out


def _radio_time(sim: Any, node: int) -> dict[str, int]:
    c = sim.counters(node)
    return {k: c[f"radio.time_{k}_us"] for k in ("off", "listen", "rx", "tx")}


def _blocks(ids: Sequence[int]) -> list[tuple[int, int]]:
    """@ids as the fewest aligned blocks (first id, prefix length of the
    /128 addresses _tcp_addr gives them) that cover exactly them."""
    left, out = sorted(ids), []
    while left:
        first, size = left[0], 1
        while first % (2 * size) == 0 and all(first + k in left for k in range(2 * size)):
            size *= 2
        out.append((first, 128 - (size.bit_length() - 1)))
        left = [i for i in left if i >= first + size]
    return out


def _routes(s: Sim, node: int) -> None:
    """Static routes along the tree (the nodes hold CONFIG_WREN_FIB_ENTRIES,
    4, routes): a default route to the parent in place of the on-link /64
    (not needed: every next hop is routed), and down to the sensors below
    through the child on each one's path, aggregated per child."""
    parent = TOPOLOGY[node][2]
    if parent is not None:
        s.shell(node, "fib del 2001:db8::/64")
        _check(s.shell(node, f"fib add default via fe80::ff:fe00:{parent:x} dev 1"), "fib")
    below: dict[int, list[int]] = {}
    for sensor in SENSORS:
        path = path_to_br(sensor)
        if node in path[1:]:
            below.setdefault(path[path.index(node) - 1], []).append(sensor)
    for child, ids in sorted(below.items()):
        for first, plen in _blocks(ids):
            _check(s.shell(node, f"fib add {_tcp_addr(first)}/{plen} "
                                 f"via fe80::ff:fe00:{child:x} dev 1"), "fib")


def mesh(seed: int = 1, proc_us: int = TCP_PROC_US, prr: float = LINK_PRR) -> Sim:
    """The Figure 9 network (TOPOLOGY): lossy links between radios within
    RANGE_M, the 802.15.4 MAC defaults with the paper's retry delay, Thread-like
    addresses (short, a shared context), static routes; returns the Sim."""
    s = Sim(seed)
    s.set_range(RANGE_M, prr)
    if proc_us:
        s.set_proc_delay(proc_us)
    for node, (x, y, _) in sorted(TOPOLOGY.items()):
        assert s.add_node(x, y) == node
    for node in sorted(TOPOLOGY):
        s.set_mac(node, csma=True, ack=True, retry_delay_ms=TCP_RETRY_DELAY)
        s.shell(node, "ifconfig 1 l2src short")
        s.shell(node, "nib prefix add 2001:db8::/64 ctx 0")
        s.shell(node, f"ifconfig 1 del {addr('2001:db8::', node)}")  # the SLAAC one (EUI-64)
        s.shell(node, f"ifconfig 1 add {_tcp_addr(node)}/64")
        _routes(s, node)
    return s


def _check(res_out: tuple[int, str], what: str) -> None:
    if res_out[0] < 0:
        raise RuntimeError(f"{what}: {res_out[1]}")


def _start_sensors(s: Sim, protocol: str, readings: int, seed: int, sleepy: bool,
                   coap_rto_ms: int = COAP_RTO_MS) -> dict[int, float]:
    """Each sensor's start, drawn in one batch period from @seed; the
    sensors are started in that order. Returns {sensor: start time, s}."""
    rng = random.Random(seed)
    starts = {n: round(rng.uniform(0.0, BATCH), 3) for n in SENSORS}
    poll = f" poll {POLL_MS}" if sleepy else ""
    rto = f" rto {coap_rto_ms}" if protocol == "coap" else ""
    for n in SENSORS:
        if sleepy:
            s.set_sleepy(n, TOPOLOGY[n][2] or BR, IDLE_POLL_MS)
    for n in sorted(SENSORS, key=lambda k: starts[k]):
        s.run(starts[n])
        _check(s.shell(n, f"sensor {protocol} {_tcp_addr(BR)} count {readings}{poll}{rto}"),
               "sensor")
    return starts


def _windows(s: Sim, starts: dict[int, float], readings: int) -> dict[int, dict[str, Any]]:
    """Each sensor's radio times and counters over its batches: from its first
    batch's hand-off to one batch period after its last reading."""
    marks = sorted([(t + BATCH, n, 0) for n, t in starts.items()]
                   + [(t + readings + BATCH, n, 1) for n, t in starts.items()])
    snap: dict[tuple[int, int], tuple[dict[str, int], dict[str, int]]] = {}
    for t, n, k in marks:
        s.run(t)
        snap[(n, k)] = (_radio_time(s, n), s.counters(n))
    out = {}
    for n in starts:
        (t0, k0), (t1, k1) = snap[(n, 0)], snap[(n, 1)]
        d = {k: t1[k] - t0[k] for k in t0}
        out[n] = {"radio": d, "counters": {k: k1[k] - k0.get(k, 0) for k in k1}}
    return out


def _sensor_result(protocol: str, sen: dict[str, int], sc: dict[str, int],
                   win: dict[str, Any]) -> dict[str, Any]:
    """One sensor's figures: its bookkeeping, counters and duty cycles."""
    d = win["radio"]
    total = sum(d.values())
    cpu_est = cpu.node_cpu(win["counters"], total / 1e6, cpu.load()["instructions"])
    r: dict[str, Any] = {
        "generated": sen["generated"], "lost_queue_full": sen["lost_full"],
        "lost_given_up": sen["lost_giveup"], "still_queued": sen["queued"],
        "acked": sen["acked"], "batches": sen["batches"],
        "radio_dc": (total - d["off"]) / total if total else 0.0,
        "cpu_dc": cpu_est["duty"], "cpu_dc_with_upload": cpu_est["duty_with_upload"],
        "mac_retries": sc["mac.tx_retries"],
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
                 tcp_failures=sen["tcp_failures"], gave_up=sen["tcp_failures"],
                 tcp_srtt_ms=sen["tcp_srtt_ms"], tcp_rto_ms=sen["tcp_rto_ms"])
    else:
        # CoAP detects every loss by its timeout
        r.update(retx=sen["coap_retx"], retx_timeout=sen["coap_retx"], retx_dupack_sack=0,
                 rto_expired=sen["coap_retx"] + sen["coap_giveups"],
                 packets_sent=sen["coap_blocks"] + sen["coap_retx"],
                 blocks_given_up=sen["coap_giveups"], coap_errors=sen["coap_errors"],
                 gave_up=sen["coap_giveups"], coap_wait_s=sen["coap_wait_ms"] / 1000.0)
    return r


_SUMMED = ("generated", "lost_queue_full", "lost_given_up", "still_queued", "acked", "batches",
           "retx", "retx_timeout", "retx_dupack_sack", "rto_expired", "packets_sent", "gave_up",
           "mac_retries", "tcp_failures", "blocks_given_up", "coap_errors", "coap_wait_s")
_MEANED = ("radio_dc", "cpu_dc", "cpu_dc_with_upload", "tcp_srtt_ms", "tcp_rto_ms")


def run_point(protocol: str, loss_pct: float, seed: int = 1, readings: int = READINGS,
              sleepy: bool = True, pcap: str | Path | None = None,
              coap_rto_ms: int = COAP_RTO_MS) -> dict[str, Any]:
    """One run: @readings readings per sensor (a multiple of 64) over
    @protocol ("tcp" or "coap") from the four sensors, with @loss_pct % of
    the datagrams dropped at the border router, each way; its figures as a
    dict (see the module's doc): counts summed over the sensors, duty cycles
    their mean, "sensors" each one's. @pcap: capture every frame there.
    @coap_rto_ms: CoAP's initial timeout (the paper's Contiki CoAP: 3 s; other
    values are a sensitivity check, not the paper's setup)."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, not {protocol!r}")
    if not 0 <= loss_pct <= 100:
        raise ValueError(f"loss_pct must be in 0..100, not {loss_pct}")
    s = mesh(seed)
    try:
        if pcap:
            s.open_pcap(pcap)
        _check(s.shell(BR, f"sensor sink readings {readings + BATCH}"), "sink")
        _check(s.shell(BR, f"ifconfig 1 dgloss {loss_pct:.2f} {seed}"), "dgloss")
        starts = _start_sensors(s, protocol, readings, seed, sleepy, coap_rto_ms)
        wins = _windows(s, starts, readings)
        s.run(max(starts.values()) + readings + DRAIN_S)
        per = {n: _sensor_result(protocol, _kv(s.shell(n, "sensor stats")[1], "sensor:"),
                                 s.counters(n), wins[n]) for n in SENSORS}
        sink_out = s.shell(BR, "sensor stats")[1]
        sink = _kv(sink_out, "sink:")
        by_peer = {line.split()[1]: int(line.split()[3]) for line in sink_out.splitlines()
                   if line.startswith("sink_peer:")}
        bc = s.counters(BR)
        clean = s.pktbufs_clean()
    finally:
        s.close()
    for n in SENSORS:
        per[n].update(node=n, hops=hops(n), delivered=by_peer.get(_tcp_addr(n), 0))
    r: dict[str, Any] = {"protocol": protocol, "loss_pct": loss_pct, "seed": seed,
                         "readings": readings}
    r.update({k: sum(p.get(k, 0) for p in per.values()) for k in _SUMMED})
    r.update({k: _mean([p[k] for p in per.values()]) for k in _MEANED
              if k in per[SENSORS[0]]})
    r.update(delivered=sink["delivered"],
             reliability=sink["delivered"] / r["generated"] if r["generated"] else 0.0,
             bad_bytes=sink["bad"], sink_unknown=sink["unknown"],
             br_dropped_rx=bc["6lowpan.rx_drop_fault"], br_dropped_tx=bc["6lowpan.tx_drop_fault"],
             br_datagrams_tx=bc["6lowpan.tx_datagrams"], pktbufs_clean=clean,
             sensors=[per[n] for n in SENSORS])
    return r


def _mean(xs: Sequence[float]) -> float:
    return statistics.fmean(xs) if xs else 0.0


#: summary key -> point key, as a mean over seeds per 1,000 readings made
_PER_1K = {"retx_per_1k_readings": "retx", "retx_timeout_per_1k": "retx_timeout",
           "retx_dupack_sack_per_1k": "retx_dupack_sack",
           "lost_queue_full_per_1k": "lost_queue_full", "lost_given_up_per_1k": "lost_given_up",
           "rto_expired_per_1k": "rto_expired",
           # CoAP: seconds its sensors sat in timeouts that expired
           "coap_wait_s_per_1k": "coap_wait_s"}


def _cell(proto: str, loss: float, ps: Sequence[dict[str, Any]]) -> dict[str, Any]:
    rel = [p["reliability"] for p in ps]
    c: dict[str, Any] = {
        "protocol": proto, "loss_pct": loss, "seeds": [p["seed"] for p in ps],
        "reliability_pct": 100 * _mean(rel), "reliability_min_pct": 100 * min(rel),
        "reliability_max_pct": 100 * max(rel),
        "gave_up": sum(p["gave_up"] for p in ps), "readings_per_sensor": ps[0].get("readings")}
    c.update({k: _mean([1000.0 * p.get(key, 0) / p["generated"] for p in ps])
              for k, key in _PER_1K.items()})
    # TCP: the connections' RTT estimate and timeout before backoff at the end
    c.update({k: _mean([p[k] for p in ps if k in p]) for k in ("tcp_srtt_ms", "tcp_rto_ms")})
    c.update({f"{k}_pct": 100 * _mean([p[k] for p in ps]) for k in _MEANED[:3]})
    return c


def summarize(points: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean (and min, max) over seeds per (protocol, loss)."""
    cells: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for p in points:
        cells.setdefault((p["protocol"], p["loss_pct"]), []).append(p)
    return [_cell(proto, loss, ps) for (proto, loss), ps in sorted(cells.items())]


#: the records' targets (%): the paper's 9.4 says both "achieve nearly 100%
#: reliability at packet loss rates less than 15%" (9 %: >= 99). 15 % is the
#: edge of that band, not in it ("less than"); the only statement the text
#: makes at 15 % is that CoCoA "performs poorly, significantly worse than
#: CoAP or TCP", so both are still high there: wren reads that as >= 95
#: (ours, not a number of the paper). Beyond 15 % the paper claims no level,
#: only the ordering (CLAIM_ABOVE_15), so 21 % has no target.
TARGETS = {9.0: 99.0, 15.0: 95.0, 21.0: None}
CLAIM_ABOVE_15 = PAPER["claims"]["above_15pct"]


def _anchor(loss: float, cell: dict[str, Any]) -> str:
    base = (f"readings delivered / readings made, four sensors 3-5 hops from the border router "
            f"(links PRR {LINK_PRR}), {loss:g} % of datagrams dropped at the border router, mean "
            f"of seeds {cell['seeds']} x {cell['readings_per_sensor']} readings per sensor; ")
    target = TARGETS.get(loss)
    if loss < 15.0:
        return base + f"TCP paper 9.4: \"{PAPER['claims']['reliability_below_15pct']}\" (>= {target})"
    if target is not None:
        return base + (f"target {target}: 15 % is the edge of the paper's \"nearly 100%\" band "
                       "(\"less than 15%\"), where the text still sets CoAP and TCP above CoCoA's "
                       "\"significantly worse\"; wren's reading, not the paper's number")
    return base + f"no level in the paper; its ordering claim: \"{CLAIM_ABOVE_15}\""


def records(summary: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The bench records coap_vs_tcp_reliability_{9,15,21}pct_{tcp,coap}
    (those of the losses @summary has)."""
    recs = []
    for loss in RECORD_LOSSES:
        for proto in ("tcp", "coap"):
            cell = next((c for c in summary
                         if c["protocol"] == proto and c["loss_pct"] == loss), None)
            if cell is None:
                continue
            recs.append({
                "name": f"coap_vs_tcp_reliability_{loss:g}pct_{proto}",
                "value": round(cell["reliability_pct"], 2), "unit": "%", "better": "higher",
                "target": TARGETS[loss], "anchor": _anchor(loss, cell)})
    return recs


def ordering(summary: Sequence[dict[str, Any]], loss: float = 21.0) -> dict[str, Any] | None:
    """The paper's claim beyond 15 % (CoAP's reliability above TCP's) at
    @loss: whether wren's means reproduce it, and the counters behind each
    protocol's losses."""
    cells = {c["protocol"]: c for c in summary if c["loss_pct"] == loss}
    if set(cells) != set(PROTOCOLS):
        return None
    tcp, coap = cells["tcp"], cells["coap"]
    keys = ("reliability_pct", "lost_queue_full_per_1k", "lost_given_up_per_1k", "gave_up",
            "retx_per_1k_readings", "rto_expired_per_1k", "coap_wait_s_per_1k", "tcp_rto_ms",
            "tcp_srtt_ms")
    return {"loss_pct": loss, "claim": CLAIM_ABOVE_15,
            "reproduced": coap["reliability_pct"] > tcp["reliability_pct"],
            "tcp": {k: tcp[k] for k in keys}, "coap": {k: coap[k] for k in keys}}


def _plot_proto(axes: Any, proto: str, cells: Sequence[dict[str, Any]], color: str) -> None:
    """One protocol's curves on the three panels."""
    ax_rel, ax_retx, ax_dc = axes
    t8 = PAPER["table8"]
    xs = [c["loss_pct"] for c in cells]
    dx = -0.2 if proto == "tcp" else 0.2  # the two protocols' error bars side by side
    label = "TCP" if proto == "tcp" else "CoAP"
    rel = [c["reliability_pct"] for c in cells]
    err = [[r - c["reliability_min_pct"] for r, c in zip(rel, cells)],
           [c["reliability_max_pct"] - r for r, c in zip(rel, cells)]]
    ax_rel.errorbar([x + dx for x in xs], rel, yerr=err, fmt="o-", color=color, capsize=3,
                    label=f"wren {label} (mean, min-max of seeds)")
    ax_retx.plot(xs, [c["retx_timeout_per_1k"] for c in cells], "o-", color=color,
                 label=f"wren {label}: retransmitted after a timeout")
    if proto == "tcp":
        ax_retx.plot(xs, [c["retx_dupack_sack_per_1k"] for c in cells], "s--",
                     color=color, label="wren TCP: retransmitted on dup ACK / SACK")
    ax_retx.plot(xs, [c["lost_queue_full_per_1k"] for c in cells], "x:", color=color,
                 label=f"wren {label}: readings lost to a full queue")
    ax_dc.plot(xs, [c["radio_dc_pct"] for c in cells], "o-", color=color,
               label=f"wren {label} radio (sensors' mean)")
    ax_dc.axhline(t8[f"{proto}_radio_dc_pct"], color=color, ls=":",
                  label=f"paper Table 8 {label} radio (testbed day, not Fig. 9)")
    ax_dc.plot(xs, [c["cpu_dc_pct"] for c in cells], "^--", color=color,
               label=f"wren {label} CPU, estimated (frames, datagrams only)")
    ax_dc.plot(xs, [c["cpu_dc_with_upload_pct"] for c in cells], "v-.", color=color,
               label=f"wren {label} CPU + modelled radio upload")
    ax_dc.axhline(t8[f"{proto}_cpu_dc_pct"], color=color, ls="-.", alpha=0.6,
                  label=f"paper Table 8 {label} CPU")
    pts = [p for p in PAPER.get("figure9_points", []) if p.get("protocol") == proto]
    if pts:
        ax_rel.plot([p["loss_pct"] for p in pts], [p["reliability_pct"] for p in pts], "x",
                    color=color, ms=9, label=f"paper Fig. 9 {label}")


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
    for proto in PROTOCOLS:
        cells = [c for c in summary if c["protocol"] == proto]
        if cells:
            _plot_proto(axes, proto, cells, colors[proto])
    ax_rel.hlines(claims["nearly_pct"], 0, claims["below_loss_pct"], colors="k", linewidth=6,
                  alpha=0.25, label="paper 9.4 text: both \"nearly 100%\" below 15 %")
    ax_rel.set_ylabel("reliability (% of readings delivered)")
    ax_rel.set_ylim(min(80.0, min((c["reliability_min_pct"] for c in summary), default=80) - 2),
                    101)
    ax_retx.set_ylabel("retransmissions, readings lost per 1,000 readings")
    ax_dc.set_ylabel("radio and CPU duty cycle (%)")
    ax_dc.set_ylim(bottom=0)
    for ax in axes:
        ax.set_xlabel("loss injected at the border router (%)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("TCP paper 9.4 / Fig. 9 in wren's simulator: four sensors 3-5 hops from the "
                 f"border router (links PRR {LINK_PRR}), 82-byte readings each second, batches of "
                 "64\neach datagram dropped with the given probability at "
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
             f"{'timeout':>8} {'dupack/SACK':>11} {'qfull/1k':>8} {'giveup/1k':>9} {'gave up':>7} "
             f"{'radio DC %':>10} {'CPU DC %':>8} {'+upload %':>9}"]
    for c in summary:
        lines.append(f"{c['protocol']:<5} {c['loss_pct']:>6.0f} {c['reliability_pct']:>9.2f} "
                     f"{c['reliability_min_pct']:>6.1f} {c['retx_per_1k_readings']:>8.1f} "
                     f"{c['retx_timeout_per_1k']:>8.1f} {c['retx_dupack_sack_per_1k']:>11.1f} "
                     f"{c['lost_queue_full_per_1k']:>8.1f} {c['lost_given_up_per_1k']:>9.1f} "
                     f"{c['gave_up']:>7} {c['radio_dc_pct']:>10.3f} {c['cpu_dc_pct']:>8.4f} "
                     f"{c['cpu_dc_with_upload_pct']:>9.3f}")
    order = ordering(summary)
    if order:
        lines.append(f"paper 9.4: \"{order['claim']}\": at {order['loss_pct']:g} % wren "
                     f"{'reproduces' if order['reproduced'] else 'does NOT reproduce'} it "
                     f"(CoAP {order['coap']['reliability_pct']:.2f} %, TCP "
                     f"{order['tcp']['reliability_pct']:.2f} %)")
    t8 = PAPER["table8"]
    lines.append(f"paper 9.4: \"{PAPER['claims']['reliability_below_15pct']}\"")
    lines.append(f"paper Table 8 (testbed, a day, no injected loss): TCP {t8['tcp_reliability_pct']} "
                 f"% reliable, radio DC {t8['tcp_radio_dc_pct']} %, CPU DC {t8['tcp_cpu_dc_pct']} %; "
                 f"CoAP {t8['coap_reliability_pct']} %, {t8['coap_radio_dc_pct']} %, "
                 f"{t8['coap_cpu_dc_pct']} %")
    lines.append("CPU DC: wren.cpu's estimate (Cortex-M3 instructions per frame/datagram x "
                 f"counters, CPI {cpu.CPI:g}, {cpu.CLOCK_HZ / 1e6:g} MHz); TCP/CoAP processing, "
                 "timers and MAC polls not "
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
    data = {"experiment": "TCP paper 9.4 / Figure 9: TCP vs CoAP under injected loss, four "
                          "sensors 3-5 hops from the border router",
            "command": "./wren bench coap_vs_tcp", "readings_per_sensor": readings,
            "seeds": list(seeds), "losses": list(losses), "topology": TOPOLOGY,
            "link_prr": LINK_PRR, "points": points, "summary": summary, "records": recs,
            "ordering": ordering(summary), "paper": PAPER}
    js = out_dir / f"{FIG_NAME}.json"
    js.write_text(json.dumps(data, indent=1))
    files.append(js)
    if verbose:
        print(_table(summary))
        for f in files:
            print(f"  {f}")
    return {"points": points, "summary": summary, "records": recs, "paper": PAPER,
            "ordering": data["ordering"], "files": files}


def bench() -> list[dict[str, Any]]:
    """./wren bench coap_vs_tcp: the full sweep, its plot and its six records."""
    return sweep()["records"]
