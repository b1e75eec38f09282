"""The simulator's drifting clocks, captures with channels and the path-loss
model through the Python front end (wren.lib.Sim, scenario keys), checked
with tshark where a capture is involved."""
import math
import textwrap
from pathlib import Path

import pytest

from conftest import tshark_fields
from wren import scenario
from wren.lib import SimError
from wren.scenario import ScenarioError


def test_drift_api(sim_factory):
    s = sim_factory(5)
    for i in range(20):
        s.add_node(i, 0)
    drawn = [s.drift(i) for i in range(20)]
    assert all(abs(d) <= 30 for d in drawn) and len(set(drawn)) == 20
    s.set_drift(100.0, 3)
    s.set_drift(-100.0, 4)
    s.run(10.0)
    # 10 s of true time: +-1 ms on a 100 ppm crystal (the last microsecond
    # rounds either way)
    assert abs(s.node_now_us(3) - 10_001_000) <= 1
    assert abs(s.node_now_us(4) - 9_999_000) <= 1
    assert abs(s.node_now_us(0) - 10_000_000 * (1 + drawn[0] * 1e-6)) <= 1
    with pytest.raises(SimError):
        s.set_drift(1500.0, 1)
    with pytest.raises(SimError):
        s.node_now_us(99)
    # the same seed draws the same crystals; a range of 0: exact clocks
    t = sim_factory(5)
    t.add_node()
    assert t.drift(0) == drawn[0]
    t.set_drift_range(0)
    t.add_node()
    assert t.drift(1) == 0.0


def test_pcap_tap_channels_seen_by_tshark(tmp_path, sim_factory):
    """Node 0 hops over channels 11, 15, 26 (a broadcast on each, then the
    next); tshark reads the channel of each frame from the TAP header and
    finds the frames and their FCS sound."""
    pcap = tmp_path / "tap.pcap"
    s = sim_factory(2)
    s.add_node(0, 0)
    s.add_node(5, 0)
    s.set_link(0, 1)
    s.open_pcap(pcap, "wpan-tap")
    s.rawgen(1, -1, interval_s=0)
    s.rawgen(0, -1, size=20, interval_s=0.1, timing="periodic")
    want = []
    for k, ch in enumerate((11, 15, 26)):
        s.set_channel(0, ch)
        s.set_channel(1, ch)
        s.run(0.3 * (k + 1))
        want += [ch] * (s.counters(0)["radio.tx_frames"] - len(want))
    s.close()
    rows = tshark_fields(pcap, "wpan-tap.ch_num", "wpan-tap.ch_page", "wpan-tap.fcs_type",
                         "wpan.frame_type", "wpan.fcs_ok", "_ws.expert")
    assert [int(r[0]) for r in rows] == want and len(want) >= 6
    assert {tuple(r[1:]) for r in rows} == {("0", "1", "0x0001", "1", "")}
    with pytest.raises(ValueError, match="unknown pcap format 'tap'"):
        sim_factory(1).open_pcap(tmp_path / "x.pcap", "tap")


SCEN = """\
seed = 4
duration = 3.0
pcap_format = "wpan-tap"

[[nodes]]
x = 0.0
[[nodes]]
x = 60.0
drift_ppm = -12.5
[[nodes]]
x = 105.0

[radio]
drift_ppm = 80.0
cca = true

[radio.pathloss]
exponent = 3.0
sigma_db = 0.0

[[apps]]
nodes = [0]
dst = "broadcast"
size = 30
interval = 0.05
[[apps]]
nodes = [1, 2]
interval = 0
"""


