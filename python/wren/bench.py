"""./wren bench: benchmarks that print their figures (never asserted).

Each benchmark returns records {name, value, unit, better, target, anchor};
names are the ones the issues give. Wall-clock figures are only ever
reported as ratios measured in the same run (simulated seconds per wall
second); memory figures are counted, not timed.
"""
import argparse
import json
import platform
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from . import bench_tcp, progress
from .lib import Sim

Record = dict[str, Any]
"""{name, value, unit, better, target, anchor}"""


def _record(name: str, value: float, unit: str, better: str, target: float | None = None,
            anchor: str = "") -> Record:
    return {"name": name, "value": value, "unit": unit, "better": better, "target": target,
            "anchor": anchor}


def _rss_kib() -> int:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    import os
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def _field(n: int, seed: int, range_m: float = 15.0, density: float = 10.0) -> Sim:
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


def bench_sim_bytes_per_node() -> list[Record]:
    """Bytes per node of a 10,000-node field with the default modules, counted
    (wren_sim_memory: the build's state, the packet buffer, link tables and
    what modules made on first use), printed by part."""
    rss0 = _rss_kib()
    sim = _field(10000, 1)
    per_node = sim.bytes_per_node()
    mem = sim.memory(-1)
    rss = (_rss_kib() - rss0) * 1024 / 10000
    sim.close()
    parts = sorted(((k, v / 10000) for k, v in mem.items() if k != "total" and v),
                   key=lambda kv: -kv[1])
    print(f"  10,000 nodes created: {per_node} bytes allocated per node "
          f"(6 KiB packet buffer included), resident growth {rss:.0f} bytes per node")
    print("  by part: " + ", ".join(f"{k} {v:.0f}" for k, v in parts))
    return [_record("sim_bytes_per_node", per_node, "bytes", "lower", 12288,
                    "memory per simulated node incl. its 6 KiB packet buffer; "
                    "issue #25 target: <= 12,288")]


def _speed(name: str, interval_s: float, sim_seconds: float, anchor: str,
           target: float | None = None) -> list[Record]:
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


def bench_sim_speed_1k_idle() -> list[Record]:
    return _speed("sim_speed_1k_idle", 10.0, 600.0,
                  "1,000 nodes, ~10 neighbours each, one 60-byte broadcast per node per 10 s")


def bench_sim_speed_1k_busy() -> list[Record]:
    return _speed("sim_speed_1k_busy", 0.2, 30.0,
                  "1,000 nodes, ~10 neighbours each, 5 60-byte broadcasts per node per s "
                  "(Poisson), CCA on; issue #2 target: >= 10x real time", target=10)


def callgrind_instructions(argv: Sequence[object]) -> int | None:
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
        if m is None:
            raise RuntimeError("callgrind printed no instruction count")
        return int(m.group(1))


def bench_l2_reflector() -> list[Record]:
    """Instructions per frame through a node and the L2 reflector and back."""
    from . import paths
    exe = paths.BUILD / "bench_reflector"
    recs: list[Record] = []
    for payload in (20, 100):
        a = callgrind_instructions([exe, 1000, payload])
        b = callgrind_instructions([exe, 2000, payload])
        if a is None or b is None:
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
    ("802.15.4", ("src/link/", "src/mac/", "wire/ieee802154")),
    ("netif+device", ("src/net/netif", "src/drivers/")),
    ("netapi/sched", ("src/net/netapi", "src/net/netreg", "src/core/")),
    ("pktbuf", ("src/pktbuf/",)),
]


def _callgrind(argv: Sequence[object], out: str) -> int:
    import re
    import subprocess
    res = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                          *map(str, argv)], capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(res.stdout + res.stderr[-2000:])
    m = re.search(r"Collected : (\d+)", res.stderr)
    if m is None:
        raise RuntimeError("callgrind printed no instruction count")
    return int(m.group(1))


