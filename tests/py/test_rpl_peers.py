"""RPL with roots and peers that behave as other stacks do (issue 23, 2).

- A root that puts the DODAG configuration option in its first DIOs only and
  in the unicast DIOs answering a unicast DIS (RIOT's GNRC and Contiki-NG do;
  RFC 6550 6.3.1 allows it, 8.3 makes the unicast answer carry it). In the
  simulator the peer root is a wren root told so (`rpl dio-config N`, SET
  WREN_NETOPT_RPL_DIO_CONFIG): what is tested is the joining node, which
  comes up after the root's first DIOs are gone and must join anyway.
- A node told to expect storing mode (`rpl router storing`, as RIOT's RPL is
  storing-only) next to a non-storing DODAG: it says so and does not join;
  one that does not know (a storing-only stack that joins non-storing
  DODAGs, as RIOT's does) has its link-local DAOs refused with a DAO-ACK of
  a rejecting status, counted at the refusing node: that peer is hand-made
  DAO bytes in tests/unit/rpl/test_rpl.c."""
import re

import pytest

from conftest import tshark_fields
from test_rpl_sim import _built, _quiesce, build, line_links, ping, rpl_state  # noqa: F401


def test_rpl_joins_root_that_omits_config(sim_factory):
    s = sim_factory(3)
    n = 3
    build(s, n, line_links(n))
    # build() gave every node its role at once: take the routers' back, let
    # the root (DIOs with the configuration: its first 2 only) run a while
    for i in range(1, n):
        assert s.shell(i, "rpl off")[0] == 0
    assert s.shell(0, "rpl dio-config 2")[0] == 0
    assert s.shell(0, "rpl root 2001:db8::/64")[0] == 0
    s.run(s.now + 60)
    c0 = s.counters(0)
    assert c0["rpl.tx_dio"] > 2
    for i in range(1, n):
        assert s.shell(i, "rpl router")[0] == 0
    s.run(s.now + 60)
    st = [rpl_state(s, i) for i in range(n)]
    for i in range(1, n):
        c = s.counters(i)
        assert st[i]["joined"], st[i]["out"]
        assert c["rpl.rx_drop_malformed"] == 0, st[i]["out"]
        # node 1 heard the root's DIOs without the option and asked; node
        # 2 may have too (node 1's DIOs carry it: wren sends it always)
        assert c["rpl.dio_no_config"] >= (1 if i == 1 else 0), st[i]["out"]
        assert c["rpl.dis_unicast_tx"] >= (1 if i == 1 else 0), st[i]["out"]
        # the asking stayed rate-limited: a DIS per 3 s at most
        assert c["rpl.dis_unicast_tx"] <= 60 // 3 + 2
    assert ping(s, 2, st[0]["addr"]) == 3
    assert ping(s, 0, st[2]["addr"]) == 3


def test_rpl_expected_mode_shown(sim_factory):
    s = sim_factory(1)
    build(s, 2, line_links(2), mode="non-storing")
    assert s.shell(1, "rpl router storing")[0] == 0
    s.run(s.now + 60)
    st = rpl_state(s, 1)
    assert not st["joined"], st["out"]
    assert "expects storing mode; heard a non-storing DODAG" in st["out"], st["out"]
    assert s.counters(1)["rpl.dio_mop_mismatch"] >= 1
    res, out = s.shell(1, "rpl router storing bogus")
    assert res != 0 and "unknown option 'bogus'" in out



def _mesh_with_leaf(s, mode):
    """0 root; 1 a router below it; 3 a router beside it (a RPL node of the
    mesh); 2 a host on 1's link with no rpl module: ND only (solicits,
    takes 1's prefix from its RA, registers with ARO)."""
    _built.append((s, 4))
    for i in range(2):
        s.add_node(10.0 * i, 0)
    s.set_modules([m for m in s.module_names() if m != "rpl"])
    s.add_node(20.0, 0)
    s.set_modules(None)
    s.add_node(-10.0, 0)
    for a, b in ((0, 1), (1, 2), (0, 3)):
        s.set_link(a, b, 1.0)
        s.set_link(b, a, 1.0)
    for i in range(4):
        s.set_cca(i, True)
    m = "nonstoring" if mode == "non-storing" else "storing"
    assert s.shell(0, f"rpl root 2001:db8::/64 {m}")[0] == 0
    for i in (1, 3):
        assert s.shell(i, "rpl router")[0] == 0
    s.run(s.now + 40)
    assert s.shell(2, "nib rs")[0] == 0
    s.run(s.now + 10)


