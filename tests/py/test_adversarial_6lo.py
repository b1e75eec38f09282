"""Bad 6LoWPAN input injected into a node's radio: every case dropped and
counted, the packet buffer empty afterwards, and the node still answering."""
import struct

from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.sixlowpan import LoWPAN_IPHC, LoWPAN_NHC, LoWPAN_NHC_UDP
from scapy.packet import Raw

from wren.addr import eui64, ll

VICTIM, PEER = 0, 1
VICTIM_LL = ll(VICTIM)  # from the EUI-64s; the frames use the short addresses
PEER_LL = ll(PEER)
PORT = 50123


def fcs(data):
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return struct.pack("<H", crc)


class Frames:
    def __init__(self):
        self.seq = 0

    def frame(self, payload, src=PEER, ext=False):
        """A 2006 data frame PEER -> VICTIM in PAN 0x23 carrying @payload,
        between the short addresses, or (@ext) the EUI-64s, which the nodes'
        IPv6 addresses are made of (what IPHC derives the IIDs from)."""
        self.seq = (self.seq + 1) & 0xFF
        if ext:  # extended destination and source: little-endian on the air
            mhr = (struct.pack("<HBH", 0xCC41, self.seq, 0x23) + eui64(VICTIM)[::-1] +
                   eui64(src)[::-1])
        else:
            mhr = struct.pack("<HBHHH", 0x8841, self.seq, 0x23, VICTIM, src)
        return mhr + payload + fcs(mhr + payload)


def datagram(size):
    """An uncompressed IPv6/UDP datagram of @size bytes PEER -> VICTIM."""
    payload = bytes((i * 31 + (size - 48)) & 0xFF for i in range(size - 48))
    return bytes(IPv6(src=PEER_LL, dst=VICTIM_LL, hlim=64) / UDP(sport=1234, dport=PORT) /
                 Raw(payload))


def frag1(size, tag, chunk):
    return struct.pack(">HH", 0xC000 | size, tag) + b"\x41" + chunk


