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
         "anchor": f"the same host with wren's software MAC (CSMA-CA, ACKs, retries, "
                   f"indirect transmission); GNRC's 24,440 has the radio do them"},
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
    recs += coap_records(out)
    recs += rpl_records(out)
    recs += sec_records(out)
    recs += tsch_records(out)
    recs += whole_records(out)
    return recs


#: CoAP's compile-time options, each left out of one image of the
#: coap_server build (runtime/cortexm/CMakeLists.txt: coap_server_no<name>)
COAP_OPTIONS = [
    ("block2", "CONFIG_WREN_COAP_BLOCK2", "Block2 windows of any representation (RFC 7959 2.4)"),
    ("sep", "CONFIG_WREN_COAP_SEPARATE", "separate responses (RFC 7252 5.2.2)"),
    ("mcast", "CONFIG_WREN_COAP_MULTICAST", "multicast requests, answered after a leisure "
     "(RFC 7252 8.2)"),
    ("filters", "CONFIG_WREN_COAP_LF_FILTERS", "/.well-known/core filters (RFC 6690 4.1)"),
    ("dedup", "CONFIG_WREN_COAP_DEDUP", "the duplicate cache replaying responses (RFC 7252 4.5)"),
]

#: the peers' CoAP builds (issue 28: measured from their trees, Cortex-M3,
#: arm-none-eabi-gcc 12.2 -Os, function/data sections, --gc-sections)
GCOAP_SERVER_ROM = 4428  # RIOT c8bd52f gcoap + nanocoap, server only (+668 data)
GCOAP_FULL_ROM = 5646    # the same with gcoap's client
CONTIKI_COAP_SERVER_ROM = 7456  # Contiki-NG 9f80681 CoAP engine, server


