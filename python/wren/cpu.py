"""The CPU active-time model: per simulated node, how long a Cortex-M3 at
the iotlab-m3's clock would run to do the frame and datagram work the node's
counters say it did.

The costs are measured, not typed in: `./wren cpucosts` runs the Cortex-M3
image runtime/cortexm/main_cpucost.c under qemu (mps2-an385), counts every
guest instruction of each operation (qemu_bench.trace) and writes
data/cpu_costs.toml with the command and the commit it measured (the last one
that changed the stack, the image or the build).

    instructions = frame_tx   * netif.tx_frames
                 + frame_rx   * netif.rx_frames
                 + frame_drop * netif.rx_drop_not_for_us
                 + (udp_rx - frame_rx) * datagrams received for the node
                 + (udp_tx - frame_tx) * datagrams the node sent
                 + (forward - frame_rx - frame_tx) * ipv6.rx_forwarded
    datagrams received = ipv6.rx_pkts - ipv6.rx_forwarded
    datagrams sent     = ipv6.tx_pkts - ipv6.rx_forwarded
    cpu time [s]  = instructions * CPI / clock
    cpu duty      = cpu time / simulated duration
    duty_with_upload = (cpu time + radio.proc_us) / simulated duration

radio.proc_us is the simulator's per-frame processing delay where a
scenario sets one (the TCP experiments model the paper's radio upload
with it): time a radio driver that waits out its SPI transfer keeps the
CPU busy. It is reported beside the estimate (upload_s, duty_with_upload),
never folded into it, because whether a driver waits or sleeps is the
hardware's and driver's business.

What it is and is not (said in the result's "cpu" block too):
- an estimate: instructions are counted (qemu executes the real -Os build
  of the stack), cycles are modelled: CPI is the project's one cycle model
  (CPI below, derived from the measured instruction mix with the Cortex-M3
  TRM's timings and the STM32F103's flash wait states; band CPI_LOW ..
  CPI_HIGH);
- the image's radio has CSMA-CA and ACKs in hardware, as the iotlab-m3's
  AT86RF231 does, so the software MAC's work (ACK frames, backoff timers)
  is not charged, nor is a real radio driver's SPI transfer (the loopback
  driver copies the frame instead);
- every datagram is charged as a one-frame UDP datagram of UDP_LEN bytes
  and every raw frame as one of RAW_LEN bytes: payload size, further
  fragments' reassembly, TCP, CoAP, RPL and ND processing and timers are
  not in the costs (further fragments are charged as frames only).
"""
import math
import subprocess
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import paths

COSTS: Path = Path(__file__).resolve().parent / "data" / "cpu_costs.toml"
IMAGE = "cpucost"
#: the operations of main_cpucost.c, in the order of its bench_mark pairs
OPS = ("frame_tx", "frame_rx", "frame_drop", "udp_tx", "udp_rx", "forward")
REPS = 8          # per operation, as in main_cpucost.c
RAW_LEN = 40      # bytes of a raw frame's payload
UDP_LEN = 20      # bytes of a UDP datagram's payload
#: the iotlab-m3's STM32F103REY runs at 72 MHz (the RIOT paper's figure,
#: paper_values.toml riot.cpu_mhz; the German paper's Section III-A too)
CLOCK_HZ = 72e6

# ---- the cycle model: the one way the project turns instructions into time --
#
# Cortex-M3 cycles per instruction class with zero wait states (ARM Cortex-M3
# Technical Reference Manual r2p1, ARM DDI 0337I, section 3.3.1, Table 3-1):
# data processing 1; load/store single 2 (1 when it follows a load single and
# can be pipelined with it, section 3.3.2); LDRD/STRD 1 + 2; LDM/STM/PUSH/POP
# 1 + N registers; a branch 1, + P (pipeline refill, 1..3) when taken; TBB/TBH
# 2 + 1 + P; MLA/MLS 2; long multiplies 3..5; divides 2..12; IT 1 or folded.
# A taken control transfer of any kind (branch, POP/LDM with pc, LDR pc, TBB)
# is charged its refill P in cycle_model, from the trace (next pc != pc +
# length), so the classes below hold what is spent besides the refill.
BASE_CYCLES = {"alu": 1, "it": 1, "ld": 2, "ld_p": 1, "st": 2, "st_p": 1, "lit": 2,
               "lit_p": 1, "ldrd": 3, "lsm": 1, "lsm_pc": 1, "ld_pc": 2, "b": 1, "tb": 3,
               "mla": 2, "mull": 4, "div": 7}


