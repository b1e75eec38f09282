"""ZEP behaves as an 802.15.4 radio on the wire: two wren-node processes
exchange fragmented datagrams through wren-zep-hub, which records every
frame with the kernel's receive time (--pcap). A ZEP datagram marks the END
of its frame (RX-done, as RIOT's socket_zep and Contiki-NG send): a record
stamped t is a frame that was on the air during [t - airtime, t]. The frames
are then held to 802.15.4-2015 (O-QPSK 2.4 GHz, 250 kbit/s):

- an ACK starts at least aTurnaroundTime (12 symbols, 192 us) after the end
  of the frame it acknowledges, so its datagram comes at least 192 us + its
  own airtime (352 us) after the frame's;
- a node's next frame starts at least SIFS (12 symbols) after its previous
  frame if that had at most aMaxSIFSFrameSize (18) octets, else LIFS (40
  symbols, 640 us); and when that frame was acknowledged, as long after the
  end of its ACK;
- a frame lasts (6 + PSDU octets) * 32 us.

The lower bounds are exact whatever the machine's load: the hub's receive
timestamp of a frame is taken inside the sender's sendto(), after the
frame's airtime has passed (so the start derived from it is no sooner than
the real one), and no later than any receiver's own arrival time or the
sender's TX-done; every wait of the sender and of the receiver runs from
those instants and no timer fires early. A frame sent more than once (a
retransmission) leaves it open which copy an ACK answers, so such pairs are
not held to the ACK bounds (the per-sender spacing holds for every frame).
Runs as any user (UDP on the loopback); ports are picked free at run time.
Nothing is asserted about how long anything took beyond sanity upper bounds.
"""
import re
import socket
import subprocess
import time

import pytest

from conftest import HUB, tshark_fields
from wren.addr import eui64, ll
from wren.experiments.zep_rxdone import read_pcap as read_pcap_ns

#: wall-clock bound: ./wren test runs these alone (conftest)
pytestmark = pytest.mark.realtime

OCTET_NS = 32_000
SHR_PHR = 6
TURNAROUND_NS = 192_000      # aTurnaroundTime, 12 symbols
SIFS_NS = 192_000            # macSifsPeriod, 12 symbols
LIFS_NS = 640_000            # macLifsPeriod, 40 symbols
MAX_SIFS_FRAME = 18          # aMaxSIFSFrameSize


def free_udp_ports(n):
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class Frame:
    """What the analysis needs of one 802.15.4 frame (2006 framing, as wren
    and the peers here send)."""

    def __init__(self, t: int, psdu: bytes) -> None:
        # RX-done: the datagram (and its capture time) marks the frame's end
        self.end = t
        self.psdu = psdu
        self.start = t - (SHR_PHR + len(psdu)) * OCTET_NS
        fcf = psdu[0] | psdu[1] << 8
        self.type = fcf & 7
        self.ack_req = bool(fcf & 0x20)
        self.seq = psdu[2]
        self.src = b""
        if self.type == 2:
            return
        dst_mode, src_mode = (fcf >> 10) & 3, (fcf >> 14) & 3
        assert (fcf >> 12) & 3 < 2, "2015 framing not expected here"
        off = 3
        if dst_mode:
            off += 2 + (2 if dst_mode == 2 else 8)
        if src_mode:
            if not fcf & 0x40:
                off += 2
            n = 2 if src_mode == 2 else 8
            self.src = psdu[off:off + n]
            off += n
        self.payload = psdu[off:-2]

    @property
    def ifs(self) -> int:
        return SIFS_NS if len(self.psdu) <= MAX_SIFS_FRAME else LIFS_NS


def check_wire(frames: list[Frame]) -> dict[str, int]:
    """Hold the capture to the standard; return what was checked."""
    seen = {}
    for f in frames:
        if f.type != 2:
            seen[(f.src, f.seq, f.psdu)] = seen.get((f.src, f.seq, f.psdu), 0) + 1
    # ACKs answer the frame right before them on the wire
    acked = {}                       # index of an acknowledged frame -> its ACK
    turnarounds = []
    for i, k in enumerate(frames):
        if k.type != 2 or i == 0:
            continue
        f = frames[i - 1]
        if f.type == 2 or not f.ack_req or f.seq != k.seq or seen[(f.src, f.seq, f.psdu)] > 1:
            continue                 # not unambiguously this frame's ACK
        gap = k.start - f.end
        assert gap >= TURNAROUND_NS, f"ACK {gap} ns after the end of frame {i - 1}"
        assert gap < 1_000_000_000, f"ACK {gap} ns after frame {i - 1}"
        turnarounds.append(gap)
        acked[i - 1] = k
    # each sender's frames: the interframe space after the previous one,
    # and after its ACK when it had one
    spaced = 0
    by_src: dict[bytes, list[int]] = {}
    for i, f in enumerate(frames):
        if f.type != 2:
            by_src.setdefault(f.src, []).append(i)
    for idx in by_src.values():
        for a, b in zip(idx, idx[1:]):
            f, g = frames[a], frames[b]
            assert g.start - f.end >= f.ifs, \
                f"frame {b} starts {g.start - f.end} ns after the end of frame {a} " \
                f"({len(f.psdu)} octets: IFS {f.ifs} ns)"
            if a in acked:
                k = acked[a]
                assert g.start - k.end >= f.ifs, \
                    f"frame {b} starts {g.start - k.end} ns after the ACK of frame {a}"
            spaced += 1
    return {"acks": len(turnarounds), "spaced": spaced,
            "min_turnaround_ns": min(turnarounds) if turnarounds else 0}


