"""RPL at the edge of the DODAG, both modes (RFC 9008), checked on the wire:
which datagrams carry an RPI, when the root tunnels IPv6-in-IPv6 (from
outside the DODAG; from one node of a non-storing DODAG to another, with the
SRH in the outer header), and that the tunnel ends at the destination. And a
16-hop non-storing line, whose SRH no longer fits in a first fragment,
delivering downward from the root and from a node in the middle.

tshark 4.0 predates RFC 9008's RPI type 0x23: it shows the option's four
bytes as "unknown" data (flags, instance, sender rank), which is what the
tests read."""
import struct

import pytest

from conftest import tshark_fields
from test_rpl_sim import _quiesce, build, line_links, ping, rpl_state  # noqa: F401

OUT_PREFIX = "2001:db8:1::"


def ll(st) -> str:
    return f"fe80::{st['addr'].split('::')[1]}"


def routes(st) -> dict:
    return {t.split("/")[0]: v for t, v in st["routes"]}


def rpi_of(unknown: str) -> dict:
    """The RPI data tshark shows as unknown option bytes ("80000a00")."""
    b = bytes.fromhex(unknown.replace(":", ""))
    assert len(b) == 4, unknown
    return {"O": bool(b[0] & 0x80), "R": bool(b[0] & 0x40), "F": bool(b[0] & 0x20),
            "instance": b[1], "rank": b[2] << 8 | b[3]}


def echo_rows(pcap, icmp_type):
    """Per frame holding a whole echo datagram of @icmp_type: the IPv6
    headers' sources and destinations, hop-by-hop next headers, option
    types and data, routing header types and address counts."""
    rows = tshark_fields(pcap, "ipv6.src", "ipv6.dst", "ipv6.hopopts.nxt", "ipv6.opt.type",
                         "ipv6.opt.unknown", "ipv6.routing.type", "ipv6.routing.nxt",
                         "_ws.malformed", "wpan.src64", "wpan.dst64",
                         extra=["-Y", f"icmpv6.type == {icmp_type}"])
    out = []
    for r in rows:
        assert r[7] == "", r  # nothing malformed
        out.append({"src": r[0].split(","), "dst": r[1].split(","),
                    "hbh_nxt": r[2].split(",") if r[2] else [],
                    "opt": r[3].split(",") if r[3] else [],
                    "rpi": [rpi_of(x) for x in r[4].split(",")] if r[4] else [],
                    "rh": r[5].split(",") if r[5] else [],
                    "rh_nxt": r[6].split(",") if r[6] else []})
    return out


# Y: the root 0, routers 1 and 2 below it, 3 below 1 and 4 below 2; node 5
# is outside the DODAG (no RPL role, another prefix), a neighbour of the root
Y_LINKS = [(0, 1, 1.0), (0, 2, 1.0), (1, 3, 1.0), (2, 4, 1.0)]


