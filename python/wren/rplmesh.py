"""RPL meshes in the simulator: topologies, formation time, and the
experiment of issue 13 (every node pings the root and the root every node,
a UDP flow from every node to the root at one datagram a minute, a parent
switched off half-way), for `./wren bench` (the 50-node and 1,000-node
records) and for the tests (a small version).

Everything is simulated time except where a name says wall.
"""
import math
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

from . import scenario
from .lib import Sim

PREFIX = "2001:db8::/64"
UDP_PORT = 5678
UDP_SIZE = 20  # bytes of payload; the switched-off node's are one longer (told apart at the root)


def random_mesh(n: int, seed: int, width: float = 45.0,
                reach: float = 16.0) -> list[tuple[int, int, float]]:
    """A connected random geometric graph of @n nodes in a @width square
    (links between nodes closer than @reach); each link loses 0..20 % of
    frames: [(a, b, prr)] with a < b."""
    rnd = random.Random(seed)
    while True:
        pos = [(rnd.uniform(0, width), rnd.uniform(0, width)) for _ in range(n)]
        links = [(a, b, round(rnd.uniform(0.8, 1.0), 2)) for a in range(n) for b in range(a + 1, n)
                 if math.dist(pos[a], pos[b]) < reach]
        if len(reachable(links, 0)) == n:
            return links


def reachable(links: list[tuple[int, int, float]], start: int,
              without: int | None = None) -> set[int]:
    """The nodes @start reaches over @links (both ways), @without excluded."""
    nbr: dict[int, list[int]] = {}
    for a, b, _ in links:
        if without not in (a, b):
            nbr.setdefault(a, []).append(b)
            nbr.setdefault(b, []).append(a)
    seen, todo = {start}, [start]
    while todo:
        for y in nbr.get(todo.pop(), []):
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return seen


def build_links(sim: Sim, n: int, links: list[tuple[int, int, float]]) -> None:
    """@n nodes joined by @links (both directions), CSMA-CA on."""
    for i in range(n):
        sim.add_node(10.0 * i, 0)
    for a, b, prr in links:
        sim.set_link(a, b, prr)
        sim.set_link(b, a, prr)
    for i in range(n):
        sim.set_cca(i, True)


def start_rpl(sim: Sim, n: int, mode: str, root: int = 0, routes: int | None = None) -> None:
    """RPL roles as a scenario's [rpl] gives them (root tables included)."""
    rpl = scenario.Rpl(root=[root], mode=mode, prefix=PREFIX, routes=routes)  # type: ignore[arg-type]
    scenario.rpl_tables(sim, rpl, n)
    for node, cmd in scenario._rpl_commands(rpl, n):
        res, out = sim.shell(node, cmd)
        if res != 0:
            raise RuntimeError(f"node {node}: {cmd}: {out}")


def joined(c: dict[str, int]) -> bool:
    """Whether a node's counters say it is in a DODAG now (joins less
    detachments)."""
    return c["rpl.joined"] > c["rpl.detached"]


def wait_formed(sim: Sim, n: int, root: int = 0, step: float = 1.0,
                limit: float = 600.0) -> float | None:
    """Run until every node has a route upward (joined, a preferred parent)
    and the root holds a route to every other node; the simulated time it
    took, or None within @limit seconds."""
    t0 = sim.now
    while sim.now - t0 < limit:
        sim.run(sim.now + step)
        if sim.counters(root)["rpl.routes_used"] < n - 1:
            continue
        if all(joined(sim.counters(i)) for i in range(n) if i != root):
            return sim.now - t0
    return None


def rpl_addr(sim: Sim, node: int) -> str:
    """The node's address in the DODAG's prefix, from its `rpl` output."""
    res, out = sim.shell(node, "rpl")
    m = re.search(r"^address (\S+)", out, re.M)
    if res != 0 or m is None:
        raise RuntimeError(f"node {node} has no RPL address: {out}")
    return m.group(1)


def preferred(sim: Sim, node: int) -> str | None:
    """The link-local address of the node's preferred parent."""
    _, out = sim.shell(node, "rpl")
    m = re.search(r"^parent (\S+) .* preferred$", out, re.M)
    return m.group(1) if m else None


def ping_count(out: str) -> tuple[int, int]:
    """(transmitted, received) from ping's summary line."""
    m = re.search(r"(\d+) packets transmitted, (\d+) received", out)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


