"""./wren reproduce [NAME|all]: the papers' figures, re-run.

Every figure and table of the papers in ../shared/papers/ that a simulation
or a benchmark can reproduce is a Figure here. Running one measures wren
with the benchmarks' own functions (wren.bench, wren.size, wren.scenario,
wren.energy: nothing is measured twice in two ways) and sets the result
beside the paper's figure. The papers' numbers are the only ones not
measured, and they live in one file, data/paper_values.toml, each with its
page (section, figure or table) and a quote holding it. A figure that
cannot run says why (no TSCH yet, no ICN stack, ...).

Per figure the command writes NAME.png and NAME.svg (the paper's values
drawn beside wren's), and for all of them one report, report.md and
report.html (self-contained: the plots are embedded), plus report.json
(the same rows as data): figure, quantity, paper value, wren value, ratio
and the command that reproduces it.

Where a paper measured CPU time on its iotlab-m3 (Cortex-M3, 72 MHz) and
wren counts instructions (callgrind, x86-64), the time is the count at one
instruction per cycle at the paper's clock: the CPU model is stated beside
every such row (CPU_MODEL).
"""
import argparse
import base64
import datetime
import difflib
import functools
import html
import json
import math
import platform
import re
import subprocess
import time
import tomllib
from collections.abc import Callable, Sequence
from contextlib import nullcontext, redirect_stdout
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import Any

from . import paths
from .errors import UserError

PAPER_VALUES: Path = Path(__file__).resolve().parent / "data" / "paper_values.toml"

CPU_MODEL = ("x86-64 instructions (callgrind) taken as Cortex-M3 instructions at one per cycle "
             "at the iotlab-m3's 72 MHz (the paper's board)")


# ---- the papers' values ---------------------------------------------------

@dataclass(frozen=True)
class PaperValue:
    """One figure a paper gives, with where it stands and a quote holding it."""
    key: str
    paper: str
    file: str
    where: str
    quote: str
    unit: str
    value: float | None = None
    bound: str | None = None      # "upper": the true figure is below; "lower": above
    as_written: str | None = None  # the number as the quote writes it, when not digits

    def text(self, value: float | None = None) -> str:
        v = self.value if value is None else value
        if v is None:
            return f'"{self.quote}"'
        sign = {"upper": "< ", "lower": "> "}.get(self.bound or "", "")
        return f"{sign}{fmt(v)}"

    def cite(self) -> str:
        return f'{self.paper} paper, {self.where}: "{self.quote}"'


def papers_dir() -> Path | None:
    """Where the papers' texts are: WREN_PAPERS, else the first shared/papers
    in the repository's parent folders (../shared/papers beside /work/main);
    None when there is none."""
    import os
    env = os.environ.get("WREN_PAPERS")
    if env:
        return Path(env)
    for p in paths.ROOT.parents:
        if (p / "shared" / "papers").is_dir():
            return p / "shared" / "papers"
    return None


@functools.cache
def _data(path: Path = PAPER_VALUES) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


def papers(path: Path = PAPER_VALUES) -> dict[str, dict[str, str]]:
    return dict(_data(path)["papers"])


def paper_values(path: Path = PAPER_VALUES) -> dict[str, PaperValue]:
    data = _data(path)
    out = {}
    for key, v in data["values"].items():
        paper = data["papers"][v["paper"]]
        out[key] = PaperValue(key=key, paper=v["paper"], file=v.get("file", paper["file"]),
                              where=v["where"], quote=v["quote"], unit=v["unit"],
                              value=float(v["value"]) if "value" in v else None,
                              bound=v.get("bound"), as_written=v.get("as_written"))
    return out


def pv(key: str) -> PaperValue:
    return paper_values()[key]


def paper_number(key: str) -> float:
    v = pv(key).value
    if v is None:
        raise KeyError(f"{key} has no number")
    return v


def normalize(text: str) -> str:
    """Text for quote matching: hyphenation at line ends undone, every run of
    white space one space."""
    text = re.sub(r"(\w)-\n\s*(\w)", r"\1\2", text)
    return re.sub(r"\s+", " ", text).strip()


# ---- what a figure produces -----------------------------------------------

def fmt(v: float | None) -> str:
    if v is None:
        return "-"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    if a >= 0.1:
        return f"{v:.3f}"
    return f"{v:.3g}"


@dataclass
class Row:
    """One quantity: wren's value beside the paper's (None: no number)."""
    quantity: str
    unit: str
    wren: float | None
    paper: PaperValue | None = None
    paper_value: float | None = None  # computed from the paper's (paper.value if None)
    note: str = ""

    @property
    def paper_number(self) -> float | None:
        if self.paper_value is not None:
            return self.paper_value
        return self.paper.value if self.paper else None

    @property
    def ratio(self) -> float | None:
        p = self.paper_number
        if p is None or self.wren is None or p == 0:
            return None
        return self.wren / p

    def wren_text(self) -> str:
        if self.wren is None:
            return f"not measured: {self.note}" if self.note else "-"
        return fmt(self.wren)

    def paper_text(self) -> str:
        if self.paper is None:
            return "-"
        if self.paper.value is None:
            return "(no number) " + self.paper.text()
        return self.paper.text(self.paper_number)


@dataclass
class Series:
    label: str
    xs: Sequence[Any]
    ys: Sequence[float | None]
    style: str = "o-"
    paper: bool = False  # drawn as the paper's (red)


@dataclass
class Panel:
    title: str
    xlabel: str
    ylabel: str
    series: list[Series] = field(default_factory=list)
    hlines: list[tuple[float, str]] = field(default_factory=list)  # the paper's levels
    vlines: list[tuple[float, str]] = field(default_factory=list)  # the paper's positions
    bars: bool = False     # series are bar groups over categorical xs
    logy: bool = False


@dataclass
class Outcome:
    rows: list[Row] = field(default_factory=list)
    panels: list[Panel] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reason: str | None = None   # why it cannot run (then no rows of wren's, no plot)
    failed: bool = False        # its code failed (a bug or a missing tool), not a known gap
    seconds: float = 0.0
    files: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Figure:
    name: str
    paper: str
    title: str
    run: Callable[[bool], Outcome] | None = None
    reason: str | None = None          # set when run is None
    cited: tuple[str, ...] = ()        # paper values shown when it cannot run

    def command(self, quick: bool) -> str:
        return f"./wren reproduce {self.name}" + (" --quick" if quick else "")


# ---- shared measurements (cached within one ./wren reproduce) ----------------

def _sizes(quick: bool) -> list[int]:
    if quick:
        return [20, 100, 200, 500, 1000, 1232]
    return sorted(set(range(48, 1233, 48)) | {20, 1000, 1232})


@functools.cache
def _udp(mode: str, size: int) -> tuple[float, dict[str, float]]:
    """Instructions per datagram and per layer (bench.udp_per_datagram)."""
    from . import bench
    total, layers, _ = bench.udp_per_datagram(mode, size, n=100)
    return total, layers


