"""The figures made of the stack's CPU time per packet: RIOT Figs. 4, 5, 6
and 9, the German paper's Abb. 2 and 3.

Every CPU time but Fig. 6's is Cortex-M3 instructions counted under qemu at
each payload size (wren.qemu_bench.udp: the udp and udp_pipe images) turned
into time by the project's one cycle model (wren.cpu: CPI and its band at
72 MHz, CPU_MODEL). Fig. 6 is about a PC: wall-clock time on this machine.
"""
import platform
import subprocess

from .. import cpu, paths
from ..qemu_bench import LAYER_RULE
from .core import (CPU_MODEL, Outcome, Panel, Row, Series, _m3, _radio, _sizes, _udp,
                   _us, _x86, paper_number, pv)

MODEL = cpu.model_text()
LOOP = ("Cortex-M3 instructions under qemu (wren_udp.elf): sock_udp send + receive of one "
        "datagram over the IPv6 loopback")
PIPE = ("Cortex-M3 instructions under qemu (wren_udp_pipe.elf): one datagram from node A's "
        "socket through UDP, IPv6, 6LoWPAN, 802.15.4 and a wire to node B's socket")
TIMED = "the paper timed RIOT on the iotlab-m3 itself; wren's time is modelled from the count"


def _goodput(mode: str, sizes: list[int]) -> tuple[list[float], tuple[list[float], list[float]]]:
    """Mbit/s through the stack and back (payload bits / send + receive time)."""
    n = [_udp(mode, s)[0] for s in sizes]
    ys = [s * 8 / _us(k) for s, k in zip(sizes, n)]
    lo = [s * 8 / _us(k, cpu.CPI_HIGH) for s, k in zip(sizes, n)]
    hi = [s * 8 / _us(k, cpu.CPI_LOW) for s, k in zip(sizes, n)]
    return ys, (lo, hi)


def _ratio_rows() -> list[Row]:
    """Cortex-M3 / x86-64 instructions at 1,000 bytes (information)."""
    rows = []
    for mode, what in (("loopback", "IPv6 loopback"), ("pipe", "two nodes on a wire")):
        try:
            x86 = _x86(mode, 1000)
        except Exception:   # noqa: BLE001  (no valgrind: the row says so)
            x86 = None
        rows.append(Row(f"Cortex-M3 / x86-64 instructions, 1,000-byte datagram, {what}",
                        "ratio", _udp(mode, 1000)[0] / x86 if x86 else None, None,
                        note="" if x86 else "valgrind not installed",
                        measured="qemu mps2-an385 count / callgrind count of bench_udp "
                                 f"{mode} 1000",
                        modelled="", differs="information: why x86 counts are not used",
                        kind="label"))
    return rows


def riot_fig4(quick: bool) -> Outcome:
    sizes = _sizes(quick)
    loop, lband = _goodput("loopback", sizes)
    pipe, pband = _goodput("pipe", sizes)
    bl = max(range(len(sizes)), key=lambda i: loop[i])
    bp = max(range(len(sizes)), key=lambda i: pipe[i])
    paper = pv("riot.fig4.loopback_mbps")
    band = f"CPI band {cpu.CPI_LOW:g}..{cpu.CPI_HIGH:g}"
    rows = [Row(f"IPv6 loopback: UDP goodput, best payload ({sizes[bl]} B)", "Mbit/s",
                loop[bl], paper,
                note=f"{band}: {lband[0][bl]:.1f}..{lband[1][bl]:.1f} Mbit/s",
                measured=LOOP + ", per payload size", modelled=MODEL, differs=TIMED),
            Row(f"L2 reflector (6LoWPAN, 802.15.4 link, two nodes on a wire): best payload "
                f"({sizes[bp]} B)", "Mbit/s", pipe[bp], pv("riot.fig4.sixlo_text"),
                note=f"{band}: {pband[0][bp]:.2f}..{pband[1][bp]:.2f} Mbit/s",
                measured=PIPE + ", per payload size", modelled=MODEL,
                differs="the paper's reflector echoed frames back into one node; wren's two "
                        "nodes do the same send and receive work; " + TIMED)]
    rows += _ratio_rows()
    return Outcome(
        rows=rows,
        panels=[Panel("UDP goodput through the stack and back (bidirectional traversal)",
                      "UDP payload (bytes)", "goodput (Mbit/s)",
                      [Series("wren: IPv6 loopback", sizes, loop, "o-", band=lband),
                       Series("wren: L2 reflector (6LoWPAN)", sizes, pipe, "s-", band=pband)],
                      hlines=[(paper.value or 0, "paper: ~10 Mbit/s on the IPv6 layer")])],
        notes=[f"wren: the udp and udp_pipe images under qemu, one datagram sent and received "
               f"per payload size; time by the CPU model: {CPU_MODEL}. Shaded: the CPI band.",
               "The paper gives no per-payload numbers for Figure 4, only the levels quoted."])


