"""wren against RIOT (GNRC), as a new user would meet it: RIOT's own
`gnrc_networking` example on its native64 board with the socket_zep radio,
unchanged, sharing a wren-zep-hub channel with wren-node.

CI cannot fetch RIOT, so these tests run only where a RIOT build is given:

    WREN_RIOT_ELF=.../examples/networking/gnrc/networking/bin/native64/gnrc_networking.elf

built from RIOT's tree with `make BOARD=native64 USE_ZEP=1` (RIOT c8bd52f
was used for the figures in docs/interop.md). The peers that CI runs in place of
RIOT follow the same conventions: tests/py/test_zep_rxdone.py (ZEP as
RX-done), tests/py/test_rpl_peers.py and the RPL unit tests (DIOs without a
configuration option, storing-only peers).

Where RIOT's side is at fault, the test says so and wren is not bent to it:
gnrc_networking is built without extension-header support (it drops every
packet with an RPI or SRH; `USEMODULE += gnrc_ipv6_ext_opt` adds it), so
nothing here sends RIOT a routed datagram through a RPL router.
"""
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from conftest import HUB, parse_stats
from test_zep_radio import free_udp_ports
from wren.shellproc import ShellProcess

RIOT_ELF = os.environ.get("WREN_RIOT_ELF", "")

pytestmark = [pytest.mark.realtime,
              pytest.mark.skipif(not RIOT_ELF or not Path(RIOT_ELF).exists(),
                                 reason="set WREN_RIOT_ELF to RIOT's native64 gnrc_networking.elf "
                                        "(built with USE_ZEP=1)")]


