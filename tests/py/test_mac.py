"""The 802.15.4 MAC in the simulator: CSMA-CA, ACKs and retries, the random
delay between retries against hidden terminals, and counters that agree with
the capture."""
import collections

from conftest import tshark_fields
from wren.addr import eui64_str, ll


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
    # frames leave from the senders' EUI-64s
    rows = tshark_fields(pcap, "wpan.frame_type", "wpan.src64", "wpan.seq_no", "wpan.ack_request")
    data = collections.Counter()
    seqs = collections.defaultdict(set)
    acks = 0
    for ftype, src, seq, ackreq in rows:
        if ftype == "0x0002":
            acks += 1
            continue
        data[src] += 1
        seqs[src].add(seq)
    for node in (0, 2):
        m = c[node]
        # every attempt that reached the air is in the capture
        assert data[eui64_str(node)] == m["mac.tx_attempts"]
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


US_OCTET = 32           # O-QPSK 250 kbit/s
SHR_PHR = 6             # octets before the PSDU
TURNAROUND_US = 192     # aTurnaroundTime, 12 symbols
CCA_US = 128            # 8 symbols
SIFS_US, LIFS_US = 192, 640
MAX_SIFS_FRAME = 18     # aMaxSIFSFrameSize


def air_us(psdu):
    return (SHR_PHR + psdu) * US_OCTET


def frames_on_air(pcap):
    """(start us, PSDU octets, type, seq) of every frame of a capture (the
    simulator stamps each frame with the time its SHR starts)."""
    rows = tshark_fields(pcap, "frame.time_epoch", "frame.len", "wpan.frame_type", "wpan.seq_no")
    return [(round(float(t) * 1e6), int(n), int(ft, 16), int(seq)) for t, n, ft, seq in rows]


def test_ifs_runs_from_the_end_of_the_ack_on_the_capture(tmp_path, sim_factory):
    """802.15.4-2015 6.2.4 (figure 6-4), checked on the air: the ACK starts
    aTurnaroundTime after its frame, and the sender's next frame starts no
    earlier than the IFS after the end of that ACK: LIFS after a frame of
    more than 18 octets, SIFS after a shorter one. With no backoff
    (macMinBE 0) the gap is exactly the IFS, or the radio's lead-in if that
    is longer (CCA + turnaround with CSMA, the turnaround without); with
    the default backoff never less. (A MAC that counted LIFS from the end of
    the data frame sent long frames 320 us after the ACK.)"""
    # (rawgen's payloads start at 10 bytes, so its frames (27+ octets) all
    # take LIFS; tests/unit/link/test_mac.c checks SIFS after short ones)
    cases = [(40, True, 0), (40, False, 0), (10, True, 0), (100, True, 3), (60, True, 3)]
    for k, (size, csma, min_be) in enumerate(cases):
        s = sim_factory(k + 1)
        # exact clocks: the gaps are checked to the microsecond on the
        # capture (true time); a drifting sender times its IFS on its own
        # crystal (640 us at -30 ppm are 640.02 true us) and its timer fires
        # at the first true microsecond its clock reaches, so 641 would be
        # right there
        s.set_drift(0)
        s.add_node(0, 0)
        s.add_node(10, 0)
        s.set_link(0, 1)
        s.set_link(1, 0)
        pcap = tmp_path / f"ifs{k}.pcap"
        s.open_pcap(pcap)
        s.set_mac(0, csma=csma, ack=True, min_be=min_be)
        s.rawgen(1, -1, interval_s=0)
        s.rawgen(0, 1, size=size, interval_s=0.001)   # faster than the air: a full queue
        s.run(1.0)
        c = s.counters(0)
        s.close()
        frames = frames_on_air(pcap)
        psdu = frames[0][1]                # payload, MAC header and FCS
        assert psdu > size + 2
        ifs = SIFS_US if psdu <= MAX_SIFS_FRAME else LIFS_US
        lead = CCA_US + TURNAROUND_US if csma else TURNAROUND_US
        gaps = []
        for (t, n, ft, seq), (ta, na, fta, seqa), (tn, nn, ftn, _) in zip(frames, frames[1:],
                                                                          frames[2:]):
            if ft != 1:
                continue
            assert n == psdu
            # every data frame is acknowledged: the ACK right after it
            assert (fta, seqa, na) == (2, seq, 5), (t, frames[:6])
            assert ta == t + air_us(n) + TURNAROUND_US
            if ftn == 1:
                gaps.append(tn - (ta + air_us(na)))
        assert c["mac.tx_ok"] == c["mac.ack_rx"] and len(gaps) >= 100, (c, len(gaps))
        if min_be == 0:
            assert set(gaps) == {max(ifs, lead)}, (size, csma, sorted(set(gaps)))
        else:
            assert min(gaps) >= max(ifs, lead), (size, csma, min(gaps))
            assert len(set(gaps)) > 1      # (the backoffs do vary)


