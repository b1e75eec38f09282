"""The simulator at scale (issue 25): 10,000 busy nodes against 1,000,
100,000 idle ones, and a 10,000-node grid forming an RPL DODAG with UDP.

Wall-clock figures are ratios measured in the same run (simulated seconds
per wall second, wall time per event at 10k over 1k); the machine is
printed with them (./wren bench prints it first)."""
import math
import platform
import re
import resource
import time
from typing import Any

from . import rplmesh
from .bench import Record, _field, _record

#: the busy traffic of sim_speed_1k_busy: five 60-byte broadcasts per node
#: per second (Poisson), CCA on, ~10 neighbours each
BUSY_INTERVAL_S = 0.2


def _busy_run(n: int, sim_seconds: float, interval_s: float = BUSY_INTERVAL_S
              ) -> dict[str, float]:
    """n nodes of the busy field (one broadcast per node per interval_s) for
    sim_seconds: wall time and events of the run alone (creation apart)."""
    t0 = time.perf_counter()
    sim = _field(n, 2)
    for i in range(n):
        sim.rawgen(i, -1, size=60, interval_s=interval_s, timing="poisson")
    t1, c1 = time.perf_counter(), time.process_time()
    sim.run(sim_seconds)
    wall, cpu = time.perf_counter() - t1, time.process_time() - c1
    res = {"cpu_ns_per_event": 1e9 * cpu / sim.events, "n": n, "sim_s": sim_seconds, "wall_s": wall, "create_s": t1 - t0,
           "events": sim.events, "ns_per_event": 1e9 * wall / sim.events}
    sim.close()
    print(f"  {n:,} busy nodes: created in {res['create_s']:.2f} s; {sim_seconds:g} s simulated "
          f"in {wall:.2f} s wall = {sim_seconds / wall:.2f}x real time, {res['events']:,} events, "
          f"{res['ns_per_event']:.0f} ns per event ({res['cpu_ns_per_event']:.0f} ns of this "
          f"process's CPU time: the rest is the machine's other work)")
    return res


def bench_sim_scaling() -> list[Record]:
    """sim_speed_10k_busy and sim_scaling_1k_to_10k, from one run of each
    size (1,000 nodes for 30 s simulated, 10,000 for 10 s)."""
    small = _busy_run(1000, 30.0)
    big = _busy_run(10000, 10.0)
    ratio = big["ns_per_event"] / small["ns_per_event"]
    traffic = ("~10 neighbours each, 5 60-byte broadcasts per node per s (Poisson), CCA on: "
               "sim_speed_1k_busy's traffic")
    return [
        _record("sim_speed_10k_busy", round(big["sim_s"] / big["wall_s"], 2), "x real time",
                "higher", 10, f"10,000 nodes, {traffic}; {big['sim_s']:g} s simulated, "
                              f"{platform.machine()}"),
        _record("sim_scaling_1k_to_10k", round(ratio, 2), "ratio", "lower", 1.5,
                f"wall time per event at 10,000 nodes ({big['ns_per_event']:.0f} ns) over "
                f"1,000 ({small['ns_per_event']:.0f} ns), both runs in this process; {traffic}"),
    ]


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_sim_speed_100k_idle() -> list[Record]:
    """100,000 nodes at ~10 neighbours each, one 60-byte broadcast per node
    per 10 s (Poisson), CCA on: creation time, peak RSS, speed."""
    n, sim_seconds = 100_000, 30.0
    rss0 = _peak_rss_mib()
    t0 = time.perf_counter()
    sim = _field(n, 2)
    for i in range(n):
        sim.rawgen(i, -1, size=60, interval_s=10.0, timing="poisson")
    create = time.perf_counter() - t0
    t1 = time.perf_counter()
    sim.run(sim_seconds)
    wall = time.perf_counter() - t1
    events = sim.events
    sim.close()
    rss = _peak_rss_mib()
    print(f"  100,000 idle nodes: created in {create:.1f} s, {sim_seconds:g} s simulated in "
          f"{wall:.1f} s wall = {sim_seconds / wall:.2f}x real time ({events:,} events); peak "
          f"RSS {rss:.0f} MiB (before: {rss0:.0f} MiB)")
    what = ("100,000 nodes, ~10 neighbours each, one 60-byte broadcast per node per 10 s "
            "(Poisson), CCA on")
    return [
        _record("sim_speed_100k_idle", round(sim_seconds / wall, 2), "x real time", "higher",
                10, f"{what}; {sim_seconds:g} s simulated, {platform.machine()}"),
        _record("sim_100k_create_s", round(create, 1), "s (wall)", "lower", None,
                f"creating that field (nodes, links, traffic generators), {platform.machine()}"),
        _record("sim_100k_peak_rss_mib", round(rss), "MiB", "lower", 4096,
                "peak resident memory of the benchmark process after that run (the issue: "
                "must fit in 4 GB)"),
    ]


