"""wren's RPL wire formats against scapy's RPL layers and tshark.

scapy.contrib.rpl / rpl_metrics build DIS, DIO, DAO and DAO-ACK messages with
every option wren parses; wren parses each (the description it returns must
hold scapy's field values), builds the message again from the parsed fields
with its emitters (wren_wire_rpl_reemit), and scapy must dissect wren's bytes
to the same layers and fields (PadN/Pad1 aside: wren does not re-emit
padding). The RPI in a hop-by-hop header goes both ways too; scapy has no
RFC 6554 layer, so tshark dissects wren's source routing headers (full
addresses, compression fields, no expert complaints).
"""
import ipaddress
import random
import shutil
import struct
import subprocess
from ctypes import (POINTER, byref, c_char_p, c_int, c_size_t, c_uint8, c_uint16, c_void_p,
                    create_string_buffer)
from pathlib import Path

import pytest

from wren.lib import load

scapy = pytest.importorskip("scapy")

from scapy.contrib.rpl import (RPLDAO, RPLDAOACK, RPLDIO, RPLDIS, RPLOPTS,  # noqa: E402
                               RPLOptDODAGConfig, RPLOptPad1, RPLOptPadN, RPLOptPIO, RPLOptRIO, RPLOptSolInfo,
                               RPLOptTgt, RPLOptTIO)
from scapy.contrib.rpl_metrics import RPLDAGMCLinkETX, RPLDAGMCHopCount, RPLOptDAGMC  # noqa: E402
from scapy.layers.inet6 import (ICMPv6RPL, IPv6, IPv6ExtHdrHopByHop, RplOption,  # noqa: E402
                                UDP)
from scapy.packet import Raw  # noqa: E402

SRC = "fe80::1"
DST = "ff02::1a"
DODAG = "2001:db8::1"


@pytest.fixture(scope="module")
def lib():
    lib = load()
    sigs = {
        "wren_wire_rpl_reemit": [c_char_p, c_size_t, c_void_p, c_size_t, c_void_p, c_size_t],
        "wren_wire_rpl_rpi_find": [c_char_p, c_size_t, c_void_p, c_size_t],
        "wren_wire_rpl_rpi_emit": [c_uint8, c_uint8, c_uint8, c_uint16, c_void_p, c_size_t],
        "wren_wire_rpl_srh_emit": [c_uint8, c_char_p, c_size_t, c_char_p, c_void_p, c_size_t],
        "wren_wire_rpl_srh_process": [c_void_p, c_size_t, c_void_p, c_char_p, c_size_t,
                                      POINTER(c_uint16)],
    }
    for name, args in sigs.items():
        fn = getattr(lib, name)
        fn.restype = c_int
        fn.argtypes = args
    return lib


def reemit(lib, msg: bytes) -> tuple[bytes, dict]:
    out = create_string_buffer(1500)
    desc = create_string_buffer(4096)
    n = lib.wren_wire_rpl_reemit(msg, len(msg), out, 1500, desc, 4096)
    assert n > 0, f"wren refused scapy's message ({n}): {msg.hex()}"
    parts = desc.value.decode().split(" | ")
    fields = [dict(kv.split("=") for kv in p.split()) for p in parts]
    return out.raw[:n], fields


