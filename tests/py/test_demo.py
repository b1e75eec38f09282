"""The demo scenario and its capture, checked with tools nobody here wrote."""
import json
import subprocess
import sys

from conftest import ROOT, tshark_fields
from wren import scenario
from wren.addr import eui64_str


def demo(duration=5.0):
    sc = scenario.load(ROOT / "scenarios/demo.toml")
    return sc, duration


def test_demo_has_20_nodes_and_counts_collisions(tmp_path):
    sc, dur = demo()
    res = scenario.run(sc, duration=dur, pcap=tmp_path / "d.pcap", progress=False)
    assert len(res["nodes"]) >= 20
    t = res["totals"]
    assert t["radio.tx_frames"] > 200
    assert t["radio.rx_collisions"] > 0          # hidden terminals in a grid
    assert t["app.rx_bad"] == 0                  # every delivered byte checked
    assert t["app.received"] == t["netif.rx_frames"]
    for nd in res["nodes"]:
        c = nd["counters"]
        # every frame handed to the radio was reported back
        assert c["netif.tx_frames"] - c["netif.tx_ok"] - c["netif.tx_busy"] <= 1


def test_tshark_dissects_every_frame_cleanly(tmp_path):
    sc, dur = demo()
    pcap = tmp_path / "d.pcap"
    res = scenario.run(sc, duration=dur, pcap=pcap, progress=False)
    rows = tshark_fields(pcap, "frame.protocols", "wpan.fcs_ok", "wpan.src64", "wpan.dst16",
                         "_ws.expert", "_ws.malformed")
    assert len(rows) == res["totals"]["radio.tx_frames"]
    euis = {eui64_str(i) for i in range(len(res["nodes"]))}
    for proto, fcs_ok, src, dst, expert, malformed in rows:
        assert proto.startswith("wpan"), proto
        assert fcs_ok == "1"
        assert expert == "" and malformed == ""
        assert dst == "0xffff"
        assert src in euis  # frames leave from the nodes' EUI-64s


def test_scapy_decodes_our_frames_with_valid_fcs(tmp_path):
    from scapy.layers.dot15d4 import Dot15d4FCS, Dot15d4Data
    from scapy.utils import rdpcap
    sc, _ = demo()
    pcap = tmp_path / "d.pcap"
    scenario.run(sc, duration=2.0, pcap=pcap, progress=False)
    pkts = rdpcap(str(pcap))
    assert len(pkts) > 50
    for p in pkts:
        raw = bytes(p)
        f = Dot15d4FCS(raw)
        assert f.fcf_frametype == 1 and f.fcf_panidcompress == 1
        # scapy's own CRC over the frame must equal the FCS we sent
        assert f.compute_fcs(raw[:-2]) == raw[-2:]
        d = f[Dot15d4Data]
        assert d.dest_addr == 0xFFFF and d.dest_panid == 0x23
        payload = bytes(d.payload)
        assert payload[0] == 0x3F and payload[1:2] == b"w"


def test_same_seed_same_pcap_other_seed_differs(tmp_path):
    sc, _ = demo()
    caps = []
    for i, seed in enumerate([5, 5, 6]):
        p = tmp_path / f"{i}.pcap"
        scenario.run(sc, seed=seed, duration=3.0, pcap=p, progress=False)
        caps.append(p.read_bytes())
    assert caps[0] == caps[1]
    assert caps[0] != caps[2]


def test_cli_sim_writes_json_and_pcap(tmp_path):
    out = tmp_path / "r.json"
    pcap = tmp_path / "r.pcap"
    res = subprocess.run([sys.executable, "-m", "wren.cli", "sim",
                          str(ROOT / "scenarios/demo.toml"), "--duration", "1",
                          "--seed", "3", "--json", str(out), "--pcap", str(pcap)],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    assert "total" in res.stdout and "coll" in res.stdout
    r = json.loads(out.read_text())
    assert r["seed"] == 3 and len(r["nodes"]) == 25
    assert "radio.rx_collisions" in r["nodes"][0]["counters"]
    assert pcap.stat().st_size > 24