def _prefetch_udp(modes: Sequence[str], sizes: Sequence[int]) -> None:
    """Run the callgrind measurements a figure needs side by side, one per CPU
    (each is two valgrind processes; _udp caches what they find)."""
    import os
    from concurrent.futures import ThreadPoolExecutor
    todo = [(m, s) for m in modes for s in sizes]
    with ThreadPoolExecutor(max_workers=max(1, min(len(todo), os.cpu_count() or 1))) as ex:
        for _ in ex.map(lambda ms: _udp(*ms), todo):
            pass


def _mhz() -> float:
    return paper_number("riot.cpu_mhz")


def _us(instructions: float) -> float:
    """CPU time on the paper's Cortex-M3 by CPU_MODEL."""
    return instructions / _mhz()


TCP_SEEDS_QUICK = (1,)


@functools.cache
def _tcp(hops: int, proc: int, d: int, mss: int | None, wnd: int | None, seeds: tuple[int, ...],
         prr: float = 1.0) -> dict[str, Any]:
    from . import bench
    return bench.tcp_transfer_mean(hops, proc, retry_delay_ms=d, mss=mss, wnd=wnd, seeds=seeds,
                                   prr=prr)


@functools.cache
def _mss(frames: int, hops: int = 1) -> int:
    from . import bench
    m = bench.tcp_mss_for_frames(frames, hops)
    if m is None:
        raise RuntimeError(f"no MSS fits a segment into {frames} frames")
    return m


def _seeds(quick: bool) -> tuple[int, ...]:
    from . import bench
    return TCP_SEEDS_QUICK if quick else tuple(bench.TCP_SEEDS)


def _seed_note(quick: bool) -> str:
    s = _seeds(quick)
    return f"seed {s[0]}" if len(s) == 1 else f"mean of seeds {s[0]}..{s[-1]}"


# ---- RIOT paper ------------------------------------------------------------

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
        from . import qemu_bench
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


@functools.cache
def _radio(mode: str, size: int, secs: float) -> tuple[float, float]:
    from . import bench
    return bench.goodput_1hop(mode, size, secs)


def riot_fig8(quick: bool) -> Outcome:
    sizes = [100, 500, 1000, 1232] if quick else list(range(48, 1233, 48)) + [1232]
    secs = 5 if quick else 10
    nomac = [_radio("nomac", s, secs) for s in sizes]
    mac = [_radio("mac", s, secs) for s in sizes]
    frac_mac = mac[-1][0] / nomac[-1][1]
    frac_nomac = nomac[-1][0] / nomac[-1][1]
    two_thirds = paper_number("riot.fig8.mac_fraction")
    return Outcome(
        rows=[Row("CSMA-CA + ACKs: goodput / PHY bound without contention, 1,232 B",
                  "fraction of bound", frac_mac, pv("riot.fig8.mac_fraction")),
              Row("no CSMA, no ACKs: goodput / PHY bound, 1,232 B", "fraction of bound",
                  frac_nomac, pv("riot.fig8.nomac_text"))],
        panels=[Panel("single-hop UDP goodput vs the PHY bound", "UDP payload (bytes)",
                      "goodput (kbit/s)",
                      [Series("bound (headers, SIFS/LIFS, no contention)", sizes,
                              [b for _, b in nomac], "k--"),
                       Series("wren: no CSMA, no ACKs", sizes, [g for g, _ in nomac], "o-"),
                       Series("wren: CSMA-CA + ACKs", sizes, [g for g, _ in mac], "s-"),
                       Series("paper: CSMA + ACKs stay below 2/3 of the bound", sizes,
                              [two_thirds * b for _, b in nomac], "r:", True)])],
        notes=[f"wren: bench_goodput nomac|mac SIZE {secs} (bench.goodput_1hop), simulated "
               "802.15.4 at 250 kbit/s; the bound is the same frames back to back with their "
               "interframe spaces and no ACKs (the paper's)."])


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


def _arm_figures() -> dict[str, Any]:
    """Cortex-M3 image figures (wren.size): built once."""
    return _arm_cached()


@functools.cache
def _arm_cached() -> dict[str, Any]:
    from . import size
    with redirect_stdout(StringIO()):
        host, arena = size.image_report("6ln_host")
        udp, udp_arena = size.image_report("udp")
        depth = size.deepest_stack("6ln_host")
    return {"host": host, "arena": arena, "udp": udp, "udp_arena": udp_arena, "depth": depth,
            "host_rom": size.counted(host, "rom"), "host_ram": size.counted(host, "ram"),
            "udp_rom": size.counted(udp, "rom"), "udp_ram": size.counted(udp, "ram"),
            "udp_sock_rom": udp["UDP"]["rom"] + udp["sock"]["rom"],
            "udp_sock_ram": udp["UDP"]["ram"] + udp["sock"]["ram"]}


def _reflector_mem(a: dict[str, Any]) -> tuple[int, int]:
    """ROM and RAM of UDP over 6LoWPAN/802.15.4 on Cortex-M3: the 6LoWPAN
    host's stack (+ its deepest call stack and packet buffer) + UDP and sock."""
    rom = a["host_rom"] + a["udp_sock_rom"]
    ram = a["host_ram"] + a["udp_sock_ram"] + a["arena"] + (a["depth"] or 0)
    return rom, ram


def riot_table3(quick: bool) -> Outcome:
    a = _arm_figures()
    rrom, rram = _reflector_mem(a)
    lrom, lram = a["udp_rom"], a["udp_ram"] + a["udp_arena"]
    no_drv = "wren has no Cortex-M driver for the AT86RF231 (its radios are the simulator's)"
    no_posix = "wren has no POSIX socket layer (sock is its only application API)"
    rows = [Row("Sock UDP - IP loopback: ROM", "bytes", lrom, pv("riot.table3.loopback_rom")),
            Row("Sock UDP - IP loopback: RAM", "bytes", lram, pv("riot.table3.loopback_ram"),
                note="state + packet buffer; call stack not measured for this image"),
            Row("Sock UDP - L2 (6LoWPAN, 802.15.4): ROM", "bytes", rrom,
                pv("riot.table3.reflector_rom"),
                note="the 6ln_host image's stack + UDP and sock from the udp image"),
            Row("Sock UDP - L2 (6LoWPAN, 802.15.4): RAM", "bytes", rram,
                pv("riot.table3.reflector_ram"),
                note="state + packet buffer + deepest call stack under qemu"),
            Row("Sock UDP - IF driver: ROM", "bytes", None, pv("riot.table3.driver_rom"),
                note=no_drv),
            Row("Sock UDP - IF driver: RAM", "bytes", None, pv("riot.table3.driver_ram"),
                note=no_drv),
            Row("POSIX API overhead: ROM", "bytes", None, pv("riot.table3.posix_rom"),
                note=no_posix),
            Row("POSIX API overhead: RAM", "bytes", None, pv("riot.table3.posix_ram"),
                note=no_posix)]
    cats = ["IP loopback", "L2 reflector", "IF driver"]
    keys = ["loopback", "reflector", "driver"]
    panels = [Panel(f"Table 3: {kind}", "", "bytes",
                    [Series("paper (GNRC, RIOT kernel and app included)", cats,
                            [paper_number(f"riot.table3.{k}_{kind.lower()}") for k in keys],
                            "C3", True),
                     Series("wren (stack, C library helpers, packet buffer)", cats,
                            [w0, w1, None], "C0")], bars=True)
              for kind, w0, w1 in (("ROM", lrom, rrom), ("RAM", lram, rram))]
    return Outcome(rows=rows, panels=panels, notes=[
        "wren: arm-none-eabi-gcc -Os images of runtime/cortexm (wren.size.image_report): the "
        "stack's modules and the C library helpers they reach; the port, the loopback device "
        "standing in for a radio and the image's main are not counted. The paper's figures are "
        "whole RIOT applications (kernel, thread stacks, application) without application "
        "buffers."])


