"""A 6LoWPAN border router on radio links only (issue 23, section 3).

wren-node --border-router PREFIX/LEN needs no TAP: on a ZEP-only node it is
the 6LBR of PREFIX on its link, and its RAs carry PIO, 6CO and ABRO (RFC
6775 4.3; hosts and 6LRs of other stacks, RIOT's among them, ignore RAs
without an ABRO, RFC 6775 8.1.3). Two hosts take it: a wren-node without a
TAP, and lowpan_peer.Peer, a host written here from the RFCs as RIOT's 6LN
behaves (it takes only an RA with an ABRO, registers with an ARO, pings
and answers pings; its frames are IPHC with addresses inline, and it
decodes what wren compresses with the context the RA gave it). With a TAP
the border router works as before (test_host.py::test_border_router_two_hops).

Runs as any user (UDP on the loopback, ports picked free). Timeouts only
guard against hangs: nothing is asserted about wall-clock time.
"""
import re
import subprocess
import time

import pytest

from conftest import HUB, NODE
from lowpan_peer import Peer
from test_zep_radio import free_udp_ports
from wren.addr import addr, eui64, ll

pytestmark = pytest.mark.realtime

PREFIX = "2001:db8:0:1::"
PEER_EUI = bytes.fromhex("02aa000000000007")
PEER_GLOBAL = "2001:db8:0:1:aa::7"   # PREFIX and the IID of PEER_EUI (RFC 4944 6)


@pytest.fixture
def radio_br(host_procs, wren_node):
    """A hub, wren-node 1 the ZEP-only border router of PREFIX, wren-node 2
    a host on its link (no TAP anywhere)."""
    hub_port, p1, p2 = free_udp_ports(3)
    hub = host_procs.popen(HUB, "--port", hub_port, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    assert "listening" in hub.stdout.readline()
    br = wren_node("--zep", f"{p1}:{hub_port}", "--id", "1", "--border-router", f"{PREFIX}/64")
    host = wren_node("--zep", f"{p2}:{hub_port}", "--id", "2")
    for n in (br, host):
        n.run("help", r"^exit ")
    yield hub_port, br, host
    for n in (host, br):
        # (a datagram that lost a fragment waits out its reassembly: 10 s)
        deadline = time.monotonic() + 15
        while not n.pktbuf_empty():
            assert time.monotonic() < deadline, "the packet buffer is not empty"
        out = n.run("zep", r"^zep ")
        assert "malformed 0" in out and "bad-fcs 0" in out, out
        assert n.exit() == 0


def test_zep_only_border_router_serves_a_wren_host(radio_br):
    _, br, host = radio_br
    out = br.run("nib", r"^rx rs")
    assert "iface 1 role: border router" in out and f"prefix {PREFIX}/64 advertised" in out, out
    host.run("nib rs\npktbuf", r"^packet buffer:")
    host.wait_valid(addr(PREFIX, 2))   # configured from the PIO, registered (ARO)
    out = host.run("nib", r"^rx rs")
    assert f"abro {addr(PREFIX, 1)} version 1" in out and "registrations ok 1" in out, out
    out = br.run("nib", r"^rx rs")
    assert re.search(rf"neighbor {re.escape(addr(PREFIX, 2))} .* REGISTERED", out), out
    # the context the RA gave is the host's (6CO: context 0 = PREFIX)
    out = host.run("ping " + addr(PREFIX, 1) + " -c 3 -i 200 -s 300", r"packets transmitted")
    assert "3 packets transmitted, 3 received, 0% packet loss" in out, out
    out = br.run("ping " + addr(PREFIX, 2) + " -c 3 -i 200", r"packets transmitted")
    assert "3 packets transmitted, 3 received, 0% packet loss" in out, out


def test_zep_only_border_router_serves_a_foreign_host(radio_br):
    hub_port, br, host = radio_br
    # ACKs on both sides, as deployed stacks run (the peer's MAC follows
    # ZEP's RX-done convention, as wren's does)
    peer = Peer(hub_port, PEER_EUI)
    try:
        ra = peer.solicit()
        # RFC 6775 4.3 / 8.1.3: PIO, 6CO and ABRO (with the 6LBR's address
        # and version), and the router's SLLAO (its EUI-64)
        assert {1, 3, 34, 35} <= set(ra["types"]), ra
        assert ra["router"] == ll(1) and ra["l2"] == eui64(1), ra
        assert ra["abro"] == (1, addr(PREFIX, 1)), ra
        assert [(bytes(p[:8]), n) for p, n in ra["pio"]] == [(bytes.fromhex("20010db800000001"),
                                                               64)], ra
        assert [(c, n) for c, _p, n in ra["6co"]] == [(0, 64)], ra
        # registered (ARO status 0: success), then reachable by its address
        assert peer.register(PEER_GLOBAL, ra["router"], ra["l2"]) == 0
        out = br.run("nib", r"^rx rs")
        assert re.search(rf"neighbor {re.escape(PEER_GLOBAL)} lladdr 02:aa:.* REGISTERED",
                         out), out
        # the peer pings the 6LBR, and the wren host through it (route-over:
        # the prefix is not on-link, RFC 6775 5.4)
        assert peer.ping(PEER_GLOBAL, addr(PREFIX, 1), ra["l2"]) == 3
        host.run("nib rs\npktbuf", r"^packet buffer:")
        host.wait_valid(addr(PREFIX, 2))
        assert peer.ping(PEER_GLOBAL, addr(PREFIX, 2), ra["l2"]) == 3
        # and the 6LBR pings the peer, which answers
        br._write(f"ping {PEER_GLOBAL} -c 3 -i 300\n")
        deadline = time.monotonic() + 20
        while not any("packets transmitted" in x for x in br.lines):
            peer.poll(0.2)
            peer.answer_echoes(PEER_GLOBAL, ra["l2"])
            assert time.monotonic() < deadline, "".join(br.lines)
        out = "".join(br.lines)
        assert "3 packets transmitted, 3 received" in out, out
    finally:
        peer.close()


def test_border_router_options_name_the_mistake():
    """--border-router needs a ZEP interface, not a TAP; one line, exit 2."""
    if not NODE.exists():
        pytest.skip("wren-node not built")

    def run(*args):
        return subprocess.run([str(NODE), "--id", "5", *args, "--exit-on-eof"],
                              input="nib\n", capture_output=True, text=True, timeout=30)
    res = run("--tap", "x", "--border-router", f"{PREFIX}/64")
    assert res.returncode == 2 and "--border-router needs --zep" in res.stderr, res
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    res = run("--zep", "0:127.0.0.1:9", "--border-router", "2001:db8::/80")
    assert res.returncode == 2 and "--border-router wants PREFIX/LEN" in res.stderr, res
    res = run("--zep", "0:127.0.0.1:9", "--border-router", f"{PREFIX}/64")
    assert res.returncode == 0 and "role: border router" in res.stdout, res
    help_ = subprocess.run([str(NODE), "--help"], capture_output=True, text=True).stdout
    assert "needs --zep" in help_ and "with --tap" in help_, help_