@pytest.mark.parametrize("mode", ["storing", "non-storing"])
def test_rpl_edge_tunnels_and_rpi_on_the_wire(sim_factory, tmp_path, mode):
    """RFC 9008 (sections 7 and 8) at the root: a datagram from outside the
    DODAG goes down in an IPv6-in-IPv6 tunnel from the root to its
    destination, the outer header carrying the RPI (non-storing: and the
    SRH), the inner one untouched without an RPI; the answer goes up with
    the RPI of its sender and leaves the DODAG as it is (type 0x23 is
    skipped by routers that do not know it). Between two branches, storing
    mode turns the datagram down at the common ancestor (the root) with the
    O flag, no tunnel; non-storing mode tunnels it from the root with the
    SRH, the inner datagram keeping its RPI. Each tunnel ends at the
    destination (decapsulated there, counted)."""
    pcap = tmp_path / "edge.pcap"
    s = sim_factory(1)
    build(s, 5, Y_LINKS, pcap=pcap, mode=mode)
    out = s.add_node(-10.0, 0)
    s.set_link(0, out, 1.0)
    s.set_link(out, 0, 1.0)
    s.set_cca(out, True)
    s.run(60)
    st = [rpl_state(s, i) for i in range(5)]
    assert all(x["joined"] for x in st), [x["out"] for x in st]
    out_addr = f"{OUT_PREFIX}5"
    # the outside node: its own prefix, the DODAG's through the root
    _, o = s.shell(out, "ifconfig")
    out_ll = next(w for w in o.split() if w.startswith("fe80::")).split("/")[0]
    for node, cmd in ((out, f"ifconfig 1 add {out_addr}/64"),
                      (out, f"fib add 2001:db8::/64 via {ll(st[0])} dev 1"),
                      (0, f"fib add {OUT_PREFIX}/64 via {out_ll} dev 1")):
        res, text = s.shell(node, cmd)
        assert res == 0, text
    s.run(s.now + 2)
    assert ping(s, out, st[4]["addr"]) == 3, "outside -> node 4"
    assert ping(s, out, st[0]["addr"]) == 3, "outside -> root"
    assert ping(s, 3, st[4]["addr"]) == 3, "node 3 -> node 4"
    c0, c3, c4 = s.counters(0), s.counters(3), s.counters(4)
    ns = mode == "non-storing"
    # outside -> 4: 3 tunnelled; non-storing, 3 <-> 4: 3 requests, 3 answers
    assert c0["ipv6.tx_tunnel"] == (9 if ns else 3), c0
    assert c4["ipv6.rx_decap"] == (6 if ns else 3) and c4["ipv6.rx_drop_decap"] == 0
    assert c3["ipv6.tx_tunnel"] == 0 and c3["ipv6.rx_decap"] == (3 if ns else 0)
    s.close()

    root, n3, n4 = st[0]["addr"], st[3]["addr"], st[4]["addr"]
    reqs = echo_rows(pcap, 128)
    # outside -> node 4: on the outside link as sent (no RPI), then tunnelled
    plain = [r for r in reqs if r["src"] == [out_addr]]
    tun = [r for r in reqs if r["src"] == [root, out_addr]]
    assert len(plain) >= 3 and not any(r["opt"] for r in plain), plain
    assert len(tun) >= 2 * 3, reqs  # root -> 2, 2 -> 4
    for r in tun:
        # the outer destination: node 4, or with a source route the hop the
        # SRH names next (node 2 from the root, then node 4)
        assert r["dst"] in ([n4, n4], [st[2]["addr"], n4] if ns else [n4, n4]), r
        # outer: RPI (0x23, O set: down, instance 0) then, non-storing, the SRH,
        # then IPv6; inner: no hop-by-hop header at all
        assert r["opt"] == ["0x23"] and r["rpi"][0]["O"] and r["rpi"][0]["instance"] == 0, r
        assert not r["rpi"][0]["R"] and not r["rpi"][0]["F"], r
        if ns:
            # the root's SRH: node 2 as the first hop, node 4 in the header;
            # the last hop (2 -> 4) has it with no segments left
            assert r["hbh_nxt"] == ["43"] and r["rh"] == ["3"] and r["rh_nxt"] == ["41"], r
        else:
            assert r["hbh_nxt"] == ["41"] and r["rh"] == [], r
    # node 4 -> outside: up with node 4's RPI (O clear), no tunnel, out of
    # the DODAG as it is
    reps = echo_rows(pcap, 129)
    up = [r for r in reps if r["src"] == [n4] and r["dst"] == [out_addr]]
    assert len(up) >= 3 * 3, reps  # 4 -> 2 -> 0 -> outside
    for r in up:
        assert r["opt"] == ["0x23"] and not r["rpi"][0]["O"] and r["rh"] == [], r
        assert r["hbh_nxt"] == ["58"], r
    # the root's own answers to the outside node: no RPI (RFC 9008: the
    # RPI is for the RPL domain; the root's datagram leaves it at once)
    root_out = [r for r in reps if r["src"] == [root] and r["dst"] == [out_addr]]
    assert len(root_out) >= 3 and not any(r["opt"] or r["rh"] for r in root_out), root_out
    # node 3 -> node 4
    p2p = [r for r in reqs if r["src"][-1] == n3 and r["dst"][-1] == n4]
    assert len(p2p) >= 4 * 3, p2p  # 3 -> 1 -> 0 -> 2 -> 4
    if ns:
        # up as sent (RPI, O clear), then in the root's tunnel with its SRH;
        # the inner datagram keeps an RPI of its own
        direct = [r for r in p2p if r["src"] == [n3]]
        inner = [r for r in p2p if r["src"] == [root, n3]]
        assert len(direct) >= 2 * 3 and len(inner) >= 2 * 3, p2p
        for r in direct:
            assert r["opt"] == ["0x23"] and not r["rpi"][0]["O"] and r["rh"] == [], r
        for r in inner:
            assert r["opt"] == ["0x23", "0x23"] and r["rpi"][0]["O"], r
            assert r["hbh_nxt"] == ["43", "58"] and r["rh"] == ["3"] and r["rh_nxt"] == ["41"], r
    else:
        # one header all the way: the RPI's O flag set from the root on,
        # the sender rank each hop's
        assert all(r["src"] == [n3] and r["opt"] == ["0x23"] and r["rh"] == [] for r in p2p), p2p
        downs = [r["rpi"][0] for r in p2p if r["rpi"][0]["O"]]
        ups = [r["rpi"][0] for r in p2p if not r["rpi"][0]["O"]]
        assert len(downs) >= 2 * 3 and len(ups) >= 2 * 3, p2p
        assert {x["rank"] for x in downs} == {st[0]["rank"], st[2]["rank"]}, downs
        assert {x["rank"] for x in ups} == {st[3]["rank"], st[1]["rank"]}, ups
        assert not any(x["R"] or x["F"] for x in downs + ups)