def riot_fig10(quick: bool) -> Outcome:
    from . import size
    a = _arm_figures()
    host = a["host"]
    ram = a["host_ram"] + a["arena"] + (a["depth"] or 0)
    kib = 1024.0
    mods = [m for m, _, _ in size.MODULES] + [size.HELPERS]
    shown = [m for m in mods if host[m]["rom"] or host[m]["ram"]]
    return Outcome(
        rows=[Row("RAM of the 6LoWPAN host stack (state + packet buffer + call stack)", "kB",
                  ram / kib, pv("riot.fig10.ram_kb"), note="kB taken as 1,024 bytes"),
              Row("ROM of the 6LoWPAN host stack", "kB", a["host_rom"] / kib,
                  pv("riot.fig10.rom_text"))],
        panels=[Panel("wren 6LoWPAN host on Cortex-M3, per module", "", "bytes",
                      [Series("ROM", [m.split(" (")[0] for m in shown],
                              [host[m]["rom"] for m in shown], "C0"),
                       Series("RAM (state)", [m.split(" (")[0] for m in shown],
                              [host[m]["ram"] for m in shown], "C1")], bars=True),
                Panel("RAM in all", "", "kB",
                      [Series("paper: GNRC ~6 kB", ["GNRC"], [paper_number("riot.fig10.ram_kb")],
                              "C3", True),
                       Series("wren", ["wren"], [ram / kib], "C0")], bars=True)],
        notes=["wren: the 6ln_host image (IPv6, 6LoWPAN with IPHC and fragmentation, ICMPv6 "
               "echo, 6LoWPAN-ND host; no RPL, like the paper's GNRC), arena "
               f"{a['arena']} bytes, deepest call stack {a['depth']} bytes under qemu. lwIP and "
               "emb6 are not built here: only GNRC's figures are compared."])


def _energy_run(quick: bool) -> dict[str, Any]:
    from . import energy, scenario
    count = 20 if quick else 100
    sc = {"name": "riot_fig12", "seed": 1, "duration": count + 1.0,
          "nodes": [{"x": 0.0, "y": 0.0}, {"x": 10.0, "y": 0.0}],
          "links": [{"from": 0, "to": 1}],
          "apps": [{"type": "rawgen", "nodes": [0], "dst": 1, "size": 20, "interval": 1.0,
                    "timing": "periodic", "count": count, "start": 0.5},
                   {"type": "rawgen", "nodes": [1], "interval": 0.0}]}
    res = scenario.run(sc, progress=False)
    energy.annotate(res, energy.DEFAULT)
    res["packets"] = count
    return res


def riot_fig12(quick: bool) -> Outcome:
    res = _energy_run(quick)
    n = res["packets"]
    tx, rx = (nd["energy"] for nd in res["nodes"])
    got = res["nodes"][1]["counters"].get("app.received", 0)
    paper = pv("riot.fig12.mj_per_packet")
    states = ("listen", "rx", "tx")
    return Outcome(
        rows=[Row("sender: energy per packet sent (radio)", "mJ", tx["mj"] / n, paper),
              Row("receiver: energy per packet received (radio)", "mJ",
                  rx["mj"] / got if got else None, paper),
              Row("sender: CPU active time per packet (estimated, not charged in mJ)", "ms",
                  res["nodes"][0]["cpu"]["active_ms"] / n, None,
                  note="wren.cpu: Cortex-M3 instructions per frame measured under qemu, "
                       "CPI 1.5 at 72 MHz")],
        panels=[Panel(f"energy per packet, {n} packets of 20 bytes at 1 packet/s", "", "mJ",
                      [Series("paper: a RIOT node (whole board)", ["sender", "receiver"],
                              [paper.value, paper.value], "C3", True)]
                      + [Series(f"wren radio: {s}", ["sender", "receiver"],
                                [tx["radio_mj"][s] / n, rx["radio_mj"][s] / max(got, 1)],
                                f"C{i}") for i, s in enumerate(states)], bars=True)],
        notes=[f"wren: ./wren sim on two nodes, {n} rawgen frames of 20 bytes at 1 s (raw "
               "802.15.4 frames, no UDP/IPv6 headers: listening dominates the radio's energy "
               "either way), energy "
               f"model profile {res['energy']['profile']} ({res['energy']['description']}). "
               f"{res['energy']['mcu']}: the paper's 140 mJ is the whole board, the radio's "
               "share of it is about half (the paper: ~45 mW of ~90 mW). Received: "
               f"{got} of {n}."])


# ---- TCP paper ---------------------------------------------------------------

def _proc() -> int:
    from . import bench
    return int(bench.TCP_PROC_US)


def _delay() -> int:
    from . import bench
    return int(bench.TCP_RETRY_DELAY)


def tcp_fig4(quick: bool) -> Outcome:
    seeds = _seeds(quick)
    ks = list(range(1, 9))
    msss = [_mss(k) for k in ks]
    res = {p: [_tcp(1, p, _delay(), m, None, seeds) for m in msss] for p in (0, _proc())}
    g = [r["goodput"] for r in res[_proc()]]
    best = max(g)
    knee = next(k for k, v in zip(ks, g) if v >= 0.95 * best)
    five = res[_proc()][4]
    return Outcome(
        rows=[Row("one hop, MSS of 5 frames, 8.2 ms per frame: goodput", "kbit/s",
                  five["goodput"], pv("tcp.sec63.openthread_kbps")),
              Row("the same frames back to back: upper bound", "kbit/s", five["bound"],
                  pv("tcp.sec64.bound_kbps")),
              Row("smallest MSS within 5 % of the best goodput", "frames", float(knee),
                  pv("tcp.fig4.mss_frames"))],
        panels=[Panel("TCP goodput vs MSS, one hop", "MSS (802.15.4 frames per segment)",
                      "goodput (kbit/s)",
                      [Series("wren: no processing delay", ks,
                              [r["goodput"] for r in res[0]], "o-"),
                       Series("wren: 8.2 ms per frame", ks, g, "s-"),
                       Series("wren: bound, 8.2 ms per frame", ks,
                              [r["bound"] for r in res[_proc()]], "k:"),
                       Series("paper: 75 kb/s at 5 frames (6.3)", [5],
                              [paper_number("tcp.sec63.openthread_kbps")], "rx", True),
                       Series("paper: bound 82 kb/s (6.4)", [5],
                              [paper_number("tcp.sec64.bound_kbps")], "r+", True)])],
        notes=[f"wren: bench.tcp_transfer_mean, 100 KiB over one simulated hop, 2 KiB buffers, "
               f"{_seed_note(quick)}; MSS for k frames: "
               + ", ".join(f"{k}:{m}" for k, m in zip(ks, msss))
               + ". The paper plots no numbers for Figure 4 (one hop is 63-75 kb/s in 6.3)."])


