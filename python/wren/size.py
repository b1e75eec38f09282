"""Cortex-M3 size report: ROM and RAM per module, from the images' linker maps.

ROM is what an image keeps in flash (.text, .rodata, .data's initial
values); RAM is .data + .bss. Only input sections the linker kept (after
--gc-sections) count, so each module is charged for what the image uses.
The node's state lives in one global per module (runtime/cortexm/instance.c),
so RAM is charged by module too; the packet buffer arena is shown apart.

Images (runtime/cortexm/main_*.c):
  6ln_host  a 6LoWPAN host with the feature set of the GNRC 6LN it is
           compared with: 802.15.4 + 6LoWPAN (IPHC, 16 contexts,
           fragmentation, 4 reassembly buffers) + IPv6 + ICMPv6 echo +
           6LoWPAN-ND host (RS/RA, SLAAC, ARO), for a radio doing CSMA-CA and
           ACKs in hardware (CONFIG_WREN_MAC_SOFT=0). Its qemu run exercises
           every one of them and prints its deepest call stack.
  6ln_host_softmac  the same with the software MAC (CSMA-CA, ACKs,
           retries, indirect transmission)
  udp      IPv6 + ICMPv6 + UDP + sock_udp over the loopback
  reflect  the foundation: node, netif, 802.15.4 link, threads
  tcp      IPv6 + ICMPv6 + TCP over the loopback: a client and a listener
  coap_server  IPv6 + ICMPv6 + UDP + sock_udp + a CoAP server only
           (CONFIG_WREN_COAP_CLIENT=0, no default resources) with one
           observable resource; main plays the client with wire messages
  coap_server_min  the same server without Block2, separate responses,
           multicast, link-format filters and the duplicate cache (the
           feature set of RIOT's gcoap server); coap_server_no<option>: the
           coap_server without one of them, for the line per option
  coap     IPv6 + ICMPv6 + UDP + sock_udp + CoAP (server, default resources,
           Block1/Block2, observe, client) over the loopback; the client
           talks to the node's own server
  whole_node_reflector, whole_node_loopback  the RIOT paper's Table 3
           application (sock UDP down to 6LoWPAN on the L2 reflector, or to
           the IPv6 loopback) as a whole node: counted whole from the ELF
           (whole_image: everything linked; RAM with the packet buffer, the
           C library's heap and the allocated stack), not per module
  6ln_host_lto  6ln_host with the stack built with -flto: a line of its
           own, not the record. Only the stack is link-time code (the port,
           main and the radio's stand-in are not), so the link's LTO object
           holds the stack alone: LTO inlines across its modules, so its
           bytes have no module, and they are counted as the record counts
           (the helpers it reaches added, what only main calls left out).

What the 6ln_host record counts: every input section the image keeps from
the stack's modules (src/), and the C library and libgcc helpers the stack
reaches (found from the relocations of every section the image keeps from a
stack object, the symbols they name looked up in the linker's --cref table,
and so on through the members found). Not counted, and printed apart: the
stack functions only main calls (its self-check of the packet buffer), the
radio driver (the loopback device standing in for it), the port (startup
and the bare-metal runtime, rt_cortexm: what RIOT's kernel is to GNRC; the
timer queue it runs on, src/core/timerq.c, stays counted with the core),
and the image's main, which plays the router and checks the host, with the
printf it reports through.
"""
import argparse
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from . import build

IMAGES = ("6ln_host", "udp", "reflect")

