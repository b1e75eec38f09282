"""A ZEP radio and 802.15.4 MAC that follow the RX-done convention exactly,
as RIOT's socket_zep under its IEEE 802.15.4 SubMAC behaves, with just
enough 6LoWPAN (RFC 6282 IPHC, RFC 4944 fragmentation) and ICMPv6 to
exchange fragmented echoes: the peer wren is tested against
(tests/py/test_zep_rxdone.py) and measured with (./wren bench zep_rxdone).
Written from the standards and from reading RIOT's driver, not from wren.

The radio (802.15.4-2015 O-QPSK 2.4 GHz, 32 us an octet, 6 octets of SHR
and PHR before the PSDU):

- sending: a frame is on the air for its airtime, then its ZEP datagram
  goes out (the datagram marks the frame's END), then TX-done;
- receiving: a datagram is a frame completely received at its arrival (the
  kernel's timestamp), as a radio's RX-done interrupt; frames that arrive
  while we are sending or acknowledging are lost (half-duplex, as
  socket_zep discards what arrives outside RX_ON);
- a unicast frame for us that asks for an ACK gets an Imm-Ack whose
  datagram leaves aTurnaroundTime (192 us) plus the ACK's airtime (352 us)
  after the frame's arrival;
- our frames that ask for an ACK wait macAckWaitDuration (864 us) from
  TX-done (the moment the datagram left): an ACK whose kernel arrival time
  is later does not count; then up to macMaxFrameRetries (3) retries, each
  after a CSMA backoff of 0..7 unit periods (320 us), as the SubMAC does,
  and SIFS/LIFS after each frame (or its ACK).
"""
from __future__ import annotations

import random
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

OCTET_NS = 32_000
SHR_PHR = 6
TURNAROUND_NS = 192_000      # aTurnaroundTime
ACK_WAIT_NS = 864_000        # macAckWaitDuration, 54 symbols
UNIT_BACKOFF_NS = 320_000    # aUnitBackoffPeriod
SIFS_NS, LIFS_NS, MAX_SIFS_FRAME = 192_000, 640_000, 18
MAX_FRAME_RETRIES = 3
ZEP_HDR = 32
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def airtime_ns(psdu_len: int) -> int:
    return (SHR_PHR + psdu_len) * OCTET_NS