@dataclass(frozen=True)
class CycleAssumptions:
    """What the cycle model assumes where the TRM gives a range and the
    STM32F103's flash adds wait states. The flash (RM0008, STM32F101xx-107xx
    reference manual, section 3.3.3 and FLASH_ACR LATENCY) needs two wait
    states at 48 < SYSCLK <= 72 MHz; its prefetch buffer (two 64-bit lines)
    streams straight-line code at 8 bytes per 1 + 2 cycles but cannot hide
    a branch to a target it does not hold, nor a literal load (LDR Rx, [pc])
    from flash; the SRAM has no wait states."""
    name: str
    refill: int              # P, TRM Table 3-1: 1..3
    it: float                # IT: 1, or 0 when folded
    pipelined: bool          # load/store single after a load single: 1 cycle
    branch_ws: int           # wait states on a taken branch's refill
    short_hits: bool         # targets within 16 bytes are in the prefetch buffer
    literal_ws: int          # wait states of a literal load (+1: fetch contention)
    fetch_stalls: bool       # straight-line runs limited to 8 bytes per 3 cycles
    mull: int
    div: int


#: the lower bound: the TRM's zero-wait-state timings with the shortest
#: refill, folded ITs and every flash access hidden (no flash does better)
LOW = CycleAssumptions("low", 1, 0, True, 0, True, 0, False, 3, 2)
#: the model: the middle refill, two wait states wherever the prefetch
#: buffer cannot have the code (a taken branch beyond 16 bytes) or data (a
#: literal), fetch-bound straight-line runs, the TRM's pipelining
CENTRAL = CycleAssumptions("central", 2, 1, True, 2, True, 2, True, 4, 7)
#: the upper bound: the longest refill, no pipelining, every taken branch
#: and literal waits for the flash (+1 fetch contention, TRM 3.3.2)
HIGH = CycleAssumptions("high", 3, 1, False, 2, False, 3, True, 5, 12)


def cycle_model(mix: Mapping[str, float], a: CycleAssumptions = CENTRAL) -> float:
    """Cycles of the instruction mix @mix (qemu_bench._Mix) under @a."""
    c = dict(BASE_CYCLES, it=a.it, mull=a.mull, div=a.div)
    if not a.pipelined:
        c.update(ld_p=2, st_p=2, lit_p=2)
    cycles = sum(c[k] * mix.get(k, 0) for k in c) + mix.get("regs", 0)
    cycles += (mix.get("lit", 0) + mix.get("lit_p", 0)) * a.literal_ws
    taken = mix.get("taken", 0)
    far = taken - (mix.get("taken_short", 0) if a.short_hits else 0)
    cycles += taken * a.refill + far * a.branch_ws
    if a.fetch_stalls:
        cycles += mix.get("fetch_stall", 0)
    return cycles


def mix_instructions(mix: Mapping[str, float]) -> float:
    return sum(mix.get(k, 0) for k in BASE_CYCLES)


#: Cycles per instruction: THE constant by which every CPU time of the
#: project is computed (this simulator estimate, ./wren reproduce, the
#: energy models). It is derive_cpi() of the measured mix of both UDP paths
#: on the Cortex-M3 (qemu_bench.udp: the IPv6 loopback and two nodes on a
#: wire, every payload size): cycle_model(CENTRAL) of the summed mix, 1.99
#: to 2.03 per path (./wren cpucosts prints it), rounded to 0.05;
#: CPI_LOW and CPI_HIGH bound LOW's and HIGH's per size (1.43 .. 2.36), the
#: band the figures draw. tests/py/test_cpu.py re-derives all three.
CPI = 2.0
CPI_LOW = 1.4
CPI_HIGH = 2.4
CPI_BAND = (CPI_LOW, CPI_HIGH)