def coap_records(out: Callable[[str], object] = print) -> list[Record]:
    """rom_coap_server_bytes, rom_coap_server_min_bytes, rom_coap_full_bytes
    (the CoAP module's ROM in the coap_server, coap_server_min and coap
    images), what each compile-time option costs (coap_server less
    coap_server_no<option>), and the CoAP state's sizes."""
    srv, _ = image_report("coap_server")
    srv_rom = srv["CoAP"]["rom"]
    small, _ = image_report("coap_server_min")
    min_rom, min_ram = small["CoAP"]["rom"], small["CoAP"]["ram"]
    coap, _ = image_report("coap")
    coap_rom, coap_ram = coap["CoAP"]["rom"], coap["CoAP"]["ram"]
    st = coap_state_bytes()
    out(f"CoAP server only (observe, Block2, duplicate cache, link format with filters, "
        f"separate responses, multicast; no client, no Block1 uploads) "
        f"adds {srv_rom} bytes of ROM and {srv['CoAP']['ram']} of RAM (256-byte messages)")
    for name, opt, what in COAP_OPTIONS:
        without, _ = image_report(f"coap_server_no{name}")
        out(f"  {opt}=0 leaves out {what}: {srv_rom - without['CoAP']['rom']} bytes")
    out(f"CoAP server, smallest (observe and /.well-known/core; no Block2, separate responses, "
        f"multicast, filters or duplicate cache): {min_rom} bytes of ROM and {min_ram} of RAM "
        f"(RIOT gcoap + nanocoap server: {GCOAP_SERVER_ROM} + 668 data)")
    client = sum(v for (obj, _sec), v in _stack_sections("coap").items() if obj == "coap_client.c")
    out(f"CoAP (server with default resources, Block1/Block2 both ways, observe, client) "
        f"adds {coap_rom} bytes of ROM and {coap_ram} of RAM (two "
        f"CONFIG_WREN_COAP_MSG_MAX buffers included); CONFIG_WREN_COAP_CLIENT=0 leaves out "
        f"the client, coap_client.c's {client} bytes")
    out(f"CoAP state: {st['observer']} bytes per observer, {st['dedup']} per server exchange "
        f"(duplicate-cache slot), {st['xchg']} per client exchange, {st['block1']} per "
        f"Block1 upload")
    peer = ("arm-none-eabi-gcc 12.2 -Os, function/data sections, --gc-sections, text = code + "
            "read-only data kept in the image, application handlers not counted")
    return [
        {"name": "rom_coap_server_bytes", "value": srv_rom, "unit": "bytes", "better": "lower",
         "target": CONTIKI_COAP_SERVER_ROM,
         "anchor": "Contiki-NG (9f80681, cc2538dk) CoAP engine as a server: 7,456 bytes (observe, "
                   f"Block1/2, separate responses; no duplicate detection, its issue #291), {peer}. "
                   "wren's (Cortex-M3, coap_server image, 256-byte messages): observe with CON "
                   "notifications retransmitted and observers dropped on timeout or RST, Block2 "
                   "windows of any representation (RFC 7959), a duplicate cache replaying "
                   "responses (RFC 7252 4.5) with non-idempotent responses kept for "
                   "EXCHANGE_LIFETIME and 5.03 when full, separate responses (5.2.2), multicast "
                   "answered after a leisure (8.2), /.well-known/core with filters (RFC 6690 "
                   "4.1), Location options, 2.03 for a current ETag, refusals before any handler "
                   "as RFC 7252/7959 ask (4.00 SZX 7, 4.02, 4.06, 4.13 with Size1, 4.15, 5.05); "
                   "Block1 uploads left out (CONFIG_WREN_COAP_BLOCK1=0: 4.13), where Contiki-NG "
                   "has them. The size report prints what each compile-time option costs"},
        {"name": "rom_coap_server_min_bytes", "value": min_rom, "unit": "bytes",
         "better": "lower", "target": GCOAP_SERVER_ROM,
         "anchor": "RIOT (c8bd52f, iotlab-m3, DEVELHELP=0) gcoap + nanocoap, server only: "
                   f"4,428 bytes (+668 data), {peer}; its server has observe and "
                   "/.well-known/core, no Block2 of its own (handlers use nanocoap's helpers), "
                   "no separate responses, no link-format filters, and no duplicate detection "
                   "(its handlers must be idempotent, RIOT issue #12938). wren's coap_server_min "
                   "image the same: observe (CON notifications retransmitted, observers dropped "
                   "on timeout or RST) and /.well-known/core, with CONFIG_WREN_COAP_BLOCK2=0, "
                   "_SEPARATE=0, _MULTICAST=0, _LF_FILTERS=0, _DEDUP=0, no client, no Block1; "
                   "every refusal before a handler kept (4.00, 4.02 also for Block2, 4.04, "
                   "4.05, 4.06, 4.13, 4.15, 5.05, 5.00 for an answer beyond a message)"},
        {"name": "rom_coap_full_bytes", "value": coap_rom, "unit": "bytes", "better": "lower",
         "target": GCOAP_FULL_ROM,
         "anchor": "RIOT (c8bd52f, iotlab-m3) gcoap + nanocoap with gcoap's client: 5,646 "
                   f"bytes, {peer}. Differs: "
                   "wren's coap image also has everything of rom_coap_server_bytes, Block1 "
                   "uploads, a client that follows Block2 and sends Block1 (RFC 7959), observes "
                   "with freshness (RFC 7641 3.4), multicast requests, and the default resources "
                   "(/counter, /stats, /pattern, /slow), counted here; gcoap has no block-wise "
                   "of its own, no dedup, no separate responses. Contiki-NG's engine with its "
                   "client was not measured here"},
        {"name": "ram_coap_bytes", "value": coap_ram, "unit": "bytes", "better": "lower",
         "target": None,
         "anchor": "the CoAP module's state with the default configuration (1,152-byte "
                   f"receive and send buffers, 6 duplicate-cache slots of {st['dedup']} bytes, "
                   f"4 observers of {st['observer']}, 2 client exchanges of {st['xchg']})"},
        {"name": "ram_coap_observer_bytes", "value": st["observer"], "unit": "bytes",
         "better": "lower", "target": None,
         "anchor": "one observer (RFC 7641): endpoint, token, resource, its CON "
                   "notification's retransmission timer"},
        {"name": "ram_coap_exchange_bytes", "value": st["xchg"], "unit": "bytes",
         "better": "lower", "target": None,
         "anchor": "one client exchange with its 256-byte request kept for retransmission "
                   f"(CONFIG_WREN_COAP_CLIENT_MSG_MAX); a server exchange (duplicate-cache "
                   f"slot with 64 bytes of response) is {st['dedup']}"},
    ]


