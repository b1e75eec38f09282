"""The router across three technologies (scenarios/hetero_router.toml, the
RIOT paper's Figure 1): both sensors reach the host through one IPv6
forwarding path (6LoWPAN, SCHC over LoRaWAN, Ethernet); the LoRa capture
holds LoRaWAN frames with the SCHC rule ID in FPort, which tshark reads
without a warning, and checks with the scenario's keys; the Ethernet capture
holds the forwarded IPv6; mistakes in [lora] / [ethernet] get one line; the
Figure 1 sweep's counters say why the LoRa link breaks."""
import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest

from wren import paths, scenario
from wren.reproduce import hetero
from wren.scenario import ScenarioError

from conftest import tshark_fields

NO_KEYS = "Expert Info (Note/Protocol): MIC could not be verified because of missing encryption keys"


def base(**lora: Any) -> dict[str, Any]:
    with open(paths.ROOT / "scenarios" / "hetero_router.toml", "rb") as f:
        data = tomllib.load(f)
    data["duration"] = 6.0
    data["lora"].update(lora)
    for sh in data["shell"]:
        if sh["cmd"] == "flow stats":
            sh["at"] = 5.9
        elif str(sh["cmd"]).startswith("flow send"):
            sh["cmd"] = "flow send 2001:db8:e::2 size 8 mean 200 count 10"
    return data


def flows(res: dict[str, Any]) -> dict[str, int]:
    out = {}
    for line in res["nodes"][3]["shell"].splitlines():
        if line.startswith("flow src ") and " received " in line:
            out[line.split()[2]] = int(line.split()[4])
    return out


def test_both_sensors_reach_the_host_through_the_router(tmp_path: Path) -> None:
    res = scenario.run(base(pcap=str(tmp_path / "lora.pcap")), progress=False)
    assert flows(res) == {"2001:db8:154::2": 10, "2001:db8:10a::2": 10}
    router, lora_sensor = res["nodes"][0]["counters"], res["nodes"][2]["counters"]
    assert router["ipv6.rx_forwarded"] == 20
    assert router["schc.rx_pkts"] == 10 and router["lorawan2.rx_frames"] == 10
    assert lora_sensor["schc.tx_compressed"] == 10  # rule 1, not the no-compression rule
    assert res["pktbuf_in_use"] == 0


def test_lorawan_capture_reads_without_warning_and_checks_with_the_keys(tmp_path: Path) -> None:
    pcap = tmp_path / "lora.pcap"
    data = base(pcap=str(pcap), syncword=0x34)
    scenario.run(data, progress=False)
    rows = tshark_fields(pcap, "lorawan.mhdr.mtype", "lorawan.fhdr.devaddr", "lorawan.fport",
                         "_ws.expert", "_ws.malformed")
    assert len(rows) == 10
    for mtype, devaddr, fport, expert, malformed in rows:
        assert int(mtype, 0) == 2  # unconfirmed data up
        assert int(devaddr, 16) == data["lora"]["devaddr"]
        assert int(fport, 0) == 1, "the SCHC rule ID in FPort (RFC 9011 5.1)"
        assert expert in ("", NO_KEYS) and malformed == ""
    lo = data["lora"]
    keys = (f'uat:encryption_keys_lorawan:"{lo["devaddr"].to_bytes(4, "little").hex()}",'
            f'"{lo["nwkskey"]}","{lo["appskey"]}","{bytes(8).hex()}"')
    rows = tshark_fields(pcap, "lorawan.mic.status", "_ws.expert", extra=["-o", keys])
    assert rows and all(r == ["1", ""] for r in rows), rows


def test_ethernet_capture_holds_the_forwarded_datagrams(tmp_path: Path) -> None:
    pcap = tmp_path / "eth.pcap"
    data = base()
    data["ethernet"]["pcap"] = str(pcap)
    scenario.run(data, progress=False)
    rows = tshark_fields(pcap, "ipv6.src", "udp.dstport", "ipv6.hlim", "_ws.malformed",
                         extra=["-Y", "udp"])
    srcs = sorted(r[0] for r in rows)
    assert srcs == ["2001:db8:10a::2"] * 10 + ["2001:db8:154::2"] * 10
    assert all(r[1] == "6100" and r[2] == "63" and r[3] == "" for r in rows)


