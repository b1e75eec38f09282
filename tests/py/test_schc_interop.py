"""SCHC and LoRaWAN framing against code nobody here wrote.

- microschc (PyPI) compresses and decompresses the same IPv6/UDP packets with
  the same rules as wren (wire/schc.c, through runtime/sim/wire_schc.c): wren
  compresses -> microschc decompresses, microschc compresses -> wren
  decompresses, and both SCHC packets are the same bytes. scapy checks the
  IPv6/UDP that comes out (lengths, checksum).
- microschc 0.22 has no fragmentation ("Fragmentation/Reassembly is not
  implemented" in microschc.rfc8724), so wren's fragments (RFC 8724 8 with
  RFC 9011's profiles) are checked by an independent receiver written here
  from the RFC's formats with zlib's CRC32, and wren's receiver takes
  fragments an independent sender made.
- tshark's LoRaTap and LoRaWAN dissectors read wren's LoRaWAN frames (FPort =
  rule ID, FCnt, DevAddr) with nothing flagged, and with the session keys
  check the MIC and decrypt the FRMPayload to the SCHC packet.
"""
from __future__ import annotations

import struct
import zlib
from ctypes import (POINTER, c_char_p, c_int, c_size_t, c_uint8, c_uint32, c_void_p,
                    create_string_buffer)
from pathlib import Path

import pytest
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Raw

from wren.lib import load

from conftest import tshark_fields

microschc = pytest.importorskip("microschc")
from microschc.binary.buffer import Buffer  # noqa: E402
from microschc.manager.manager import ContextManager  # noqa: E402
from microschc.parser.parser import PacketParser  # noqa: E402
from microschc.protocol.ipv6 import IPv6Parser  # noqa: E402
from microschc.protocol.udp import UDPParser  # noqa: E402
from microschc.protocol.ipv6 import IPv6Fields as F6  # noqa: E402
from microschc.protocol.udp import UDPFields as FU  # noqa: E402
from microschc.rfc8724 import CompressionDecompressionAction as CDA  # noqa: E402
from microschc.rfc8724 import DirectionIndicator as DI  # noqa: E402
from microschc.rfc8724 import MatchingOperator as MO  # noqa: E402
from microschc.rfc8724 import (MatchMapping, RuleDescriptor, RuleFieldDescriptor,  # noqa: E402
                               RuleNature)
from microschc.rfc8724extras import Context  # noqa: E402

# A sensor (fe80::257:5200:0:XX, ports 0xf0b0..f) to its router's global
# address, port 61616: flow label sent, hop limit mapped, LSBs of the
# device's IID and port, the router's IID sent: 98 bits of residue, so the
# payload lies across byte boundaries.
WREN_RULES = """
rule 5
ipv6.ver    bi equal  not-sent 6
ipv6.tc     bi equal  not-sent 0
ipv6.fl     bi ignore value-sent
ipv6.len    bi ignore compute
ipv6.nxt    bi equal  not-sent 17
ipv6.hop    bi match-mapping mapping-sent 1,64,255
ipv6.devpre bi equal  not-sent 0xfe80000000000000
ipv6.deviid bi msb(56) lsb 0x0257520000000000
ipv6.apppre bi equal  not-sent 0x20010db800000000
ipv6.appiid bi ignore value-sent
udp.devport bi msb(12) lsb 0xf0b0
udp.appport bi equal  not-sent 61616
udp.len     bi ignore compute
udp.cksum   bi ignore compute
rule 250 nocomp
"""
UP, DOWN = 1, 2


