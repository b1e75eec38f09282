"""TSCH frames built by wren's wire code (wire/ieee802154_ie.h, through the
ctypes entry points of runtime/sim/wire_tsch.c) against tools nobody here
wrote: tshark must dissect every IE field of the Enhanced Beacons, Enh-Acks
and 6top data frames as put in, with no expert info and nothing malformed;
scapy (2.8 has no 802.15.4-2015 IE support) must agree on the frame control
bits and the FCS. wren's own parser must read back the same values."""
from __future__ import annotations

import struct
from ctypes import (c_char_p, c_int, c_size_t, c_uint8, c_uint16, c_uint64, c_void_p,
                    create_string_buffer)
from pathlib import Path

import pytest

from wren.lib import load

from conftest import tshark_fields

PAN = 0xABCD
EUI_A = bytes.fromhex("0257527fffe00001")
EUI_B = bytes.fromhex("0257527fffe00002")
ASN = 0x0123456789
HOPPING = [16, 17, 23, 18, 26, 15, 25, 22, 19, 11, 12, 13, 24, 14, 20, 21]
# a 6P ADD request (RFC 8480 3.2/3.3.1): version 0, type request, code ADD,
# SFID 0 (MSF), seqnum 5, metadata 0, cell options TX, 1 cell, slot 7 / channel 3
SIXP_ADD = bytes([0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x01, 0x01, 0x07, 0x00, 0x03, 0x00])


@pytest.fixture(scope="module")
def lib():
    lib = load()
    sigs = {
        "wren_wire_tsch_eb": [c_uint16, c_char_p, c_uint64, c_uint8, c_uint16, c_int, c_char_p,
                              c_uint16, c_void_p, c_size_t],
        "wren_wire_tsch_enhack": [c_char_p, c_size_t, c_int, c_int, c_void_p, c_size_t],
        "wren_wire_tsch_sixtop_data": [c_uint16, c_char_p, c_char_p, c_uint8, c_char_p, c_size_t,
                                       c_void_p, c_size_t],
        "wren_wire_tsch_describe": [c_char_p, c_size_t, c_void_p, c_size_t],
    }
    for name, args in sigs.items():
        fn = getattr(lib, name)
        fn.restype = c_int
        fn.argtypes = args
    return lib


def _out(n: int) -> int:
    assert n > 0, f"wren refused to build the frame: {n}"
    return n


def eb(lib, full: int, sf_size: int = 101, join_metric: int = 3) -> bytes:
    """full: 0 template and hopping sequence by id, 1 both in full, 2 a
    template in the 27-byte form."""
    out = create_string_buffer(256)
    seq = b"".join(struct.pack("<H", c) for c in HOPPING) if full else None
    n = _out(lib.wren_wire_tsch_eb(PAN, EUI_A, ASN, join_metric, sf_size, full, seq,
                                   len(HOPPING) if full else 0, out, 256))
    return out.raw[:n]


def sixtop_data(lib, seq: int = 7) -> bytes:
    out = create_string_buffer(256)
    n = _out(lib.wren_wire_tsch_sixtop_data(PAN, EUI_A, EUI_B, seq, SIXP_ADD, len(SIXP_ADD),
                                            out, 256))
    return out.raw[:n]


def enhack(lib, psdu: bytes, us: int, nack: bool) -> bytes:
    out = create_string_buffer(64)
    n = _out(lib.wren_wire_tsch_enhack(psdu, len(psdu) - 2, us, int(nack), out, 64))
    return out.raw[:n]


def describe(lib, psdu: bytes) -> dict[str, str]:
    desc = create_string_buffer(2048)
    rc = lib.wren_wire_tsch_describe(psdu, len(psdu), desc, 2048)
    assert rc == 0, f"wren cannot parse its own frame: {rc}"
    return dict(kv.split("=", 1) for kv in desc.value.decode().split())


