"""What each node of a simulated run sent, forwarded and received, per
application, read from the run's capture (./wren demo's picture).

The counters say how many datagrams a node forwarded (ipv6.rx_forwarded)
but not of which application, and the ping application keeps no counters;
the capture (LINKTYPE 195, the simulator's default) has every frame on the
air. table(pcap, nodes) walks it once:

  - every data frame is read as 802.15.4 (2003/2006 header, no security or
    IEs: other frames are counted as "undecoded"), its 6LoWPAN payload
    decompressed by the stack's own IPHC decoder (wren_wire_iphc_to_ipv6 in
    the simulator library), then the IPv6 extension headers are skipped (an
    IPv6-in-IPv6 tunnel is opened: the inner datagram is the one that counts);
  - a datagram is counted once per hop, at its unfragmented frame or its
    first fragment; a MAC retry (same transmitter, sequence number and bytes
    as its last data frame) is the same datagram;
  - its transmitter "sent" it when it is the (inner) IPv6 source, else it
    "forwarded" it; an address is a node's when its interface identifier is
    one wren makes from the node's id (wren.addr), else it is the first
    transmitter's that sent a frame from it (a datagram goes on the air from
    its source before anybody forwards it);
  - the (inner) destination "received" it when the frame that ends it on a
    hop (the unfragmented frame, or the fragment holding its last byte) was
    addressed to the destination's node and acknowledged: an ACK with the
    frame's sequence number 192 us after its end (a retry's ACK after a lost
    one is the same reception); multicast datagrams are sent and forwarded,
    never counted as received;
  - its application, from the innermost header: "CoAP" (UDP to or from port
    5683/5684), "UDP" (other UDP), "TCP", "ping" (ICMPv6 echo request and
    reply), "RPL" (ICMPv6 155), "ND" (ICMPv6 133-137), else "other".

Every figure is in datagrams (IPv6 packets), the same unit for every
application: TCP's are segments, CoAP's messages, ping's echoes. The table
is a pure function of the capture, so it is the same for the same seed.
"""
import ctypes
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

APPS = ("CoAP", "ping", "TCP", "UDP", "RPL", "ND", "other")
KINDS = ("sent", "forwarded", "received")

LINKTYPE_IEEE802_15_4_WITHFCS = 195
_FRAME_DATA, _FRAME_ACK = 1, 2
_COAP_PORTS = {5683, 5684}
_EXT_HEADERS = {0, 43, 60}          # hop-by-hop, routing, destination options
_IPV6_IN_IPV6 = 41
_SYMBOL_PAIR_US = 32                # one octet at 250 kbit/s
_TURNAROUND_US = 192                # aTurnaroundTime: a frame's end to its ACK
_ACK_SLACK_US = 64                  # drifting crystals and rounding


@dataclass
class Mac:
    """An 802.15.4 frame's header fields this module needs."""
    kind: int
    seq: int
    ack_req: bool
    dst: bytes          # canonical order (big-endian), b"" when absent
    src: bytes
    payload: bytes      # MAC payload, FCS removed


@dataclass
class Datagram:
    """A datagram as far as counting goes: endpoints and application."""
    src: bytes          # the (inner) IPv6 addresses
    dst: bytes
    multicast: bool
    app: str