def dissect(raw: bytes) -> list[tuple[str, dict]]:
    """scapy's dissection of an RPL message: the base, then each option but
    Pad1/PadN, each option dissected from its own bytes. (scapy 2.8 reads the
    prefix of RPL target and route information options, and the parent of a
    transit option, as RFC 4861 options, 8 * (len - 1) bytes, so in a chain
    it swallows the options that follow; given one option at a time it reads
    them right. The boundaries are the RFC 6550 6.7.1 type/length rule.)"""
    pos = 4 + _base_len(raw)
    base = ICMPv6RPL(raw[:pos])
    res = [(type(base.payload).__name__, _fields(base.payload))]
    while pos < len(raw):
        if raw[pos] == 0:
            pos += 1
            continue
        end = pos + 2 + raw[pos + 1]
        if raw[pos] != 1:
            ob = raw[pos:end]
            # scapy cannot read an address field of fewer than 16 bytes
            # there: give it the carried bytes zero-filled to 16 (what they
            # mean), or none for a transit option without a parent
            fixed = {3: 6, 5: 2, 6: 4}.get(ob[0])
            if fixed is not None and ob[1] - fixed < 16:
                ob += bytes(16 - (ob[1] - fixed))
            o = RPLOPTS[raw[pos]](ob)
            assert not o.payload, f"scapy left bytes of {o.name}"
            f = _fields(o)
            if ob[0] == 6 and raw[pos + 1] == 4:
                f.pop("parentaddr")
            res.append((type(o).__name__, f))
        pos = end
    return res


def _fields(p) -> dict:
    f = {k: v for k, v in p.fields.items() if k not in ("cksum", "len", "optlen", "autopad")}
    if isinstance(p, RPLOptDAGMC):
        f["options"] = b"".join(bytes(o) for o in p.options)
    return f


def _base_len(raw: bytes) -> int:
    base = {0: 2, 1: 24, 2: 4, 3: 4}[raw[1]]
    if raw[1] == 2 and raw[5] & 0x40 or raw[1] == 3 and raw[5] & 0x80:
        base += 16
    return base


def rpl_bytes(body) -> bytes:
    """The ICMPv6 message as scapy builds it (checksum over the IPv6 pseudo-header)."""
    return bytes(IPv6(src=SRC, dst=DST) / ICMPv6RPL() / body)[40:]


def hexaddr(a: str | None) -> str:
    return ipaddress.IPv6Address(a or "::").packed.hex()


MESSAGES = {
    "dis": RPLDIS(),
    "dis_solicited": RPLDIS() / RPLOptSolInfo(RPLInstanceID=7, V=1, I=1, D=1, dodagid=DODAG,
                                              ver=9),
    "dio": RPLDIO(RPLInstanceID=30, ver=240, rank=256, G=1, mop=2, prf=3, dtsn=7,
                  dodagid=DODAG)
           / RPLOptDODAGConfig(A=1, PCS=2, DIOIntDoubl=8, DIOIntMin=12, DIORedun=10,
                               MaxRankIncrease=1792, MinRankIncrease=256, OCP=1,
                               DefLifetime=30, LifetimeUnit=60)
           / RPLOptPad1()
           / RPLOptPIO(plen=64, L=0, A=1, R=1, validlifetime=3600, preflifetime=1800,
                       prefix="2001:db8::1")
           / RPLOptPadN(optdata=b"\0\0\0"),
    "dio_metrics_route": RPLDIO(RPLInstanceID=1, rank=1024, G=0, mop=1, dodagid=DODAG)
           # scapy counts the options after a metric container in its length
           # unless given (and reads 8 * len bytes): the length is given
           / RPLOptDAGMC(len=12, options=[RPLDAGMCLinkETX(ETX=300),
                                          RPLDAGMCHopCount(HopCount=3)])
           / RPLOptRIO(plen=48, prf=1, rtlifetime=600, prefix="2001:db8:7::")
           / RPLOptRIO(plen=0, rtlifetime=0xffffffff),
    "dao_storing": RPLDAO(RPLInstanceID=30, K=1, D=0, daoseq=200)
           / RPLOptTgt(plen=128, prefix="2001:db8::7")
           / RPLOptTgt(plen=64, prefix="2001:db8:1::")
           / RPLOptTIO(E=0, pathcontrol=0, pathseq=5, pathlifetime=30),
    "dao_nonstoring": RPLDAO(RPLInstanceID=30, K=0, D=1, daoseq=3, dodagid=DODAG)
           / RPLOptTgt(plen=128, prefix="2001:db8::7")
           / RPLOptTIO(pathseq=250, pathlifetime=0, parentaddr="2001:db8::3"),
    "dao_ack": RPLDAOACK(RPLInstanceID=30, D=0, daoseq=200, status=0),
    "dao_ack_refused": RPLDAOACK(RPLInstanceID=30, D=1, daoseq=201, status=128,
                                 dodagid=DODAG),
}


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_scapy_rpl__both_ways(lib, name):
    raw = rpl_bytes(MESSAGES[name])
    orig = ICMPv6RPL(raw)
    mine, fields = reemit(lib, raw)
    assert mine[0] == 155 and mine[1] == raw[1]
    assert dissect(mine) == dissect(raw)
    # the padding is gone, nothing else: same bytes as scapy's without pads
    want = rpl_bytes(_without_pads(MESSAGES[name]))
    assert mine[4:] == want[4:]
    _check_desc(orig, MESSAGES[name], fields)