def _b(value: int, bits: int) -> Buffer:
    return Buffer(content=value.to_bytes((bits + 7) // 8, "big"), length=bits)


def _f(fid, bits, mo, cda, tv=None) -> RuleFieldDescriptor:
    return RuleFieldDescriptor(id=fid, length=bits, position=0, direction=DI.BIDIRECTIONAL,
                               target_value=tv, matching_operator=mo,
                               compression_decompression_action=cda)


def microschc_manager() -> ContextManager:
    """The same rules for microschc: its addresses are whole 128-bit fields,
    so the Device's prefix + IID LSBs are MSB(120)/LSB and the App's prefix
    + IID are MSB(64)/LSB: the same residue bits, in the same order."""
    hop = MatchMapping({_b(1, 8): _b(0, 2), _b(64, 8): _b(1, 2), _b(255, 8): _b(2, 2)})
    fields = [
        _f(F6.VERSION, 4, MO.EQUAL, CDA.NOT_SENT, _b(6, 4)),
        _f(F6.TRAFFIC_CLASS, 8, MO.EQUAL, CDA.NOT_SENT, _b(0, 8)),
        _f(F6.FLOW_LABEL, 20, MO.IGNORE, CDA.VALUE_SENT),
        _f(F6.PAYLOAD_LENGTH, 16, MO.IGNORE, CDA.COMPUTE),
        _f(F6.NEXT_HEADER, 8, MO.EQUAL, CDA.NOT_SENT, _b(17, 8)),
        _f(F6.HOP_LIMIT, 8, MO.MATCH_MAPPING, CDA.MAPPING_SENT, hop),
        _f(F6.SRC_ADDRESS, 128, MO.MSB, CDA.LSB, _b(0xfe800000000000000257520000000000 >> 8, 120)),
        _f(F6.DST_ADDRESS, 128, MO.MSB, CDA.LSB, _b(0x20010db800000000, 64)),
        _f(FU.SOURCE_PORT, 16, MO.MSB, CDA.LSB, _b(0xf0b, 12)),
        _f(FU.DESTINATION_PORT, 16, MO.EQUAL, CDA.NOT_SENT, _b(61616, 16)),
        _f(FU.LENGTH, 16, MO.IGNORE, CDA.COMPUTE),
        _f(FU.CHECKSUM, 16, MO.IGNORE, CDA.COMPUTE),
    ]
    rules = [RuleDescriptor(id=_b(5, 8), nature=RuleNature.COMPRESSION, field_descriptors=fields),
             RuleDescriptor(id=_b(250, 8), nature=RuleNature.NO_COMPRESSION)]
    ctx = Context(id="wren", description="sensor to router", interface_id="lora",
                  parser_id="IPv6-UDP", ruleset=rules)
    # IPv6 then UDP, as its stacks are built (its "IPv6" parser id would
    # parse UDP too but leave it out when putting a packet back together)
    return ContextManager(context=ctx, parser=PacketParser("IPv6-UDP", [IPv6Parser(), UDPParser()]))


def packet(i: int, payload: bytes, hop: int = 64) -> bytes:
    pkt = (IPv6(src=f"fe80::257:5200:0:{i:x}", dst="2001:db8::1234:5678:9abc:def0",
                fl=0x12345 + i, hlim=hop)
           / UDP(sport=0xf0b0 + (i & 15), dport=61616) / Raw(payload))
    return bytes(pkt)


@pytest.fixture(scope="module")
def lib():
    lib = load()
    sigs = {
        "wren_wire_schc_compress": [c_char_p, c_int, c_char_p, c_size_t, c_void_p, c_size_t,
                                    c_void_p, c_size_t],
        "wren_wire_schc_decompress": [c_char_p, c_int, c_char_p, c_size_t, c_void_p, c_size_t,
                                      c_void_p, c_size_t],
        "wren_wire_schc_fragment": [c_int, c_char_p, c_size_t, c_size_t, c_void_p, c_size_t],
        "wren_wire_schc_reassemble": [c_int, c_char_p, c_size_t, c_void_p, c_size_t, c_void_p,
                                      c_size_t, POINTER(c_size_t)],
        "wren_wire_lorawan_seal": [c_uint32, c_int, c_uint32, c_uint8, c_char_p, c_char_p,
                                   c_char_p, c_size_t, c_void_p, c_size_t],
    }
    for name, args in sigs.items():
        fn = getattr(lib, name)
        fn.restype = c_int
        fn.argtypes = args
    return lib


def wren_compress(lib, pkt: bytes, rules: str = WREN_RULES, direction: int = UP) -> bytes:
    out, err = create_string_buffer(2048), create_string_buffer(128)
    n = lib.wren_wire_schc_compress(rules.encode(), direction, pkt, len(pkt), out, 2048, err, 128)
    assert n > 0, (n, err.value)
    return out.raw[:n]


def wren_decompress(lib, schc: bytes, direction: int = UP, rules: str = WREN_RULES) -> bytes:
    out, err = create_string_buffer(2048), create_string_buffer(128)
    n = lib.wren_wire_schc_decompress(rules.encode(), direction, schc, len(schc), out, 2048,
                                      err, 128)
    assert n > 0, (n, err.value)
    return out.raw[:n]


def check_ipv6_udp(raw: bytes, want: bytes) -> None:
    """scapy reads it as IPv6/UDP whose lengths and checksum are right."""
    p = IPv6(raw)
    assert p.plen == len(raw) - 40 and p[UDP].len == len(raw) - 40
    csum = p[UDP].chksum
    del p[UDP].chksum
    assert IPv6(bytes(p))[UDP].chksum == csum
    assert raw == want


CASES = [(i, bytes((i * 7 + k) & 0xff for k in range(n)), hop)
         for i, (n, hop) in enumerate([(0, 64), (1, 1), (5, 64), (16, 255), (33, 64), (200, 1)])]


@pytest.mark.parametrize("i,payload,hop", CASES)
def test_wren_and_microschc_compress_alike_both_ways(lib, i, payload, hop):
    mgr = microschc_manager()
    pkt = packet(i, payload, hop)
    ours = wren_compress(lib, pkt)
    theirs = mgr.compress(Buffer(content=pkt), direction=DI.UP)
    # 8 (rule) + 20 + 2 + 8 + 64 + 4 bits of residue, the payload, padding
    assert len(ours) == (106 + 8 * len(payload) + 7) // 8 and ours[0] == 5
    assert ours == theirs.content, "the same SCHC packet, bit for bit"
    # wren -> microschc
    back = mgr.decompress(Buffer(content=ours))
    check_ipv6_udp(back.content, pkt)
    # microschc -> wren
    check_ipv6_udp(wren_decompress(lib, theirs.content), pkt)


def test_no_compression_rule_both_ways(lib):
    mgr = microschc_manager()
    pkt = bytes(IPv6(src="2001:db8::1", dst="2001:db8::2") / UDP(sport=5683, dport=9) / b"x")
    ours = wren_compress(lib, pkt)
    assert ours == bytes([250]) + pkt
    assert mgr.decompress(Buffer(content=ours)).content == pkt
    assert wren_decompress(lib, ours) == pkt


def test_rule_mistake_is_one_line(lib):
    out, err = create_string_buffer(64), create_string_buffer(128)
    n = lib.wren_wire_schc_compress(b"rule 1\nipv6.ver bi equal sent 6\n", UP, b"", 0, out, 64,
                                    err, 128)
    assert n == -1000
    assert err.value == b"schc rules line 2: unknown action (not-sent value-sent mapping-sent " \
                        b"lsb compute) 'sent'"


def test_pair_rules_leave_the_rule_id_and_two_bits(lib):
    """wren.schc.pair_rules: a sensor's datagram to its router, and the
    answer, become the rule ID, a 2-bit hop-limit index and the payload."""
    from wren import schc
    text = schc.pair_rules("2001:db8::5", "2001:db8::1", 0xf0b5, 61616)
    schc.check(text)
    up = bytes(IPv6(src="2001:db8::5", dst="2001:db8::1", hlim=64)
               / UDP(sport=0xf0b5, dport=61616) / b"21.5")
    down = bytes(IPv6(src="2001:db8::1", dst="2001:db8::5", hlim=63)
                 / UDP(sport=61616, dport=0xf0b5) / b"ok")
    for pkt, d, idx in ((up, UP, 0), (down, DOWN, 1)):
        c = wren_compress(lib, pkt, text, d)
        payload = pkt[48:]
        assert c[0] == 1 and len(c) == 1 + (2 + 8 * len(payload) + 7) // 8
        assert c[1] >> 6 == idx
        check_ipv6_udp(wren_decompress(lib, c, d, text), pkt)
    # another port: the no-compression rule
    other = bytes(IPv6(src="2001:db8::5", dst="2001:db8::1") / UDP(sport=1, dport=61616) / b"x")
    assert wren_compress(lib, other, text)[0] == 22
    with pytest.raises(ValueError, match=r"^schc rules line 14: unknown field 'udp.length'$"):
        schc.check(text.replace("udp.len ", "udp.length "))


# ---- fragmentation: an independent receiver and sender (RFC 8724 8.3) ------

def _bits(data: bytes) -> str:
    return "".join(f"{b:08b}" for b in data)


def _from_bits(bits: str) -> bytes:
    bits += "0" * (-len(bits) % 8)
    return bytes(int(bits[k:k + 8], 2) for k in range(0, len(bits), 8))


def _messages(blob: bytes) -> list[bytes]:
    out, i = [], 0
    while i < len(blob):
        n = struct.unpack(">H", blob[i:i + 2])[0]
        out.append(blob[i + 2:i + 2 + n])
        i += 2 + n
    return out


PROFILES = {  # RFC 9011 5.6.2 / 5.6.3: rule, M, N, WINDOW_SIZE, tile bytes
    "up": (20, 2, 6, 63, 10),
    "down": (21, 1, 1, 1, 40),
}


def reassemble(msgs: list[bytes], profile: str) -> bytes:
    """Read wren's fragments as the RFC lays them out: rule ID, W, FCN, the
    tiles (FCN counting down in a window), the All-1 with the RCS (CRC32 of
    the SCHC packet) and the last tile."""
    rule, m, n, window, tile = PROFILES[profile]
    tiles: dict[int, bytes] = {}
    last = rcs = None
    cur = 0  # the absolute window: W is its M low bits, and windows come in order
    for msg in msgs:
        b = _bits(msg)
        assert int(b[:8], 2) == rule
        w, fcn, rest = int(b[8:8 + m], 2), int(b[8 + m:8 + m + n], 2), b[8 + m + n:]
        while cur % (1 << m) != w:
            cur += 1
        w = cur
        if fcn == (1 << n) - 1:
            rcs, body = int(rest[:32], 2), rest[32:]
            last = _from_bits(body[:len(body) // 8 * 8])
            continue
        data = _from_bits(rest[:len(rest) // 8 * 8])
        assert len(data) % tile == 0
        first = w * window + (window - 1 - fcn)
        for k in range(len(data) // tile):
            tiles[first + k] = data[k * tile:(k + 1) * tile]
    assert last is not None and sorted(tiles) == list(range(len(tiles)))
    whole = b"".join(tiles[k] for k in range(len(tiles))) + last
    assert zlib.crc32(whole) == rcs, "RCS: CRC32 of the SCHC packet"
    return whole


def fragment(pkt: bytes, profile: str, per_msg: int) -> list[bytes]:
    """An independent sender: @per_msg tiles a regular fragment, the last
    tile in the All-1."""
    rule, m, n, window, tile = PROFILES[profile]
    tiles = [pkt[k:k + tile] for k in range(0, len(pkt), tile)]
    msgs = []
    k = 0
    while k < len(tiles) - 1:
        w, pos = divmod(k, window)
        count = min(per_msg, window - pos, len(tiles) - 1 - k)
        head = f"{rule:08b}{w % (1 << m):0{m}b}{window - 1 - pos:0{n}b}"
        msgs.append(_from_bits(head + _bits(b"".join(tiles[k:k + count]))))
        k += count
    w = (len(tiles) - 1) // window
    head = f"{rule:08b}{w % (1 << m):0{m}b}{(1 << n) - 1:0{n}b}{zlib.crc32(pkt):032b}"
    msgs.append(_from_bits(head + _bits(tiles[-1])))
    return msgs


SIZES = [1, 10, 11, 99, 620, 631, 1281]


@pytest.mark.parametrize("profile", ["up", "down"])
@pytest.mark.parametrize("size", SIZES)
def test_wren_fragments_read_by_an_independent_receiver(lib, profile, size):
    pkt = bytes((k * 29 + size) & 0xff for k in range(size))
    out = create_string_buffer(8192)
    n = lib.wren_wire_schc_fragment(profile == "down", pkt, len(pkt), 51, out, 8192)
    assert n > 0
    msgs = _messages(out.raw[:n])
    assert all(len(x) <= 51 for x in msgs)
    assert reassemble(msgs, profile) == pkt


@pytest.mark.parametrize("profile", ["up", "down"])
@pytest.mark.parametrize("size", SIZES)
def test_wren_reassembles_an_independent_senders_fragments(lib, profile, size):
    pkt = bytes((k * 31 + 7) & 0xff for k in range(size))
    per_msg = 4 if profile == "up" else 1
    msgs = fragment(pkt, profile, per_msg)
    blob = b"".join(struct.pack(">H", len(x)) + x for x in msgs)
    out, acks, alen = create_string_buffer(2048), create_string_buffer(4096), c_size_t(0)
    got = lib.wren_wire_schc_reassemble(profile == "down", blob, len(blob), out, 2048, acks,
                                        4096, alen)
    assert got == size and out.raw[:size] == pkt
    ack = _messages(acks.raw[:alen.value])
    # the last ACK: W of the last window, C = 1 (RFC 8724 8.3.2), padded
    rule, m, _, window, _ = PROFILES[profile]
    last_w = ((size + PROFILES[profile][4] - 1) // PROFILES[profile][4] - 1) // window
    b = _bits(ack[-1])
    assert int(b[:8], 2) == rule and int(b[8:8 + m], 2) == last_w % (1 << m) and b[8 + m] == "1"
    # ACK-Always acknowledges every window, ACK-on-Error only the end
    assert len(ack) == (len(msgs) if profile == "down" else 1)


# ---- LoRaWAN framing in LoRaTap, read by tshark --------------------------------

NO_KEYS = "Expert Info (Note/Protocol): MIC could not be verified because of missing encryption keys"
NWK = bytes(range(16))
APP = bytes(range(16, 32))


def loratap(frame: bytes, sf: int = 7) -> bytes:
    """LoRaTap v0 (15 bytes): version, padding, length (BE), frequency (Hz,
    BE), bandwidth (125 kHz units), SF, RSSI x3, SNR, sync word 0x34 (the
    LoRaWAN public network's)."""
    return struct.pack(">BBHIBBBBBBB", 0, 0, 15, 868100000, 1, sf, 100, 100, 100, 40, 0x34) + frame


def write_pcap(path: Path, frames: list[bytes]) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 270))  # LINKTYPE_LORATAP
        for k, fr in enumerate(frames):
            f.write(struct.pack("<IIII", k, 0, len(fr), len(fr)) + fr)


def test_iid_is_rfc9011_cmac(lib):
    """RFC 9011 5.3: IID = AES-CMAC(AppSKey, DevEUI)[0..7], against the
    cryptography package's CMAC."""
    from cryptography.hazmat.primitives.ciphers.algorithms import AES
    from cryptography.hazmat.primitives.cmac import CMAC
    fn = lib.wren_wire_lorawan_iid
    fn.restype, fn.argtypes = None, [c_char_p, c_char_p, c_void_p]
    for k in range(8):
        key, eui = bytes((k * 37 + i) & 0xff for i in range(16)), bytes([k] * 4 + [1, 2, 3, 4])
        out = create_string_buffer(8)
        fn(key, eui, out)
        c = CMAC(AES(key))
        c.update(eui)
        assert out.raw == c.finalize()[:8]


def test_tshark_reads_lorawan_frames(lib, tmp_path):
    frames, schcs = [], []
    for k, payload in enumerate([b"", b"21.5", bytes(60)]):
        schc = wren_compress(lib, packet(k, payload))
        schcs.append(schc)
        out = create_string_buffer(256)
        n = lib.wren_wire_lorawan_seal(0x260B0001, k == 2, 7 + k, schc[0], NWK, APP, schc[1:],
                                       len(schc) - 1, out, 256)
        assert n == 12 + len(schc)
        frames.append(loratap(out.raw[:n]))
    pcap = tmp_path / "lorawan.pcap"
    write_pcap(pcap, frames)
    rows = tshark_fields(pcap, "loratap.channel.sf", "lorawan.mhdr.mtype",
                         "lorawan.fhdr.devaddr", "lorawan.fhdr.fcnt", "lorawan.fport",
                         "_ws.expert", "_ws.malformed")
    assert len(rows) == 3
    for k, row in enumerate(rows):
        sf, mtype, devaddr, fcnt, fport, expert, malformed = row
        assert sf == "7" and int(mtype, 0) == (3 if k == 2 else 2)
        assert int(devaddr, 16) == 0x260B0001 and int(fcnt) == 7 + k
        assert int(fport, 0) == 5, "the SCHC rule ID in FPort (RFC 9011 5.1)"
        # without keys the only remark is the note that the MIC went unchecked
        assert expert in ("", NO_KEYS) and malformed == "", row
    # with the session's keys tshark checks the MIC and decrypts the SCHC
    # packet, and has nothing at all to remark
    # (tshark 4.0's table: DevAddr as its bytes on the air, keys, AppEUI)
    keys = f'uat:encryption_keys_lorawan:"01000b26","{NWK.hex()}","{APP.hex()}","{bytes(8).hex()}"'
    rows = tshark_fields(pcap, "lorawan.mic.status", "lorawan.frmpayload_decrypted",
                         "_ws.expert", extra=["-o", keys])
    assert len(rows) == 3
    for row, schc in zip(rows, schcs):
        assert row[0] == "1", f"MIC status 1, good (2: unverified, 0: bad): {row}"
        assert bytes.fromhex(row[1].replace(":", "")) == schc[1:]
        assert row[2] == "", row