def radio_on_us(c):
    return c["radio.time_listen_us"] + c["radio.time_rx_us"] + c["radio.time_tx_us"]


def test_sleepy_child_gets_every_datagram_and_sleeps(sim_factory):
    s = sim_factory(9)
    s.add_node(0, 0)      # parent
    s.add_node(10, 0)     # sleepy child
    s.set_link(0, 1)
    s.set_link(1, 0)
    s.set_sleepy(1, parent=0, poll_ms=1000)
    assert s.shell(1, "udp server start 50123 sink")[0] == 0
    s.run(2.0)
    # 100 datagrams down to the child, one every 1.5 s: each waits at the
    # parent until the child's next poll
    assert s.shell(0, f"udp send {ll(1)} 50123 20 100 1500")[0] == 0
    s.run(s.now + 100 * 1.5 + 5)
    out = s.shell(1, "udp server stats")[1]
    assert "received 100 bad 0" in out, out
    p = s.counters(0)
    assert p["mac.indirect_queued"] == 100 and p["mac.indirect_sent"] == 100
    assert p["mac.indirect_drop"] == 0
    # idle: polls only, the radio off in between
    before, t0 = s.counters(1), s.now
    s.run(s.now + 60)
    after = s.counters(1)
    duty = (radio_on_us(after) - radio_on_us(before)) / ((s.now - t0) * 1e6)
    assert after["mac.polls"] - before["mac.polls"] >= 59
    assert duty < 0.02, duty


def test_adaptive_polling_and_a_dead_child(sim_factory):
    s = sim_factory(10)
    s.add_node(0, 0)
    s.add_node(10, 0)
    s.set_link(0, 1)
    s.set_link(1, 0)
    s.set_sleepy(1, parent=0, poll_ms=250, max_poll_ms=4000)
    s.shell(1, "udp server start 50123 sink")
    s.run(60.0)
    idle_polls = s.counters(1)["mac.polls"]
    assert idle_polls < 60 / 0.25 / 4       # backed off towards 4 s when idle
    before = s.counters(1)["mac.polls"]
    s.shell(0, f"udp send {ll(1)} 50123 20 20 1000")
    s.run(s.now + 25)
    assert "received 20 bad 0" in s.shell(1, "udp server stats")[1]
    # traffic halves the interval: far more polls than 25 s of idling at 4 s
    assert s.counters(1)["mac.polls"] - before > 25 / 4 * 2
    # the child dies: the parent holds no more than its quota, then drops
    s.remove_link(0, 1)
    s.remove_link(1, 0)
    s.shell(0, f"udp send {ll(1)} 50123 20 50 100")
    s.run(s.now + 60)
    p = s.counters(0)
    assert p["mac.indirect_drop"] >= 40
    assert p["pktbuf.in_use"] <= 4 * 200


def test_frames_pending_are_fetched_in_one_wakeup(sim_factory):
    s = sim_factory(11)
    s.add_node(0, 0)
    s.add_node(10, 0)
    s.set_link(0, 1)
    s.set_link(1, 0)
    s.set_sleepy(1, parent=0, poll_ms=5000)
    s.shell(1, "udp server start 50123 sink")
    s.run(6.0)   # the parent learns of its sleepy child from its first poll
    # four datagrams wait at the parent before the child's next poll
    s.shell(0, f"udp send {ll(1)} 50123 20 4 100")
    s.run(9.5)
    polls = s.counters(1)["mac.polls"]
    s.run(11.0)  # one poll at 10 s: frame pending chains the rest
    assert "received 4 bad 0" in s.shell(1, "udp server stats")[1]
    assert s.counters(1)["mac.polls"] - polls <= 5
    assert s.counters(0)["mac.indirect_sent"] == 4
