"""Floating and grounded DODAGs (RFC 6550 3.2.4, 8.2.2.5; RFC 6552 4.2):
on a line whose grounded root goes out of reach, the router next to it
detaches and roots a floating DODAG (G clear on the wire, its own address as
DODAGID), the rest of the line follows it and its nodes reach each other;
when the grounded root is heard again every node leaves the floating DODAG
for it (the floating root gives its role up) and the root reaches every
node again."""
import re

import pytest

from conftest import tshark_fields
from test_rpl_sim import (PREFIX, _quiesce, build, line_links, line_scenario,  # noqa: F401
                          ping, rpl_state)
from wren import scenario
from wren.scenario import ScenarioError


def links_of(s, node, n, up):
    for k in range(n):
        if k != node and abs(k - node) == 1:
            if up:
                s.set_link(node, k, 1.0)
                s.set_link(k, node, 1.0)
            else:
                s.remove_link(node, k)
                s.remove_link(k, node)


def wait_for(s, cond, limit):
    t0 = s.now
    while not cond() and s.now < t0 + limit:
        s.run(s.now + 1)
    return cond()


@pytest.mark.parametrize("mode", ["storing", "non-storing"])
def test_rpl_line_floats_without_its_root_and_rejoins_it(sim_factory, tmp_path, mode):
    n = 5
    s = sim_factory(3)
    pcap = tmp_path / "float.pcap"
    build(s, n, line_links(n), pcap=pcap, mode=mode)
    s.run(60)
    st = [rpl_state(s, i) for i in range(n)]
    root, first = st[0]["addr"], st[1]["addr"]
    assert all(x["joined"] for x in st[1:]) and " grounded " in st[4]["out"], st[4]["out"]
    assert ping(s, 0, st[4]["addr"]) == 3
    # the root goes out of reach; the far end keeps sending to it, so node 1
    # sees its parent stop acknowledging, detaches and floats
    links_of(s, 0, n, up=False)
    t_off = s.now
    assert s.shell(4, f"ping {root} -c 25 -i 1000")[0] == 0

    def floating():
        sts = [rpl_state(s, i) for i in range(1, n)]
        return ("role root (floating" in sts[0]["out"] and
                all(f"dodag {first} floating" in x["out"] for x in sts))
    assert wait_for(s, floating, 120), [rpl_state(s, i)["out"] for i in range(1, n)]
    print(f"\n  {mode}: a floating DODAG rooted at node 1 holds nodes 1-4 "
          f"{s.now - t_off:.0f} s after the root went")
    c = [s.counters(i) for i in range(n)]
    assert c[1]["rpl.float_formed"] == 1 and c[1]["rpl.detached"] >= 1
    # one floating DODAG: the others followed node 1 rather than float their own
    assert [c[i]["rpl.float_formed"] for i in (2, 3, 4)] == [0, 0, 0], c
    # the floating DODAG routes among its nodes: both ends, and its root to all
    # (a frame may collide with the DIOs and DAOs of the new DODAG: one echo
    # of three may go; without routes none would come back)
    s.run(max(s.now + 5, t_off + 30))  # (node 4's pings to the root are over)
    s.output(4)
    # the floating root learns every node from the DAOs sent to it
    below = {f"{st[i]['addr']}/128" for i in (2, 3, 4)}
    assert wait_for(s, lambda: {t for t, _ in rpl_state(s, 1)["routes"]} >= below, 60), \
        rpl_state(s, 1)["out"]
    assert ping(s, 4, st[2]["addr"]) >= 2
    assert ping(s, 2, st[4]["addr"]) >= 2
    for i in (2, 3, 4):
        assert ping(s, 1, st[i]["addr"]) >= 2, (i, rpl_state(s, 1)["out"])
    # the grounded root is heard again: everyone rejoins it
    links_of(s, 0, n, up=True)
    t_on = s.now

    def grounded():
        sts = [rpl_state(s, i) for i in range(1, n)]
        return all(f"dodag {root} grounded" in x["out"] and x["joined"] and
                   "role router" in x["out"] for x in sts)
    assert wait_for(s, grounded, 120), [rpl_state(s, i)["out"] for i in range(1, n)]
    print(f"  {mode}: every node back in the grounded DODAG {s.now - t_on:.0f} s after the "
          f"root was heard again")
    c = [s.counters(i) for i in range(n)]
    assert all(c[i]["rpl.float_rejoin"] >= 1 for i in range(1, n)), c
    assert c[1]["rpl.float_formed"] == 1
    # DAOs go to the grounded root again: it reaches every node
    want = {f"{st[i]['addr']}/128" for i in range(1, n)}
    assert wait_for(s, lambda: {t for t, _ in rpl_state(s, 0)["routes"]} >= want, 60), \
        rpl_state(s, 0)["out"]
    s.run(s.now + 5)
    for i in range(1, n):
        assert ping(s, 0, st[i]["addr"]) >= 2, (i, rpl_state(s, 0)["out"])
    assert ping(s, 4, root) >= 2
    s.close()  # flushes the capture
    # on the wire: node 1's DIOs after the root went carry G clear and its own
    # address as DODAGID; the root's carry G set throughout
    rows = tshark_fields(pcap, "ipv6.src", "icmpv6.rpl.dio.flag.g", "icmpv6.rpl.dio.dagid",
                         "icmpv6.rpl.dio.rank", extra=["-Y", "icmpv6.code == 1"])
    float_dios = [r for r in rows if r[2] == first]
    assert float_dios and all(r[1] in ("0", "False") for r in float_dios), rows[-10:]
    assert any(r[0].startswith("fe80::") and r[3] == "256" for r in float_dios)
    grounded_dios = [r for r in rows if r[2] == root]
    assert grounded_dios and all(r[1] in ("1", "True") for r in grounded_dios)
    # (every DIO is one of the two DODAGs)
    assert len(float_dios) + len(grounded_dios) == len(rows)