@pytest.mark.parametrize("key, value, says", [
    ("nwkskey", "00ff", "lora nwkskey = '00ff': takes 32 hex digits"),
    ("rules", "rule 1\nipv6.ver bi equal not-sent\n", "lora rules:"),
    ("network", 3, "lora network: node 3 has no LoRa interface"),
    ("link", "lorawan2", "link"),
    ("network", None, "lora network: link = 'lorawan' needs the node id of the network side"),
])
def test_a_mistake_in_lora_is_one_line(key: str, value: Any, says: str) -> None:
    data = base(**{key: value})
    if value is None:
        del data["lora"][key]
    with pytest.raises(ScenarioError) as e:
        scenario.run(data, progress=False)
    msg = str(e.value)
    assert says in msg and "lora" in msg and msg.count("\n") <= 1, msg


def test_a_mistake_in_ethernet_is_one_line() -> None:
    data = base()
    data["ethernet"]["bitrate"] = 0
    with pytest.raises(ScenarioError) as e:
        scenario.run(data, progress=False)
    assert "bitrate" in str(e.value) and str(e.value).count("\n") <= 1


def test_same_seed_same_captures(tmp_path: Path) -> None:
    for k in "ab":
        data = base(pcap=str(tmp_path / f"{k}.lora"))
        data["ethernet"]["pcap"] = str(tmp_path / f"{k}.eth")
        scenario.run(data, progress=False)
    for ext in ("lora", "eth"):
        assert (tmp_path / f"a.{ext}").read_bytes() == (tmp_path / f"b.{ext}").read_bytes()


def test_fig1_lora_breaks_by_airtime_and_by_the_duty_cycle() -> None:
    seeds = (1,)
    # 5/s: nothing lost on either; 20/s at 125 kHz: more than the air carries
    assert hetero.mean_loss(5, "125k_off", "lora", seeds) == 0
    assert hetero.mean_loss(5, "125k_off", "154", seeds) == 0
    r20 = hetero.run(20, "125k_off", 1)
    assert r20["lora"]["loss_pct"] > 5 and r20["why"]["queue_drops"] > 0
    assert r20["why"]["airtime_share"] > 0.95 and r20["why"]["dc_drops"] == 0
    # the same rate at 250 kHz fits (half the airtime)
    assert hetero.run(20, "250k_off", 1)["lora"]["loss_pct"] == 0
    # with EU868's 1 % the duty-cycle limit drops, not the queue
    r1 = hetero.run(1, "125k_1pct", 1)
    assert r1["lora"]["loss_pct"] > 50 and r1["why"]["dc_drops"] > 0
    assert r1["why"]["airtime_share"] < 0.015


def test_lora_interfaces_are_charged_by_the_sx1276_profile() -> None:
    from wren import energy
    res = scenario.run(base(), progress=False)
    energy.annotate(res)  # as ./wren sim does
    p = energy.profile("sx1276")
    for node in (0, 2):
        c = res["nodes"][node]["counters"]
        want = p.supply_v * sum(p.radio_ma[s] * c.get(f"lora2.time_{s}_us", 0)
                                for s in energy.STATES) / 1e6
        e = res["nodes"][node]["energy"]
        assert want > 0 and e["lora_mj"] == {"lora2": pytest.approx(want)}
        assert e["mj"] == pytest.approx(sum(e["radio_mj"].values()) + e["mcu_mj"] + want)
    # the sensor sent: its LoRa radio spent more than the router's, which only listened
    assert res["nodes"][2]["energy"]["lora_mj"]["lora2"] > res["nodes"][0]["energy"]["lora_mj"]["lora2"]
    assert res["nodes"][1]["energy"]["lora_mj"] == {}


def test_the_picture_shows_every_technology(tmp_path: Path) -> None:
    from wren import plot
    res = scenario.run(base(), progress=False)
    assert sorted(map(tuple, res["other_links"])) == [(0, 2, "LoRa"), (0, 3, "Ethernet")]
    assert [tuple(link[:2]) for link in res["links"]] == [(0, 1), (1, 0)]  # 802.15.4
    assert plot.topology(res, tmp_path / "h.png")[0].stat().st_size > 10_000
