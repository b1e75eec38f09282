"""The 6TiSCH paper's 30-node experiment (its Section IV-A, Table I, Figs. 4
and 5) in wren's simulator, on TSCH and, for comparison, on the CSMA MAC.

The paper (../shared/papers/002_*.txt, "RIOT and OpenWSN 6TiSCH: Happy
Together", PEMWN 2020) forms 30-node OpenWSN networks on the OpenTestbed
(OpenMote-B boards in Inria-Paris' offices), every node sending "60 UDP
datagrams per hour, on average" to the border router, 10 runs of 2 h per
configuration, "All results are presented with a 95% confidence interval".
Table I: 1 packet/min on average, RPL DIO period 10 s, DAO period 60 s,
TSCH slotframe 101, 20 ms slots, up to 15 retransmissions, 16 channels.
Fig. 4 plots the end-to-end PDR (datagrams received / datagrams the
application generated), Fig. 5 the radio duty cycle (time the radio is on /
the measurement period); the text gives "in most cases PDR is above 99%" and
the stack's duty cycle "below 1%" (data/paper_values.toml: tsch.fig4.pdr,
tsch.fig5.duty). The figures' points are not in the stored text.

Here, per seed: 30 nodes placed at random in a 100 m x 60 m office floor,
node 0 (the border router, RPL root) at the middle of one long side. Links
come from the simulator's path-loss model (Sim.set_pathloss,
runtime/sim/pathloss.h: log-distance with log-normal shadowing drawn once
per pair from the seed, each frame through with the 802.15.4 O-QPSK PRR of
its own length) with TOPOLOGY's figures: exponent 4.0 (an office with
walls), 40 dB at 1 m, sigma 6 dB, 0 dBm, noise floor -100 dBm; every node's
crystal drifts within +-30 ppm (the simulator's default). A placement whose
good links (PRR >= 0.5 for a 70-byte frame) do not connect every node to
the root is drawn again.

RPL (storing mode, MRHOF on the link estimator's ETX): the root announces
DIOIntervalMin 13 (Imin = Imax = 8.2 s, redundancy 0: a DIO every 8.2 s on
average, Trickle's intervals being powers of two: the nearest to the paper's
10 s) and a route lifetime of 2 x 60 s (each node refreshes its DAO every
60 s, the paper's DAO period). Once the DODAG has formed (every node joined,
the root holding a route to each) and SETTLE_S more, every node starts a
flow of 30-byte datagrams to the root (`flow send`, runtime/sim/flow.h):
DURATION_S / 60 of them, each gap uniform in 30..90 s (60 s on average).
The run lasts until every flow is done and DRAIN_S more. Per node: PDR =
distinct datagrams the root's sink counted from it / datagrams its
application generated; radio duty cycle = (listen + receive + transmit time)
/ the DURATION_S window from the flows' start (radio.time_*_us).

MACs (MACS):
- "csma": wren's 802.15.4 unslotted CSMA-CA, radio always on, ACKs, 7
  retransmissions (the standard's macMaxFrameRetries maximum; the paper's 15
  are TSCH's).
- "csma_lpl": the same with low-power listening (mac/csma/ieee802154_lpl.c,
  X-MAC/ContikiMAC style without phase learning): every radio wakes every
  125 ms for a 6 ms listen window; frames go out as trains of copies for
  125 ms + 6 ms, a unicast train until its ACK. At Table I's DIO period,
  every node's DIO is a 131 ms train every 8.2 s.
- "csma_lpl_trickle": the same, but DIOs on Trickle's schedule (wren's RPL
  defaults: Imin 1 s, 8 doublings, k 10), as an LPL network would run RPL;
  DAOs still every 60 s.
- "tsch": the TSCH MAC (mac/tsch/*.c) with minimal 6TiSCH and MSF (sixtop):
  slotframe 101, 20 ms slots, 15 retransmissions, 16 channels; the MAC's
  defaults otherwise (EBs in an EB slotframe of 397 slots, 32 schedule cells).
- "tsch_trickle": the same with DIOs on Trickle's schedule from Table I's
  period (Imin 2^13 ms = 8.2 s, 8 doublings, k = 1): 30 routers each sending a
  DIO every 8.2 s offer the one minimal cell (one per 2.02 s) seven times what
  it carries; Trickle (RFC 6206) keeps the neighbourhood's DIOs to about one
  per interval once the DODAG is stable.

    from wren.experiments import tsch_paper
    r = tsch_paper.run_one("csma", seed=1, duration_s=600)
    res = tsch_paper.experiment(["csma"], seeds=range(1, 11))   # + table, plot
"""
from __future__ import annotations

import concurrent.futures as cf
import functools
import hashlib
import json
import math
import multiprocessing
import os
import random
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import paths, rplmesh
from ..lib import Sim
from ..sweep import mean_ci

N = 30
ROOT = 0
PREFIX = "2001:db8::/64"
SEEDS = tuple(range(1, 11))
DURATION_S = 7200.0       # the paper's 2 h per run
MEAN_S = 60.0             # Table I: 1 packet/min on average
UDP_SIZE = 30             # bytes of UDP payload
SETTLE_S = 60.0           # after formation, before the flows start
DRAIN_S = 120.0           # after the last datagram: time to arrive
FORM_LIMIT_S = 1200.0
#: the root's role: Table I's DIO and DAO periods (see TABLE_I)
RPL_ROOT = f"rpl root {PREFIX} storing mrhof dio 13 0 0 lifetime 2 60"
#: csma_lpl_trickle's: DAOs as Table I, DIOs by Trickle as wren's RPL does by
#: default (Imin 2^10 ms, 8 doublings, k 10: minutes apart once stable)
RPL_ROOT_TRICKLE = f"rpl root {PREFIX} storing mrhof lifetime 2 60"
#: tsch_trickle's: Trickle from Table I's DIO period (see the module's doc)
RPL_ROOT_TSCH_TRICKLE = f"rpl root {PREFIX} storing mrhof dio 13 8 1 lifetime 2 60"