# module -> (source files or folders, instance globals)
MODULES = [
    ("core (node, sched, timers, threads)", ["src/core"], ["wren_inst_node"]),
    ("stack assembly", ["src/stack"], []),
    ("pktbuf", ["src/pktbuf"], []),
    ("netapi/netreg/netif", ["src/net"], []),
    ("802.15.4 (frames + link)",
     ["src/wire/ieee802154.c", "src/link", "src/mac/csma", "src/mac/tsch"], ["wren_inst_netif"]),
    ("6LoWPAN", ["src/sixlowpan", "src/wire/sixlowpan.c"], ["wren_inst_sixlowpan"]),
    ("IPv6", ["src/ipv6", "src/wire/ipv6.c", "src/wire/ipv6_ext.c", "src/wire/inet_csum.c"],
     ["wren_inst_ipv6"]),
    ("ICMPv6", ["src/icmpv6", "src/wire/icmpv6.c"], ["wren_inst_icmpv6"]),
    ("6LoWPAN-ND (NIB)", ["src/nib"], ["wren_inst_nib"]),
    ("UDP", ["src/udp", "src/wire/udp.c"], ["wren_inst_udp"]),
    ("sock", ["src/sock"], ["wren_inst_sock_srv", "wren_inst_sock_cli"]),
    ("TCP", ["src/tcp", "src/wire/tcp.c", "src/core/siphash.c"],
     ["wren_inst_tcp", "wren_inst_tcp_lis", "wren_inst_tcp_conn"]),
    ("CoAP", ["src/coap", "src/wire/coap.c"], ["wren_inst_coap"]),
    ("RPL", ["src/rpl", "src/wire/rpl.c", "src/core/trickle.c"],
     ["wren_inst_rpl", "wren_inst_rpl_routes"]),
]
HELPERS = "C library, libgcc"
#: the 6ln_host_lto image's stack: LTO merges its modules into one object
LTO = "stack (-flto: no module)"
# RIOT GNRC's 6LN host without UDP, like for like (issue 28; issue 12's
# 18,525 left out gnrc_netif, the packet buffer and dispatch)
GNRC_6LN_ROM = 24440
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


def parse_map_objects(text: str) -> list[tuple[str, str, str, int]]:
    """[(object as the linker names it, section, kind, size)] for the input
    sections kept: "lib.a(member.o)" for archive members."""
    start = text.find("Linker script and memory map")
    end = text.find("Cross Reference Table")
    out = []
    pending: str | None = None
    for line in text[start:end if end > 0 else len(text)].splitlines():
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
        out.append((obj, sec, kind, int(size, 16)))
    return out


def _short(obj: str) -> str:
    name = re.sub(r"^.*\((.*)\)$", r"\1", obj)  # lib.a(member.o) -> member.o
    return Path(name).name.replace(".obj", "").replace(".o", "")


def parse_map(text: str) -> list[tuple[str, str, str, int]]:
    """[(object file name, section, kind, size)] for the input sections kept."""
    return [(_short(obj), sec, kind, size) for obj, sec, kind, size in parse_map_objects(text)]


def parse_cref(text: str) -> dict[str, list[str]]:
    """The linker's cross-reference table (-Wl,--cref): symbol -> [the object
    defining it, then the objects referring to it]."""
    start = text.find("Cross Reference Table")
    if start < 0:
        raise RuntimeError("the linker map has no cross-reference table (link with --cref)")
    table: dict[str, list[str]] = {}
    sym: str | None = None
    for line in text[start:].splitlines()[3:]:
        if not line.strip():
            continue
        if not line[0].isspace():
            parts = line.split(None, 1)
            sym = parts[0]
            table[sym] = [parts[1].strip()] if len(parts) > 1 else []
        elif sym is not None:
            table[sym].append(line.strip())
    return table


def _toolchain(obj: str) -> bool:
    """A member of the C library, libgcc or the toolchain's start files."""
    return "arm-none-eabi" in obj and not obj.startswith(("runtime/", "src/"))


def _is_lto(obj: str) -> bool:
    """An object the link-time optimiser made (6ln_host_lto: of the stack
    only, its modules merged)."""
    return bool(re.search(r"\.ltrans\d+\.ltrans\.o$", obj))


def _is_stack(obj: str) -> bool:
    """An object of the stack (src/): a member of the stack library, except
    the loopback device, which stands in for the radio driver; or, in the
    6ln_host_lto image, the LTO object the stack's modules became."""
    return ((bool(re.search(r"libwren_core[^(]*\.a\(", obj)) and "loopback" not in obj) or
            _is_lto(obj))


def _ltrans_object(path: Path, tmp: Path) -> Path:
    """The LTO object @p path the map names: the link deletes it and keeps
    its assembly (-save-temps), which is assembled again (into @p tmp) for
    its relocations."""
    import subprocess
    if path.exists():
        return path
    asm = path.with_suffix(".s")
    if not asm.exists():
        raise RuntimeError(f"{path.name}: the link deleted it and kept no assembly of it "
                           "(6ln_host_lto links with -save-temps=obj)")
    obj = tmp / path.name
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "-c", str(asm), "-o",
                    str(obj)], check=True, capture_output=True)
    return obj