def _functions(out: str, inclusive: bool = False) -> dict[tuple[str, str], int]:
    """{(file, function): instructions} from a callgrind output file."""
    import re
    import subprocess
    txt = subprocess.run(["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}",
                          "--threshold=100", out], capture_output=True, text=True).stdout
    funcs: dict[tuple[str, str], int] = {}
    for line in txt.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S+?):(\S+)", line)
        if m:
            # the same function may be listed by absolute and relative path
            path = re.sub(r"^.*?/(src|bench|port)/", r"\1/", m.group(2))
            key = (path, m.group(3))
            funcs[key] = max(funcs.get(key, 0), int(m.group(1).replace(",", "")))
    return funcs


def udp_per_datagram(mode: str, size: int,
                     n: int = 500) -> tuple[float, dict[str, float], dict[str, float]]:
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
    incl: dict[str, float] = {}
    for k in set(ia) | set(ib):
        # a function also appears under headers it inlined: keep its own file's figure
        incl[k[1]] = max(incl.get(k[1], 0), (ib.get(k, 0) - ia.get(k, 0)) / n)
    return (b - a) / n, layers, incl


def bench_udp_loopback() -> list[Record]:
    recs: list[Record] = []
    for size in (20, 1000):
        total, layers, _ = udp_per_datagram("loopback", size)
        parts = ", ".join(f"{k} {v:.0f}" for k, v in layers.items() if round(v))
        print(f"  {size}-byte UDP over the IPv6 loopback, sock_udp send + receive: {total:.0f} "
              f"instructions (callgrind, x86-64): {parts}")
        if size == 20:
            print("  (the path GNRC's figure measures: UDP and IPv6 headers built, the checksum "
                  "computed on send, the IPv6 and UDP headers parsed and the checksum verified "
                  "on receive)")
            recs.append(_record("udp_loopback_20B_instructions", round(total), "instructions",
                                "lower", 2500,
                                "RIOT GNRC: 24,199 instructions per 20 B packet (valgrind, "
                                "native64, user space); the same work: headers built and "
                                "parsed, checksum computed on send and verified on receive"))
        else:
            recs.append(_record("udp_loopback_1000B_instructions", round(total), "instructions",
                                "lower", None, "1,000-byte datagram, same path"))
    return recs


def bench_udp_loopback_m3() -> list[Record]:
    """Cortex-M3 instructions per datagram under qemu (qemu_bench.udp: the
    udp and udp_pipe images, every guest instruction traced)."""
    import shutil
    from . import qemu_bench
    if not shutil.which("qemu-system-arm"):
        print("  qemu-system-arm not installed: skipped")
        return []
    r = qemu_bench.udp("loopback")[20]
    parts = ", ".join(f"{k} {v:.0f}" for k, v in r.modules.items())
    print(f"  20-byte UDP over the IPv6 loopback on a Cortex-M3 (qemu mps2-an385, every guest "
          f"instruction traced): {r.total:.0f} instructions per datagram: {parts}")
    recs = [_record("udp_loopback_20B_instructions_cortex_m3", round(r.total), "instructions",
                    "lower", None, "the same benchmark, arm-none-eabi-gcc -Os, Cortex-M3")]
    for mode, what in (("loopback", "sock_udp send + receive over the IPv6 loopback"),
                       ("pipe", "two nodes on a wire: UDP, IPv6, 6LoWPAN (fragmented), "
                                "802.15.4 both ways")):
        r = qemu_bench.udp(mode)[1000]
        lay = ", ".join(f"{k} {v:.0f}" for k, v in r.layers.items())
        print(f"  1,000-byte datagram, {what}: {r.total:.0f} Cortex-M3 instructions "
              f"(inclusive per layer: {lay})")
        recs.append(_record(f"udp_m3_instructions_1000B_{mode}", round(r.total), "instructions",
                            "lower", None, f"Cortex-M3 under qemu, {what}; deterministic"))
    return recs


