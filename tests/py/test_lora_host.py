"""Two wren-node processes on LoRa over UDP (runtime/host/lora_udp.h)
through wren-lora-hub: frames arrive, the senders are paced at LoRa airtime,
the duty-cycle limit refuses and counts, other spreading factors are not
heard, and tshark reads the hub's LoRaTap capture without a warning.

The pacing bound is exact whatever the machine's load: a node sends a
frame's datagram when the frame's airtime has passed (a timer never fires
early) and takes its next frame only after that, so two frames' receive
times at the hub are at least the second one's airtime apart. Nothing is
asserted about how long anything took beyond that lower bound.
Runs as any user (UDP on the loopback); ports are picked free at run time."""
import re
import socket
import struct
import subprocess
import time
from pathlib import Path

import pytest

from conftest import BUILD, NODE, tshark_fields

#: wall-clock bound: ./wren test runs these alone (conftest)
pytestmark = pytest.mark.realtime

LORA_HUB = BUILD / "wren-lora-hub"


def pcap_times_ns(path: Path) -> list[int]:
    """Receive times (ns) of the records of the hub's nanosecond LoRaTap pcap."""
    d = path.read_bytes()
    assert struct.unpack_from("<II", d, 0)[0] == 0xA1B23C4D
    assert struct.unpack_from("<I", d, 20)[0] == 270
    off, out = 24, []
    while off + 16 <= len(d):
        sec, nsec, incl, _ = struct.unpack_from("<IIII", d, off)
        out.append(sec * 1_000_000_000 + nsec)
        off += 16 + incl
    return out


def free_udp_ports(n: int) -> list[int]:
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def airtime_us(sf: int, length: int) -> int:
    """The Semtech formula (src/drivers/lora_phy.h) at 125 kHz, CR 4/5, 8
    preamble symbols, explicit header, CRC."""
    de = 1 if sf >= 11 else 0
    num = 8 * length - 4 * sf + 28 + 16
    blocks = max(-(-num // (4 * (sf - 2 * de))), 0)
    sym = (1000 << sf) // 125
    return (4 * 8 + 17) * sym // 4 + (8 + blocks * 5) * sym


def run_nodes(tmp_path: Path, scripts: list[str], seconds: float) -> tuple[list[str], Path]:
    if not NODE.exists() or not LORA_HUB.exists():
        pytest.skip(f"build wren-node and wren-lora-hub first ({BUILD})")
    hub_port, *ports = free_udp_ports(1 + len(scripts))
    pcap = tmp_path / "hub.pcap"
    hub = subprocess.Popen([str(LORA_HUB), "--port", str(hub_port), "--pcap", str(pcap),
                            "--quiet"])
    procs = []
    try:
        time.sleep(0.2)
        for i, (script, port) in enumerate(zip(scripts, ports)):
            f = tmp_path / f"n{i}.txt"
            f.write_text(script)
            procs.append(subprocess.Popen(
                [str(NODE), "--id", str(i + 1), "--lora", f"{port}:{hub_port}", "--script",
                 str(f), "--exit-on-eof"], stdout=subprocess.PIPE, text=True))
        outs = [p.communicate(timeout=seconds + 30)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
        hub.terminate()
        hub.wait(timeout=5)
    return outs, pcap


def counters(out: str) -> dict[str, int]:
    line = [ln for ln in out.splitlines() if ln.startswith("lora ")][-1]
    return {k.replace("-", "_"): int(v) for k, v in
            re.findall(r"([a-z_-]+) (\d+)", line.split(":", 1)[1])}


def test_two_nodes_over_the_hub(tmp_path: Path) -> None:
    sender = ("lora set sf 9\nlora set sync 0x12\nlora set dc 0\nsleep 300\n"
              "lora send one\nlora send two\nlora send three\nsleep 1500\n"
              # the regional limit (1 % at 868.1 MHz): the second frame is refused
              "lora set dc regional\nlora send four\nlora send five\nsleep 600\nlora\n")
    receiver = "lora set sf 9\nlora set sync 0x12\nsleep 3500\nlora\n"
    other_sf = "lora set sf 7\nlora set sync 0x12\nsleep 3500\nlora\n"
    (a, b, c), pcap = run_nodes(tmp_path, [sender, receiver, other_sf], 3.5)
    ca, cb, cc = counters(a), counters(b), counters(c)
    assert ca["tx"] == 4 and ca["dc_drop"] == 1, a
    assert cb["frames"] == 4 and cb["other_channel"] == 0, b
    assert cc["frames"] == 0 and cc["other_channel"] == 4, c
    times = pcap_times_ns(pcap)
    assert len(times) == 4
    for (t0, t1, n) in zip(times, times[1:3], (3, 5)):
        assert t1 - t0 >= airtime_us(9, n) * 1000, (t0, t1)  # "two", "three" paced
    rows = tshark_fields(pcap, "loratap.channel.sf", "loratap.syncword", "data.data",
                         "_ws.expert", "_ws.malformed")
    assert [r[0] for r in rows] == ["9"] * 4
    assert all(r[1] == "0x12" and r[3] == "" and r[4] == "" for r in rows), rows
    assert bytes.fromhex(rows[3][2]) == b"four"


def test_a_bad_lora_spec_is_one_line(tmp_path: Path) -> None:
    if not NODE.exists():
        pytest.skip(f"build wren-node first ({BUILD})")
    res = subprocess.run([str(NODE), "--lora", "17760-17759"], capture_output=True, text=True)
    assert res.returncode == 2
    assert res.stderr == "wren-node: --lora wants LPORT:[RHOST:]RPORT, not '17760-17759'\n"
