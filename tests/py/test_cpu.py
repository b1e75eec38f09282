"""The CPU active-time model (wren.cpu) against a hand computation, and the
measured costs file it reads (python/wren/data/cpu_costs.toml).

Scenario (as test_energy's): node 0 broadcasts 5 rawgen frames of 40 bytes
over 10 s, node 1 receives them. Node 0 sent 5 frames (netif.tx_frames),
node 1 took 5 (netif.rx_frames); neither carried IPv6. So
  node 0: 5 * frame_tx instructions, node 1: 5 * frame_rx instructions,
  time = instructions * CPI / 72 MHz (CPI 2.0, the project's one cycle
  model: wren.cpu, derived in tests/py/test_qemu_udp.py), duty = time / 10 s,
with frame_tx and frame_rx read from the costs file itself.
"""
import json
import os
import re
import subprocess
import sys
import tomllib

import pytest

from conftest import ROOT
from wren import cpu, energy, scenario
from test_energy import SCENARIO

COSTS = ROOT / "python/wren/data/cpu_costs.toml"


def costs():
    with open(COSTS, "rb") as f:
        return tomllib.load(f)["instructions"]


@pytest.fixture(scope="module")
def result():
    res = scenario.run(SCENARIO, progress=False)
    energy.annotate(res)
    return res


def test_cpu_time_matches_the_hand_computation(result):
    ins = costs()
    c0, c1 = (nd["cpu"] for nd in result["nodes"])
    t0 = 5 * ins["frame_tx"] * 2.0 / 72e6
    t1 = 5 * ins["frame_rx"] * 2.0 / 72e6
    assert cpu.CPI == 2.0 and cpu.CLOCK_HZ == 72e6
    assert c0["instructions"] == pytest.approx(5 * ins["frame_tx"], rel=1e-12)
    assert c0["active_s"] == pytest.approx(t0, rel=1e-12)
    assert c0["duty"] == pytest.approx(t0 / 10.0, rel=1e-12)
    assert c1["active_s"] == pytest.approx(t1, rel=1e-12)
    assert result["cpu"]["active_s"] == pytest.approx(t0 + t1, rel=1e-12)
    assert result["cpu"]["mean_duty"] == pytest.approx((t0 + t1) / 10.0 / 2, rel=1e-12)
    # no MCU current in the profile: the energy is the radio's alone
    assert all(nd["energy"]["mcu_mj"] == 0.0 for nd in result["nodes"])


def test_datagram_and_forwarding_arithmetic():
    # a router that took 7 frames (1 not for it), sent 6, forwarded 3
    # datagrams, received 2 for itself and sent 1 of its own (made-up counters)
    ins = {"frame_tx": 100.0, "frame_rx": 90.0, "frame_drop": 50.0, "udp_tx": 400.0,
           "udp_rx": 300.0, "forward": 600.0}
    c = {"netif.tx_frames": 6, "netif.rx_frames": 7, "netif.rx_drop_not_for_us": 1,
         "ipv6.rx_pkts": 5, "ipv6.tx_pkts": 4, "ipv6.rx_forwarded": 3,
         "radio.proc_us": 500}
    # 6*100 + 7*90 + 1*50 + (300-90)*2 + (400-100)*1 + (600-90-100)*3
    hand = 600 + 630 + 50 + 420 + 300 + 1230
    out = cpu.node_cpu(c, 2.0, ins, clock_hz=1e6, cpi=2.0)
    assert out["instructions"] == hand
    assert out["active_s"] == pytest.approx(hand * 2.0 / 1e6, rel=1e-12)
    assert out["duty"] == pytest.approx(hand * 2.0 / 1e6 / 2.0, rel=1e-12)
    # the modelled radio upload is beside the estimate, not in it
    assert out["upload_s"] == pytest.approx(500e-6, rel=1e-12)
    assert out["duty_with_upload"] == pytest.approx((hand * 2.0 / 1e6 + 500e-6) / 2.0, rel=1e-12)


def test_costs_file_is_what_its_command_writes():
    text = COSTS.read_text()
    data = tomllib.loads(text)
    assert data["command"] == "./wren cpucosts" == cpu.COMMAND
    assert re.fullmatch(r"[0-9a-f]{40}", data["commit"]), "generate it from a committed tree"
    ins = data["instructions"]
    assert tuple(ins) == cpu.OPS
    assert data["reps"] == cpu.REPS
    # the image's REPS, payloads and operation order are the model's
    src = (ROOT / "runtime/cortexm/main_cpucost.c").read_text()
    assert f"#define REPS {cpu.REPS}\n" in src
    assert f"#define RAW_LEN {cpu.RAW_LEN}\n" in src and f"#define UDP_LEN {cpu.UDP_LEN}\n" in src
    order = re.findall(r"\*\s+(\d) (\w+)\s", src.split("*/", 1)[0])
    assert [op for _, op in order] == list(cpu.OPS)
    # sane as measurements: a datagram costs more than its frame, forwarding
    # more than a frame in and a frame out, a dropped frame less than a taken one
    assert all(v > 100 for v in ins.values())
    assert ins["udp_rx"] > ins["frame_rx"] > ins["frame_drop"]
    assert ins["udp_tx"] > ins["frame_tx"]
    assert ins["forward"] > ins["frame_rx"] + ins["frame_tx"]
    # byte for byte what cpu.render writes for these numbers
    assert cpu.render(ins, data["commit"]) == text


def test_cli_shows_cpu_columns(tmp_path):
    sc = tmp_path / "s.toml"
    sc.write_text("""name = "cpu-cli"
seed = 1
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
dst = "broadcast"
size = 40
interval = 1.0
timing = "periodic"
count = 5
start = 1.0
[[apps]]
nodes = [1]
interval = 0.0
""")
    out_json = tmp_path / "r.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    p = subprocess.run([sys.executable, "-m", "wren.cli", "sim", str(sc), "--json", str(out_json)],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    header = p.stdout.splitlines()[0].split()
    assert header[-2:] == ["cpu_ms", "cpu%"]
    row0 = p.stdout.splitlines()[1].split()
    assert float(row0[-2]) == pytest.approx(5 * costs()["frame_tx"] * 2.0 / 72e3, abs=1e-3)
    assert "CPI 2 (band 1.4..2.4" in p.stdout and "not charged in mJ" in p.stdout
    res = json.loads(out_json.read_text())
    assert res["cpu"]["commit"] == tomllib.loads(COSTS.read_text())["commit"]
    assert res["nodes"][0]["cpu"]["instructions_per_op"]["frame_tx"] > 0
