"""The figures made of the stack's CPU time per packet: RIOT Figs. 4, 5, 6
and 9, the German paper's Abb. 2 and 3."""
import platform
import subprocess

from .. import paths
from .core import (CPU_MODEL, Outcome, Panel, Row, Series, _mhz, _prefetch_udp, _radio, _sizes,
                   _udp, _us, paper_number, pv)



def riot_fig4(quick: bool) -> Outcome:
    sizes = _sizes(quick)
    _prefetch_udp(("loopback", "pipe"), sizes)
    mhz = _mhz()
    loop = [s * 8 * mhz / _udp("loopback", s)[0] for s in sizes]   # Mbit/s
    pipe = [s * 8 * mhz / _udp("pipe", s)[0] for s in sizes]
    bl = max(range(len(sizes)), key=lambda i: loop[i])
    bp = max(range(len(sizes)), key=lambda i: pipe[i])
    paper = pv("riot.fig4.loopback_mbps")
    return Outcome(
        rows=[Row(f"IPv6 loopback: UDP goodput, best payload ({sizes[bl]} B)", "Mbit/s",
                  loop[bl], paper),
              Row(f"L2 reflector (6LoWPAN, 802.15.4 link, two nodes on a wire): best payload "
                  f"({sizes[bp]} B)", "Mbit/s", pipe[bp], pv("riot.fig4.sixlo_text"))],
        panels=[Panel("UDP goodput through the stack and back (bidirectional traversal)",
                      "UDP payload (bytes)", "goodput (Mbit/s)",
                      [Series("wren: IPv6 loopback", sizes, loop, "o-"),
                       Series("wren: L2 reflector (6LoWPAN)", sizes, pipe, "s-")],
                      hlines=[(paper.value or 0, "paper: ~10 Mbit/s on the IPv6 layer")])],
        notes=[f"wren: bench_udp loopback|pipe under callgrind (bench.udp_per_datagram), one "
               f"datagram sent and received; time by the CPU model: {CPU_MODEL}.",
               "The paper gives no per-payload numbers for Figure 4, only the levels quoted."])


def _layers_us(size: int) -> dict[str, float]:
    """Per-layer time of one direction (half the send + receive count of the
    two nodes on a wire, as the paper averages over directions)."""
    _, lay = _udp("pipe", size)
    half = {k: _us(v) / 2 for k, v in lay.items()}
    return {"6Lo": half["6lowpan"],
            "IPv6": half["ipv6"] + half["icmpv6"],
            "UDP": half["udp"] + half["checksum"] + half["sock"],
            "rest": sum(v for k, v in half.items()
                        if k not in ("6lowpan", "ipv6", "icmpv6", "udp", "checksum", "sock"))}


def riot_fig5(quick: bool) -> Outcome:
    sizes = _sizes(quick)
    _prefetch_udp(("pipe",), sizes)
    lay = {s: _layers_us(s) for s in sizes}
    k = lay[1000]
    p6, pip, pudp = (paper_number(f"riot.fig5.{x}_us") for x in ("sixlo", "ipv6", "udp"))
    rows = [Row("6LoWPAN: split or reassemble 1,000 bytes", "us", k["6Lo"],
                pv("riot.fig5.sixlo_us")),
            Row("IPv6, 1,000-byte packet", "us", k["IPv6"], pv("riot.fig5.ipv6_us")),
            Row("UDP (socket, UDP, checksum), 1,000-byte packet", "us", k["UDP"],
                pv("riot.fig5.udp_us")),
            Row("UDP layer's packet rate, 1,000 bytes", "packets/s", 1e6 / k["UDP"],
                pv("riot.fig5.udp_pps")),
            Row("the rest of the path (802.15.4 link + MAC, netif, netapi, pktbuf), 1,000 B",
                "us", k["rest"], None,
                note="GNRC charges its packet buffer and IPC to each layer's thread")]
    if not quick:
        # how far the x86-64 count stands from a Cortex-M3's (qemu traces the
        # udp image's 20-byte loopback datagram instruction by instruction)
        from .. import qemu_bench
        m3 = qemu_bench.run()
        if m3 is not None:
            rows.append(Row("CPU model check: Cortex-M3 / x86-64 instructions, 20-byte UDP "
                            "datagram over the loopback (qemu mps2-an385 / callgrind)", "ratio",
                            m3[0] / _udp("loopback", 20)[0], None,
                            note="the CPU model takes this ratio as 1"))
    cum = [("UDP + IP + 6Lo", lambda d: d["UDP"] + d["IPv6"] + d["6Lo"], "o-"),
           ("IP + 6Lo", lambda d: d["IPv6"] + d["6Lo"], "s-"),
           ("6Lo", lambda d: d["6Lo"], "^-")]
    a = Panel("(a) processing time per packet, cumulative", "protocol payload (bytes)",
              "processing time (us)",
              [Series(f"wren: {n}", sizes, [f(lay[s]) for s in sizes], st) for n, f, st in cum]
              + [Series("wren: whole path incl. link, netif, netapi, pktbuf", sizes,
                        [sum(lay[s].values()) for s in sizes], "k:")]
              + [Series("paper at 1,000 B: UDP + IP + 6Lo", [1000], [pudp + pip + p6], "rx",
                        True),
                 Series("paper at 1,000 B: IP + 6Lo", [1000], [pip + p6], "r+", True),
                 Series("paper at 1,000 B: 6Lo", [1000], [p6], "r^", True)])
    b = Panel("(b) packet processing rate per layer", "protocol payload (bytes)",
              "packets/s", [Series(f"wren: {n}", sizes, [1e6 / lay[s][n] for s in sizes], st)
                            for n, st in (("UDP", "o-"), ("IPv6", "s-"), ("6Lo", "^-"))]
              + [Series("paper: UDP at 1,000 B", [1000], [paper_number("riot.fig5.udp_pps")],
                        "rx", True)], logy=True)
    return Outcome(rows=rows, panels=[a, b], notes=[
        "wren: bench_udp pipe (two nodes on a wire) under callgrind, split by source file "
        "(bench.LAYERS); one direction is half of the send + receive count (the paper averages "
        f"over directions). {CPU_MODEL}."])


