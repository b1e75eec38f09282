"""The TCP paper's 9.4 / Figure 9 experiment (python/wren/experiments/coap_vs_tcp.py)
in small: the 6LoWPAN layer's injected datagram loss (`ifconfig IF dgloss`),
the sensor application's bookkeeping, and one short run per protocol at the
paper's 15 % that delivers and adds up. The sweep itself is a benchmark
(`./wren bench coap_vs_tcp`)."""
import re

import pytest

from conftest import tshark_fields
from wren.addr import addr
from wren.bench_tcp import _tcp_addr
from wren.experiments import coap_vs_tcp

PI_WARN, PI_ERROR = 0x600000, 0x800000  # tshark's expert severities


def _ping_pair(sim_factory, seed, loss, loss_seed=7):
    s = sim_factory(seed)
    a, b = s.add_node(0, 0), s.add_node(10, 0)
    for n in (a, b):
        s.set_link(n, 1 - n)
        assert s.shell(n, f"ifconfig 1 add {addr('2001:db8::', n)}/64")[0] == 0
        assert s.shell(n, "fib add 2001:db8::/64 dev 1")[0] == 0
    assert s.shell(a, f"ifconfig 1 dgloss {loss} {loss_seed}")[0] == 0
    # 100 echoes of 300 bytes (three fragments each way) from b to a
    s.shell(b, f"ping {addr('2001:db8::', a)} -c 100 -s 300 -i 200")
    s.run(s.now + 30)
    out = s.output(b)
    m = re.search(r"(\d+) packets transmitted, (\d+) (?:packets )?received", out)
    assert m, out
    return s, a, int(m.group(1)), int(m.group(2))


def test_dgloss_drops_whole_datagrams_both_ways(sim_factory):
    """At 30 % each datagram a receives or sends is dropped with that
    probability, after reassembly and before fragmentation: the frames were
    delivered and acknowledged (no MAC retry, no reassembly loss), the drops
    are counted each way, and the same seed drops the same datagrams."""
    s, a, sent, got = _ping_pair(sim_factory, 1, 30)
    c = s.counters(a)
    rx, tx = c["6lowpan.rx_drop_fault"], c["6lowpan.tx_drop_fault"]
    assert sent == 100 and rx > 10 and tx > 5, (rx, tx)
    # every request a kept was answered; every reply it dropped is missing at b
    assert got == sent - rx - tx
    assert c["6lowpan.frag_reassembled"] == sent  # each request arrived whole
    assert c["mac.tx_retries"] == 0 and s.counters(1 - a)["mac.tx_retries"] == 0
    s2, a2, _, got2 = _ping_pair(sim_factory, 1, 30)
    c2 = s2.counters(a2)
    assert (got2, c2["6lowpan.rx_drop_fault"], c2["6lowpan.tx_drop_fault"]) == (got, rx, tx)
    # loss 0 draws nothing and drops nothing
    s3, a3, sent3, got3 = _ping_pair(sim_factory, 1, 0)
    c3 = s3.counters(a3)
    assert got3 == sent3 == 100
    assert c3["6lowpan.rx_drop_fault"] == c3["6lowpan.tx_drop_fault"] == 0


def test_dgloss_and_sensor_bad_input(sim):
    n = sim.add_node(0, 0)
    for bad in ("ifconfig 1 dgloss 100.5", "ifconfig 1 dgloss x", "ifconfig 1 dgloss 10 12a",
                "ifconfig 9 dgloss 10", "sensor", "sensor fly", "sensor coap nowhere",
                f"sensor coap {_tcp_addr(1)} block 500", f"sensor tcp {_tcp_addr(1)} count",
                f"sensor tcp {_tcp_addr(1)} speed 3", "sensor sink readings 0"):
        res, out = sim.shell(n, bad)
        assert res < 0 and ("usage" in out or "error" in out), (bad, out)
    assert sim.shell(n, "ifconfig 1 dgloss 12.5 3")[0] == 0
    assert sim.shell(n, "sensor sink")[0] == 0
    assert sim.shell(n, "sensor sink")[0] < 0  # once
    assert sim.shell(n, f"sensor coap {_tcp_addr(1)} count 64")[0] == 0
    assert sim.shell(n, f"sensor tcp {_tcp_addr(1)}")[0] < 0  # one sensor per node