#: Table I of the paper, and how each row is set here
TABLE_I: dict[str, tuple[str, str]] = {
    "App. traffic load": ("Avg. 1 pkt/min", "flow send ... mean 60000 (gaps uniform 30..90 s)"),
    "RPL DIO period": ("10 s", "rpl root ... dio 13 0 0: Trickle Imin = Imax = 2^13 ms = 8.2 s, "
                               "k = 0 (never suppressed)"),
    "RPL DAO period": ("60 s", "rpl root ... lifetime 2 60: routes live 120 s, DAOs refresh at "
                               "half: every 60 s"),
    "TSCH slotframe length": ("101", "TSCH: slotframe 101"),
    "TSCH slot duration": ("20 ms", "TSCH: 20 ms timeslot template"),
    "TSCH max retransmission": ("15", "TSCH: 15; CSMA: 7 (802.15.4's macMaxFrameRetries limit)"),
    "Frequency channels": ("16", "TSCH: hopping over channels 11..26; CSMA: one channel"),
}

#: the distance model (see the module's doc)
TOPOLOGY: dict[str, float] = dict(width=100.0, height=60.0, pl0_db=40.0, exponent=4.0,
                                  sigma_db=6.0, tx_dbm=0.0, noise_dbm=-100.0, frame_bytes=70,
                                  min_prr=0.01, good_prr=0.5)

#: the variants (a MAC, and RPL as Table I has it unless said)
MACS = ("tsch", "tsch_trickle", "csma", "csma_lpl", "csma_lpl_trickle")
LPL_MS = 125              # csma_lpl's check interval (ContikiMAC's default: 8 Hz)
MAC_LABEL = {"csma": "CSMA-CA, radio always on",
             "csma_lpl": f"CSMA-CA + LPL {LPL_MS} ms",
             "csma_lpl_trickle": f"CSMA-CA + LPL {LPL_MS} ms, Trickle DIOs",
             "tsch": "TSCH + minimal 6TiSCH + MSF",
             "tsch_trickle": "TSCH + minimal 6TiSCH + MSF, Trickle DIOs"}
FIG_NAME = "tsch_paper_30"


@functools.cache
def has_msf() -> bool:
    """Whether the simulator's stack has the 6top module (6P and MSF)."""
    s = Sim(1)
    try:
        return "sixtop" in s.module_names()
    finally:
        s.close()


# ---- topology ------------------------------------------------------------------

def _place(seed: int, attempt: int, n: int, t: dict[str, float]) -> list[tuple[float, float]]:
    rnd = random.Random(f"tsch_paper-{seed}-{attempt}")
    return [(0.0, t["height"] / 2)] + [(rnd.uniform(0, t["width"]), rnd.uniform(0, t["height"]))
                                       for _ in range(n - 1)]


def build(seed: int, n: int = N, mac: str = "csma", **kw: float) -> tuple[Sim, dict[str, Any]]:
    """A Sim of @n nodes placed from @seed, links from the simulator's
    path-loss model (Sim.set_pathloss with TOPOLOGY's figures, drifting
    clocks as the simulator draws them), on @mac (TSCH is chosen before the
    nodes are made); a placement whose good links (PRR >= good_prr for a
    frame_bytes frame) do not connect every node to the root is drawn again.
    Returns the Sim and {"pos", "links": [(a, b, prr)] with a < b, "attempt"}."""
    t = {**TOPOLOGY, **kw}
    for attempt in range(1000):
        pos = _place(seed, attempt, n, t)
        sim = Sim(seed)
        try:
            if mac.startswith("tsch"):
                sim.set_mac_kind("tsch")  # type: ignore[attr-defined]
            sim.set_pathloss(exponent=t["exponent"], ref_loss_db=t["pl0_db"],
                             sigma_db=t["sigma_db"], tx_power_dbm=t["tx_dbm"],
                             noise_dbm=t["noise_dbm"])
            for x, y in pos:
                sim.add_node(x, y)
            links = []
            for a in range(n):
                for b in range(a + 1, n):
                    li = sim.link(a, b, int(t["frame_bytes"]))
                    if li is not None and li[0] >= t["min_prr"]:
                        links.append((a, b, round(li[0], 4)))
        except BaseException:
            sim.close()
            raise
        good = [(a, b, p) for a, b, p in links if p >= t["good_prr"]]
        if len(rplmesh.reachable(good, ROOT)) == n:
            return sim, {"pos": pos, "links": links, "attempt": attempt}
        sim.close()
    raise RuntimeError(f"seed {seed}: no connected placement in 1,000 draws")


def topology(seed: int, n: int = N, **kw: float) -> dict[str, Any]:
    """The placement and links build() makes for @seed (no run)."""
    sim, topo = build(seed, n, **kw)
    sim.close()
    return topo


def hops(links: Sequence[tuple[int, int, float]], n: int = N, good: float = 0.5) -> list[int]:
    """Shortest hop counts from the root over links of PRR >= @good."""
    nbr: dict[int, list[int]] = {}
    for a, b, p in links:
        if p >= good:
            nbr.setdefault(a, []).append(b)
            nbr.setdefault(b, []).append(a)
    dist = {ROOT: 0}
    todo = [ROOT]
    while todo:
        nxt = []
        for x in todo:
            for y in nbr.get(x, []):
                if y not in dist:
                    dist[y] = dist[x] + 1
                    nxt.append(y)
        todo = nxt
    return [dist.get(i, -1) for i in range(n)]


# ---- the MACs --------------------------------------------------------------------

def tsch_available() -> str | None:
    """None when the simulator can run TSCH, else why not."""
    if not hasattr(Sim, "set_mac_kind"):
        return ("TSCH is not built yet: wren's simulator has no TSCH MAC to choose "
                "(Sim.set_mac_kind; issue 15, helper tschcore)")
    return None


