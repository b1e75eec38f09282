"""Cortex-M3 size report: ROM and RAM per module, from the images' linker maps.

ROM is what an image keeps in flash (.text, .rodata, .data's initial
values); RAM is .data + .bss. Only input sections the linker kept (after
--gc-sections) count, so each module is charged for what the image uses.
The node's state lives in one global per module (runtime/cortexm/instance.c),
so RAM is charged by module too; the packet buffer arena is shown apart.

Images (runtime/cortexm/main_*.c):
  ip6lo    802.15.4 + 6LoWPAN + IPv6 + ICMPv6 echo: the smallest IP node, for a
           radio doing CSMA-CA and ACKs in hardware (CONFIG_WREN_MAC_SOFT=0)
  ip6lo_softmac  the same with the software MAC (CSMA-CA, ACKs, retries,
           indirect transmission)
  udp      IPv6 + ICMPv6 + UDP + sock_udp over the loopback
  reflect  the foundation: node, netif, 802.15.4 link, threads
  tcp      IPv6 + ICMPv6 + TCP over the loopback: a client and a listener
  ip6lo_lto  ip6lo with -flto: an additional line, not the record. LTO
           inlines across modules, the stack into the port's runtime and
           main too, so its bytes have no module; the line applies the
           whole image's saving to the stack.
"""
import argparse
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from . import build

IMAGES = ("ip6lo", "udp", "reflect")

# module -> (source files or folders, instance globals)
MODULES = [
    ("core (node, sched, timers, threads)", ["src/core"], ["wren_inst_node"]),
    ("stack assembly", ["src/stack"], []),
    ("pktbuf", ["src/pktbuf"], []),
    ("netapi/netreg/netif", ["src/net"], []),
    ("802.15.4 (frames + link)", ["src/wire/ieee802154.c", "src/link"], ["wren_inst_netif"]),
    ("6LoWPAN", ["src/sixlowpan", "src/wire/sixlowpan.c"], ["wren_inst_sixlowpan"]),
    ("IPv6", ["src/ipv6", "src/wire/ipv6.c", "src/wire/ipv6_ext.c", "src/wire/inet_csum.c"],
     ["wren_inst_ipv6"]),
    ("ICMPv6/NDP", ["src/icmpv6", "src/wire/icmpv6.c"], ["wren_inst_icmpv6"]),
    ("UDP", ["src/udp", "src/wire/udp.c"], ["wren_inst_udp"]),
    ("sock", ["src/sock"], ["wren_inst_sock_srv", "wren_inst_sock_cli"]),
    ("TCP", ["src/tcp", "src/wire/tcp.c", "src/core/siphash.c"],
     ["wren_inst_tcp", "wren_inst_tcp_lis", "wren_inst_tcp_conn"]),
]
STACK_IP6LO = ("core (node, sched, timers, threads)", "stack assembly", "pktbuf", "netapi/netreg/netif",
               "802.15.4 (frames + link)", "6LoWPAN", "IPv6", "ICMPv6/NDP")
ARENA = "wren_inst_arena"

_one = re.compile(r"^ (\.[\w.$-]+|COMMON)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)")
_name = re.compile(r"^ (\.[\w.$-]+|COMMON)\s*$")
_rest = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)")


def _kind(section: str) -> str | None:
    # .ARM.exidx/.ARM.extab (unwind tables) are loaded; .ARM.attributes is
    # build metadata the linker never puts in flash
    if section.startswith((".text", ".rodata", ".ARM.exidx", ".ARM.extab")):
        return "rom"
    if section.startswith(".data"):
        return "data"
    if section.startswith(".bss") or section == "COMMON":
        return "bss"
    return None


def parse_map(text: str) -> list[tuple[str, str, str, int]]:
    """[(object file name, section, kind, size)] for the input sections kept."""
    start = text.find("Linker script and memory map")
    out = []
    pending: str | None = None
    for line in text[start:].splitlines():
        m = _one.match(line)
        rest = _rest.match(line)
        if m:
            sec, addr, size, obj = m.groups()
        elif pending and rest:
            sec = pending
            addr, size, obj = rest.groups()
        else:
            m2 = _name.match(line)
            pending = m2.group(1) if m2 else None
            continue
        pending = None
        kind = _kind(sec)
        if kind is None or int(size, 16) == 0 or (kind == "rom" and int(addr, 16) == 0 and
                                                  sec != ".text"):
            continue
        name = re.sub(r"^.*\((.*)\)$", r"\1", obj)  # lib.a(member.o) -> member.o
        name = Path(name).name.replace(".obj", "").replace(".o", "")
        out.append((name, sec, kind, int(size, 16)))
    return out


def _files(paths_: Iterable[str]) -> set[str]:
    from . import paths
    files: set[str] = set()
    for f in paths_:
        p = paths.ROOT / f
        if p.is_dir():
            files.update(x.name for x in p.glob("*.c"))
        else:
            files.add(p.name)
    return files


def _module_of(obj: str, sec: str) -> str | None:
    for name, srcs, globs in MODULES:
        if any(sec.endswith("." + g) for g in globs):
            return name
    if obj.startswith(("instance", "main_")):
        return "arena" if sec.endswith("." + ARENA) else None
    # a file named on its own belongs to its module even inside another's folder
    for name, srcs, globs in MODULES:
        if any(Path(f).name == obj and f.endswith(".c") for f in srcs):
            return name
    for name, srcs, globs in MODULES:
        if obj in _files(srcs):
            return name
    return None