def _without_pads(pkt):
    pkt = pkt.copy()
    p = pkt
    while p.payload and p.payload.name != "NoPayload":
        if isinstance(p.payload, (RPLOptPad1, RPLOptPadN)):
            p.payload = p.payload.payload
        else:
            p = p.payload
    return pkt


def _check_desc(icmp, msg, fields):
    """What wren parsed equals what scapy put there (@msg: as scapy built it)."""
    base = fields[0]
    assert int(base["code"]) == icmp.code
    if isinstance(msg, RPLDIO):
        assert int(base["instance"]) == msg.RPLInstanceID and int(base["rank"]) == msg.rank
        assert int(base["version"]) == msg.ver and int(base["mop"]) == msg.mop
        assert int(base["g"]) == msg.G and int(base["prf"]) == msg.prf
        assert int(base["dtsn"]) == msg.dtsn and base["dodagid"] == hexaddr(msg.dodagid)
    elif isinstance(msg, RPLDAO):
        assert int(base["instance"]) == msg.RPLInstanceID and int(base["seq"]) == msg.daoseq
        assert int(base["k"]) == msg.K and ("dodagid" in base) == bool(msg.D)
    elif isinstance(msg, RPLDAOACK):
        assert int(base["seq"]) == msg.daoseq and int(base["status"]) == msg.status
    opts = [layer for layer in _opt_layers(msg) if not isinstance(layer, (RPLOptPad1, RPLOptPadN))]
    assert len(opts) == len(fields) - 1
    for o, f in zip(opts, fields[1:]):
        assert int(f["opt"]) == o.otype
        if isinstance(o, RPLOptDODAGConfig):
            assert (int(f["doublings"]), int(f["imin"]), int(f["redundancy"])) == \
                (o.DIOIntDoubl, o.DIOIntMin, o.DIORedun)
            assert (int(f["max_rank_inc"]), int(f["min_hop_rank_inc"]), int(f["ocp"])) == \
                (o.MaxRankIncrease, o.MinRankIncrease, o.OCP)
            assert (int(f["a"]), int(f["pcs"]), int(f["def_lifetime"]),
                    int(f["lifetime_unit"])) == (o.A, o.PCS, o.DefLifetime, o.LifetimeUnit)
        elif isinstance(o, RPLOptPIO):
            assert int(f["plen"]) == o.plen and f["prefix"] == hexaddr(o.prefix)
            assert (int(f["l"]), int(f["a"]), int(f["r"])) == (o.L, o.A, o.R)
            assert (int(f["valid"]), int(f["preferred"])) == (o.validlifetime, o.preflifetime)
        elif isinstance(o, RPLOptRIO):
            assert int(f["plen"]) == o.plen and int(f["prf"]) == o.prf
            assert int(f["lifetime"]) == o.rtlifetime
            assert f.get("prefix", "") == hexaddr(o.prefix)[:len(f.get("prefix", ""))]
        elif isinstance(o, RPLOptTgt):
            assert int(f["plen"]) == o.plen
            assert f["prefix"] == hexaddr(o.prefix)[:len(f["prefix"])]
            assert len(f["prefix"]) // 2 >= (o.plen + 7) // 8
        elif isinstance(o, RPLOptTIO):
            assert (int(f["path_seq"]), int(f["path_lifetime"])) == (o.pathseq, o.pathlifetime)
            assert ("parent" in f) == (o.parentaddr is not None)
            if o.parentaddr:
                assert f["parent"] == hexaddr(o.parentaddr)
        elif isinstance(o, RPLOptSolInfo):
            assert (int(f["instance"]), int(f["version"])) == (o.RPLInstanceID, o.ver)
            assert (int(f["v"]), int(f["i"]), int(f["d"])) == (o.V, o.I, o.D)
            assert f["dodagid"] == hexaddr(o.dodagid)
        elif isinstance(o, RPLOptDAGMC):
            assert int(f["len"]) == o.len