class RiotNode(ShellProcess):
    """RIOT's native process driven through its shell on stdin."""

    name = "RIOT"

    def __init__(self, zep_local: int, hub_port: int) -> None:
        super().__init__(subprocess.Popen([RIOT_ELF, "-z", f"[::1]:{zep_local},[::1]:{hub_port}"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, text=True, bufsize=1))
        self.wait_for(r"All up, running the shell now", 10)
        out = self.run("ifconfig", r"Statistics for IPv6|inet6 group: ff02::1a")
        m = re.search(r"Iface\s+(\d+)", out)
        assert m, out
        self.iface = m.group(1)
        m = re.search(r"inet6 addr: (fe80::[0-9a-f:]+)", out)
        assert m, out
        self.ll = m.group(1)


@pytest.fixture
def rig(host_procs, wren_node, tmp_path):
    """A hub, a RIOT node and a start(*args) for the wren-node beside it."""
    hub_port, riot_port, wren_port = free_udp_ports(3)
    pcap = tmp_path / "hub.pcap"
    host_procs.popen(HUB, "--port", hub_port, "--pcap", pcap, "--quiet",
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    riot = RiotNode(riot_port, hub_port)

    def start(*args: object):
        return wren_node("--id", 1, "--zep", f"{wren_port}:{hub_port}", *args)
    try:
        yield riot, start, pcap
    finally:
        riot.close()


def riot_ping(riot: RiotNode, addr: str, count: int, size: int) -> tuple[int, int, int]:
    out = riot.run(f"ping {addr} -c {count} -s {size} -i 300", r"packet loss", timeout=60)
    m = re.search(r"(\d+) packets transmitted, (\d+) packets received(?:, (\d+) duplicates)?", out)
    assert m, out
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def wren_ping(node, addr: str, count: int, size: int) -> tuple[int, int]:
    out = node.run(f"ping {addr} -c {count} -s {size}", r"packet loss", timeout=60)
    m = re.search(r"(\d+) packets transmitted, (\d+) received", out)
    assert m, out
    return int(m.group(1)), int(m.group(2))


def test_riot_link_local_echo_small_and_fragmented_both_ways(rig):
    """With ACKs on both sides (the default everywhere): every echo of 20 and
    of 1,000 bytes (nine fragments) answered, in both directions, and no
    duplicates from late ACKs."""
    riot, start, _ = rig
    node = start()
    wren_ll = "fe80::57:52ff:fe00:1"
    for size in (20, 1000):
        sent, got, dup = riot_ping(riot, wren_ll, 5, size)
        assert (sent, got, dup) == (5, 5, 0), f"RIOT -> wren {size} B"
        assert wren_ping(node, riot.ll, 5, size) == (5, 5), f"wren -> RIOT {size} B"
    # (RIOT's socket_zep sends without CCA, so a frame of RIOT's that
    # overlaps one of wren's is lost to half-duplex now and then, as on air)
    assert node.pktbuf_empty()


def rpl_counters(node) -> dict[str, int]:
    out = node.run("rpl", r"^rx_dis \d+")
    line = [ln for ln in out.splitlines() if ln.startswith("rx_dis ")][0].split()
    return {line[i]: int(line[i + 1]) for i in range(0, len(line) - 1, 2)}


def wait_until(what: str, cond, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.5)


def test_riot_6ln_router_autoconfigures_from_a_zep_only_wren_border_router(rig):
    """wren-node as a 6LBR with no TAP: RIOT's 6LR takes its RA (PIO, 6CO,
    ABRO: RIOT ignores RAs without ABRO, RFC 6775 8.1.3), forms a global
    address, registers it, and the two ping each other by it."""
    riot, start, _ = rig
    node = start("--border-router", "2001:db8:1::/64")
    riot_global: list[str] = []

    def has_global() -> bool:
        out = riot.run("ifconfig", r"Statistics for IPv6")
        m = re.search(r"inet6 addr: (2001:db8:1:[0-9a-f:]+)\s+scope: global\s+VAL", out)
        if m:
            riot_global.append(m.group(1))
        return bool(m)
    wait_until("RIOT forms a global address from wren's RA", has_global, 40)
    sent, got, dup = riot_ping(riot, "2001:db8:1::57:52ff:fe00:1", 3, 100)
    assert (got, dup) == (3, 0)
    assert wren_ping(node, riot_global[0], 3, 100) == (3, 3)
    assert node.pktbuf_empty()


def test_wren_joins_a_riot_dodag_whose_dios_omit_the_configuration(rig):
    """RIOT's root sends the DODAG configuration option only in its first
    DIOs and in answer to a DIS; wren, started after those, asks by
    unicast DIS and joins; its DAO reaches RIOT's root, whose DAO-ACK comes
    back."""
    riot, start, _ = rig
    riot.run(f"ifconfig {riot.iface} add 2001:db8::1/64", r"success")
    riot.run("rpl root 1 2001:db8::1", r"successfully added")
    time.sleep(6)   # past the first DIOs
    node = start()
    node.run("rpl router\nrpl", r"^rx_dis \d+")

    def joined() -> bool:
        return "dodag 2001:db8::1" in node.run("rpl", r"^rx_dis \d+")
    wait_until("wren joins RIOT's DODAG", joined, 60)
    c = rpl_counters(node)
    assert c["dio_no_config"] >= 1 and c["dis_unicast_tx"] >= 1, c
    wait_until("RIOT's DAO-ACK reaches wren", lambda: rpl_counters(node)["rx_dao_ack"] >= 1, 60)
    assert node.pktbuf_empty()


def test_riot_storing_only_rpl_in_a_wren_non_storing_dodag_is_refused_visibly(rig):
    """RIOT's RPL is storing-only yet joins non-storing DODAGs: wren's root
    refuses its storing DAOs with a DAO-ACK status and counts them."""
    riot, start, _ = rig
    node = start("--rpl-root", "2001:db8:2::/64", "--rpl-mode", "non-storing")
    riot.run(f"rpl init {riot.iface}", r"successfully initialized|.*")
    wait_until("wren refuses RIOT's storing DAO",
               lambda: rpl_counters(node)["dao_mop_refused"] >= 1, 90)
    assert node.pktbuf_empty()
