"""wren-node against a ZEP peer that follows the RX-done convention exactly,
as RIOT's socket_zep under its SubMAC does (python/wren/zep_peer.py): a
datagram marks the END of its frame, the peer ACKs wren's frames 192 us +
the ACK's airtime after their datagrams, counts an ACK from wren only if
its datagram arrives within macAckWaitDuration (864 us) of its own frame's,
and retries up to three times when none does. Fragmented 1,000-byte echoes
both ways with ACKs on. Functional assertions only: every echo answered,
and none of the peer's frames lost by wren to half-duplex (rx_while_tx).
The timing itself is measured by ./wren bench zep_rxdone.

With a datagram taken as a frame's START (wren before issue 23), wren's
ACKs of the peer's long frames left an airtime too late (over 4 ms) and
the peer's ACKs to wren arrived within wren's modelled airtime and were
dropped as rx-while-tx: no fragmented datagram got through either way."""
import re
import socket

import pytest

from wren.addr import ll
from wren.zep_peer import RxDonePeer, ll_of

pytestmark = pytest.mark.realtime

PEER_EUI = bytes.fromhex("1234 56ff fe78 9abc")


def counters(node, name):
    out = node.run("stats", r"^6lowpan: ")
    m = re.search(rf"^{name}: (.*\n(?:    .*\n)*)", out, re.M)
    assert m, out
    return {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", m.group(1))}


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture
def rxdone_pair(wren_node):
    """wren-node 1 on ZEP straight to the RX-done peer (no hub between)."""
    wport = free_udp_port()
    peer = RxDonePeer(("127.0.0.1", wport), PEER_EUI)
    node = wren_node("--zep", f"{wport}:127.0.0.1:{peer.port}", "--id", "1")
    node.run("help", r"^exit ")
    try:
        yield node, peer
    finally:
        peer.close()


def test_rxdone_peer_fragmented_echoes_both_ways_with_acks(rxdone_pair):
    node, peer = rxdone_pair
    # the peer pings wren: ten 1,000-byte echo requests, eleven frames each
    wren_ll = socket.inet_pton(socket.AF_INET6, ll(1))
    answered = [peer.ping(wren_ll, 0x4242, i, 1000) for i in range(10)]
    # wren pings the peer with the shell's ping
    peer_ll = socket.inet_ntop(socket.AF_INET6, ll_of(PEER_EUI))
    # (one at a time: the peer, like RIOT on ZEP, sends without CCA)
    out = node.run(f"ping {peer_ll} -c 10 -i 500 -s 1000", r"packets transmitted", timeout=60)
    z, mac = counters(node, "zep"), counters(node, "mac")
    print("peer:", peer.stats, "\nwren zep:", z, "\nwren mac:", mac)
    assert all(answered), (answered, peer.stats)
    assert "10 packets transmitted, 10 received" in out, (out, peer.stats)
    # both sides ACKed: the peer's frames by wren, wren's by the peer
    assert mac["ack_tx"] > 0 and mac["ack_rx"] > 0 and peer.stats["tx_acked"] > 0, (mac,
                                                                                    peer.stats)
    # none of the peer's frames (the only sender here) lost to half-duplex
    assert z["rx_while_tx"] == 0, z
    assert z["rx_bad_fcs"] == z["rx_malformed"] == z["tx_errors"] == 0, z
    assert node.pktbuf_empty(15), "the packet buffer is not empty"
    assert node.exit() == 0
