"""The simulator library through its Python binding."""
import pytest

from wren import scenario
from wren.lib import SimError


def test_hidden_terminal_collisions_disappear_when_senders_hear(sim_factory):
    def run(hear):
        s = sim_factory(21)
        for x in (0, 10, 20):
            s.add_node(x, 0)
        links = [(0, 1), (1, 0), (1, 2), (2, 1)] + ([(0, 2), (2, 0)] if hear else [])
        for a, b in links:
            s.set_link(a, b, 1.0)
        for i in range(3):
            s.set_cca(i, True)
        s.rawgen(0, 1, size=100, interval_s=0.03, timing="poisson", count=500)
        s.rawgen(2, 1, size=100, interval_s=0.03, timing="poisson", count=500)
        s.rawgen(1, -1, size=100, interval_s=0)
        s.run(40.0)
        return s.counters(1)["radio.rx_collisions"]
    hidden, heard = run(False), run(True)
    assert hidden > 50
    assert heard * 10 < hidden


def test_explicit_links_and_removal(sim):
    s = sim
    a, b = s.add_node(), s.add_node()
    s.set_link(a, b, 1.0)
    s.rawgen(a, b, size=20, interval_s=0.1, timing="periodic", count=5)
    s.rawgen(b, -1, size=20, interval_s=0)
    s.run(1.0)
    assert s.counters(b)["app.received"] == 5
    s.remove_link(a, b)
    with pytest.raises(Exception):
        s.set_link(a, 99, 1.0)


def test_scenario_with_explicit_nodes_and_links(tmp_path, sim_factory):
    sc = {
        "name": "line", "seed": 4, "duration": 2.0,
        "nodes": [{"x": 0}, {"x": 10}, {"x": 20}],
        "links": [{"from": 0, "to": 1}, {"from": 1, "to": 2, "prr": 0.5}],
        "radio": {"cca": True},
        "apps": [{"nodes": [0, 2], "dst": 1, "size": 30, "interval": 0.05,
                  "timing": "periodic", "count": 20},
                 {"nodes": [1], "interval": 0}],
    }
    res = scenario.run(sc, progress=False)
    c1 = res["nodes"][1]["counters"]
    assert c1["app.received"] <= 40 and c1["app.received"] >= 25
    assert res["totals"]["app.rx_bad"] == 0


def test_bad_scenario_is_refused():
    with pytest.raises(scenario.ScenarioError):
        scenario.build({"name": "empty"})


def test_hidden_terminal_scenarios_through_the_front_end():
    from conftest import ROOT
    res = {}
    for name in ("hidden_terminal", "exposed_terminal"):
        sc = scenario.load(ROOT / f"scenarios/{name}.toml")
        r = scenario.run(sc, progress=False)
        res[name] = r["nodes"][1]["counters"]["radio.rx_collisions"]
        assert r["pktbuf_in_use"] == 0
    assert res["hidden_terminal"] > 100
    assert res["exposed_terminal"] * 10 < res["hidden_terminal"]


def test_scenario_shell_commands_run_ip_over_five_hops():
    from conftest import ROOT
    sc = scenario.load(ROOT / "scenarios/ip_line.toml")
    r = scenario.run(sc, progress=False)
    assert r["failed_commands"] == []
    out0 = r["nodes"][0]["shell"]
    assert out0.count("3 packets transmitted, 3 received, 0% packet loss") == 3, out0
    assert "1008 bytes from 2001:db8::105" in out0
    assert "received 40 bad 0" in r["nodes"][5]["shell"]
    assert r["totals"]["6lowpan.frag_reassembled"] > 0


def test_proc_delay_from_the_scenario_radio_table_and_per_node():
    """[radio] proc_delay_us for every node, a [[nodes]] entry's own beside
    it: node 0 (4100 us per full frame) spends it per frame, pro rata to
    its length; node 1 (0) none; and the run takes longer than without."""
    def run(delay):
        radio = {"cca": True}
        if delay is not None:
            radio["proc_delay_us"] = delay
        sc = {
            "name": "proc", "seed": 3, "duration": 3.0,
            "nodes": [{"x": 0}, {"x": 10, "proc_delay_us": 0}],
            "links": [{"from": 0, "to": 1}],
            "radio": radio,
            "apps": [{"nodes": [0], "dst": 1, "size": 110, "interval": 0.001,
                      "timing": "periodic", "count": 100},
                     {"nodes": [1], "interval": 0}],
        }
        r = scenario.run(sc, progress=False)
        assert r["pktbuf_in_use"] == 0
        return r["nodes"][0]["counters"], r["nodes"][1]["counters"]
    c0, c1 = run(4100)
    assert c1["app.received"] + c0["netif.tx_drop_queue"] == 100
    assert c0["radio.proc_us"] == 4100 * c0["mac.tx_attempts"]
    assert c1["radio.proc_us"] == 0 and c1["mac.ack_tx"] > 0
    on = sum(c0[k] for k in ("radio.time_listen_us", "radio.time_rx_us", "radio.time_tx_us"))
    assert on + c0["radio.time_off_us"] == 3_000_000
    b0, b1 = run(None)
    assert b0["radio.proc_us"] == 0
    # 4.1 ms more per frame: fewer frames get through the same queue
    assert b1["app.received"] > c1["app.received"]


def test_node_whose_stack_fails_to_build_is_refused_safely(sim):
    """coap_tcp refuses to start without tcp: add_node says so, later nodes
    are refused (the failed node's radio holds the next index), the nodes
    already there keep running, and freeing the simulation touches no freed
    memory (the sanitized run of this test caught a use-after-free in the
    medium before the failed node was kept until wren_sim_free)."""
    a = sim.add_node(0.0, 0.0, 0.0)
    sim.set_modules(["sixlowpan", "ipv6", "icmpv6", "udp", "coap", "coap_tcp"])
    with pytest.raises(SimError, match="add_node: module .coap_tcp. refused to start .* failed: Operation not supported"):
        sim.add_node(1.0, 0.0, 0.0)
    sim.set_modules(None)
    with pytest.raises(SimError, match="add_node failed: Operation canceled"):
        sim.add_node(2.0, 0.0, 0.0)
    sim.run(2.0)
    rc, out = sim.shell(a, "ifconfig")
    assert rc == 0, out


def test_closed_sim_raises_instead_of_crashing():
    from wren.lib import Sim
    s = Sim(1)
    s.add_node()
    s.close()
    s.close()  # idempotent
    with pytest.raises(SimError, match="on a closed Sim"):
        s.run(1.0)
    with pytest.raises(SimError, match="on a closed Sim"):
        s.shell(0, "ifconfig")
