"""The per-protocol ROM records of ./wren size, each beside its peer's build:
CoAP (coap_records), RPL (rpl_records), 802.15.4 security (sec_records) and
TSCH (tsch_records), each with a line per compile-time option (the
difference of two images) and where the bytes go. The module-level report,
the images and the whole-node figures are in wren.size.
"""
from collections.abc import Callable

from . import build
from .size import (Record, _is_stack, _map, _short, coap_state_bytes, helpers_of, image_report,
                   parse_map_objects)


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
