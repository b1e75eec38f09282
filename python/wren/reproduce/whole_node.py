"""The figures of a whole node's memory and energy: RIOT Table 3, Figs. 10
and 12, the German paper's Abb. 4.

Memory: the papers' figures are whole RIOT applications (kernel, thread
stacks, application, libc; Table 3 and Abb. 4) or a network stack with its
buffers (Fig. 10). wren's whole figures are the whole_node images
(runtime/cortexm/main_whole_node.c: the Table 3 application as one
Cortex-M3 image, run and checked under qemu; wren.size.whole_image); the
stack-only figures (the stack's modules and the helpers they reach,
wren.size.image_report) stand beside them as a second row, never alone.

Energy (Fig. 12): two simulated nodes, one sending UDP datagrams as the
paper's (20 bytes, one per second) to the other, each node's board charged
with the iotlab-m3-board profile: the radio's datasheet currents in each
state (listening between packets, as RIOT's AT86RF231 driver idles in
RX_AACK_ON), and the MCU at the RIOT paper's own board figure while the CPU
model (wren.cpu: cpu.CPI cycles per instruction at cpu.CLOCK_HZ) says it
runs; asleep it has no cited current, so the row gives the band between it
charged nothing and it never sleeping.
"""
import functools
from contextlib import redirect_stdout
from io import StringIO
from typing import Any

from .core import Outcome, Panel, Row, Series, paper_number, pv

#: what the whole images are, for the rows
WHOLE_MEASURED = ("whole Cortex-M3 image (arm-none-eabi-gcc -Os, runtime, port, newlib-nano, "
                  "application) from its ELF; run and checked under qemu mps2-an385")
WHOLE_DIFFERS = ("no kernel, scheduler threads or per-layer thread stacks (one run loop); "
                 "wren counts its C library heap (stdio), RIOT's size does not")
STACK_ONLY = ("stack only: the stack's modules and the C helpers they reach "
              "(wren.size.image_report), no port, libc or application")


def _arm_figures() -> dict[str, Any]:
    """Cortex-M3 image figures (wren.size): built once."""
    return _arm_cached()


@functools.cache
def _arm_cached() -> dict[str, Any]:
    from .. import size
    with redirect_stdout(StringIO()):
        host, arena = size.image_report("6ln_host")
        udp, udp_arena = size.image_report("udp")
        depth = size.deepest_stack("6ln_host")
        whole = {i: size.whole_image(i) for i in size.WHOLE_IMAGES}
        runs = {i: size.whole_run(i) for i in size.WHOLE_IMAGES}
    return {"host": host, "arena": arena, "udp": udp, "udp_arena": udp_arena, "depth": depth,
            "host_rom": size.counted(host, "rom"), "host_ram": size.counted(host, "ram"),
            "udp_rom": size.counted(udp, "rom"), "udp_ram": size.counted(udp, "ram"),
            "udp_sock_rom": udp["UDP"]["rom"] + udp["sock"]["rom"],
            "udp_sock_ram": udp["UDP"]["ram"] + udp["sock"]["ram"],
            "refl": whole["whole_node_reflector"], "loop": whole["whole_node_loopback"],
            "refl_run": runs["whole_node_reflector"], "loop_run": runs["whole_node_loopback"]}


def _reflector_mem(a: dict[str, Any]) -> tuple[int, int]:
    """Stack only: ROM and RAM of UDP over 6LoWPAN/802.15.4 on Cortex-M3, the
    6LoWPAN host's stack (+ its deepest call stack and packet buffer) + UDP
    and sock."""
    rom = a["host_rom"] + a["udp_sock_rom"]
    ram = a["host_ram"] + a["udp_sock_ram"] + a["arena"] + (a["depth"] or 0)
    return rom, ram


def _whole_note(w: dict[str, int], run: dict[str, int]) -> str:
    return (f"ROM text {w['text']} + data {w['data']}; RAM data {w['data']} + bss {w['bss']} "
            f"(packet buffer {w['arena']}) + heap {w['heap']} + stack {w['stack']} "
            f"(deepest measured {run['deepest']}: margin {w['stack'] - run['deepest']} bytes, "
            f"{100 * (w['stack'] - run['deepest']) / run['deepest']:.0f} %), application "
            f"buffer {w['app_buffers']} left out as the paper's")