def tcp_fig5(quick: bool) -> Outcome:
    seeds = _seeds(quick)
    mss = _mss(5)
    smss = mss - 12
    ws = list(range(1, 9))
    res = {p: [_tcp(1, p, _delay(), mss, w * smss, seeds) for w in ws] for p in (0, _proc())}
    g = [r["goodput"] for r in res[_proc()]]
    best = max(g)
    w_off = next(w for w, v in zip(ws, g) if v >= 0.95 * best)
    r1 = res[_proc()][0]
    bdp = r1["bound"] * 1000 / 8 * r1["srtt_ms"] / 1000 / 1024   # KiB
    kib = [w * smss / 1024 for w in ws]
    return Outcome(
        rows=[Row("window where goodput levels off (within 5 % of the best)", "KiB",
                  w_off * smss / 1024, pv("tcp.fig5.leveloff_kib")),
              Row("bandwidth-delay product (bound x RTT of one segment)", "KiB", bdp,
                  pv("tcp.fig5.bdp_kib"))],
        panels=[Panel("TCP goodput vs window, one hop, MSS 5 frames", "window (KiB)",
                      "goodput (kbit/s)",
                      [Series("wren: no processing delay", kib,
                              [r["goodput"] for r in res[0]], "o-"),
                       Series("wren: 8.2 ms per frame", kib, g, "s-"),
                       Series("wren: model B (Eq. 2), 8.2 ms", kib,
                              [r["model"] for r in res[_proc()]], "C1:")],
                      vlines=[(paper_number("tcp.fig5.leveloff_kib"),
                               "paper: levels off at ~1.5 KiB"),
                              (paper_number("tcp.fig5.bdp_kib"), "paper: BDP ~1.6 KiB")])],
        notes=[f"wren: bench.tcp_transfer_mean, MSS {mss} ({smss} data bytes), window = both "
               f"buffers = w segments, 8.2 ms per frame, {_seed_note(quick)}. The paper's "
               "text gives where its curve levels off and its BDP, no goodput values."])


def _fig6_delays(quick: bool) -> list[int]:
    return [0, 10, 30, 40, 100] if quick else [0, 5, 10, 20, 30, 40, 50, 60, 80, 100]


def tcp_fig6(quick: bool) -> Outcome:
    seeds = _seeds(quick)
    wnd = int(paper_number("tcp.fig6.window_bytes"))
    ds = _fig6_delays(quick)
    res = {h: [_tcp(h, _proc(), d, _mss(5, h), wnd, seeds) for d in ds] for h in (1, 3)}
    i0, i30 = ds.index(0), ds.index(30)
    return Outcome(
        rows=[Row("three hops, d = 0: TCP segment loss", "%", 100 * res[3][i0]["p"],
                  pv("tcp.fig6.loss_d0")),
              Row("three hops, d = 30 ms: TCP segment loss", "%", 100 * res[3][i30]["p"],
                  pv("tcp.fig6.loss_d30"))],
        panels=[Panel("goodput vs link retry delay d", "d (ms)", "goodput (kbit/s)",
                      [Series(f"wren: {h} hop{'s' if h > 1 else ''}", ds,
                              [r["goodput"] for r in res[h]], st)
                       for h, st in ((1, "o-"), (3, "s-"))]
                      + [Series(f"wren: model B (Eq. 2), {h} hop{'s' if h > 1 else ''}", ds,
                                [r["model"] for r in res[h]], st)
                         for h, st in ((1, "C0:"), (3, "C1:"))]),
                Panel("TCP segment loss vs d", "d (ms)", "segment loss (%)",
                      [Series(f"wren: {h} hop{'s' if h > 1 else ''}", ds,
                              [100 * r["p"] for r in res[h]], st)
                       for h, st in ((1, "o-"), (3, "s-"))]
                      + [Series("paper: three hops (7.3)", [0, 30],
                                [paper_number("tcp.fig6.loss_d0"),
                                 paper_number("tcp.fig6.loss_d30")], "rx", True)])],
        notes=[f"wren: bench.tcp_transfer_mean over a simulated line (nodes two apart are "
               f"hidden terminals), window {wnd} bytes (the paper's), MSS 5 frames, 8.2 ms per "
               f"frame, {_seed_note(quick)}; segment loss = TCP retransmissions / segments sent."
               " The paper's 30 ms figure is an upper limit (\"less than 1%\")."])


def _hops(quick: bool) -> dict[int, dict[str, Any]]:
    seeds = _seeds(quick)
    return {h: _tcp(h, _proc(), _delay(), _mss(5, h), None, seeds) for h in (1, 2, 3, 4)}


def tcp_sec72(quick: bool) -> Outcome:
    res = _hops(quick)
    hs = [1, 2, 3, 4]
    return Outcome(
        rows=[Row(f"{h} hop{'s' if h > 1 else ''}: goodput, d = 40 ms", "kbit/s",
                  res[h]["goodput"], pv(f"tcp.sec72.hops{h}_kbps"),
                  note="the paper enlarged its window for four hops; wren keeps 2 KiB"
                  if h == 4 else "")
              for h in hs],
        panels=[Panel("TCP goodput vs hops", "hops", "goodput (kbit/s)",
                      [Series("wren: 8.2 ms per frame", hs, [res[h]["goodput"] for h in hs],
                              "s-"),
                       Series("wren: bound B/min(h,3)", hs, [res[h]["bound"] for h in hs], "k:"),
                       Series("wren: model B (Eq. 2)", hs, [res[h]["model"] for h in hs], "C1:"),
                       Series("paper (OpenThread, 7.2)", hs,
                              [paper_number(f"tcp.sec72.hops{h}_kbps") for h in hs], "rx-",
                              True)])],
        notes=[f"wren: bench.tcp_transfer_mean over a simulated line, MSS 5 frames, 2 KiB "
               f"buffers, retry delay 40 ms, 8.2 ms per frame, {_seed_note(quick)}."])


def _eq1(r: dict[str, Any]) -> float:
    """The classic model, B = MSS/RTT * sqrt(3 / 2p) (kbit/s; inf at p = 0)."""
    rtt = r["srtt_ms"] / 1000
    if r["p"] == 0 or rtt == 0:
        return math.inf
    return r["smss"] * 8 / rtt * math.sqrt(3 / (2 * r["p"])) / 1000