#: link security as RFC 8180 6 has it (EBs MIC-32 with K1; data and Enh-ACKs
#: ENC-MIC-32 with K2): run_one(..., sec=True), not part of the paper's setup
SEC_SHELL = ("ifconfig 1 key 1 000102030405060708090a0b0c0d0e0f",
             "ifconfig 1 key 2 c0c1c2c3c4c5c6c7c8c9cacbcccdcecf",
             "ifconfig 1 sec beacon mic32 1", "ifconfig 1 sec data enc-mic32 2",
             "ifconfig 1 sec ack enc-mic32 2")

#: TSCH's desynchronisations, by cause, summed over the nodes and the whole run
DESYNC_COUNTERS = ("tsch.desync_unconfirmed", "tsch.desync_quiet", "tsch.desync_ka",
                   "tsch.sync_ts_loop")

#: the TSCH MAC's settings (`tsch set KEY VALUE`): Table I
TSCH_SET = {"slot_us": 20000, "sf_len": 101, "max_retries": 15}


def setup_mac(sim: Sim, mac: str, n: int) -> None:
    """Put every node's interface on @mac (see MACS). TSCH is chosen before
    the nodes are made (Sim.set_mac_kind): see run_one."""
    if mac == "csma":
        for i in range(n):
            sim.set_mac(i, csma=True, ack=True, retries=7)
        return
    if mac in ("csma_lpl", "csma_lpl_trickle"):
        for i in range(n):
            # macMaxCSMABackoffs at its maximum: a neighbour's train holds the channel
            sim.set_mac(i, csma=True, ack=True, retries=7, max_backoffs=5)
            sim.set_lpl(i, LPL_MS)
        return
    if mac.startswith("tsch"):
        for i in range(n):
            for k, v in TSCH_SET.items():
                _shell(sim, i, f"tsch set {k} {v}")
        _shell(sim, ROOT, "tsch coordinator")
        for i in range(n):
            if i != ROOT:
                _shell(sim, i, "tsch node")
        return
    raise ValueError(f"mac must be one of {MACS}, not {mac!r}")


# ---- one run ----------------------------------------------------------------------

_SRC = re.compile(r"^flow src (\S+) received (\d+) dup (\d+)", re.M)
_GEN = re.compile(r"^flow: generated (\d+) failed (\d+)", re.M)


def _radio(c: dict[str, int]) -> dict[str, int]:
    return {k: c[f"radio.time_{k}_us"] for k in ("off", "listen", "rx", "tx")}


def _iid(addr: str) -> int:
    """The low 64 bits of an IPv6 address."""
    import ipaddress
    return int(ipaddress.IPv6Address(addr)) & ((1 << 64) - 1)


def _link_local_iid(sim: Sim, node: int) -> int:
    m = re.search(r"(fe80::[0-9a-f:]+)/64", _shell(sim, node, "ifconfig"))
    if m is None:
        raise RuntimeError(f"node {node} has no link-local address")
    return _iid(m.group(1))


def _shell(sim: Sim, node: int, cmd: str) -> str:
    res, out = sim.shell(node, cmd)
    if res != 0:
        raise RuntimeError(f"node {node}: {cmd}: {out.strip()}")
    return out


#: the windows a run counts datagrams in (see the module's doc):
#: "join": each node's application starts once its node has joined (`flow send
#: ... start joined`: an RPL preferred parent and, on TSCH, synchronised with a
#: dedicated TX cell to that parent, as OpenWSN's uinject asks), its window the
#: duration from then; "switch_on": every application from power-on (datagrams
#: without a route count as lost); "steady": every application once the DODAG
#: has formed and SETTLE_S more (the window before issue 27)
WINDOWS = ("join", "steady", "switch_on")
PRIMARY = "join"


def windows_of(mac: str) -> tuple[str, ...]:
    """The windows a variant runs in: TSCH's all three, CSMA's the steady one."""
    return WINDOWS if mac.startswith("tsch") else ("steady",)


_MISSING = re.compile(r"^flow src (\S+) missing ([\d ]+)$", re.M)
_START = re.compile(r"^flow started (\d+) us", re.M)
_WIN = re.compile(r"^flow window (\d+) ms radio (\d+) (\d+) (\d+) (\d+)", re.M)


def _start_flows(sim: Sim, n: int, duration_s: float, mean_s: float, when: str) -> int:
    """The root's sink and every other node's flow, each with a radio window
    of @duration_s from its start; @when "joined" holds each sender until its
    node has joined. Returns the datagrams each sender makes."""
    root_addr = rplmesh.rpl_addr(sim, ROOT)
    win = int(duration_s * 1000)
    _shell(sim, ROOT, f"flow sink window {win}")
    count = max(1, int(round(duration_s / mean_s)))
    # the shell takes 12 words: `mean` only when not the flow's default (60 s)
    mean = "" if mean_s == 60.0 else f" mean {int(mean_s * 1000)}"
    for i in range(n):
        if i != ROOT:
            _shell(sim, i, f"flow send {root_addr} size {UDP_SIZE}{mean} count {count} "
                           f"window {win}" + (" start joined" if when else ""))
    return count


def _flows_done(sim: Sim, n: int, count: int) -> bool:
    """Every sender has made its datagrams and every window has closed."""
    for i in range(n):
        out = _shell(sim, i, "flow stats")
        if not _WIN.search(out):
            return False
        m = _GEN.search(out)
        if i != ROOT and (m is None or int(m.group(1)) < count):
            return False
    return True


def _run_flows(sim: Sim, n: int, count: int, limit_s: float) -> None:
    """Run until every flow is done and DRAIN_S more, or @limit_s from now
    (nodes that never joined never start)."""
    end = sim.now + limit_s
    while sim.now < end:
        sim.run(min(end, sim.now + 60))
        if _flows_done(sim, n, count):
            sim.run(sim.now + DRAIN_S)
            return


