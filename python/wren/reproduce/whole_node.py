"""The figures of a whole node's memory and energy: RIOT Table 3, Figs. 10
and 12, the German paper's Abb. 4."""
import functools
from contextlib import redirect_stdout
from io import StringIO
from typing import Any

from .core import Outcome, Panel, Row, Series, paper_number, pv



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
    from .. import size
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
    from .. import energy, scenario
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
