"""Scenarios: TOML files that describe a network, its traffic and its run.

A scenario has a seed and a duration, a radio model, nodes (a grid, a
random field or an explicit list), optional explicit links, and
applications. See scenarios/demo.toml for every key.
"""
import json
import random
import sys
import time
import tomllib
from pathlib import Path

from .lib import Sim

SUMMARY_COLUMNS = [
    ("node", None),
    ("tx", "radio.tx_frames"),
    ("rx", "radio.rx_frames"),
    ("coll", "radio.rx_collisions"),
    ("loss", "radio.rx_link_loss"),
    ("cca_busy", "radio.cca_busy"),
    ("app_sent", "app.sent"),
    ("app_rcvd", "app.received"),
    ("drops", None),
    ("duty%", None),
]


class ScenarioError(ValueError):
    pass


def load(path):
    with open(path, "rb") as f:
        sc = tomllib.load(f)
    sc.setdefault("name", Path(path).stem)
    return sc


def _positions(sc):
    """The nodes' coordinates, from [grid], [random] or [[nodes]]."""
    if "grid" in sc:
        g = sc["grid"]
        rows, cols, sp = int(g["rows"]), int(g["cols"]), float(g.get("spacing", 10.0))
        return [(sp * (i % cols), sp * (i // cols), 0.0) for i in range(rows * cols)]
    if "random" in sc:
        r = sc["random"]
        rng = random.Random(int(sc.get("seed", 1)) ^ 0x5EED)
        w, h = float(r["width"]), float(r["height"])
        return [(rng.uniform(0, w), rng.uniform(0, h), 0.0) for _ in range(int(r["count"]))]
    if "nodes" in sc:
        return [(float(n.get("x", 0)), float(n.get("y", 0)), float(n.get("z", 0)))
                for n in sc["nodes"]]
    raise ScenarioError("scenario has no [grid], [random] or [[nodes]]")


def _node_list(spec, n):
    if spec in (None, "all"):
        return list(range(n))
    if isinstance(spec, int):
        return [spec]
    return [int(x) for x in spec]


def build(sc, seed=None, pcap=None):
    """Create the Sim a scenario describes. Returns (sim, seed)."""
    seed = int(sc.get("seed", 1) if seed is None else seed)
    sim = Sim(seed)
    radio = sc.get("radio", {})
    if "range" in radio:
        sim.set_range(float(radio["range"]), float(radio.get("prr", 1.0)))
    if "proc_delay_us" in radio:
        sim.set_proc_delay(int(radio["proc_delay_us"]))
    pktbuf = int(sc.get("pktbuf", 0))
    pos = _positions(sc)
    for x, y, z in pos:
        sim.add_node(x, y, z, pktbuf)
    n = len(pos)
    explicit = sc.get("nodes", []) if "grid" not in sc and "random" not in sc else []
    for i, nd in enumerate(explicit):
        if "proc_delay_us" in nd:
            sim.set_proc_delay(int(nd["proc_delay_us"]), i)
    for link in sc.get("links", []):
        a, b, prr = int(link["from"]), int(link["to"]), float(link.get("prr", 1.0))
        sim.set_link(a, b, prr)
        if link.get("both", True):
            sim.set_link(b, a, prr)
    mac = sc.get("mac", {})
    for node in range(n):
        sim.set_mac(node, csma=mac.get("csma", radio.get("cca", True)), ack=mac.get("ack"),
                    retries=mac.get("retries"), retry_delay_ms=mac.get("retry_delay_ms"),
                    min_be=mac.get("min_be"), max_be=mac.get("max_be"),
                    max_backoffs=mac.get("max_backoffs"))
        if "channel" in radio:
            sim.set_channel(node, int(radio["channel"]))
    for app in sc.get("apps", []):
        kind = app.get("type", "rawgen")
        if kind != "rawgen":
            raise ScenarioError(f"unknown application type {kind!r}")
        dst = app.get("dst", "broadcast")
        for node in _node_list(app.get("nodes"), n):
            sim.rawgen(node, -1 if dst == "broadcast" else int(dst),
                       size=int(app.get("size", 40)),
                       interval_s=float(app.get("interval", 1.0)),
                       timing=app.get("timing", "jitter"),
                       count=int(app.get("count", 0)),
                       start_s=float(app.get("start", 0.0)))
    if pcap:
        sim.open_pcap(pcap)
    return sim, seed


def _commands(sc, n):
    """[(time, node, command)] from the [[shell]] tables, in time order."""
    out = []
    for i, c in enumerate(sc.get("shell", [])):
        if "cmd" not in c:
            raise ScenarioError(f"[[shell]] entry {i} has no cmd")
        cmds = c["cmd"] if isinstance(c["cmd"], list) else [c["cmd"]]
        for node in _node_list(c.get("nodes", c.get("node")), n):
            for cmd in cmds:
                line = cmd.format(id=node, prev=node - 1, next=node + 1)
                out.append((float(c.get("at", 0.0)), i, node, line))
    out.sort()
    return [(t, node, cmd) for t, _, node, cmd in out]


def run(sc, seed=None, duration=None, pcap=None, progress=True):
    """Build and run a scenario; return its result as a dict."""
    sim, seed = build(sc, seed, pcap)
    duration = float(sc.get("duration", 10.0) if duration is None else duration)
    commands = _commands(sc, sim.node_count)
    shell_out = {i: [] for i in range(sim.node_count)}
    failed = []
    t0 = time.monotonic()
    step = max(duration / 100.0, 0.001)
    shown = False
    t = 0.0
    while t < duration:
        t = min(duration, t + step)
        while commands and commands[0][0] <= t:
            at, node, cmd = commands.pop(0)
            sim.run(at)
            res, out = sim.shell(node, cmd)
            shell_out[node].append(f"> {cmd}\n{out}")
            if res != 0:
                failed.append({"node": node, "at": at, "cmd": cmd, "result": res})
        sim.run(t)
        wall = time.monotonic() - t0
        if progress and wall > 2.0:
            shown = True
            print(f"\r  simulated {t:8.2f} s of {duration:.2f} s "
                  f"({t / wall:6.1f}x real time)", end="", file=sys.stderr, flush=True)
    if shown:
        print(file=sys.stderr)
    wall = time.monotonic() - t0
    for i in range(sim.node_count):
        shell_out[i].append(sim.output(i))
    nodes = [{"id": i, "counters": sim.counters(i), "shell": "".join(shell_out[i])}
             for i in range(sim.node_count)]
    totals = {}
    for nd in nodes:
        for k, v in nd["counters"].items():
            if not k.startswith("pktbuf.") and not k.startswith("sched."):
                totals[k] = totals.get(k, 0) + v
    result = {
        "scenario": sc.get("name"),
        "seed": seed,
        "duration_s": duration,
        "wall_s": round(wall, 3),
        "events": sim.events,
        "pcap": str(pcap) if pcap else None,
        "pktbuf_in_use": sum(nd["counters"]["pktbuf.in_use"] for nd in nodes),
        "failed_commands": failed,
        "totals": totals,
        "nodes": nodes,
    }
    sim.close()
    return result


def duty(c):
    """The radio's duty cycle: the fraction of time it was on."""
    on = c["radio.time_listen_us"] + c["radio.time_rx_us"] + c["radio.time_tx_us"]
    total = on + c["radio.time_off_us"]
    return on / total if total else 0.0


def drops(c):
    return sum(v for k, v in c.items() if k.startswith("netif.") and "drop" in k)


def summary(result, out=sys.stdout):
    """Print the per-node table and totals."""
    hdr = [name for name, _ in SUMMARY_COLUMNS]
    rows = []
    for nd in result["nodes"]:
        c = nd["counters"]
        row = []
        for name, key in SUMMARY_COLUMNS:
            row.append(nd["id"] if name == "node" else drops(c) if name == "drops"
                       else f"{duty(c) * 100:.1f}" if name == "duty%" else c[key])
        rows.append(row)
    t = result["totals"]
    rows.append(["total"] + [t[key] if key else drops(t) if name == "drops" else ""
                             for name, key in SUMMARY_COLUMNS[1:]])
    widths = [max(len(str(x)) for x in col) for col in zip(hdr, *rows)]
    fmt = "  ".join(f"{{:>{w}}}" for w in widths)
    print(fmt.format(*hdr), file=out)
    for r in rows:
        print(fmt.format(*r), file=out)
    sent = t["app.sent"]
    print(f"\n{result['scenario']}: {len(result['nodes'])} nodes, seed {result['seed']}, "
          f"{result['duration_s']:g} s simulated in {result['wall_s']:.2f} s wall, "
          f"{result['events']} events", file=out)
    print(f"frames on air {t['radio.tx_frames']}, received {t['radio.rx_frames']}, "
          f"lost to collisions {t['radio.rx_collisions']}, CCA busy {t['radio.cca_busy']}, "
          f"app frames sent {sent}, delivered {t['app.received']}", file=out)
    if result["pcap"]:
        print(f"capture: {result['pcap']}", file=out)
    for f in result.get("failed_commands", []):
        print(f"command failed on node {f['node']} at {f['at']:g} s: {f['cmd']} "
              f"({f['result']})", file=out)
    if result["pktbuf_in_use"]:
        print(f"packets still in flight at the end: {result['pktbuf_in_use']} bytes of "
              f"packet buffer in use", file=out)


def write_json(result, path):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
