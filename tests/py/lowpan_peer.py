"""A 6LoWPAN host written here from the RFCs, not from wren: it speaks ZEP
v2 to a wren-zep-hub as a radio would and behaves as the deployed stacks'
hosts do (RIOT GNRC's 6LN, RFC 6775):

  - it solicits routers (RS with SLLAO to ff02::2) and takes an RA only if it
    carries an ABRO (RFC 6775 8.1.3: RIOT's 6LN and 6LR ignore RAs without
    one); it keeps PIO, 6CO (contexts) and ABRO from it;
  - it forms its address from the PIO and its EUI-64 (RFC 4944 6) and
    registers it (NS with SLLAO and ARO to the router, RFC 6775 5.5), the
    registered address as the NS's source and target;
  - it pings and answers echo requests (ICMPv6, RFC 4443);
  - its MAC acknowledges frames that ask for it (802.15.4 ACK in ZEP) as the
    OS ports that model a radio on ZEP do: a datagram marks the end of its
    frame (RX-done), the ACK's datagram leaves aTurnaroundTime (192 us) plus
    the ACK's airtime (11 octets, 352 us) after it; it drops repeated frames
    (same source and sequence number) as a duplicate filter does, and
    reassembles fragments (RFC 4944 5.3).

It sends IPHC (RFC 6282) with every address inline (SAM/DAM 00), which
every decoder must take, and decodes the forms a peer may send: addresses
inline, from the link address, or from a context it learned by 6CO. No wren
code is used.
"""
import ipaddress
import socket
import struct
import time

ALL_ROUTERS = "ff02::2"
ZEP_DATA, ZEP_ACK = 1, 2
ACK_AFTER_S = (192 + 11 * 32) / 1e6   # aTurnaroundTime + the ACK's airtime
ACK_WAIT_S = 0.03    # the ACK's wait: generous, a process is no radio
MAC_RETRIES = 3      # macMaxFrameRetries


def fcs(psdu: bytes) -> bytes:
    """802.15.4's FCS (CRC-16/KERMIT), little-endian."""
    crc = 0
    for b in psdu:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc.to_bytes(2, "little")


def csum(src: str, dst: str, nh: int, body: bytes) -> int:
    """The upper-layer checksum over the IPv6 pseudo-header (RFC 8200 8.1)."""
    data = (ipaddress.IPv6Address(src).packed + ipaddress.IPv6Address(dst).packed +
            struct.pack(">IxxxB", len(body), nh) + body)
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f">{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def iid_of(l2: bytes) -> bytes:
    """RFC 4944 6: IID from an EUI-64 (U/L inverted) or a short address."""
    if len(l2) == 8:
        return bytes([l2[0] ^ 2]) + l2[1:]
    return bytes.fromhex("000000fffe00") + l2


def nd_options(body: bytes):
    """(type, bytes of the whole option) of an ND message's options."""
    off = {133: 8, 134: 16, 135: 24, 136: 24}[body[0]]
    while off + 2 <= len(body):
        t, n = body[off], body[off + 1] * 8
        if n == 0 or off + n > len(body):
            return
        yield t, body[off:off + n]
        off += n


