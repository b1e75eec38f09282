"""Neighbor discovery on a 6LoWPAN link (RFC 4861/4862/6775): a router
advertises a prefix and a compression context; hosts solicit, configure
addresses (SLAAC), register them (ARO), and reach each other through the
router by global address. A flood of solicitations cannot evict
registrations."""
import ipaddress
import re
import struct

from conftest import tshark_fields
from test_adversarial_6lo import fcs
from wren.addr import addr, eui64

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
        # RFC 4944 6: SLAAC from the EUI-64, not from the short address
        assert a == [(addr(PREFIX, h), "global", "")], addrs(s, h)
        out = s.shell(h, "nib")[1]
        router_l2 = ":".join(f"{b:02x}" for b in eui64(ROUTER))
        assert f"{addr('fe80::', ROUTER)} lladdr {router_l2} ROUTER" in out, out
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
    res, out = s.shell(1, f"ping {addr(PREFIX, 3)} -c 3 -s 50 -i 300")
    assert res == 0
    s.run(s.now + 4)
    out += s.output(1)
    assert "3 packets transmitted, 3 received" in out, out
    res, out = s.shell(2, f"ping {addr(PREFIX, ROUTER)} -c 2 -i 300")
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
        target = ipaddress.IPv6Address(addr("fe80::", ROUTER)).packed  # router's link-local
        dst = bytes.fromhex("ff0200000000000000000001ff") + target[13:]  # solicited-node
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
    res, out = s.shell(1, f"ping {addr(PREFIX, 2)} -c 2 -i 300")
    s.run(s.now + 4)
    out += s.output(1)
    assert "2 received" in out, out


def test_eui64_addresses_reach_without_neighbour_entries_and_iphc_elides_them(tmp_path,
                                                                           sim_factory):
    """RFC 4944 6: a node's link-local address is made of its EUI-64, which
    its frames come from; a neighbour that knows only that address reaches
    it (the link address from the IID, the U/L bit flipped back: no
    solicitation, no static entry), and IPHC elides both IIDs against the
    extended MAC addresses (RFC 6282 3.2.2: SAM = DAM = 3)."""
    pcap = tmp_path / "eui.pcap"
    s = sim_factory(3)
    s.add_node(0, 0)
    s.add_node(10, 0)
    s.set_link(0, 1)
    s.set_link(1, 0)
    s.open_pcap(str(pcap))
    out = s.shell(1, "ifconfig")[1]
    assert f"Long HWaddr: {':'.join(f'{b:02x}' for b in eui64(1))}" in out, out
    assert f"inet6 addr: {addr('fe80::', 1)}/64  scope: link" in out, out
    res, out = s.shell(0, f"ping {addr('fe80::', 1)} -c 2 -s 20 -i 200")
    assert res == 0
    s.run(s.now + 2)
    out += s.output(0)
    assert "2 packets transmitted, 2 received" in out, out
    for n in (0, 1):
        assert "lladdr" not in s.shell(n, "nib")[1]  # no neighbour entry needed
    s.close()
    rows = tshark_fields(pcap, "wpan.src64", "wpan.dst64", "6lowpan.iphc.sam",
                         "6lowpan.iphc.dam", "ipv6.src", "ipv6.dst", "icmpv6.type",
                         extra=["-Y", "icmpv6"])
    eui = [":".join(f"{b:02x}" for b in eui64(n)) for n in (0, 1)]
    ll = [addr("fe80::", n) for n in (0, 1)]
    assert sorted(r[6] for r in rows) == ["128", "128", "129", "129"], rows
    for src64, dst64, sam, dam, src, dst, typ in rows:
        a, b = (0, 1) if typ == "128" else (1, 0)
        assert (src64, dst64) == (eui[a], eui[b]), rows
        assert (src, dst) == (ll[a], ll[b]), rows
        assert int(sam, 16) == int(dam, 16) == 3, rows  # both IIDs from the MAC header