def image_report(image: str) -> tuple[dict[str, dict[str, int]], int]:
    """{module: {'rom': n, 'ram': n}} for one image, plus the arena size."""
    tree = build.arm()
    entries = parse_map((tree / f"runtime/cortexm/wren_{image}.map").read_text())
    mods = {name: {"rom": 0, "ram": 0} for name, _, _ in MODULES}
    arena = 0
    for obj, sec, kind, size in entries:
        mod = _module_of(obj, sec)
        if mod == "arena":
            arena += size
        elif mod:
            if kind in ("rom", "data"):
                mods[mod]["rom"] += size
            if kind in ("data", "bss"):
                mods[mod]["ram"] += size
    return mods, arena


def image_rom(image: str) -> int:
    """ROM of the whole image (stack, port, libc): kept .text/.rodata/.data."""
    tree = build.arm()
    entries = parse_map((tree / f"runtime/cortexm/wren_{image}.map").read_text())
    return sum(size for _, _, kind, size in entries if kind in ("rom", "data"))


def tcp_conn_bytes() -> int:
    """sizeof(struct wren_tcp_conn) on the Cortex-M3: half the size of the
    image's array of two connections, from the ELF's symbol table."""
    import subprocess
    elf = build.arm() / "runtime/cortexm/wren_tcp.elf"
    syms = subprocess.run(["arm-none-eabi-nm", "-S", str(elf)], capture_output=True,
                          text=True, check=True).stdout
    for line in syms.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == "wren_inst_tcp_conn":
            return int(parts[1], 16) // 2
    raise RuntimeError("wren_inst_tcp_conn not in wren_tcp.elf")


Record = dict[str, object]


def records_and_print(out: Callable[[str], object] = print) -> list[Record]:
    ip6lo, arena = image_report("ip6lo")
    udp, _ = image_report("udp")
    out("Cortex-M3, arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -Os, --gc-sections")
    w = 40
    out(f"{'module':<{w}}{'ip6lo ROM':>10}{'RAM':>7}{'udp ROM':>10}{'RAM':>7}")
    for name, _, _ in MODULES:
        a, b = ip6lo[name], udp[name]
        out(f"{name:<{w}}{a['rom']:>10}{a['ram']:>7}{b['rom']:>10}{b['ram']:>7}")
    rom = sum(ip6lo[m]["rom"] for m in STACK_IP6LO)
    ram = sum(ip6lo[m]["ram"] for m in STACK_IP6LO)
    udp_rom = udp["UDP"]["rom"] + udp["sock"]["rom"]
    out(f"{'IPv6 node (ip6lo image, stack only)':<{w}}{rom:>10}{ram:>7}")
    out(f"{'packet buffer arena (apart)':<{w}}{'':>10}{arena:>7}")
    full, lto = image_rom("ip6lo"), image_rom("ip6lo_lto")
    out(f"{'  the same with -flto (estimate)':<{w}}{rom - (full - lto):>10}"
        f"   (whole image {full} -> {lto} bytes)")
    soft, _ = image_report("ip6lo_softmac")
    soft_rom = sum(soft[m]["rom"] for m in STACK_IP6LO)
    soft_ram = sum(soft[m]["ram"] for m in STACK_IP6LO)
    out(f"{'  the same with the software MAC':<{w}}{soft_rom:>10}{soft_ram:>7}")
    out(f"UDP + sock_udp add {udp_rom} bytes of ROM")
    tcp, _ = image_report("tcp")
    tcp_rom = tcp["TCP"]["rom"]
    conn = tcp_conn_bytes()
    out(f"TCP adds {tcp_rom} bytes of ROM (the TCP paper's TCPlp: 19,972); "
        f"a connection's protocol state is {conn} bytes besides its buffers")
    return [
        {"name": "rom_ip6lo_bytes", "value": rom, "unit": "bytes", "better": "lower",
         "target": 11264, "anchor": "RIOT GNRC modules for the same set: 18.5 KB (issue #3)"},
        {"name": "ram_ip6lo_excl_pktbuf_bytes", "value": ram, "unit": "bytes", "better": "lower",
         "target": 1536, "anchor": "GNRC: about 3.6 KiB, mostly per-layer thread stacks"},
        {"name": "rom_udp_sock_bytes", "value": udp_rom, "unit": "bytes", "better": "lower",
         "target": 2048, "anchor": "UDP and sock_udp on top of the IPv6 node"},
        {"name": "rom_tcp_bytes", "value": tcp_rom, "unit": "bytes", "better": "lower",
         "target": 12288, "anchor": "TCPlp (the TCP paper, table 1 features): 19,972 bytes"},
    ]


def main(args: argparse.Namespace | None) -> list[Record]:
    recs = records_and_print()
    if args and getattr(args, "json", None):
        Path(args.json).write_text(json.dumps(recs, indent=1))
    return recs


def records() -> list[Record]:
    """rom_*/ram_* records for ./wren bench."""
    return records_and_print(out=lambda line: None)