@pytest.mark.parametrize("protocol", coap_vs_tcp.PROTOCOLS)
def test_point_delivers_and_adds_up(protocol, tmp_path):
    """Two batches (128 readings) at the paper's 15 %: the BR dropped
    datagrams both ways, the protocol recovered, and every reading made is
    accounted for: acknowledged, lost to a full queue or to a given-up
    block, or still queued; the sink's count is the reliability's numerator
    and it received no wrong byte. The capture dissects cleanly."""
    pcap = tmp_path / "fig9.pcap"
    r = coap_vs_tcp.run_point(protocol, 15.0, seed=2, readings=128, pcap=pcap)
    assert r["generated"] == 128 and r["pktbufs_clean"], r
    assert r["generated"] == (r["acked"] + r["lost_queue_full"] + r["lost_given_up"]
                              + r["still_queued"]), r
    assert r["acked"] <= r["delivered"] <= r["generated"] - r["lost_queue_full"], r
    assert r["reliability"] == r["delivered"] / r["generated"]
    assert r["delivered"] >= 120 and r["bad_bytes"] == 0, r
    assert r["br_dropped_rx"] > 0 and r["br_dropped_tx"] > 0, r
    assert r["retx"] > 0 and r["retx"] == r["retx_timeout"] + r["retx_dupack_sack"], r
    # the CPU estimate (frames and datagrams only) is far below the radio's
    assert 0 < r["radio_dc"] < 0.2 and 0 < r["cpu_dc"] < r["radio_dc"] / 10, r
    assert r["cpu_dc"] < r["cpu_dc_with_upload"] < r["radio_dc"], r
    if protocol == "coap":
        assert r["retx_dupack_sack"] == 0  # CoAP sees every loss by its timeout
        assert r["packets_sent"] >= 2 * 11  # 5,248 bytes in 512-byte blocks per batch
    # tshark, told the mesh-local prefix of context 0, checks every UDP and
    # TCP checksum: no error and nothing malformed; CoAP not even a warning
    # (TCP's sequence analysis warns of the out-of-order segments that the
    # injected loss makes)
    rows = tshark_fields(pcap, "frame.protocols", "_ws.malformed", "_ws.expert.severity",
                         extra=["-o", "udp.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
                                "-o", "6lowpan.context0:2001:db8::/64"])
    want = "coap" if protocol == "coap" else "tcp"
    assert sum(want in row[0] for row in rows) >= 20
    assert all(row[1] == "" for row in rows), [row for row in rows if row[1]][:3]
    worst = max(int(v) for row in rows for v in row[2].split(",") if v)
    assert worst < (PI_WARN if protocol == "coap" else PI_ERROR), worst
    # the same seed, the same run
    assert coap_vs_tcp.run_point(protocol, 15.0, seed=2, readings=128) == r


def test_summary_and_records():
    """The sweep's arithmetic on made-up points: means over seeds, per-1,000
    rates, and the two records at 15 %."""
    pts = [dict(protocol=p, loss_pct=15.0, seed=k, generated=1000, delivered=d,
                reliability=d / 1000, retx=r, retx_timeout=r - u, retx_dupack_sack=u,
                radio_dc=0.02, cpu_dc=0.001 * k, cpu_dc_with_upload=0.003 * k)
           for p, k, d, r, u in (("tcp", 1, 1000, 50, 10), ("tcp", 2, 980, 70, 20),
                                 ("coap", 1, 990, 60, 0), ("coap", 2, 970, 80, 0))]
    summ = coap_vs_tcp.summarize(pts)
    tcp = next(c for c in summ if c["protocol"] == "tcp")
    assert tcp["reliability_pct"] == pytest.approx(99.0)
    assert tcp["reliability_min_pct"] == pytest.approx(98.0)
    assert tcp["retx_per_1k_readings"] == pytest.approx(60.0)
    assert tcp["retx_dupack_sack_per_1k"] == pytest.approx(15.0)
    assert tcp["cpu_dc_pct"] == pytest.approx(0.15)
    assert tcp["cpu_dc_with_upload_pct"] == pytest.approx(0.45)
    recs = {r["name"]: r for r in coap_vs_tcp.records(summ)}
    assert recs["coap_vs_tcp_reliability_15pct_coap"]["value"] == pytest.approx(98.0)
    assert recs["coap_vs_tcp_reliability_15pct_tcp"]["value"] == pytest.approx(99.0)
    assert all(r["unit"] == "%" and r["better"] == "higher" for r in recs.values())