def _sizes_obj(name: str, prefix: str) -> dict[str, int]:
    """{name: bytes} of the wren_size_<prefix><name> arrays in the object
    of runtime/cortexm/<name>.c (built, never linked)."""
    import subprocess
    objs = list((build.arm() / "runtime/cortexm").rglob(f"{name}.c.o*"))
    if not objs:
        raise RuntimeError(f"{name}.c's object not built")
    syms = subprocess.run(["arm-none-eabi-nm", "-S", str(objs[0])], capture_output=True,
                          text=True, check=True).stdout
    out = {}
    for line in syms.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3].startswith(f"wren_size_{prefix}"):
            out[parts[3][len(f"wren_size_{prefix}"):]] = int(parts[1], 16)
    return out


def _stack_sections(image: str) -> dict[tuple[str, str], int]:
    """{(object, section): ROM bytes} the image keeps from the stack (and
    the toolchain helpers it reaches)."""
    text = _map(image)
    helpers = helpers_of(text)
    out: dict[tuple[str, str], int] = {}
    for raw, sec, kind, size in parse_map_objects(text):
        if kind in ("rom", "data") and (_is_stack(raw) or raw in helpers):
            key = (_short(raw), sec)
            out[key] = out.get(key, 0) + size
    return out


def _wire_functions(name: str, lib: str) -> set[str]:
    """Functions defined by src/wire/<name>.c as built into @lib (a module
    of the same file name elsewhere shares the object's name in the map)."""
    import subprocess
    objs = [o for o in build.arm().rglob(f"{name}.c.o*") if o.parent.name == "wire"
            and f"/{lib}.dir/" in str(o)]
    if not objs:
        return set()
    syms = subprocess.run(["arm-none-eabi-nm", str(objs[0])], capture_output=True, text=True,
                          check=True).stdout
    return {p.split()[-1] for p in syms.splitlines() if " T " in p or " t " in p}


def _image_delta(image: str, base: str) -> tuple[dict[tuple[str, str], int], int, int]:
    """{(object, section): bytes} @image keeps beyond @base (negative where
    it keeps less), and the two images' stack totals."""
    a, b = _stack_sections(image), _stack_sections(base)
    delta = {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b)}
    return delta, sum(a.values()), sum(b.values())


def _largest_functions(delta: dict[tuple[str, str], int], n: int = 12) -> str:
    top = sorted(((v, f"{sec.split('.')[-1]} ({obj})") for (obj, sec), v in delta.items()
                  if v > 0 and sec.startswith(".text")), reverse=True)[:n]
    return "  largest functions: " + ", ".join(f"{name} {v}" for v, name in top)


#: the objects of src/rpl and src/ipv6 an image keeps (rpl.c is also
#: src/wire/rpl.c's, ipv6.c src/wire/ipv6.c's: rpl_records tells them apart)
RPL_OBJECTS = ("rpl.c", "rpl_dao.c", "rpl_dio.c", "rpl_parent.c", "rpl_rul.c")
IPV6_OBJECTS = ("ipv6.c", "ipv6_rx.c", "ipv6_tx.c")