def _table3_rows(a: dict[str, Any]) -> list[Row]:
    refl, loop = a["refl"], a["loop"]
    srom, sram = _reflector_mem(a)
    lrom, lram = a["udp_rom"], a["udp_ram"] + a["udp_arena"]
    so = dict(measured=STACK_ONLY, modelled="",
              differs="leaves out what the paper's figure holds: kernel, libc, application, "
                      "thread stacks", kind="label")
    whole = dict(measured=WHOLE_MEASURED, modelled="", differs=WHOLE_DIFFERS, kind="paper")
    rows = []
    for name, key, w, run, s_rom, s_ram in (
            ("IP loopback", "loopback", loop, a["loop_run"], lrom, lram),
            ("L2 (6LoWPAN, 802.15.4) reflector", "reflector", refl, a["refl_run"], srom, sram)):
        note = _whole_note(w, run)
        head = key == "reflector"   # the paper's application: README's rows
        rows += [Row(f"Sock UDP - {name}: ROM, whole image", "bytes", w["rom"],
                     pv(f"riot.table3.{key}_rom"), note=note, headline=head, **whole),
                 Row(f"Sock UDP - {name}: ROM, stack only", "bytes", s_rom,
                     pv(f"riot.table3.{key}_rom"), **so),
                 Row(f"Sock UDP - {name}: RAM, whole image", "bytes", w["ram_no_app"],
                     pv(f"riot.table3.{key}_ram"), note=note, headline=head, **whole),
                 Row(f"Sock UDP - {name}: RAM, stack only", "bytes", s_ram,
                     pv(f"riot.table3.{key}_ram"),
                     note="state + packet buffer" + (" + deepest call stack"
                                                     if key == "reflector" else ""), **so)]
    no_drv = "wren has no AT86RF231 driver (its radios are the simulator's)"
    no_posix = "wren has no POSIX socket layer (sock is its only application API)"
    for key, what, why in (("driver", "Sock UDP - IF driver", no_drv),
                           ("posix", "POSIX API overhead", no_posix)):
        for kind in ("rom", "ram"):
            rows.append(Row(f"{what}: {kind.upper()}", "bytes", None,
                            pv(f"riot.table3.{key}_{kind}"), note=why, measured="nothing",
                            differs=why, kind="label"))
    return rows


def riot_table3(quick: bool) -> Outcome:
    a = _arm_figures()
    srom, sram = _reflector_mem(a)
    lrom, lram = a["udp_rom"], a["udp_ram"] + a["udp_arena"]
    cats = ["IP loopback", "L2 reflector", "IF driver"]
    keys = ["loopback", "reflector", "driver"]
    whole = {"ROM": [a["loop"]["rom"], a["refl"]["rom"], None],
             "RAM": [a["loop"]["ram_no_app"], a["refl"]["ram_no_app"], None]}
    only = {"ROM": [lrom, srom, None], "RAM": [lram, sram, None]}
    panels = [Panel(f"Table 3: {kind}", "", "bytes",
                    [Series("paper (GNRC, RIOT kernel and app included)", cats,
                            [paper_number(f"riot.table3.{k}_{kind.lower()}") for k in keys],
                            "C3", True),
                     Series("wren: whole image", cats, whole[kind], "C0"),
                     Series("wren: stack only", cats, only[kind], "C2")], bars=True)
              for kind in ("ROM", "RAM")]
    return Outcome(rows=_table3_rows(a), panels=panels, notes=[
        "wren whole image: runtime/cortexm/main_whole_node.c (whole_node_reflector, "
        "whole_node_loopback), the paper's application: sock UDP datagrams of 8 to 1,232 bytes "
        "out and back through the stack (down to the IPv6 loopback, or down to 6LoWPAN on the "
        "L2 reflector), checked under qemu; ROM = .text + .data, RAM = .data + .bss + heap + "
        "the allocated stack, packet buffer 6,144 bytes (GNRC's default GNRC_PKTBUF_SIZE), "
        "the application's buffer left out as the paper's (w/o application buffers). Stack "
        "only (second row): the stack's modules and the C helpers they reach "
        "(wren.size.image_report). The paper's figures are whole RIOT applications."])


