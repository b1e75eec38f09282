"""Cortex-M3 size report: ROM and RAM per module, from the image's linker map.

ROM is what the image keeps in flash (.text, .rodata, .data's initial
values); RAM is .data + .bss. Only input sections the linker kept (after
--gc-sections) count, so a module is charged for what the image uses.
"""
import json
import re
import subprocess
from pathlib import Path

from . import build, paths

MAP = "port/cortexm/wren_reflect.map"
ELF = "port/cortexm/wren_reflect.elf"

# modules of the stack core, in report order: name -> source folders
MODULES = [
    ("core (node, sched, timers, threads)", ["src/core"]),
    ("pktbuf", ["src/pktbuf"]),
    ("netapi/netreg/netif", ["src/net"]),
    ("ieee802154 frames", ["src/wire"]),
    ("ieee802154 link", ["src/link"]),
    ("loopback/reflector driver", ["src/drivers"]),
    ("cortex-m runtime + ctx", ["port/cortexm/rt_cortexm.c", "port/cortexm/ctx_cortexm.c"]),
]
INSTANCE = "port/cortexm/instance.c"

_one = re.compile(r"^ (\.[\w.$-]+|COMMON)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)")
_name = re.compile(r"^ (\.[\w.$-]+|COMMON)\s*$")
_rest = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)")


def _kind(section):
    if section.startswith((".text", ".rodata", ".ARM")):
        return "rom"
    if section.startswith(".data"):
        return "data"
    if section.startswith(".bss") or section == "COMMON":
        return "bss"
    return None


def parse_map(text):
    """{object file name: {'rom','data','bss'}} for kept input sections."""
    start = text.find("Linker script and memory map")
    lines = text[start:].splitlines()
    out = {}
    pending = None
    for line in lines:
        m = _one.match(line)
        if m:
            sec, addr, size, obj = m.groups()
        elif pending and _rest.match(line):
            sec = pending
            addr, size, obj = _rest.match(line).groups()
        else:
            m2 = _name.match(line)
            pending = m2.group(1) if m2 else None
            continue
        pending = None
        kind = _kind(sec)
        if kind is None or int(addr, 16) == 0 and kind == "rom":
            continue
        name = re.sub(r"^.*\((.*)\)$", r"\1", obj)  # lib.a(member.o) -> member.o
        name = Path(name).name.replace(".obj", "").replace(".o", "")
        acc = out.setdefault(name, {"rom": 0, "data": 0, "bss": 0})
        acc[kind] += int(size, 16)
    return out


def _files_of(folders):
    files = set()
    for f in folders:
        p = paths.ROOT / f
        if p.is_dir():
            files.update(x.name for x in p.glob("*.c"))
        else:
            files.add(p.name)
    return files


def report():
    tree = build.arm()
    per_obj = parse_map((tree / MAP).read_text())
    rows = []
    total = {"rom": 0, "ram": 0}
    for name, folders in MODULES:
        files = _files_of(folders)
        rom = sum(v["rom"] + v["data"] for k, v in per_obj.items() if k in files)
        ram = sum(v["data"] + v["bss"] for k, v in per_obj.items() if k in files)
        rows.append((name, rom, ram))
        total["rom"] += rom
        total["ram"] += ram
    inst = per_obj.get(Path(INSTANCE).name, {"rom": 0, "data": 0, "bss": 0})
    return rows, total, inst["data"] + inst["bss"]


def main(args):
    rows, total, inst_ram = report()
    from .lib import load  # noqa: F401  (keeps imports symmetric; nothing to load)
    pktbuf = _pktbuf_size()
    print("Cortex-M3 (arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -Os, --gc-sections), "
          "image: reflector node")
    w = max(len(r[0]) for r in rows) + 2
    print(f"{'module':<{w}}{'ROM (text+data)':>16}{'RAM (data+bss)':>16}")
    for name, rom, ram in rows:
        print(f"{name:<{w}}{rom:>16}{ram:>16}")
    print(f"{'whole core':<{w}}{total['rom']:>16}{total['ram']:>16}")
    print(f"{'node instance (state)':<{w}}{'':>16}{inst_ram - pktbuf:>16}")
    print(f"{'packet buffer arena':<{w}}{'':>16}{pktbuf:>16}")
    records = [
        {"name": "rom_core_bytes", "value": total["rom"], "unit": "bytes", "better": "lower",
         "target": None, "anchor": "foundation core + 802.15.4 link, Cortex-M3 -Os"},
        {"name": "ram_core_excl_pktbuf_bytes", "value": total["ram"] + inst_ram - pktbuf,
         "unit": "bytes", "better": "lower", "target": None,
         "anchor": "static RAM of one node without its packet buffer"},
    ]
    if args and getattr(args, "json", None):
        Path(args.json).write_text(json.dumps(records, indent=1))
    return records


def _pktbuf_size():
    """The arena's size, read from the image's symbol table."""
    tree = paths.BUILD_ARM
    out = subprocess.run(["arm-none-eabi-nm", "-S", str(tree / ELF)], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] == "wren_instance_arena":
            return int(parts[1], 16)
    return 0


def records():
    """rom_*/ram_* records for ./wren bench."""
    import io
    import contextlib
    with contextlib.redirect_stdout(io.StringIO()):
        return main(None)