class Peer:
    """One host on the ZEP channel @channel of the hub at 127.0.0.1:@hub."""

    def __init__(self, hub: int, eui: bytes, channel: int = 26, pan: int = 0x23) -> None:
        self.eui, self.channel, self.pan = eui, channel, pan
        self.ll = str(ipaddress.IPv6Address(b"\xfe\x80" + bytes(6) + iid_of(eui)))
        self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.s.bind(("127.0.0.1", 0))
        self.hub = ("127.0.0.1", hub)
        self.seq = 0
        self.zseq = 0
        self.contexts: dict[int, tuple[bytes, int]] = {}
        self.seen: dict[bytes, int] = {}    # duplicate filter: source -> last sequence
        self.frags: dict[tuple[bytes, int], dict] = {}
        self.got: list[tuple[str, str, int, bytes]] = []  # (src, dst, hlim, ICMPv6 body)
        self.acks_sent = 0
        self.acked: int | None = None
        self.retries = 0
        self.dups_dropped = 0
        # a ZEP ACK packet introduces us to the hub (as wren-node does)
        self._zep(struct.pack(">2sBBI", b"EX", 2, ZEP_ACK, 0))

    def close(self) -> None:
        self.s.close()

    # ---- sending ----------------------------------------------------------
    def _zep(self, pkt: bytes) -> None:
        self.s.sendto(pkt, self.hub)

    def _frame(self, psdu: bytes) -> None:
        frame = psdu + fcs(psdu)
        self.zseq += 1
        self._zep(b"EX" + bytes([2, ZEP_DATA, self.channel]) + (0x99).to_bytes(2, "big") +
                  bytes([1, 255]) + bytes(8) + self.zseq.to_bytes(4, "big") + bytes(10) +
                  bytes([len(frame)]) + frame)

    def send_ip(self, src: str, dst: str, body: bytes, l2dst: bytes | None,
                hlim: int = 255) -> None:
        """ICMPv6 @body (checksum filled here) in one frame, IPHC with both
        addresses inline; @l2dst None: broadcast."""
        body = body[:2] + struct.pack(">H", 0) + body[4:]
        body = body[:2] + struct.pack(">H", csum(src, dst, 58, body)) + body[4:]
        hl = {1: 1, 64: 2, 255: 3}.get(hlim, 0)
        iphc = bytes([0x60 | 0x18 | hl, 0x00])   # TF elided, NH inline, SAM/DAM 00
        iphc += b"\x3a" + (bytes([hlim]) if hl == 0 else b"")
        iphc += ipaddress.IPv6Address(src).packed + ipaddress.IPv6Address(dst).packed
        self.seq = (self.seq + 1) & 0xFF
        if l2dst is None:   # broadcast: short 0xffff, no ACK
            mhr = struct.pack("<HBHH", 0xC841, self.seq, self.pan, 0xFFFF) + self.eui[::-1]
        else:               # unicast EUI-64 to EUI-64, ACK requested
            mhr = struct.pack("<HBH", 0xCC61, self.seq, self.pan) + l2dst[::-1] + self.eui[::-1]
        assert len(mhr) + len(iphc) + len(body) + 2 <= 127, "one frame only"
        for _ in range(1 if l2dst is None else 1 + MAC_RETRIES):
            self._frame(mhr + iphc + body)
            if l2dst is None or self._acked(self.seq):
                return
            self.retries += 1

    def _acked(self, seq: int) -> bool:
        """Wait for the ACK of our frame @seq (frames meanwhile are taken)."""
        self.acked = None
        end = time.monotonic() + ACK_WAIT_S
        while self.acked != seq and (left := end - time.monotonic()) > 0:
            self.s.settimeout(left)
            try:
                self._zep_in(self.s.recv(2048))
            except socket.timeout:
                break
        return self.acked == seq

    # ---- receiving --------------------------------------------------------
    def poll(self, seconds: float) -> None:
        """Take what arrives for @seconds."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            self.s.settimeout(left)
            try:
                pkt = self.s.recv(2048)
            except socket.timeout:
                return
            self._zep_in(pkt)

    def _zep_in(self, pkt: bytes) -> None:
        if len(pkt) < 32 or pkt[:2] != b"EX" or pkt[2] != 2 or pkt[3] != ZEP_DATA:
            return
        if pkt[4] != self.channel:
            return
        n = pkt[31]
        frame = pkt[32:32 + n]
        if len(frame) != n or n < 5 or fcs(frame[:-2]) != frame[-2:]:
            return
        self._mac_in(frame[:-2])

    def _mac_in(self, f: bytes) -> None:
        fcf = f[0] | f[1] << 8
        if fcf & 7 == 2 and len(f) == 3:
            self.acked = f[2]
            return
        if fcf & 7 != 1 or fcf & 8:   # data frames, unsecured
            return
        seq, off = f[2], 3
        dmode, smode = (fcf >> 10) & 3, (fcf >> 14) & 3
        if dmode:
            off += 2
        alen = {0: 0, 2: 2, 3: 8}
        dst = f[off:off + alen[dmode]][::-1]
        off += alen[dmode]
        if smode and not fcf & 0x40:
            off += 2
        src = f[off:off + alen[smode]][::-1]
        off += alen[smode]
        if dst not in (self.eui, b"\xff\xff"):
            return
        if fcf & 0x20 and dst == self.eui:   # AR: acknowledge (RX-done timing)
            until = time.perf_counter() + ACK_AFTER_S
            while time.perf_counter() < until:
                pass
            self._frame(bytes([0x02, 0x00, seq]))
            self.acks_sent += 1
        if self.seen.get(src) == seq:
            self.dups_dropped += 1
            return
        self.seen[src] = seq
        self._lowpan_in(f[off:], src, dst)

    def _lowpan_in(self, p: bytes, src: bytes, dst: bytes) -> None:
        if p[:1] == b"\x41":
            self._ip_in(p[1:])
        elif p and p[0] & 0xE0 == 0x60:
            self._ip_in(self._iphc(p, src, dst, None))
        elif p and p[0] & 0xF8 in (0xC0, 0xE0):
            size = ((p[0] & 7) << 8) | p[1]
            tag = struct.unpack(">H", p[2:4])[0]
            d = self.frags.setdefault((src, tag), {"size": size, "parts": {}})
            if p[0] & 0xF8 == 0xC0:
                d["parts"][0] = self._iphc(p[4:], src, dst, size)
            else:
                d["parts"][p[4] * 8] = p[5:]
            have = sorted(d["parts"].items())
            buf = b""
            for o, data in have:
                if o != len(buf):
                    return
                buf += data
            if len(buf) >= size:
                del self.frags[(src, tag)]
                self._ip_in(buf[:size])

    def _addr(self, r: list, sac: int, mode: int, l2: bytes, ctx: int) -> bytes:
        """RFC 6282 3.1.1, a unicast address: @r is [bytes, offset]."""
        b, off = r
        if sac and mode == 0:
            return bytes(16)
        n = {0: 16, 1: 8, 2: 2, 3: 0}[mode]
        inl = b[off:off + n]
        r[1] += n
        if mode == 0:
            return inl
        iid = inl if mode == 1 else (bytes.fromhex("000000fffe00") + inl if mode == 2
                                     else iid_of(l2))
        if not sac:
            return b"\xfe\x80" + bytes(6) + iid
        prefix, plen = self.contexts[ctx]
        a = int.from_bytes(bytes(8) + iid, "big")
        mask = ((1 << plen) - 1) << (128 - plen)
        return ((a & ~mask) | (int.from_bytes(prefix, "big") & mask)).to_bytes(16, "big")

    def _iphc(self, p: bytes, l2src: bytes, l2dst: bytes, size: int | None) -> bytes:
        """RFC 6282: the IPv6 header and the rest of @p; @size the datagram's
        (a first fragment), else from the bytes."""
        a, b = p[0], p[1]
        r = [p, 2]
        sci = dci = 0
        if b & 0x80:
            sci, dci = p[2] >> 4, p[2] & 15
            r[1] += 1
        tf = (a >> 3) & 3
        tc_fl = 0
        if tf == 0:
            x = p[r[1]:r[1] + 4]
            r[1] += 4
            tc_fl = ((((x[0] >> 6) | ((x[0] & 0x3F) << 2)) & 0xFF) << 20) | \
                (int.from_bytes(x[1:], "big") & 0xFFFFF)
        elif tf == 1:
            x = p[r[1]:r[1] + 3]
            r[1] += 3
            tc_fl = ((x[0] >> 6) << 20) | (int.from_bytes(x, "big") & 0xFFFFF)
        elif tf == 2:
            x = p[r[1]]
            r[1] += 1
            tc_fl = (((x >> 6) | ((x & 0x3F) << 2)) & 0xFF) << 20
        if a & 4:
            raise ValueError("NHC: not sent to this host")
        nh = p[r[1]]
        r[1] += 1
        hlim = {1: 1, 2: 64, 3: 255}.get(a & 3)
        if hlim is None:
            hlim = p[r[1]]
            r[1] += 1
        src = self._addr(r, b & 0x40, (b >> 4) & 3, l2src, sci)
        dam = b & 3
        if b & 8:   # multicast
            n = {0: 16, 1: 6, 2: 4, 3: 1}[dam]
            x = p[r[1]:r[1] + n]
            r[1] += n
            dst = (x if dam == 0 else
                   b"\xff" + x[:1] + bytes(9) + x[1:] if dam == 1 else
                   b"\xff" + x[:1] + bytes(11) + x[1:] if dam == 2 else
                   b"\xff\x02" + bytes(13) + x)
        else:
            dst = self._addr(r, b & 4, dam, l2dst, dci)
        rest = p[r[1]:]
        plen = (size - 40) if size else len(rest)
        hdr = struct.pack(">IHBB", 0x60000000 | tc_fl, plen, nh, hlim) + src + dst
        return hdr + rest

    def _ip_in(self, d: bytes) -> None:
        if len(d) < 40 or d[6] != 58:
            return
        src = str(ipaddress.IPv6Address(d[8:24]))
        dst = str(ipaddress.IPv6Address(d[24:40]))
        body = d[40:40 + struct.unpack(">H", d[4:6])[0]]
        if csum(src, dst, 58, body) != 0:
            return
        self.got.append((src, dst, d[7], body))

    # ---- the host ---------------------------------------------------------
    def take(self, icmp_type: int) -> list[tuple[str, str, int, bytes]]:
        """The messages of @icmp_type received so far (removed)."""
        out = [m for m in self.got if m[3][0] == icmp_type]
        self.got = [m for m in self.got if m[3][0] != icmp_type]
        return out

    def solicit(self, tries: int = 10) -> dict:
        """RS until an RA with an ABRO comes; @return its options:
        {'router': ll, 'l2': SLLAO bytes, 'pio': [(prefix, len)],
         '6co': [(cid, prefix, len)], 'abro': (version, address), 'types': [..]}"""
        for _ in range(tries):
            sll = bytes([1, 2]) + self.eui + bytes(6)
            self.send_ip(self.ll, ALL_ROUTERS, bytes([133, 0, 0, 0, 0, 0, 0, 0]) + sll, None)
            self.poll(1.0)
            for src, _dst, hlim, body in self.take(134):
                ra = self.parse_ra(src, hlim, body)
                if ra and ra["abro"]:   # RFC 6775 8.1.3: no ABRO, not taken
                    return ra
        raise AssertionError("no RA with an ABRO")

    def parse_ra(self, src: str, hlim: int, body: bytes) -> dict | None:
        if hlim != 255 or not src.startswith("fe80:") or len(body) < 16:
            return None
        ra = {"router": src, "l2": None, "pio": [], "6co": [], "abro": None, "types": []}
        for t, o in nd_options(body):
            ra["types"].append(t)
            if t == 1:
                ra["l2"] = o[2:10] if o[1] == 2 else o[2:4]
            elif t == 3 and len(o) == 32:
                ra["pio"].append((o[16:32], o[2]))
            elif t == 34 and o[1] in (2, 3):
                plen, cid = o[2], o[3] & 15
                prefix = (o[8:] + bytes(16))[:16]
                ra["6co"].append((cid, prefix, plen))
                self.contexts[cid] = (prefix, plen)
            elif t == 35 and len(o) == 24:
                ver = struct.unpack(">HH", o[2:6])
                ra["abro"] = ((ver[1] << 16) | ver[0],
                              str(ipaddress.IPv6Address(o[8:24])))
        return ra

    def register(self, addr: str, router: str, router_l2: bytes, tries: int = 10) -> int:
        """NS+ARO for @addr to @router until an NA answers; @return its status."""
        for _ in range(tries):
            sll = bytes([1, 2]) + self.eui + bytes(6)
            aro = struct.pack(">BBBBBBH", 33, 2, 0, 0, 0, 0, 15) + self.eui
            ns = bytes([135, 0, 0, 0, 0, 0, 0, 0]) + ipaddress.IPv6Address(addr).packed
            self.send_ip(addr, router, ns + sll + aro, router_l2)
            self.poll(1.0)
            for _src, _dst, _h, body in self.take(136):
                for t, o in nd_options(body):
                    if t == 33 and o[8:16] == self.eui:
                        return o[2]
        raise AssertionError("no NA to the registration")

    def ping(self, src: str, dst: str, l2: bytes, count: int = 3, size: int = 16) -> int:
        """Echo requests to @dst (via link address @l2); @return the number
        of distinct requests answered."""
        ident = 0x4242
        answered = set()
        for seq in range(count):
            data = bytes((i + seq) & 0xFF for i in range(size))
            for _ in range(5):
                self.send_ip(src, dst, struct.pack(">BBHHH", 128, 0, 0, ident, seq) + data, l2,
                             hlim=64)
                self.poll(0.5)
                for _s, _d, _h, body in self.take(129):
                    i, q = struct.unpack(">HH", body[4:8])
                    if i == ident and body[8:] == bytes((k + q) & 0xFF for k in range(size)):
                        answered.add(q)
                self.answer_echoes(src, l2)
                if seq in answered:
                    break
        return len(answered)

    def answer_echoes(self, own: str, l2: bytes) -> int:
        """Answer the echo requests to @own received so far (via @l2)."""
        n = 0
        for s, d, _h, body in self.take(128):
            if d == own:
                self.send_ip(own, s, bytes([129]) + body[1:], l2, hlim=64)
                n += 1
        return n
