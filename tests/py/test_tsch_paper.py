"""The 6TiSCH paper's 30-node experiment (python/wren/experiments/tsch_paper.py)
in small: the per-source UDP flows it counts delivery with (`flow`,
runtime/sim/flow.h), the root's RPL timers it sets Table I's DIO and DAO
periods with (`rpl root ... dio ... lifetime ...`), the CSMA MAC's
low-power listening (mac/csma/ieee802154_lpl.c) it compares against, and one
short run of the machinery (summary, table, plot). The 10-seed, 2-hour
runs are `./wren bench tsch_paper` and `./wren reproduce tsch_fig4|5`."""
import math
import re

import pytest

from wren.addr import addr
from wren.experiments import tsch_paper as tp

A = "2001:db8::"


def _line(s, n, lpl_ms=0):
    """@n nodes 10 m apart, each hearing its neighbours; addresses and
    routes along the line (no RPL)."""
    for i in range(n):
        s.add_node(10.0 * i, 0)
    for i in range(n - 1):
        s.set_link(i, i + 1)
        s.set_link(i + 1, i)
    for i in range(n):
        assert s.shell(i, f"ifconfig 1 add {addr(A, i)}/64")[0] == 0
        if lpl_ms:
            s.set_lpl(i, lpl_ms)
    return [addr(A, i) for i in range(n)]


def _routes_to_0(s, n):
    """Static routes: everyone reaches node 0 (and back) along the line."""
    for i in range(n):
        assert s.shell(i, "forward on")[0] == 0
        for j in range(n):
            if i != j:
                via = i - 1 if j < i else i + 1
                ll = "fe80::" + tp_iid(s, via)
                assert s.shell(i, f"fib add {addr(A, j)}/128 via {ll} dev 1")[0] == 0


def tp_iid(s, node):
    _, out = s.shell(node, "ifconfig")
    m = re.search(r"fe80::(\S+?)/64", out)
    assert m, out
    return m.group(1)


def _stats(s, node):
    return s.shell(node, "flow stats")[1]


def test_flow_counts_per_source(sim):
    """Three senders to one sink: every datagram made is counted under its
    own source; a sender that cannot route counts its failures; a second
    sink or a bad option is one line naming the usage."""
    ips = _line(sim, 4)
    _routes_to_0(sim, 4)
    assert sim.shell(0, "flow sink")[0] == 0
    for i in (1, 2, 3):
        assert sim.shell(i, f"flow send {ips[0]} size {20 + i} mean 2000 count {5 * i}")[0] == 0
    sim.run(60)
    out = _stats(sim, 0)
    got = {m.group(1): int(m.group(2)) for m in re.finditer(r"flow src (\S+) received (\d+) dup (\d+)", out)}
    assert got == {ips[1]: 5, ips[2]: 10, ips[3]: 15}, out
    assert "bad 0 overflow 0" in out
    for i in (1, 2, 3):
        assert f"generated {5 * i} failed 0" in _stats(sim, i)
    # no route: made (and counted as made), dropped by IPv6, never received
    n4 = sim.add_node(100, 100)
    assert sim.shell(n4, "flow send 2001:db9::1 count 3 mean 1000")[0] == 0
    res, out = sim.shell(n4, "flow send 2001:db9::1")
    assert res != 0 and "usage: flow" in out  # one flow at a time
    sim.run(sim.now + 10)
    assert "generated 3 failed 0" in _stats(sim, n4)
    assert sim.counters(n4)["ipv6.tx_drop_no_route"] == 3
    for bad in ("flow", "flow sink port 0", "flow send nope", "flow send ::1 mean x",
                "flow send ::1 size 2", "flow sink"):
        res, out = sim.shell(0, bad)
        assert res != 0 and "usage: flow" in out, (bad, out)


def test_flow_gaps_average_the_mean(sim):
    """Gaps uniform in [mean/2, 3 mean/2]: 200 datagrams at a mean of 1 s
    take about 200 s, never less than 100 s."""
    ips = _line(sim, 2)
    _routes_to_0(sim, 2)
    assert sim.shell(0, "flow sink")[0] == 0
    assert sim.shell(1, f"flow send {ips[0]} mean 1000 count 200")[0] == 0
    sim.run(150)
    n = int(re.search(r"generated (\d+)", _stats(sim, 1)).group(1))
    assert 130 <= n <= 170, n      # 150 s / 1 s, give or take the draws
    sim.run(320)
    assert "received 200 dup 0" in _stats(sim, 0)


