"""./wren demo: a network that forms itself (scenarios/demo.toml), told as a
short story whose every number is read from the run.

story(sc, result) finds the demo's actors in the scenario's [[shell]]
entries (who observes whom over CoAP, who pings whom, who sends to whom
over TCP), then reads what happened from the result of scenario.run: the
DODAG's formation time (result["rpl_formed_s"]), the hops from the
preferred parents at the end (result["rpl_parents"]), what each node's
shell printed (ping statistics, CoAP responses and notifications, `tcp
stats`), the counters (duty cycle) and the energy model's figures
(wren.energy). tell() prints it.
"""
import re
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from . import scenario
from .scenario import Scenario

Story = dict[str, Any]


def _actor(sc: Scenario, prefix: str) -> tuple[int, str] | None:
    """(node, command) of the first [[shell]] command starting with @prefix
    that runs on one node."""
    for sh in sc.shell:
        nodes = [sh.node] if sh.node is not None else (sh.nodes if isinstance(sh.nodes, list)
                                                        else [])
        for cmd in sh.cmd:
            if cmd.startswith(prefix) and len(nodes) == 1:
                return nodes[0], cmd.format(**scenario._fields(sc, nodes[0]))
    return None


def _node_of(sc: Scenario, address: str) -> int | None:
    """The node whose address in the [rpl] prefix is @address."""
    prefix = scenario._addr_prefix(sc)
    if prefix is None:
        return None
    from .addr import addr
    for i in range(sc.node_count):
        if addr(prefix, i) == address:
            return i
    return None


def hops(result: Mapping[str, Any], node: int) -> int | None:
    """@node's hops to its root along the preferred parents at the end."""
    parents = result.get("rpl_parents") or {}
    roots = set(result.get("rpl_roots") or [])
    n, seen = 0, set()
    while node not in roots:
        if node in seen:
            return None
        seen.add(node)
        p = parents.get(str(node))
        if p is None:
            return None
        node, n = p, n + 1
    return n


def _coap(sc: Scenario, result: Mapping[str, Any], shell: dict[int, str]) -> dict[str, Any]:
    """Who observes whom, the readings the sensor took (its own 2.04
    answers) and the notifications the observer got."""
    obs = _actor(sc, "coap observe")
    if not obs:
        return {}
    client, cmd = obs
    sensor = _node_of(sc, cmd.split()[2])
    notes = re.findall(r"^coap: notification \d\.\d\d, \d+ bytes, fnv1a \S+: (\d+)$",
                       shell[client], re.M)
    readings = (re.findall(r"^coap: 2\.04, \d+ bytes, fnv1a \S+: (\d+)$", shell[sensor], re.M)
                if sensor is not None else [])
    heard = set(notes) & set(readings)
    return {"coap": {"client": client, "sensor": sensor, "path": cmd.split()[3],
                     "hops": hops(result, sensor) if sensor is not None else None,
                     "readings": len(readings), "notifications": len(notes),
                     "readings_heard": len(heard)}}


def _ping(sc: Scenario, result: Mapping[str, Any], shell: dict[int, str]) -> dict[str, Any]:
    """The pinger's statistics, as its shell printed them."""
    ping = _actor(sc, "ping")
    if not ping:
        return {}
    node, cmd = ping
    m = re.search(r"(\d+) packets transmitted, (\d+) received", shell[node])
    rtt = re.search(r"rtt min/avg/max = ([\d.]+)/([\d.]+)/([\d.]+) ms", shell[node])
    target = _node_of(sc, cmd.split()[1])
    return {"ping": {"node": node, "target": target, "hops": hops(result, node),
                     "sent": int(m.group(1)) if m else 0,
                     "received": int(m.group(2)) if m else 0,
                     "rtt_avg_ms": float(rtt.group(2)) if rtt else None}}


def _tcp(sc: Scenario, result: Mapping[str, Any], shell: dict[int, str]) -> dict[str, Any]:
    """The TCP transfer: what the sink's `tcp stats` says it received, and
    the segments the client sent (again)."""
    tcp = _actor(sc, "tcp connect")
    listen = _actor(sc, "tcp listen")
    size = re.search(r"tcp send (\d+)", " ".join(c for sh in sc.shell for c in sh.cmd))
    if not (tcp and listen):
        return {}
    client, server = tcp[0], listen[0]
    srv = re.findall(r"^server: (\S+) .*received (\d+) bad (\d+) goodput ([\d.]+) kbit/s",
                     shell[server], re.M)
    rex = re.findall(r"^tcp: tx (\d+) rexmt (\d+)", shell[client], re.M)
    return {"tcp": {"client": client, "server": server, "hops": hops(result, client),
                    "size": int(size.group(1)) if size else None,
                    "state": srv[-1][0] if srv else None,
                    "received": int(srv[-1][1]) if srv else 0,
                    "bad": int(srv[-1][2]) if srv else 0,
                    "goodput_kbps": float(srv[-1][3]) if srv else None,
                    "segments": int(rex[-1][0]) if rex else None,
                    "rexmt": int(rex[-1][1]) if rex else None}}