def _relocs(archive: Path) -> dict[tuple[str, str], set[str]]:
    """(member, section) -> the symbols its relocations name, for every
    member of @p archive."""
    import subprocess
    out = subprocess.run(["arm-none-eabi-readelf", "-rW", str(archive)], capture_output=True,
                         text=True, check=True).stdout
    table: dict[tuple[str, str], set[str]] = {}
    member = sec = ""
    for line in out.splitlines():
        m = re.match(r"^File: .*\((.*)\)$", line)
        if m:
            member = m.group(1)
            continue
        m = re.match(r"^Relocation section '\.rel(\..*)'", line)
        if m:
            sec = m.group(1)
            table.setdefault((member, sec), set())
            continue
        parts = line.split()
        if len(parts) >= 5 and re.match(r"^[0-9a-f]{8}$", parts[0]) and (member, sec) in table:
            table[(member, sec)].add(parts[4])
    return table


def _refs_table(text: str) -> Callable[[str, str], set[str]]:
    """(object as the map names it, section) -> the symbols the section's
    relocations name."""
    import tempfile
    relocs: dict[str, dict[tuple[str, str], set[str]]] = {}

    def refs(raw: str, sec: str) -> set[str]:
        m = re.match(r"^(.*)\((.*)\)$", raw)
        archive, member = m.groups() if m else (raw, "")
        if archive not in relocs:
            path = Path(archive) if Path(archive).is_absolute() else build.arm() / archive
            if _is_lto(archive):
                with tempfile.TemporaryDirectory() as tmp:
                    relocs[archive] = _relocs(_ltrans_object(path, Path(tmp)))
            else:
                relocs[archive] = _relocs(path)
        return relocs[archive].get((member, sec), set())
    return refs


def helpers_of(text: str) -> set[str]:
    """Toolchain library members the stack reaches: those defining a symbol
    that a section the image keeps from a stack object refers to (by its
    relocations), and, in turn, those that their kept sections refer to."""
    cref = parse_cref(text)
    kept: dict[str, list[str]] = {}
    for raw, sec, _, _ in parse_map_objects(text):
        kept.setdefault(raw, []).append(sec)
    refs = _refs_table(text)
    reached: set[str] = set()
    todo = [(raw, sec) for raw, secs in kept.items() if _is_stack(raw) for sec in secs]
    while todo:
        raw, sec = todo.pop()
        for sym in refs(raw, sec):
            files = cref.get(sym)
            if files and _toolchain(files[0]) and files[0] not in reached:
                reached.add(files[0])
                todo += [(files[0], s) for s in kept.get(files[0], [])]
    return reached


def harness_only(text: str) -> set[tuple[str, str]]:
    """Stack functions the image keeps only because its main calls them
    (self-checks such as wren_pktbuf_is_sane): (object, section) pairs whose
    function no kept section but main's refers to."""
    kept = parse_map_objects(text)
    refs = _refs_table(text)
    users: dict[str, set[bool]] = {}
    for raw, sec, _, _ in kept:
        for sym in refs(raw, sec):
            users.setdefault(sym, set()).add("main_" in raw)
    return {(raw, sec) for raw, sec, _, _ in kept
            if _is_stack(raw) and sec.startswith(".text.") and
            users.get(sec[len(".text."):]) == {True}}


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


def _map(image: str) -> str:
    return (build.arm() / f"runtime/cortexm/wren_{image}.map").read_text()