def write_pcap(path: Path, frames: list[bytes]) -> None:
    """LINKTYPE_IEEE802_15_4_WITHFCS (195), one frame per second."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 195))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(fr), len(fr)))
            f.write(fr)


FIELDS = ("wpan.frame_type", "wpan.version", "wpan.seqno_suppression", "wpan.ie_present",
          "wpan.pan_id_compression", "wpan.seq_no", "wpan.dst_pan", "wpan.src_pan", "wpan.dst16",
          "wpan.dst64", "wpan.src64", "wpan.fcs_ok", "wpan.header_ie.ht1", "wpan.tsch.asn",
          "wpan.tsch.join_metric", "wpan.tsch.timeslot.id", "wpan.tsch.timeslot.cca_offset",
          "wpan.tsch.timeslot.tx_offset", "wpan.tsch.timeslot.max_tx",
          "wpan.tsch.timeslot.length", "wpan.tsch.hopping_sequence_id", "wpan.mlme.data",
          "wpan.tsch.slotframe_num", "wpan.tsch.slotframe_handle", "wpan.tsch.slotframe_size",
          "wpan.tsch.nb_links", "wpan.tsch.link_timeslot", "wpan.tsch.channel_offset",
          "wpan.tsch.link_options", "wpan.header_ie.time_correction.value", "wpan.nack",
          "wpan.ietf_ie.sub_id", "wpan.6top_version", "wpan.6top_type", "wpan.6top_code",
          "wpan.6top_sfid", "wpan.6top_seqnum", "wpan.6top_cell_options", "wpan.6top_num_cells",
          "wpan.6top_cell_slot_offset", "wpan.6top_channel_offset", "_ws.expert",
          "_ws.malformed", "frame.protocols")


@pytest.fixture(scope="module")
def dissected(lib, tmp_path_factory):
    data = sixtop_data(lib)
    frames = [eb(lib, full=0), eb(lib, full=1, sf_size=397, join_metric=0), data,
              enhack(lib, data, -12, False), enhack(lib, data, 100, True),
              enhack(lib, data, -2048, False), enhack(lib, data, 2047, True), eb(lib, full=2)]
    pcap = tmp_path_factory.mktemp("tsch") / "tsch.pcap"
    write_pcap(pcap, frames)
    rows = tshark_fields(pcap, *FIELDS)
    assert len(rows) == len(frames)
    return frames, [dict(zip(FIELDS, r)) for r in rows]


def test_tsch_wire__nothing_flagged(dissected):
    _, rows = dissected
    for i, r in enumerate(rows):
        assert r["_ws.expert"] == "" and r["_ws.malformed"] == "", (i, r)
        assert r["wpan.fcs_ok"] == "1", (i, r)
        assert r["frame.protocols"] == "wpan", (i, r)


def test_tsch_wire__eb_minimal_rfc8180(lib, dissected):
    frames, rows = dissected
    r = rows[0]
    # beacon, version 2, seq suppressed, IE present, PAN ID compression:
    # dst PAN + dst 0xffff + src extended, no source PAN (Table 7-2)
    assert (r["wpan.frame_type"], r["wpan.version"]) == ("0x0000", "2")
    assert (r["wpan.seqno_suppression"], r["wpan.ie_present"]) == ("1", "1")
    assert r["wpan.pan_id_compression"] == "1" and r["wpan.seq_no"] == ""
    assert (r["wpan.dst_pan"], r["wpan.dst16"], r["wpan.src_pan"]) == ("0xabcd", "0xffff", "")
    assert r["wpan.src64"] == "02:57:52:7f:ff:e0:00:01"
    assert r["wpan.header_ie.ht1"] == "1"
    assert (r["wpan.tsch.asn"], r["wpan.tsch.join_metric"]) == (str(ASN), "3")
    assert r["wpan.tsch.timeslot.id"] == "0x00" and r["wpan.tsch.timeslot.length"] == ""
    assert r["wpan.tsch.hopping_sequence_id"] == "0x00" and r["wpan.mlme.data"] == ""
    assert (r["wpan.tsch.slotframe_num"], r["wpan.tsch.slotframe_handle"],
            r["wpan.tsch.slotframe_size"], r["wpan.tsch.nb_links"]) == ("1", "0", "101", "1")
    assert (r["wpan.tsch.link_timeslot"], r["wpan.tsch.channel_offset"],
            r["wpan.tsch.link_options"]) == ("0", "0", "0x0f")
    d = describe(lib, frames[0])
    assert (d["type"], d["version"], d["seq_suppressed"]) == ("0", "2", "1")
    assert (d["asn"], d["join_metric"], d["slotframe"], d["link"]) == (
        str(ASN), "3", "0/101", "0/0/0x0f")


def test_tsch_wire__eb_full_template_and_hopping(lib, dissected):
    frames, rows = dissected
    r = rows[1]
    # 802.15.4-2015 Table 8-99 defaults, 10 ms
    assert (r["wpan.tsch.timeslot.cca_offset"], r["wpan.tsch.timeslot.tx_offset"],
            r["wpan.tsch.timeslot.max_tx"], r["wpan.tsch.timeslot.length"]) == (
        "1800", "2120", "4256", "10000")
    assert r["wpan.tsch.join_metric"] == "0" and r["wpan.tsch.slotframe_size"] == "397"
    # tshark 4.0 decodes only the hopping sequence id and shows the rest of
    # the IE as data: read it as 802.15.4-2015 7.4.4.31 lays it out
    assert r["wpan.tsch.hopping_sequence_id"] == "0x00"
    rest = bytes.fromhex(r["wpan.mlme.data"])
    page, nch, phy, seq_len = struct.unpack_from("<BHIH", rest)
    assert (page, nch, phy, seq_len) == (0, 16, 0x07FFF800, len(HOPPING))
    assert list(struct.unpack_from(f"<{seq_len}H", rest, 9)) == HOPPING
    assert len(rest) == 9 + 2 * seq_len + 2
    d = describe(lib, frames[1])
    assert d["timeslot_length"] == "10000"
    assert d["hopping"] == ",".join(map(str, HOPPING))


def test_tsch_wire__eb_timeslot_template_long_form(lib, dissected):
    """A template whose max_tx and length exceed 0xffff us: 3-byte fields
    (the 27-byte Timeslot IE), read back by tshark and by wren."""
    frames, rows = dissected
    r = rows[7]
    assert r["wpan.tsch.timeslot.id"] == "0x01"
    assert (r["wpan.tsch.timeslot.max_tx"], r["wpan.tsch.timeslot.length"]) == ("65541", "70000")
    assert r["wpan.tsch.timeslot.cca_offset"] == "1800"
    assert describe(lib, frames[7])["timeslot_length"] == "70000"


def test_tsch_wire__sixtop_ie_in_data_frame(lib, dissected):
    frames, rows = dissected
    r = rows[2]
    assert (r["wpan.frame_type"], r["wpan.version"], r["wpan.seq_no"]) == ("0x0001", "2", "7")
    # extended/extended, compression 0: destination PAN only (Table 7-2)
    assert (r["wpan.dst_pan"], r["wpan.src_pan"]) == ("0xabcd", "")
    assert r["wpan.ietf_ie.sub_id"] == "201"  # 0xC9, RFC 8480 3.1
    assert (r["wpan.6top_version"], r["wpan.6top_type"], r["wpan.6top_code"],
            r["wpan.6top_sfid"], r["wpan.6top_seqnum"]) == ("0", "0x00", "0x01", "0x00", "5")
    assert (r["wpan.6top_cell_options"], r["wpan.6top_num_cells"],
            r["wpan.6top_cell_slot_offset"], r["wpan.6top_channel_offset"]) == (
        "0x01", "1", "0x0007", "0x0003")
    assert describe(lib, frames[2])["sixtop"] == SIXP_ADD.hex()


@pytest.mark.parametrize("i,us,nack", [(3, -12, 0), (4, 100, 1), (5, -2048, 0), (6, 2047, 1)])
def test_tsch_wire__enhack_time_correction(lib, dissected, i, us, nack):
    frames, rows = dissected
    r = rows[i]
    # ack, version 2, the data frame's sequence number, to its source, no
    # source address and no PAN ID
    assert (r["wpan.frame_type"], r["wpan.version"], r["wpan.seq_no"]) == ("0x0002", "2", "7")
    assert r["wpan.dst64"] == "02:57:52:7f:ff:e0:00:01" and r["wpan.src64"] == ""
    assert (r["wpan.dst_pan"], r["wpan.src_pan"]) == ("", "")
    assert (r["wpan.header_ie.time_correction.value"], r["wpan.nack"]) == (str(us), str(nack))
    d = describe(lib, frames[i])
    assert (d["time_corr"], d["nack"]) == (str(us), str(nack))


def test_tsch_wire__bad_ie_lengths_refused(lib):
    """An EB whose Sync IE says 5 bytes (one of the ASN cut), or whose
    slotframe count claims one more slotframe than there is: wren drops it
    with the reason (describe returns -100 - IEEE802154_IE_ERR_x)."""
    def fcs(b: bytes) -> bytes:
        crc = 0
        for byte in b:
            crc ^= byte
            for _ in range(8):
                crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
        return b + struct.pack("<H", crc)

    good = bytearray(eb(lib, full=0)[:-2])
    desc = create_string_buffer(256)
    bad_sync = bytearray(good)
    bad_sync[16] -= 1   # MLME IE length 25
    bad_sync[18] = 5    # Sync IE length 5
    del bad_sync[23]    # one byte of the ASN goes
    assert lib.wren_wire_tsch_describe(bytes(fcs(bad_sync)), len(bad_sync) + 2, desc, 256) == \
        -100 - 3  # IEEE802154_IE_ERR_LENGTH
    bad_count = bytearray(good)
    bad_count[-10] = 2  # number of slotframes (1 + handle, size, count, 1 link)
    assert lib.wren_wire_tsch_describe(bytes(fcs(bad_count)), len(bad_count) + 2, desc, 256) == \
        -100 - 4  # IEEE802154_IE_ERR_COUNT


def test_tsch_wire__scapy_frame_control_and_fcs(dissected):
    scapy = pytest.importorskip("scapy.layers.dot15d4")
    frames, _ = dissected
    expect = [(0, 1, 1), (0, 1, 1), (1, 0, 1), (2, 0, 1), (2, 0, 1), (2, 0, 1), (2, 0, 1),
              (0, 1, 1)]
    for fr, (ftype, seq_supp, ie) in zip(frames, expect):
        p = scapy.Dot15d4FCS(fr)
        assert p.fcf_frametype == ftype and p.fcf_framever == 2
        # scapy 2.8 still calls FCF bits 8-9 reserved: IE present is bit 1,
        # sequence number suppression bit 0 of its fcf_reserved_2
        assert p.fcf_reserved_2 == (ie << 1 | seq_supp)
        assert p.compute_fcs(fr[:-2]) == fr[-2:]


# 802.15.4-2015 Table 7-2 (frame version 2): (dst mode, src mode, PAN ID
# compression) -> (destination PAN ID present, source PAN ID present);
# modes 0 none, 2 short, 3 extended. Versions 0/1 (7.2.1.5): destination PAN
# with a destination address, source PAN with a source address unless
# compressed; compression needs both addresses.
TABLE_7_2 = {
    (0, 0, 0): (0, 0), (0, 0, 1): (1, 0),
    (2, 0, 0): (1, 0), (3, 0, 0): (1, 0), (2, 0, 1): (0, 0), (3, 0, 1): (0, 0),
    (0, 2, 0): (0, 1), (0, 3, 0): (0, 1), (0, 2, 1): (0, 0), (0, 3, 1): (0, 0),
    (3, 3, 0): (1, 0), (3, 3, 1): (0, 0),
    (2, 2, 0): (1, 1), (2, 3, 0): (1, 1), (3, 2, 0): (1, 1),
    (2, 2, 1): (1, 0), (2, 3, 1): (1, 0), (3, 2, 1): (1, 0),
}


def test_tsch_wire__pan_id_compression_table_7_2(lib, tmp_path):
    """Data frames of every addressing combination, versions 1 and 2, built
    by wren: tshark finds exactly the PAN ID fields Table 7-2 (v2) or the
    2006 rule (v1) gives, nothing flagged, and wren's parser agrees."""
    from ctypes import POINTER
    lib.wren_wire_ieee802154_data.restype = c_int
    lib.wren_wire_ieee802154_data.argtypes = [c_uint8, c_uint8, c_uint8, c_int, c_int, c_uint16,
                                              c_uint16, c_char_p, c_char_p, c_void_p, c_size_t]
    lib.wren_wire_ieee802154_pans.restype = c_int
    lib.wren_wire_ieee802154_pans.argtypes = [c_char_p, c_size_t, POINTER(c_uint16)]
    frames, want = [], []
    for version in (1, 2):
        for (d, s, comp), v2 in TABLE_7_2.items():
            exp = v2 if version == 2 else (int(d != 0), int(s != 0 and not comp))
            out = create_string_buffer(64)
            n = lib.wren_wire_ieee802154_data(version, d, s, comp, 0, 0x1111, 0x2222, EUI_B,
                                              EUI_A, out, 64)
            if version == 1 and comp and not (d and s):
                assert n == -5  # IEEE802154_ERR_PANID: 2006 compression needs both
                continue
            fr = out.raw[:_out(n)]
            pans = (c_uint16 * 2)()
            assert lib.wren_wire_ieee802154_pans(fr, len(fr), pans) == exp[0] | exp[1] << 1
            frames.append(fr)
            want.append(((version, d, s, comp), exp))
    # sequence number suppression (v2) moves nothing else
    out = create_string_buffer(64)
    n = _out(lib.wren_wire_ieee802154_data(2, 3, 3, 0, 1, 0x1111, 0x2222, EUI_B, EUI_A, out, 64))
    frames.append(out.raw[:n])
    want.append(((2, 3, 3, 0), (1, 0)))
    pcap = tmp_path / "pans.pcap"
    write_pcap(pcap, frames)
    rows = tshark_fields(pcap, "wpan.dst_pan", "wpan.src_pan", "wpan.dst64", "wpan.src64",
                         "wpan.seq_no", "wpan.fcs_ok", "_ws.expert", "_ws.malformed")
    assert len(rows) == len(frames)
    for (combo, (dp, sp)), r in zip(want, rows):
        assert (r[0] == "0x1111") == bool(dp), (combo, r)
        assert (r[1] == "0x2222") == bool(sp), (combo, r)
        assert r[2] == ("02:57:52:7f:ff:e0:00:02" if combo[1] == 3 else ""), (combo, r)
        assert r[3] == ("02:57:52:7f:ff:e0:00:01" if combo[2] == 3 else ""), (combo, r)
        assert r[5] == "1" and r[6] == "" and r[7] == "", (combo, r)
    assert rows[-1][4] == "" and rows[0][4] == "90"  # suppressed / seq 0x5a
