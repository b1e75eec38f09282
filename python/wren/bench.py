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


LAYERS = [
    ("sock", ("sock/",)),
    ("udp", ("src/udp/", "wire/udp.c")),
    ("ipv6", ("src/ipv6/", "wire/ipv6")),
    ("icmpv6", ("src/icmpv6/", "wire/icmpv6")),
    ("6lowpan", ("src/sixlowpan/", "wire/sixlowpan")),
    ("checksum", ("inet_csum",)),
    ("802.15.4", ("src/link/", "wire/ieee802154")),
    ("netif+device", ("src/net/netif", "src/drivers/")),
    ("netapi/sched", ("src/net/netapi", "src/net/netreg", "src/core/")),
    ("pktbuf", ("src/pktbuf/",)),
]


def _callgrind(argv, out):
    import re
    import subprocess
    res = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                          *map(str, argv)], capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(res.stdout + res.stderr[-2000:])
    return int(re.search(r"Collected : (\d+)", res.stderr).group(1))


def _functions(out, inclusive=False):
    """{(file, function): instructions} from a callgrind output file."""
    import re
    import subprocess
    txt = subprocess.run(["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}",
                          "--threshold=100", out], capture_output=True, text=True).stdout
    funcs = {}
    for line in txt.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S+?):(\S+)", line)
        if m:
            # the same function may be listed by absolute and relative path
            path = re.sub(r"^.*?/(src|bench|port)/", r"\1/", m.group(2))
            key = (path, m.group(3))
            funcs[key] = max(funcs.get(key, 0), int(m.group(1).replace(",", "")))
    return funcs


def udp_per_datagram(mode, size, n=500):
    """Instructions per datagram (and per layer) for bench_udp MODE SIZE:
    the difference of two callgrind runs, N and 2N datagrams."""
    import tempfile
    from . import paths
    exe = paths.BUILD / "bench_udp"
    with tempfile.TemporaryDirectory() as d:
        a = _callgrind([exe, mode, size, n], f"{d}/a")
        b = _callgrind([exe, mode, size, 2 * n], f"{d}/b")
        fa, fb = _functions(f"{d}/a"), _functions(f"{d}/b")
        ia, ib = _functions(f"{d}/a", True), _functions(f"{d}/b", True)
    layers = {name: 0.0 for name, _ in LAYERS}
    layers["other"] = 0.0
    for key in set(fa) | set(fb):
        delta = (fb.get(key, 0) - fa.get(key, 0)) / n
        for name, pats in LAYERS:
            if any(p in key[0] for p in pats):
                layers[name] += delta
                break
        else:
            layers["other"] += delta
    incl = {}
    for k in set(ia) | set(ib):
        # a function also appears under headers it inlined: keep its own file's figure
        incl[k[1]] = max(incl.get(k[1], 0), (ib.get(k, 0) - ia.get(k, 0)) / n)
    return (b - a) / n, layers, incl


def bench_udp_loopback():
    recs = []
    for size in (20, 1000):
        total, layers, _ = udp_per_datagram("loopback", size)
        parts = ", ".join(f"{k} {v:.0f}" for k, v in layers.items() if round(v))
        print(f"  {size}-byte UDP over the IPv6 loopback, sock_udp send + receive: {total:.0f} "
              f"instructions (callgrind, x86-64): {parts}")
        if size == 20:
            recs.append(_record("udp_loopback_20B_instructions", round(total), "instructions",
                                "lower", 2500, "RIOT GNRC on native64: ~24,000 (issue #3)"))
        else:
            recs.append(_record("udp_loopback_1000B_instructions", round(total), "instructions",
                                "lower", None, "1,000-byte datagram, same path"))
    return recs


def bench_udp_loopback_m3():
    from . import qemu_bench
    res = qemu_bench.run()
    if res is None:
        print("  qemu-system-arm not installed: skipped")
        return []
    total, mods = res
    parts = ", ".join(f"{k} {v:.0f}" for k, v in mods.items())
    print(f"  20-byte UDP over the IPv6 loopback on a Cortex-M3 (qemu mps2-an385, every guest "
          f"instruction traced): {total:.0f} instructions per datagram: {parts}")
    return [_record("udp_loopback_20B_instructions_cortex_m3", round(total), "instructions",
                    "lower", None, "the same benchmark, arm-none-eabi-gcc -Os, Cortex-M3")]


def bench_udp_pps():
    import subprocess
    from . import paths
    exe = paths.BUILD / "bench_udp"
    n = 300000

    def pps(mode):
        out = subprocess.run([str(exe), mode, "20", str(n)], capture_output=True, text=True,
                             check=True).stdout.split()
        return n / float(out[4])
    # interleaved, best of three each, in the same run
    w, l = [], []
    for _ in range(3):
        w.append(pps("loopback"))
        l.append(pps("linux"))
    ratio = max(w) / max(l)
    print(f"  20-byte datagrams: wren {max(w):,.0f}/s over its IPv6 loopback, Linux "
          f"{max(l):,.0f}/s over ::1 (send+receive in one thread) -> ratio {ratio:.1f}")
    return [_record("udp_loopback_pps_vs_linux", round(ratio, 2), "ratio", "higher", 2,
                    "wren sock_udp over its loopback vs the Linux kernel's UDP over ::1, "
                    "same machine, same run")]


def bench_sixlo_frag():
    total, layers, incl = udp_per_datagram("pipe", 1000, n=200)
    frag = incl.get("sixlowpan_frag_send", 0) + incl.get("sixlowpan_reass_rx", 0)
    print(f"  1,000-byte UDP between two nodes over 6LoWPAN: {total:.0f} instructions per "
          f"datagram; 6LoWPAN fragmentation + reassembly {frag:.0f}")
    return [_record("sixlo_frag_reass_1000B_instructions", round(frag), "instructions", "lower",
                    15000, "6LoWPAN fragmentation and reassembly of a 1,000-byte datagram")]