ECHO_PORT = 7777
ECHO_SIZE = 20          # bytes of UDP payload per echo
ECHO_SECONDS = 0.4      # of wall-clock time per measurement
ECHO_ROUNDS = 12        # TAP and veth measured alternately, best of each


def _sh(*cmd: object) -> None:
    import subprocess
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=30)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: {res.stderr.strip()}")


def _echo_client(ns: str, addr: str) -> tuple[float, int]:
    """Round trips per second from a Linux socket in @ns to the echo at
    @addr (bench_echo client), and how many echoes it lost."""
    import subprocess
    from . import paths
    res = subprocess.run(["ip", "netns", "exec", ns, str(paths.BUILD / "bench_echo"), "client",
                          addr, str(ECHO_PORT), str(ECHO_SIZE), str(ECHO_SECONDS)],
                         capture_output=True, text=True, timeout=60)
    if res.returncode != 0:
        raise RuntimeError(f"bench_echo client {addr}: {res.stderr.strip()}")
    trips, secs, lost = res.stdout.split()
    return int(trips) / float(secs), int(lost)


def bench_udp_echo_tap_vs_veth() -> list[Record]:
    """UDP echo round trips per second between a Linux socket and wren-node
    over a TAP, over the same between two Linux sockets across a veth pair:
    one process each side and the kernel between them in both cases, both
    measured alternately in the same run, in network namespaces made here
    and removed afterwards."""
    import os
    import shutil
    import subprocess
    from . import paths
    node_exe, echo_exe = paths.BUILD / "wren-node", paths.BUILD / "bench_echo"
    why = ("needs root (network namespaces, TAP)" if os.geteuid() != 0 else
           "iproute2 ('ip') is not installed" if shutil.which("ip") is None else
           f"wren-node or bench_echo not built in {paths.BUILD}"
           if not node_exe.exists() or not echo_exe.exists() else "")
    if why:
        print(f"  skipped: {why}")
        return []
    a, b = f"wren-bench-{os.getpid()}-a", f"wren-bench-{os.getpid()}-b"
    made: list[str] = []
    procs: list[subprocess.Popen[Any]] = []
    try:
        for ns in (a, b):
            _sh("ip", "netns", "add", ns)
            made.append(ns)
            # no DAD: every address is usable at once (wren does its own)
            _sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.default.accept_dad=0")
            _sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0")
            _sh("ip", "-n", ns, "link", "set", "lo", "up")
        # A: the client, a TAP to wren-node, one end of the veth pair;
        # B: the other end and a Linux echo server
        _sh("ip", "-n", a, "tuntap", "add", "dev", "tap0", "mode", "tap")
        _sh("ip", "-n", a, "link", "add", "veth0", "type", "veth", "peer", "name", "veth1",
            "netns", b)
        _sh("ip", "-n", a, "addr", "add", "fe80::1/64", "dev", "tap0")
        _sh("ip", "-n", a, "addr", "add", "fd00:7e::1/64", "dev", "veth0")
        _sh("ip", "-n", b, "addr", "add", "fd00:7e::2/64", "dev", "veth1")
        for ns, dev in ((a, "tap0"), (a, "veth0"), (b, "veth1")):
            _sh("ip", "-n", ns, "link", "set", dev, "up")
        # wren-node --id 1 on the TAP: MAC 02:57:52:00:00:01, so this link-local
        node = subprocess.Popen(["ip", "netns", "exec", a, str(node_exe), "--tap", "tap0",
                                 "--id", "1"], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        procs.append(node)
        assert node.stdin is not None
        node.stdin.write(f"udp server start {ECHO_PORT} echo\n")
        node.stdin.flush()
        procs.append(subprocess.Popen(["ip", "netns", "exec", b, str(echo_exe), "server",
                                       str(ECHO_PORT)], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE))
        targets = {"tap": "fe80::57:52ff:fe00:1%tap0", "veth": "fd00:7e::2"}
        rates: dict[str, list[float]] = {k: [] for k in targets}
        lost: dict[str, int] = {k: 0 for k in targets}
        for _ in range(ECHO_ROUNDS):
            for k, addr in targets.items():
                r, n = _echo_client(a, addr)
                rates[k].append(r)
                lost[k] += n
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if made:
            subprocess.run(["ip", "-n", a, "tuntap", "del", "dev", "tap0", "mode", "tap"],
                           capture_output=True)
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    tap, veth = max(rates["tap"]), max(rates["veth"])
    ratio = tap / veth
    print(f"  {ECHO_SIZE}-byte UDP echoes, one at a time, best of {ECHO_ROUNDS} x "
          f"{ECHO_SECONDS:g} s each, alternating: Linux socket <-> wren-node over TAP "
          f"{tap:,.0f}/s ({', '.join(f'{r:,.0f}' for r in rates['tap'])}; {lost['tap']} lost), "
          f"Linux socket <-> Linux socket over veth {veth:,.0f}/s "
          f"({', '.join(f'{r:,.0f}' for r in rates['veth'])}; {lost['veth']} lost) "
          f"-> ratio {ratio:.2f}")
    return [_record("udp_echo_tap_vs_veth", round(ratio, 3), "ratio", "higher", None,
                    f"{ECHO_SIZE}-byte UDP echo round trips per second, Linux socket <-> "
                    f"wren-node over TAP divided by Linux socket <-> Linux socket over a veth "
                    f"pair, same machine, same run (network namespaces; wall clock)")]


def bench_sixlo_frag() -> list[Record]:
    total, layers, incl = udp_per_datagram("pipe", 1000, n=200)
    frag = incl.get("wren_sixlowpan_frag_send", 0) + incl.get("wren_sixlowpan_reass_rx", 0)
    print(f"  1,000-byte UDP between two nodes over 6LoWPAN: {total:.0f} instructions per "
          f"datagram; 6LoWPAN fragmentation + reassembly {frag:.0f}")
    return [_record("sixlo_frag_reass_1000B_instructions", round(frag), "instructions", "lower",
                    15000, "6LoWPAN fragmentation and reassembly of a 1,000-byte datagram")]


def bench_udp_goodput() -> list[Record]:
    """Instructions per datagram against payload size, over the loopback and
    between two nodes over 6LoWPAN (fragmentation steps show), and a plot."""
    from . import paths
    sizes = list(range(0, 1233, 48)) + [1232]
    rows: dict[str, list[float]] = {"loopback": [], "pipe": []}
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


def goodput_1hop(mode: str, size: int, seconds: float = 10) -> tuple[float, float]:
    """(goodput, bound) in kbit/s of @size-byte UDP datagrams over one
    simulated hop for @seconds (bench_goodput; @mode "nomac": no CSMA, no
    ACKs; "mac": CSMA-CA, ACKs, retries)."""
    import subprocess
    from . import paths
    out = subprocess.run([str(paths.BUILD / "bench_goodput"), mode, str(size), f"{seconds:g}"],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[4]), float(out[5])


def bench_goodput_1hop() -> list[Record]:
    """Single-hop UDP goodput over the simulated channel beside the analytic
    bound (airtime + interframe space of the same frames), RIOT paper fig. 8."""
    from . import paths
    sizes = list(range(0, 1233, 48)) + [1232]
    rows: dict[str, list[tuple[int, float, float]]] = {"nomac": [], "mac": []}
    for mode in rows:
        for size in sizes:
            rows[mode].append((size, *goodput_1hop(mode, size)))
    paths.OUT.mkdir(exist_ok=True)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(sizes, [r[2] for r in rows["nomac"]], "k--", label="analytic bound")
    ax.plot(sizes, [r[1] for r in rows["nomac"]], marker=".", label="no CSMA, no ACK")
    ax.plot(sizes, [r[2] for r in rows["mac"]], "k:", label="bound with Imm-Acks")
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
                "fraction of bound", "higher", None,
                "1,232-byte payload, CSMA-CA + ACK; bound: each frame, turnaround, Imm-Ack, "
                "then LIFS from the end of the ACK (802.15.4-2015 6.2.4)"),
    ]


