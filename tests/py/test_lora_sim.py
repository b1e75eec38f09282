"""The simulated LoRa radio from Python (python/wren/lora.py): tshark's
LoRaTap dissector reads the captures field by field without a warning, the
frames' timing is the airtime formula's, the settings a user gets wrong
raise one clear error, and the same seed gives the same bytes."""
from pathlib import Path

import pytest

from wren import lora
from wren.lib import Sim, SimError

from conftest import tshark_fields

FIELDS = ("frame.time_epoch", "loratap.version", "loratap.header_length",
          "loratap.channel.frequency", "loratap.channel.bandwidth", "loratap.channel.sf",
          "loratap.rssi.packet", "loratap.rssi.max", "loratap.rssi.current", "loratap.rssi.snr",
          "loratap.syncword", "data.data", "_ws.expert", "_ws.malformed")


def capture(path: Path, seed: int = 3) -> list[dict[str, int]]:
    with Sim(seed) as sim:
        sim.set_drift(0.0)
        lora.enable(sim)
        for x in (0.0, 60.0):
            n = sim.add_node(x, 0.0)
            lora.configure(sim, n, syncword=0x12, duty_cycle=0)
        lora.configure(sim, 1, sf=10, bw=500, channel=2, region="none")  # EU868 has no SF10/500
        lora.open_pcap(sim, str(path))
        sim.run(1.0)
        lora.send(sim, 0, b"\x01\x02\x03 wren")
        sim.run(2.0)
        lora.send(sim, 1, bytes(range(40)))
        sim.run(4.0)
        return [sim.counters(0), sim.counters(1)]


def test_tshark_reads_loratap_fields_without_warning(tmp_path: Path) -> None:
    pcap = tmp_path / "lora.pcap"
    capture(pcap)
    rows = [dict(zip(FIELDS, r)) for r in tshark_fields(pcap, *FIELDS)]
    assert len(rows) == 2
    a, b = rows
    assert (a["loratap.version"], a["loratap.header_length"]) == ("0", "15")
    assert a["loratap.channel.frequency"] == "868100000"
    assert (a["loratap.channel.bandwidth"], a["loratap.channel.sf"]) == ("1", "7")
    assert (b["loratap.channel.frequency"], b["loratap.channel.bandwidth"],
            b["loratap.channel.sf"]) == ("868500000", "4", "10")
    for r in rows:
        assert r["loratap.syncword"] == "0x12"
        assert r["loratap.rssi.packet"] == r["loratap.rssi.max"] == "255"  # the sender's view
        assert r["_ws.expert"] == "" and r["_ws.malformed"] == "", r
    assert a["data.data"] == b"\x01\x02\x03 wren".hex()
    assert b["data.data"] == bytes(range(40)).hex()
    assert float(a["frame.time_epoch"]) == pytest.approx(1.0)


def test_same_seed_same_capture_bytes(tmp_path: Path) -> None:
    capture(tmp_path / "a.pcap", 5)
    capture(tmp_path / "b.pcap", 5)
    assert (tmp_path / "a.pcap").read_bytes() == (tmp_path / "b.pcap").read_bytes()


def test_frames_arrive_after_their_airtime(tmp_path: Path) -> None:
    with Sim(1) as sim:
        sim.set_drift(0.0)
        lora.enable(sim)
        a, b = sim.add_node(0, 0), sim.add_node(80, 0)
        for n in (a, b):
            lora.configure(sim, n, sf=8, duty_cycle=0)
        t = lora.airtime_us(sim, a, 30)
        assert t == 123_392  # 12.25 + 48 symbols of 2.048 ms (lora_phy.h's formula)
        sim.run(1.0)
        lora.send(sim, a, bytes(30))
        sim.run(1.0 + (t - 1) / 1e6)
        assert sim.counters(b)["lora2.rx_frames"] == 0
        sim.run(1.0 + t / 1e6)
        assert sim.counters(b)["lora2.rx_frames"] == 1
        assert lora.rx_dbm(sim, a, b) == pytest.approx(14 - 127.41 - 20.8 * 0.30103, abs=1e-6)


@pytest.mark.parametrize("bad, words", [
    ({"sf": 13}, "lora sf = 13"), ({"bw": 200}, "lora bw = 200"), ({"cr": "4/5"}, "lora cr"),
    ({"duty_cycle": 20000}, "lora duty_cycle"), ({"spreading": 7}, "'spreading' unknown"),
    ({"tx_power": 30}, "lora tx_power = 30")])
def test_a_wrong_setting_names_itself(bad: dict[str, object], words: str) -> None:
    with Sim(1) as sim:
        lora.enable(sim)
        n = sim.add_node()
        with pytest.raises(ValueError, match=words.replace("(", r"\(")):
            lora.configure(sim, n, **bad)
        assert lora.get(sim, n, "sf") == 7
        assert lora.get(sim, n, "duty_cycle") == 100  # 868.1 MHz: ETSI's 1 %


