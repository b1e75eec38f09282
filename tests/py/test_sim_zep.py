"""The simulator bridged to a live process: a simulated network (node 0, a
6LoWPAN router, and node 1 behind it, out of the bridge's range) and one
wren-node process on ZEP, joined by the sim's ZEP bridge radio (placed next
to node 0), the simulation running at wall-clock pace. Runs as any user
(UDP on the loopback); ports are picked free at run time. The Sim comes
from conftest's sim_factory (freed, and its packet buffers checked, at
teardown), the live node from wren_node (killed at teardown).
"""
import re
import socket
import subprocess
import threading
import time

import pytest

from wren.addr import addr, eui64_str, ll
from wren.lib import Sim

#: wall-clock bound: ./wren test runs these alone (conftest)
pytestmark = pytest.mark.realtime

PREFIX = "2001:db8:5::"
LIVE_ID = 100
LIVE_GLOBAL = addr(PREFIX, LIVE_ID)  # wren-node --id 100 and sim node 1: the same EUI-64 rule
SIM1_GLOBAL = addr(PREFIX, 1)


def free_udp_ports(n):
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class Pacer:
    """Runs the simulation at wall-clock pace in a thread, in short slices;
    the test touches the sim only between slices (under the lock)."""

    def __init__(self, sim: Sim) -> None:
        self.sim = sim
        self.lock = threading.Lock()
        self.stop = False
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self.stop:
            with self.lock:
                self.sim.run_realtime(0.02)
            time.sleep(0)  # let the test take the lock

    def shell(self, node, cmd):
        with self.lock:
            res, _ = self.sim.shell(node, cmd)
        assert res == 0, cmd

    def wait_valid(self, node, addr, timeout=20.0):
        """Wait until @addr of simulated @node is valid (registered)."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                res, out = self.sim.shell(node, "ifconfig")
            if re.search(rf"inet6 addr: {re.escape(addr)}/\d+  scope: \w+\n", out):
                return
            assert time.monotonic() < deadline, f"{addr} never became valid:\n{out}"
            time.sleep(0.1)

    def wait_output(self, node, regex, timeout=20.0):
        got = ""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                got += self.sim.output(node)
            if re.search(regex, got):
                return got
            time.sleep(0.1)
        raise AssertionError(f"node {node}: no {regex!r} in:\n{got}")

    def close(self):
        self.stop = True
        self.t.join(10)


@pytest.fixture
def bridged(sim_factory, wren_node):
    bridge_port, live_port = free_udp_ports(2)
    sim = sim_factory(3)
    sim.set_range(15.0, 1.0)
    for x in (0.0, 10.0):
        sim.add_node(x, 0.0)
    for n in (0, 1):
        # without ACK requests (test_rpl_br's mesh asks for them: the
        # bridge then acknowledges on the air for the live side)
        sim.set_mac(n, ack=False)
    bridge = sim.zep_bridge(bridge_port, live_port, x=-10.0)  # hears node 0 only
    assert bridge == 2
    live = wren_node("--zep", f"{live_port}:127.0.0.1:{bridge_port}", "--id", LIVE_ID)
    live.run("help", r"^exit ")
    pacer = Pacer(sim)
    try:
        yield sim, pacer, live
    finally:
        pacer.close()  # the live node is stopped, then the Sim checked and freed, after this


def test_sim_and_live_node_ping(bridged):
    sim, pacer, live = bridged
    pacer.shell(0, f"nib prefix add {PREFIX}/64 ctx 0")
    pacer.shell(1, "nib rs")
    # node 1 registers first: the live node is a hidden terminal to it (both
    # in node 0's range, not in each other's), and node 1 sends without
    # ACKs, so a registration lost in a collision would leave it without
    # its global address for a while
    pacer.wait_valid(1, SIM1_GLOBAL)
    live.run("nib rs\nzep", r"^zep ")
    live.wait_valid(LIVE_GLOBAL)           # registered with simulated node 0
    out = live.run("nib", r"^rx rs")
    assert f"neighbor {ll(0)} lladdr {eui64_str(0)} ROUTER" in out, out
    # simulated -> live: from the router, and from node 1 two hops away
    pacer.shell(0, f"ping {LIVE_GLOBAL} -c 3 -i 200")
    out = pacer.wait_output(0, r"packets transmitted")
    assert "3 packets transmitted, 3 received" in out, out
    pacer.shell(1, f"ping {LIVE_GLOBAL} -c 3 -i 200 -s 200")
    out = pacer.wait_output(1, r"packets transmitted")
    assert "3 packets transmitted, 3 received" in out, out
    # live -> simulated, across the router
    out = live.run(f"ping {SIM1_GLOBAL} -c 3 -i 200 -s 100", r"packets transmitted")
    assert "3 packets transmitted, 3 received" in out, out
    out = live.run("zep", r"^zep ")
    assert "malformed 0" in out and "bad-fcs 0" in out and "(errors 0)" in out, out
    assert live.pktbuf_empty()
    assert live.exit() == 0
    with pacer.lock:
        st = sim.zep_stats()
        sim.run_realtime(0.5)
        clean = sim.pktbufs_clean()
    assert st["to_zep"] > 0 and st["from_zep"] > 0, st
    assert st["to_zep_errors"] == st["rx_malformed"] == st["rx_bad_fcs"] == 0, st
    assert st["queue_drops"] == 0, st
    assert clean, "a simulated node's packet buffer is not empty"


def test_sim_without_bridge_never_waits(sim_factory):
    # the deterministic path is untouched: run() does not pace or poll
    sim = sim_factory(3)
    sim.add_node(0, 0)
    t = time.monotonic()
    sim.run(60.0)
    assert time.monotonic() - t < 5.0
    assert sim.now == 60.0
    with pytest.raises(Exception):
        sim.zep_stats()


def test_bridge_sends_at_radio_pace(sim_factory, host_procs, tmp_path):
    # A simulated exchange with ACKs (a 1000-byte echo: ten fragments each
    # way, each ACKed 192 us after it ends) goes out through the bridge to a
    # hub that records it with kernel timestamps: each datagram leaves when
    # its frame ends on the simulated air (RX-done), the ends keep at least
    # the distance they had there, so the standard's spaces hold on the wire
    # (each ACK's datagram >= 192 us + its airtime after its frame's)
    from conftest import HUB
    from test_zep_radio import Frame, check_wire, fragments, read_pcap_ns
    hub_port, bridge_port = free_udp_ports(2)
    pcap = tmp_path / "hub.pcap"
    hub = host_procs.popen(HUB, "--port", hub_port, "--pcap", pcap, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    assert "listening" in hub.stdout.readline()
    sim = sim_factory(5)
    sim.set_range(15.0, 1.0)
    for x in (0.0, 5.0):
        sim.add_node(x, 0.0)
    sim.zep_bridge(bridge_port, hub_port, x=-5.0)    # hears both
    res, _ = sim.shell(0, f"ping {ll(1)} -c 2 -i 300 -s 1000")
    assert res == 0
    sim.run_realtime(2.0)
    out = sim.output(0)
    assert "2 packets transmitted, 2 received" in out, out
    st = sim.zep_stats()
    assert st["to_zep_errors"] == st["to_zep_drops"] == 0, st
    hub.terminate()
    hub.wait(10)
    frames = [Frame(t, p) for t, p in read_pcap_ns(pcap)]
    assert len(frames) == st["to_zep"], (len(frames), st)
    assert len(fragments(frames)) >= 2 * 2 * 10, len(frames)
    got = check_wire(frames)
    assert got["acks"] >= 2 * 2 * 10, got