#: the 10,000-node grid: 100 x 100, 10 m apart, range 15 m (8 neighbours)
GRID10K = {"rows": 100, "cols": 100, "spacing": 10.0, "range": 15.0, "prr": 1.0}
UDP_PORT, UDP_SIZE = 5678, 40


def route_table_sizes(rows: int, cols: int, root: int, floor: int = 256,
                      share: float = 16.0) -> list[int]:
    """Storing-mode route tables sized by position, not n - 1 each (10,000
    tables of 9,999 routes would take 3.2 GB): a router r rings out (its
    Chebyshev distance from the root, the hop count with diagonal links)
    has its share of the nodes further out, `share` times over, at least
    `floor`; the root's ring-1 routers hold up to all of them."""
    n = rows * cols
    rr, rc = divmod(root, cols)
    sizes = []
    for i in range(n):
        ring = max(abs(i // cols - rr), abs(i % cols - rc))
        outside = n - min(n, (2 * ring + 1) ** 2)
        sizes.append(n if ring == 0 else
                     min(n - 1, max(floor, math.ceil(share * outside / (8 * ring)))))
    return sizes


def _grid_sim(seed: int) -> tuple[Any, int, int]:
    """The 10,000-node grid with its storing-mode DODAG started from the
    centre: (sim, n, root)."""
    from . import scenario
    from .lib import Sim
    g = GRID10K
    rows, cols = int(g["rows"]), int(g["cols"])
    n, root = rows * cols, (rows // 2) * cols + cols // 2
    sim = Sim(seed)
    sim.set_range(g["range"], g["prr"])
    for i in range(n):
        sim.add_node(g["spacing"] * (i % cols), g["spacing"] * (i // cols))
    for i, size in enumerate(route_table_sizes(rows, cols, root)):
        sim.set_cca(i, True)
        sim.rpl_routes(i, size)
    rpl = scenario.Rpl(root=[root], mode="storing", prefix=rplmesh.PREFIX)  # type: ignore[arg-type]
    for node, cmd in scenario._rpl_commands(rpl, n):
        res, out = sim.shell(node, cmd)
        if res != 0:
            raise RuntimeError(f"node {node}: {cmd}: {out}")
    return sim, n, root


def _udp_minutes(sim: Any, n: int, root: int, minutes: int, seed: int) -> tuple[int, int]:
    """Every node but the root sends it a UDP datagram a minute for
    @minutes, the flows started in a random order spread over the first
    minute; (received, sent) once the last has had a minute to arrive."""
    import random
    addr = rplmesh.rpl_addr(sim, root)
    sim.shell(root, f"udp server start {UDP_PORT} sink")
    tx0 = sum(sim.counters(i)["udp.tx"] for i in range(n))
    order = [i for i in range(n) if i != root]
    random.Random(seed).shuffle(order)
    t0 = sim.now
    for k, i in enumerate(order):
        sim.run(t0 + 60.0 * k / len(order))
        sim.shell(i, f"udp send {addr} {UDP_PORT} {UDP_SIZE} {minutes} 60000")
    sim.run(t0 + 60.0 * (minutes + 1))
    _, out = sim.shell(root, "udp server stats")
    m = re.search(r"received (\d+)", out)
    if m is None:
        raise RuntimeError(f"udp server stats: {out}")
    return int(m.group(1)), sum(sim.counters(i)["udp.tx"] for i in range(n)) - tx0


def _losses(sim: Any, n: int, top: int = 6) -> str:
    """The largest drop, no-ACK and full-table counters over all nodes."""
    tot: dict[str, int] = {}
    for i in range(n):
        for k, v in sim.counters(i).items():
            if v and re.search(r"drop|noack|full|overrun|collision", k):
                tot[k] = tot.get(k, 0) + v
    return ", ".join(f"{k} {v:,}" for k, v in sorted(tot.items(), key=lambda kv: -kv[1])[:top])


def rpl_grid_10k(seed: int = 1, limit: float = 1200.0, minutes: int = 3) -> dict[str, Any]:
    """Formation of the 10,000-node grid's DODAG (storing mode, root at the
    centre) and then UDP to the root: simulated seconds to form, wall
    seconds of the whole run, PDR."""
    w0 = time.perf_counter()
    sim, n, root = _grid_sim(seed)
    try:
        create = time.perf_counter() - w0
        formed = rplmesh.wait_formed(sim, n, root=root, step=5.0, limit=limit)
        formed_wall = time.perf_counter() - w0
        received = sent = 0
        if formed is not None:
            received, sent = _udp_minutes(sim, n, root, minutes, seed)
        full = sum(sim.counters(i)["rpl.routes_full"] for i in range(n))
        losses = _losses(sim, n)
        return {"n": n, "root": root, "formed_s": formed, "create_s": create,
                "formed_wall_s": formed_wall, "wall_s": time.perf_counter() - w0,
                "sim_s": sim.now, "events": sim.events, "received": received, "sent": sent,
                "routes_full": full, "losses": losses, "peak_rss_mib": _peak_rss_mib()}
    finally:
        sim.close()


def bench_rpl_formation_10k() -> list[Record]:
    r = rpl_grid_10k()
    g = GRID10K
    what = (f"10,000 nodes in a 100 x 100 grid {g['spacing']:g} m apart, range {g['range']:g} m "
            f"(8 neighbours), PRR {g['prr']:g}, CSMA-CA, OF0, storing mode, root at the centre, "
            f"route tables sized by ring (bench_scale.route_table_sizes)")
    formed = r["formed_s"]
    pdr = r["received"] / r["sent"] if r["sent"] else 0.0
    print(f"  10,000-node grid: created in {r['create_s']:.1f} s wall; "
          f"{'formed in %.0f s simulated' % formed if formed is not None else 'NOT formed'} "
          f"({r['formed_wall_s']:.0f} s wall); UDP {r['received']}/{r['sent']} = {pdr:.4f}; "
          f"{r['sim_s']:.0f} s simulated in {r['wall_s']:.0f} s wall, {r['events']:,} events; "
          f"route tables full {r['routes_full']} times; peak RSS {r['peak_rss_mib']:.0f} MiB\n"
          f"  losses (all nodes, whole run): {r['losses']}")
    return [
        _record("rpl_formation_10k_s", formed if formed is not None else 1200.0,
                "s (simulated)", "lower", None,
                f"simulated seconds until every node has a route upward and the root one to "
                f"every node{'' if formed is not None else ' (NOT formed within 1200 s)'}; "
                f"{what}"),
        _record("rpl_formation_10k_wall_s", round(r["wall_s"], 1), "s (wall)", "lower", None,
                f"wall seconds of the whole run (creation, formation, {r['sim_s']:.0f} s "
                f"simulated in all, {r['events']:,} events), {platform.machine()}; {what}"),
        _record("rpl_formation_10k_pdr", round(pdr, 4), "ratio", "higher", None,
                f"UDP ({UDP_SIZE} B) from every node to the root, one datagram a minute for 3 "
                f"minutes after formation (flows spread over the first minute): "
                f"{r['received']}/{r['sent']}; {what}"),
    ]


BENCHES_SCALE = {
    "sim_scaling": bench_sim_scaling,
    "sim_speed_100k_idle": bench_sim_speed_100k_idle,
    "rpl_formation_10k": bench_rpl_formation_10k,
}


if __name__ == "__main__":
    # the profiling run of docs/architecture.md ("Simulator speed at scale"):
    #   python -m wren.bench_scale NODES SIM_SECONDS [INTERVAL_S]
    # (under `perf record`; WREN_LIB=... to run another build's library)
    import sys
    _busy_run(int(sys.argv[1]), float(sys.argv[2]),
              float(sys.argv[3]) if len(sys.argv) > 3 else BUSY_INTERVAL_S)