def bench_size() -> list[Record]:
    from . import size
    return size.records()


BENCHES: dict[str, Callable[[], list[Record]]] = {
    "sim_bytes_per_node": bench_sim_bytes_per_node,
    "sim_speed_1k_idle": bench_sim_speed_1k_idle,
    "sim_speed_1k_busy": bench_sim_speed_1k_busy,
    "l2_reflector": bench_l2_reflector,
    "udp_loopback": bench_udp_loopback,
    "udp_loopback_m3": bench_udp_loopback_m3,
    "udp_echo_tap_vs_veth": bench_udp_echo_tap_vs_veth,
    "sixlo_frag": bench_sixlo_frag,
    "udp_goodput": bench_udp_goodput,
    "goodput_1hop": bench_goodput_1hop,
    "size": bench_size,
    # the TCP benchmarks (bench_tcp.py)
    "tcp_goodput_mss": bench_tcp.bench_tcp_goodput_mss,
    "tcp_goodput_window": bench_tcp.bench_tcp_goodput_window,
    "tcp_goodput_hops": bench_tcp.bench_tcp_goodput_hops,
    "tcp_goodput_1hop_vs_bound": bench_tcp.bench_tcp_goodput_1hop_vs_bound,
}


def _run(chosen: Sequence[tuple[str, Callable[[], list[Record]]]]) -> list[Record]:
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
          f"python {platform.python_version()}")
    records: list[Record] = []
    # a bar over the benchmarks; the simulations inside report their
    # simulated time and events to it through wren.lib.Sim.run
    with progress.TaskBar(len(chosen), "bench", unit="bench") as bar:
        for name, fn in chosen:
            bar.task(name)
            bar.write(f"{name}:")
            records.extend(fn())
            bar.advance()
    return records