def test_energy_of_a_lora_sender_from_the_sx1276_profile() -> None:
    """The sx1276 profile (energy_profiles.toml) charges a LoRa interface's
    state times as energy.py charges an 802.15.4 radio's: one 30-byte SF8
    frame, 2 s of listening."""
    from wren import energy
    p = energy.profile("sx1276")
    with Sim(1) as sim:
        sim.set_drift(0.0)
        lora.enable(sim)
        a, b = sim.add_node(0, 0), sim.add_node(80, 0)
        for n in (a, b):
            lora.configure(sim, n, sf=8)
        t = lora.airtime_us(sim, a, 30)
        lora.send(sim, a, bytes(30))
        sim.run(2.0)
        c = sim.counters(a)
    times = {f"radio.{k[len('lora2.'):]}": v for k, v in c.items() if k.startswith("lora2.time_")}
    assert times["radio.time_tx_us"] == t and times["radio.time_listen_us"] == 2_000_000 - t
    e = energy.node_energy(times, 2.0, p)
    want = 3.3 * (29.0 * t + 11.5 * (2_000_000 - t)) / 1e6
    assert e["mj"] == pytest.approx(want, rel=1e-12)


def test_scenario_lora_table(tmp_path: Path) -> None:
    """[lora] gives the named nodes a LoRa interface with its settings; a
    setting the modem does not have is one line naming it and the file."""
    from wren import scenario
    from wren.errors import UserError
    text = ('duration = 1.0\n[[nodes]]\nx = 0.0\n[[nodes]]\nx = 50.0\n[[nodes]]\nx = 90.0\n'
            '[lora]\nnodes = [0, 2]\nsf = 10\nduty_cycle = "off"\n[lora.pathloss]\ngamma = 3.0\n')
    path = tmp_path / "l.toml"
    path.write_text(text)
    sim, _ = scenario.build(scenario.load(path))
    with sim:
        assert lora.interface(sim, 0) == 2 and lora.interface(sim, 2) == 2
        with pytest.raises(SimError):
            lora.interface(sim, 1)
        assert lora.get(sim, 2, "sf") == 10 and lora.get(sim, 2, "duty_cycle") == 0
        assert lora.rx_dbm(sim, 0, 2) == pytest.approx(14 - 127.41 - 30 * 0.3521825, abs=1e-3)
    path.write_text(text.replace("sf = 10", "sf = 13"))
    with pytest.raises(UserError) as e:
        scenario.build(scenario.load(path))
    assert str(e.value).count("\n") == 0 and "l.toml:" in str(e.value) and "sf" in str(e.value)
    path.write_text(text.replace("sf = 10", "bw = 200"))
    with pytest.raises(UserError, match=r"l\.toml:\d+: \[lora\] lora bw = 200: takes 125"):
        scenario.build(scenario.load(path))


def test_every_lora_counter_in_json_and_shell() -> None:
    """A LoRa node shows every counter of its radio's list (lora2.*) in the
    JSON counters and the shell's stats, as tests/py/test_counters.py asks
    of every other set."""
    import re
    from conftest import parse_stats
    text = (Path(__file__).resolve().parents[2] / "runtime/sim/lora_medium.h").read_text()
    names = re.findall(r"\bC\((\w+)\)", text.split("#define WREN_LORA_RADIO_COUNTERS", 1)[1]
                       .split("struct wren_lora_radio_stats", 1)[0])
    names += ["time_off_us", "time_listen_us", "time_rx_us", "time_tx_us"]
    assert len(names) == 20
    with Sim(1) as sim:
        lora.enable(sim)
        n = sim.add_node()
        json_names = set(sim.counters(n))
        _, out = sim.shell(n, "stats")
        shell_names = set(parse_stats(out))
    for c in names:
        assert f"lora2.{c}" in json_names and f"lora2.{c}" in shell_names, c


def test_ifconfig_shows_the_lora_setting() -> None:
    with Sim(1) as sim:
        lora.enable(sim)
        n = sim.add_node()
        lora.configure(sim, n, sf=11, channel=1, duty_cycle=50)
        _, out = sim.shell(n, "ifconfig")
    assert "Iface 2  LoRa 868300000 Hz  SF11  BW 125 kHz  CR 4/5  duty cycle 0.50%" in out, out


@pytest.mark.parametrize("pps, lost", [(5, False), (20, True)])
def test_a_sensor_beyond_the_airtime_loses_frames(pps: int, lost: bool) -> None:
    """A [lora] sender at SF7/125 kHz, 20-byte frames (56.576 ms on air), the
    duty cycle off: 5 frames a second all arrive; 20 a second (one each 50
    ms) exceed what the air carries, the interface's queue overflows, and
    what arrives is what the airtime allows."""
    from wren import scenario
    secs = 60
    sc = scenario.parse({"duration": secs, "nodes": [{"x": 0.0}, {"x": 50.0}],
                         "lora": {"duty_cycle": "off", "senders": [0], "interval": 1 / pps,
                                  "size": 20, "count": secs * pps}})
    sim, _ = scenario.build(sc)
    with sim:
        sim.set_drift(0.0)
        sim.run(secs + 10.0)  # and the queue drained
        a, b = sim.counters(0), sim.counters(1)
    offered = secs * pps
    assert a["lora2.tx_frames"] + a["netif2.tx_drop_queue"] == offered
    assert b["lora2.rx_frames"] == a["lora2.tx_frames"]
    assert a["lora2.tx_airtime_us"] == a["lora2.tx_frames"] * 56_576
    if lost:
        assert a["netif2.tx_drop_queue"] > 0
        # back to back while frames arrive (one per 56.576 ms), then the 28
        # the interface's queue held (CONFIG_WREN_NETIF_TXQ_LEN)
        carried = secs * 1_000_000 // 56_576 + 28
        assert carried - 2 <= a["lora2.tx_frames"] <= carried + 2, a["lora2.tx_frames"]
    else:
        assert a["netif2.tx_drop_queue"] == 0 and b["lora2.rx_frames"] == offered