def _node_result(sim: Sim, i: int, sink: dict[int, tuple[int, int, list[int]]], iid: int,
                 c0: dict[str, int], c2: dict[str, int]) -> dict[str, Any]:
    out = _shell(sim, i, "flow stats")
    w = _WIN.search(out)
    off, listen, rx, tx = (int(w.group(k)) for k in range(2, 6)) if w else (0, 0, 0, 0)
    total = off + listen + rx + tx
    st = _START.search(out)
    nd: dict[str, Any] = {
        "node": i, "duty_cycle": (total - off) / total if total else 0.0,
        "listen_us": listen, "rx_us": rx, "tx_us": tx, "window_us": total,
        "start_s": int(st.group(1)) / 1e6 if st else None}
    if i != ROOT:
        m = _GEN.search(out)
        gen, failed = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
        got, dup, miss = sink.get(iid, (0, 0, []))
        nd.update(generated=gen, failed=failed, received=got, duplicates=dup,
                  pdr=got / gen if gen else None, missing=miss)
    nd["drops"] = {k: c2.get(k, 0) - c0.get(k, 0) for k in DROP_COUNTERS
                   if c2.get(k, 0) - c0.get(k, 0)}
    return nd


def _configure(sim: Sim, mac: str, n: int, sec: bool, pcap: str | Path | None) -> None:
    """Security (@sec), the MAC, the capture, RPL's roles (Table I's timers at
    the root, see the module's doc)."""
    for i in range(n if sec else 0):
        for cmd in SEC_SHELL:
            _shell(sim, i, cmd)
    setup_mac(sim, mac, n)
    if pcap:
        sim.open_pcap(pcap)
    for i in range(n):
        sim.rpl_routes(i, n)  # storing mode: room for every node below
    _shell(sim, ROOT, {"csma_lpl_trickle": RPL_ROOT_TRICKLE,
                       "tsch_trickle": RPL_ROOT_TSCH_TRICKLE}.get(mac, RPL_ROOT))
    for i in range(n):
        if i != ROOT:
            _shell(sim, i, "rpl router")


def _sink_counts(sim: Sim) -> dict[int, tuple[int, int, list[int]]]:
    """The root's sink per source, known by its address in the prefix (the
    node's interface identifier, its link-local one's): received,
    duplicates, the sequence numbers missing."""
    out = _shell(sim, ROOT, "flow stats")
    miss = {_iid(m.group(1)): [int(x) for x in m.group(2).split()]
            for m in _MISSING.finditer(out)}
    return {_iid(m.group(1)): (int(m.group(2)), int(m.group(3)), miss.get(_iid(m.group(1)), []))
            for m in _SRC.finditer(out)}


def _quiesce(sim: Sim, mac: str, n: int) -> None:
    """RPL and then the MAC off, so what they still hold is delivered or
    dropped (see run_one)."""
    for i in range(n):
        sim.shell(i, "rpl off")
    sim.run(sim.now + 30)
    for i in range(n if mac.startswith("tsch") else 0):
        sim.shell(i, "tsch off")  # what still waits is flushed and counted
    # and a datagram whose last fragments never came is dropped by 6LoWPAN's
    # reassembly timeout (CONFIG_WREN_SIXLOWPAN_REASS_TIMEOUT_MS, 10 s)
    sim.run(sim.now + 11)


def run_one(mac: str, seed: int, duration_s: float = DURATION_S, n: int = N,
            mean_s: float = MEAN_S, pcap: str | Path | None = None,
            sec: bool = False, quiesce: bool = False, window: str = "steady") -> dict[str, Any]:
    """One run of the experiment (see the module's doc) in @window (WINDOWS):
    per-node PDR and duty cycle, and what explains them, as a JSON-able dict.
    @sec: every node with link security (SEC_SHELL), set before the MAC
    starts. @quiesce: at the end RPL and then the MAC are switched off, so
    what they still hold is delivered or dropped, and pktbufs_clean tells a
    leak (a TSCH network always has frames queued)."""
    wall0 = time.perf_counter()
    if mac not in MACS:
        raise ValueError(f"mac must be one of {MACS}, not {mac!r}")
    if window not in WINDOWS:
        raise ValueError(f"window must be one of {WINDOWS}, not {window!r}")
    if mac.startswith("tsch") and tsch_available():
        raise RuntimeError(tsch_available())
    sim, topo = build(seed, n, mac)
    try:
        _configure(sim, mac, n, sec, pcap)
        c0 = {i: sim.counters(i) for i in range(n)}
        if window != "steady":
            count = _start_flows(sim, n, duration_s, mean_s, "joined" if window == "join" else "")
        # steady: the flows start once the DODAG has formed, or at FORM_LIMIT_S
        # all the same (a node without a route then makes datagrams that are
        # lost, as the paper counts them: received / generated)
        formed = rplmesh.wait_formed(sim, n, root=ROOT, step=5.0, limit=FORM_LIMIT_S)
        joined_at_start = sum(rplmesh.joined(sim.counters(i)) for i in range(n) if i != ROOT)
        if window == "steady":
            sim.run(sim.now + SETTLE_S)
            c0 = {i: sim.counters(i) for i in range(n)}
            count = _start_flows(sim, n, duration_s, mean_s, "")
        _run_flows(sim, n, count, FORM_LIMIT_S + count * mean_s * 1.5 + duration_s)
        # a source is known at the sink by its address in the prefix: the
        # node's interface identifier (its link-local one's)
        sink = _sink_counts(sim)
        c2 = {i: sim.counters(i) for i in range(n)}
        nodes = [_node_result(sim, i, sink, _link_local_iid(sim, i), c0[i], c2[i])
                 for i in range(n)]
        desync = {k: sum(c2[i].get(k, 0) - c0[i].get(k, 0) for i in range(n))
                  for k in DESYNC_COUNTERS}
        if quiesce:
            _quiesce(sim, mac, n)
        clean = sim.pktbufs_clean()
    finally:
        sim.close()
    return {"mac": mac, "window": window, "seed": seed, "duration_s": duration_s, "n": n,
            "formed_s": formed, "joined_at_start": joined_at_start,
            "hops": hops(topo["links"], n), "links": len(topo["links"]),
            "nodes": nodes, "pktbufs_clean": clean, "sec": sec, "desync": desync,
            "wall_s": time.perf_counter() - wall0, **network(nodes)}