#: the peers of the RPL records (issue 28: Contiki-NG 9f80681 on cc2538dk,
#: arm-none-eabi-gcc 12.2 -Os, function/data sections, --gc-sections, text =
#: code + read-only data of the module's objects as kept in the image)
RPL_PEER_BOTH = 11832
RPL_PEER_STORING = 10026
RPL_PEER_NONSTORING = 9315
#: what every RPL record image has besides its modes (and what none has)
RPL_COMMON = ("root/router/leaf, RPI (RFC 6553/9008) insertion, checks and updates, DAO-ACK, "
              "OF0 and MRHOF with the link estimator's ETX, probing of poor candidates, "
              "joining floating DODAGs and leaving them for grounded ones, the local limits "
              "on DODAG configurations, RFC 9008 IPv6-in-IPv6 tunnels at the root; Trickle, "
              "the RFC 6550/6553/6554 codecs and IPv6's RPL hooks counted; C library and "
              "libgcc helpers included; no shell; without three features the peer lacks: "
              "RPL-unaware leaves (RFC 9010, CONFIG_WREN_RPL_RUL=0), floating DODAGs of its "
              "own (CONFIG_WREN_RPL_FLOATING=0) and a non-storing root's deferred DAO-ACKs "
              "(CONFIG_WREN_RPL_ACK_DEFER=0)")


def _rpl_groups(delta: dict[tuple[str, str], int], wire: set[str]) -> dict[str, int]:
    """Where an RPL image's bytes (beyond rpl_none) go."""
    groups: dict[str, int] = {}
    for (obj, sec), v in delta.items():
        fn = sec.split(".")[-1]
        g = ("RPL wire formats (src/wire/rpl.c)" if obj == "rpl.c" and fn in wire else
             "RPL module (src/rpl)" if obj in RPL_OBJECTS else
             "Trickle (src/core/trickle.c)" if obj == "trickle.c" else
             "IPv6's RPL hooks (src/ipv6, image difference)" if obj in IPV6_OBJECTS else
             f"other ({obj})")
        groups[g] = groups.get(g, 0) + v
    return groups


def _rpl_image(out: Callable[[str], object], image: str, what: str) -> int:
    """Print what RPL image @p image adds to rpl_none, by group and largest
    functions; returns it."""
    delta, total_a, total_b = _image_delta(image, "rpl_none")
    rom = sum(delta.values())
    out(f"RPL, {what}: {image} image {total_a} bytes of stack, the same router without RPL "
        f"{total_b}: RPL adds {rom}")
    _print_groups(out, _rpl_groups(delta, _wire_functions("rpl", f"wren_core_m3_{image}")), 46)
    out(_largest_functions(delta))
    return rom


