"""The energy model (wren.energy) against a hand computation.

Scenario: two nodes in range, no CCA. Node 0 broadcasts 5 rawgen frames of
40 bytes, node 1 only listens (its rawgen receives). Each frame on the air:
MAC header 15 octets (frame control 2, sequence 1, destination PAN 2,
destination 0xffff 2, source EUI-64 8, PAN ID compressed) + 40 bytes of
payload + FCS 2 = 57 octets of PSDU, plus 6 octets of SHR and PHR, at
32 us per octet: 63 * 32 = 2016 us. So over 10 s:
  node 0: tx 5 * 2016 = 10080 us, listen 10 s - 10080 us = 9989920 us
  node 1: rx 10080 us (it hears every frame), listen 9989920 us
and E = V * sum(I_state * t_state), with V and the currents read from the
profile file itself.
"""
import json
import os
import subprocess
import sys
import tomllib

import pytest

from conftest import ROOT
from wren import energy, scenario

SCENARIO = {
    "name": "energy-hand",
    "seed": 1,
    "duration": 10.0,
    "nodes": [{"x": 0.0}, {"x": 10.0}],
    "radio": {"range": 15.0, "cca": False},
    "apps": [
        {"nodes": [0], "dst": "broadcast", "size": 40, "interval": 1.0,
         "timing": "periodic", "count": 5, "start": 1.0},
        {"nodes": [1], "interval": 0.0},
    ],
}

FRAMES = 5
PSDU = 15 + 40 + 2                  # MAC header + payload + FCS, octets
AIRTIME_S = (6 + PSDU) * 32e-6      # 2016 us
ON_AIR_S = FRAMES * AIRTIME_S       # 10080 us
LISTEN_S = 10.0 - ON_AIR_S          # 9989920 us


def profiles():
    with open(ROOT / "python/wren/data/energy_profiles.toml", "rb") as f:
        return tomllib.load(f)


@pytest.fixture(scope="module")
def result():
    return scenario.run(SCENARIO, progress=False)


def test_state_times_are_the_hand_computed_ones(result):
    c0, c1 = (nd["counters"] for nd in result["nodes"])
    assert c0["radio.tx_frames"] == FRAMES and c0["radio.tx_bytes"] == FRAMES * PSDU
    assert c0["radio.time_tx_us"] == 10080 and c0["radio.time_listen_us"] == 9989920
    assert c0["radio.time_rx_us"] == 0 and c0["radio.time_off_us"] == 0
    assert c1["radio.time_rx_us"] == 10080 and c1["radio.time_listen_us"] == 9989920
    assert c1["radio.time_tx_us"] == 0 and c1["radio.time_off_us"] == 0
    assert c1["app.received"] == FRAMES and c1["app.rx_bytes"] == FRAMES * 40


@pytest.mark.parametrize("name", ["iotlab-m3", "openmote-cc2538"])
def test_energy_matches_the_hand_computation(result, name):
    p = profiles()[name]
    v = p["supply_v"]
    mcu = p.get("mcu_sleep_ma", 0.0) * 10.0 * v
    sender = v * (p["radio_listen_ma"] * LISTEN_S + p["radio_tx_ma"] * ON_AIR_S) + mcu
    listener = v * (p["radio_listen_ma"] * LISTEN_S + p["radio_rx_ma"] * ON_AIR_S) + mcu
    res = json.loads(json.dumps(result))   # a copy, annotated per profile
    energy.annotate(res, name)
    e0, e1 = (nd["energy"] for nd in res["nodes"])
    assert e0["mj"] == pytest.approx(sender, rel=1e-12)
    assert e1["mj"] == pytest.approx(listener, rel=1e-12)
    assert e0["radio_mj"]["tx"] == pytest.approx(v * p["radio_tx_ma"] * ON_AIR_S, rel=1e-12)
    assert e0["mj_per_rx_packet"] is None and e0["uj_per_rx_byte"] is None
    assert e1["mj_per_rx_packet"] == pytest.approx(listener / FRAMES, rel=1e-12)
    assert e1["uj_per_rx_byte"] == pytest.approx(listener * 1000 / (FRAMES * 40), rel=1e-12)
    net = res["energy"]
    assert net["profile"] == name
    assert net["mj"] == pytest.approx(sender + listener, rel=1e-12)
    assert net["mj_per_delivered_packet"] == pytest.approx((sender + listener) / FRAMES, rel=1e-12)


def test_iotlab_m3_figures_written_out(result):
    # 3.0 V * (12.3 mA * 9.98992 s + 14.0 mA * 0.01008 s) = 369.051408 mJ;
    # 3.0 V * 12.3 mA * 10 s = 369.0 mJ, 73.8 mJ per packet, 1845 uJ per byte
    res = json.loads(json.dumps(result))
    energy.annotate(res)                   # the default profile
    e0, e1 = (nd["energy"] for nd in res["nodes"])
    assert e0["mj"] == pytest.approx(369.051408, rel=1e-12)
    assert e1["mj"] == pytest.approx(369.0, rel=1e-12)
    assert e1["mj_per_rx_packet"] == pytest.approx(73.8, rel=1e-12)
    assert e1["uj_per_rx_byte"] == pytest.approx(1845.0, rel=1e-12)
    assert "not charged in mJ" in res["energy"]["mcu"]


def test_every_profile_cites_its_figures():
    for name, p in profiles().items():
        assert energy.profile(name).supply_v > 0
        for key in [k for k in p if k.endswith("_ma") or k == "supply_v"]:
            assert any(key in s.split(":")[0].split(", ") for s in p["sources"]), \
                f"{name}: {key} has no citation"


def wren_sim(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    return subprocess.run([sys.executable, "-m", "wren.cli", "sim", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_cli_reports_energy_per_node(tmp_path):
    (tmp_path / "e.toml").write_text("""\
name = "e"
duration = 10.0
[[nodes]]
x = 0.0
[[nodes]]
x = 10.0
[radio]
range = 15.0
cca = false
[[apps]]
nodes = [0]
size = 40
timing = "periodic"
count = 5
start = 1.0
[[apps]]
nodes = [1]
interval = 0.0
""")
    res = wren_sim("e.toml", "--profile", "openmote-cc2538", "--json", "r.json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].split()[-5:] == ["mJ", "mJ/pkt", "uJ/B", "cpu_ms", "cpu%"]
    assert "energy (openmote-cc2538" in res.stdout
    r = json.loads((tmp_path / "r.json").read_text())
    assert r["energy"]["profile"] == "openmote-cc2538"
    assert r["nodes"][1]["energy"]["mj"] == pytest.approx(3.0 * 20.0 * 10.0, rel=1e-12)


def test_unknown_profile_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "e.toml").write_text("[[nodes]]\n")
    res = wren_sim("e.toml", "--profile", "tmote-sky", "--json", "r.json", cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr == ("wren: unknown energy profile 'tmote-sky' "
                          "(known: iotlab-m3, openmote-cc2538, iotlab-m3-board, sx1276)\n"), res.stderr
    assert res.stdout == ""
    assert not (tmp_path / "r.json").exists()