def _line(r: Record) -> None:
    tgt = f" (target {r['target']})" if r["target"] is not None else ""
    print(f"{r['name']:<32} {r['value']:>12} {r['unit']}{tgt}")
    if r.get("anchor"):
        print(f"{'':<34}{r['anchor']}")


def _print(records: Sequence[Record]) -> None:
    """The records, those that are consistency checks apart, after the others."""
    print()
    for r in records:
        if r.get("kind") != "consistency":
            _line(r)
    cons = [r for r in records if r.get("kind") == "consistency"]
    if cons:
        print("\nconsistency checks, not set beside a paper (value and bound come from "
              "wren's own model):")
        for r in cons:
            _line(r)


def main(args: argparse.Namespace) -> int:
    from . import bench_check
    table = bench_check.load()
    check, from_ = getattr(args, "check", False), getattr(args, "from_", None)
    if from_:
        records = bench_check.read(from_)
    else:
        # --check: only the benchmarks that make guarded records
        want = {g.bench for g in table.guards} if check else None
        records = _run([(n, fn) for n, fn in BENCHES.items()
                        if (n in want if want is not None else
                            not args.name or args.name in n)])
    bench_check.label(records, table)
    _print(records)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(records, indent=1))
        print(f"records: {args.json}")
    return bench_check.report(records, table) if check else 0


BENCHES["tcp_sizes"] = bench_tcp.bench_tcp_sizes


def bench_coap_vs_tcp() -> list[Record]:
    """The TCP paper's 9.4 / Figure 9: TCP against CoAP under injected loss
    (python/wren/experiments/coap_vs_tcp.py; plot and JSON in out/)."""
    from .experiments import coap_vs_tcp
    return coap_vs_tcp.bench()


BENCHES["coap_vs_tcp"] = bench_coap_vs_tcp