def _fig10_rows(a: dict[str, Any], ram: int, kib: float) -> list[Row]:
    refl = a["refl"]
    return [
        Row("RAM of the 6LoWPAN stack with buffers for one full IPv6 packet, stack only", "kB",
            ram / kib, pv("riot.fig10.ram_kb"),
            note=f"state + deepest call stack ({a['depth']}) + the packet buffer's high water "
                 f"of a 1,232-byte datagram out and back on the reflector",
            measured="stack modules' RAM from the 6ln_host image's map, its deepest call stack "
                     "and the whole_node_reflector run's packet-buffer high water under qemu",
            modelled="", kind="paper",
            differs="GNRC's figure holds its per-layer thread stacks and netdev/netapi; wren "
                    "has no threads (one call stack measured instead)"),
        Row("the same stack as a whole node (whole_node_reflector, for context)", "kB",
            refl["ram_no_app"] / kib, pv("riot.fig10.ram_kb"),
            note="kernel-free whole image with a 6,144-byte packet buffer (Table 3's row)",
            measured=WHOLE_MEASURED, modelled="", kind="label",
            differs="a whole application with GNRC's default packet buffer, not Fig. 10's "
                    "stack with one packet's buffers"),
        Row("ROM of the 6LoWPAN host stack, stack only", "kB", a["host_rom"] / kib,
            pv("riot.fig10.rom_text"), measured=STACK_ONLY, modelled="", kind="label",
            differs="the paper gives no GNRC number in the text (only the bars)")]


def riot_fig10(quick: bool) -> Outcome:
    from .. import size
    a = _arm_figures()
    host = a["host"]
    hw = _packet_high_water()
    ram = a["host_ram"] + a["udp_sock_ram"] + (a["depth"] or 0) + hw
    kib = 1024.0
    mods = [m for m, _, _ in size.MODULES] + [size.HELPERS]
    shown = [m for m in mods if host[m]["rom"] or host[m]["ram"]]
    return Outcome(
        rows=_fig10_rows(a, ram, kib),
        panels=[Panel("wren 6LoWPAN host on Cortex-M3, per module", "", "bytes",
                      [Series("ROM", [m.split(" (")[0] for m in shown],
                              [host[m]["rom"] for m in shown], "C0"),
                       Series("RAM (state)", [m.split(" (")[0] for m in shown],
                              [host[m]["ram"] for m in shown], "C1")], bars=True),
                Panel("RAM in all", "", "kB",
                      [Series("paper: GNRC ~6 kB (stack, buffers for one IPv6 packet)",
                              ["GNRC"], [paper_number("riot.fig10.ram_kb")], "C3", True),
                       Series("wren: stack only, one packet's buffer", ["wren"], [ram / kib],
                              "C0"),
                       Series("wren: whole node", ["wren whole"],
                              [a["refl"]["ram_no_app"] / kib], "C2")], bars=True)],
        notes=["Fig. 10 compares network stacks (GNRC without RPL, lwIP, emb6) with buffers "
               "chosen 'to fit one full IPv6 packet including 6LoWPAN fragmentation meta data' "
               "(section 5.3.1), not whole applications: wren's like-for-like row is the "
               "6ln_host stack + UDP and sock, its deepest call stack under qemu and the packet "
               f"buffer's high water ({hw} bytes) of one 1,232-byte datagram sent and received "
               "back on the L2 reflector. lwIP and emb6 are not built here. kB = 1,024 bytes."])


@functools.cache
def _packet_high_water() -> int:
    """Packet-buffer high water of the whole_node_reflector run under qemu."""
    import re
    import subprocess

    from .. import size
    res = subprocess.run(["qemu-system-arm", "-M", "mps2-an385", "-nographic",
                          "-semihosting-config", "enable=on,target=native", "-kernel",
                          str(size._elf("whole_node_reflector"))],
                         capture_output=True, text=True, timeout=120)
    m = re.search(r"high water (\d+) bytes", res.stdout)
    if res.returncode != 0 or not m:
        raise subprocess.SubprocessError(f"whole_node_reflector failed: {res.stdout}")
    return int(m.group(1))


