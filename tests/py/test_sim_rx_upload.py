"""The simulator's receive-side upload (runtime/sim/medium.h,
Sim.set_rx_proc_delay): a received frame reaches its node the stated time
after its end, pro rata to its length, while the radio acknowledges it at
once, as the AT86RF2xx's auto-ACK does."""
from wren.lib import Sim

STEP_US = 4


def _pair(rx_upload_us: int) -> Sim:
    s = Sim(1)
    s.add_node(0, 0)
    s.add_node(10, 0)
    s.set_link(0, 1)
    s.set_link(1, 0)
    s.set_mac(0, csma=False, ack=True)
    s.set_mac(1, csma=False, ack=True)
    s.set_rx_proc_delay(rx_upload_us, node=1)
    s.rawgen(1, -1, interval_s=0)
    s.rawgen(0, 1, size=50, interval_s=0.001, count=1)
    return s


def _arrivals(rx_upload_us: int) -> tuple[int, int, dict[str, int], dict[str, int]]:
    """(us when node 1's radio had the frame, us when its stack had it,
    node 0's counters, node 1's counters)."""
    s = _pair(rx_upload_us)
    t_radio = t_node = None
    t = 0
    while t_node is None and t < 50_000:
        t += STEP_US
        s.run(t / 1e6)
        c = s.counters(1)
        if t_radio is None and c["radio.rx_frames"]:
            t_radio = t
        if c["netif.rx_frames"]:
            t_node = t
    s.run(s.now + 0.1)
    c0, c1 = s.counters(0), s.counters(1)
    s.close()
    assert t_radio is not None and t_node is not None
    return t_radio, t_node, c0, c1


def test_without_upload_the_node_gets_the_frame_at_its_end():
    t_radio, t_node, c0, _ = _arrivals(0)
    assert t_node == t_radio
    assert c0["mac.tx_ok"] == 1 and c0["mac.tx_retries"] == 0


def test_receive_upload_delays_delivery_by_its_time_per_frame():
    up = 3000  # per full 127-octet frame
    t_radio, t_node, c0, c1 = _arrivals(up)
    psdu = c0["radio.tx_bytes"]  # the one data frame, FCS included
    want = up * psdu // 127
    assert abs((t_node - t_radio) - want) <= STEP_US, (t_node - t_radio, want)
    # the radio acknowledged the frame at its end: the ACK was in time
    # although the upload outlasts macAckWaitDuration (864 us), and the MAC's
    # own ACK after the upload did not go out a second time
    assert c0["mac.tx_ok"] == 1 and c0["mac.tx_retries"] == 0
    assert c1["radio.tx_frames"] == 1 and c1["app.received"] == 1
    assert c1["mac.ack_tx_busy"] == 0
