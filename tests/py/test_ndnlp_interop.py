"""NDNLPv2 LpPackets built and read by wren (wire/ndnlp.h, ndn/ndnlp_frag.h,
through the ctypes entry points of runtime/sim/wire_ndnlp.c) against
python-ndn 0.5.2, which nobody here wrote.

python-ndn encodes and decodes LpPackets (ndn.encoding.ndnlp_v2: the Nack
header, FragIndex, FragCount, the Fragment and other header fields) but not
fragmentation: its parse_lp_packet_v2 refuses FragIndex/FragCount ("NDNLP
fragmentation is not implemented yet") and its LpPacketValue has no Sequence
field. So pieces are checked with python-ndn's own TLV models: its
LpPacketValue (skipping the Sequence as an unknown field) and a model of the
spec's field order built from python-ndn's field classes and its
LpTypeNumber, which also encodes pieces for wren to put together. The
network packets in them are python-ndn's Interests and Data."""
from __future__ import annotations

import random
from ctypes import (POINTER, c_char_p, c_int, c_int64, c_size_t, c_uint16, c_uint32, c_uint64,
                    c_void_p, byref, create_string_buffer)

import pytest

ndn_enc = pytest.importorskip("ndn.encoding")
from ndn.encoding import (InterestParam, MetaInfo, Name, make_data, make_interest,  # noqa: E402
                          parse_data, parse_interest)
from ndn.encoding.ndnlp_v2 import (LpPacketValue, LpTypeNumber, NackReason,  # noqa: E402
                                   NetworkNack, make_network_nack, parse_network_nack)
from ndn.encoding.tlv_model import BytesField, ModelField, TlvModel, UintField  # noqa: E402

from wren.lib import load  # noqa: E402

MTU_154 = 104  # 127-octet frame less a MAC header between EUI-64s (21) and the FCS (2)
COUNTERS = ["lp_rx", "lp_rx_frags", "lp_reassembled", "lp_ooo", "lp_idle", "lp_nack", "lp_drop_tlv",
            "lp_drop_order", "lp_drop_critical", "lp_drop_field", "lp_drop_frag", "lp_drop_dup",
            "lp_drop_no_slot", "lp_drop_count", "lp_drop_oversize", "lp_drop_nobuf",
            "lp_drop_timeout", "lp_tx_frags", "lp_tx_drop_nobuf", "lp_tx_drop_size"]


class Piece(TlvModel):
    """An LpPacket with the spec's fields in the spec's order (NDNLPv2:
    increasing TLV-TYPE, the Fragment last), in python-ndn's TLV models."""
    sequence = BytesField(LpTypeNumber.SEQUENCE)
    frag_index = UintField(LpTypeNumber.FRAG_INDEX)
    frag_count = UintField(LpTypeNumber.FRAG_COUNT)
    nack = ModelField(LpTypeNumber.NACK, NetworkNack)
    fragment = BytesField(LpTypeNumber.FRAGMENT)


class LpPiece(TlvModel):
    lp_packet = ModelField(LpTypeNumber.LP_PACKET, Piece)


@pytest.fixture(scope="module")
def lib():
    lib = load()
    sigs = {
        "wren_wire_ndnlp_fragment": [c_char_p, c_size_t, c_size_t, c_uint64, c_void_p, c_size_t,
                                     POINTER(c_uint16), c_size_t],
        "wren_wire_ndnlp_reassemble": [c_char_p, POINTER(c_uint16), c_size_t, c_void_p, c_size_t,
                                       POINTER(c_int64), POINTER(c_uint32), c_size_t],
        "wren_wire_ndnlp_nack": [c_char_p, c_size_t, c_uint64, c_void_p, c_size_t],
        "wren_wire_ndnlp_describe": [c_char_p, c_size_t, c_void_p, c_size_t],
    }
    for name, args in sigs.items():
        fn = getattr(lib, name)
        fn.restype = c_int
        fn.argtypes = args
    return lib