# ---- Fig. 12: board energy ------------------------------------------------

PROFILE = "iotlab-m3-board"
PORT = 9000
PAYLOAD = 20      # the paper's packets: "100 packets of 20 Bytes ... one packet per second"


def board_scenario(count: int) -> dict[str, Any]:
    """Node 0 sends @count UDP datagrams of PAYLOAD bytes to node 1, one per
    second (at 0.5, 1.5, ... s), through the whole stack; the run lasts
    @count seconds, one per packet."""
    from ..addr import ll
    return {"name": "riot_fig12", "seed": 1, "duration": float(count),
            "nodes": [{"x": 0.0, "y": 0.0}, {"x": 10.0, "y": 0.0}],
            "links": [{"from": 0, "to": 1}],
            "shell": [{"at": 0.0, "node": 1, "cmd": f"udp server start {PORT} sink"},
                      {"at": 0.5, "node": 0,
                       "cmd": f"udp send {ll(1)} {PORT} {PAYLOAD} {count} 1000"}]}


def board_energy(res: dict[str, Any], node: int, packets: int) -> dict[str, float]:
    """Per packet, mJ: the node's radio, its MCU active (CPU model's time),
    the board with the MCU asleep uncharged (low) and never sleeping (high)."""
    from .. import energy
    p = energy.profile(PROFILE)
    e = res["nodes"][node]["energy"]
    radio = sum(e["radio_mj"].values())
    never = p.supply_v * (p.mcu_active_ma or 0.0) * float(res["duration_s"])
    return {"radio": radio / packets, "mcu_active": e["mcu_active_mj"] / packets,
            "mcu_sleep": e["mcu_sleep_mj"] / packets, "low": e["mj"] / packets,
            "high": (radio + never) / packets,
            "cpu_ms": res["nodes"][node]["cpu"]["active_ms"] / packets}


def _energy_run(quick: bool) -> dict[str, Any]:
    from .. import energy, scenario
    count = 20 if quick else 100
    res = scenario.run(board_scenario(count), progress=False)
    energy.annotate(res, PROFILE)
    res["packets"] = count
    return res


def _fig12_rows(tx: dict[str, float], rx: dict[str, float], n: int, got: int,
                paper: Any) -> list[Row]:
    from .. import cpu
    cpu_model = (f"CPU time = Cortex-M3 instructions (qemu) x cpu.CPI {cpu.CPI:g} at "
                 f"cpu.CLOCK_HZ {cpu.CLOCK_HZ / 1e6:g} MHz")
    currents = ("AT86RF231 datasheet currents; MCU + board 15 mA while running (RIOT paper "
                "5.1/5.2: 90 mW board, 45 mW radio)")
    differs = ("no OS scheduling, timers or sleep cycling measured; no MCU sleep current "
               "cited; simulated channel")
    rows = []
    for who, e, k in (("sender", tx, n), ("receiver", rx, got)):
        rows += [
            Row(f"{who}: board energy per packet, lower bound (the MCU's sleep uncharged: "
                f"no cited current)", "mJ", e["low"], paper, headline=who == "sender",
                note=f"radio {e['radio']:.1f} + MCU active {e['mcu_active']:.4f} mJ "
                     f"({e['cpu_ms']:.3f} ms CPU per packet); over {k} packets",
                measured="radio state times and stack counters of 2 simulated nodes (./wren sim)",
                modelled=f"{currents}; {cpu_model}", differs=differs, kind="paper"),
            Row(f"{who}: board energy per packet, upper bound (the MCU never sleeping)", "mJ",
                e["high"], paper, headline=who == "sender",
                note=f"radio {e['radio']:.1f} + MCU at 15 mA for the whole second",
                measured="radio state times of 2 simulated nodes (./wren sim)",
                modelled=f"{currents}; the MCU running all the time", differs=differs,
                kind="paper")]
    return rows