@dataclass
class MeshResult:
    mode: str
    n: int
    formed_s: float | None
    ping_up: tuple[int, int] = (0, 0)      # echoes answered, sent: every node -> root
    ping_down: tuple[int, int] = (0, 0)    # root -> every node
    sent: int = 0
    received: int = 0
    control_bytes: int = 0                 # RPL messages sent in the UDP hour, all nodes
    control_msgs: int = 0
    hour_s: float = 3600.0
    dead: int | None = None
    orphans: list[int] = field(default_factory=list)
    recovery_s: dict[int, float | None] = field(default_factory=dict)
    wall_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def pdr(self) -> float:
        return self.received / self.sent if self.sent else 0.0

    @property
    def recovery_max_s(self) -> float | None:
        v = list(self.recovery_s.values())
        return None if not v or None in v else max(v)  # type: ignore[type-var]


def mesh_experiment(n: int, links: list[tuple[int, int, float]], mode: str, seed: int,
                    hour_s: float = 3600.0, stagger_s: float = 1.2, routes: int | None = None,
                    settle_s: float = 60.0,
                    log: Any = None) -> MeshResult:
    """Issue 13's experiment on one topology: form the DODAG (node 0 the
    root), every node pings the root (3 echoes) and the root pings every node
    (2 each, one node after the other), then every node sends a @UDP_SIZE-byte
    datagram to the root once a minute for @hour_s, flows started @stagger_s
    apart; half-way the busiest router (most children) is switched off (its
    links removed): its children that can still reach the root ping it every
    second, and the first answer after the switch-off is their recovery time.
    @routes: the storing routers' route tables (None: built in)."""
    say = log or (lambda *_: None)
    wall0 = time.perf_counter()
    sim = Sim(seed)
    try:
        build_links(sim, n, links)
        start_rpl(sim, n, mode, routes=routes)
        res = MeshResult(mode=mode, n=n, formed_s=wait_formed(sim, n), hour_s=hour_s)
        if res.formed_s is None:
            res.wall_s = time.perf_counter() - wall0
            say(f"  {mode}: {n} nodes did not form within 600 s (root routes "
                f"{sim.counters(0)['rpl.routes_used']})")
            return res
        addr = {i: rpl_addr(sim, i) for i in range(n)}
        root = addr[0]
        sim.run(sim.now + settle_s)
        # every node pings the root, starts 3 s apart (all at once, 49 nodes'
        # echoes over several hops each would be more than the channel carries)
        t = sim.now
        for i in range(1, n):
            sim.run(t + 3.0 * i)
            sim.shell(i, f"ping {root} -c 3 -i 1000 -s 16")
        sim.run(sim.now + 10)
        up = [ping_count(sim.output(i)) for i in range(1, n)]
        res.ping_up = (sum(r for _, r in up), sum(s for s, _ in up))
        # the root pings every node, one after the other
        down = []
        for i in range(1, n):
            sim.output(0)
            sim.shell(0, f"ping {addr[i]} -c 2 -i 500 -s 16")
            sim.run(sim.now + 4)
            down.append(ping_count(sim.output(0)))
        res.ping_down = (sum(r for _, r in down), sum(s for s, _ in down))
        # the hour of UDP, the busiest router switched off half-way
        sim.shell(0, f"udp server start {UDP_PORT} sink")
        c0 = {i: sim.counters(i) for i in range(n)}
        t0 = sim.now
        pref = {i: preferred(sim, i) for i in range(1, n)}
        ll = {i: "fe80::" + addr[i].split("::", 1)[1] for i in range(n)}
        children = {k: [i for i in pref if pref[i] == ll[k]] for k in range(1, n)}
        dead = max(children, key=lambda k: (len(children[k]), -k))
        res.dead = dead
        for i in range(1, n):
            sim.run(t0 + stagger_s * i)
            size = UDP_SIZE + (1 if i == dead else 0)
            sim.shell(i, f"udp send {root} {UDP_PORT} {size} {int(hour_s // 60)} 60000")
        sim.run(t0 + hour_s / 2)
        dead_sent = sim.counters(dead)["udp.tx"] - c0[dead]["udp.tx"]
        for k in range(n):
            if k != dead:
                sim.remove_link(dead, k)
                sim.remove_link(k, dead)
        t_off = sim.now
        alive = reachable(links, 0, without=dead)
        res.orphans = [c for c in children[dead] if c in alive]
        for c in res.orphans:
            sim.output(c)
            sim.shell(c, f"ping {root} -c 120 -i 1000 -s 16")
        sim.run(t0 + hour_s + 30)
        for c in res.orphans:
            out = sim.output(c)
            m = re.search(r"icmp_seq=(\d+) ttl=\d+ time=(\d+)\.(\d+) ms", out)
            res.recovery_s[c] = (None if m is None else
                                 int(m.group(1)) * 1.0 + int(m.group(2)) / 1000)
        c1 = {i: sim.counters(i) for i in range(n)}
        _, out = sim.shell(0, "udp server stats")
        m = re.search(r"received (\d+) bad \d+ echoed \d+ bytes (\d+)", out)
        if m is None:
            raise RuntimeError(f"udp server stats: {out}")
        received, nbytes = int(m.group(1)), int(m.group(2))
        res.received = received
        res.sent = dead_sent + sum(c1[i]["udp.tx"] - c0[i]["udp.tx"]
                                   for i in range(1, n) if i != dead)
        res.extra["dead_received"] = nbytes - UDP_SIZE * received
        res.extra["dead_sent"] = dead_sent
        res.extra["t_off"] = t_off - t0
        res.control_bytes = sum(c1[i]["rpl.tx_bytes"] - c0[i]["rpl.tx_bytes"] for i in range(n))
        res.control_msgs = sum(c1[i][f"rpl.tx_{k}"] - c0[i][f"rpl.tx_{k}"] for i in range(n)
                               for k in ("dis", "dio", "dao", "dao_ack"))
        res.extra["drops"] = {k: sum(c1[i].get(k, 0) - c0[i].get(k, 0) for i in range(n))
                              for k in ("ipv6.rx_drop_hop_limit", "ipv6.rx_drop_rpl_loop",
                                        "ipv6.rx_drop_no_route", "mac.tx_noack",
                                        "rpl.parent_switch", "rpl.routes_full")}
        res.wall_s = time.perf_counter() - wall0
        say(f"  {mode}: {n} nodes formed in {res.formed_s:.0f} s; pings up "
            f"{res.ping_up[0]}/{res.ping_up[1]}, down {res.ping_down[0]}/{res.ping_down[1]}; "
            f"UDP {received}/{res.sent} = {res.pdr:.4f}; node {dead} off at "
            f"{res.extra['t_off']:.0f} s: children {children[dead]}, reachable {res.orphans}, "
            f"delivering again after " +
            ", ".join(f"{c}: {'never' if v is None else f'{v:.1f} s'}"
                      for c, v in res.recovery_s.items()) +
            f"; RPL control {res.control_msgs} messages, {res.control_bytes} bytes in "
            f"{hour_s:.0f} s; {res.extra['drops']}; {res.wall_s:.1f} s wall")
        return res
    finally:
        sim.close()