def bench_tsch_paper() -> list[Record]:
    """The 6TiSCH paper's 30-node experiment (Table I, Figs. 4-5) on TSCH and
    on the CSMA MAC with and without low-power listening
    (python/wren/experiments/tsch_paper.py; table, plot and JSON in
    out/tsch_paper/): tsch_pdr_30_from_join (the primary window), _steady,
    _from_switch_on, tsch_duty_cycle_30_pct (all 30 nodes) and the CSMA
    variants' csma*_pdr_30, csma*_duty_cycle_30_pct."""
    from .experiments import tsch_paper
    return tsch_paper.bench()


BENCHES["tsch_paper"] = bench_tsch_paper


def bench_zep_rxdone() -> list[Record]:
    """Issue 23's ZEP records against an RX-done peer through the hub
    (python/wren/experiments/zep_rxdone.py): zep_ack_delay_median_us,
    zep_ack_within_864us_ratio, zep_1000B_echo_loss_pct."""
    from .experiments import zep_rxdone
    return zep_rxdone.bench()


BENCHES["zep_rxdone"] = bench_zep_rxdone


def bench_hetero() -> list[Record]:
    """The RIOT paper's Figure 1 (python/wren/reproduce/hetero.py): loss of
    the LoRa and the 802.15.4 sensor at 5 packets/s through the router
    across three technologies, and the LoRa sensor's saturation rate:
    hetero_loss_5pps_lora_pct, hetero_loss_5pps_154_pct,
    hetero_lora_saturation_pps."""
    from .reproduce import hetero
    return hetero.bench()


BENCHES["hetero"] = bench_hetero


RPL_MESH = dict(n=50, seed=50, width=90.0, reach=18.0)  # 123 links, PRR 0.8..1.0


def bench_rpl_mesh_50() -> list[Record]:
    """Issue 13's 50-node experiment in both modes (python/wren/rplmesh.py):
    a random lossy topology, formation, every node pings the root and the
    root every node, UDP from every node to the root at one datagram a
    minute for a simulated hour (flows 1.2 s apart), the busiest router
    switched off half-way. Records without a suffix are storing mode (MOP 2),
    `_nonstoring` ones non-storing mode (MOP 1)."""
    from . import rplmesh
    n, seed = RPL_MESH["n"], RPL_MESH["seed"]
    links = rplmesh.random_mesh(int(n), int(seed), width=RPL_MESH["width"],
                                reach=RPL_MESH["reach"])
    print(f"  {n} nodes, random geometric graph (seed {seed}, {RPL_MESH['width']:g} m square, "
          f"links under {RPL_MESH['reach']:g} m: {len(links)} links, PRR 0.8..1.0 each), "
          f"CSMA-CA, OF0; root: node 0")
    recs: list[Record] = []
    for mode, sfx in (("storing", ""), ("non-storing", "_nonstoring")):
        r = rplmesh.mesh_experiment(int(n), links, mode, int(seed), log=print)
        what = f"{mode} mode (MOP {2 if mode == 'storing' else 1})"
        same = (f"{n} nodes, random lossy topology ({len(links)} links, PRR 0.8..1.0, seed "
                f"{seed}), {what}; records without a suffix are storing mode, _nonstoring "
                f"ones non-storing")
        formed = r.formed_s if r.formed_s is not None else 600.0
        recs.append(_record(f"rpl_formation_50_s{sfx}", formed, "s (simulated)", "lower", None,
                            f"simulated seconds until every node has a route upward and the "
                            f"root one to every node{'' if r.formed_s is not None else ' (NOT formed within 600 s)'}; "
                            f"{same}"))
        if r.formed_s is None:
            continue
        recs.append(_record(f"rpl_pdr_50_1ppm{sfx}", round(r.pdr, 4), "ratio", "higher", 0.99,
                            f"UDP ({rplmesh.UDP_SIZE} B) from every node to the root at 1 "
                            f"packet/min for a simulated hour, flows 1.2 s apart, the busiest "
                            f"router (node {r.dead}) switched off at 30 min and its datagrams "
                            f"counted until then; {r.received}/{r.sent}; {same}"))
        recs.append(_record(f"rpl_control_bytes_per_node_hour{sfx}",
                            round(r.control_bytes / n / (r.hour_s / 3600)), "bytes", "lower",
                            None, f"bytes of RPL messages (ICMPv6 header and body: DIS, DIO, "
                                  f"DAO, DAO-ACK; {r.control_msgs} messages) sent per node in "
                                  f"the UDP hour, the switch-off included; link-layer and "
                                  f"IPv6 headers not counted; {same}"))
        rec = r.recovery_max_s
        recs.append(_record(f"rpl_parent_loss_recovery_50_s{sfx}",
                            round(rec, 1) if rec is not None else 120.0, "s (simulated)", "lower",
                            None, f"the busiest router (node {r.dead}, {len(r.orphans)} "
                                  f"children that can still reach the root) switched off: the "
                                  f"longest time until a child's echo to the root (one a second "
                                  f"from the switch-off) is answered"
                                  f"{'' if rec is not None else ' (one NEVER answered in 120 s)'}"
                                  f"; {same}"))
        ans = r.ping_up[0] + r.ping_down[0]
        sent = r.ping_up[1] + r.ping_down[1]
        recs.append(_record(f"rpl_ping_50_answered{sfx}", round(ans / sent, 4) if sent else 0,
                            "ratio", "higher", None,
                            f"echoes answered: every node pings the root 3 times (one node "
                            f"every 3 s) {r.ping_up[0]}/{r.ping_up[1]}, then the root pings "
                            f"every node twice {r.ping_down[0]}/{r.ping_down[1]}; {same}"))
    return recs