def read_pcap(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """(timestamp in us, frame) of every record of a LINKTYPE 195 capture."""
    data = Path(path).read_bytes()
    if len(data) < 24:
        raise ValueError(f"{path}: not a pcap file")
    magic, = struct.unpack_from("<I", data)
    if magic != 0xA1B2C3D4:
        raise ValueError(f"{path}: not a little-endian microsecond pcap file")
    linktype, = struct.unpack_from("<I", data, 20)
    if linktype != LINKTYPE_IEEE802_15_4_WITHFCS:
        raise ValueError(f"{path}: link type {linktype}, not 802.15.4 with FCS (195)")
    off = 24
    while off + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack_from("<IIII", data, off)
        yield sec * 1_000_000 + usec, data[off + 16:off + 16 + incl]
        off += 16 + incl


def _addr(frame: bytes, off: int, mode: int) -> tuple[bytes, int]:
    """An address of @mode (2: short, 3: extended) at @off, in canonical order."""
    n = {0: 0, 2: 2, 3: 8}[mode]
    return frame[off:off + n][::-1], off + n


def parse_mac(frame: bytes) -> Mac | None:
    """The header of a 2003/2006 frame without security or IEs, else None
    (IEEE 802.15.4-2006 7.2.1)."""
    if len(frame) < 5:
        return None
    fcf = frame[0] | frame[1] << 8
    kind, sec, ack_req, panc = fcf & 7, fcf >> 3 & 1, fcf >> 5 & 1, fcf >> 6 & 1
    dam, version, sam = fcf >> 10 & 3, fcf >> 12 & 3, fcf >> 14 & 3
    if sec or version > 1 or dam == 1 or sam == 1 or fcf & 0x0300:
        return None
    off = 3 + (2 if dam else 0)
    dst, off = _addr(frame, off, dam)
    off += 2 if sam and not panc else 0
    src, off = _addr(frame, off, sam)
    if off > len(frame) - 2:
        return None
    return Mac(kind, frame[2], bool(ack_req), dst, src, frame[off:-2])


def _node_of_iid(iid: bytes) -> int | None:
    """The node whose interface identifier (from its EUI-64 or its short
    address, wren.addr) is @iid."""
    if iid[:4] == b"\x00\x57\x52\xff":
        return (iid[4] ^ 0xFE) << 24 | iid[5] << 16 | iid[6] << 8 | iid[7]
    if iid[:6] == b"\x00\x00\x00\xff\xfe\x00":
        return iid[6] << 8 | iid[7]
    return None


def _decompress(lib: Any, iphc: bytes, mac: Mac) -> bytes | None:
    """The IPv6 datagram (its first bytes) an IPHC header starts, by the
    stack's own decoder; None when it cannot be read."""
    out = ctypes.create_string_buffer(2048)
    n = lib.wren_wire_iphc_to_ipv6(iphc, len(iphc), mac.src, len(mac.src), mac.dst, len(mac.dst),
                                   None, None, out, len(out))
    return out.raw[:n] if n >= 40 else None


def _application(nh: int, body: bytes) -> str:
    """The application of an upper-layer header @nh starting @body."""
    if nh == 17 and len(body) >= 4:
        sport, dport = struct.unpack_from("!HH", body)
        return "CoAP" if {sport, dport} & _COAP_PORTS else "UDP"
    if nh == 6:
        return "TCP"
    if nh == 58 and body:
        t = body[0]
        return ("ping" if t in (128, 129) else "RPL" if t == 155 else
                "ND" if 133 <= t <= 137 else "other")
    return "other"


def classify(ip6: bytes) -> Datagram | None:
    """Endpoints and application of an IPv6 datagram's first bytes; a
    tunnel's inner datagram counts (RFC 9008: the root's IPv6-in-IPv6)."""
    while len(ip6) >= 40 and ip6[0] >> 4 == 6:
        nh, off = ip6[6], 40
        while nh in _EXT_HEADERS and off + 2 <= len(ip6):
            nh, off = ip6[off], off + (ip6[off + 1] + 1) * 8
        if nh == _IPV6_IN_IPV6:
            ip6 = ip6[off:]
            continue
        return Datagram(ip6[8:24], ip6[24:40], ip6[24] == 0xFF, _application(nh, ip6[off:]))
    return None


def _datagram(lib: Any, mac: Mac) -> tuple[Datagram | None, int | None, int | None]:
    """(datagram, fragment tag, size) that a frame starts, or (None, tag,
    None) for a later fragment, (None, None, None) for what is unreadable."""
    p = mac.payload
    if not p:
        return None, None, None
    if p[0] & 0xF8 == 0xE0 and len(p) >= 5:                        # FRAGN
        return None, p[2] << 8 | p[3], None
    tag = size = None
    if p[0] & 0xF8 == 0xC0 and len(p) >= 4:                        # FRAG1
        size, tag, p = (p[0] & 7) << 8 | p[1], p[2] << 8 | p[3], p[4:]
    if p and p[0] == 0x41:                                         # uncompressed IPv6
        ip6: bytes | None = p[1:]
    elif p and p[0] & 0xE0 == 0x60:                                # IPHC
        ip6 = _decompress(lib, p, mac)
    else:
        return None, None, None
    d = classify(ip6) if ip6 else None
    return (d, tag, size) if d is not None else (None, None, None)


class _Walk:
    """State of one pass over a capture (see table())."""

    def __init__(self, lib: Any, nodes: int) -> None:
        self.lib = lib
        self.rows = [{a: dict.fromkeys(KINDS, 0) for a in APPS} for _ in range(nodes)]
        self.undecoded = 0
        self.last: dict[bytes, tuple[int, bytes]] = {}     # transmitter: (seq, frame)
        self.acked: dict[bytes, tuple[int, bytes]] = {}    # ... its last frame acknowledged
        self.frags: dict[tuple[bytes, int], tuple[Datagram, int]] = {}
        self.owners: dict[bytes, int | None] = {}           # IPv6 address: its node
        # unicast last hops acknowledged: (destination address, link-layer
        # destination's node, application), told apart once every owner is known
        self.acks: list[tuple[bytes, int | None, str]] = []
        # hops awaiting their ACK: (ACK's earliest and latest start, seq, frame, datagram)
        self.pending: list[tuple[int, int, int, bytes, Mac, Datagram]] = []

    def owner(self, address: bytes, sender: int | None = None) -> int | None:
        """The node whose address @address is: the one its interface
        identifier names (wren.addr), else the first to send a frame with it
        as the source (a datagram is sent before it is forwarded), learned
        from @sender."""
        if address not in self.owners:
            node = _node_of_iid(address[8:])
            if node is None and sender is None:
                return None
            self.owners[address] = sender if node is None else node
        return self.owners[address]

    def received(self) -> None:
        """Count as received each acknowledged hop that ended at its
        datagram's destination."""
        for address, node, app in self.acks:
            if node is not None and self.owner(address) == node:
                self.count(node, app, "received")

    def count(self, node: int | None, app: str, kind: str) -> None:
        if node is not None and 0 <= node < len(self.rows):
            self.rows[node][app][kind] += 1

    def frame(self, ts: int, raw: bytes) -> None:
        mac = parse_mac(raw)
        self.pending = [p for p in self.pending if p[1] >= ts]
        if mac is None:
            self.undecoded += 1
        elif mac.kind == _FRAME_ACK:
            self.ack(ts, mac.seq)
        elif mac.kind == _FRAME_DATA:
            retry = self.last.get(mac.src) == (mac.seq, raw)
            self.last[mac.src] = (mac.seq, raw)
            self.data(ts, raw, mac, retry)

    def ack(self, ts: int, seq: int) -> None:
        """An Imm-Ack: the pending last hop it answers (its sequence number,
        192 us after the frame's end) reached the datagram's destination."""
        for i, (lo, hi, s, raw, mac, d) in enumerate(self.pending):
            if s == seq and lo <= ts <= hi:
                del self.pending[i]
                if self.acked.get(mac.src) != (seq, raw):   # a retry's ACK: counted
                    self.acked[mac.src] = (seq, raw)
                    self.acks.append((d.dst, _node_of_iid(_iid_of(mac.dst)), d.app))
                return

    def data(self, ts: int, raw: bytes, mac: Mac, retry: bool) -> None:
        d, tag, size = _datagram(self.lib, mac)
        if d is None and tag is None:
            self.undecoded += 1
            return
        if d is None:                                               # a later fragment
            d, size = self.frags.get((mac.src, tag), (None, 0))
            p = mac.payload
            if d is None or p[4] * 8 + len(p) - 5 < (size or 0):
                return
        else:
            if tag is not None:
                self.frags[(mac.src, tag)] = (d, size or 0)
            if not retry:
                me = _node_of_iid(_iid_of(mac.src))
                self.count(me, d.app, "sent" if me == self.owner(d.src, me) else "forwarded")
            if tag is not None:
                return
        if not d.multicast and mac.ack_req:
            end = ts + (len(raw) + 6) * _SYMBOL_PAIR_US    # + preamble, SFD, length
            self.pending.append((end + _TURNAROUND_US - _ACK_SLACK_US,
                                 end + _TURNAROUND_US + _ACK_SLACK_US, mac.seq, raw, mac, d))


def _iid_of(l2: bytes) -> bytes:
    """RFC 4944 6 / RFC 6282 3.2.2: the IID a link-layer address gives."""
    if len(l2) == 8:
        return bytes([l2[0] ^ 2]) + l2[1:]
    return b"\x00\x00\x00\xff\xfe\x00" + l2


def table(pcap: str | Path, nodes: int) -> dict[str, Any]:
    """Per node and application, the datagrams sent, forwarded and received
    in the capture @pcap of a run of @nodes nodes (see the module's doc):
    {"apps": APPS, "kinds": KINDS, "nodes": [{app: {kind: n}}], "undecoded": n}."""
    from .lib import load
    lib = load()
    fn = lib.wren_wire_iphc_to_ipv6
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
                   ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p,
                   ctypes.c_void_p, ctypes.c_size_t]
    walk = _Walk(lib, nodes)
    for ts, raw in read_pcap(pcap):
        walk.frame(ts, raw)
    walk.received()
    return {"apps": list(APPS), "kinds": list(KINDS), "nodes": walk.rows,
            "undecoded": walk.undecoded}


def totals(tab: dict[str, Any], node: int) -> dict[str, int]:
    """@node's datagrams of every application, per kind."""
    return {k: sum(tab["nodes"][node][a][k] for a in tab["apps"]) for k in tab["kinds"]}