def grid_formation(rows: int, cols: int, spacing: float = 10.0, range_m: float = 15.0,
                   prr: float = 0.9, seed: int = 1, mode: str = "non-storing",
                   limit: float = 1200.0) -> dict[str, Any]:
    """A @rows x @cols grid (each node hears its 8 neighbours at the default
    spacing and range), the root at its centre: the simulated time until
    every node joined and the root holds a route to every node, the wall
    time it took, and the simulator's bytes per node."""
    n = rows * cols
    root = (rows // 2) * cols + cols // 2
    sim = Sim(seed)
    try:
        sim.set_range(range_m, prr)
        for i in range(n):
            sim.add_node(spacing * (i % cols), spacing * (i // cols))
        for i in range(n):
            sim.set_cca(i, True)
        w0 = time.perf_counter()
        start_rpl(sim, n, mode, root=root)
        formed = wait_formed(sim, n, root=root, step=5.0, limit=limit)
        wall = time.perf_counter() - w0
        depth = max(int(re.search(r"rank (\d+)", sim.shell(i, "rpl")[1]).group(1))  # type: ignore[union-attr]
                    for i in range(0, n, max(1, n // 50)))
        return {"n": n, "root": root, "formed_s": formed, "wall_s": wall,
                "bytes_per_node": sim.bytes_per_node(), "events": sim.events,
                "max_rank_sampled": depth,
                "root_routes": sim.counters(root)["rpl.routes_used"]}
    finally:
        sim.close()