# ---- Fig. 5: per layer --------------------------------------------------------

#: exclusive columns: the layer's own code (size-report modules)
_EXCLUSIVE = {"6Lo": ("6LoWPAN",), "IPv6": ("IPv6", "ICMPv6", "6LoWPAN-ND (NIB)"),
              "UDP": ("UDP", "sock")}


def _layers_us(size: int, cpi: float = cpu.CPI) -> dict[str, float]:
    """Per-layer time of one direction, charged inclusively (LAYER_RULE):
    half the send + receive count of the two nodes on a wire, as the paper
    averages over directions. Keys 6Lo, IPv6, UDP, link, rest; they sum to
    the path's total."""
    r = _m3("pipe", size)
    return {k: _us(v, cpi) / 2 for k, v in r.layers.items()}


def _exclusive_us(size: int) -> dict[str, float]:
    """Each layer's own code only (checksum apart), one direction."""
    r = _m3("pipe", size)
    out = {k: sum(_us(r.modules.get(m, 0)) for m in mods) / 2 for k, mods in _EXCLUSIVE.items()}
    out["checksum"] = _us(r.functions.get("wren_inet_csum_update", 0)
                          + r.functions.get("wren_inet_csum_pseudo", 0)
                          + r.functions.get("wren_inet_csum_final", 0)) / 2
    return out


def _fig5_rows(k: dict[str, float], ex: dict[str, float]) -> list[Row]:
    rule = ("inclusive: each layer charged with what it calls (pktbuf, netapi dispatch, "
            "checksum) and the scheduling that starts it, as GNRC's per-thread timing")
    diff = ("the paper timed GNRC's threads on the iotlab-m3; wren's layers are functions on "
            "one stack, charged by the call stack rebuilt from the trace")
    rows = []
    for key, name, pkey in (("6Lo", "6LoWPAN: split or reassemble 1,000 bytes", "sixlo"),
                            ("IPv6", "IPv6, 1,000-byte packet", "ipv6"),
                            ("UDP", "UDP (socket, UDP, checksum), 1,000-byte packet", "udp")):
        rows.append(Row(name + " (inclusive)", "us", k[key], pv(f"riot.fig5.{pkey}_us"),
                        note=f"exclusive (own code only): {ex[key]:.0f} us; CPI band "
                             f"{cpu.CPI_LOW:g}..{cpu.CPI_HIGH:g}: "
                             f"{k[key] * cpu.CPI_LOW / cpu.CPI:.0f}.."
                             f"{k[key] * cpu.CPI_HIGH / cpu.CPI:.0f} us",
                        measured=PIPE + ", 1,000 B, one direction (half of send + receive)",
                        modelled=MODEL + "; " + rule, differs=diff))
    rows.append(Row("UDP layer's packet rate, 1,000 bytes (inclusive)", "packets/s",
                    1e6 / k["UDP"], pv("riot.fig5.udp_pps"), measured=PIPE + ", 1,000 B",
                    modelled=MODEL + "; " + rule, differs=diff))
    for key, name in (("6Lo", "6LoWPAN"), ("IPv6", "IPv6 (+ ICMPv6, NIB)"),
                      ("UDP", "UDP (+ sock)")):
        rows.append(Row(f"{name}, exclusive: its own code only, 1,000 B", "us", ex[key], None,
                        measured=PIPE + ", by module (linker map)", modelled=MODEL,
                        differs="not GNRC's per-thread rule: shown beside the inclusive rows",
                        kind="label"))
    rows.append(Row("802.15.4 link layer, MAC, netif and device, inclusive, 1,000 B", "us",
                    k["link"], None,
                    note="GNRC's netif thread and driver: the paper's Fig. 5 leaves them out",
                    measured=PIPE + ", 1,000 B", modelled=MODEL + "; " + rule,
                    differs="not in the paper's figure (it left out the radio driver)",
                    kind="label"))
    return rows