def fragment(lib, pkt: bytes, mtu: int, seq0: int) -> list[bytes]:
    out = create_string_buffer(4 * len(pkt) + 1024)
    lens = (c_uint16 * 64)()
    n = lib.wren_wire_ndnlp_fragment(pkt, len(pkt), mtu, seq0, out, len(out), lens, 64)
    assert n > 0, f"wren refused to cut a {len(pkt)}-byte packet for MTU {mtu}: {n}"
    pieces, at = [], 0
    for i in range(n):
        pieces.append(out.raw[at:at + lens[i]])
        at += lens[i]
    return pieces


def reassemble(lib, frames: list[bytes]) -> tuple[bytes | None, int, dict[str, int]]:
    """wren's reassembler fed @frames: (packet or None, Nack reason or -1, counters)."""
    blob = b"".join(frames)
    lens = (c_uint16 * len(frames))(*[len(f) for f in frames])
    out = create_string_buffer(4096)
    reason = c_int64()
    counters = (c_uint32 * len(COUNTERS))()
    n = lib.wren_wire_ndnlp_reassemble(blob, lens, len(frames), out, len(out), byref(reason),
                                       counters, len(COUNTERS))
    assert n >= 0
    return (out.raw[:n] if n else None), reason.value, dict(zip(COUNTERS, counters))


def describe(lib, lp: bytes) -> dict[str, int]:
    desc = create_string_buffer(512)
    rc = lib.wren_wire_ndnlp_describe(lp, len(lp), desc, len(desc))
    assert rc == 0, f"wren cannot parse the LpPacket: {rc}"
    return {k: int(v) for k, v in (kv.split("=") for kv in desc.value.decode().split())}


def interest(name: str = "/wren/ndnlp/interest") -> bytes:
    return bytes(make_interest(Name.from_str(name), InterestParam(
        can_be_prefix=True, must_be_fresh=True, nonce=0x0a0b0c0d, lifetime=2500, hop_limit=9),
        app_param=b"params"))


def data(content_len: int, name: str = "/wren/ndnlp/data") -> bytes:
    content = bytes((i * 7) & 0xff for i in range(content_len))
    return bytes(make_data(Name.from_str(name), MetaInfo(freshness_period=1000), content))


def test_python_ndn_nack_read_by_wren(lib):
    i = interest()
    lp = bytes(make_network_nack(i, NackReason.NO_ROUTE))
    d = describe(lib, lp)
    assert d["len"] == len(lp) and d["nack"] == 1 and d["reason"] == NackReason.NO_ROUTE
    assert lp[d["frag_off"]:d["frag_off"] + d["frag_len"]] == i
    assert d["seq_len"] == 0 and d["count"] == 1 and d["ignored"] == 0


@pytest.mark.parametrize("reason", [NackReason.CONGESTION, NackReason.DUPLICATE,
                                    NackReason.NO_ROUTE])
def test_wren_nack_read_by_python_ndn(lib, reason):
    i = interest()
    out = create_string_buffer(256)
    n = lib.wren_wire_ndnlp_nack(i, len(i), reason, out, len(out))
    assert n > 0
    got_reason, frag = parse_network_nack(out.raw[:n])
    assert got_reason == reason and bytes(frag) == i
    name, param, _, _ = parse_interest(bytes(frag))
    assert Name.to_str(name).startswith("/wren/ndnlp/interest/params-sha256=")
    assert param.nonce == 0x0a0b0c0d and param.hop_limit == 9
    # byte-exact: python-ndn makes the same LpPacket
    assert out.raw[:n] == bytes(make_network_nack(i, reason))


def test_python_ndn_unknown_fields(lib):
    """python-ndn's LpPacketValue with header fields wren does not know: the
    ignorable ones (IncomingFaceId 812, CongestionMark 832) are skipped, a
    PitToken (98, outside [800, 959]) drops the packet."""
    i = interest()
    v = LpPacketValue()
    v.incoming_face_id = 7
    v.congestion_mark = 1
    v.nack = NetworkNack()
    v.nack.nack_reason = NackReason.CONGESTION
    v.fragment = i
    lp = bytes(v.encode())
    lp = bytes([LpTypeNumber.LP_PACKET, len(lp)]) + lp
    d = describe(lib, lp)
    assert d["ignored"] == 2 and d["nack"] == 1 and d["reason"] == NackReason.CONGESTION
    assert lp[d["frag_off"]:d["frag_off"] + d["frag_len"]] == i
    v.pit_token = b"\x01\x02\x03\x04"
    lp = bytes(v.encode())
    lp = bytes([LpTypeNumber.LP_PACKET, len(lp)]) + lp
    desc = create_string_buffer(512)
    assert lib.wren_wire_ndnlp_describe(lp, len(lp), desc, len(desc)) == -4  # NDNLP_ERR_CRITICAL


