"""./wren bench: benchmarks that print their figures (never asserted).

Each benchmark returns records {name, value, unit, better, target, anchor};
names are the ones the issues give. Wall-clock figures are only ever
reported as ratios measured in the same run (simulated seconds per wall
second); memory figures are counted, not timed.
"""
import json
import platform
import random
import time
from pathlib import Path

from .lib import Sim


def _record(name, value, unit, better, target=None, anchor=""):
    return {"name": name, "value": value, "unit": unit, "better": better, "target": target,
            "anchor": anchor}


def _rss_kib():
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    import os
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def _field(n, seed, range_m=15.0, density=10.0):
    """n nodes at random in a square sized for ~density neighbours each."""
    import math
    side = math.sqrt(n * math.pi * range_m ** 2 / density)
    rng = random.Random(seed)
    sim = Sim(seed)
    sim.set_range(range_m, 1.0)
    for _ in range(n):
        sim.add_node(rng.uniform(0, side), rng.uniform(0, side))
    for i in range(n):
        sim.set_cca(i, True)
    return sim


def bench_sim_bytes_per_node():
    rss0 = _rss_kib()
    sim = _field(10000, 1)
    per_node = sim.bytes_per_node()
    rss = (_rss_kib() - rss0) * 1024 / 10000
    sim.close()
    print(f"  10,000 nodes created: {per_node} bytes allocated per node "
          f"(6 KiB packet buffer included), resident growth {rss:.0f} bytes per node")
    return [_record("sim_bytes_per_node", per_node, "bytes", "lower", None,
                    "memory per simulated node incl. its 6 KiB packet buffer")]


def _speed(name, interval_s, sim_seconds, anchor, target=None):
    sim = _field(1000, 2)
    for i in range(1000):
        sim.rawgen(i, -1, size=60, interval_s=interval_s, timing="poisson")
    t0 = time.perf_counter()
    sim.run(sim_seconds)
    wall = time.perf_counter() - t0
    frames = sum(sim.counters(i)["radio.tx_frames"] for i in range(1000))
    events = sim.events
    sim.close()
    ratio = sim_seconds / wall
    print(f"  {name}: {sim_seconds:g} s simulated in {wall:.2f} s wall = {ratio:.1f}x real time "
          f"({frames} frames on air, {events} events)")
    return [_record(name, round(ratio, 2), "x real time", "higher", target, anchor)]


def bench_sim_speed_1k_idle():
    return _speed("sim_speed_1k_idle", 10.0, 600.0,
                  "1,000 nodes, ~10 neighbours each, one 60-byte broadcast per node per 10 s")


def bench_sim_speed_1k_busy():
    return _speed("sim_speed_1k_busy", 0.2, 30.0,
                  "1,000 nodes, ~10 neighbours each, 5 60-byte broadcasts per node per s "
                  "(Poisson), CCA on; issue #2 target: >= 10x real time", target=10)


def callgrind_instructions(argv):
    """Instructions a program executes, counted by valgrind's callgrind."""
    import re
    import shutil
    import subprocess
    import tempfile
    if not shutil.which("valgrind"):
        return None
    with tempfile.TemporaryDirectory() as d:
        res = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg",
                              *map(str, argv)], capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(res.stderr[-2000:])
        m = re.search(r"Collected : (\d+)", res.stderr)
        return int(m.group(1))


def bench_l2_reflector():
    """Instructions per frame through a node and the L2 reflector and back."""
    from . import paths
    exe = paths.BUILD / "bench_reflector"
    recs = []
    for payload in (20, 100):
        a = callgrind_instructions([exe, 1000, payload])
        b = callgrind_instructions([exe, 2000, payload])
        if a is None:
            print("  valgrind not installed: skipped")
            return []
        per = (b - a) / 1000
        print(f"  {payload}-byte payload: {per:.0f} instructions per frame round trip "
              f"(callgrind, x86-64)")
        recs.append(_record(f"l2_reflector_{payload}B_instructions", round(per), "instructions",
                            "lower", None,
                            "app -> 802.15.4 link -> L2 reflector -> netif -> link -> app"))
    return recs


def bench_size():
    from . import size
    return size.records()


BENCHES = {
    "sim_bytes_per_node": bench_sim_bytes_per_node,
    "sim_speed_1k_idle": bench_sim_speed_1k_idle,
    "sim_speed_1k_busy": bench_sim_speed_1k_busy,
    "l2_reflector": bench_l2_reflector,
    "size": bench_size,
}


def main(args):
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
          f"python {platform.python_version()}")
    records = []
    for name, fn in BENCHES.items():
        if args.name and args.name not in name:
            continue
        print(f"{name}:")
        records.extend(fn())
    print()
    for r in records:
        tgt = f" (target {r['target']})" if r["target"] is not None else ""
        print(f"{r['name']:<32} {r['value']:>12} {r['unit']}{tgt}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(records, indent=1))
        print(f"records: {args.json}")
    return 0