def riot_fig6(quick: bool) -> Outcome:
    n = 50000 if quick else 200000
    out = subprocess.run([str(paths.BUILD / "bench_udp"), "loopback", "20", str(n)],
                         capture_output=True, text=True, check=True).stdout.split()
    got, secs = int(out[3]), float(out[4])
    pps = got / secs
    return Outcome(
        rows=[Row("UDP over the IPv6 loopback on a PC, 20 B, send + receive", "packets/s", pps,
                  pv("riot.fig6.native_pps"),
                  note=f"this machine ({platform.machine()}), wall clock, shared: a ratio of "
                       f"machines as much as of stacks"),
              Row("the same against Linux's own stack (paper)", "packets/s", pps,
                  pv("riot.fig6.linux_pps"))],
        panels=[Panel("packets per second on a PC", "", "packets/s",
                      [Series("wren (this machine)", ["wren"], [pps], "C0"),
                       Series("paper", ["RIOT native", "Linux"],
                              [paper_number("riot.fig6.native_pps"),
                               paper_number("riot.fig6.linux_pps")], "C3", True)],
                      bars=True)],
        notes=[f"wren: bench_udp loopback 20 {n}, wall-clock time of {got} datagrams; the paper "
               "used an Intel i5-3570 at 3.4 GHz."])


def riot_fig9(quick: bool) -> Outcome:
    sizes = [100, 500, 1000] if quick else [20, 100, 200, 500, 1000, 1232]
    secs = 5 if quick else 10
    _prefetch_udp(("pipe",), sizes)
    # per datagram: its time over the radio (CSMA-CA + ACKs, the sender's
    # goodput) against one direction's stack time (half of send + receive)
    radio_us = [s * 8 / _radio("mac", s, secs)[0] * 1000 for s in sizes]
    stack_us = [_us(_udp("pipe", s)[0]) / 2 for s in sizes]
    slower = [r / t for r, t in zip(radio_us, stack_us)]
    i = sizes.index(1000)
    return Outcome(
        rows=[Row("time over the radio / the stack's time, 1,000-byte datagram", "x",
                  slower[i], pv("riot.fig9.slower"))],
        panels=[Panel("radio time per datagram over stack time", "UDP payload (bytes)",
                      "times slower", [Series("wren", sizes, slower, "o-")],
                      hlines=[(paper_number("riot.fig9.slower"), "paper: ~50 times")])],
        notes=[f"wren: the sender's goodput with CSMA-CA and ACKs (bench_goodput mac) against "
               f"one direction of bench_udp pipe under callgrind ({CPU_MODEL}). The paper's "
               "energy per packet is not modelled here (no MCU current in the profile)."])



def de_fig2(quick: bool) -> Outcome:
    sizes = _sizes(quick)
    _prefetch_udp(("pipe",), sizes)
    # one direction: half of the send + receive count of two nodes on a wire
    kbs = [s / (_us(_udp("pipe", s)[0]) / 2) * 1e6 / 1000 for s in sizes]   # kB/s
    i = sizes.index(1000)
    return Outcome(
        rows=[Row("UDP + IPv6 + 6LoWPAN, 1,000-byte payload, one direction", "kB/s", kbs[i],
                  pv("de.fig2.kbytes_per_s"))],
        panels=[Panel("throughput of the stack without the radio", "payload (bytes)",
                      "throughput (kB/s)",
                      [Series("wren: one direction (send + receive / 2)", sizes, kbs, "o-"),
                       Series("paper: sender and receiver, 1,000 B", [1000],
                              [paper_number("de.fig2.kbytes_per_s")], "rx", True)])],
        notes=["wren: bench_udp pipe under callgrind; its path includes the 802.15.4 link layer "
               "and MAC (the paper left out the radio and its driver); one direction is half "
               f"the count of one datagram sent and received. {CPU_MODEL}. kB = 1,000 bytes."])


def de_fig3(quick: bool) -> Outcome:
    watts = paper_number("de.power_w")
    out = {}
    for s in (20, 1000):
        t_us = _us(_udp("pipe", s)[0]) / 2
        out[s] = watts * t_us / s            # uJ per payload byte (W x us = uJ)
    return Outcome(
        rows=[Row("energy per payload byte, 1,000-byte packets, one direction", "uJ/byte",
                  out[1000], pv("de.fig3.uj_per_byte")),
              Row("energy per payload byte, 20-byte packets, one direction", "uJ/byte",
                  out[20], None, note="the paper's figure for 20 bytes is only in its plot")],
        panels=[Panel("energy per payload byte, software only", "", "uJ per byte",
                      [Series("wren", ["20 B", "1000 B"], [out[20], out[1000]], "C0"),
                       Series("paper (text, 1,000 B)", ["1000 B"],
                              [paper_number("de.fig3.uj_per_byte")], "C3", True)],
                      bars=True, logy=True)],
        notes=[f"wren: one direction's processing time ({CPU_MODEL}) times the paper's "
               f"measured {watts} W while processing (the paper: energy follows computing "
               "time). The ratio is therefore one of processing times."])