def derive_cpi(mixes: Sequence[Mapping[str, float]]) -> tuple[float, float, float]:
    """(CPI, CPI_LOW, CPI_HIGH) from measured instruction mixes (one per
    path and payload size): CENTRAL over their sum rounded to 0.05, LOW's
    smallest rounded down, HIGH's largest rounded up."""
    total: dict[str, float] = {}
    for m in mixes:
        for k, v in m.items():
            total[k] = total.get(k, 0) + v
    def cpi(m: Mapping[str, float], a: CycleAssumptions) -> float:
        return cycle_model(m, a) / mix_instructions(m)
    central = round(cpi(total, CENTRAL) * 20) / 20
    low = math.floor(min(cpi(m, LOW) for m in mixes) * 20 + 1e-9) / 20
    high = math.ceil(max(cpi(m, HIGH) for m in mixes) * 20 - 1e-9) / 20
    return central, low, high


def measured_cpi() -> tuple[tuple[float, float, float], list[str]]:
    """derive_cpi() of the UDP images' mixes under qemu (qemu_bench.udp),
    and lines saying what each path gives."""
    from . import qemu_bench
    mixes, lines = [], []
    for mode in qemu_bench.IMAGES:
        ms = [u.mix for u in qemu_bench.udp(mode).values()]
        mixes += ms
        c, lo, hi = derive_cpi(ms)
        lines.append(f"  {mode:>8}: CPI {c:g} (band {lo:g}..{hi:g}) over {len(ms)} payload sizes")
    return derive_cpi(mixes), lines


def seconds(instructions: float, cpi: float = CPI) -> float:
    """Cortex-M3 time of @instructions at @cpi and CLOCK_HZ."""
    return instructions * cpi / CLOCK_HZ


def model_text() -> str:
    """The cycle model in one clause, for rows and notes."""
    return (f"cycles = Cortex-M3 instructions x CPI {CPI:g} (band {CPI_LOW:g}..{CPI_HIGH:g}) "
            f"at {CLOCK_HZ / 1e6:g} MHz (STM32F103 from flash, 2 wait states, prefetch; "
            f"wren.cpu)")


COMMAND = "./wren cpucosts"


def load(path: Path = COSTS) -> dict[str, Any]:
    """The costs file: {"command", "commit", ..., "instructions": {op: n}}."""
    with open(path, "rb") as f:
        return tomllib.load(f)


def _commit() -> str:
    def git(*a: str) -> str:
        return subprocess.run(["git", "-C", str(paths.ROOT), *a], capture_output=True,
                              text=True, check=False).stdout.strip()
    # the last commit that changed what is measured (the stack, the image,
    # the build): stable when unrelated commits come before it
    built = ("src", "runtime/cortexm", "cmake", "CMakeLists.txt")
    head = git("log", "-1", "--format=%H", "--", *built) or "unknown"
    dirty = git("status", "--porcelain", "--", *built)
    return head + (" (with uncommitted changes to src/, runtime/cortexm or the build)"
                   if dirty else "")


def render(instructions: Mapping[str, float], commit: str) -> str:
    """The text of the costs file."""
    lines = [
        "# Cortex-M3 instructions per operation, measured: GENERATED by "
        f"`{COMMAND}`, do not edit.",
        "# Image runtime/cortexm/main_cpucost.c (the default stack, no software MAC),",
        "# every guest instruction between its bench_mark() pairs counted under qemu",
        f"# (mps2-an385, -singlestep -d exec), divided by the {REPS} repetitions.",
        "# Read by python/wren/cpu.py (the simulator's CPU active-time model).",
        f'command = "{COMMAND}"',
        f'commit = "{commit}"',
        f'image = "wren_{IMAGE}.elf"',
        f"reps = {REPS}",
        f"raw_payload_bytes = {RAW_LEN}",
        f"udp_payload_bytes = {UDP_LEN}",
        "",
        "[instructions]",
    ]
    # a count divided by REPS (8) has at most 3 decimals: written exactly
    lines += [f"{op} = {instructions[op]:.3f}" for op in OPS]
    return "\n".join(lines) + "\n"


