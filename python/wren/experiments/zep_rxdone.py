"""wren-node against an RX-done ZEP peer (wren.zep_peer: a radio and MAC
that behave as RIOT's socket_zep under its SubMAC) through wren-zep-hub,
which records the channel (--pcap: each frame stamped when its datagram
arrived, i.e. when the frame ended). Issue 23's records:

- zep_ack_delay_median_us: over 1,000 ACK-requesting frames of the peer on
  the hub's capture (those after 5 warm-up echoes), the time from a frame's datagram to wren's
  ACK datagram (the next frame on the wire, an ACK of the same sequence
  number); RX-done wants 192 us + the ACK's 352 us = 544 us plus the hub's
  and the processes' delays;
- zep_ack_within_864us_ratio: the share of those 1,000 frames whose ACK
  came within macAckWaitDuration (864 us); a frame with no ACK counts as
  late;
- zep_1000B_echo_loss_pct: 1,000-byte ICMPv6 echoes (11 fragments each
  way), ACKs on, the peer pinging wren (one at a time) and wren's shell
  pinging the peer (every 400 ms: an echo and its reply take ~150 ms of
  air, retries more; the peer, like RIOT on ZEP, sends without CCA, so
  echoes that overlap collide): echoes without their reply over echoes
  sent.

Wall-clock figures, measured on this machine as it is (never asserted).

    from wren.experiments import zep_rxdone
    recs = zep_rxdone.bench()
"""
from __future__ import annotations

import re
import socket
import statistics
import struct
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from .. import paths
from ..addr import ll
from ..shellproc import ShellProcess
from ..zep_peer import ACK_WAIT_NS, RxDonePeer, ll_of, mac_parse

PEER_EUI = bytes.fromhex("1234 56ff fe78 9abc")
FRAMES = 1000
ECHOES = 100
WARMUP = 5  # echoes before the frames measured (their echoes count for the loss)


def _free_port() -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _node(*args: object) -> ShellProcess:
    """wren-node driven through its shell on stdin."""
    sh = ShellProcess(subprocess.Popen([str(paths.BUILD / "wren-node"), *map(str, args)],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL, text=True, bufsize=1))
    sh.name = "wren-node"
    return sh


def read_pcap(path: Path) -> list[tuple[int, bytes]]:
    """(capture time ns, PSDU with FCS) of each record of the hub's pcap
    (nanosecond pcap, 802.15.4 with FCS)."""
    d = path.read_bytes()
    magic = struct.unpack_from("<I", d, 0)[0]
    if magic != 0xA1B23C4D or struct.unpack_from("<I", d, 20)[0] != 195:
        raise ValueError(f"{path}: not a nanosecond 802.15.4 pcap (magic {magic:#x})")
    off, out = 24, []
    while off + 16 <= len(d):
        sec, nsec, incl, _ = struct.unpack_from("<IIII", d, off)
        off += 16
        out.append((sec * 1_000_000_000 + nsec, d[off:off + incl]))
        off += incl
    return out


def ack_delays_us(records: list[tuple[int, bytes]], src: bytes, n: int,
                  skip: int = 0) -> list[float | None]:
    """For the first @n ACK-requesting frames from @src on the capture after
    its first @skip frames: the
    time (us) from its datagram to its ACK's (the next frame on the wire if
    that is an ACK of its sequence number), None when no ACK followed."""
    out: list[float | None] = []
    frames = [(t, mac_parse(p)) for t, p in records]
    for i, (t, f) in enumerate(frames):
        if len(out) == n:
            break
        if not f or f["type"] != 1 or f["src"] != src or not f["ack_req"]:
            continue
        if skip:
            skip -= 1
            continue
        nxt = frames[i + 1] if i + 1 < len(frames) else None
        ok = nxt and nxt[1] and nxt[1]["type"] == 2 and nxt[1]["seq"] == f["seq"]
        out.append((nxt[0] - t) / 1000 if ok and nxt else None)
    return out