def riot_fig12(quick: bool) -> Outcome:
    res = _energy_run(quick)
    n = res["packets"]
    got = res["nodes"][1]["counters"].get("udp.rx", 0)
    tx = board_energy(res, 0, n)
    rx = board_energy(res, 1, max(got, 1))
    paper = pv("riot.fig12.mj_per_packet")
    parts = ("radio", "mcu_active")
    return Outcome(
        rows=_fig12_rows(tx, rx, n, got, paper),
        panels=[Panel(f"energy per packet, {n} UDP datagrams of {PAYLOAD} bytes at 1 packet/s",
                      "", "mJ",
                      [Series("paper: a RIOT node (whole board)", ["sender", "receiver"],
                              [paper.value, paper.value], "C3", True)]
                      + [Series(f"wren board: {s.replace('_', ' ')}", ["sender", "receiver"],
                                [tx[s], rx[s]], f"C{i}") for i, s in enumerate(parts)]
                      + [Series("wren board: MCU never sleeping", ["sender", "receiver"],
                                [tx["high"], rx["high"]], "C4")], bars=True)],
        notes=[f"wren: ./wren sim on two nodes, node 0 sending {n} UDP datagrams of {PAYLOAD} "
               f"bytes at 1 s to node 1 (udp send through sock, UDP, IPv6, 6LoWPAN, CSMA/CA "
               f"with ACKs), the radio listening between packets as RIOT's AT86RF231 driver "
               f"idles in RX_AACK_ON (no radio duty cycling). Energy profile {PROFILE}: "
               f"{res['energy']['description']}; {res['energy']['mcu']}. The paper's ~140 mJ "
               "is 'largely shaped by the OS resource scheduling including sleep cycling', "
               f"which wren does not model. Received: {got} of {n}."])


def de_fig4(quick: bool) -> Outcome:
    a = _arm_figures()
    refl = a["refl"]
    # the paper's packet buffer: "Die gewählte Paketspeichergröße ... ist 4 kB"
    de_arena = 4096
    whole = (refl["ram_no_app"] - refl["arena"] + de_arena) / 1000
    _, sram = _reflector_mem(a)
    so = sram / 1000
    common = dict(measured=WHOLE_MEASURED + "; packet buffer taken at the paper's 4 kB",
                  modelled="the 6,144-byte packet buffer replaced by 4,096 bytes (one array)",
                  kind="paper")
    return Outcome(
        rows=[Row("RAM of UDP + IPv6 + 6LoWPAN + 802.15.4, sender, whole image", "kB", whole,
                  pv("de.fig4.ram_kb_sender"), differs=WHOLE_DIFFERS, **common),
              Row("the same, receiver (one more thread in RIOT), whole image", "kB", whole,
                  pv("de.fig4.ram_kb_receiver"),
                  differs=WHOLE_DIFFERS + "; one node sends and receives (no server thread)",
                  **common),
              Row("sender, stack only", "kB", so, pv("de.fig4.ram_kb_sender"),
                  measured=STACK_ONLY, modelled="", kind="label",
                  differs="leaves out kernel, drivers, application and thread stacks"),
              Row("receiver, stack only", "kB", so, pv("de.fig4.ram_kb_receiver"),
                  measured=STACK_ONLY, modelled="", kind="label",
                  differs="leaves out kernel, drivers, application and thread stacks")],
        panels=[Panel("RAM in use", "", "kB",
                      [Series("paper (RIOT kernel, threads, app)", ["sender", "receiver"],
                              [paper_number("de.fig4.ram_kb_sender"),
                               paper_number("de.fig4.ram_kb_receiver")], "C3", True),
                       Series("wren whole image", ["sender", "receiver"], [whole, whole], "C0"),
                       Series("wren stack only", ["sender", "receiver"], [so, so], "C2")],
                      bars=True)],
        notes=["wren whole image: whole_node_reflector (UDP over 6LoWPAN on the L2 reflector, "
               "as Table 3's row) with the German paper's 4 kB packet buffer in place of "
               "GNRC's later 6,144 bytes; one node sends and receives with the same RAM (no "
               "thread per server). Stack only: 6ln_host stack + UDP + sock, packet buffer and "
               "deepest call stack. kB = 1,000 bytes."])