def rpl_records(out: Callable[[str], object] = print) -> list[Record]:
    """rom_rpl_bytes (both modes) and its twins rom_rpl_storing_bytes and
    rom_rpl_nonstoring_bytes (one mode built): the stack (and helpers) of
    each image less the same of rpl_none (a router under the same
    configuration without RPL and without IPv6's RPL hooks), with where the
    bytes go, and a line per optional feature; ram_rpl_bytes: the module's
    state, and per parent and route."""
    rom = _rpl_image(out, "rpl_both", "both modes")
    st_rom = _rpl_image(out, "rpl_storing", "storing mode only (CONFIG_WREN_RPL_NONSTORING=0)")
    ns_rom = _rpl_image(out, "rpl_nonstoring",
                        "non-storing mode only (CONFIG_WREN_RPL_STORING=0)")
    full = sum(_image_delta("rpl", "rpl_none")[0].values())
    flt = sum(_image_delta("rpl_float", "rpl_none")[0].values())
    dfr = sum(_image_delta("rpl_defer", "rpl_none")[0].values())
    w = 72
    out("RPL's optional features (each the difference of two images):")
    out(f"  {'RPL-unaware leaves, RFC 9010 (CONFIG_WREN_RPL_RUL)':<{w}}{full - flt:>7}")
    out(f"  {'floating DODAGs of its own, RFC 6550 3.2.4 (CONFIG_WREN_RPL_FLOATING)':<{w}}"
        f"{flt - dfr:>7}")
    out(f"  {'deferred DAO-ACKs at a non-storing root (CONFIG_WREN_RPL_ACK_DEFER)':<{w}}"
        f"{dfr - rom:>7}")
    out(f"  {'storing mode beside non-storing (CONFIG_WREN_RPL_STORING)':<{w}}"
        f"{rom - ns_rom:>7}")
    out(f"  {'non-storing mode beside storing (CONFIG_WREN_RPL_NONSTORING)':<{w}}"
        f"{rom - st_rom:>7}")
    st = _sizes_obj("rpl_sizes", "rpl_")
    base = st["state"] - st["parent"] * st["parents"] - st["route"] * st["routes"]
    out(f"RPL state: {st['state']} bytes with {st['parents']} parents and {st['routes']} "
        f"routes built in = {base} + {st['parent']} per parent + {st['route']} per route; a "
        f"root's (or a big router's) route table is memory of the caller's, {st['route']} "
        f"bytes a route")
    how = ("wren: Cortex-M3 gcc 12 -Os, function/data sections, --gc-sections, an image of a "
           "6LoWPAN router and root with RPL less the same router without it (rpl_none)")
    return [
        {"name": "rom_rpl_bytes", "value": rom, "unit": "bytes", "better": "lower",
         "target": RPL_PEER_BOTH,
         "anchor": "Contiki-NG RPL-classic with both modes + uip-sr: 11,832 bytes (Contiki-NG "
                   "9f80681 on cc2538dk, arm-none-eabi-gcc 12.2 -Os, function/data sections, "
                   "--gc-sections, code + read-only data of its objects as kept; features: both "
                   "modes, RPI, SRH, OF0 + MRHOF, DAO-ACK). " + how + " (rpl_both): both modes "
                   "(storing: downward routes, DAO forwarding, no-path DAOs, forwarding "
                   "errors; non-storing: SRH insertion and processing, source routes), "
                   + RPL_COMMON + f"; RFC 9010 leaves add {full - flt}, "
                   f"floating DODAGs {flt - dfr}, deferred DAO-ACKs {dfr - rom} (the "
                   "report's lines)"},
        {"name": "rom_rpl_storing_bytes", "value": st_rom, "unit": "bytes", "better": "lower",
         "target": RPL_PEER_STORING,
         "anchor": "Contiki-NG RPL-classic storing mode: 10,026 bytes (RPI, MRHOF, probing, "
                   "root; same build as rom_rpl_bytes's peer); GNRC gnrc_rpl's 6,694 has no "
                   "RPI/SRH/MRHOF. " + how + " (rpl_storing, CONFIG_WREN_RPL_NONSTORING=0): "
                   "storing mode only (downward routes, DAO forwarding, no-path DAOs, "
                   "forwarding errors), " + RPL_COMMON},
        {"name": "rom_rpl_nonstoring_bytes", "value": ns_rom, "unit": "bytes",
         "better": "lower", "target": RPL_PEER_NONSTORING,
         "anchor": "Contiki-NG RPL-lite + uip-sr: 9,315 bytes (RPI, SRH, DAO-ACK, MRHOF; same "
                   "build as rom_rpl_bytes's peer). " + how + " (rpl_nonstoring, "
                   "CONFIG_WREN_RPL_STORING=0): non-storing mode only (SRH insertion and "
                   "processing, the root's source routes), " + RPL_COMMON},
        {"name": "ram_rpl_bytes", "value": st["state"], "unit": "bytes", "better": "lower",
         "target": None,
         "anchor": f"the RPL module's state with the default configuration: {base} + "
                   f"{st['parent']} per configured parent (CONFIG_WREN_RPL_PARENTS "
                   f"{st['parents']}) + {st['route']} per configured route "
                   f"(CONFIG_WREN_RPL_ROUTES {st['routes']}); a root's table is memory the "
                   f"caller hands over (WREN_NETOPT_RPL_ROUTE_MEM), {st['route']} bytes a route"},
        {"name": "ram_rpl_bytes_per_parent", "value": st["parent"], "unit": "bytes",
         "better": "lower", "target": None,
         "anchor": "one candidate parent: link-local address, rank, ETX, DTSN, last heard"},
        {"name": "ram_rpl_bytes_per_route", "value": st["route"], "unit": "bytes",
         "better": "lower", "target": None,
         "anchor": "one downward route (storing) or source-route entry (non-storing root): "
                   "target, the next hop's or DAO parent's IID, path sequence, lifetime"},
    ]