def bench_rpl_grid_1000() -> list[Record]:
    """A 1,000-node grid (25 x 40, 10 m apart, each node hearing its 8
    neighbours) forms a DODAG from the root at its centre, in storing mode
    (records without a suffix; every router has a table of 999 routes) and
    in non-storing mode (`_nonstoring`: the root's table of 1,000 source
    routes, the routers none)."""
    from . import rplmesh
    recs: list[Record] = []
    for mode, sfx, limit in (("storing", "", 1200.0), ("non-storing", "_nonstoring", 2400.0)):
        r = rplmesh.grid_formation(25, 40, spacing=10.0, range_m=15.0, prr=1.0, limit=limit,
                                   mode=mode)
        formed = r["formed_s"]
        state = (f"formed in {formed:.0f} s simulated" if formed is not None else
                 f"NOT formed within {limit:.0f} s: the root holds {r['root_routes']} of 999 "
                 f"routes")
        print(f"  1,000-node grid, {mode}, root {r['root']} at the centre: {state} "
              f"({r['wall_s']:.1f} s wall, {r['events']} events); {r['bytes_per_node']} bytes "
              f"per simulated node")
        what = (f"1,000 nodes in a 25 x 40 grid 10 m apart, range 15 m (8 neighbours), PRR "
                f"1.0, CSMA-CA, OF0, root at the centre, {mode} mode (records without a suffix "
                f"are storing mode, _nonstoring ones non-storing)")
        tables = ("every router's table of 999 routes (32 bytes each) included" if
                  mode == "storing" else "the root's table of 1,000 routes averaged in")
        recs += [
            _record(f"rpl_formation_1000_grid_s{sfx}", formed if formed is not None else limit,
                    "s (simulated)", "lower", None,
                    f"simulated seconds until every node has a route upward and the root one "
                    f"to every node ({state}); {what}"),
            _record(f"rpl_formation_1000_grid_wall_s{sfx}", round(r["wall_s"], 1), "s (wall)",
                    "lower", None,
                    f"wall-clock seconds the simulator took for that (machine-dependent: "
                    f"{platform.machine()}, shared with other work); {what}"),
            _record(f"rpl_1000_grid_bytes_per_node{sfx}", r["bytes_per_node"], "bytes", "lower",
                    None, f"simulator memory per node (6 KiB packet buffer included; {tables}); "
                          f"{what}"),
        ]
    return recs