def _inject_uncompressed_srh(s, st, far):
    """An echo request from the root to node @far with an SRH naming nodes
    2 .. far in full, to node 1, in 6LoWPAN fragments (uncompressed IPv6
    dispatch) from the root's short address into node 1's radio."""
    import ipaddress
    from scapy.layers.inet6 import ICMPv6EchoRequest, IPv6
    from test_rpl_sim import _fcs
    root, first, dst = st[0]["addr"], st[1]["addr"], st[far]["addr"]
    # the checksum is over the final destination (RFC 8200 8.1)
    icmp = bytes(IPv6(src=root, dst=dst) / ICMPv6EchoRequest(id=77, seq=1, data=b"x" * 16))[40:]
    hops = b"".join(ipaddress.IPv6Address(st[k]["addr"]).packed for k in range(2, far + 1))
    srh = bytes([58, len(hops) // 8, 3, far - 1, 0x00, 0x00, 0, 0]) + hops
    dg = bytes(IPv6(src=root, dst=first, nh=43, hlim=64, plen=len(srh) + len(icmp)))[:40] + \
        srh + icmp
    assert len(srh) == 8 + 16 * (far - 1)
    size, tag, chunk, off, seq = len(dg), 0x5151, 96, 0, 200
    while off < size:
        n = min(chunk, size - off)
        if off == 0:
            hdr = struct.pack(">HH", 0xC000 | size, tag) + b"\x41"
        else:
            hdr = struct.pack(">HHB", 0xE000 | size, tag, off // 8)
        seq += 1
        mhr = struct.pack("<HBHHH", 0x8841, seq & 0xFF, 0x23, 0xFFFF, 0x0000)
        frame = mhr + hdr + dg[off:off + n]
        assert len(frame) + 2 <= 127
        assert s.inject(1, frame + _fcs(frame)) == 0
        s.run(s.now + 0.02)
        off += n


def test_rpl_16_hop_line_non_storing_delivers_downward(sim_factory, tmp_path):
    """A 17-node line in non-storing mode (other stacks stop at about 8
    hops): the root pings the far end and back, and so does the node in the
    middle, whose datagrams the root tunnels down with its SRH. The root's
    source route to the far end names 15 hops (24 octets here: these
    addresses differ in their last octet only, RFC 6554 elides the rest);
    the tunnelled datagrams' header chain (outer IPv6, RPI, SRH, inner IPv6,
    RPI: 120 octets) runs past what the first fragment covers, and 6LoWPAN,
    which carries extension headers uncompressed after IPHC, continues it in
    the next fragment at every hop. And a source route sent uncompressed
    (248 octets of SRH, ~2.5 fragments' worth) still takes every hop to the
    far end, which answers."""
    n = 17
    pcap = tmp_path / "line16.pcap"
    s = sim_factory(1)
    build(s, n, line_links(n), pcap=pcap, mode="non-storing")
    s.run(240)
    st = [rpl_state(s, i) for i in range(n)]
    assert all(x["joined"] for x in st), [x["out"] for x in st if not x["joined"]]
    far, mid = n - 1, n // 2
    for a, b in ((0, far), (far, 0), (mid, far), (far, mid)):
        assert ping(s, a, st[b]["addr"]) == 3, f"{a} -> {b}"
    # tunnelled by the root: mid's echo requests to far, and its answers to
    # far's requests (far's datagrams to mid meet mid on their way up)
    assert s.counters(0)["ipv6.tx_tunnel"] == 2 * 3
    assert s.counters(far)["ipv6.rx_decap"] == 2 * 3
    assert s.counters(mid)["ipv6.rx_decap"] == 0  # far -> mid passes mid on its way up
    assert all(s.counters(i)["ipv6.rx_drop_srh"] == 0 for i in range(n))
    # an SRH that does not fit the first fragment by far: the root's route
    # to the far end with its 15 addresses uncompressed (CmprI 0: 248
    # octets; RFC 6554 lets a sender elide less), as fragments into node
    # 1's radio from the root's link address. Every router reassembles it,
    # takes its hop and sends it on in fragments again; the far end answers
    far_before = s.counters(far)["icmpv6.tx_echo_reply"]
    fwd_before = [s.counters(i)["ipv6.rx_srh_forwarded"] for i in range(n)]
    _inject_uncompressed_srh(s, st, far)
    s.run(s.now + 10)
    assert s.counters(far)["icmpv6.tx_echo_reply"] == far_before + 1
    assert all(s.counters(i)["ipv6.rx_srh_forwarded"] == fwd_before[i] + 1
               for i in range(1, far)), [s.counters(i)["ipv6.rx_srh_forwarded"] for i in range(n)]
    s.close()
    # every hop of mid's tunnelled echo requests to far: the headers before
    # the ICMPv6 one (outer IPv6, its RPI, the SRH naming the hops after
    # the root's first, the inner IPv6 header and its RPI) run past what the
    # first fragment covers: the next fragments carry the rest of the chain
    frags = tshark_fields(pcap, "wpan.src64", "6lowpan.frag.tag", "6lowpan.frag.offset",
                          "ipv6.src", "ipv6.dst", "ipv6.hopopts.len_oct", "ipv6.routing.len",
                          "ipv6.routing.rpl.addr_count", "icmpv6.type", "_ws.malformed")
    first_cover = {}
    for r in frags:
        if r[2] and int(r[2]) > 0:
            key = (r[0], r[1])
            first_cover[key] = min(first_cover.get(key, 1 << 16), int(r[2]))
    root, mid_a, far_a = st[0]["addr"], st[mid]["addr"], st[far]["addr"]
    tunnelled = [r for r in frags if r[8] == "128" and r[3] == f"{root},{mid_a}"]
    assert len(tunnelled) >= 3 * (far - mid), len(tunnelled)
    for r in tunnelled:
        assert r[9] == "" and r[4].split(",")[1] == far_a, r
        hbh = [int(x) for x in r[5].split(",")]
        chain = 40 + hbh[0] + (int(r[6]) + 1) * 8 + 40 + hbh[1]
        assert chain > first_cover[(r[0], r[1])], (r, chain, first_cover[(r[0], r[1])])
    # the uncompressed SRH on the air, as each router sent it on (1 -> 2 ..
    # 15 -> 16): 15 full addresses, every hop's reassembly clean
    big = tshark_fields(pcap, "ipv6.routing.rpl.addr_count", "ipv6.routing.len",
                        "ipv6.routing.segleft", "_ws.malformed",
                        extra=["-Y", "icmpv6.echo.identifier == 77 && icmpv6.type == 128"])
    assert len(big) == far - 1, big
    assert {r[2] for r in big} == {str(k) for k in range(far - 1)}, big
    assert all(r[0] == str(far - 1) and int(r[1]) * 8 + 8 == 8 + 16 * (far - 1) and r[3] == ""
               for r in big), big
    # the root's own echo requests to far: one SRH naming the 15 hops after
    # the first (compressed: these addresses differ in their last octet)
    rows = tshark_fields(pcap, "ipv6.src", "ipv6.routing.rpl.addr_count", "_ws.malformed",
                         extra=["-Y", "icmpv6.type == 128 && ipv6.routing.type == 3"])
    assert any(r[0] == root and r[1] == str(far - 1) and r[2] == "" for r in rows), rows


def test_rpl_srh_every_check_of_rfc6554_4_2(sim_factory, tmp_path):
    """RFC 6554 4.2 at a router (node 1 of a 3-node non-storing line), the
    checks test_rpl_sim's adversarial test does not make, from datagrams
    injected into its radio: no segments left (the header is done: the
    datagram is delivered here), a multicast IPv6 destination (discarded
    without an error), hop limit 1 (time exceeded, nothing forwarded), and a
    next hop that is not a neighbour: the link estimator knows it and none
    of its frames was acknowledged (ETX 7: from the fifteenth datagram) ->
    destination unreachable, code 7, to the source (from the router's own
    address, RFC 4443 2.2, not the next hop's the datagram now names)."""
    from scapy.layers.inet import UDP
    from scapy.layers.inet6 import IPv6
    from scapy.packet import Raw
    from test_rpl_sim import _fcs, _srh
    n = 3
    pcap = tmp_path / "srh.pcap"
    s = sim_factory(8)
    build(s, n, line_links(n), mode="non-storing", pcap=pcap)
    s.run(60)
    st = [rpl_state(s, i) for i in range(n)]
    victim, me, nxt, root = 1, st[1]["addr"], st[2]["addr"], st[0]["addr"]
    ghost = "2001:db8::57:52ff:fe00:63"  # no such node
    seq = [0]

    def inject(rh, dst=me, hlim=64, src=root):
        payload = bytes(IPv6(src=src, dst=nxt) / UDP(sport=7, dport=9) / Raw(b"srh"))[40:]
        ip = bytes(IPv6(src=src, dst=dst, nh=43, hlim=hlim, plen=len(rh) + len(payload)))[:40]
        seq[0] += 1
        mhr = struct.pack("<HBHHH", 0x8841, seq[0], 0x23, 0xFFFF, 0)
        frame = mhr + b"\x41" + ip + rh + payload
        assert len(frame) + 2 <= 127
        assert s.inject(victim, frame + _fcs(frame)) == 0
        s.run(s.now + 1.5)  # the ICMPv6 error budget refills

    def delta(key):
        return s.counters(victim)[key] - before[key]

    before = s.counters(victim)
    inject(_srh([nxt], 0))  # no segments left: for us
    assert delta("ipv6.rx_delivered") == 1 and delta("ipv6.rx_srh_forwarded") == 0
    before = s.counters(victim)
    inject(_srh([nxt], 1), dst="ff02::1")  # multicast destination
    assert delta("ipv6.rx_drop_srh") == 1 and delta("icmpv6.tx_errors") == 0
    before = s.counters(victim)
    inject(_srh([nxt], 1), hlim=1)  # no hop left
    assert delta("ipv6.rx_drop_hop_limit") == 1 and delta("icmpv6.tx_errors") == 1
    assert delta("ipv6.rx_forwarded") == 0
    before = s.counters(victim)
    for _ in range(16):
        inject(_srh([ghost], 1))
    # the first 14 go (nothing is known of the ghost at first; each frame
    # goes unacknowledged, ETX 2 -> 7 in 14 steps of 7/8), then code 7
    assert delta("ipv6.rx_srh_forwarded") == 14 and delta("ipv6.rx_drop_srh") == 2
    assert delta("icmpv6.tx_errors") == 2
    # and a real neighbour is still followed
    inject(_srh([nxt], 1))
    assert delta("ipv6.rx_srh_forwarded") == 15
    s.close()
    rows = tshark_fields(pcap, "ipv6.src", "ipv6.dst", "icmpv6.type", "icmpv6.code",
                         "_ws.malformed", extra=["-Y", "icmpv6.type == 1 || icmpv6.type == 3"])
    errs = [(r[0].split(",")[0], r[1].split(",")[0], r[2].split(",")[0], r[3].split(",")[0])
            for r in rows if r[4] == ""]
    assert errs.count((me, root, "1", "7")) == 2, errs  # to the root, the source
    assert errs.count((me, root, "3", "0")) == 1, errs


def test_rpl_storing_forwarding_error_cleans_a_stale_route(sim_factory):
    """RFC 6550 11.2.2.3, storing mode, 0 - 1 - 2: node 1 is told (a DAO
    that claims to come from node 2) that 2001:db8::77 lies below node 2,
    which knows nothing of it; node 1 and the root route it down. The
    root's first echo request to it goes down to node 2, which has no route:
    it sets F and sends it back up; node 1 drops its route through node 2
    and, with no other, sends it on up with F; the root drops its route and
    answers the sender (itself) with destination unreachable. Without the
    flag the datagram went down again and again until its hop limit ran
    out."""
    from scapy.contrib.rpl import RPLDAO, RPLOptTgt, RPLOptTIO
    from scapy.layers.inet6 import ICMPv6RPL, IPv6
    from test_rpl_sim import _fcs
    n = 3
    s = sim_factory(4)
    build(s, n, line_links(n))
    s.run(60)
    st = [rpl_state(s, i) for i in range(n)]
    ghost = "2001:db8::77"
    body = RPLDAO(RPLInstanceID=0, K=0, daoseq=9) / RPLOptTgt(plen=128, prefix=ghost) / \
        RPLOptTIO(pathseq=250, pathlifetime=30)
    pkt = bytes(IPv6(src=ll(st[2]), dst=ll(st[1]), hlim=255) / ICMPv6RPL() / body)
    eui2 = bytes.fromhex("02575" "2fffe000002")
    mhr = struct.pack("<HBHH", 0xC841, 9, 0x23, 0xFFFF) + eui2[::-1]
    frame = mhr + b"\x41" + pkt
    assert s.inject(1, frame + _fcs(frame)) == 0
    s.run(s.now + 5)
    assert routes(rpl_state(s, 1)).get(ghost) == ll(st[2])
    assert routes(rpl_state(s, 0)).get(ghost) == ll(st[1])
    before = [s.counters(i) for i in range(n)]
    assert ping(s, 0, ghost, count=1) == 0
    c = [s.counters(i) for i in range(n)]

    def d(i, key):
        return c[i][key] - before[i][key]

    assert d(2, "rpl.rpi_no_route_down") == 1 and d(2, "ipv6.rx_forwarded") == 1
    assert d(1, "rpl.rpi_forward_error") == 1 and d(1, "rpl.rpi_no_route_down") == 1
    assert d(1, "ipv6.rx_forwarded") == 2  # down once, back up once
    assert d(0, "rpl.rpi_forward_error") == 1 and d(0, "ipv6.rx_drop_no_route") == 1
    assert all(d(i, "ipv6.rx_drop_hop_limit") == 0 for i in range(n))
    assert ghost not in routes(rpl_state(s, 1)) and ghost not in routes(rpl_state(s, 0))
    # the DODAG itself is untouched
    assert ping(s, 0, st[2]["addr"]) == 3