def _root_run(sim, root_cmd, secs):
    ips = _line(sim, 3)
    assert sim.shell(0, root_cmd)[0] == 0, sim.output(0)
    for i in (1, 2):
        assert sim.shell(i, "rpl router")[0] == 0
    sim.run(60)
    c0 = [sim.counters(i) for i in range(3)]
    sim.run(60 + secs)
    return [{k: sim.counters(i)[k] - c0[i][k] for k in ("rpl.tx_dio", "rpl.tx_dao")}
            for i in range(3)]


def test_rpl_root_timers_set_dio_and_dao_periods(sim_factory):
    """`dio 13 0 0`: a DIO every 2^13 ms on average (Trickle's interval fixed,
    never suppressed), from the root and from the routers that took the
    configuration from it; `lifetime 2 60`: every node's DAO every 60 s.
    Without them: Trickle's doublings (DIOs minutes apart) and DAOs every
    15 minutes."""
    d = _root_run(sim_factory(1), f"rpl root {tp.PREFIX} storing dio 13 0 0 lifetime 2 60", 600)
    for i in range(3):
        assert 600 / 8.192 * 0.8 < d[i]["rpl.tx_dio"] < 600 / 8.192 * 1.2, d
    for i in (1, 2):
        # its own DAO each minute; node 1 also forwards node 2's
        assert 9 <= d[2]["rpl.tx_dao"] <= 11 and 18 <= d[1]["rpl.tx_dao"] <= 22, d
    d = _root_run(sim_factory(1), f"rpl root {tp.PREFIX} storing", 600)
    assert all(x["rpl.tx_dio"] < 15 for x in d) and d[2]["rpl.tx_dao"] <= 1, d
    s = sim_factory(1)
    s.add_node(0, 0)
    for bad in ("dio 2 0 0", "dio 13 0", "dio 24 0 0", "lifetime 0 60", "lifetime 2 0",
                "lifetime 2"):
        res, out = s.shell(0, f"rpl root {tp.PREFIX} {bad}")
        assert res != 0 and ("rpl:" in out or "usage" in out), (bad, out)


def test_lpl_delivers_with_the_radio_mostly_off(sim_factory):
    """Low-power listening on a 3-node line: datagrams over two hops all
    arrive (trains of copies until the ACK), broadcasts are taken once per
    train (copies after the first are duplicates), and each radio is on a
    small part of the time; without LPL the same radios never sleep."""
    def run(lpl):
        s = sim_factory(3)
        ips = _line(s, 3, lpl_ms=lpl)
        _routes_to_0(s, 3)
        assert s.shell(0, "flow sink")[0] == 0
        assert s.shell(2, f"flow send {ips[0]} mean 5000 count 60")[0] == 0
        s.run(400)
        t = s.counters(1)
        on = t["radio.time_listen_us"] + t["radio.time_rx_us"] + t["radio.time_tx_us"]
        return s, on / (on + t["radio.time_off_us"])
    s, dc = run(125)
    assert "received 60 dup 0" in _stats(s, 0), _stats(s, 0)
    c = s.counters(1)
    assert c["mac.tx_attempts"] > c["mac.tx_ok"]  # trains: more copies than frames
    assert 0.04 < dc < 0.25, dc                     # 6 ms windows / 125 ms, and the trains
    # the broadcasts (ND, no RPL here: the trains of neighbour solicitations) are
    # fine too; a 2-node broadcast train is heard once
    s2 = sim_factory(4)
    _line(s2, 2, lpl_ms=125)
    s2.rawgen(0, -1, size=40, interval_s=2.0, count=20)
    s2.run(60)
    c = s2.counters(1)
    assert c["radio.rx_frames"] > 20 and c["mac.rx_dup"] > 0
    s3, dc_on = run(0)
    assert "received 60 dup 0" in _stats(s3, 0)
    assert dc_on == 1.0
    # off again: the radio stays on
    s2.set_lpl(1, 0)
    t0 = s2.counters(1)["radio.time_off_us"]
    s2.run(s2.now + 5)
    assert s2.counters(1)["radio.time_off_us"] == t0


def test_lpl_refuses_what_it_cannot_do(sim):
    from wren.lib import SimError
    n = sim.add_node(0, 0)
    with pytest.raises(SimError):
        sim.set_lpl(n, 10)       # shorter than four listen windows
    sim.set_sleepy(n, 1, 1000)
    with pytest.raises(SimError):
        sim.set_lpl(n, 125)      # a sleepy child polls instead


