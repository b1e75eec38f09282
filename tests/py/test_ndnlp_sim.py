"""NDNLPv2 on the NDN stack's 802.15.4 faces in the simulator (issue 26):
an Interest and its Data too long for a frame go in LpPacket pieces
(src/ndn/ndn_face.c: wren_ndn_face_send_large, src/ndn/ndnlp_frag.h) and
are put back together at the next hop; the capture's pieces are decoded by
python-ndn (software nobody here wrote) and put back into the Interest and
Data it parses. A lost piece leaves the packet to the timeout and the
consumer's retransmission. Simulated time only."""
import pytest

from test_ndn import cnt, eui, ok, wpan_payloads

ndn_encoding = pytest.importorskip("ndn.encoding")
from ndn.encoding import parse_data, parse_interest  # noqa: E402
from ndn.encoding.ndnlp_v2 import LpPacketValue, LpTypeNumber  # noqa: E402

NAME = "/big/" + "x" * 110   # 117 octets of Name: more than a frame carries


def two_nodes(sim_factory, prr=1.0):
    s = sim_factory(1)
    s.set_modules(["ndn"])
    s.add_node()
    s.add_node()
    s.set_link(0, 1, prr)
    s.set_link(1, 0)
    ok(s, 0, f"ndn route add /big if 1 {eui(1)}")
    ok(s, 1, "ndn serve /big hello")
    return s


def test_ndnlp_interest_and_data_in_pieces(sim_factory, tmp_path):
    s = two_nodes(sim_factory)
    ok(s, 0, f"ndn interest {NAME}")
    s.run(0.5)
    c0, c1 = cnt(s, 0), cnt(s, 1)
    # the Interest: cut at node 0, put back at node 1, which answers
    assert c0["lp_tx_frags"] >= 2 and c1["lp_reassembled"] == 1, (c0, c1)
    assert c1["rx_interests"] == 1 and c1["lp_rx"] == c0["lp_tx_frags"], c1
    # the Data (the same long Name): cut at node 1, put back at node 0
    assert c1["lp_tx_frags"] >= 2 and c0["lp_reassembled"] == 1, (c0, c1)
    assert c0["rx_data"] == 1 and c0["pit_satisfied"] == 1, c0
    for c in (c0, c1):
        assert c["too_big"] == 0 and c["tx_drop"] == 0, c
        assert not {k: v for k, v in c.items() if k.startswith(("lp_drop", "rx_drop")) and v}, c


def test_ndnlp_capture_decodes_with_python_ndn(sim_factory, tmp_path):
    """Every frame on the air is an LpPacket python-ndn's LpPacketValue
    reads (the Sequence, a field it does not model, skipped); the Fragments
    in FragIndex order are an Interest and a Data python-ndn parses."""
    s = two_nodes(sim_factory)
    pcap = tmp_path / "lp.pcap"
    s.open_pcap(pcap)
    ok(s, 0, f"ndn interest {NAME}")
    s.run(5.0)
    assert s.pktbufs_clean()
    s.close()  # the capture is complete once the simulation is freed
    pieces = []
    for payload in wpan_payloads(pcap):
        assert payload[0] == 0x3e and payload[1] == LpTypeNumber.LP_PACKET, payload.hex()
        lp = payload[1:]
        hdr = 2 if lp[1] < 253 else 4
        pieces.append(LpPacketValue.parse(lp[hdr:], ignore_critical=True))
    packets, cur, expect = [], b"", 0
    for v in pieces:
        assert v.frag_index == (v.frag_index and expect) and v.frag_count >= 2, v
        expect = v.frag_index + 1
        cur += bytes(v.fragment)
        if v.frag_index == v.frag_count - 1:
            packets.append(cur)
            cur = b""
    assert len(packets) == 2 and cur == b"", [p.hex() for p in packets]
    name, params, _, _ = parse_interest(packets[0])
    assert ndn_encoding.Name.to_str(name) == NAME and params.nonce is not None
    name, _, content, _ = parse_data(packets[1])
    assert ndn_encoding.Name.to_str(name) == NAME and bytes(content) == b"hello"


def test_ndnlp_lost_piece_times_out(sim_factory):
    """Node 0 -> 1 loses frames (PRR 0.5): pieces of some Interests never
    arrive; node 1 gives each such packet up at NDNLPv2's timeout, and its
    packet buffer is empty at the end (the fixture checks)."""
    s = two_nodes(sim_factory, prr=0.5)
    for k in range(6):
        ok(s, 0, f"ndn interest {NAME[:-1]}{k} lifetime 1000")
        s.run(2.0 * (k + 1))
    c1 = cnt(s, 1)
    assert c1["lp_drop_timeout"] >= 1 and c1["lp_reassembled"] >= 1, c1
    assert c1["lp_reassembled"] + c1["lp_drop_timeout"] <= 6, c1
    assert c1["rx_interests"] == c1["lp_reassembled"], c1