def fcs(data: bytes) -> int:
    """ITU-T CRC-16 of 802.15.4 (reflected 0x1021, initial 0)."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def zep_data(channel: int, device: int, seq: int, psdu: bytes) -> bytes:
    """A ZEP v2 data packet in CRC mode (LQI 255) carrying @psdu (FCS included)."""
    now = time.time()
    sec = int(now) + 2208988800
    frac = int((now % 1) * (1 << 32)) & 0xFFFFFFFF
    return (b"EX" + bytes([2, 1, channel]) + struct.pack(">HBBIII", device, 1, 255, sec, frac,
                                                         seq & 0xFFFFFFFF)
            + bytes(10) + bytes([len(psdu)]) + psdu)


# ---- 802.15.4 MAC frames (2006 framing, PAN ID compression) ----------------

def mac_data(seq: int, pan: int, dst: bytes, src: bytes, payload: bytes, ack_req: bool) -> bytes:
    """A data frame from EUI-64 @src to @dst (EUI-64, or b'\\xff\\xff' for
    broadcast), addresses given in their usual order; the PSDU with its FCS."""
    dmode = 3 if len(dst) == 8 else 2
    fcf = 1 | 0x40 | (0x20 if ack_req else 0) | dmode << 10 | 1 << 12 | 3 << 14
    body = struct.pack("<HBH", fcf, seq & 0xFF, pan) + dst[::-1] + src[::-1] + payload
    return body + struct.pack("<H", fcs(body))


def mac_ack(seq: int) -> bytes:
    body = bytes([2, 0, seq & 0xFF])
    return body + struct.pack("<H", fcs(body))


def mac_parse(psdu: bytes) -> dict[str, Any] | None:
    """Type, sequence, ack request, addresses (usual order) and payload of a
    PSDU whose FCS is good; None when it is not one we can read."""
    if len(psdu) < 5 or fcs(psdu[:-2]) != struct.unpack("<H", psdu[-2:])[0]:
        return None
    fcf, seq = struct.unpack_from("<HB", psdu)
    f: dict[str, Any] = {"type": fcf & 7, "seq": seq, "ack_req": bool(fcf & 0x20),
                         "dst": b"", "src": b"", "pan": None, "payload": b""}
    if f["type"] == 2:
        return f
    dmode, smode, off = fcf >> 10 & 3, fcf >> 14 & 3, 3
    if dmode:
        f["pan"] = struct.unpack_from("<H", psdu, off)[0]
        n = 2 if dmode == 2 else 8
        f["dst"] = psdu[off + 2:off + 2 + n][::-1]
        off += 2 + n
    if smode:
        if not fcf & 0x40 or not dmode:
            off += 2
        n = 2 if smode == 2 else 8
        f["src"] = psdu[off:off + n][::-1]
        off += n
    f["payload"] = psdu[off:-2]
    return f


# ---- 6LoWPAN (RFC 6282, RFC 4944) and ICMPv6 --------------------------------

def iid_of(eui: bytes) -> bytes:
    return bytes([eui[0] ^ 2]) + eui[1:]


def ll_of(eui: bytes) -> bytes:
    return bytes.fromhex("fe80000000000000") + iid_of(eui)


def icmp6_checksum(src: bytes, dst: bytes, msg: bytes) -> int:
    data = src + dst + struct.pack(">IxxxB", len(msg), 58) + msg
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f">{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def echo(typ: int, src: bytes, dst: bytes, ident: int, seq: int, data: bytes) -> bytes:
    msg = struct.pack(">BBHHH", typ, 0, 0, ident, seq) + data
    c = icmp6_checksum(src, dst, msg)
    return msg[:2] + struct.pack(">H", c) + msg[4:]


def iphc_ll(hlim: int = 64) -> bytes:
    """IPHC of a link-local packet between the frame's EUI-64s: traffic class
    and flow label elided, next header inline (ICMPv6), hop limit 64, both
    addresses elided (derived from the MAC header)."""
    assert hlim == 64
    return bytes([0x7A, 0x33, 58])


def iphc_decode(b: bytes, mac_src: bytes, mac_dst: bytes) -> tuple[dict[str, Any], int] | None:
    """The IPv6 header fields of an IPHC header (stateless addresses only)
    and its length; None for what this peer does not read."""
    if len(b) < 2 or b[0] >> 5 != 3:
        return None
    tf, nh, hl = b[0] >> 3 & 3, b[0] >> 2 & 1, b[0] & 3
    cid, sac, sam, m, dac, dam = b[1] >> 7, b[1] >> 6 & 1, b[1] >> 4 & 3, b[1] >> 3 & 1, \
        b[1] >> 2 & 1, b[1] & 3
    if nh or cid or sac or dac:
        return None
    off = 2 + (4, 3, 1, 0)[tf]
    nxt = b[off]
    off += 1
    hlim = {0: None, 1: 1, 2: 64, 3: 255}[hl]
    if hlim is None:
        hlim = b[off]
        off += 1

    def unicast(mode: int, mac: bytes) -> bytes:
        nonlocal off
        if mode == 0:
            a = b[off:off + 16]
            off += 16
            return a
        pre = bytes.fromhex("fe80000000000000")
        if mode == 1:
            a = pre + b[off:off + 8]
            off += 8
            return a
        if mode == 2:
            a = pre + bytes.fromhex("000000fffe00") + b[off:off + 2]
            off += 2
            return a
        return pre + (iid_of(mac) if len(mac) == 8 else bytes.fromhex("000000fffe00") + mac)

    src = unicast(sam, mac_src)
    if m:
        n = (16, 6, 4, 1)[dam]
        x = b[off:off + n]
        off += n
        dst = (x if dam == 0 else
               bytes([0xFF, x[0]]) + bytes(9) + x[1:] if dam == 1 else
               bytes([0xFF, x[0]]) + bytes(11) + x[1:] if dam == 2 else
               bytes.fromhex("ff02") + bytes(13) + x)
    else:
        dst = unicast(dam, mac_dst)
    return {"nh": nxt, "hlim": hlim, "src": src, "dst": dst}, off


def fragments(iphc: bytes, upper: bytes, tag: int, room: int) -> list[bytes]:
    """RFC 4944 5.3: FRAG1 and FRAGNs of a datagram of IPv6 header (carried
    compressed as @iphc) and @upper, in MAC payloads of @room octets; every
    fragment but the last carries a multiple of 8 octets of the uncompressed
    datagram."""
    size = 40 + len(upper)
    if len(iphc) + len(upper) <= room:
        return [iphc + upper]
    first = (room - 4 - len(iphc) + 40) // 8 * 8 - 40
    out = [struct.pack(">HH", 0xC000 | size, tag) + iphc + upper[:first]]
    done = 40 + first
    step = (room - 5) // 8 * 8
    while done < size:
        chunk = upper[done - 40:done - 40 + step]
        out.append(struct.pack(">HHB", 0xE000 | size, tag, done // 8) + chunk)
        done += len(chunk)
    return out


class Reassembly:
    """RFC 4944 5.3 reassembly of one sender's datagrams (keyed by source,
    tag and size), with the timeout a stack would have."""

    def __init__(self, timeout_s: float = 10.0) -> None:
        self.slots: dict[tuple[bytes, int, int], dict[str, Any]] = {}
        self.timeout_s = timeout_s

    def take(self, src: bytes, dst: bytes, payload: bytes) -> tuple[dict[str, Any], bytes] | None:
        """Feed one MAC payload; the (IPv6 header, upper-layer bytes) of a
        datagram it completes, or None."""
        now = time.monotonic()
        for k in [k for k, v in self.slots.items() if now - v["t"] > self.timeout_s]:
            del self.slots[k]
        d = payload[0] if payload else 0
        if d & 0xF8 not in (0xC0, 0xE0):
            dec = iphc_decode(payload, src, dst)
            return (dec[0], payload[dec[1]:]) if dec else None
        size = struct.unpack_from(">H", payload)[0] & 0x7FF
        tag = struct.unpack_from(">H", payload, 2)[0]
        slot = self.slots.setdefault((src, tag, size), {"t": now, "parts": {}, "hdr": None})
        if d & 0xF8 == 0xC0:
            dec = iphc_decode(payload[4:], src, dst)
            if dec is None:
                del self.slots[(src, tag, size)]
                return None
            slot["hdr"] = dec[0]
            slot["parts"][0] = payload[4 + dec[1]:]
        else:
            slot["parts"][payload[4] * 8 - 40] = payload[5:]
        got = sum(len(p) for p in slot["parts"].values())
        if slot["hdr"] is None or got < size - 40:
            return None
        del self.slots[(src, tag, size)]
        upper = b"".join(p for _, p in sorted(slot["parts"].items()))
        return (slot["hdr"], upper[:size - 40]) if len(upper) == size - 40 else None


# ---- the radio and MAC ------------------------------------------------------

class RxDonePeer:
    """A radio + MAC + 6LoWPAN peer on ZEP (see the module's docstring).
    send_ip() queues a datagram; on_ip (header, upper bytes) hears them.
    Echo requests for us are answered by default."""

    def __init__(self, remote: tuple[str, int], eui: bytes, channel: int = 26,
                 pan: int = 0x23, device: int = 0x77, seed: int = 1) -> None:
        self.remote, self.eui, self.channel, self.pan, self.device = remote, eui, channel, pan, device
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.rng = random.Random(seed)
        self.stats = {k: 0 for k in (
            "tx_frames", "tx_acked", "tx_retries", "tx_noack", "tx_ack_late", "tx_acks",
            "rx_frames", "rx_acks", "rx_while_tx", "rx_dups", "rx_bad", "rx_datagrams")}
        self.radio = threading.Lock()        # one transmission at a time (ours or an ACK)
        self.busy: list[tuple[int, int]] = []  # our transmissions, wall-clock ns
        self.seq, self.zseq, self.tag = self.rng.randrange(256), 0, self.rng.randrange(65536)
        self.wait_seq: int | None = None
        self.ack_at: int | None = None
        self.ack_cv = threading.Condition()
        self.last_rx: dict[bytes, int] = {}
        self.reasm = Reassembly()
        self.on_ip: Callable[[dict[str, Any], bytes], None] | None = None
        self.answer_echo = True
        self.replies: dict[tuple[int, int], bytes] = {}
        self.replies_cv = threading.Condition()
        self.txq: list[tuple[bytes, bytes]] = []
        self.txq_cv = threading.Condition()
        self.stop_ = False
        self.threads = [threading.Thread(target=self._rx_loop, daemon=True),
                        threading.Thread(target=self._tx_loop, daemon=True)]
        for t in self.threads:
            t.start()

    # -- timing helpers
    @staticmethod
    def _sleep_until(t_ns: int) -> None:
        """Never sooner (no spinning: the CPU is the processes' under test)."""
        while True:
            left = t_ns - time.time_ns()
            if left <= 0:
                return
            time.sleep(left / 1e9)

    def _xmit(self, psdu: bytes) -> int:
        self.sock.sendto(zep_data(self.channel, self.device, self.zseq, psdu), self.remote)
        self.zseq += 1
        return time.time_ns()

    # -- receiving
    def _rx_loop(self) -> None:
        while not self.stop_:
            try:
                self.sock.settimeout(0.2)
                data, anc, _, _ = self.sock.recvmsg(512, socket.CMSG_SPACE(16))
            except (socket.timeout, OSError):
                continue
            at = time.time_ns()
            for lvl, typ, val in anc:
                if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", val[:16])
                    at = sec * 1_000_000_000 + nsec
            self._datagram(data, at)

    def _datagram(self, data: bytes, at: int) -> None:
        if len(data) < ZEP_HDR or data[:2] != b"EX" or data[2] != 2 or data[3] != 1:
            return                                   # not a ZEP v2 data packet (hello, ACK)
        if data[4] != self.channel or len(data) < ZEP_HDR + data[31]:
            return
        psdu = data[ZEP_HDR:ZEP_HDR + data[31]]
        if any(a <= at and at - airtime_ns(len(psdu)) < b for a, b in self.busy[-4:]):
            self.stats["rx_while_tx"] += 1           # we were sending: not listening
            return
        f = mac_parse(psdu)
        if f is None:
            self.stats["rx_bad"] += 1
            return
        if f["type"] == 2:
            self.stats["rx_acks"] += 1
            with self.ack_cv:
                if self.wait_seq == f["seq"] and self.ack_at is None:
                    self.ack_at = at
                    self.ack_cv.notify_all()
            return
        if f["type"] != 1 or f["pan"] not in (self.pan, 0xFFFF):
            return
        unicast = f["dst"] == self.eui
        if not unicast and f["dst"] != b"\xff\xff":
            return                                   # the address filter
        self.stats["rx_frames"] += 1
        if unicast and f["ack_req"]:
            self._send_ack(f["seq"], at)
        if unicast and self.last_rx.get(f["src"]) == f["seq"]:
            self.stats["rx_dups"] += 1               # our ACK was lost: seen already
            return
        if unicast:
            self.last_rx[f["src"]] = f["seq"]
        got = self.reasm.take(f["src"], f["dst"], f["payload"])
        if got:
            self.stats["rx_datagrams"] += 1
            self._ip(*got)

    def _send_ack(self, seq: int, at: int) -> None:
        """Imm-Ack: on the air aTurnaroundTime after the frame's end (its
        arrival), its datagram when its own airtime has passed."""
        with self.radio:
            on_air = at + TURNAROUND_NS
            self.busy.append((max(on_air - TURNAROUND_NS, 0), on_air + airtime_ns(5)))
            self._sleep_until(on_air + airtime_ns(5))
            self._xmit(mac_ack(seq))
            self.stats["tx_acks"] += 1

    def _ip(self, hdr: dict[str, Any], upper: bytes) -> None:
        if self.on_ip:
            self.on_ip(hdr, upper)
        if hdr["nh"] != 58 or len(upper) < 8 or icmp6_checksum(hdr["src"], hdr["dst"], upper):
            return
        typ, ident, seq = upper[0], *struct.unpack_from(">HH", upper, 4)
        if typ == 128 and self.answer_echo and hdr["dst"] == ll_of(self.eui):
            self.send_ip(hdr["src"], echo(129, hdr["dst"], hdr["src"], ident, seq, upper[8:]))
        elif typ == 129:
            with self.replies_cv:
                self.replies[(ident, seq)] = upper[8:]
                self.replies_cv.notify_all()

    # -- sending
    def send_ip(self, dst_ll: bytes, icmp: bytes) -> None:
        """Queue an ICMPv6 message to a link-local address whose IID is an
        EUI-64's (the frame goes to that EUI-64)."""
        dst_eui = bytes([dst_ll[8] ^ 2]) + dst_ll[9:16]
        self.tag = (self.tag + 1) & 0xFFFF
        room = 127 - 2 - 21                           # PSDU, FCS, MHR between EUI-64s
        with self.txq_cv:
            for p in fragments(iphc_ll(), icmp, self.tag, room):
                self.txq.append((dst_eui, p))
            self.txq_cv.notify_all()

    def _tx_loop(self) -> None:
        while True:
            with self.txq_cv:
                while not self.txq and not self.stop_:
                    self.txq_cv.wait(0.2)
                if self.stop_:
                    return
                dst, payload = self.txq.pop(0)
            self.seq = (self.seq + 1) & 0xFF
            self._send_frame(mac_data(self.seq, self.pan, dst, self.eui, payload, True))

    def _send_frame(self, psdu: bytes) -> None:
        seq, ifs = psdu[2], SIFS_NS if len(psdu) <= MAX_SIFS_FRAME else LIFS_NS
        end = time.time_ns()
        for attempt in range(MAX_FRAME_RETRIES + 1):
            if attempt:
                self.stats["tx_retries"] += 1
            # the SubMAC's CSMA backoff (BE 3); socket_zep has no CCA
            self._sleep_until(time.time_ns() + self.rng.randrange(8) * UNIT_BACKOFF_NS)
            with self.ack_cv:
                self.wait_seq, self.ack_at = seq, None
            with self.radio:
                start = time.time_ns()
                self.busy.append((start, start + airtime_ns(len(psdu))))
                at = len(self.busy) - 1              # (ACKs wait for the radio: still ours)
                self._sleep_until(start + airtime_ns(len(psdu)))
                sent = self._xmit(psdu)              # RX-done: the datagram marks the end
                self.busy[at] = (start, sent)
                del self.busy[:-8]
            self.stats["tx_frames"] += 1
            with self.ack_cv:
                # wait generously in wall time, judge by the kernel's stamps
                self.ack_cv.wait_for(lambda: self.ack_at is not None, timeout=0.05)
                ack_at = self.ack_at
                self.wait_seq = None
            end = sent
            if ack_at is not None and ack_at - sent <= ACK_WAIT_NS:
                self.stats["tx_acked"] += 1
                end = ack_at
                break
            if ack_at is not None:
                self.stats["tx_ack_late"] += 1
        else:
            self.stats["tx_noack"] += 1
        self._sleep_until(end + ifs)

    def hello(self) -> None:
        """A ZEP v2 acknowledgement packet, so that a dispatcher (wren-zep-hub)
        learns us before we have anything to say."""
        self.sock.sendto(b"EX\x02\x02" + struct.pack(">I", 0), self.remote)

    # -- echoes
    def ping(self, dst_ll: bytes, ident: int, seq: int, size: int, timeout_s: float = 5.0) -> bool:
        """Send one echo request of @size data octets; whether its reply came."""
        data = bytes((seq + i) & 0xFF for i in range(size))
        self.send_ip(dst_ll, echo(128, ll_of(self.eui), dst_ll, ident, seq, data))
        with self.replies_cv:
            ok = self.replies_cv.wait_for(lambda: (ident, seq) in self.replies, timeout_s)
            return bool(ok) and self.replies.pop((ident, seq)) == data

    def close(self) -> None:
        self.stop_ = True
        for t in self.threads:
            t.join(2)
        self.sock.close()
