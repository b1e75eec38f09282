"""RPL route maintenance in the simulator: no-path DAOs when a storing-mode
router changes its parent (the old branch drops its routes at once, up to
the common ancestor), DAO retransmissions that move on through the dirty
routes when DAO-ACKs are lost, DAO-ACK status, and the DODAG version's
lollipop counter wrapping around (RFC 6550 7.2)."""
import ipaddress
import re
import struct

from conftest import tshark_fields
from test_rpl_sim import _fcs, _quiesce, build, ping, rpl_state  # noqa: F401


def ll(st) -> str:
    return f"fe80::{st['addr'].split('::')[1]}"


def routes(st) -> dict:
    return {t.split("/")[0]: v for t, v in st["routes"]}


def test_rpl_storing_parent_change_sends_no_path_to_the_old_branch(sim_factory, tmp_path):
    """Storing mode: 0 - 1 - 2 - 3 - 4, then a link 0 - 3 comes up. Node 3
    moves to the root (its rank drops by two hops); it tells the parent it
    left (node 2) with a no-path DAO for itself and node 4, node 2 drops
    both routes and passes the no-path on to node 1, which drops them too;
    the root, the common ancestor, routes both through node 3.
    Without no-path DAOs nodes 1 and 2 kept the stale routes for the whole
    route lifetime (30 min)."""
    n = 5
    pcap = tmp_path / "nopath.pcap"
    s = sim_factory(1)
    build(s, n, [(i, i + 1, 1.0) for i in range(n - 1)], pcap=pcap)
    s.run(90)
    st = [rpl_state(s, i) for i in range(n)]
    assert all(x["joined"] for x in st)
    a3, a4 = st[3]["addr"], st[4]["addr"]
    assert routes(st[2]) == {a3: ll(st[3]), a4: ll(st[3])}, st[2]["out"]
    assert routes(st[1]) == {st[2]["addr"]: ll(st[2]), a3: ll(st[2]), a4: ll(st[2])}
    s.set_link(0, 3, 1.0)
    s.set_link(3, 0, 1.0)
    # the root's next DIO (Trickle, up to its longest interval) reaches 3
    for _ in range(60):
        s.run(s.now + 10)
        st3 = rpl_state(s, 3)
        pref = [p[0] for p in st3["parents"] if p[2]]
        if pref == [ll(st[0])]:
            break
    else:
        raise AssertionError(st3["out"])
    s.run(s.now + 10)
    now = [rpl_state(s, i) for i in range(n)]
    assert routes(now[2]) == {}, now[2]["out"]
    assert routes(now[1]) == {st[2]["addr"]: ll(st[2])}, now[1]["out"]
    assert routes(now[0])[a3] == a3.replace("2001:db8::", "fe80::") == ll(st[3]), now[0]["out"]
    assert routes(now[0])[a4] == ll(st[3]), now[0]["out"]
    assert routes(now[3]) == {a4: ll(st[4])}, now[3]["out"]
    c = [s.counters(i) for i in range(n)]
    assert c[3]["rpl.tx_no_path"] == 1 and c[3]["rpl.parent_switch"] == 1
    assert c[2]["rpl.route_no_path"] == 2 and c[1]["rpl.route_no_path"] == 2
    # at the root the no-path (through 1) and the new DAO (from 3) race: the
    # no-path removes the old routes if it comes first, else it no longer
    # matches them; either way the root ends with the new ones (above)
    assert c[0]["rpl.route_no_path"] in (0, 2)
    # traffic takes the new path both ways
    assert ping(s, 0, a4) == 3 and ping(s, 4, st[0]["addr"]) == 3
    assert ping(s, 1, a4) == 3  # up to the root, down through 3
    s.close()
    # on the wire: 3's no-path to 2 and 2's DAO passing it on to 1, both
    # naming 3 and 4 with lifetime 0; tshark flags nothing, checksums good
    rows = tshark_fields(pcap, "ipv6.src", "ipv6.dst", "icmpv6.rpl.opt.target.prefix",
                         "icmpv6.rpl.opt.transit.pathlifetime", "_ws.malformed", "_ws.expert",
                         "icmpv6.checksum.status",
                         extra=["-Y", "icmpv6.type == 155 && icmpv6.code == 2"])
    nopaths = [(r[0], r[1]) for r in rows
               if "0" in r[3].split(",") and {a3, a4} <= set(r[2].split(","))]
    assert (ll(st[3]), ll(st[2])) in nopaths and (ll(st[2]), ll(st[1])) in nopaths, rows
    assert all(r[4] == "" and r[5] == "" and r[6] == "1" for r in rows), rows