def sec_records(out: Callable[[str], object] = print) -> list[Record]:
    """rom_ccm_bytes: what the rpl_sec image (the rpl router with
    CONFIG_WREN_IEEE802154_SEC=1) keeps of src/crypto (AES-128 encryption,
    CCM*), by function; and, printed beside it, everything security adds
    to the router (rpl_sec less rpl: crypto, the link layer's key tables,
    frame counters and procedures, 6LoWPAN's room for the MIC)."""
    a = _stack_sections("rpl_sec")
    crypto = {k: v for k, v in a.items() if k[0] in ("aes128.c", "ccm.c")}
    rom = sum(crypto.values())
    delta, _, _ = _image_delta("rpl_sec", "rpl")
    out(f"802.15.4 security (rpl_sec image: the rpl router with CONFIG_WREN_IEEE802154_SEC=1): "
        f"AES-128 CCM* (src/crypto) {rom} bytes, no static RAM (Contiki-NG's aes-128.c + "
        f"ccm-star.c compiled the same way: 1268 bytes and 176 of RAM); all of security adds "
        f"{sum(delta.values())}")
    for (obj, sec), v in sorted(crypto.items(), key=lambda x: -x[1]):
        out(f"  {sec.split('.')[-1] + ' (' + obj + ')':<46}{v:>7}")
    groups: dict[str, int] = {}
    for (obj, _sec), v in delta.items():
        if obj not in ("aes128.c", "ccm.c"):
            groups[obj] = groups.get(obj, 0) + v
    out("  besides crypto: " + ", ".join(f"{o} {v:+d}" for o, v in
                                         sorted(groups.items(), key=lambda x: -abs(x[1])) if v))
    return [
        {"name": "rom_ccm_bytes", "value": rom, "unit": "bytes", "better": "lower",
         "target": 1024,
         "anchor": "Contiki-NG's software AES-128 + CCM* (os/lib/aes-128.c, ccm-star.c, "
                   "compiled alone the same way, arm-none-eabi-gcc 12 -mcpu=cortex-m3 -mthumb "
                   "-Os -ffunction-sections: 724 + 544 = 1,268 bytes of text and 176 bytes of "
                   "RAM for its stored round keys); wren: src/crypto as kept in an image "
                   "that secures its frames (rpl_sec): encryption-only AES with the key "
                   "schedule on the fly (no stored round keys, one 256-byte S-box, no "
                   "T-tables), CCM* seal/open with MIC 0/4/8/16 in one pass"},
    ]


def _print_groups(out: Callable[[str], object], groups: dict[str, int], width: int) -> None:
    """A record's groups of bytes, largest first, those with any."""
    for g, v in sorted(groups.items(), key=lambda x: -x[1]):
        if v:
            out(f"  {g:<{width}}{v:>7}")


#: where TSCH's bytes go: (group, test on (object, function)); the first
#: that matches takes the section
def _tsch_groups(wire_sixp: set[str]) -> list[tuple[str, Callable[[str, str], bool]]]:
    return [
        ("TSCH MAC (src/mac/tsch/*.c)", lambda o, f: o.startswith("tsch")),
        ("802.15.4-2015 IEs (src/wire/ieee802154_ie.c)", lambda o, f: o == "ieee802154_ie.c"),
        ("6P messages (src/wire/sixp.c)", lambda o, f: o == "sixp.c" and f in wire_sixp),
        ("6P (src/sixtop/sixp.c)", lambda o, f: o == "sixp.c"),
        ("MSF (src/sixtop/msf.c)", lambda o, f: o == "msf.c"),
        ("802.15.4 link layer's TSCH hooks (image difference)",
         lambda o, f: o == "ieee802154_link.c"),
        ("802.15.4 frames: the whole-frame emit (image difference)",
         lambda o, f: o == "ieee802154.c"),
        ("RPL: GET RPL_PARENT/RPL_RANK for MSF (image difference)", lambda o, f: o == "rpl.c"),
        ("C library, libgcc (64-bit division)", lambda o, f: not o.endswith(".c")),
    ]