def network(nodes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A run's network figures from its nodes: PDR over the datagrams the
    senders made (nodes that never started make none: `not_started`), the
    duty cycle over all nodes, the root's and the other nodes' apart, and
    when the senders' windows began (their joins in the "join" window)."""
    src = [x for x in nodes if x["node"] != ROOT]
    gen, got = sum(x["generated"] for x in src), sum(x["received"] for x in src)
    starts = sorted(x["start_s"] for x in src if x["start_s"] is not None)
    return {"generated": gen, "received": got, "pdr": got / gen if gen else 0.0,
            "duty_cycle": sum(x["duty_cycle"] for x in nodes) / len(nodes),
            "root_duty_cycle": next(x["duty_cycle"] for x in nodes if x["node"] == ROOT),
            "others_duty_cycle": sum(x["duty_cycle"] for x in src) / len(src),
            "not_started": [x["node"] for x in src if x["start_s"] is None],
            "start_median_s": starts[len(starts) // 2] if starts else None,
            "start_max_s": starts[-1] if starts else None}


#: counters whose changes over the window say where datagrams were lost
DROP_COUNTERS = ("mac.tx_noack", "mac.tx_caf", "mac.rx_dup", "ipv6.rx_drop_no_route",
                 "ipv6.tx_drop_no_route", "ipv6.rx_drop_hop_limit", "ipv6.rx_drop_rpl_loop",
                 "ipv6.tx_drop_nobuf", "ipv6.rx_drop_nobuf", "6lowpan.tx_drop_nobuf",
                 "netif.tx_drop_queue", "netif.tx_drop_dev", "netif.rx_drop_queue",
                 "rpl.parent_switch", "rpl.detached", "rpl.route_expired", "pktbuf.alloc_fail",
                 "tsch.tx_noack", "tsch.drop_queue_full", "tsch.drop_no_queue", "tsch.drop_flush",
                 "tsch.drop_off", "tsch.sync_desync", "sixtop.msf_parent_switch")

#: where datagrams are lost, by cause: the counters (of every node, over the
#: run from its window's start) that count it. The MAC's count frames of any
#: kind (DAOs, 6P, keep-alives too), so they bound the datagrams lost there;
#: "no route" at a sender counts only its own datagrams (RPL's messages go to
#: link-local addresses).
LOSS_CAUSES = {
    "no route at the sender": ("ipv6.tx_drop_no_route",),
    "no route forwarding": ("ipv6.rx_drop_no_route", "ipv6.rx_drop_rpl_loop",
                            "ipv6.rx_drop_hop_limit"),
    "queue full": ("tsch.drop_queue_full", "tsch.drop_no_queue", "netif.tx_drop_queue"),
    "retries exhausted": ("tsch.tx_noack", "mac.tx_noack", "mac.tx_caf"),
    "flushed at desync": ("tsch.drop_flush",),
    "no buffer": ("pktbuf.alloc_fail", "ipv6.tx_drop_nobuf", "6lowpan.tx_drop_nobuf"),
    "desyncs (events)": ("tsch.sync_desync",),
    "parent switches (events)": ("rpl.parent_switch",),
}


def losses(rs: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Over runs @rs: datagrams lost (made, never received) and each of
    LOSS_CAUSES summed over every node."""
    miss = [q for r in rs for x in r["nodes"] for q in x.get("missing", [])]
    out = {"datagrams lost": sum(r["generated"] - r["received"] for r in rs),
           # when in its flow (the datagram's number: about its minute)
           "lost among a flow's first 5": sum(q < 5 for q in miss),
           "lost among its 5th-19th": sum(5 <= q < 20 for q in miss),
           "lost later": sum(q >= 20 for q in miss),
           "socket refused": sum(x.get("failed", 0) for r in rs for x in r["nodes"])}
    for cause, ks in LOSS_CAUSES.items():
        out[cause] = sum(x["drops"].get(k, 0) for r in rs for x in r["nodes"] for k in ks)
    return out


# ---- many runs ---------------------------------------------------------------------

@functools.cache
def _code() -> str:
    """A fingerprint of what a run depends on: the simulator library and
    this module (a cached run of other code is not taken)."""
    from .. import lib
    h = hashlib.sha256()
    for f in (lib.library_path(), Path(__file__)):
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def variant(mac: str, window: str) -> str:
    """A variant's key: the MAC and the window, "tsch:join"."""
    return f"{mac}:{window}"


WINDOW_LABEL = {"join": "from each node's join", "steady": "steady state",
                "switch_on": "from switch-on"}


def label(v: str) -> str:
    """A variant's name for tables and plots (TSCH's says whether MSF runs)."""
    mac, _, window = v.partition(":")
    name = MAC_LABEL.get(mac, mac)
    if mac.startswith("tsch") and not has_msf():
        name = name.replace(" + MSF", "") + " (no 6top/MSF)"
    return f"{name}, {WINDOW_LABEL[window]}" if window else name


def _key(mac: str, window: str, seed: int, duration_s: float, mean_s: float) -> str:
    return f"{mac}-{window}-s{seed}-d{duration_s:g}-m{mean_s:g}-{_code()}"


def _one(args: tuple[str, str, int, float, float]) -> dict[str, Any]:
    mac, window, seed, duration_s, mean_s = args
    return run_one(mac, seed, duration_s, mean_s=mean_s, window=window)


def _say_run(r: dict[str, Any]) -> str:
    return (f"  {r['mac']} {r['window']} seed {r['seed']}: PDR {100 * r['pdr']:.2f} % "
            f"({r['received']}/{r['generated']}), duty cycle {100 * r['duty_cycle']:.3f} % "
            f"(root {100 * r['root_duty_cycle']:.2f} %), "
            + (f"formed in {r['formed_s']:.0f} s, " if r["formed_s"] is not None else
               f"NOT formed in {FORM_LIMIT_S:.0f} s ({r['joined_at_start']} of {r['n'] - 1} "
               f"joined), ")
            + f"{r['wall_s']:.0f} s wall")


def run_many(macs: Sequence[str], seeds: Sequence[int], duration_s: float = DURATION_S,
             mean_s: float = MEAN_S, jobs: int | None = None, cache: Path | None = None,
             say: Callable[[str], None] = print,
             windows: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Every (mac, window, seed) run (@windows, default windows_of(mac)),
    @jobs processes at once (default: the cores); each result kept as JSON
    in @cache, named by the run and a hash of the simulator library and this
    module (a rerun of the same code takes it from there)."""
    todo = [(m, w, s, duration_s, mean_s) for m in macs for w in (windows or windows_of(m))
            for s in seeds]
    done: dict[tuple[str, str, int], dict[str, Any]] = {}
    if cache:
        (cache / "runs").mkdir(parents=True, exist_ok=True)
        for t in todo:
            f = cache / "runs" / f"{_key(*t)}.json"
            if f.exists():
                done[t[:3]] = json.loads(f.read_text())
    pending = [t for t in todo if t[:3] not in done]

    def keep(r: dict[str, Any]) -> None:
        done[(r["mac"], r["window"], r["seed"])] = r
        say(_say_run(r))
        if cache:
            f = cache / "runs" / f"{_key(r['mac'], r['window'], r['seed'], duration_s, mean_s)}.json"
            tmp = f.with_suffix(".tmp")
            tmp.write_text(json.dumps(r))
            tmp.rename(f)

    jobs = max(1, min(jobs or os.cpu_count() or 1, len(pending) or 1))
    if jobs == 1:
        for t in pending:
            keep(_one(t))
    else:
        ctx = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as ex:
            for r in ex.map(_one, pending):
                keep(r)
    return [done[t[:3]] for t in todo]


def _per_node(rs: Sequence[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    per_node = []
    for i in range(n):
        nd = [r["nodes"][i] for r in rs]
        row: dict[str, Any] = {"node": i, "duty_cycle": mean_ci([x["duty_cycle"] for x in nd])}
        if i != ROOT:
            row["pdr"] = mean_ci([x["pdr"] for x in nd if x["pdr"] is not None])
        per_node.append(row)
    return per_node


def _median(xs: Sequence[float]) -> float | None:
    xs = sorted(xs)
    if not xs:
        return None
    k = len(xs) // 2
    return xs[k] if len(xs) % 2 else (xs[k - 1] + xs[k]) / 2


def _senders(rs: Sequence[dict[str, Any]], key: str) -> list[float]:
    """@key of every sender of runs @rs that has one (not None)."""
    return [x[key] for r in rs for x in r["nodes"] if x["node"] != ROOT and x[key] is not None]


def summarize(runs: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per variant (MAC and window): the network's PDR and duty cycle over
    runs (mean, 95 % CI by Student t; the duty cycle over all nodes, the
    root's and the others' apart), per node over runs, and when the senders
    started (in the "join" window: their joins; median and latest of all
    senders of all runs)."""
    out: dict[str, dict[str, Any]] = {}
    for v in dict.fromkeys(variant(r["mac"], r["window"]) for r in runs):
        rs = [r for r in runs if variant(r["mac"], r["window"]) == v]
        starts = _senders(rs, "start_s")
        pdrs = _senders(rs, "pdr")
        out[v] = {
            "mac": rs[0]["mac"], "window": rs[0]["window"],
            "runs": len(rs), "seeds": [r["seed"] for r in rs],
            **{k: mean_ci([r[k] for r in rs]) for k in ("pdr", "duty_cycle", "root_duty_cycle",
                                                         "others_duty_cycle")},
            "pdr_per_run": [r["pdr"] for r in rs],
            "duty_cycle_per_run": [r["duty_cycle"] for r in rs],
            "pdr_min_node": min(pdrs) if pdrs else None,
            "duty_cycle_max_node": max(_senders(rs, "duty_cycle")),
            "start_median_s": _median(starts), "start_max_s": max(starts) if starts else None,
            "not_started": sum(len(r["not_started"]) for r in rs),
            "formed_s": mean_ci([r["formed_s"] for r in rs if r["formed_s"] is not None]),
            "not_formed": [r["seed"] for r in rs if r["formed_s"] is None],
            "max_hops": max(max(r["hops"]) for r in rs),
            "losses": losses(rs),
            "per_node": _per_node(rs, rs[0]["n"]),
        }
    return out


def _pct(ci: dict[str, Any], digits: int = 2) -> str:
    if ci["mean"] is None:
        return "-"
    m = 100 * ci["mean"]
    if ci["ci95_low"] is None:
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} ± {100 * (ci['ci95_high'] - ci['mean']):.{digits}f}"


def _s(x: float | None, fmt: str = ".0f") -> str:
    return "-" if x is None else format(x, fmt)


def table(summary: dict[str, dict[str, Any]], paper_pdr: float, paper_dc: float) -> str:
    """The comparison: network figures per variant (MAC and window) beside
    the paper's, where datagrams were lost, then per node (mean ± 95 % CI
    half-width over the runs)."""
    lines = ["network (mean over runs ± 95 % CI half-width; PDR over the 29 senders' datagrams, "
             "duty cycle the mean over all 30 nodes, the root's and the 29 others' apart, each "
             "node over its own window)",
             f"{'variant':<58} {'runs':>4} {'PDR %':>14} {'DC all %':>14} {'DC root %':>9} "
             f"{'DC others %':>11} {'min node PDR %':>14} {'start med/max s':>16}",
             f"{'paper (OpenWSN, Figs. 4-5)':<58} {'10':>4} {f'> {paper_pdr:g}':>14} "
             f"{f'< {paper_dc:g} (II-4)':>14} {'-':>9} {'-':>11} {'-':>14} {'-':>16}"]
    for v, s in summary.items():
        lines.append(f"{label(v):<58} {s['runs']:>4} {_pct(s['pdr']):>14} "
                     f"{_pct(s['duty_cycle'], 3):>14} {_pct(s['root_duty_cycle'], 2):>9} "
                     f"{_pct(s['others_duty_cycle'], 3):>11} "
                     f"{_s(None if s['pdr_min_node'] is None else 100 * s['pdr_min_node'], '.2f'):>14} "
                     f"{_s(s['start_median_s']) + '/' + _s(s['start_max_s']):>16}")
    for v, s in summary.items():
        if s["not_formed"]:
            lines.append(f"{label(v)}: the DODAG had not formed within "
                         f"{FORM_LIMIT_S:.0f} s in the runs of seeds {s['not_formed']}")
        if s["not_started"]:
            lines.append(f"{label(v)}: {s['not_started']} sender(s) never joined (no datagram)")
    lines += ["", "where datagrams were lost, summed over the runs (datagrams; then frames of "
              "any kind the counters of every node count, and events)"]
    for v, s in summary.items():
        lines.append(f"{label(v)}: " + ", ".join(f"{k} {x}" for k, x in s["losses"].items()))
    vs = list(summary)
    lines += ["", "per node (mean over runs ± 95 % CI half-width)",
              f"{'node':>4} " + " ".join(f"{v + ' PDR %':>24} {v + ' DC %':>24}" for v in vs)]
    n = len(next(iter(summary.values()))["per_node"])
    for i in range(n):
        cells = []
        for v in vs:
            row = summary[v]["per_node"][i]
            cells.append(f"{_pct(row['pdr']) if 'pdr' in row else 'root':>24} "
                         f"{_pct(row['duty_cycle'], 3):>24}")
        lines.append(f"{i:>4} " + " ".join(cells))
    return "\n".join(lines)


def plot(summary: dict[str, dict[str, Any]], out_dir: Path, paper_pdr: float, paper_dc: float,
         name: str = FIG_NAME) -> list[Path]:
    """Fig. 4 (PDR) and Fig. 5 (duty cycle) as the paper draws them: each
    run's mean a circle, the mean over runs an asterisk with its 95 % CI,
    per MAC; the paper's bounds as lines. PNG and SVG in @out_dir."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out_dir.mkdir(parents=True, exist_ok=True)
    macs = list(summary)
    fig, axes = plt.subplots(1, 2, figsize=(12, 5.6))
    for ax, key, paper, what, bound in ((axes[0], "pdr", paper_pdr, "end-to-end PDR (%)", "above"),
                                        (axes[1], "duty_cycle", paper_dc, "radio duty cycle (%)",
                                         "below")):
        for k, mac in enumerate(macs):
            s = summary[mac]
            ys = [100 * v for v in s[f"{key}_per_run"]]
            ax.plot([k] * len(ys), ys, "o", mfc="none", color=f"C{k}", label=None)
            ci = s[key]
            err = None
            if ci["ci95_low"] is not None:
                err = [[100 * (ci["mean"] - ci["ci95_low"])], [100 * (ci["ci95_high"] - ci["mean"])]]
            ax.errorbar([k], [100 * ci["mean"]], yerr=err, fmt="*", ms=14, color=f"C{k}",
                        capsize=6, label=f"wren {label(mac)}: "
                                         f"{_pct(ci, 2 if key == 'pdr' else 3)} %")
        ax.axhline(paper, color="r", ls="--", label=f"paper: {bound} {paper:g} %" + (
            "" if key == "pdr" else " (a design remark, II-4; Fig. 5's values are not in the text)"))
        ax.set_xticks(range(len(macs)))
        ax.set_xticklabels([label(m).replace(" + ", "\n+ ").replace(", ", ",\n")
                            for m in macs], fontsize=8)
        ax.set_xlim(-0.6, len(macs) - 0.4)
        ax.set_ylabel(what)
        if key == "duty_cycle" and any(summary[m]["duty_cycle"]["mean"] > 0.2 for m in macs):
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        # below the axes: inside, it hid points (the CSMA always-on 100 %)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    axes[0].set_title("Fig. 4: PDR, 30 nodes (circles: runs, *: mean, 95 % CI)", fontsize=9)
    axes[1].set_title("Fig. 5: radio duty cycle, mean of all 30 nodes (each over its window)",
                      fontsize=9)
    runs = max(s["runs"] for s in summary.values())
    fig.suptitle(f"6TiSCH paper IV-A in wren's simulator: 30 nodes, 1 UDP datagram/min/node to "
                 f"the root, {runs} runs each", fontsize=9)
    fig.tight_layout()
    files = [out_dir / f"{name}.png", out_dir / f"{name}.svg"]
    fig.savefig(files[0], dpi=100)
    fig.savefig(files[1])
    plt.close(fig)
    return files


def experiment(macs: Sequence[str] = MACS, seeds: Sequence[int] = SEEDS,
               duration_s: float = DURATION_S, out_dir: Path | None = None,
               jobs: int | None = None, verbose: bool = True,
               windows: Sequence[str] | None = None) -> dict[str, Any]:
    """The runs (each MAC in @windows, default windows_of(mac)), the table,
    the plot and a JSON of everything in @out_dir (default out/tsch_paper).
    MACs that cannot run are left out with why."""
    from ..reproduce import paper_number
    out_dir = out_dir or paths.OUT / "tsch_paper"
    say = print if verbose else (lambda *_: None)
    skipped = {}
    if tsch_available():
        for m in [m for m in macs if m.startswith("tsch")]:
            skipped[m] = tsch_available()
            say(f"  {m}: {skipped[m]}")
        macs = [m for m in macs if not m.startswith("tsch")]
    runs = run_many(macs, seeds, duration_s, jobs=jobs, cache=out_dir, say=say, windows=windows)
    summary = summarize(runs)
    ppdr, pdc = paper_number("tsch.fig4.pdr"), paper_number("tsch.fig5.duty")
    text = table(summary, ppdr, pdc)
    files = plot(summary, out_dir, ppdr, pdc)
    js = out_dir / f"{FIG_NAME}.json"
    js.write_text(json.dumps({"duration_s": duration_s, "seeds": list(seeds), "table_i": TABLE_I,
                              "windows": {m: list(windows or windows_of(m)) for m in macs},
                              "topology": TOPOLOGY, "summary": summary, "skipped": skipped,
                              "runs": [{k: v for k, v in r.items() if k != "nodes"} for r in runs]},
                             indent=1))
    (out_dir / f"{FIG_NAME}.txt").write_text(text + "\n")
    files += [js, out_dir / f"{FIG_NAME}.txt"]
    if verbose:
        print(text)
        for f in files:
            print(f"  {f}")
    return {"runs": runs, "summary": summary, "skipped": skipped, "files": files, "table": text}


#: bench record names per MAC: the PDR per window (the primary, from each
#: node's join, first) and the duty cycle (over the primary window, all 30
#: nodes; the root's and the 29 others'); the CSMA variants run the steady
#: window only, under the names they had
def record_names(mac: str) -> dict[str, str]:
    if not mac.startswith("tsch"):
        return {"steady": f"{mac}_pdr_30", "duty": f"{mac}_duty_cycle_30_pct"}
    return {"join": f"{mac}_pdr_30_from_join", "steady": f"{mac}_pdr_30_steady",
            "switch_on": f"{mac}_pdr_30_from_switch_on", "duty": f"{mac}_duty_cycle_30_pct",
            "duty_root": f"{mac}_duty_cycle_30_root_pct",
            "duty_others": f"{mac}_duty_cycle_30_nonroot_pct"}


WINDOW_TEXT = {"join": "each node's datagrams from its own join (its application starts once "
                       "it has an RPL parent, TSCH sync and a dedicated TX cell to the parent)",
               "steady": "datagrams from the DODAG's formation + 60 s (steady state)",
               "switch_on": "every application from power-on (datagrams without a route lost)"}


def _what(v: str, s: dict[str, Any], res: dict[str, Any]) -> str:
    return (f"{label(v)}; 30 nodes, 1 UDP datagram/min/node to the root, Table I's RPL/TSCH "
            f"parameters, {s['runs']} runs of {res['runs'][0]['duration_s'] / 3600:g} h (seeds "
            f"{s['seeds'][0]}..{s['seeds'][-1]}); {WINDOW_TEXT[s['window']]}")


def _ci(ci: dict[str, Any], scale: float = 1.0, d: int = 4) -> str:
    if ci["ci95_low"] is None:
        return "one run: no CI"
    return f"95 % CI {scale * ci['ci95_low']:.{d}f}..{scale * ci['ci95_high']:.{d}f}"


def _pdr_record(name: str, v: str, s: dict[str, Any], res: dict[str, Any],
                primary: bool) -> dict[str, Any]:
    from ..reproduce import pv
    starts = (f"; joins (window starts) median {_s(s['start_median_s'])} s, latest "
              f"{_s(s['start_max_s'])} s" if s["window"] == "join" else "")
    worst = "-" if s["pdr_min_node"] is None else f"{s['pdr_min_node']:.3f}"
    return {"name": name, "value": round(s["pdr"]["mean"], 4), "unit": "ratio",
            "better": "higher", "target": 0.99 if primary else None,
            "anchor": f"{_what(v, s, res)}; mean of the runs, {_ci(s['pdr'])}; worst node of any "
                      f"run {worst}{starts}; paper: " + pv("tsch.fig4.pdr").cite()}


def _duty_records(names: dict[str, str], v: str, s: dict[str, Any],
                  res: dict[str, Any]) -> list[dict[str, Any]]:
    from ..reproduce import pv
    what = _what(v, s, res) + "; radio on (listen + rx + tx) over each node's window, "
    paper = "; paper: " + pv("tsch.fig5.duty").cite()  # its `where` names it a design remark
    out = [{"name": names["duty"], "value": round(100 * s["duty_cycle"]["mean"], 3),
            "unit": "%", "better": "lower", "target": 1 if s["mac"] == "tsch" else None,
            "anchor": what + f"mean of all 30 nodes and of the runs, "
                      f"{_ci(s['duty_cycle'], 100, 3)} %; the root's "
                      f"{100 * s['root_duty_cycle']['mean']:.2f} %, the 29 others' "
                      f"{100 * s['others_duty_cycle']['mean']:.3f} %" + paper}]
    for key, part in (("duty_root", "root_duty_cycle"), ("duty_others", "others_duty_cycle")):
        if key in names:
            who = "the root's" if key == "duty_root" else "mean of the 29 non-root nodes"
            out.append({"name": names[key], "value": round(100 * s[part]["mean"], 3),
                        "unit": "%", "better": "lower", "target": None,
                        "anchor": what + f"{who}, mean of the runs, {_ci(s[part], 100, 3)} %"
                                  + paper})
    return out


def records(res: dict[str, Any]) -> list[dict[str, Any]]:
    """The bench records of an experiment()'s result (record_names): PDR
    (ratio; target 0.99 for TSCH's primary window, from each node's join)
    per window, and the radio duty cycle (%, target < 1 for TSCH) over the
    primary window (TSCH) or the steady one (CSMA)."""
    recs = []
    for mac in dict.fromkeys(s["mac"] for s in res["summary"].values()):
        names = record_names(mac)
        for window in WINDOWS:
            v = variant(mac, window)
            s = res["summary"].get(v)
            if s is None or window not in names:
                continue
            recs.append(_pdr_record(names[window], v, s, res,
                                    mac == "tsch" and window == PRIMARY))
        duty_window = PRIMARY if mac.startswith("tsch") else "steady"
        v = variant(mac, duty_window)
        if v in res["summary"]:
            recs += _duty_records(names, v, res["summary"][v], res)
    return recs


def bench() -> list[dict[str, Any]]:
    """./wren bench tsch_paper: every variant in its windows (windows_of),
    10 seeds of 2 h (runs kept in out/tsch_paper/runs: a rerun only runs
    what is missing), the table, the plot, and the records."""
    return records(experiment())