def measure() -> dict[str, float]:
    """Instructions per operation, traced from the image under qemu."""
    from . import qemu_bench
    _, phases = qemu_bench.trace(IMAGE)
    if sorted(phases) != list(range(1, len(OPS) + 1)):
        raise RuntimeError(f"wren_{IMAGE}.elf: expected {len(OPS)} measured phases, "
                           f"traced {sorted(phases)}")
    return {op: sum(phases[i + 1].values()) / REPS for i, op in enumerate(OPS)}


def write(path: Path = COSTS) -> dict[str, float]:
    ins = measure()
    path.write_text(render(ins, _commit()))
    return ins


def node_instructions(c: Mapping[str, int], ins: Mapping[str, float]) -> dict[str, float]:
    """The instructions one node executed, per operation, from its counters."""
    fwd = c.get("ipv6.rx_forwarded", 0)
    dg_rx = max(c.get("ipv6.rx_pkts", 0) - fwd, 0)
    dg_tx = max(c.get("ipv6.tx_pkts", 0) - fwd, 0)
    return {
        "frame_tx": ins["frame_tx"] * c.get("netif.tx_frames", 0),
        "frame_rx": ins["frame_rx"] * c.get("netif.rx_frames", 0),
        "frame_drop": ins["frame_drop"] * c.get("netif.rx_drop_not_for_us", 0),
        "udp_rx": (ins["udp_rx"] - ins["frame_rx"]) * dg_rx,
        "udp_tx": (ins["udp_tx"] - ins["frame_tx"]) * dg_tx,
        "forward": (ins["forward"] - ins["frame_rx"] - ins["frame_tx"]) * fwd,
    }


def node_cpu(c: Mapping[str, int], duration_s: float, ins: Mapping[str, float],
             clock_hz: float = CLOCK_HZ, cpi: float = CPI) -> dict[str, Any]:
    """The cpu block of one node: instructions, active time, duty cycle."""
    per_op = node_instructions(c, ins)
    total = sum(per_op.values())
    t = total * cpi / clock_hz
    up = c.get("radio.proc_us", 0) / 1e6
    return {"instructions": total, "instructions_per_op": per_op, "active_s": t,
            "active_ms": t * 1e3, "duty": t / duration_s if duration_s > 0 else 0.0,
            "upload_s": up,
            "duty_with_upload": (t + up) / duration_s if duration_s > 0 else 0.0}


def note(costs: Mapping[str, Any]) -> str:
    return (f"CPU time estimated: Cortex-M3 instructions per frame/datagram measured under qemu "
            f"({COMMAND}, commit {str(costs['commit'])[:12]}) x counters, CPI {CPI:g} "
            f"(band {CPI_LOW:g}..{CPI_HIGH:g}, wren.cpu's cycle model), "
            f"{CLOCK_HZ / 1e6:g} MHz (the iotlab-m3's STM32F103, whatever the energy "
            f"profile); MAC ACKs/backoff (radio hardware), TCP/CoAP/RPL/ND processing and "
            f"timers not charged")


def annotate(result: dict[str, Any], path: Path = COSTS) -> None:
    """Add each node's "cpu" block and the network's to a ./wren sim result."""
    costs = load(path)
    ins = costs["instructions"]
    duration = float(result["duration_s"])
    total = 0.0
    for nd in result["nodes"]:
        nd["cpu"] = node_cpu(nd["counters"], duration, ins)
        total += nd["cpu"]["active_s"]
    n = len(result["nodes"])
    result["cpu"] = {
        "clock_hz": CLOCK_HZ, "cpi": CPI, "cpi_band": list(CPI_BAND),
        "instructions_per_op": dict(ins),
        "costs_file": str(path.relative_to(paths.ROOT)) if path.is_relative_to(paths.ROOT)
        else str(path),
        "command": costs["command"], "commit": costs["commit"],
        "active_s": total, "mean_duty": total / duration / n if duration > 0 and n else 0.0,
        "note": note(costs),
    }
