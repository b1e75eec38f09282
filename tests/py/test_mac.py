"""The 802.15.4 MAC in the simulator: CSMA-CA, ACKs and retries, the random
delay between retries against hidden terminals, and counters that agree with
the capture."""
import collections

from conftest import tshark_fields


def hidden(sim_factory, retry_delay_ms, seed=3, pcap=None):
    s = sim_factory(seed)
    for x in (0, 10, 20):          # A, B, C: A and C cannot hear each other
        s.add_node(x, 0)
    for a, b in ((0, 1), (1, 0), (1, 2), (2, 1)):
        s.set_link(a, b, 1.0)
    if pcap:
        s.open_pcap(pcap)
    for i in range(3):
        s.set_mac(i, csma=True, ack=True, retries=3, retry_delay_ms=retry_delay_ms)
    s.rawgen(0, 1, size=100, interval_s=0.05, timing="poisson", count=400)
    s.rawgen(2, 1, size=100, interval_s=0.05, timing="poisson", count=400)
    s.rawgen(1, -1, size=100, interval_s=0)
    s.run(60.0)
    return s


def test_retry_delay_beats_hidden_terminals(sim_factory):
    got = {}
    for d in (0, 40):
        s = hidden(sim_factory, d)
        sent = s.counters(0)["app.sent"] + s.counters(2)["app.sent"]
        got[d] = s.counters(1)["app.received"] / sent
        retries = s.counters(0)["mac.tx_retries"] + s.counters(2)["mac.tx_retries"]
        assert retries > 50          # the hidden terminals do collide
    assert got[40] > got[0], got
    assert got[40] > 0.97, got


def test_counters_add_up_with_the_capture(tmp_path, sim_factory):
    pcap = tmp_path / "mac.pcap"
    s = hidden(sim_factory, 20, pcap=pcap)
    c = [s.counters(i) for i in range(3)]
    s.close()
    rows = tshark_fields(pcap, "wpan.frame_type", "wpan.src16", "wpan.seq_no", "wpan.ack_request")
    data = collections.Counter()
    seqs = collections.defaultdict(set)
    acks = 0
    for ftype, src, seq, ackreq in rows:
        if ftype == "0x0002":
            acks += 1
            continue
        data[int(src, 16)] += 1
        seqs[int(src, 16)].add(seq)
    for node in (0, 2):
        m = c[node]
        # every attempt that reached the air is in the capture
        assert data[node] == m["mac.tx_attempts"]
        # frames handed to the MAC end in exactly one way
        assert m["app.sent"] == m["mac.tx_ok"] + m["mac.tx_noack"] + m["mac.tx_caf"]
        assert m["netif.tx_ok"] == m["mac.tx_ok"]
        assert m["netif.tx_noack"] == m["mac.tx_noack"]
        assert m["netif.tx_busy"] == m["mac.tx_caf"]
        # retries are the attempts beyond the first of each frame on the air
        assert m["mac.tx_attempts"] - m["mac.tx_retries"] <= m["app.sent"] - m["mac.tx_caf"]
        assert m["mac.ack_rx"] == m["mac.tx_ok"]
        # the radio's CCA failures are the MAC's busy channels
        assert m["radio.cca_busy"] == m["mac.cca_busy"]
    # B acknowledged what it heard, and those ACKs are on the air
    assert acks == c[1]["mac.ack_tx"]
    assert c[1]["app.received"] + c[1]["mac.rx_dup"] <= c[1]["mac.ack_tx"]