BENCHES["rpl_mesh_50"] = bench_rpl_mesh_50
BENCHES["rpl_grid_1000"] = bench_rpl_grid_1000


def bench_ndn() -> list[Record]:
    """The NDN stack on the Cortex-M3 beside the IP stack (issue 26; the RIOT
    paper's Figs. 14-15): the whole_node_ndn image's ROM and RAM, and its
    instructions per request at the shortest name over wren's IP path's
    (wren.ndn_m3)."""
    import shutil
    from . import ndn_m3
    n, ip = ndn_m3.image(), ndn_m3.image(ndn_m3.IP_IMAGE)
    same = ("the same runtime, stand-in 802.15.4 device, 6,144-byte packet buffer and heap as "
            f"whole_node_reflector; its stack {n['stack']:,} bytes ({ip['stack']:,} there)")
    print(f"  whole_node_ndn: ROM {n['rom']}, RAM {n['ram_node']} (application buffers "
          f"{n['app_buffers']} and the neighbour the image plays {n['peer']} apart; the ndn "
          f"module's state {n['ndn_state']}); whole_node_reflector: ROM {ip['rom']}, RAM "
          f"{ip['ram_no_app']}")
    recs = [
        _record("rom_ndn_bytes", n["rom"], "bytes", "lower", ip["rom"],
                f"the NDN stack (forwarder, faces, NDNLPv2) as a whole Cortex-M3 image with a "
                f"consumer and a producer on 802.15.4 (runtime/cortexm/main_ndn.c), {same}; "
                f"target: the IP whole image (whole_node_reflector), the RIOT paper's Fig. 14 "
                f"showing CCN-lite below GNRC"),
        _record("ram_ndn_bytes", n["ram_node"], "bytes", "lower", ip["ram_no_app"],
                f"RAM of that image (.data + .bss + heap + stack) without the application's "
                f"buffers and the neighbour it plays; the ndn module's own state is "
                f"{n['ndn_state']} bytes (RIOT paper Fig. 14: CCN-lite 'consumes only 4 kB "
                f"RAM'); target: the IP whole image's RAM"),
    ]
    if not shutil.which("qemu-system-arm"):
        print("  qemu-system-arm not installed: the cost ratio skipped")
        return recs
    ratio, d = ndn_m3.cost_ratio_shortest()
    print(f"  {d['name_len']}-octet Name: NDN {d['sender']:.0f} (Interest out) + "
          f"{d['receiver']:.0f} (Interest in to Data out) Cortex-M3 instructions, IP "
          f"{d['ip']:.0f} ({d['ip_payload']}-byte datagram out and in): {ratio:.2f}")
    recs.append(_record(
        "ndn_ip_cost_ratio_shortest_name", round(ratio, 3), "ratio", "lower", 2.0,
        f"Cortex-M3 instructions under qemu (every guest instruction traced): NDN's Interest "
        f"out at the sender plus Interest in to Data out at the receiver, {d['name_len']}-octet "
        f"Name (whole_node_ndn), over wren's IP path for a datagram of the Interest's size out "
        f"and in (wren_udp_pipe.elf, {d['ip_payload']} bytes); the RIOT paper's Fig. 15: "
        f"'Even for very short names, CCN-lite consumes more than twice as many CPU cycles "
        f"than GNRC' (target 2)"))
    return recs


BENCHES["ndn"] = bench_ndn


def _scale(name: str) -> Callable[[], list[Record]]:
    """Issue 25's records of the simulator at scale (python/wren/bench_scale.py,
    which imports this module: imported when run)."""
    def run() -> list[Record]:
        from . import bench_scale
        return bench_scale.BENCHES_SCALE[name]()
    return run


for _name in ("sim_scaling", "sim_speed_100k_idle", "rpl_formation_10k"):
    BENCHES[_name] = _scale(_name)