def test_topology():
    """The placement: the root at the middle of a side, connected over good
    links (the simulator's path-loss model), several hops deep, the same for
    the same seed."""
    t = tp.topology(3)
    assert t == tp.topology(3) and t != tp.topology(4)
    assert len(t["pos"]) == tp.N and t["pos"][tp.ROOT] == (0.0, tp.TOPOLOGY["height"] / 2)
    h = tp.hops(t["links"])
    assert h[tp.ROOT] == 0 and all(x > 0 for x in h[1:]) and max(h) >= 2
    assert all(0.01 <= p <= 1 for _, _, p in t["links"])


def test_experiment_machinery(tmp_path):
    """Two short CSMA runs of 30 nodes: every datagram made is accounted
    for, the duty cycle of an always-on radio is 1, and the summary, the
    table (with the paper's bounds) and the plot come out."""
    res = tp.experiment(["csma"], seeds=(1, 2), duration_s=300, out_dir=tmp_path, jobs=1,
                        verbose=False)
    for r in res["runs"]:
        src = [x for x in r["nodes"] if x["node"] != tp.ROOT]
        assert len(src) == tp.N - 1
        assert all(x["generated"] == 5 for x in src)
        assert r["received"] == sum(x["received"] for x in src) <= r["generated"]
        assert r["pdr"] > 0.9 and r["duty_cycle"] == 1.0 and r["window"] == "steady"
    s = res["summary"]["csma:steady"]
    assert s["runs"] == 2 and s["pdr"]["ci95_low"] <= s["pdr"]["mean"] <= s["pdr"]["ci95_high"]
    assert len(s["per_node"]) == tp.N and "pdr" not in s["per_node"][tp.ROOT]
    assert "> 99" in res["table"] and "< 1" in res["table"]
    for f in res["files"]:
        assert f.exists() and f.stat().st_size > 0
    # a rerun takes the runs from the cache
    again = tp.run_many(["csma"], (1, 2), 300, cache=tmp_path, say=lambda *_: None)
    assert [r["wall_s"] for r in again] == [r["wall_s"] for r in res["runs"]]
    assert not math.isnan(s["duty_cycle"]["mean"])


def test_duty_cycle_averages_all_nodes_with_the_root_apart():
    """A run's duty cycle is the mean over all nodes, the root included; the
    root's and the others' are given apart; the PDR counts only the
    datagrams senders made (a node that never joined makes none and is
    named), and the senders' window starts give the join times."""
    nodes = [{"node": 0, "duty_cycle": 0.02, "start_s": 0.0}]
    nodes += [{"node": i, "duty_cycle": 0.005, "start_s": 100.0 * i, "generated": 10,
               "received": 10 - (i == 1), "failed": 0, "pdr": None} for i in (1, 2, 3)]
    nodes.append({"node": 4, "duty_cycle": 0.009, "start_s": None, "generated": 0,
                  "received": 0, "failed": 0, "pdr": None})
    r = tp.network(nodes)
    assert r["duty_cycle"] == pytest.approx((0.02 + 3 * 0.005 + 0.009) / 5)
    assert r["root_duty_cycle"] == 0.02
    assert r["others_duty_cycle"] == pytest.approx((3 * 0.005 + 0.009) / 4)
    assert r["pdr"] == pytest.approx(29 / 30) and r["not_started"] == [4]
    assert r["start_median_s"] == 200.0 and r["start_max_s"] == 300.0


def test_records_name_the_windows():
    """TSCH's records: the PDR from each node's join (the primary, target
    0.99), at steady state and from switch-on, and the duty cycle over the
    primary window for all 30 nodes, the root and the 29 others; CSMA's keep
    their names on the steady window."""
    assert tp.record_names("tsch") == {
        "join": "tsch_pdr_30_from_join", "steady": "tsch_pdr_30_steady",
        "switch_on": "tsch_pdr_30_from_switch_on", "duty": "tsch_duty_cycle_30_pct",
        "duty_root": "tsch_duty_cycle_30_root_pct",
        "duty_others": "tsch_duty_cycle_30_nonroot_pct"}
    assert tp.windows_of("tsch") == ("join", "steady", "switch_on")
    assert tp.windows_of("csma") == ("steady",)
    assert tp.record_names("csma")["steady"] == "csma_pdr_30"