def image_report(image: str) -> tuple[dict[str, dict[str, int]], int]:
    """{module: {'rom': n, 'ram': n}} for one image, plus the arena size.
    HELPERS is the C library and libgcc the stack reaches; "not counted"
    the rest (port, radio driver, the image's main and its printf)."""
    text = _map(image)
    helpers = helpers_of(text) if "Cross Reference Table" in text else set()
    # the 6ln_host images' main is a test peer, not an application: what
    # only it calls is not the host's (other images' main is their application)
    harness = harness_only(text) if image.startswith("6ln_host") else set()
    mods = {name: {"rom": 0, "ram": 0} for name, _, _ in MODULES}
    mods[HELPERS] = {"rom": 0, "ram": 0}
    mods["not counted"] = {"rom": 0, "ram": 0}
    arena = 0
    for raw, sec, kind, size in parse_map_objects(text):
        obj = _short(raw)
        mod = _module_of(obj, sec)
        if raw in helpers:
            mod = HELPERS
        elif (raw, sec) in harness:
            mod = "not counted"
        elif _is_lto(raw):
            mod = LTO
            mods.setdefault(LTO, {"rom": 0, "ram": 0})
        elif mod is None or (mod != "arena" and not _is_stack(raw) and
                             not obj.startswith("instance")):
            mod = "not counted"
        if mod == "arena":
            arena += size
            continue
        if kind in ("rom", "data"):
            mods[mod]["rom"] += size
        if kind in ("data", "bss"):
            mods[mod]["ram"] += size
    return mods, arena


def counted(mods: dict[str, dict[str, int]], kind: str) -> int:
    """The stack's modules and the helpers it reaches."""
    return sum(v[kind] for k, v in mods.items() if k != "not counted")


def helper_names(image: str) -> list[tuple[str, int]]:
    """(helper, ROM bytes) of the toolchain members the stack reaches."""
    text = _map(image)
    helpers = helpers_of(text)
    sizes: dict[str, int] = {}
    for raw, sec, kind, size in parse_map_objects(text):
        if raw in helpers and kind in ("rom", "data"):
            n = _short(raw).replace("lib_a-", "")
            sizes[n] = sizes.get(n, 0) + size
    return sorted(sizes.items(), key=lambda x: -x[1])


def image_rom(image: str) -> int:
    """ROM of the whole image (stack, port, libc): kept .text/.rodata/.data."""
    entries = parse_map(_map(image))
    return sum(size for _, _, kind, size in entries if kind in ("rom", "data"))


def deepest_stack(image: str) -> int | None:
    """The deepest call stack the image measured of its node under qemu
    (bytes), or None without qemu."""
    import shutil
    import subprocess
    if not shutil.which("qemu-system-arm"):
        return None
    elf = build.arm() / f"runtime/cortexm/wren_{image}.elf"
    res = subprocess.run(["qemu-system-arm", "-M", "mps2-an385", "-nographic", "-semihosting-config",
                          "enable=on,target=native", "-kernel", str(elf)],
                         capture_output=True, text=True, timeout=120)
    m = re.search(r"deepest call stack (\d+) bytes", res.stdout)
    if res.returncode != 0 or not m:
        # a SubprocessError: ./wren test's stage reports it as a failure
        raise subprocess.SubprocessError(f"{elf.name} failed under qemu: {res.stdout}{res.stderr}")
    return int(m.group(1))


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


def coap_state_bytes() -> dict[str, int]:
    """sizeof of CoAP's per-observer and per-exchange structs on the
    Cortex-M3 (default configuration), from the symbol table of
    runtime/cortexm/coap_sizes.c's object: {"observer", "xchg", "dedup",
    "block1"}."""
    import subprocess
    objs = list((build.arm() / "runtime/cortexm").rglob("coap_sizes.c.o*"))
    if not objs:
        raise RuntimeError("coap_sizes.c's object not built")
    syms = subprocess.run(["arm-none-eabi-nm", "-S", str(objs[0])], capture_output=True,
                          text=True, check=True).stdout
    out = {}
    for line in syms.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3].startswith("wren_size_coap_"):
            out[parts[3][len("wren_size_coap_"):]] = int(parts[1], 16)
    return out


Record = dict[str, object]


#: the whole-node images (runtime/cortexm/main_whole_node.c): the RIOT
#: paper's Table 3 application, everything linked counted
WHOLE_IMAGES = ("whole_node_reflector", "whole_node_loopback")
#: the application's own buffer in them (the paper's figures are "w/o
#: application buffers": shown apart)
WHOLE_APP_BUFFERS = ("app_buf",)


def _elf(image: str) -> Path:
    return build.arm() / f"runtime/cortexm/wren_{image}.elf"


