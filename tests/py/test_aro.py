"""Address registration against a wren router (RFC 6775, RFC 8505), with
NSs built by scapy and injected into the router's radio as 802.15.4 frames
from hosts that are not nodes. Both forms are taken:

  - RFC 6775 (5.5.1, 6.5): the registered address is the NS's IPv6 source;
    RIOT's hosts put the router's own address in the target;
  - RFC 8505 (5.5): an EARO (T flag, with a transaction id) registers the
    target, whatever the source (here the host's link-local address);

and the refusals: another EUI-64 claiming a registered address (duplicate,
answered at the claimant's link-local address, never the owner's), and an
NS registering the router's own address (dropped, counted invalid). What
the router answers is read off the capture by tshark."""
import ipaddress
import re
import struct

import pytest

from conftest import tshark_fields
from test_adversarial_6lo import fcs
from wren.addr import addr, eui64

scapy = pytest.importorskip("scapy")

from scapy.layers.inet6 import IPv6, ICMPv6ND_NS  # noqa: E402
from scapy.packet import Raw  # noqa: E402

PREFIX = "2001:db8:1::"
ROUTER = 0
H1 = bytes.fromhex("02aa000000000001")   # hosts' EUI-64s (U/L bit set)
H2 = bytes.fromhex("02aa000000000002")
H3 = bytes.fromhex("02aa000000000003")


def iid_addr(prefix, eui):
    p = ipaddress.IPv6Address(prefix).packed[:8]
    return str(ipaddress.IPv6Address(p + bytes([eui[0] ^ 2]) + eui[1:]))


def sllao(eui):
    # RFC 4944 8: an EUI-64 in an option of two units, six bytes of padding
    return bytes([1, 2]) + eui + bytes(6)


def aro(eui, lifetime=15, tid=None):
    # RFC 6775 4.1 ARO, or RFC 8505 4.1 EARO with the T flag and a TID
    flags, t = (0x01, tid) if tid is not None else (0, 0)
    return struct.pack(">BBBBBBH", 33, 2, 0, 0, flags, t, lifetime) + eui


def ns_frame(seq, src_eui, src, dst, target, opts):
    """One uncompressed 6LoWPAN frame (dispatch 0x41) from @src_eui to the
    router's EUI-64, carrying the NS scapy builds (its checksum scapy's)."""
    ip6 = bytes(IPv6(src=src, dst=dst, hlim=255) / ICMPv6ND_NS(tgt=target) / Raw(opts))
    mhr = struct.pack("<HBH", 0xCC41, seq, 0x23) + eui64(ROUTER)[::-1] + src_eui[::-1]
    payload = b"\x41" + ip6
    return mhr + payload + fcs(mhr + payload)


def router(sim_factory, pcap):
    s = sim_factory(4)
    s.add_node(0, 0)
    s.open_pcap(str(pcap))
    assert s.shell(ROUTER, f"nib prefix add {PREFIX}/64 ctx 1")[0] == 0
    return s


def nib(s):
    out = s.shell(ROUTER, "nib")[1]
    reg = dict(re.findall(r"neighbor (\S+) lladdr (\S+) REGISTERED", out))
    return out, reg, s.counters(ROUTER)