def test_rpl_nofloat_router_and_floating_root_config(sim_factory):
    """`rpl router nofloat` detaches without floating (it joins the floating
    DODAG its child then roots); `rpl root ... floating` announces G clear
    and the shell says so."""
    n = 3
    s = sim_factory(4)
    build(s, n, line_links(n))
    assert s.shell(1, "rpl router nofloat")[0] == 0
    assert s.shell(0, f"rpl root {PREFIX} floating")[0] == 0
    s.run(40)
    st = [rpl_state(s, i) for i in range(n)]
    assert re.search(r"dodag \S+ floating", st[0]["out"]), st[0]["out"]
    assert all(f"dodag {st[0]['addr']} floating" in x["out"] for x in st[1:])
    links_of(s, 0, n, up=False)
    assert s.shell(2, f"ping {st[0]['addr']} -c 30 -i 1000")[0] == 0
    assert wait_for(s, lambda: not rpl_state(s, 1)["joined"], 90), rpl_state(s, 1)["out"]
    # node 2, whose parent poisoned and did not float, floats its own after
    # a wait; node 1 joins it rather than float itself
    assert wait_for(s, lambda: rpl_state(s, 1)["joined"], 30), rpl_state(s, 1)["out"]
    assert s.counters(1)["rpl.float_formed"] == 0
    assert f"dodag {st[2]['addr']} floating" in rpl_state(s, 1)["out"]
    assert s.counters(2)["rpl.float_formed"] == 1
    assert "role root (floating" in rpl_state(s, 2)["out"]
    s.run(s.now + 30)
    s.output(2)  # (the pings to the lost root)
    assert ping(s, 2, st[1]["addr"]) == 3
    res, out = s.shell(0, "rpl router sideways")
    assert res != 0 and "usage" in out


def test_rpl_scenario_grounded_and_floating_keys():
    """[rpl] grounded/floating become the shell's words; defaults: a grounded
    root, routers that may float."""
    cmds = dict(scenario._rpl_commands(scenario.Rpl(root=[0], leaves=[2]), 4))
    assert cmds[0].endswith(" grounded") and cmds[1] == "rpl router" and cmds[2] == "rpl leaf"
    cmds = dict(scenario._rpl_commands(scenario.Rpl(root=[0], grounded=False, floating=False), 2))
    assert cmds[0].endswith(" floating") and cmds[1] == "rpl router nofloat"
    with pytest.raises(ScenarioError) as e:
        scenario.parse(line_scenario(root=0, grounded="yes"), source="t.toml")
    assert "grounded" in str(e.value) and "\n" not in str(e.value), str(e.value)
    # a scenario run: the root's DIOs say floating, the routers follow it
    sc = line_scenario(root=0, grounded=False)
    sc["shell"] = [{"at": 50.0, "node": 3, "cmd": "rpl"}]
    res = scenario.run(sc, progress=False)
    assert not res.get("failed"), res.get("failed")
    assert re.search(r"dodag 2001:db8::\S+ floating", res["nodes"][3]["shell"]), \
        res["nodes"][3]["shell"]
    assert all(nd["counters"]["rpl.joined"] == 1 for nd in res["nodes"][1:])