def elf_sections(elf: Path) -> dict[str, int]:
    """{section: bytes} of an ELF's sections (arm-none-eabi-size -A)."""
    import subprocess
    out = subprocess.run(["arm-none-eabi-size", "-A", str(elf)], capture_output=True,
                         text=True, check=True).stdout
    secs = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].startswith(".") and parts[1].isdigit():
            secs[parts[0]] = int(parts[1])
    return secs


def _symbol_sizes(elf: Path, names: Iterable[str]) -> dict[str, int]:
    import subprocess
    syms = subprocess.run(["arm-none-eabi-nm", "-S", str(elf)], capture_output=True,
                          text=True, check=True).stdout
    want, out = set(names), {}
    for line in syms.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] in want:
            out[parts[3]] = int(parts[1], 16)
    return out


def whole_image(image: str) -> dict[str, int]:
    """The whole image's figures from its ELF: rom = everything in flash
    (.text with .rodata and the vectors, .ARM.exidx, .data's initial
    values), ram = .data + .bss + .heap + .stack; their parts: text, data,
    bss, heap (the C library's, allocated), stack (the allocated stack),
    arena (the packet buffer, inside bss), app_buffers (the application's
    own buffers, inside bss); ram_no_app = ram less app_buffers (as the
    RIOT paper's Table 3 counts: "w/o application buffers")."""
    elf = _elf(image)
    sec = elf_sections(elf)
    text = sec.get(".text", 0) + sec.get(".ARM.exidx", 0)
    data, bss = sec.get(".data", 0), sec.get(".bss", 0)
    heap, stack = sec.get(".heap", 0), sec.get(".stack", 0)
    syms = _symbol_sizes(elf, (ARENA,) + WHOLE_APP_BUFFERS)
    app = sum(syms.get(n, 0) for n in WHOLE_APP_BUFFERS)
    ram = data + bss + heap + stack
    return {"text": text, "data": data, "bss": bss, "heap": heap, "stack": stack,
            "rom": text + data, "ram": ram, "arena": syms.get(ARENA, 0),
            "app_buffers": app, "ram_no_app": ram - app}


def whole_run(image: str) -> dict[str, int]:
    """Run a whole-node image under qemu: {"deepest": its deepest stack,
    "stack": the allocation, "heap_used", "heap"}; a SubprocessError if it
    fails its checks (or qemu is missing: None)."""
    import shutil
    import subprocess
    if not shutil.which("qemu-system-arm"):
        raise subprocess.SubprocessError("qemu-system-arm not installed")
    res = subprocess.run(["qemu-system-arm", "-M", "mps2-an385", "-nographic",
                          "-semihosting-config", "enable=on,target=native", "-kernel",
                          str(_elf(image))], capture_output=True, text=True, timeout=120)
    m = re.search(r"deepest stack (\d+) of (\d+) bytes allocated, heap (\d+) of (\d+)",
                  res.stdout)
    if res.returncode != 0 or not m:
        raise subprocess.SubprocessError(f"wren_{image}.elf failed under qemu: "
                                         f"{res.stdout}{res.stderr}")
    return {"deepest": int(m.group(1)), "stack": int(m.group(2)),
            "heap_used": int(m.group(3)), "heap": int(m.group(4))}


#: RIOT paper (../shared/papers, Section 5.1, Table 3): whole applications
RIOT_TABLE3_REFLECTOR = (35880, 15112)   # Sock UDP - L2 Reflector: ROM, RAM
RIOT_TABLE3_LOOPBACK = (26444, 13192)    # Sock UDP - IP Loopback: ROM, RAM


