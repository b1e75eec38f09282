"""IPv6 over 6LoWPAN across a simulated 5-hop 802.15.4 line with static
routes: ping with 8, 100 and 1,000 bytes, UDP datagrams of every size from
0 to 1,232 bytes, and tshark's verdict on every frame."""
import re

import pytest

from conftest import tshark_fields
from wren.addr import ll

N = 6  # nodes 0..5: five hops


def addr(i):
    return f"2001:db8::{100 + i}"


def line(sim_factory, seed=1, pcap=None):
    s = sim_factory(seed)
    for i in range(N):
        s.add_node(10.0 * i, 0)
    for i in range(N - 1):
        s.set_link(i, i + 1)
        s.set_link(i + 1, i)
    if pcap:
        s.open_pcap(pcap)
    for i in range(N):
        s.set_cca(i, True)
        assert s.shell(i, f"ifconfig 1 add {addr(i)}/64")[0] == 0
        assert s.shell(i, "forward on")[0] == 0
        if i > 0:
            assert s.shell(i, f"fib add {addr(0)}/128 via {ll(i - 1)} dev 1")[0] == 0
        if i < N - 1:
            assert s.shell(i, f"fib add {addr(N - 1)}/128 via {ll(i + 1)} dev 1")[0] == 0
    return s


@pytest.mark.parametrize("size", [8, 100, 1000])
def test_ping_across_five_hops(sim_factory, size):
    s = line(sim_factory)
    res, out = s.shell(0, f"ping {addr(N - 1)} -c 5 -s {size} -i 1500")
    assert res == 0
    s.run(s.now + 12)
    out += s.output(0)
    assert "5 packets transmitted, 5 received, 0% packet loss" in out, out
    replies = re.findall(rf"(\d+) bytes from {addr(N - 1)}: icmp_seq=\d+ ttl=(\d+)", out)
    assert len(replies) == 5
    assert all(int(b) == size + 8 and int(ttl) == 64 - (N - 2) for b, ttl in replies)
    if size == 1000:
        c = s.counters(N - 1)
        assert c["6lowpan.frag_reassembled"] == 5
    for i in range(1, N - 1):
        assert s.counters(i)["ipv6.rx_forwarded"] == 10


def test_udp_every_size_arrives_intact(sim_factory):
    s = line(sim_factory, seed=3)
    assert s.shell(N - 1, "udp server start 50123 sink")[0] == 0
    # sizes 0..1232, one each, 0.5 s apart so that fragments never collide
    res, out = s.shell(0, f"udp send {addr(N - 1)} 50123 0-1232 1233 500")
    assert res == 0, out
    s.run(s.now + 1233 * 0.5 + 5)
    out = s.shell(N - 1, "udp server stats")[1]
    m = re.search(r"received (\d+) bad (\d+) echoed \d+ bytes (\d+) size_sum (\d+)", out)
    assert m, out
    received, bad, _, size_sum = map(int, m.groups())
    assert bad == 0
    assert received == 1233
    assert size_sum == sum(range(1233))


def test_tshark_dissects_every_frame_as_6lowpan(tmp_path, sim_factory):
    pcap = tmp_path / "line.pcap"
    s = line(sim_factory, pcap=pcap)
    s.shell(N - 1, "udp server start 50123 echo")
    for size in (8, 100, 1000):
        s.shell(0, f"ping {addr(N - 1)} -c 2 -s {size} -i 1500")
        s.run(s.now + 5)
    s.shell(0, f"udp send {addr(N - 1)} 50123 0-1232 40 31")
    s.run(s.now + 10)
    s.close()
    rows = tshark_fields(pcap, "frame.protocols", "wpan.fcs_ok", "_ws.expert", "_ws.malformed",
                         "udp.checksum.status", "icmpv6.checksum.status", "wpan.frame_type",
                         extra=["-o", "udp.check_checksum:TRUE"])
    assert len(rows) > 300
    whole = 0  # frames where tshark sees a whole (or reassembled) datagram
    acks = 0
    for proto, fcs_ok, expert, malformed, udp_ck, icmp_ck, ftype in rows:
        assert fcs_ok == "1"
        assert malformed == "" and expert == "", proto
        if ftype == "0x0002":
            acks += 1  # the MAC's acknowledgements
            continue
        assert "6lowpan" in proto, proto
        assert malformed == "", proto
        assert expert == "", (proto, expert)
        # checksum status 1: good (0 would be bad, 2 unverified)
        assert udp_ck in ("", "1"), udp_ck
        assert icmp_ck in ("", "1"), icmp_ck
        if "ipv6" in proto:
            whole += 1
            assert udp_ck == "1" or icmp_ck == "1", proto
    assert whole > 40
    assert acks > 300


def test_routing_loop_ends_in_time_exceeded(sim_factory):
    """A ping caught in a routing loop between nodes 1 and 2 runs out of hop
    limit; the router where it dies sends Time Exceeded back to node 0
    (quoting the echo request, so ICMPv6 may answer about it)."""
    s = sim_factory(4)
    for i in range(3):
        s.add_node(10.0 * i, 0)
    for a, b in ((0, 1), (1, 0), (1, 2), (2, 1)):
        s.set_link(a, b)
    for i in range(3):
        s.shell(i, f"ifconfig 1 add {addr(i)}/64")
        s.shell(i, "forward on")
    s.shell(0, f"fib add 2001:db8::9/128 via {ll(1)} dev 1")
    s.shell(1, f"fib add 2001:db8::9/128 via {ll(2)} dev 1")
    s.shell(2, f"fib add 2001:db8::9/128 via {ll(1)} dev 1")
    s.shell(1, f"fib add {addr(0)}/128 via {ll(0)} dev 1")
    s.shell(2, f"fib add {addr(0)}/128 via {ll(1)} dev 1")
    s.shell(0, "ping 2001:db8::9 -c 1 -s 16")
    s.run(s.now + 5)
    c = [s.counters(i) for i in range(3)]
    assert c[1]["ipv6.rx_drop_hop_limit"] + c[2]["ipv6.rx_drop_hop_limit"] == 1
    assert c[1]["icmpv6.tx_errors"] + c[2]["icmpv6.tx_errors"] == 1
    assert c[0]["icmpv6.rx_errors"] == 1


def test_router_never_forwards_a_link_local_source(sim_factory):
    """A host without a global address picks its link-local one for a global
    destination (RFC 6724 rule 2); the first router drops the packet
    (RFC 4291 2.5.6), counts it and answers "beyond scope of source address"
    (RFC 4443 3.1), and nothing reaches the destination."""
    s = line(sim_factory, seed=5)
    assert s.shell(0, f"ifconfig 1 del {addr(0)}")[0] == 0
    res, out = s.shell(0, f"ping {addr(N - 1)} -c 3 -s 8 -i 1000")
    assert res == 0, out
    s.run(s.now + 6)
    out += s.output(0)
    assert "3 packets transmitted, 0 received" in out, out
    assert s.counters(1)["ipv6.rx_drop_scope"] == 3
    assert s.counters(1)["ipv6.rx_forwarded"] == 0
    assert s.counters(N - 1)["ipv6.rx_delivered"] == 0
    assert s.counters(0)["icmpv6.rx_errors"] >= 1