def _radio(result: Mapping[str, Any]) -> dict[str, Any]:
    """Duty cycle, share of time transmitting, frames and collisions, and
    the energy model's figures when the result has them."""
    out: dict[str, Any] = {}
    duties = [scenario.duty(nd["counters"]) for nd in result["nodes"]]
    tx = [nd["counters"].get("radio.time_tx_us", 0) for nd in result["nodes"]]
    out["duty_pct"] = 100.0 * sum(duties) / len(duties)
    out["tx_pct"] = 100.0 * sum(tx) / (len(tx) * result["duration_s"] * 1e6)
    t = result["totals"]
    out["frames"] = t.get("radio.tx_frames", 0)
    out["collisions"] = t.get("radio.rx_collisions", 0)
    en = result.get("energy")
    if en:
        per = [nd["energy"]["mj"] for nd in result["nodes"]]
        out["energy"] = {"profile": en["profile"], "mj": en["mj"], "mj_per_node": en["mj"] /
                         len(per), "mw_per_node": en["mj"] / len(per) / result["duration_s"]}
    return out


def story(sc: Scenario, result: Mapping[str, Any]) -> Story:
    """The demo's figures, each from the run (see the module's doc)."""
    shell = {nd["id"]: nd["shell"] for nd in result["nodes"]}
    out: Story = {"nodes": len(result["nodes"]), "duration_s": result["duration_s"],
                  "seed": result["seed"], "formed_s": result.get("rpl_formed_s"),
                  "roots": list(result.get("rpl_roots") or [])}
    joined = [i for i in range(len(result["nodes"])) if hops(result, i) is not None]
    out["joined_at_end"] = len(joined)
    out["max_hops"] = max((hops(result, i) or 0) for i in joined) if joined else None
    out.update(_coap(sc, result, shell))
    out.update(_ping(sc, result, shell))
    out.update(_tcp(sc, result, shell))
    out.update(_radio(result))
    return out


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.0f} %" if b else "-"


def tell(st: Story, out: TextIO = sys.stdout) -> None:
    """Print the story."""
    w = lambda s: print(s, file=out)  # noqa: E731
    root = st["roots"][0] if st["roots"] else None
    formed = (f"formed in {st['formed_s']:g} s of simulated time" if st["formed_s"] is not None
              else "did not form within the run")
    w(f"{st['nodes']} nodes, one border router (node {root}, the RPL root): the DODAG {formed}; "
      f"at the end {st['joined_at_end']} nodes are in it, the deepest {st['max_hops']} hops "
      f"down.")
    if "coap" in st:
        c = st["coap"]
        w(f"CoAP observe: the root watches {c['path']} on node {c['sensor']} ({c['hops']} hops), "
          f"which took {c['readings']} readings; {c['readings_heard']} of them reached the root "
          f"as notifications ({_pct(c['readings_heard'], c['readings'])}; "
          f"{c['notifications']} notifications in all).")
    if "ping" in st:
        p = st["ping"]
        rtt = f", mean round trip {p['rtt_avg_ms']:.0f} ms" if p["rtt_avg_ms"] is not None else ""
        w(f"ping: node {p['node']} ({p['hops']} hops) -> node {p['target']}: {p['received']} of "
          f"{p['sent']} answered, PDR {_pct(p['received'], p['sent'])}{rtt}.")
    if "tcp" in st:
        t = st["tcp"]
        good = f"{t['goodput_kbps']:g} kbit/s" if t["goodput_kbps"] is not None else "-"
        w(f"TCP: node {t['client']} ({t['hops']} hops) -> sink on node {t['server']}: "
          f"{t['received']} of {t['size']} bytes, {t['bad']} bad, goodput {good} "
          f"({t['rexmt']} of {t['segments']} segments sent again), connection {t['state']}.")
    w(f"radio: {st['frames']} frames on the air, {st['collisions']} lost to collisions; on "
      f"{st['duty_pct']:.1f} % of the time (CSMA/CA radios always listen), transmitting "
      f"{st['tx_pct']:.2f} %.")
    if "energy" in st:
        e = st["energy"]
        w(f"energy ({e['profile']}, radio only): {e['mj']:.0f} mJ for the network, "
          f"{e['mj_per_node']:.0f} mJ per node ({e['mw_per_node']:.1f} mW) over "
          f"{st['duration_s']:g} s.")
