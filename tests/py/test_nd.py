"""Neighbor discovery on a 6LoWPAN link (RFC 4861/4862/6775): a router
advertises a prefix and a compression context; hosts solicit, configure
addresses (SLAAC), register them (ARO), and reach each other through the
router by global address. A flood of solicitations cannot evict
registrations."""
import re
import struct

from test_adversarial_6lo import fcs

PREFIX = "2001:db8:1::"
ROUTER = 0


def star(sim_factory, hosts=3, seed=5):
    s = sim_factory(seed)
    s.add_node(0, 0)
    for i in range(hosts):
        s.add_node(10, 10 * i)
    for i in range(1, hosts + 1):
        s.set_link(ROUTER, i)
        s.set_link(i, ROUTER)
    for i in range(hosts + 1):
        s.set_cca(i, True)
    assert s.shell(ROUTER, f"nib prefix add {PREFIX}/64 ctx 1")[0] == 0
    for i in range(1, hosts + 1):
        assert s.shell(i, "nib rs")[0] == 0
        s.run(s.now + 0.05)
    s.run(s.now + 3)
    return s


def addrs(s, node):
    return re.findall(r"inet6 addr: (\S+)/\d+  scope: (\w+)( TENTATIVE)?", s.shell(node, "ifconfig")[1])


def test_hosts_configure_and_register_addresses(sim_factory):
    s = star(sim_factory)
    for h in (1, 2, 3):
        a = [x for x in addrs(s, h) if x[1] == "global"]
        assert a == [(f"2001:db8:1::ff:fe00:{h}", "global", "")], addrs(s, h)
        out = s.shell(h, "nib")[1]
        assert "fe80::ff:fe00:0 lladdr 00:00 ROUTER" in out, out
        assert "registrations ok 1" in out, out
        assert "default" in s.shell(h, "fib")[1]
    out = s.shell(ROUTER, "nib")[1]
    assert out.count("REGISTERED") == 3, out
    assert "aro ok 3" in out
    # the context arrived: hosts compress the prefix (SAC/DAC=1 with CID 1)
    c = s.counters(1)
    assert c["6lowpan.tx_datagrams"] >= 1


def test_ping_by_global_address_through_the_router(sim_factory):
    s = star(sim_factory)
    res, out = s.shell(1, "ping 2001:db8:1::ff:fe00:3 -c 3 -s 50 -i 300")
    assert res == 0
    s.run(s.now + 4)
    out += s.output(1)
    assert "3 packets transmitted, 3 received" in out, out
    res, out = s.shell(2, "ping 2001:db8:1::ff:fe00:0 -c 2 -i 300")
    s.run(s.now + 4)
    out += s.output(2)
    assert "2 received" in out, out


def test_solicitation_flood_keeps_registrations(sim_factory):
    s = star(sim_factory)
    # 500 NS from spoofed link-local sources, each with an SLLAO: every one
    # would create a neighbor cache entry (RFC 4861 7.2.3)
    seq = 0
    for i in range(500):
        src = bytes.fromhex("fe80000000000000") + struct.pack(">Q", 0x1000 + i)
        dst = bytes.fromhex("ff0200000000000000000001ff000000")
        target = bytes.fromhex("fe800000000000000000000000000000")  # router's link-local
        target = target[:11] + b"\xff\xfe\x00\x00\x00"
        sllao = b"\x01\x01" + struct.pack(">H", 0x1000 + i) + bytes(4)
        body = struct.pack(">BBHI", 135, 0, 0, 0) + target + sllao
        pseudo = src + dst + struct.pack(">I", len(body)) + b"\x00\x00\x00\x3a"
        total = 0
        data = pseudo + body
        for k in range(0, len(data), 2):
            total += (data[k] << 8) | data[k + 1]
        while total >> 16:
            total = (total & 0xFFFF) + (total >> 16)
        body = body[:2] + struct.pack(">H", ~total & 0xFFFF) + body[4:]
        ip6 = struct.pack(">IHBB", 0x60000000, len(body), 58, 255) + src + dst
        seq = (seq + 1) & 0xFF
        mhr = struct.pack("<HBHHH", 0x8841, seq, 0x23, 0xFFFF, 0x1000 + i)
        payload = b"\x41" + ip6 + body
        assert s.inject(ROUTER, mhr + payload + fcs(mhr + payload)) == 0
        s.run(s.now + 0.002)
    out = s.shell(ROUTER, "nib")[1]
    assert out.count("REGISTERED") == 3, out          # registrations survive
    assert int(re.search(r"cache replaced (\d+)", out).group(1)) > 400
    assert int(re.search(r"tx rs \d+ ra \d+ ns \d+ na (\d+)", out).group(1)) >= 500
    # the router's answers to the flood drain from its send queue (without
    # link-layer retries a frame meeting that backlog would be lost)
    s.run(s.now + 2)
    res, out = s.shell(1, "ping 2001:db8:1::ff:fe00:2 -c 2 -i 300")
    s.run(s.now + 4)
    out += s.output(1)
    assert "2 received" in out, out