def tcp_eq2(quick: bool) -> Outcome:
    seeds = _seeds(quick)
    hops = _hops(quick)
    cases: list[tuple[str, dict[str, Any]]] = [(f"{h} hop{'s' if h > 1 else ''}, d = 40 ms", r)
                                               for h, r in hops.items()]
    cases.append(("3 hops, d = 0", _tcp(3, _proc(), 0, _mss(5, 3),
                                        int(paper_number("tcp.fig6.window_bytes")), seeds)))
    for h in ((1, 3) if quick else (1, 2, 3, 4)):
        cases.append((f"{h} hop{'s' if h > 1 else ''}, PRR 0.9",
                      _tcp(h, _proc(), _delay(), _mss(5, h), None, seeds, 0.9)))
    rows = [Row(f"{name}: measured / Eq. 2 (wren's RTT {r['srtt_ms']:.0f} ms, loss "
                f"{100 * r['p']:.1f} %, w {r['w']:.1f})", "ratio",
                r["goodput"] / r["model"] if r["model"] else None, pv("tcp.eq2.text"))
            for name, r in cases]
    d0 = cases[4][1]
    rows.append(Row("Eq. 1 (the classic model) for 3 hops, d = 0", "kbit/s", _eq1(d0),
                    pv("tcp.eq1.hop3_kbps"), note=f"measured {d0['goodput']:.1f} kbit/s"))
    names = [n for n, _ in cases]
    return Outcome(
        rows=rows,
        panels=[Panel("measured goodput and the models", "", "goodput (kbit/s)",
                      [Series("wren: measured", names, [r["goodput"] for _, r in cases], "C0"),
                       Series("Eq. 2 with wren's RTT, loss, window", names,
                              [r["model"] for _, r in cases], "C1"),
                       Series("Eq. 1 (inf at zero loss: not drawn)", names,
                              [e if math.isfinite(e := _eq1(r)) else None for _, r in cases],
                              "C7")], bars=True, logy=True)],
        notes=["Eq. 2: B = MSS/RTT x 1/(1/w + 2p), with wren's smoothed RTT, its TCP "
               "retransmission rate p and the window w in segments (bench.tcp_transfer). The "
               f"paper says the model closely matches its measurements; {_seed_note(quick)}."])


def _fig9_available() -> bool:
    """Whether helper fig9's experiment (python/wren/experiments/coap_vs_tcp.py)
    is in this tree (found without importing it)."""
    import importlib.util
    try:
        return importlib.util.find_spec("wren.experiments.coap_vs_tcp") is not None
    except ImportError:
        return False


def tcp_fig9(quick: bool) -> Outcome:
    """The TCP paper's Figure 9 through helper fig9's experiment
    (coap_vs_tcp.run_point: a 3-hop line, a sleepy sensor sending batches of
    82-byte readings, loss injected at the border router)."""
    from .experiments import coap_vs_tcp as cv  # type: ignore[import-not-found, unused-ignore]
    losses = (0.0, 6.0, 12.0, 21.0) if quick else tuple(float(x) for x in cv.LOSSES)
    seeds = (1, 2) if quick else tuple(cv.SEEDS)
    readings = 1280 if quick else int(cv.READINGS)
    protos = ("tcp", "coap")
    pts: dict[tuple[str, float], dict[str, float]] = {}
    for p in protos:
        for loss in losses:
            rs = [cv.run_point(p, loss, seed=sd, readings=readings) for sd in seeds]
            pts[(p, loss)] = {k: sum(float(r[k]) for r in rs) / len(rs)
                              for k in ("reliability", "radio_dc", "cpu_dc",
                                        "cpu_dc_with_upload")}
    below = max(x for x in losses if x < 15.0)
    paper = pv("tcp.fig9.reliability")
    return Outcome(
        rows=[Row(f"{p.upper()}: reliability at {below:g} % injected loss", "%",
                  100 * pts[(p, below)]["reliability"], paper) for p in protos],
        panels=[Panel("(a) reliability", "injected loss (%)", "readings delivered (%)",
                      [Series(f"wren: {p.upper()}", list(losses),
                              [100 * pts[(p, x)]["reliability"] for x in losses], st)
                       for p, st in zip(protos, ("o-", "s-"))]
                      + [Series("paper: nearly 100 % below 15 % loss", [0, 15],
                                [paper.value or 100.0] * 2, "r--", True)]),
                Panel("(c) the sensor's radio and CPU duty cycle", "injected loss (%)", "%",
                      [Series(f"wren: {p.upper()} radio", list(losses),
                              [100 * pts[(p, x)]["radio_dc"] for x in losses], st)
                       for p, st in zip(protos, ("o-", "s-"))]
                      + [Series(f"wren: {p.upper()} CPU (estimated, frames/datagrams only)",
                                list(losses), [100 * pts[(p, x)]["cpu_dc"] for x in losses], st)
                         for p, st in zip(protos, ("^--", "v--"))]
                      + [Series(f"wren: {p.upper()} CPU + modelled radio upload", list(losses),
                                [100 * pts[(p, x)]["cpu_dc_with_upload"] for x in losses], st)
                         for p, st in zip(protos, ("^-.", "v-."))]
                      + [Series(f"paper Table 8: {p.upper()} CPU (testbed day, not Fig. 9)",
                                [losses[0], losses[-1]],
                                [float(cv.PAPER["table8"][f"{p}_cpu_dc_pct"])] * 2, st, True)
                         for p, st in zip(protos, ("r:", "m:"))])],
        notes=["wren: helper fig9's experiment (wren.experiments.coap_vs_tcp.run_point), "
               f"{readings} readings per run, seeds {', '.join(map(str, seeds))}; the paper "
               "gives Figure 9's points only in "
               "its plot, so the text's statement is the comparison. CPU duty cycle: wren.cpu's "
               "estimate (Cortex-M3 instructions per frame and datagram measured under qemu x "
               "the sensor's counters, CPI 1.5, 72 MHz), TCP/CoAP processing and timers not "
               "charged: a lower bound; \"+ modelled radio upload\" adds the simulated per-frame "
               "upload delay (radio.proc_us) as if the driver waited it out (the paper's "
               "Table 8, a testbed day: TCP "
               f"{cv.PAPER['table8']['tcp_cpu_dc_pct']} %, CoAP "
               f"{cv.PAPER['table8']['coap_cpu_dc_pct']} %)."])


# ---- 6TiSCH paper ------------------------------------------------------------

TSCH_QUICK = dict(seeds=(1,), duration_s=300.0)


def _tsch_available() -> bool:
    from .experiments import tsch_paper
    return tsch_paper.tsch_available() is None


@functools.cache
def _tsch_runs(quick: bool) -> dict[str, Any]:
    """The 30-node experiment (wren.experiments.tsch_paper) for both figures:
    quick, one seed of 5 simulated minutes on TSCH (Table I and Trickle DIOs) and CSMA; else the paper's
    10 seeds of 2 h on every variant (runs kept in out/tsch_paper/runs, which
    `./wren bench tsch_paper` fills too)."""
    from .experiments import tsch_paper as tp
    if quick:
        return tp.experiment(["tsch", "tsch_trickle", "csma"], out_dir=paths.OUT / "tsch_paper_quick",
                             verbose=False, **TSCH_QUICK)  # type: ignore[arg-type]
    return tp.experiment(tp.MACS, verbose=False)