def bench_udp_goodput():
    """Instructions per datagram against payload size, over the loopback and
    between two nodes over 6LoWPAN (fragmentation steps show), and a plot."""
    from . import paths
    sizes = list(range(0, 1233, 48)) + [1232]
    rows = {"loopback": [], "pipe": []}
    for mode in rows:
        for size in sizes:
            total, _, _ = udp_per_datagram(mode, size, n=100)
            rows[mode].append(total)
    paths.OUT.mkdir(exist_ok=True)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(11, 4))
    for mode, label in (("loopback", "IPv6 loopback"), ("pipe", "two nodes over 6LoWPAN")):
        ax[0].plot(sizes, rows[mode], marker=".", label=label)
        ax[1].plot(sizes, [s * 1000 / t for s, t in zip(sizes, rows[mode])], marker=".",
                   label=label)
    ax[0].set_xlabel("UDP payload (bytes)")
    ax[0].set_ylabel("instructions per datagram (x86-64)")
    ax[1].set_xlabel("UDP payload (bytes)")
    ax[1].set_ylabel("goodput (payload bytes per 1,000 instructions)")
    for a in ax:
        a.grid(True, alpha=0.3)
        a.legend()
    fig.tight_layout()
    png = paths.OUT / "udp_goodput.png"
    fig.savefig(png, dpi=100)
    print(f"  plot: {png}")
    for mode in rows:
        print(f"  {mode}: " + ", ".join(f"{s}B {t:.0f}" for s, t in zip(sizes, rows[mode])
                                        if s in (0, 96, 192, 480, 960, 1232)))
    return [_record("udp_pipe_1232B_instructions", round(rows["pipe"][-1]), "instructions",
                    "lower", None, "1,232-byte datagram between two nodes over 6LoWPAN")]


def bench_goodput_1hop():
    """Single-hop UDP goodput over the simulated channel beside the analytic
    bound (airtime + interframe space of the same frames), RIOT paper fig. 8."""
    import subprocess
    from . import paths
    exe = paths.BUILD / "bench_goodput"
    sizes = list(range(0, 1233, 48)) + [1232]
    rows = {"nomac": [], "mac": []}
    for mode in rows:
        for size in sizes:
            out = subprocess.run([str(exe), mode, str(size), "10"], capture_output=True, text=True,
                                 check=True).stdout.split()
            rows[mode].append((size, float(out[4]), float(out[5])))
    paths.OUT.mkdir(exist_ok=True)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(sizes, [r[2] for r in rows["nomac"]], "k--", label="analytic bound")
    ax.plot(sizes, [r[1] for r in rows["nomac"]], marker=".", label="no CSMA, no ACK")
    ax.plot(sizes, [r[1] for r in rows["mac"]], marker=".", label="CSMA-CA + ACK")
    ax.set_xlabel("UDP payload (bytes)")
    ax.set_ylabel("goodput (kbit/s)")
    ax.set_title("single-hop UDP over simulated 802.15.4")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    png = paths.OUT / "udp_1hop_goodput.png"
    fig.savefig(png, dpi=100)
    last = {m: rows[m][-1] for m in rows}
    for m in rows:
        print(f"  {m}: " + ", ".join(f"{sz}B {g:.1f}/{b:.1f}" for sz, g, b in rows[m]
                                     if sz in (48, 96, 144, 480, 960, 1232)) + " kbit/s (goodput/bound)")
    print(f"  plot: {png}")
    return [
        _record("udp_1hop_goodput_nomac_vs_bound", round(last["nomac"][1] / last["nomac"][2], 4),
                "fraction of bound", "higher", 0.98, "1,232-byte payload, no CSMA/ACK (issue #5)"),
        _record("udp_1hop_goodput_mac_vs_bound", round(last["mac"][1] / last["mac"][2], 4),
                "fraction of bound", "higher", None, "1,232-byte payload, CSMA-CA + ACK"),
    ]


def bench_size():
    from . import size
    return size.records()


BENCHES = {
    "sim_bytes_per_node": bench_sim_bytes_per_node,
    "sim_speed_1k_idle": bench_sim_speed_1k_idle,
    "sim_speed_1k_busy": bench_sim_speed_1k_busy,
    "l2_reflector": bench_l2_reflector,
    "udp_loopback": bench_udp_loopback,
    "udp_loopback_m3": bench_udp_loopback_m3,
    "udp_pps": bench_udp_pps,
    "sixlo_frag": bench_sixlo_frag,
    "udp_goodput": bench_udp_goodput,
    "goodput_1hop": bench_goodput_1hop,
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


def bench_tcp_sizes():
    """sizeof of each TCP structure on this host, and the connection's
    protocol state on the Cortex-M3 (the issue's limit: 256 bytes)."""
    import subprocess
    from . import paths, size
    out = subprocess.run([str(paths.BUILD / "bench_tcp_sizes")], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        name, n = line.split()
        print(f"  {name.replace('_', ' ', 1):<34} {n:>6} bytes (x86-64)")
    conn = size.tcp_conn_bytes()
    print(f"  struct wren_tcp_conn on Cortex-M3 {conn:>6} bytes")
    return [_record("tcp_conn_state_bytes", conn, "bytes", "lower", 256,
                    "Cortex-M3; TCPlp: 364 bytes per active connection")]


BENCHES["tcp_sizes"] = bench_tcp_sizes