def run(frames: int = FRAMES, echoes: int = ECHOES, log=print,
        keep_pcap: Path | None = None) -> dict[str, Any]:
    """The exchange and its figures; @keep_pcap: where to copy the hub's capture."""
    hub_port, wport = _free_port(), _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        pcap = Path(tmp) / "hub.pcap"
        hub = subprocess.Popen([str(paths.BUILD / "wren-zep-hub"), "--port", str(hub_port),
                                "--pcap", str(pcap), "--quiet"])
        time.sleep(0.2)
        node = _node("--zep", f"{wport}:127.0.0.1:{hub_port}", "--id", "1")
        peer = RxDonePeer(("127.0.0.1", hub_port), PEER_EUI)
        try:
            node.run("help", r"^exit ")
            peer.hello()
            wren_ll = socket.inet_pton(socket.AF_INET6, ll(1))
            answered = 0
            i = 0
            # warming up (the processes' first packets: page faults, caches)
            while i < WARMUP:
                answered += peer.ping(wren_ll, 0x5A5A, i, 1000)
                i += 1
            skip = peer.stats["tx_frames"]
            # the peer pings wren until the capture holds enough of its frames
            while i < echoes or peer.stats["tx_frames"] < skip + frames + 50:
                answered += peer.ping(wren_ll, 0x5A5A, i, 1000)
                i += 1
            sent_by_peer = i
            peer_ll = socket.inet_ntop(socket.AF_INET6, ll_of(PEER_EUI))
            out = node.run(f"ping {peer_ll} -c {echoes} -i 400 -s 1000", r"packets transmitted",
                           timeout=echoes * 2.0 + 60)
            m = re.search(r"(\d+) packets transmitted, (\d+) received", out)
            assert m, out
            wren_sent, wren_got = int(m.group(1)), int(m.group(2))
            time.sleep(0.5)
            zep_line = node.run("zep", r"^zep ").strip().splitlines()[-1]
        finally:
            peer.close()
            node.close()
            hub.terminate()
            hub.wait(10)
        if keep_pcap:
            keep_pcap.write_bytes(pcap.read_bytes())
        delays = ack_delays_us(read_pcap(pcap), PEER_EUI, frames, skip)
    got = sorted(d for d in delays if d is not None)
    within = sum(1 for d in got if d <= ACK_WAIT_NS / 1000)
    res = {
        "frames": len(delays), "acked": len(got),
        "median_us": statistics.median(got) if got else float("nan"),
        "p99_us": got[int(0.99 * (len(got) - 1))] if got else float("nan"),
        "within_864": within / len(delays) if delays else 0.0,
        "peer_echoes": sent_by_peer, "peer_answered": answered,
        "wren_echoes": wren_sent, "wren_answered": wren_got,
        "loss_pct": 100.0 * (sent_by_peer + wren_sent - answered - wren_got)
        / (sent_by_peer + wren_sent),
        "peer": dict(peer.stats), "wren_zep": zep_line,
    }
    log(f"  {res['frames']} peer frames on the hub's capture, {res['acked']} ACKed: delay "
        f"median {res['median_us']:.0f} us, p99 {res['p99_us']:.0f} us, within 864 us "
        f"{res['within_864']:.3f}")
    log(f"  1,000-byte echoes: peer -> wren {answered}/{sent_by_peer}, wren -> peer "
        f"{wren_got}/{wren_sent}; peer MAC {res['peer']}")
    log(f"  wren-node: {zep_line}")
    return res


def bench() -> list[dict[str, Any]]:
    """./wren bench zep_rxdone: the three records."""
    from ..bench import _record
    r = run()
    same = ("wren-node --zep through wren-zep-hub (its --pcap capture: a frame's time is its "
            "datagram's arrival, the frame's end) against wren.zep_peer, a Python RX-done peer "
            "that behaves as RIOT's socket_zep + SubMAC; this machine, as loaded as it is")
    return [
        _record("zep_ack_delay_median_us", round(r["median_us"], 1), "us", "lower", None,
                f"median over {r['frames']} ACK-requesting frames of the peer (1,000-byte echo "
                f"fragments, after {WARMUP} warm-up echoes): its datagram to wren's ACK datagram; RX-done's own 192 + 352 "
                f"= 544 us included; p99 {r['p99_us']:.0f} us; {same}"),
        _record("zep_ack_within_864us_ratio", round(r["within_864"], 4), "ratio", "higher", 0.99,
                f"of those {r['frames']} frames, ACKed within macAckWaitDuration (864 us) of "
                f"the frame's datagram (no ACK: late); {same}"),
        _record("zep_1000B_echo_loss_pct", round(r["loss_pct"], 2), "%", "lower", 0,
                f"1,000-byte ICMPv6 echoes (11 fragments each way), ACKs on: peer -> wren "
                f"{r['peer_answered']}/{r['peer_echoes']}, wren's shell ping (every 400 ms) -> peer "
                f"{r['wren_answered']}/{r['wren_echoes']}; {same}"),
    ]