#: the tsch image's twins with one compile-time option more each
#: (runtime/cortexm/CMakeLists.txt): (image, the option and what it adds)
TSCH_OPTIONS = [
    ("tsch_6p_all", "CONFIG_WREN_SIXP_COUNT_LIST=1 (6P COUNT and LIST, which MSF never sends)"),
]


def tsch_records(out: Callable[[str], object] = print) -> list[Record]:
    """rom_tsch_bytes: the stack (and helpers) of the tsch image less the
    same of the rpl image (the same router and root on CSMA, without 6top),
    with where the bytes go; ram_tsch_bytes: the TSCH MAC's state."""
    delta, total_a, total_b = _image_delta("tsch", "rpl")
    rom = sum(delta.values())
    groups: dict[str, int] = {}
    rules = _tsch_groups(_wire_functions("sixp", "wren_core_m3_tsch"))
    for (obj, sec), v in delta.items():
        fn = sec.split(".")[-1]
        g = next((name for name, test in rules if test(obj, fn)), f"other ({obj})")
        groups[g] = groups.get(g, 0) + v
    out(f"TSCH (802.15.4-2015 TSCH MAC: minimal 6TiSCH cell, EBs, joining, synchronisation, "
        f"per-neighbour queues, Enh-ACKs; 6P and MSF when the image has them; no shell): tsch "
        f"image {total_a} bytes of stack, the rpl image (the same router on CSMA) "
        f"{total_b}: TSCH adds {rom}")
    _print_groups(out, groups, 58)
    out(_largest_functions(delta))
    # each compile-time option the record leaves out: what it would add
    for image, what in TSCH_OPTIONS:
        extra, _, _ = _image_delta(image, "tsch")
        out(f"  option {what}: +{sum(extra.values())} bytes (not in the record)")
    st = _sizes_obj("tsch_sizes", "tsch_")
    out(f"TSCH state: {st['state']} bytes per interface ({st['cells']} cells, {st['nbrs']} "
        f"neighbour queues of {st['queue_len']} frames built in)")
    return [
        {"name": "rom_tsch_bytes", "value": rom, "unit": "bytes", "better": "lower",
         "target": 16692,
         "anchor": "TSCH + 6top + MSF on Cortex-M3, gcc 12 -Os: the tsch image (the rpl "
                   "image's 6LoWPAN router and RPL root with its interface on the TSCH MAC) "
                   "less the rpl image (the same on CSMA): TSCH MAC, 802.15.4-2015 IE codecs, "
                   "the link layer's TSCH hooks, 6P with the commands MSF uses (ADD, DELETE, "
                   "RELOCATE, CLEAR; COUNT and LIST are CONFIG_WREN_SIXP_COUNT_LIST, whose "
                   "bytes the report prints apart) and MSF (the report's group lines say "
                   "where the bytes go); C library and libgcc helpers included; no shell. "
                   "Target: Contiki-NG 9f80681 on cc2538dk, arm-none-eabi-gcc 12.2 -Os, "
                   "function/data sections, --gc-sections, text = code + read-only data of "
                   "the module's objects as kept in the final image: TSCH 10,194 + IE 1,034 + "
                   "6top 2,962 + sf-simple 2,502 = 16,692 bytes (issue 28)"},
        {"name": "ram_tsch_bytes", "value": st["state"], "unit": "bytes", "better": "lower",
         "target": None,
         "anchor": f"the TSCH MAC's state of one interface with the default configuration "
                   f"(CONFIG_WREN_TSCH_CELLS {st['cells']}, CONFIG_WREN_TSCH_NBRS {st['nbrs']}, "
                   f"CONFIG_WREN_TSCH_QUEUE_LEN {st['queue_len']}); frames queued live in the "
                   f"packet buffer"},
    ]


def main(args: argparse.Namespace | None) -> list[Record]:
    recs = records_and_print()
    if args and getattr(args, "json", None):
        Path(args.json).write_text(json.dumps(recs, indent=1))
    return recs


def records() -> list[Record]:
    """rom_*/ram_* records for ./wren bench."""
    return records_and_print(out=print)