def _tsch_fig(quick: bool, key: str, paper_key: str, what: str, unit_scale: float) -> Outcome:
    from .experiments import tsch_paper as tp
    res = _tsch_runs(quick)
    summ = res["summary"]
    paper = pv(paper_key)
    rows = []
    for v, s in summ.items():
        ci = s[key]
        half = (f"95 % CI {unit_scale * ci['ci95_low']:.3g}..{unit_scale * ci['ci95_high']:.3g}"
                if ci["ci95_low"] is not None else "one run: no CI")
        rows.append(Row(f"{tp.label(v)}: {what}, mean of {s['runs']} runs", "%",
                        unit_scale * ci["mean"], paper,
                        note=half + ("" if v == "tsch" else
                                     "; TSCH with Trickle DIOs, not Table I's fixed period"
                                     if v == "tsch_trickle" else
                                     "; a comparison: the paper's figure is TSCH's")))
    cats = [tp.label(v) for v in summ]
    series = []
    for k, (v, s) in enumerate(summ.items()):
        ys = [unit_scale * x for x in s[f"{key}_per_run"]]
        series.append(Series(f"wren {tp.label(v)}: runs (o), mean (*)",
                             [cats[k]] * len(ys), ys, f"C{k}o"))
        series.append(Series("", [cats[k]], [unit_scale * s[key]["mean"]], f"C{k}*"))
    log = key == "duty_cycle" and any(s[key]["mean"] > 0.2 for s in summ.values())
    bound = "above" if paper.bound == "lower" else "below"
    panel = Panel(f"{what}, 30 nodes, 1 datagram/min/node", "", f"{what} (%)", series,
                  hlines=[(paper.value or 0, f"paper: {bound} {fmt(paper.value)} %")], logy=log)
    n = len(next(iter(summ.values()))["seeds"])
    dur = res["runs"][0]["duration_s"] if res["runs"] else 0
    notes = [f"wren: wren.experiments.tsch_paper, {n} seed(s) of {dur / 60:g} simulated minutes "
             f"per variant (the paper: 10 runs of 2 h); 30 nodes at random on a 100 x 60 m "
             f"floor, links from a log-distance path-loss model with shadowing; Table I's "
             f"parameters as the module sets them: "
             + "; ".join(f"{k}: {v[0]} -> {v[1]}" for k, v in tp.TABLE_I.items()),
             "The paper gives Figs. 4-5's points only in its plots; the text's bounds are "
             "the comparison."]
    notes += [f"{v}: {why}" for v, why in res["skipped"].items()]
    notes += [f"{tp.label(v)}: the DODAG had not formed within {tp.FORM_LIMIT_S:.0f} "
              f"simulated s in the runs of seeds {s['not_formed']}; their flows started all the "
              f"same (datagrams without a route count as lost)"
              for v, s in summ.items() if s["not_formed"]]
    return Outcome(rows=rows, panels=[panel], notes=notes)


def tsch_fig4(quick: bool) -> Outcome:
    return _tsch_fig(quick, "pdr", "tsch.fig4.pdr", "end-to-end PDR", 100.0)


def tsch_fig5(quick: bool) -> Outcome:
    return _tsch_fig(quick, "duty_cycle", "tsch.fig5.duty", "radio duty cycle", 100.0)


# ---- German paper# ---- German paper ------------------------------------------------------------

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


def de_fig4(quick: bool) -> Outcome:
    a = _arm_figures()
    _, ram = _reflector_mem(a)
    kb = ram / 1000
    return Outcome(
        rows=[Row("RAM of UDP + IPv6 + 6LoWPAN + 802.15.4, sender", "kB", kb,
                  pv("de.fig4.ram_kb_sender")),
              Row("the same, receiver (one more thread in RIOT)", "kB", kb,
                  pv("de.fig4.ram_kb_receiver"))],
        panels=[Panel("RAM in use", "", "kB",
                      [Series("paper (RIOT kernel, threads, app)", ["sender", "receiver"],
                              [paper_number("de.fig4.ram_kb_sender"),
                               paper_number("de.fig4.ram_kb_receiver")], "C3", True),
                       Series("wren stack", ["sender", "receiver"], [kb, kb], "C0")],
                      bars=True)],
        notes=["wren: the same figure as Table 3's L2 row (6ln_host stack + UDP + sock, "
               "packet buffer and deepest call stack); one node sends and receives with the "
               "same RAM (no thread per server). kB = 1,000 bytes."])


# ---- the list ------------------------------------------------------------------

FIGURES: list[Figure] = [
    Figure("riot_fig4", "riot", "Fig. 4: UDP goodput vs payload, IP loopback and L2 reflector",
           riot_fig4),
    Figure("riot_fig5", "riot", "Fig. 5: processing time and rate per layer", riot_fig5),
    Figure("riot_fig6", "riot", "Fig. 6: packets per second on a PC (RIOT native, Linux)",
           riot_fig6),
    Figure("riot_fig8", "riot", "Fig. 8: single-hop radio goodput vs the PHY bound", riot_fig8),
    Figure("riot_fig9", "riot", "Fig. 9: the radio against the stack, per packet", riot_fig9),
    Figure("riot_table3", "riot", "Table 3: ROM and RAM per configuration", riot_table3),
    Figure("riot_fig10", "riot", "Fig. 10: ROM and RAM of the stack", riot_fig10),
    Figure("riot_fig12", "riot", "Fig. 12: energy per packet, 1 packet/s", riot_fig12),
    Figure("riot_fig13", "riot", "Fig. 13: device-to-device travel times, RIOT vs Contiki",
           reason="the figure sets RIOT beside Contiki's uIP on the same boards: wren has no "
                  "Contiki peer, and the paper gives only the relative difference (the paper's "
                  "ICN figures are 14 and 15: no ICN stack)",
           cited=("riot.fig13.contiki_text",)),
    Figure("riot_fig14", "riot", "Fig. 14: CCN-lite (ICN) stack size beside GNRC",
           reason="no ICN stack: wren has no CCN/NDN module to measure",
           cited=("riot.fig14.icn_ram_kb",)),
    Figure("riot_fig15", "riot", "Fig. 15: CCN-lite (ICN) processing time per request",
           reason="no ICN stack: wren has no CCN/NDN module to measure",
           cited=("riot.fig15.icn_text",)),
    Figure("tcp_fig4", "tcp", "Fig. 4: goodput vs MSS, one hop", tcp_fig4),
    Figure("tcp_fig5", "tcp", "Fig. 5: goodput vs window (buffer) size, one hop", tcp_fig5),
    Figure("tcp_fig6", "tcp", "Fig. 6: goodput and segment loss vs link retry delay", tcp_fig6),
    Figure("tcp_sec72", "tcp", "Section 7.2: goodput over 1-4 hops", tcp_sec72),
    Figure("tcp_eq2", "tcp", "Eq. 2: the goodput model against measurements", tcp_eq2),
    Figure("tcp_fig9", "tcp", "Fig. 9: TCP vs CoAP under injected loss",
           **({"run": tcp_fig9} if _fig9_available() else  # type: ignore[arg-type]
              {"reason": "pending: the TCP-vs-CoAP experiment (helper fig9, "
                         "python/wren/experiments/coap_vs_tcp.py) has not landed",
                         "cited": ("tcp.fig9.reliability",)})),
    Figure("tsch_fig4", "tsch", "Fig. 4: end-to-end PDR in 30-node 6TiSCH networks",
           **({"run": tsch_fig4} if _tsch_available() else  # type: ignore[arg-type]
              {"reason": "TSCH is not built yet: wren's only 802.15.4 MAC is unslotted CSMA-CA, "
                         "and the figure is a property of a TSCH network (6top, MSF, minimal "
                         "schedule); the CSMA comparison runs: ./wren bench tsch_paper",
               "cited": ("tsch.fig4.pdr",)})),
    Figure("tsch_fig5", "tsch", "Fig. 5: radio duty cycle in 30-node 6TiSCH networks",
           **({"run": tsch_fig5} if _tsch_available() else  # type: ignore[arg-type]
              {"reason": "TSCH is not built yet: without a slotted MAC a wren radio listens "
                         "whenever it is not sending (or, with low-power listening, at every "
                         "check), so its duty cycle is not the figure's; the CSMA comparison "
                         "runs: ./wren bench tsch_paper",
               "cited": ("tsch.fig5.duty",)})),
    Figure("de_fig2", "de", "Abb. 2: throughput vs payload without the radio", de_fig2),
    Figure("de_fig3", "de", "Abb. 3: energy per payload byte, 20 and 1,000 bytes", de_fig3),
    Figure("de_fig4", "de", "Abb. 4: RAM of the network stack", de_fig4),
]


