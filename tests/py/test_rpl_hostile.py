"""Hostile frames made with scapy, injected into a router of a simulated RPL
DODAG; what it answers is read back from the capture with tshark, a real
dissector (issue 24, RFC 8200 4.2/4.3, RFC 6554 4.2):

- a datagram to be forwarded whose hop-by-hop header holds an unknown option
  asking for an error (action 10), or a PadN running past the header, is not
  forwarded and gets a Parameter Problem (code 2 at the option, code 0 at the
  byte), well-formed as tshark reads it;
- a source routing header whose next address is the router's own is a loop:
  Parameter Problem code 0 pointing at that address, nothing sent on.

The C unit tests (tests/unit/ip/test_ip_hostile.c) check each case one by
one; here a dissector that is not wren's checks the errors on the air."""
import struct

import pytest

from conftest import tshark_fields
from test_rpl_sim import _fcs, _quiesce, _srh, build, line_links, ping, rpl_state  # noqa: F401


@pytest.mark.parametrize("mode", ["storing", "non-storing"])
def test_rpl_hostile_hbh_and_srh_get_parameter_problems(sim_factory, tmp_path, mode):
    from scapy.layers.inet import UDP
    from scapy.layers.inet6 import IPv6, IPv6ExtHdrHopByHop, HBHOptUnknown, PadN
    from scapy.packet import Raw
    n = 3
    s = sim_factory(5)
    pcap = tmp_path / "hostile.pcap"
    build(s, n, line_links(n), pcap=pcap, mode=mode)
    s.run(60)
    st = [rpl_state(s, i) for i in range(n)]
    assert all(x["addr"] for x in st)
    victim, me, nxt = 1, st[1]["addr"], st[2]["addr"]
    src = st[0]["addr"]  # the errors go up to the root
    seq = [0]

    def inject(pkt: bytes):
        seq[0] += 1
        mhr = struct.pack("<HBHHH", 0x8841, seq[0], 0x23, 0xFFFF, 0)  # broadcast, PAN 0x23
        frame = mhr + b"\x41" + pkt
        assert len(frame) + 2 <= 127
        assert s.inject(victim, frame + _fcs(frame)) == 0
        s.run(s.now + 1.5)  # the ICMPv6 error budget refills

    udp = UDP(sport=7, dport=9) / Raw(b"hbh")
    before = s.counters(victim)
    # an unknown option whose type asks for an error (10xxxxxx)
    inject(bytes(IPv6(src=src, dst=nxt, hlim=64) /
                 IPv6ExtHdrHopByHop(options=[HBHOptUnknown(otype=0x9E, optdata=b"\0\0\0\0")]) /
                 udp))
    # a PadN running past the header (8 bytes: a 6-byte PadN needs 8 from offset 2)
    hbh = bytes([17, 0, 1, 6, 0, 0, 0, 0])
    inject(bytes(IPv6(src=src, dst=nxt, nh=0, hlim=64, plen=len(hbh) + 11))[:40] + hbh +
           bytes(UDP(sport=7, dport=9) / Raw(b"hbh")))
    # a source route whose next address is the router's own
    rh = _srh([me], 1)
    inject(bytes(IPv6(src=src, dst=me, nh=43, hlim=64, plen=len(rh) + 11))[:40] + rh +
           bytes(UDP(sport=7, dport=9) / Raw(b"srh")))
    after = s.counters(victim)
    assert after["ipv6.rx_drop_hbh_fwd"] - before["ipv6.rx_drop_hbh_fwd"] == 2
    assert after["ipv6.rx_drop_srh"] - before["ipv6.rx_drop_srh"] == 1
    assert after["ipv6.rx_srh_forwarded"] == before["ipv6.rx_srh_forwarded"]
    assert after["ipv6.tx_drop_self"] == before["ipv6.tx_drop_self"] == 0
    assert after["icmpv6.tx_errors"] - before["icmpv6.tx_errors"] == 3
    # nothing else changed: the DODAG still carries traffic both ways
    assert ping(s, 2, st[0]["addr"]) == 3 and ping(s, 0, nxt) == 3
    s.close()

    # the errors as tshark reads them (the only ones of the run): from the
    # router to the source, each once (a MAC retry repeats a frame),
    # checksum good, nothing flagged
    rows = tshark_fields(pcap, "ipv6.src", "ipv6.dst", "icmpv6.code", "icmpv6.pointer",
                         "icmpv6.checksum.status", "_ws.malformed",
                         extra=["-Y", "icmpv6.type == 4"])
    seen = []
    for s_, d, code, ptr, csum, malformed in rows:
        if s_.split(",")[0] != me:
            continue
        assert d.split(",")[0] == src and csum == "1" and not malformed, rows
        if (code, ptr) not in seen:
            seen.append((code, ptr))
    assert seen == [("2", "42"), ("0", "42"), ("0", "48")], rows
