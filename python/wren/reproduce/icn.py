"""The RIOT paper's ICN figures (section 5.3.2): Fig. 14, the NDN stack's
ROM and RAM beside the IP stack's in comparable configurations (whole
Cortex-M3 images), and Fig. 15, its processing per request against name
length beside wren's IP path. The NDN image is runtime/cortexm/main_ndn.c
(wren.ndn_m3), the IP one main_whole_node.c's reflector image."""
import re
import subprocess

from .. import cpu, ndn_m3
from .core import CPU_MODEL, Outcome, Panel, Row, Series, _us, pv

MODEL = cpu.model_text()
NDN_IMAGE = ("the whole_node_ndn image (runtime/cortexm/main_ndn.c: the ndn module with "
             "NDNLPv2 on 802.15.4, a consumer and a producer, checked under qemu)")
IP_IMAGE = ("the whole_node_reflector image (main_whole_node.c: sock UDP, 6LoWPAN, IPv6 on "
            "802.15.4, the RIOT paper's Table 3 application)")


def _same(n: dict[str, int], ip: dict[str, int]) -> str:
    return (f"both images: the same runtime, stand-in device, {n['arena']:,}-byte packet buffer "
            f"and heap; the NDN image's stack is {n['stack']:,} bytes, not {ip['stack']:,}, for "
            f"its deeper calls (DigestSha256's SHA-256)")


def _run_ndn() -> dict[str, int]:
    """The NDN image's own run: its deepest stack and packet-buffer high water."""
    from .. import build
    elf = build.arm() / f"runtime/cortexm/wren_{ndn_m3.IMAGE}.elf"
    res = subprocess.run(["qemu-system-arm", "-M", "mps2-an385", "-nographic",
                          "-semihosting-config", "enable=on,target=native", "-kernel", str(elf)],
                         capture_output=True, text=True, timeout=120)
    d = re.search(r"deepest stack (\d+) of", res.stdout)
    h = re.search(r"high water (\d+) bytes", res.stdout)
    if res.returncode != 0 or d is None or h is None:
        raise RuntimeError(f"wren_{ndn_m3.IMAGE}.elf failed under qemu: {res.stdout[-300:]}")
    return {"deepest": int(d.group(1)), "high_water": int(h.group(1))}


def _fig14_rows(n: dict[str, int], ip: dict[str, int], run: dict[str, int]) -> list[Row]:
    same = _same(n, ip)
    stack_ram = n["ndn_state"] + run["deepest"] + run["high_water"]
    return [
        Row("RAM of the NDN stack: its state, deepest call stack, packet-buffer high water",
            "kB", stack_ram / 1024, pv("riot.fig14.icn_ram_kb"), headline=True,
            note=f"ndn module {n['ndn_state']} + stack {run['deepest']} + packet buffer "
                 f"{run['high_water']} bytes",
            measured=f"the ndn module's static state from the ELF's symbols, and the deepest "
                     f"stack and packet-buffer high water of {NDN_IMAGE}",
            modelled="",
            differs="CCN-lite on RIOT (kernel threads, its own buffers) against wren's "
                    "forwarder (faces, PIT, a 1,024-byte Content Store, FIB, NDNLPv2) without "
                    "threads; the image's deepest stack includes the neighbour it plays"),
        Row("ROM, NDN whole image", "bytes", n["rom"], None,
            note=f"IP whole image {ip['rom']}: NDN/IP {n['rom'] / ip['rom']:.2f}",
            measured=NDN_IMAGE + "; ROM = .text + .ARM.exidx + .data", modelled="",
            differs="the paper shows bars without numbers; " + same, kind="label"),
        Row("RAM, NDN whole image (application buffers and the neighbour apart)", "bytes",
            n["ram_node"], None,
            note=f"IP whole image {ip['ram_no_app']}: NDN/IP {n['ram_node'] / ip['ram_no_app']:.2f}"
                 f"; the neighbour's device and buffers {n['peer']}",
            measured=NDN_IMAGE + "; RAM = .data + .bss + heap + stack", modelled="",
            differs="the paper shows bars without numbers; " + same, kind="label"),
    ]