def riot_fig5(quick: bool) -> Outcome:
    sizes = _sizes(quick)
    lay = {s: _layers_us(s) for s in sizes}
    ex = {s: _exclusive_us(s) for s in sizes}
    p6, pip, pudp = (paper_number(f"riot.fig5.{x}_us") for x in ("sixlo", "ipv6", "udp"))
    cum = [("UDP + IP + 6Lo", ("UDP", "IPv6", "6Lo"), "o-"), ("IP + 6Lo", ("IPv6", "6Lo"), "s-"),
           ("6Lo", ("6Lo",), "^-")]

    def curve(keys: tuple[str, ...], cpi: float) -> list[float]:
        return [sum(_layers_us(s, cpi)[k] for k in keys) for s in sizes]
    a = Panel("(a) processing time per packet, cumulative (inclusive)", "protocol payload (bytes)",
              "processing time (us)",
              [Series(f"wren: {n}", sizes, curve(keys, cpu.CPI), st,
                      band=(curve(keys, cpu.CPI_LOW), curve(keys, cpu.CPI_HIGH)))
               for n, keys, st in cum]
              + [Series("wren: UDP + IP + 6Lo, exclusive (own code only)", sizes,
                        [ex[s]["UDP"] + ex[s]["IPv6"] + ex[s]["6Lo"] for s in sizes], "k:"),
                 Series("wren: + link, MAC, netif (the whole path)", sizes,
                        [sum(lay[s].values()) for s in sizes], "k--")]
              + [Series("paper at 1,000 B: UDP + IP + 6Lo", [1000], [pudp + pip + p6], "rx",
                        True),
                 Series("paper at 1,000 B: IP + 6Lo", [1000], [pip + p6], "r+", True),
                 Series("paper at 1,000 B: 6Lo", [1000], [p6], "r^", True)])
    b = Panel("(b) packet processing rate per layer (inclusive)", "protocol payload (bytes)",
              "packets/s", [Series(f"wren: {n}", sizes, [1e6 / lay[s][n] for s in sizes], st)
                            for n, st in (("UDP", "o-"), ("IPv6", "s-"), ("6Lo", "^-"))]
              + [Series("paper: UDP at 1,000 B", [1000], [paper_number("riot.fig5.udp_pps")],
                        "rx", True)], logy=True)
    return Outcome(rows=_fig5_rows(lay[1000], ex[1000]), panels=[a, b], notes=[
        "wren: the udp_pipe image (two nodes on a wire) under qemu; one direction is half of "
        "the send + receive count (the paper averages over directions). Layers charged "
        f"inclusively: {LAYER_RULE}. {CPU_MODEL}. Shaded: the CPI band."])


def riot_fig6(quick: bool) -> Outcome:
    n = 50000 if quick else 200000
    out = subprocess.run([str(paths.BUILD / "bench_udp"), "loopback", "20", str(n)],
                         capture_output=True, text=True, check=True).stdout.split()
    got, secs = int(out[3]), float(out[4])
    pps = got / secs
    meas = f"wall-clock time of bench_udp loopback 20 {n} on this PC ({platform.machine()})"
    return Outcome(
        rows=[Row("UDP over the IPv6 loopback on a PC, 20 B, send + receive", "packets/s", pps,
                  pv("riot.fig6.native_pps"),
                  note=f"this machine ({platform.machine()}), wall clock, shared: a ratio of "
                       f"machines as much as of stacks",
                  measured=meas, modelled="",
                  differs="the paper ran RIOT native on an i5-3570 at 3.4 GHz; this PC is "
                          "another, shared with other jobs"),
              Row("the same against Linux's own stack (paper)", "packets/s", pps,
                  pv("riot.fig6.linux_pps"), measured=meas, modelled="",
                  differs="Linux was measured on the paper's PC, wren on this one",
                  kind="label")],
        panels=[Panel("packets per second on a PC", "", "packets/s",
                      [Series("wren (this machine)", ["wren"], [pps], "C0"),
                       Series("paper", ["RIOT native", "Linux"],
                              [paper_number("riot.fig6.native_pps"),
                               paper_number("riot.fig6.linux_pps")], "C3", True)],
                      bars=True)],
        notes=[f"wren: bench_udp loopback 20 {n}, wall-clock time of {got} datagrams; the paper "
               "used an Intel i5-3570 at 3.4 GHz. The one figure about a PC: no cycle model."])


def riot_fig9(quick: bool) -> Outcome:
    sizes = [100, 500, 1000] if quick else [20, 100, 200, 500, 1000, 1232]
    secs = 5 if quick else 10
    # per datagram: its time over the radio (CSMA-CA + ACKs, the sender's
    # goodput) against one direction's stack time (half of send + receive)
    radio_us = [s * 8 / _radio("mac", s, secs)[0] * 1000 for s in sizes]
    n = [_udp("pipe", s)[0] / 2 for s in sizes]
    slower = [r / _us(k) for r, k in zip(radio_us, n)]
    lo = [r / _us(k, cpu.CPI_HIGH) for r, k in zip(radio_us, n)]
    hi = [r / _us(k, cpu.CPI_LOW) for r, k in zip(radio_us, n)]
    i = sizes.index(1000)
    return Outcome(
        rows=[Row("time over the radio / the stack's time, 1,000-byte datagram", "x",
                  slower[i], pv("riot.fig9.slower"),
                  note=f"CPI band {cpu.CPI_LOW:g}..{cpu.CPI_HIGH:g}: {lo[i]:.1f}..{hi[i]:.1f}",
                  measured=PIPE + " (one direction); the radio's time simulated (bench_goodput "
                                  "mac: CSMA-CA, ACKs, 250 kbit/s)",
                  modelled=MODEL + "; the radio's airtime and MAC by the simulator",
                  differs="the paper measured both on the iotlab-m3 with its AT86RF231")],
        panels=[Panel("radio time per datagram over stack time", "UDP payload (bytes)",
                      "times slower", [Series("wren", sizes, slower, "o-", band=(lo, hi))],
                      hlines=[(paper_number("riot.fig9.slower"), "paper: ~50 times")])],
        notes=[f"wren: the sender's goodput with CSMA-CA and ACKs (bench_goodput mac) against "
               f"one direction of the udp_pipe image under qemu ({CPU_MODEL}). The paper's "
               "energy per packet is not modelled here (no MCU current in the profile)."])