@pytest.mark.parametrize("content_len", [60, 200, 700])
def test_wren_pieces_read_by_python_ndn(lib, content_len):
    pkt = data(content_len, "/wren/ndnlp/" + "n" * 40)
    seq0 = 0xfedcba9876543210
    pieces = fragment(lib, pkt, MTU_154, seq0)
    assert len(pieces) > 1
    back = b""
    for k, p in enumerate(pieces):
        assert len(p) <= MTU_154
        # python-ndn's own LpPacketValue (the Sequence skipped as unknown)
        assert p[0] == LpTypeNumber.LP_PACKET
        v = LpPacketValue.parse(p[2:] if p[1] < 253 else p[4:], ignore_critical=True)
        assert (v.frag_index, v.frag_count) == (k, len(pieces))
        back += bytes(v.fragment)
        # and the spec's full field list, encoded by python-ndn: the same bytes
        m = LpPiece.parse(p).lp_packet
        assert int.from_bytes(m.sequence, "big") == seq0 + k and len(m.sequence) == 8
        assert encode_piece(m) == p
    assert back == pkt
    name, meta, content, _ = parse_data(back)
    assert Name.to_str(name).startswith("/wren/ndnlp/") and bytes(content) == bytes(
        (i * 7) & 0xff for i in range(content_len))


def encode_piece(m: Piece) -> bytes:
    lp = LpPiece()
    lp.lp_packet = m
    return bytes(lp.encode())


def python_ndn_pieces(pkt: bytes, chunk: int, seq0: int, nack: int | None = None) -> list[bytes]:
    chunks = [pkt[i:i + chunk] for i in range(0, len(pkt), chunk)]
    out = []
    for k, c in enumerate(chunks):
        m = Piece()
        m.sequence = (seq0 + k).to_bytes(8, "big")
        m.frag_index, m.frag_count, m.fragment = k, len(chunks), c
        if nack is not None and k == 0:
            m.nack = NetworkNack()
            m.nack.nack_reason = nack
        out.append(encode_piece(m))
    return out


@pytest.mark.parametrize("order", ["in order", "reversed", "shuffled"])
def test_python_ndn_pieces_put_together_by_wren(lib, order):
    pkt = data(900, "/wren/ndnlp/python")
    pieces = python_ndn_pieces(pkt, 70, 5)
    if order == "reversed":
        pieces.reverse()
    elif order == "shuffled":
        random.Random(26).shuffle(pieces)
    got, reason, c = reassemble(lib, pieces)
    assert got == pkt and reason == -1
    assert c["lp_rx_frags"] == len(pieces) and c["lp_reassembled"] == 1
    assert (c["lp_ooo"] == 0) == (order == "in order")
    assert sum(v for k, v in c.items() if k.startswith("rx_drop")) == 0


def test_python_ndn_nacked_interest_in_pieces(lib):
    """A Nack on piece 0 of an Interest in pieces comes out with it."""
    i = interest("/wren/" + "long/" * 40)
    got, reason, c = reassemble(lib, python_ndn_pieces(i, 50, 77, NackReason.DUPLICATE))
    assert got == i and reason == NackReason.DUPLICATE


def test_python_ndn_piece_lost_or_doubled(lib):
    pkt = data(500)
    pieces = python_ndn_pieces(pkt, 80, 1000)
    got, _, c = reassemble(lib, pieces[:3] + pieces[4:])
    assert got is None and c["lp_reassembled"] == 0
    got, _, c = reassemble(lib, pieces[:3] + pieces[2:])
    assert got == pkt and c["lp_drop_dup"] == 1