@pytest.mark.parametrize("mode", ["storing", "non-storing"])
def test_rpl_unaware_leaf_routed_without_static_routes(sim_factory, tmp_path, mode):
    s = sim_factory(1)
    pcap = tmp_path / "rul.pcap"
    s.open_pcap(pcap)
    _mesh_with_leaf(s, mode)
    host = re.search(r"(2001:db8::\S+)", s.shell(2, "ifconfig")[1])
    assert host, s.shell(2, "ifconfig")[1]
    host = host.group(1).split("/")[0]
    st1 = rpl_state(s, 1)
    assert re.search(rf"^leaf {re.escape(host)} iface \d+ expires \d+s announced$", st1["out"],
                     re.M), st1["out"]
    st0 = rpl_state(s, 0)
    assert any(t == f"{host}/128" and v == st1["addr"] for t, v in st0["routes"]), st0["out"]
    assert "external (tunnel)" in st0["out"]
    # the root and a node of the mesh reach the host, the host reaches them
    assert ping(s, 0, host) == 3
    assert ping(s, 2, st0["addr"]) == 3
    st3 = rpl_state(s, 3)
    assert ping(s, 3, host) == 3
    assert ping(s, 2, st3["addr"]) == 3
    c0, c1 = s.counters(0), s.counters(1)
    assert c0["rpl.rx_dao_external"] >= 1 and c1["rpl.tx_dao_rul"] >= 1
    assert c0["ipv6.tx_tunnel"] >= 6 and c1["ipv6.rx_decap"] >= 6
    # and up: the host's requests leave its 6LR in a tunnel to the root, which
    # carries the RPI the host gave none of (RFC 9008 7.2.x, 8.2.x)
    assert c1["ipv6.tx_tunnel"] >= 6 and c0["ipv6.rx_decap"] >= 6, (c0, c1)
    # node 3's requests kept its RPI inside the tunnel (RFC 9008 7.3.2, 8.3.2):
    # the 6LR took it off before the host
    assert c1["ipv6.tx_rpi_removed"] >= 3
    assert s.counters(2)["nib.reg_ok"] >= 1
    s.close()
    # nothing reaches the host with a hop-by-hop header (RFC 9008: a leaf
    # built without extension headers, as RIOT's examples are, drops them)
    rows = tshark_fields(pcap, "wpan.dst16", "wpan.dst64", "ipv6.nxt", "ipv6.dst",
                         extra=["-Y", f"ipv6.dst == {host}"])
    to_host = [r for r in rows if r[0] == "0x0002" or r[1].endswith(":00:00:02")]
    assert len(to_host) >= 6, rows  # the echo requests of the root's and node 3's pings
    for r in to_host:
        assert r[2].split(",") == ["58"] and r[3] == host, r  # ICMPv6 right after IPv6


def test_rpl_unaware_leaf_expiry_withdrawn(sim_factory):
    """The host goes away: its registration runs out at the 6LR, which
    withdraws it with a no-path DAO before the root's route would have
    expired by itself (the path lifetime covers the registration's and one
    lifetime unit more)."""
    s = sim_factory(2)
    _mesh_with_leaf(s, "storing")
    host = re.search(r"(2001:db8::\S+)", s.shell(2, "ifconfig")[1]).group(1).split("/")[0]
    assert any(t == f"{host}/128" for t, _ in rpl_state(s, 0)["routes"])
    registered = s.now - 10  # (the host registered within the last 10 s)
    s.remove_link(1, 2)
    s.remove_link(2, 1)
    s.run(registered + 15 * 60 - 5)
    assert any(t == f"{host}/128" for t, _ in rpl_state(s, 0)["routes"])
    s.run(registered + 15 * 60 + 30)
    assert not any(t == f"{host}/128" for t, _ in rpl_state(s, 0)["routes"]), \
        rpl_state(s, 0)["out"]
    assert s.counters(1)["rpl.rul_removed"] == 1
    assert s.counters(0)["rpl.route_no_path"] >= 1