def de_fig2(quick: bool) -> Outcome:
    sizes = _sizes(quick)
    # one direction: half of the send + receive count of two nodes on a wire
    n = [_udp("pipe", s)[0] / 2 for s in sizes]
    kbs = [s / _us(k) * 1e6 / 1000 for s, k in zip(sizes, n)]   # kB/s
    lo = [s / _us(k, cpu.CPI_HIGH) * 1e3 for s, k in zip(sizes, n)]
    hi = [s / _us(k, cpu.CPI_LOW) * 1e3 for s, k in zip(sizes, n)]
    i = sizes.index(1000)
    return Outcome(
        rows=[Row("UDP + IPv6 + 6LoWPAN, 1,000-byte payload, one direction", "kB/s", kbs[i],
                  pv("de.fig2.kbytes_per_s"),
                  note=f"CPI band {cpu.CPI_LOW:g}..{cpu.CPI_HIGH:g}: {lo[i]:.0f}..{hi[i]:.0f}",
                  measured=PIPE + ", one direction (half of send + receive)", modelled=MODEL,
                  differs="wren's path includes the 802.15.4 link layer and MAC, which the "
                          "paper's measurement left out with the radio and its driver; " + TIMED)],
        panels=[Panel("throughput of the stack without the radio", "payload (bytes)",
                      "throughput (kB/s)",
                      [Series("wren: one direction (send + receive / 2)", sizes, kbs, "o-",
                              band=(lo, hi)),
                       Series("paper: sender and receiver, 1,000 B", [1000],
                              [paper_number("de.fig2.kbytes_per_s")], "rx", True)])],
        notes=["wren: the udp_pipe image under qemu; its path includes the 802.15.4 link layer "
               "and MAC (the paper left out the radio and its driver); one direction is half "
               f"the count of one datagram sent and received. {CPU_MODEL}. kB = 1,000 bytes. "
               "Shaded: the CPI band."])


def de_fig3(quick: bool) -> Outcome:
    watts = paper_number("de.power_w")
    out, lo, hi = {}, {}, {}
    for s in (20, 1000):
        k = _udp("pipe", s)[0] / 2
        out[s] = watts * _us(k) / s            # uJ per payload byte (W x us = uJ)
        lo[s] = watts * _us(k, cpu.CPI_LOW) / s
        hi[s] = watts * _us(k, cpu.CPI_HIGH) / s
    meas = PIPE + ", one direction"
    model = MODEL + f"; power {watts} W while processing (the paper's own measurement)"
    return Outcome(
        rows=[Row("energy per payload byte, 1,000-byte packets, one direction", "uJ/byte",
                  out[1000], pv("de.fig3.uj_per_byte"),
                  note=f"CPI band: {lo[1000]:.3f}..{hi[1000]:.3f} uJ/byte",
                  measured=meas, modelled=model,
                  differs="the paper measured energy on the board; wren's is its modelled time "
                          "x the paper's power, so the ratio is one of processing times"),
              Row("energy per payload byte, 20-byte packets, one direction", "uJ/byte",
                  out[20], None, note="the paper's figure for 20 bytes is only in its plot",
                  measured=meas, modelled=model, differs="no number in the paper's text",
                  kind="label")],
        panels=[Panel("energy per payload byte, software only", "", "uJ per byte",
                      [Series("wren", ["20 B", "1000 B"], [out[20], out[1000]], "C0",
                              band=([lo[20], lo[1000]], [hi[20], hi[1000]])),
                       Series("paper (text, 1,000 B)", ["1000 B"],
                              [paper_number("de.fig3.uj_per_byte")], "C3", True)],
                      bars=True, logy=True)],
        notes=[f"wren: one direction's processing time ({CPU_MODEL}) times the paper's "
               f"measured {watts} W while processing (the paper: energy follows computing "
               "time). The ratio is therefore one of processing times. Error bars: the CPI "
               "band."])
