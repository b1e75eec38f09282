"""Every 6LR relays the ABRO it learned, wren's RPL routers included (RFC
6775 8.1; issue 23, section 3), in the simulator:

    node 0: 6LBR (nib prefix add, nib abro) and RPL root of the prefix
    node 1, 2: RPL routers, hence 6LRs of the DODAG's prefix
    node 3: a host that runs no RPL (a RPL-unaware leaf, RFC 9010)

on a line 0 - 1 - 2 - 3 (each node hears only its neighbours). A RPL
router answers solicitations with RAs carrying the DODAG's prefix (PIO),
the contexts it holds (6CO, learned from RAs) and the ABRO it learned,
with the 6LBR's version and address; hosts, RIOT's among them, take no RA
without one. A new ABRO version goes hop by hop to the host (each router
that learns it announces it with multicast RAs); an RA carrying an older
version than the one kept is stale, its prefixes and contexts not taken.
What the routers sent is read off the capture by tshark.
"""
import re

from conftest import tshark_fields
from wren.addr import addr, ll

PREFIX = "2001:db8:5::"
BR, R1, R2, HOST = 0, 1, 2, 3


def sh(s, node, cmd):
    res, out = s.shell(node, cmd)
    assert res == 0, f"{cmd}: {out}"
    return out


def chain(sim_factory, pcap):
    """The line with its DODAG formed (no ABRO anywhere yet)."""
    s = sim_factory(7)
    for i in range(4):
        s.add_node(10.0 * i, 0)
    for a, b in ((0, 1), (1, 2), (2, 3)):
        s.set_link(a, b)
        s.set_link(b, a)
    for i in range(4):
        s.set_cca(i, True)
    s.open_pcap(str(pcap))
    sh(s, BR, f"nib prefix add {PREFIX}/64 ctx 0")
    sh(s, BR, f"rpl root {PREFIX}/64")
    sh(s, R1, "rpl router")
    sh(s, R2, "rpl router")
    s.run(s.now + 30)
    for r in (R1, R2):
        out = sh(s, r, "nib")
        assert "role: router (RPL 6LR)" in out, out
        assert f"prefix {PREFIX}/64 advertised (RPL's DODAG)" in out, out
    assert "role: host" in sh(s, HOST, "nib")
    return s


def quiesce(s):
    """A live DODAG always has frames somewhere: RPL off everywhere, 15 s
    more (a reassembly slot waits 10 s for a lost fragment), then every
    packet buffer must be empty (sim_factory checks again after 5 s)."""
    for i in range(4):
        sh(s, i, "rpl off")
    s.run(s.now + 15)
    assert s.pktbufs_clean()


def nib(s, node):
    out = sh(s, node, "nib")
    m = re.search(r"^abro (\S+) version (\d+)$", out, re.M)
    return out, (m.group(1), int(m.group(2))) if m else None


def ras_from(pcap, src):
    """(option types, ABRO version, ABRO address, PIO prefix, 6CO prefix) of
    each RA @src sent."""
    rows = tshark_fields(pcap, "ipv6.src", "icmpv6.opt.type", "icmpv6.opt.abro.version_low",
                         "icmpv6.opt.abro.version_high", "icmpv6.opt.abro.6lbr_address",
                         "icmpv6.opt.prefix", "icmpv6.opt.6co.context_prefix",
                         extra=["-Y", "icmpv6.type == 134", "-o", f"6lowpan.context0:{PREFIX}/64"])
    out = []
    for r in rows:
        if r[0] == src:
            ver = (int(r[3]) << 16 | int(r[2])) if r[2] else None
            out.append((set(r[1].split(",")), ver, r[4], r[5], r[6]))
    return out


def test_rpl_routers_relay_the_abro_and_its_new_version(tmp_path, sim_factory):
    pcap = tmp_path / "chain.pcap"
    s = chain(sim_factory, pcap)
    br_addr = addr(PREFIX, BR)
    sh(s, BR, "nib abro 1")     # the 6LBR: announced at once, hop by hop
    s.run(s.now + 20)
    for r in (R1, R2):
        out, abro = nib(s, r)
        assert abro == (br_addr, 1), out
        assert re.search(r"ra unsolicited [1-9]", out), out
    # the host solicits its 6LR, configures, registers (ARO) with it
    sh(s, HOST, "nib rs")
    s.run(s.now + 5)
    out, abro = nib(s, HOST)
    assert abro == (br_addr, 1), out
    assert f"{ll(R2)} lladdr" in out and "ROUTER" in out, out
    assert "registrations ok 1" in out, out
    assert f"inet6 addr: {addr(PREFIX, HOST)}/64  scope: global\n" in sh(s, HOST, "ifconfig")
    out = sh(s, R2, "nib")
    assert re.search(rf"neighbor {re.escape(addr(PREFIX, HOST))} .* REGISTERED", out), out
    # a new version from the 6LBR reaches the host, two 6LRs away
    sh(s, BR, "nib abro 2")
    s.run(s.now + 20)
    for n in (R1, R2, HOST):
        out, abro = nib(s, n)
        assert abro == (br_addr, 2), (n, out)
        assert "abro learned 2" in out, (n, out)
    # mistakes: one line each
    res, out = s.shell(BR, "nib abro 2")
    assert res != 0 and out.strip() == "error: nib abro: version 2 is not above 2 (6LRs keep " \
        "the higher)", out
    for n in (R1, HOST):   # a RPL 6LR's prefix is RPL's; a host has none
        res, out = s.shell(n, "nib abro 3")
        assert res != 0 and out.strip().startswith("error: nib abro: a border router "
                                                   "advertises a prefix of its own first"), out
    res, out = s.shell(BR, "nib abro x")
    assert res != 0 and "VERSION is a number" in out and len(out.strip().splitlines()) == 1, out
    quiesce(s)
    s.close()
    # R2's RAs: PIO (the DODAG's prefix), 6CO (the 6LBR's context 0,
    # learned through R1), ABRO (the 6LBR's version and address), SLLAO
    ras = ras_from(pcap, ll(R2))
    assert ras, "R2 sent no RA"
    for types, ver, abro_addr, pio, ctx in ras:
        assert {"1", "3", "34", "35"} <= types, ras
        assert abro_addr == br_addr and ver in (1, 2), ras
        assert pio == PREFIX and ctx.startswith(PREFIX.rstrip(":")), ras
    assert {r[1] for r in ras} == {1, 2}, ras
    # R1's too; every RA of the 6LBR carries its own
    assert all(r[2] == br_addr for r in ras_from(pcap, ll(R1))), ras_from(pcap, ll(R1))
    assert {r[1] for r in ras_from(pcap, ll(BR))} == {1, 2}