def _opt_layers(msg):
    p = msg.payload
    while p and p.name != "NoPayload" and not isinstance(p, Raw):
        yield p
        p = p.payload


def test_scapy_rpl__truncations_refused(lib):
    """Every cut of every message either parses (the cut fell between
    options) or is refused; none is accepted with an option cut short."""
    for name, body in MESSAGES.items():
        raw = rpl_bytes(body)
        ends = set()
        mine, _ = reemit(lib, raw)
        for k in range(len(raw)):
            out = create_string_buffer(1500)
            desc = create_string_buffer(4096)
            n = lib.wren_wire_rpl_reemit(raw[:k], k, out, 1500, desc, 4096)
            if n > 0:
                ends.add(k)
        # the only cuts accepted are option boundaries of scapy's own layout
        bounds = _option_bounds(raw)
        assert ends <= bounds, f"{name}: accepted cuts {sorted(ends - bounds)}"


def _option_bounds(raw: bytes) -> set[int]:
    pos = 4 + _base_len(raw)
    bounds = {pos}
    while pos < len(raw):
        pos += 1 if raw[pos] == 0 else 2 + raw[pos + 1]
        bounds.add(pos)
    return bounds


@pytest.mark.parametrize("otype", [0x23, 0x63])
def test_scapy_rpl__rpi(lib, otype):
    """An RPI scapy puts in a hop-by-hop header (either type) is found and
    read; the header wren emits is scapy's RplOption with the same fields."""
    hbh = IPv6ExtHdrHopByHop(nh=17, options=[RplOption(otype=otype, Down=1, RankError=0,
                                                       ForwardError=1, RplInstanceId=30,
                                                       SenderRank=0x1234)])
    raw = bytes(hbh)
    desc = create_string_buffer(256)
    assert lib.wren_wire_rpl_rpi_find(raw, len(raw), desc, 256) == 0
    f = dict(kv.split("=") for kv in desc.value.decode().split())
    assert f == {"type": str(otype), "o": "1", "r": "0", "f": "1", "instance": "30",
                 "rank": str(0x1234)}
    out = create_string_buffer(8)
    assert lib.wren_wire_rpl_rpi_emit(17, 0x80 | 0x40, 30, 0x0300, out, 8) == 8
    p = IPv6ExtHdrHopByHop(out.raw)
    assert p.nh == 17 and len(p.options) == 1
    o = p.options[0]
    # scapy knows the RPI's layout only under RFC 6553's type 0x63
    assert o.otype == 0x23 and o.optlen == 4
    o = RplOption(b"\x63\x04" + o.optdata)
    assert (o.Down, o.RankError, o.ForwardError, o.RplInstanceId, o.SenderRank) == \
        (1, 1, 0, 30, 0x0300)


def _srh(lib, hops: list[str], dst: str) -> bytes:
    hb = b"".join(ipaddress.IPv6Address(h).packed for h in hops)
    out = create_string_buffer(2048)
    n = lib.wren_wire_rpl_srh_emit(17, hb, len(hops), ipaddress.IPv6Address(dst).packed,
                                   out, 2048)
    assert n > 0
    return out.raw[:n]