def whole_records(out: Callable[[str], object] = print) -> list[Record]:
    """rom_/ram_whole_node_reflector_bytes: the whole reflector image, and
    the loopback image's figures printed beside it."""
    recs: list[Record] = []
    out("whole images (everything linked: stack, port, C library, application), from the ELF:")
    for image, (p_rom, p_ram) in (("whole_node_reflector", RIOT_TABLE3_REFLECTOR),
                                  ("whole_node_loopback", RIOT_TABLE3_LOOPBACK)):
        w = whole_image(image)
        out(f"  {image}: ROM {w['rom']} (text {w['text']} + data {w['data']}), RAM {w['ram']} "
            f"(data {w['data']} + bss {w['bss']} [packet buffer {w['arena']}, application "
            f"buffer {w['app_buffers']}] + heap {w['heap']} + stack {w['stack']}), "
            f"{w['ram_no_app']} without the application buffer; RIOT Table 3: ROM {p_rom}, "
            f"RAM {p_ram} (w/o application buffers)")
    w = whole_image("whole_node_reflector")
    what = ("the RIOT paper's Table 3 application (sock UDP over 6LoWPAN on the L2 reflector: "
            "8 datagrams of 8-1,232 bytes out and back, checked under qemu) as one Cortex-M3 "
            "image, runtime/cortexm/main_whole_node.c")
    recs += [
        {"name": "rom_whole_node_reflector_bytes", "value": w["rom"], "unit": "bytes",
         "better": "lower", "target": RIOT_TABLE3_REFLECTOR[0],
         "anchor": f"RIOT paper Table 3, Sock UDP - L2 Reflector: ROM 35,880 bytes (a whole "
                   f"RIOT application: kernel, GNRC, application, libc). wren: {what}; ROM = "
                   f".text (with .rodata, vectors) + .ARM.exidx + .data of the ELF"},
        {"name": "ram_whole_node_reflector_bytes", "value": w["ram_no_app"], "unit": "bytes",
         "better": "lower", "target": RIOT_TABLE3_REFLECTOR[1],
         "anchor": f"RIOT paper Table 3, Sock UDP - L2 Reflector: RAM 15,112 bytes (kernel, "
                   f"thread stacks, GNRC's 6,144-byte packet buffer, w/o application buffers). "
                   f"wren: {what}; RAM = .data + .bss (packet buffer {w['arena']} included; the "
                   f"application's {w['app_buffers']}-byte buffer left out, as the paper's) + "
                   f"the C library's heap ({w['heap']}, which RIOT's figure does not count) + "
                   f"the allocated stack ({w['stack']}, a quarter's margin or more over the "
                   f"deepest the image measures); {w['ram']} with the application buffer"},
    ]
    return recs