def _inject_dao(s, victim, dst_ll, targets, seq):
    """A DAO (no ACK asked) announcing @targets, from a child that is not
    there (link source 0x63), into @victim's radio."""
    from scapy.contrib.rpl import RPLDAO, RPLOptTgt, RPLOptTIO
    from scapy.layers.inet6 import ICMPv6RPL, IPv6
    body = RPLDAO(RPLInstanceID=0, K=0, daoseq=seq)
    for t, plen in targets:
        body = body / RPLOptTgt(plen=plen, prefix=t)
    pkt = bytes(IPv6(src="fe80::ff:fe00:63", dst=dst_ll, hlim=255) / ICMPv6RPL() /
                body / RPLOptTIO(pathseq=1, pathlifetime=30))
    mhr = struct.pack("<HBHHH", 0x8841, seq & 0xFF, 0x23, 0xFFFF, 0x63)
    frame = mhr + b"\x41" + pkt
    assert len(frame) + 2 <= 127
    assert s.inject(victim, frame + _fcs(frame)) == 0


def _daos_from(pcap, src, t0):
    """The targets of each DAO @src sent from @t0 on, in order, each DAO
    once (by its sequence; a frame the MAC sent again counts once).
    Options are walked here: tshark 4.0 and scapy 2.8 both read a target
    option's prefix as 16 octets whatever its length (RFC 6550 6.7.7 sends
    the prefix length's octets)."""
    from scapy.config import conf
    conf.dot15d4_protocol = "sixlowpan"
    from scapy.layers.dot15d4 import Dot15d4FCS
    from scapy.layers.inet6 import ICMPv6RPL, IPv6
    from scapy.utils import rdpcap
    out, seen = [], set()
    for p in rdpcap(str(pcap)):
        f = Dot15d4FCS(bytes(p))
        if float(p.time) < t0 or ICMPv6RPL not in f or f[ICMPv6RPL].code != 2 or \
                f[IPv6].src != src:
            continue
        m = bytes(f[ICMPv6RPL])
        flags, seq = m[5], m[7]
        if seq in seen:
            continue
        seen.add(seq)
        pos, targets = 8 + (16 if flags & 0x40 else 0), []
        while pos < len(m):
            if m[pos] == 0:  # Pad1
                pos += 1
                continue
            typ, ln = m[pos], m[pos + 1]
            if typ == 5:
                plen = m[pos + 3]
                prefix = m[pos + 4:pos + 2 + ln] + bytes(16 - (ln - 2))
                targets.append((str(ipaddress.IPv6Address(prefix)), plen))
            pos += 2 + ln
        out.append(targets)
    return out


def test_rpl_dao_retransmission_moves_on_when_acks_are_lost(sim_factory, tmp_path):
    """Storing mode, a router (node 1 of 0 - 1 - 2) learns six routes (DAOs
    from a child announcing two each) while it hears nothing from its parent
    (the link 0 -> 1 cut: every DAO-ACK lost). Its DAO goes with the first
    two; the one sent again for want of an ACK carries the other four (a DAO
    carries four forwarded targets at most), so a lost ACK does not hold the
    rest back: the root learns all six before any ACK comes through. (Each
    DAO used to carry the same first four until acknowledged: seen under
    hidden-terminal load in the 14-node mesh.)"""
    pcap = tmp_path / "retx.pcap"
    n = 3
    s = sim_factory(3)
    build(s, n, [(0, 1, 1.0), (1, 2, 1.0)], pcap=pcap, root_routes=16, routes=16)
    s.run(60)
    st = [rpl_state(s, i) for i in range(n)]
    assert all(x["joined"] for x in st)
    # /32 prefixes (4 octets in a target option): a DAO with four of them
    # still fits one frame (a DAO split in fragments is given up whole by
    # the MAC once a fragment goes unacknowledged, and the link to the
    # parent is cut here)
    targets = [f"2001:{0xc00 + k:x}::" for k in range(6)]
    s.set_link(0, 1, 0.0)
    t_cut = s.now
    for k in range(3):  # two targets a frame
        _inject_dao(s, 1, ll(st[1]), [(t, 32) for t in targets[2 * k:2 * k + 2]], k + 1)
        s.run(s.now + 0.1)
    s.run(s.now + 7)
    root = routes(rpl_state(s, 0))
    assert set(targets) <= set(root), root
    assert s.counters(1)["rpl.dao_retx"] >= 1
    s.set_link(0, 1, 1.0)
    s.run(s.now + 20)
    assert rpl_state(s, 1)["joined"]
    assert ping(s, 0, st[2]["addr"]) == 3
    s.close()
    daos = _daos_from(pcap, ll(st[1]), t_cut)
    assert len(daos) >= 2, daos
    # (the first went as soon as the first two came; the other four came
    # while it awaited its ACK)
    first, again = (set(d) - {(st[1]["addr"], 128)} for d in daos[:2])
    assert first == {(t, 32) for t in targets[:2]}, daos
    assert again == {(t, 32) for t in targets[2:]}, daos


def _version(st) -> int:
    return int(re.search(r"version (\d+)", st["out"]).group(1))