def counters(node, name):
    """Counter set @name (mac, zep: both come before 6lowpan) of the shell's stats."""
    out = node.run("stats", r"^6lowpan: ")
    m = re.search(rf"^{name}: (.*\n(?:    .*\n)*)", out, re.M)
    assert m, out
    return {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", m.group(1))}


@pytest.fixture
def zep_pair(host_procs, wren_node, tmp_path):
    """A hub recording into hub.pcap and wren-nodes 1 and 2 on it; yields
    (a, b, the frames the hub recorded, read once the test calls it)."""
    hub_port, pa, pb = free_udp_ports(3)
    pcap = tmp_path / "hub.pcap"
    hub = host_procs.popen(HUB, "--port", hub_port, "--pcap", pcap, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    assert "listening" in hub.stdout.readline()
    a = wren_node("--zep", f"{pa}:{hub_port}", "--id", "1")
    b = wren_node("--zep", f"{pb}:{hub_port}", "--id", "2")
    for n in (a, b):
        n.run("help", r"^exit ")

    def finish(acks=True):
        for n in (a, b):
            z = counters(n, "zep")
            mac = counters(n, "mac")
            assert z["rx_bad_fcs"] == z["rx_malformed"] == z["tx_errors"] == 0, z
            if acks:
                assert z["tx_acks"] > 0 and mac["ack_rx"] > 0 and mac["ack_tx"] > 0, (z, mac)
            # (a datagram that lost a fragment waits out its reassembly: 10 s)
            deadline = time.monotonic() + 15
            while not n.pktbuf_empty():
                assert time.monotonic() < deadline, "the packet buffer is not empty"
            assert n.exit() == 0
        hub.terminate()
        hub.wait(10)
        return [Frame(t, p) for t, p in read_pcap_ns(pcap)]
    finish.pcap = pcap
    yield a, b, finish


def fragments(frames):
    return [f for f in frames
            if f.type == 1 and f.payload and f.payload[0] & 0xF8 in (0xC0, 0xE0)]


def test_zep_wire_timing_of_fragmented_datagrams(zep_pair):
    a, b, finish = zep_pair
    # 1000-byte echoes (ten fragments each way), one at a time, then 300 bytes back
    out = a.run(f"ping {ll(2)} -c 3 -i 1000 -s 1000", r"packets transmitted")
    assert "3 packets transmitted, 3 received" in out, out
    out = b.run(f"ping {ll(1)} -c 2 -i 500 -s 300", r"packets transmitted")
    assert "2 packets transmitted, 2 received" in out, out
    frames = finish()
    frags = fragments(frames)
    pcap = finish.pcap
    assert len(frags) >= 2 * 3 * 10 + 2 * 2 * 3, len(frags)   # FRAG1 + FRAGNs, both ways
    got = check_wire(frames)
    # most frames were acknowledged once, without a retransmission blurring it
    assert got["acks"] >= len(frags) // 2, got
    assert got["spaced"] >= len(frags) - 2, got
    # tshark reads the hub's capture: FCSs good, nothing flagged, every echo
    # reassembled (its heuristic would take some FRAG1s for ZigBee NWK)
    rows = tshark_fields(pcap, "frame.protocols", "wpan.fcs_ok", "_ws.malformed", "_ws.expert",
                         extra=("--disable-protocol", "zbee_nwk"))
    assert len(rows) == len(frames), (len(rows), len(frames))
    assert all(r[1] == "1" and r[2] == r[3] == "" for r in rows), \
        [r for r in rows if r[1] != "1" or r[2] or r[3]]
    assert sum(1 for r in rows if r[0].endswith(":icmpv6:data")) == 2 * 3 + 2 * 2, rows


def test_zep_contention_csma_sees_the_other_sender(zep_pair):
    # both send fragmented datagrams at once: each CCA hears the other's
    # frames through the hub (RX-done: a frame is heard at its end, and one
    # heard while ours is on the air but that was on the air during our CCA
    # makes that CCA busy after all), and the spacing rules still hold on
    # the wire
    a, b, finish = zep_pair
    mark = len(a.lines)
    a._write(f"ping {ll(2)} -c 4 -i 50 -s 1000\n")
    out = b.run(f"ping {ll(1)} -c 4 -i 50 -s 1000", r"packets transmitted")
    assert "4 packets transmitted" in out, out
    # (what got through is the MAC's business: channel access may fail)
    with a.cv:
        assert a.cv.wait_for(lambda: any("packets transmitted" in x for x in a.lines[mark:]),
                             timeout=20), a.lines[mark:]
    busy = [counters(n, "zep")["cca_busy"] for n in (a, b)]
    mac_busy = [counters(n, "mac")["cca_busy"] for n in (a, b)]
    assert sum(busy) > 0 and busy == mac_busy, (busy, mac_busy)
    frames = finish()
    assert len(fragments(frames)) >= 2 * 10, len(frames)
    check_wire(frames)


def _frame(t_us, psdu_len, typ=1, seq=0, ack_req=False, src=b"\x01\x00"):
    """A synthetic frame starting at @t_us, for the checker's own tests (its
    capture time is its end)."""
    fcf = typ | (0x20 if ack_req else 0)
    if typ == 2:
        body = bytes([fcf & 0xFF, fcf >> 8, seq])
    else:
        fcf |= 0x40 | (2 << 10) | (2 << 14)
        body = bytes([fcf & 0xFF, fcf >> 8, seq, 0x23, 0x00, 0xFF, 0xFF]) + src
    body += bytes(max(0, psdu_len - 2 - len(body)))
    return Frame((t_us + (SHR_PHR + psdu_len) * 32) * 1000, body + b"\0\0")


def test_wire_checker_catches_short_spaces():
    # the checker must be able to fail: an ACK 191 us after its frame, a
    # frame 639 us after the ACK of a long one, 191 us after a short one
    air = lambda n: (SHR_PHR + n) * 32
    good = [_frame(0, 100, seq=5, ack_req=True),
            _frame(air(100) + 192, 5, typ=2, seq=5),
            _frame(air(100) + 192 + air(5) + 640, 100, seq=6)]
    assert check_wire(good)["acks"] == 1
    early_ack = [good[0], _frame(air(100) + 191, 5, typ=2, seq=5)]
    with pytest.raises(AssertionError, match="ACK"):
        check_wire(early_ack)
    early_after_ack = good[:2] + [_frame(air(100) + 192 + air(5) + 639, 100, seq=6)]
    with pytest.raises(AssertionError, match="after the ACK"):
        check_wire(early_after_ack)
    short = [_frame(0, 18, seq=1), _frame(air(18) + 191, 18, seq=2)]
    with pytest.raises(AssertionError, match="IFS 192000"):
        check_wire(short)
    check_wire([_frame(0, 18, seq=1), _frame(air(18) + 192, 18, seq=2)])
    long_ = [_frame(0, 19, seq=1), _frame(air(19) + 639, 19, seq=2)]
    with pytest.raises(AssertionError, match="IFS 640000"):
        check_wire(long_)


def test_zep_ack_requests_can_be_turned_off(zep_pair):
    # for peers that never acknowledge (lwIP's zepif): node 1 stops asking
    a, b, finish = zep_pair
    out = a.run("ifconfig 1 ack off\nifconfig 1 ack maybe", r"^error")
    assert "ifconfig IF ack on|off" in out, out
    out = a.run(f"ping {ll(2)} -c 2 -i 300 -s 300", r"packets transmitted")
    assert "2 packets transmitted, 2 received" in out, out
    # node 2's frames that node 1 missed (a collision: RX-done learns of a
    # frame only at its end) or could not answer get no ACK
    missed = counters(a, "zep")["rx_while_tx"] + counters(a, "mac")["ack_tx_busy"]
    frames = finish(acks=False)
    data = [f for f in frames if f.type == 1]
    mine = [f for f in data if f.src == eui64(1)[::-1]]   # frames leave from the EUI-64s
    theirs = [f for f in data if f.src == eui64(2)[::-1]]
    assert len(mine) >= 6 and len(theirs) >= 6, (len(mine), len(theirs))
    assert not any(f.ack_req for f in mine) and all(f.ack_req for f in theirs)
    # only node 2's frames were acknowledged, each one node 1 received
    acks = sum(1 for f in frames if f.type == 2)
    assert acks == len(theirs) - missed, (acks, len(theirs), missed)
    check_wire(frames)


def test_wren_node_zep_channel_options():
    from conftest import NODE
    if not NODE.exists():
        pytest.skip("wren-node not built")

    def run(*args):
        return subprocess.run([str(NODE), "--id", "5", *args, "--exit-on-eof"], input="zep\n",
                              capture_output=True, text=True, timeout=30)
    res = run("--zep", "0:127.0.0.1:9@0")
    assert res.returncode == 0 and "zep channel 0 device 5" in res.stdout, res
    res = run("--zep", "0:127.0.0.1:9", "--any-channel")
    assert res.returncode == 0 and "zep channel 26 (any) device 5" in res.stdout, res
    for bad, why in ((["--zep", "0:9@5"], "--zep wants"), (["--zep", "0:9@"], "--zep wants"),
                     (["--tap", "x", "--any-channel"], "--any-channel needs --zep")):
        res = run(*bad)
        assert res.returncode == 2 and why in res.stderr, res
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    help_ = subprocess.run([str(NODE), "--help"], capture_output=True, text=True).stdout
    assert "--any-channel" in help_ and "or 0 as lwIP's zepif sends" in help_