def records_and_print(out: Callable[[str], object] = print,
                      stack_depth: bool = True) -> list[Record]:
    host, arena = image_report("6ln_host")
    soft, _ = image_report("6ln_host_softmac")
    udp, _ = image_report("udp")
    out("Cortex-M3, arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -Os, --gc-sections")
    w = 40
    out(f"{'module':<{w}}{'6ln_host ROM':>13}{'RAM':>7}{'softmac ROM':>12}{'RAM':>7}"
        f"{'udp ROM':>10}{'RAM':>7}")
    for name in [m for m, _, _ in MODULES] + [HELPERS]:
        a, b, c = host[name], soft[name], udp[name]
        out(f"{name:<{w}}{a['rom']:>13}{a['ram']:>7}{b['rom']:>12}{b['ram']:>7}"
            f"{c['rom']:>10}{c['ram']:>7}")
    rom, ram = counted(host, "rom"), counted(host, "ram")
    soft_rom, soft_ram = counted(soft, "rom"), counted(soft, "ram")
    out(f"{'6LoWPAN host (stack + helpers)':<{w}}{rom:>13}{ram:>7}{soft_rom:>12}{soft_ram:>7}")
    nc = host["not counted"]
    out(f"{'not counted: port, radio, main, printf':<{w}}{nc['rom']:>13}{nc['ram']:>7}")
    out(f"{'packet buffer arena (apart)':<{w}}{'':>13}{arena:>7}")
    out("helpers the stack reaches: " +
        ", ".join(f"{n} {b}" for n, b in helper_names("6ln_host")))
    lto_mods, _ = image_report("6ln_host_lto")
    lto_rom = counted(lto_mods, "rom")
    out(f"{'  the same with -flto (measured)':<{w}}{lto_rom:>13}   -flto saves {rom - lto_rom} "
        f"bytes ({100 * (rom - lto_rom) / rom:.1f} %): the stack built and linked with "
        f"link-time optimisation (6ln_host_lto image), counted as above; an option, not the "
        f"record")
    depth = deepest_stack("6ln_host") if stack_depth else None
    if depth is not None:
        out(f"deepest call stack of the node under qemu (RS/RA, registration, interleaved "
            f"fragmented echoes): {depth} bytes; RAM with it {ram + depth}")
    else:
        out("qemu-system-arm not installed: the call stack is not measured")
    out(f"GNRC 6LN host without UDP (RIOT c8bd52f, iotlab-m3, gcc 12.2 -Os, gnrc_netif, "
        f"packet buffer and dispatch included): {GNRC_6LN_ROM} bytes; wren: {rom} "
        f"({rom - GNRC_6LN_ROM:+d}, {rom / GNRC_6LN_ROM:.2f}x); with -flto {lto_rom} "
        f"({lto_rom / GNRC_6LN_ROM:.2f}x)")
    udp_rom = udp["UDP"]["rom"] + udp["sock"]["rom"]
    out(f"UDP + sock_udp add {udp_rom} bytes of ROM")
    tcp, _ = image_report("tcp")
    tcp_rom = tcp["TCP"]["rom"]
    conn = tcp_conn_bytes()
    out(f"TCP adds {tcp_rom} bytes of ROM (the TCP paper's TCPlp: 19,972); "
        f"a connection's protocol state is {conn} bytes besides its buffers")
    same = ("IPv6 + 6LoWPAN (IPHC, 16 contexts, fragmentation, 4 reassembly buffers) + "
            "ICMPv6 echo + 6LoWPAN-ND host (RS/RA, SLAAC, ARO), C library and libgcc helpers "
            "included, radio driver excluded")
    recs = [
        {"name": "rom_6ln_host_bytes", "value": rom, "unit": "bytes", "better": "lower",
         "target": GNRC_6LN_ROM,
         "anchor": "RIOT GNRC 6LN host without UDP, like for like: 24,440 bytes (RIOT c8bd52f on "
                   "iotlab-m3, DEVELHELP=0, LOG_NONE, arm-none-eabi-gcc 12.2 -Os, function/data "
                   "sections, --gc-sections; text = code + read-only data of its modules' objects "
                   "as kept in the final image, its helpers included) for the same features: "
                   f"{same}; netif, packet buffer and dispatch counted on both sides; no UDP; "
                   "the radio doing CSMA-CA and ACKs. Still differs: "
                   "wren counts its scheduler and timers (src/core) where GNRC's figure has no "
                   "RIOT kernel; wren's frames are 802.15.4-2006 only (no 2015 IEs, no security "
                   "header parsing); the node keeps one global address and a 4-entry neighbor "
                   "cache; it has no 6LR/6LBR code (GNRC's host has none either). Both without "
                   "-flto (./wren size prints what it saves, measured on 6ln_host_lto)"},
        {"name": "rom_6ln_host_softmac_bytes", "value": soft_rom, "unit": "bytes",
         "better": "lower", "target": None,
         "anchor": "the same host with wren's software MAC (CSMA-CA, ACKs, retries, "
                   "indirect transmission); GNRC's 24,440 has the radio do them"},
    ]
    if depth is not None:
        recs.append({"name": "ram_6ln_host_bytes", "value": ram + depth, "unit": "bytes",
                     "better": "lower", "target": None,
                     "anchor": f"the host's state ({ram}) and its deepest call stack under qemu "
                               f"({depth}); packet buffer ({arena}) apart. GNRC: about 3.6 KiB, "
                               "mostly per-layer thread stacks, packet buffer apart"})
    recs += [
        {"name": "rom_udp_sock_bytes", "value": udp_rom, "unit": "bytes", "better": "lower",
         "target": 2048, "anchor": "UDP and sock_udp on top of the IPv6 node"},
        {"name": "rom_tcp_bytes", "value": tcp_rom, "unit": "bytes", "better": "lower",
         "target": 12288, "anchor": "TCPlp (the TCP paper, table 1 features): 19,972 bytes"},
    ]
    from .size_features import coap_records, rpl_records, sec_records, tsch_records
    recs += coap_records(out)
    recs += rpl_records(out)
    recs += sec_records(out)
    recs += tsch_records(out)
    recs += whole_records(out)
    return recs


def main(args: argparse.Namespace | None) -> list[Record]:
    recs = records_and_print()
    if args and getattr(args, "json", None):
        Path(args.json).write_text(json.dumps(recs, indent=1))
    return recs


def records() -> list[Record]:
    """rom_*/ram_* records for ./wren bench."""
    return records_and_print(out=print)