def test_rpl_version_wraps_around_the_lollipop(sim_factory):
    """RFC 6550 7.2: the DODAG version is a lollipop counter. The root
    starts at 240 (16 below the wrap) and is repaired again and again: the
    versions go 240 .. 255, on into the circular region 0 .. 127 and round
    from 127 to 0; at every step the routers take the new version (a newer
    one by the counter's rules, across both wraps), their parents and routes
    come back, and a DIO with a version from before the wrap (older, though
    a larger number) moves nobody."""
    n = 3
    s = sim_factory(2)
    build(s, n, [(0, 1, 1.0), (1, 2, 1.0)])
    s.run(30)
    assert [_version(rpl_state(s, i)) for i in range(n)] == [240] * n
    seen = [240]
    for k in range(16 + 128 + 2):  # 240 -> 0 (16), 0 -> 127 -> 0 (128), then 2 more
        assert s.shell(0, "rpl repair")[0] == 0
        s.run(s.now + 6)
        want = seen[-1] + 1 if seen[-1] not in (127, 255) else 0
        got = [_version(rpl_state(s, i)) for i in range(n)]
        assert got == [want] * n, (k, got)
        seen.append(want)
    assert seen[16] == 0 and seen[16 + 128] == 0 and seen[-1] == 2
    c = [s.counters(i) for i in range(1, n)]
    assert all(x["rpl.new_version"] == len(seen) - 1 for x in c), c
    st = [rpl_state(s, i) for i in range(n)]
    assert all(x["joined"] for x in st) and routes(st[1]) == {st[2]["addr"]: ll(st[2])}
    assert ping(s, 0, st[2]["addr"]) == 3
    # an old DIO (version 250, before the wrap) from a node that is not
    # there, with a better rank: not newer, nobody moves
    from scapy.contrib.rpl import RPLDIO, RPLOptDODAGConfig
    from scapy.layers.inet6 import ICMPv6RPL, IPv6
    dio = RPLDIO(RPLInstanceID=0, ver=250, G=1, mop=2, rank=256, dodagid=st[0]["addr"])
    pkt = bytes(IPv6(src="fe80::ff:fe00:63", dst="ff02::1a", hlim=255) / ICMPv6RPL() /
                dio / RPLOptDODAGConfig(MinRankIncrease=256, LifetimeUnit=60))
    mhr = struct.pack("<HBHHH", 0x8841, 7, 0x23, 0xFFFF, 0x63)
    frame = mhr + b"\x41" + pkt
    assert s.inject(2, frame + _fcs(frame)) == 0
    s.run(s.now + 10)
    after = rpl_state(s, 2)
    assert _version(after) == 2 and all(p[0] != "fe80::ff:fe00:63" for p in after["parents"])
    assert s.counters(2)["rpl.new_version"] == len(seen) - 1


def test_rpl_refused_dao_is_announced_again_within_a_minute(sim_factory):
    """A root with a table of two routes and three children: the third
    child's DAO is refused (DAO-ACK status 128, RFC 6550 6.5). The child
    keeps what it announced to announce again 30-40 s later rather than at
    the refresh, a quarter of an hour on: once a slot frees (a no-path DAO
    in the name of another child), the refused child is routed within a
    minute."""
    from scapy.contrib.rpl import RPLDAO, RPLOptTgt, RPLOptTIO
    from scapy.layers.inet6 import ICMPv6RPL, IPv6
    n = 4
    s = sim_factory(5)
    build(s, n, [(0, k, 1.0) for k in range(1, n)], root_routes=2)
    s.run(60)
    st = [rpl_state(s, i) for i in range(n)]
    held = routes(st[0])
    assert len(held) == 2
    out = next(k for k in range(1, n) if st[k]["addr"] not in held)
    gone = next(k for k in range(1, n) if k != out)
    assert s.counters(out)["rpl.dao_ack_refused"] >= 1
    # a no-path DAO from `gone` (its link address and link-local source)
    body = RPLDAO(RPLInstanceID=0, K=0, daoseq=99) / \
        RPLOptTgt(plen=128, prefix=st[gone]["addr"]) / RPLOptTIO(pathseq=250, pathlifetime=0)
    pkt = bytes(IPv6(src=ll(st[gone]), dst=ll(st[0]), hlim=255) / ICMPv6RPL() / body)
    eui = bytes.fromhex("025752fffe0000") + bytes([gone])
    mhr = struct.pack("<HBHH", 0xC841, 99, 0x23, 0xFFFF) + eui[::-1]
    frame = mhr + b"\x41" + pkt
    assert s.inject(0, frame + _fcs(frame)) == 0
    s.run(s.now + 1)
    assert st[gone]["addr"] not in routes(rpl_state(s, 0))
    s.run(s.now + 45)
    assert routes(rpl_state(s, 0)).get(st[out]["addr"]) == ll(st[out])
    assert ping(s, 0, st[out]["addr"]) == 3