def test_router_takes_both_forms_and_refuses_duplicates_and_its_own(tmp_path, sim_factory):
    pcap = tmp_path / "aro.pcap"
    s = router(sim_factory, pcap)
    r_ll, r_global = addr("fe80::", ROUTER), addr(PREFIX, ROUTER)
    g1, g2 = iid_addr(PREFIX, H1), iid_addr(PREFIX, H2)
    h2_ll = iid_addr("fe80::", H2)
    # RFC 6775 as RIOT sends it: source the address to register, target the
    # router's link-local address
    f = ns_frame(1, H1, g1, r_ll, r_ll, sllao(H1) + aro(H1))
    assert s.inject(ROUTER, f) == 0
    s.run(s.now + 0.1)
    out, reg, c = nib(s)
    assert reg.get(g1) == H1.hex(":"), out
    assert c["nib.aro_ok"] == 1 and c["nib.aro_rx_6775"] == 1 and c["nib.aro_rx_8505"] == 0, c
    assert r_ll not in reg
    # RFC 8505: from the link-local address, registering the target (EARO)
    f = ns_frame(2, H2, h2_ll, r_ll, g2, sllao(H2) + aro(H2, tid=7))
    assert s.inject(ROUTER, f) == 0
    s.run(s.now + 0.1)
    out, reg, c = nib(s)
    assert reg.get(g2) == H2.hex(":") and h2_ll not in reg, out
    assert c["nib.aro_ok"] == 2 and c["nib.aro_rx_8505"] == 1, c
    # as wren's own hosts send it: source and target the same (either form)
    g3 = iid_addr(PREFIX, H3)
    f = ns_frame(3, H3, g3, r_ll, g3, sllao(H3) + aro(H3))
    assert s.inject(ROUTER, f) == 0
    s.run(s.now + 0.1)
    out, reg, c = nib(s)
    assert reg.get(g3) == H3.hex(":"), out
    assert c["nib.aro_ok"] == 3 and c["nib.aro_rx_6775"] == 1 and c["nib.aro_rx_8505"] == 1, c
    # duplicate: H3 claims H1's address, in the RFC 6775 form; H1 keeps it
    f = ns_frame(4, H3, g1, r_ll, r_ll, sllao(H3) + aro(H3))
    assert s.inject(ROUTER, f) == 0
    s.run(s.now + 0.1)
    out, reg, c = nib(s)
    assert c["nib.aro_dup"] == 1 and reg.get(g1) == H1.hex(":"), out
    # ... and in the RFC 8505 form
    f = ns_frame(5, H3, iid_addr("fe80::", H3), r_ll, g2, sllao(H3) + aro(H3, tid=1))
    assert s.inject(ROUTER, f) == 0
    s.run(s.now + 0.1)
    out, reg, c = nib(s)
    assert c["nib.aro_dup"] == 2 and reg.get(g2) == H2.hex(":"), out
    # nobody registers the router's own address (either form)
    inv = c["nib.rx_invalid"]
    for seq, (src, tgt, tid) in enumerate(((r_global, r_ll, None), (h2_ll, r_global, 9))):
        f = ns_frame(6 + seq, H2, src, r_ll, tgt, sllao(H2) + aro(H2, tid=tid))
        assert s.inject(ROUTER, f) == 0
        s.run(s.now + 0.1)
    out, reg, c = nib(s)
    assert c["nib.rx_invalid"] == inv + 2 and r_global not in reg, out
    assert c["nib.aro_ok"] == 3 and c["nib.aro_dup"] == 2, c
    s.close()
    # the router's NAs: success to the registered address (6775: the NS's
    # source, target copied) or the NS's source (8505), status 0; the
    # refusals to the claimant's link-local address (from its EUI-64), never
    # the owner's, status 1 (duplicate)
    # (each NA on the air up to four times: nobody here acknowledges; the
    # context the router compresses the prefix with told to tshark)
    rows = tshark_fields(pcap, "wpan.seq_no", "ipv6.dst", "icmpv6.nd.na.target_address",
                         "icmpv6.opt.aro.status", "wpan.dst64",
                         extra=["-Y", "icmpv6.type == 136",
                                "-o", f"6lowpan.context1:{PREFIX}/64"])
    rows = list({r[0]: r[1:] for r in rows}.values())
    h3_ll = iid_addr("fe80::", H3)
    want = [(g1, r_ll, "0", H1), (h2_ll, g2, "0", H2), (g3, g3, "0", H3),
            (h3_ll, r_ll, "1", H3), (h3_ll, g2, "1", H3)]
    assert [(d, t, st, bytes.fromhex(l2.replace(":", ""))) for d, t, st, l2 in rows] == want, rows


def test_host_registers_with_source_and_target_the_same(tmp_path, sim_factory):
    """As a host, wren's NS+ARO has the registered address as both its
    source and its target, which RFC 6775 routers (the source) and RFC 8505
    ones (the target) read alike; its SLLAO and ARO carry its EUI-64."""
    pcap = tmp_path / "host.pcap"
    s = router(sim_factory, pcap)
    s.add_node(10, 0)
    s.set_link(0, 1)
    s.set_link(1, 0)
    assert s.shell(1, "nib rs")[0] == 0
    s.run(s.now + 2)
    g = addr(PREFIX, 1)
    assert f"inet6 addr: {g}/64  scope: global\n" in s.shell(1, "ifconfig")[1]
    s.close()
    rows = tshark_fields(pcap, "ipv6.src", "icmpv6.nd.ns.target_address", "icmpv6.opt.aro.eui64",
                         "icmpv6.opt.linkaddr",
                         extra=["-Y", "icmpv6.type == 135 && icmpv6.opt.type == 33",
                                "-o", f"6lowpan.context1:{PREFIX}/64"])
    assert rows, "no registration captured"
    for src, target, eui, lladdr in rows:
        assert src == target == g, rows
        assert eui.replace(":", "") == eui64(1).hex() == lladdr.replace(":", ""), rows