def _routes():
    rnd = random.Random(6554)
    routes = [
        ("2001:db8::2", ["2001:db8::3", "2001:db8::4", "2001:db8::5"]),
        ("2001:db8::2", ["2001:db8::3", "2001:db8:0:1::9"]),
        ("fd00::1", ["2001:db8::5"]),
        ("2001:db8::200:0:0:2", ["2001:db8::200:0:0:%x" % i for i in range(3, 19)]),
    ]
    for _ in range(6):
        n = rnd.randint(1, 12)
        pfx = rnd.choice(["2001:db8::", "2001:db8:0:%x::" % rnd.randint(0, 3)])
        def a():
            return str(ipaddress.IPv6Address(int(ipaddress.IPv6Address(pfx))
                                             + rnd.randint(1, 1 << rnd.choice([8, 16, 48]))))
        routes.append((a(), [a() for _ in range(n)]))
    return routes


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_tshark_rpl__srh_and_messages(lib, tmp_path: Path):
    """tshark dissects wren's SRHs (every full address as given, nothing
    flagged), and wren's DIO/DAO/DAO-ACK re-emitted from scapy's, walking
    each SRH hop by hop with wren's RFC 6554 4.2 processing."""
    pkts = []
    routes = _routes()
    for dst, hops in routes:
        srh = _srh(lib, hops, dst)
        # the UDP checksum is over the final destination (RFC 8200 8.1)
        udp = bytes(IPv6(src="2001:db8::1", dst=hops[-1]) / UDP(sport=1, dport=2)
                    / Raw(b"x"))[40:]
        pkts.append(bytes(IPv6(src="2001:db8::1", dst=dst, nh=43) / Raw(srh + udp)))
        # walk it: each hop's node owns the destination
        hdr = bytearray(srh)
        cur = bytearray(ipaddress.IPv6Address(dst).packed)
        err = c_uint16()
        hb = (c_uint8 * len(hdr)).from_buffer(hdr)
        cb = (c_uint8 * 16).from_buffer(cur)
        visited = []
        for _ in range(len(hops)):
            own = bytes(cur)
            assert lib.wren_wire_rpl_srh_process(hb, len(hdr), cb, own, 1, byref(err)) == 1
            visited.append(str(ipaddress.IPv6Address(bytes(cur))))
        assert visited == [str(ipaddress.IPv6Address(h)) for h in hops]
        assert lib.wren_wire_rpl_srh_process(hb, len(hdr), cb, bytes(cur), 1, byref(err)) == 0
    for body in MESSAGES.values():
        mine, _ = reemit(lib, rpl_bytes(body))
        m = ICMPv6RPL(mine)
        del m.cksum  # filled in as a sender does
        pkts.append(bytes(IPv6(src=SRC, dst=DST) / m))
    pcap = tmp_path / "rpl.pcap"
    with open(pcap, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 229))  # LINKTYPE_IPV6
        for i, p in enumerate(pkts):
            f.write(struct.pack("<IIII", i, 0, len(p), len(p)))
            f.write(p)
    res = subprocess.run(["tshark", "-r", str(pcap), "-T", "fields", "-E", "separator=|",
                          "-e", "ipv6.routing.rpl.full_address",
                          "-e", "ipv6.routing.rpl.addr_count",
                          "-e", "icmpv6.rpl.opt.type", "-e", "_ws.expert", "-e", "_ws.malformed",
                          "-e", "icmpv6.checksum.status"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == len(pkts)
    for (dst, hops), line in zip(routes, lines):
        full, count, _, expert, malformed, _ = line.split("|")
        assert int(count) == len(hops)
        assert [ipaddress.IPv6Address(a) for a in full.split(",")] == \
            [ipaddress.IPv6Address(h) for h in hops]
        assert not expert and not malformed, line
    for line in lines[len(routes):]:
        _, _, _, expert, malformed, csum = line.split("|")
        assert not expert and not malformed, line
        assert csum == "1", line  # good
