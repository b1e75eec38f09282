"""The CoAP plugtest resources (src/coap/coap_plugtest.c) on simulated
nodes: the module is in every simulated node's list (the TDs themselves run
against wren-node: test_coap_plugtest.py, which is among the host tests the
sanitized stage runs against a sanitized wren-node; this file loads the
simulator library)."""
from test_coap_sim import B_ADDR, coap, pair, parse


def test_plugtest_in_the_simulator(sim_factory):
    """A simulated node serves the plugtest resources too (the module is in
    every simulated node's list): a neighbour's GET of /seg1/seg2/seg3 and
    of /.well-known/core?rt=Type2 over 6LoWPAN, and the counters say so;
    a node nobody observes has no plugtest timer running."""
    s, a, b = pair(sim_factory)
    code, n, _, text = parse(coap(s, a, f"get {B_ADDR} /seg1/seg2/seg3")[0])
    assert (code, text) == ("2.05", "/seg1/seg2/seg3"), text
    code, n, _, text = parse(coap(s, a, f"get coap://[{B_ADDR}]/.well-known/core?rt=Type2")[0])
    assert code == "2.05" and text.startswith("</link1>") and "</link2>" in text, text
    assert s.counters(b)["coap_plugtest.req"] == 1
    res, out = s.shell(b, "plugtest")
    assert res == 0 and "while observed (resting)" in out, out
