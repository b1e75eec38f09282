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

from test_rpl_sim import _quiesce, build, line_links, ping, rpl_state  # noqa: F401


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