def by_name() -> dict[str, Figure]:
    return {f.name: f for f in FIGURES}


def select(names: Sequence[str] | None) -> list[Figure]:
    """The figures @names name, in the list's order (none or "all": every
    one); an unknown name is a UserError naming the known ones."""
    if not names or "all" in names:
        return list(FIGURES)
    figs = by_name()
    for name in names:
        if name not in figs:
            close = difflib.get_close_matches(name, list(figs), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise UserError(f"unknown figure '{name}'{hint}; the figures are all, "
                            f"{', '.join(figs)}")
    return [f for f in FIGURES if f.name in names]


# ---- plotting ---------------------------------------------------------------------

def plot(fig: Figure, out: Outcome, directory: Path) -> list[Path]:
    """NAME.png and NAME.svg of @fig's panels; [] when it has none."""
    if not out.panels:
        return []
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(out.panels)
    mfig, axes = plt.subplots(1, n, figsize=(6.4 * n, 4.4), squeeze=False)
    for ax, p in zip(axes[0], out.panels):
        if p.bars:
            cats: list[Any] = []
            for s in p.series:
                cats += [x for x in s.xs if x not in cats]
            width = 0.8 / max(len(p.series), 1)
            for k, s in enumerate(p.series):
                xs = [cats.index(x) + (k - (len(p.series) - 1) / 2) * width for x in s.xs]
                ys = [float("nan") if y is None else y for y in s.ys]
                ax.bar(xs, ys, width, label=s.label, color=s.style,
                       hatch="//" if s.paper else None, edgecolor="black" if s.paper else None)
            ax.set_xticks(range(len(cats)))
            ax.set_xticklabels([str(c) for c in cats], rotation=20 if len(cats) > 4 else 0,
                               ha="right" if len(cats) > 4 else "center", fontsize=8)
        else:
            for s in p.series:
                ys = [float("nan") if y is None else y for y in s.ys]
                kw = {"markersize": 10, "markeredgewidth": 2} if s.paper else {}
                ax.plot(s.xs, ys, s.style, label=s.label, **kw)
        for y, label in p.hlines:
            ax.axhline(y, color="red", linestyle="--", label=label)
        for k, (x, label) in enumerate(p.vlines):
            ax.axvline(x, color="red", linestyle="--" if k == 0 else ":", label=label)
        if p.logy:
            ax.set_yscale("log")
        elif not p.bars:
            ax.set_ylim(bottom=0)
        ax.set_title(p.title, fontsize=10)
        ax.set_xlabel(p.xlabel)
        ax.set_ylabel(p.ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    mfig.suptitle(f"{fig.name}: {fig.title}\n(the paper's values in red)", fontsize=10)
    mfig.tight_layout()
    directory.mkdir(parents=True, exist_ok=True)
    files = []
    for ext in ("png", "svg"):
        f = directory / f"{fig.name}.{ext}"
        mfig.savefig(f, dpi=90)
        files.append(f)
    plt.close(mfig)
    return files


# ---- running and the report -------------------------------------------------------

def run_figure(fig: Figure, quick: bool, directory: Path) -> Outcome:
    if fig.run is None:
        return Outcome(reason=fig.reason,
                       rows=[Row("(cannot run)", pv(k).unit, None, pv(k)) for k in fig.cited])
    t0 = time.monotonic()
    try:
        with redirect_stdout(StringIO()):
            out = fig.run(quick)
    except Exception as e:  # noqa: BLE001
        # a tool this figure needs is missing or failed: the report says so,
        # with the error, and the other figures still run
        out = Outcome(reason=f"failed to run: {type(e).__name__}: {str(e).strip()[:300]}",
                      failed=True)
    out.seconds = time.monotonic() - t0
    if out.reason is None and not any(r.wren is not None for r in out.rows):
        out.reason = "it ran but measured nothing (a bug in the figure's code)"
        out.panels = []
        out.failed = True
    out.files = [str(f) for f in plot(fig, out, directory)]
    return out


def _git_head() -> str:
    try:
        return subprocess.run(["git", "-C", str(paths.ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def _rows_json(fig: Figure, out: Outcome, quick: bool) -> dict[str, Any]:
    return {
        "name": fig.name, "paper": fig.paper, "title": fig.title,
        "command": fig.command(quick), "reason": out.reason, "failed": out.failed,
        "seconds": round(out.seconds, 2),
        "plots": [Path(f).name for f in out.files], "notes": out.notes,
        "rows": [{"quantity": r.quantity, "unit": r.unit, "wren": r.wren,
                  "paper": r.paper_number, "paper_text": r.paper_text(), "ratio": r.ratio,
                  "bound": r.paper.bound if r.paper else None,
                  "source": r.paper.key if r.paper else None,
                  "cite": r.paper.cite() if r.paper else None, "note": r.note}
                 for r in out.rows]}


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def write_report(results: list[tuple[Figure, Outcome]], quick: bool, directory: Path,
                 command: str) -> list[Path]:
    """report.md, report.html (plots embedded) and report.json in @directory."""
    directory.mkdir(parents=True, exist_ok=True)
    head = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": _git_head(), "machine": f"{platform.machine()}, "
            f"{platform.processor() or 'cpu'}, python {platform.python_version()}",
            "mode": "quick" if quick else "full", "command": command}
    data = {**head, "cpu_model": CPU_MODEL,
            "figures": [_rows_json(f, o, quick) for f, o in results]}
    (directory / "report.json").write_text(json.dumps(data, indent=1))
    ptitle = {k: v["title"] for k, v in papers().items()}

    md = ["# wren: the papers' figures, reproduced\n",
          f"{head['date']}, commit {head['commit']}, {head['machine']}; mode {head['mode']}; "
          f"`{command}`.\n",
          f"{len(results)} figures: {sum(1 for _, o in results if not o.reason)} measured, "
          f"{sum(1 for _, o in results if o.reason)} cannot run (the reason is in the table).\n",
          "Paper values come from `python/wren/data/paper_values.toml` (each with its section "
          "and a quote); wren's are measured by the command in the last column. "
          "Ratio = wren / paper.\n",
          "| figure | quantity | paper | wren | ratio | command |",
          "|---|---|---|---|---|---|"]
    for f, o in results:
        cmd = f"`{f.command(quick)}`"
        if o.reason:
            md.append(f"| {f.name} | {_md_cell(f.title)} | - | cannot run: "
                      f"{_md_cell(o.reason)} | - | {cmd} |")
        for r in o.rows:
            if o.reason and r.wren is None:
                continue
            md.append(f"| {f.name} | {_md_cell(r.quantity)} | {_md_cell(r.paper_text())} "
                      f"[{r.unit}] | {_md_cell(r.wren_text())} | {fmt(r.ratio)} | {cmd} |")
    md.append("")
    for f, o in results:
        md.append(f"## {f.name}: {f.title}\n")
        md.append(f"Paper: {ptitle.get(f.paper, f.paper)}. Command: `{f.command(quick)}`"
                  + (f" ({o.seconds:.1f} s)" if not o.reason else "") + "\n")
        if o.reason:
            md.append(f"**Cannot run:** {o.reason}\n")
        for p in o.files:
            if p.endswith(".png"):
                md.append(f"![{f.name}]({Path(p).name})\n")
        for n in o.notes:
            md.append(f"- {n}")
        for r in o.rows:
            if r.paper:
                md.append(f"- {r.quantity}: {r.paper.cite()}")
            if r.note:
                md.append(f"- {r.quantity}: {r.note}")
        md.append("")
    (directory / "report.md").write_text("\n".join(md) + "\n")

    h = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>wren: the papers' figures"
         "</title><style>body{font-family:sans-serif;max-width:1200px;margin:auto}"
         "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 6px;"
         "font-size:13px}td.n{text-align:right}.why{color:#a00}img{max-width:100%}</style>"
         "</head><body>",
         "<h1>wren: the papers' figures, reproduced</h1>",
         f"<p>{html.escape(head['date'])}, commit {html.escape(head['commit'])}, "
         f"{html.escape(head['machine'])}; mode {head['mode']}; "
         f"<code>{html.escape(command)}</code>. Paper values: "
         "<code>python/wren/data/paper_values.toml</code>. Ratio = wren / paper.</p>",
         "<table><tr><th>figure</th><th>quantity</th><th>paper</th><th>wren</th>"
         "<th>ratio</th><th>command</th></tr>"]
    for f, o in results:
        cmd = f"<code>{html.escape(f.command(quick))}</code>"
        link = f"<a href='#{f.name}'>{f.name}</a>"
        if o.reason:
            h.append(f"<tr><td>{link}</td><td>{html.escape(f.title)}</td><td>-</td>"
                     f"<td class='why'>cannot run: {html.escape(o.reason)}</td><td>-</td>"
                     f"<td>{cmd}</td></tr>")
        for r in o.rows:
            if o.reason and r.wren is None:
                continue
            h.append(f"<tr><td>{link}</td><td>{html.escape(r.quantity)}</td>"
                     f"<td class='n'>{html.escape(r.paper_text())} {html.escape(r.unit)}</td>"
                     f"<td class='n'>{html.escape(r.wren_text())}</td>"
                     f"<td class='n'>{fmt(r.ratio)}</td>"
                     f"<td>{cmd}</td></tr>")
    h.append("</table>")
    for f, o in results:
        h.append(f"<h2 id='{f.name}'>{f.name}: {html.escape(f.title)}</h2>")
        h.append(f"<p>Paper: {html.escape(ptitle.get(f.paper, f.paper))}. Command: "
                 f"<code>{html.escape(f.command(quick))}</code></p>")
        if o.reason:
            h.append(f"<p class='why'>Cannot run: {html.escape(o.reason)}</p>")
        for p in o.files:
            if p.endswith(".png"):
                b64 = base64.b64encode(Path(p).read_bytes()).decode()
                h.append(f"<img alt='{f.name}' src='data:image/png;base64,{b64}'>")
        items = list(o.notes) + [f"{r.quantity}: {r.paper.cite()}" for r in o.rows if r.paper] \
            + [f"{r.quantity}: {r.note}" for r in o.rows if r.note]
        if items:
            h.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>")
    h.append("</body></html>")
    (directory / "report.html").write_text("\n".join(h) + "\n")
    return [directory / "report.md", directory / "report.html", directory / "report.json"]


def _taskbar(n: int) -> Any:
    """The shared progress bar (wren.progress.TaskBar: drawn on stderr only
    when it is a terminal), or None where that module does not exist."""
    try:
        from . import progress  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        return None
    return progress.TaskBar(n, "reproduce", unit="fig")


def main(args: argparse.Namespace) -> int:
    figs = select(args.names)      # a bad name: before anything is built
    directory = Path(args.out) if args.out else paths.OUT / "reproduce"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / ".wren-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise UserError(f"cannot write the report to {directory}: {e.strerror}") from None
    quick = bool(args.quick)
    from . import build
    with redirect_stdout(StringIO()):
        build.host()
    command = "./wren reproduce " + (" ".join(args.names) or "all") + \
        (" --quick" if quick else "") + \
        (f" --out {args.out}" if args.out else "")
    results = []
    bar = _taskbar(len(figs))
    with bar if bar is not None else nullcontext():
        for f in figs:
            if bar is not None:
                bar.task(f.name)
            out = run_figure(f, quick, directory)
            results.append((f, out))
            line = (f"{f.name}: cannot run ({out.reason})" if out.reason else
                    f"{f.name}: {len(out.rows)} values in {out.seconds:.1f} s")
            if bar is not None and bar.on:
                bar.write(line)    # above the bar
            else:
                print(line, flush=True)
            if bar is not None:
                bar.advance()
    files = write_report(results, quick, directory, command)
    print(f"report: {files[0]} and {files[1]}")
    failed = [f.name for f, o in results if o.failed]
    if failed:
        print(f"failed: {', '.join(failed)} (the report says why)")
    return 1 if failed else 0


def add_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("names", nargs="*", metavar="NAME",
                    help="figures (e.g. riot_fig4 tcp_sec72) or all (the default)")
    sp.add_argument("--out", help="directory for the plots and the report (default out/reproduce)")
    sp.add_argument("--quick", action="store_true",
                    help="fewer payload sizes, one seed: minutes instead of tens of minutes")