def riot_fig14(quick: bool) -> Outcome:
    n, ip = ndn_m3.image(), ndn_m3.image(ndn_m3.IP_IMAGE)
    run = _run_ndn()
    cats = ["ROM", "RAM"]
    panel = Panel("Fig. 14: whole Cortex-M3 images, NDN beside IP", "", "bytes",
                  [Series("wren: IP (6LoWPAN, UDP) whole image", cats,
                          [ip["rom"], ip["ram_no_app"]], "C0"),
                   Series("wren: NDN (forwarder, NDNLPv2) whole image", cats,
                          [n["rom"], n["ram_node"]], "C2")], bars=True)
    return Outcome(rows=_fig14_rows(n, ip, run), panels=[panel], notes=[
        f"NDN: {NDN_IMAGE}. IP: {IP_IMAGE}. {_same(n, ip)}. The application's buffers (and, in the NDN "
        "image, the device and buffers of the neighbour the image plays) are left out, as the "
        "paper's figures are w/o application buffers."])


def _fig15_series(c: dict[int, ndn_m3.NdnM3]) -> tuple[list[int], list[float], list[float | None],
                                                        list[float]]:
    xs = sorted(c)
    snd = [_us(c[x].sender) for x in xs]
    rcv = [_us(c[x].receiver) if c[x].receiver is not None else None for x in xs]
    ip = [_us(ndn_m3.ip_pipe(ndn_m3.interest_len(x))[1]) for x in xs]
    return xs, snd, rcv, ip


def riot_fig15(quick: bool) -> Outcome:
    c = ndn_m3.counts()
    ratio, d = ndn_m3.cost_ratio_shortest()
    xs, snd, rcv, ip = _fig15_series(c)
    n = d["name_len"]
    rows = [
        Row(f"NDN / IP Cortex-M3 instructions per request, shortest name ({n}-octet Name)",
            "ratio", ratio, pv("riot.fig15.icn_text"), paper_value=2.0, headline=True,
            note=f"NDN {d['sender']:.0f} (Interest out) + {d['receiver']:.0f} (Interest in to "
                 f"Data out) against IP {d['ip']:.0f} ({d['ip_payload']}-byte datagram out and "
                 f"in); the paper: more than 2",
            measured="Cortex-M3 instructions under qemu: the whole_node_ndn image's sender and "
                     "receiver phases; wren_udp_pipe.elf's datagram of the Interest's size",
            modelled="",
            differs="NDN's receiver phase also finds and sends the Data (with its SHA-256 "
                    "digest checked by the forwarder), which the IP count has no part of; "
                    "CCN-lite and GNRC were timed on the iotlab-m3"),
        Row(f"NDN sender, Interest out ({n}-octet Name)", "us", _us(d["sender"]), None,
            measured="Cortex-M3 instructions under qemu, from the consumer's express to the "
                     "device holding the frame", modelled=MODEL,
            differs="the paper's figure has no number in the text", kind="label"),
        Row(f"NDN receiver, Interest in to Data out ({n}-octet Name)", "us",
            _us(d["receiver"]), None,
            measured="Cortex-M3 instructions under qemu, from the device handed the Interest "
                     "to it holding the Data", modelled=MODEL,
            differs="the paper's figure has no number in the text", kind="label"),
    ]
    panel = Panel("Fig. 15: processing per request against name length (Cortex-M3)",
                  "Name length (octets)", "CPU time (us)",
                  [Series("wren NDN: sender (Interest out)", xs, snd, "o-"),
                   Series("wren NDN: receiver (Interest in, Data out)", xs, rcv, "s-"),
                   Series("wren IP: datagram of the Interest's size out and in", xs, ip, "^--")])
    return Outcome(rows=rows, panels=[panel], notes=[
        f"wren: {NDN_IMAGE}, every guest instruction traced between the image's marks; IP: "
        f"wren_udp_pipe.elf at the nearest measured payload; time by {CPU_MODEL}. The receiver "
        "runs up to the Name whose Data (8 bytes of content, DigestSha256) fills a frame, the "
        "sender up to the Interest that does, as the paper's."])