def test_scenario_keys_drift_pathloss_and_capture(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(SCEN)
    sc = scenario.load(p)
    assert sc.pcap_format == "wpan-tap" and sc.radio.pathloss.sigma_db == 0.0
    sim, _ = scenario.build(sc, pcap=tmp_path / "a.pcap")
    try:
        assert abs(sim.drift(0)) <= 80 and abs(sim.drift(2)) <= 80 and sim.drift(1) == -12.5
        # RSSI = -40 - 30 log10(d): 60 m -93 dBm (SNR 7), 105 m -101 dBm
        assert sim.link(0, 1)[1] == -93 and sim.link(0, 1)[0] > 0.9999
        prr, rssi = sim.link(0, 2)
        assert rssi == -101
        snr = -40 - 30 * math.log10(105) + 100
        assert abs(prr - prr_oqpsk(snr, 127)) < 1e-4
        assert sim.link(2, 0, psdu=5)[0] > prr
        sim.run(3.0)
        c = [sim.counters(i) for i in range(3)]
    finally:
        sim.close()
    sent = c[0]["radio.tx_frames"]
    assert sent > 50
    assert c[1]["app.received"] == sent
    # a 47-octet PSDU over the 105 m link
    p47 = prr_oqpsk(snr, 47)
    assert abs(c[2]["app.received"] / sent - p47) < 4.5 * math.sqrt(p47 * (1 - p47) / sent)
    # the capture: LINKTYPE 283, every frame on channel 26; the same bytes again
    rows = tshark_fields(tmp_path / "a.pcap", "wpan-tap.ch_num")
    assert len(rows) == sent and {r[0] for r in rows} == {"26"}
    r = scenario.run(sc, pcap=tmp_path / "b.pcap")
    assert r["nodes"][1]["drift_ppm"] == -12.5 and abs(r["nodes"][2]["drift_ppm"]) <= 80
    scenario.run(sc, pcap=tmp_path / "c.pcap")
    assert (tmp_path / "b.pcap").read_bytes() == (tmp_path / "c.pcap").read_bytes()


def prr_oqpsk(snr_db: float, octets: int) -> float:
    """IEEE 802.15.4 2.4 GHz O-QPSK: BER = 8/15 * 1/16 * sum_{k=2..16}
    (-1)^k C(16,k) exp(20 SINR (1/k - 1)); PRR = (1 - BER)^(8 octets)."""
    s = 10 ** (snr_db / 10)
    ber = 8 / 15 / 16 * sum((-1) ** k * math.comb(16, k) * math.exp(20 * s * (1 / k - 1))
                            for k in range(2, 17))
    return (1 - ber) ** (8 * octets)


@pytest.mark.parametrize("old, new, message", [
    ("sigma_db = 0.0", "sigma = 0.0",
     "unknown key 'sigma' in [radio.pathloss] (did you mean 'sigma_db'?)"),
    ("[radio.pathloss]", "[radio.pathlos]",
     "unknown table [radio.pathlos] (did you mean [radio.pathloss]?)"),
    ("drift_ppm = 80.0", "drift_ppm = -3.0",
     "'drift_ppm' in [radio] must be between 0 and 1000 ppm, not -3"),
    ("drift_ppm = -12.5", "drift_ppm = 2000",
     "'drift_ppm' in [[nodes]] must be between -1000 and 1000 ppm, not 2000"),
    ('pcap_format = "wpan-tap"', 'pcap_format = "wpan_tap"',
     "'pcap_format' at the top level must be \"wpan\" or \"wpan-tap\", not the string "
     "\"wpan_tap\" (did you mean \"wpan-tap\"?)"),
    ("exponent = 3.0", "exponent = 0.0",
     "'exponent' in [radio.pathloss] must be between 0.1 and 10, not 0"),
    ("cca = true", "cca = true\nrange = 20.0",
     "'range' in [radio] besides [radio.pathloss]: links come from one model or the other"),
])
def test_scenario_mistakes_name_the_key(tmp_path, old, new, message):
    p = tmp_path / "bad.toml"
    p.write_text(SCEN.replace(old, new, 1))
    with pytest.raises(ScenarioError) as e:
        scenario.load(p)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"{p}:") and msg.endswith(message), msg
