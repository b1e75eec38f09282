"""The CoAP plugtest resources (src/coap/coap_plugtest.c) on simulated
nodes: the module is built into the simulator but opt-in (src/stack/
modules.h): a node runs it only where its scenario names it in [stack]
modules, so nodes that do not use it do not pay its memory. (The TDs
themselves run against wren-node: test_coap_plugtest.py, which is among
the host tests the sanitized stage runs against a sanitized wren-node; this
file loads the simulator library.)"""
import textwrap

from test_coap_sim import B_ADDR, coap, pair, parse
from wren import scenario

# two neighbours; node 1 names the plugtest among its modules
SCENARIO = """\
name = "plugtest"
seed = 1
duration = 1.0

[[nodes]]
x = 0.0
[[nodes]]
x = 10.0

[radio]
range = 15.0
cca = true

[stack]
modules = [{modules}]
"""


def build(tmp_path, modules):
    p = tmp_path / "pt.toml"
    p.write_text(textwrap.dedent(SCENARIO.format(modules=", ".join(f'"{m}"' for m in modules))))
    sim, _ = scenario.build(scenario.load(p))
    return sim


def test_plugtest_in_the_simulator(sim_factory, tmp_path):
    """A node whose scenario names coap_plugtest serves its resources: a
    neighbour's GET of /seg1/seg2/seg3 and of /.well-known/core?rt=Type2
    over 6LoWPAN, and the counters say so; a node nobody observes has no
    plugtest timer running."""
    probe = sim_factory()
    names = probe.module_names()
    assert "coap_plugtest" in names
    sim = build(tmp_path, names)
    try:
        res, out = sim.shell(1, "plugtest")
        assert res == 0 and "while observed (resting)" in out, out
        assert "coap_plugtest.req" in sim.counters(1)
    finally:
        sim.close()
    # over the air, with the addresses test_coap_sim's pair gives
    s, a, b = pair(sim_factory, modules=names)
    code, n, _, text = parse(coap(s, a, f"get {B_ADDR} /seg1/seg2/seg3")[0])
    assert (code, text) == ("2.05", "/seg1/seg2/seg3"), text
    code, n, _, text = parse(coap(s, a, f"get coap://[{B_ADDR}]/.well-known/core?rt=Type2")[0])
    assert code == "2.05" and text.startswith("</link1>") and "</link2>" in text, text
    assert s.counters(b)["coap_plugtest.req"] == 1
    res, out = s.shell(b, "plugtest")
    assert res == 0 and "while observed (resting)" in out, out


def test_plugtest_opt_in(sim_factory):
    """By default a simulated node does not run the plugtest (it is opt-in):
    no plugtest resources, counters or memory; the other modules as before."""
    s, a, b = pair(sim_factory)
    code, n, _, text = parse(coap(s, a, f"get {B_ADDR} /seg1/seg2/seg3")[0])
    assert code == "4.04", text
    sets = {name.split(".")[0] for name in s.counters(b)}
    assert "coap_plugtest" not in sets and {"coap", "coap_tcp", "rpl"} <= sets, sets
    res, out = s.shell(b, "plugtest")
    assert res != 0, out