def test_a_6lr_without_the_abro_asks_for_it(tmp_path, sim_factory):
    """R2 missed R1's announcement (it heard nothing from R1 meanwhile);
    the host's solicitation makes R2 solicit the routers around it, whose
    answer brings the ABRO, which R2 then announces to the host."""
    pcap = tmp_path / "ask.pcap"
    s = chain(sim_factory, pcap)
    s.remove_link(R1, R2)
    sh(s, BR, "nib abro 1")
    s.run(s.now + 12)
    s.set_link(R1, R2)
    assert nib(s, R1)[1] == (addr(PREFIX, BR), 1)
    out, abro = nib(s, R2)
    assert abro is None and "tx rs 0" in out, out
    sh(s, HOST, "nib rs")
    s.run(s.now + 10)
    out, abro = nib(s, R2)
    assert abro == (addr(PREFIX, BR), 1) and "tx rs 1" in out, out
    out, abro = nib(s, HOST)
    assert abro == (addr(PREFIX, BR), 1), out
    quiesce(s)


def test_stale_abro_is_not_taken_and_contexts_follow_the_version(sim_factory, tmp_path):
    """The host keeps version 2; an RA with version 1 of the same 6LBR
    (from a router that has not caught up, or a replay) is counted stale and
    its context is not installed; one with version 2 is taken; version 3's
    RAs withdraw the context they no longer carry."""
    pcap = tmp_path / "stale.pcap"
    s = chain(sim_factory, pcap)
    sh(s, BR, "nib abro 2")
    sh(s, HOST, "nib rs")
    s.run(s.now + 20)
    assert nib(s, HOST)[1] == (addr(PREFIX, BR), 2)
    before = s.counters(HOST)
    s.inject(HOST, ra_frame(addr(PREFIX, BR), 1, ctx_cid=5))
    s.run(s.now + 1)
    c = s.counters(HOST)
    assert c["nib.abro_stale"] == before["nib.abro_stale"] + 1, c
    assert c["nib.rx_ra"] == before["nib.rx_ra"] + 1, c
    out, abro = nib(s, HOST)
    assert abro == (addr(PREFIX, BR), 2) and "contexts from RAs: 0\n" in out, out
    # the same RA with the version kept is taken: its context with it
    s.inject(HOST, ra_frame(addr(PREFIX, BR), 2, ctx_cid=5))
    s.run(s.now + 1)
    out, abro = nib(s, HOST)
    assert abro == (addr(PREFIX, BR), 2) and "contexts from RAs: 0 5\n" in out, out
    assert s.counters(HOST)["nib.abro_stale"] == before["nib.abro_stale"] + 1
    # a new version's RA lists every context: 5, which it does not carry,
    # is withdrawn (the contexts follow the ABRO's version)
    sh(s, BR, "nib abro 3")
    s.run(s.now + 20)
    out, abro = nib(s, HOST)
    assert abro == (addr(PREFIX, BR), 3) and "contexts from RAs: 0\n" in out, out
    quiesce(s)


def ra_frame(br_addr, version, ctx_cid):
    """An RA from R2's link-local address, uncompressed, in an 802.15.4
    frame from R2's EUI-64 to the host's: ABRO (@br_addr, @version) and a
    6CO for 2001:db8:99::/64 as context @ctx_cid."""
    import ipaddress
    import struct

    from test_adversarial_6lo import fcs
    from wren.addr import eui64
    src, dst = ll(R2), ll(HOST)
    abro = struct.pack(">BBHHH", 35, 3, version & 0xFFFF, version >> 16, 0) + \
        ipaddress.IPv6Address(br_addr).packed
    co = struct.pack(">BBBBHH", 34, 2, 64, 0x10 | ctx_cid, 0, 60) + \
        ipaddress.IPv6Address("2001:db8:99::").packed[:8]
    body = struct.pack(">BBHBBHII", 134, 0, 0, 64, 0, 1800, 0, 0) + co + abro
    pseudo = (ipaddress.IPv6Address(src).packed + ipaddress.IPv6Address(dst).packed +
              struct.pack(">IxxxB", len(body), 58) + body)
    total = sum(struct.unpack(f">{len(pseudo) // 2}H", pseudo))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    body = body[:2] + struct.pack(">H", ~total & 0xFFFF) + body[4:]
    ip6 = struct.pack(">IHBB", 0x60000000, len(body), 58, 255) + \
        ipaddress.IPv6Address(src).packed + ipaddress.IPv6Address(dst).packed
    mhr = struct.pack("<HBH", 0xCC41, 0x77, 0x23) + eui64(HOST)[::-1] + eui64(R2)[::-1]
    payload = b"\x41" + ip6 + body
    return mhr + payload + fcs(mhr + payload)