def fragn(size, tag, offset, chunk):
    return struct.pack(">HHB", 0xE000 | size, tag, offset // 8) + chunk


def fragments(dg, tag, first=64, step=96):
    out = [frag1(len(dg), tag, dg[:first])]
    for off in range(first, len(dg), step):
        out.append(fragn(len(dg), tag, off, dg[off:off + step]))
    return out


def setup(sim_factory):
    s = sim_factory(7)
    s.add_node(0, 0)
    s.add_node(10, 0)
    s.set_link(VICTIM, PEER)
    s.set_link(PEER, VICTIM)
    assert s.shell(VICTIM, f"udp server start {PORT} sink")[0] == 0
    return s, Frames()


def inject(s, f, payloads, ext=False):
    for p in payloads:
        assert s.inject(VICTIM, f.frame(p, ext=ext)) == 0
        s.run(s.now + 0.001)


def sink(s):
    out = s.shell(VICTIM, "udp server stats")[1]
    return int(out.split("received ")[1].split()[0]), int(out.split(" bad ")[1].split()[0])


def still_answers(s):
    res, out = s.shell(PEER, f"ping {VICTIM_LL} -c 2 -s 100 -i 200")
    s.run(s.now + 3)
    out += s.output(PEER)
    assert "2 received" in out, out


def test_good_fragments_in_any_order_are_reassembled(sim_factory):
    s, f = setup(sim_factory)
    dg = datagram(600)
    frs = fragments(dg, 0x1111)
    inject(s, f, frs)
    inject(s, f, fragments(dg, 0x2222)[::-1])   # FRAGNs first, FRAG1 last
    assert sink(s) == (2, 0)
    assert s.counters(VICTIM)["6lowpan.frag_reassembled"] == 2


def test_overlapping_fragments_discard_the_datagram(sim_factory):
    s, f = setup(sim_factory)
    dg = datagram(600)
    frs = fragments(dg, 0x3333)
    overlap = fragn(len(dg), 0x3333, 56, dg[56:56 + 48])    # 56..104 overlaps 0..64
    inject(s, f, [frs[0], overlap] + frs[1:])
    c = s.counters(VICTIM)
    assert c["6lowpan.frag_drop_overlap"] == 1
    assert sink(s)[0] == 0
    s.run(s.now + 15)                      # the rest times out
    assert s.counters(VICTIM)["6lowpan.frag_timeout"] == 1
    still_answers(s)


def test_duplicates_range_size_and_lone_fragn(sim_factory):
    s, f = setup(sim_factory)
    dg = datagram(600)
    frs = fragments(dg, 0x4444)
    inject(s, f, [frs[0], frs[0]])                       # duplicate
    inject(s, f, [fragn(len(dg), 0x4444, 592, dg[:16])]) # offset + length past the size
    inject(s, f, [fragn(700, 0x4444, 64, dg[64:160])])   # same tag, another size
    c = s.counters(VICTIM)
    assert c["6lowpan.frag_drop_dup"] == 1
    assert c["6lowpan.frag_drop_range"] == 1
    assert c["6lowpan.frag_drop_size"] == 1
    inject(s, f, [fragn(len(dg), 0x5555, 64, dg[64:160])])  # a FRAGN whose FRAG1 never comes
    inject(s, f, [frag1(39, 0x6666, dg[:32])])              # FRAG1 claiming 39 bytes
    inject(s, f, [fragn(2000, 0x7777, 8, dg[:8])])          # beyond the largest datagram
    inject(s, f, [b"\xc0\x02"])                             # FRAG1 shorter than its header
    c = s.counters(VICTIM)
    assert c["6lowpan.frag_drop_size"] >= 2
    assert c["6lowpan.frag_drop_hdr"] >= 1
    s.run(s.now + 15)
    assert s.counters(VICTIM)["6lowpan.frag_timeout"] >= 1
    still_answers(s)


def test_iphc_inline_fields_past_the_frame(sim_factory):
    s, f = setup(sim_factory)
    # IPHC with everything inline (TF=00, NH inline, HLIM inline, SAM=DAM=00):
    # 4 + 1 + 1 + 16 + 16 bytes are needed; give fewer
    full = b"\x60\x00" + b"\x00" * 4 + b"\x11" + b"\x40" + bytes(32)
    for cut in (2, 5, 7, 20, 37):
        inject(s, f, [full[:cut]])
    assert s.counters(VICTIM)["6lowpan.rx_drop_iphc"] == 5
    still_answers(s)


def test_reassembly_flood_is_bounded_and_recovers(sim_factory):
    s, f = setup(sim_factory)
    dg = datagram(1280)
    inject(s, f, [frag1(1280, tag, dg[:64]) for tag in range(100)])
    c = s.counters(VICTIM)
    # two slots; the rest refused, or (arriving 50 ms after a slot's first
    # fragment, from the same sender) taking the place of the stale one
    assert c["6lowpan.frag_drop_full"] + c["6lowpan.frag_superseded"] == 98
    assert c["6lowpan.frag_drop_full"] > 0
    assert c["pktbuf.in_use"] <= 2 * (1280 + 64) + 512
    s.run(s.now + 15)                                  # timeouts free the slots
    assert s.counters(VICTIM)["6lowpan.frag_timeout"] == 2
    inject(s, f, fragments(dg, 0x9999))
    assert sink(s) == (1, 0)                           # a legitimate datagram gets through
    still_answers(s)


def test_elided_udp_checksum_dropped_unless_the_socket_asks(sim_factory):
    """RFC 6282 4.3.2 lets a sender elide the UDP checksum (NHC C bit) only
    when the upper layer authorised it; nothing then shows a corrupted
    payload. scapy compresses the datagram: with the checksum carried it is
    delivered, elided it is dropped and counted (as Linux's 6LoWPAN does)
    until the server's socket asks for such datagrams."""
    s, f = setup(sim_factory)
    dg = IPv6(datagram(100))

    def compressed(c):
        return bytes(LoWPAN_IPHC(tf=3, nh=1, hlim=2, sam=3, dam=3) /
                     LoWPAN_NHC(exts=[LoWPAN_NHC_UDP(C=c)]) / dg)

    carried, elided = compressed(0), compressed(1)
    assert len(elided) == len(carried) - 2 and elided[2] == 0xf4, elided.hex()
    # SAM = DAM = 3: the addresses from the frame's, the nodes' EUI-64s
    inject(s, f, [carried], ext=True)
    assert sink(s) == (1, 0)
    inject(s, f, [elided], ext=True)
    assert sink(s) == (1, 0)
    c = s.counters(VICTIM)
    assert c["udp.rx_drop_csum_elided"] == 1 and c["udp.rx_drop_csum"] == 0, c
    assert c["icmpv6.tx_errors"] == 0, c   # dropped, not answered
    # the server asks for them
    assert s.shell(VICTIM, "udp server stop")[0] == 0
    res, out = s.shell(VICTIM, f"udp server start {PORT} sink csum-elided")
    assert res == 0 and "elided checksums taken" in out, out
    inject(s, f, [elided], ext=True)
    assert sink(s) == (1, 0)   # a new server: its own count
    assert s.counters(VICTIM)["udp.rx_drop_csum_elided"] == 1
    still_answers(s)
