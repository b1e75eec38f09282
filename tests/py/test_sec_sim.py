"""802.15.4 security between simulated nodes (src/link/ieee802154_sec.c):
pings over 6LoWPAN with ENC-MIC-32 and MIC-64 that tshark, given the key,
decrypts and dissects down to ICMPv6 with nothing flagged; a replayed
frame, a flipped MIC bit, an unknown key index, an unsecured frame where
security is required: each dropped and counted by its reason, the packet
buffers clean; a node without the key cannot talk to one with it."""
import struct

from conftest import tshark_fields
from wren.addr import eui64_str, ll

K2 = "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf"
OTHER = "00112233445566778899aabbccddeeff"


def keys_pref(key=K2, index=2):
    return ["-o", f'uat:ieee802154_keys:"{key}","{index}","No hash"']


def fcs(data: bytes) -> bytes:
    """CRC-16/KERMIT, little-endian, as 802.15.4 sends it."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return struct.pack("<H", crc)


def pcap_frames(path):
    """The PSDUs (FCS included) of a pcap file, in order."""
    data = path.read_bytes()
    linktype = struct.unpack_from("<I", data, 20)[0]
    off, out = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        rec = data[off + 16:off + 16 + incl]
        if linktype == 283:  # a TAP header (its length at 2..3) before the PSDU
            rec = rec[struct.unpack_from("<H", rec, 2)[0]:]
        out.append(rec)
        off += 16 + incl
    return out


def secured_from(frames, src_node):
    """Secured data frames from @src_node's EUI-64, as (psdu, frame counter,
    offset of the auxiliary security header). wren's frames: version 2006,
    PAN ID compressed, extended destination and source."""
    src = bytes.fromhex(eui64_str(src_node).replace(":", ""))[::-1]
    out = []
    for f in frames:
        fcf = int.from_bytes(f[:2], "little")
        if fcf & 7 != 1 or not fcf & 8 or (fcf >> 10) & 3 != 3 or (fcf >> 14) != 3:
            continue
        if f[13:21] != src:
            continue
        out.append((f, int.from_bytes(f[22:26], "little"), 21))
    return out


def pair(sim_factory, level, pcap=None, n=2):
    s = sim_factory(7)
    for i in range(n):
        s.add_node(10 * i, 0)
    for a in range(n):
        for b in range(n):
            if a != b:
                s.set_link(a, b, 1.0)
    if pcap:
        s.open_pcap(pcap)
    for i in range(2):
        assert s.shell(i, f"ifconfig 1 key 2 {K2}")[0] == 0
        assert s.shell(i, f"ifconfig 1 sec {level}")[0] == 0
    return s


def ping(s, a, b, count=3, size=200):
    s.output(a)
    s.shell(a, f"ping {ll(b)} -c {count} -s {size} -i 500")
    s.run(s.now + count * 0.5 + 3)
    out = s.output(a)
    return sum(1 for line in out.splitlines() if " bytes from " in line)


def sec(s, node):
    return {k[4:]: v for k, v in s.counters(node).items() if k.startswith("sec.")}


def test_ping_enc_mic32_decrypted_by_tshark(sim_factory, tmp_path):
    pcap = tmp_path / "enc.pcap"
    s = pair(sim_factory, "enc-mic32", pcap)
    assert ping(s, 0, 1, count=3, size=200) == 3   # 200 bytes: fragmented
    c0, c1 = sec(s, 0), sec(s, 1)
    assert c0["tx_secured"] == c1["rx_secured"] > 6
    assert sum(v for k, v in c1.items() if k.startswith("rx_") and k != "rx_secured") == 0
    assert s.pktbufs_clean()
    s.close()
    rows = tshark_fields(pcap, "wpan.frame_type", "wpan.aux_sec.sec_level",
                         "wpan.aux_sec.key_id_mode", "wpan.aux_sec.key_index", "wpan.mic",
                         "icmpv6.type", "_ws.expert", "_ws.malformed", extra=keys_pref())
    data = [r for r in rows if r[0] == "0x0001"]
    assert data and all(r[1] == "0x05" and r[2] == "0x01" and r[3] == "0x02" for r in data)
    assert all(len(r[4]) == 8 for r in data)            # MIC-32: 4 bytes
    types = [r[5] for r in data if r[5]]
    assert types.count("128") == 3 and types.count("129") == 3   # reassembled and decrypted
    assert not any(r[6] or r[7] for r in rows), [r for r in rows if r[6] or r[7]]
    # without the key tshark sees no ICMPv6: the payload is encrypted
    assert not any(r[0] for r in tshark_fields(pcap, "icmpv6.type"))
    # with the wrong key it says so
    bad = tshark_fields(pcap, "_ws.expert.message", extra=keys_pref(OTHER))
    assert any(r[0] for r in bad)


def test_ping_mic64_authenticated_in_clear(sim_factory, tmp_path):
    pcap = tmp_path / "mic.pcap"
    s = pair(sim_factory, "mic64", pcap)
    assert ping(s, 0, 1, count=2, size=40) == 2
    s.close()
    rows = tshark_fields(pcap, "wpan.frame_type", "wpan.aux_sec.sec_level", "wpan.mic",
                         "icmpv6.type", "_ws.expert", "_ws.malformed", extra=keys_pref())
    data = [r for r in rows if r[0] == "0x0001"]
    assert data and all(r[1] == "0x02" and len(r[2]) == 16 for r in data)  # MIC-64: 8 bytes
    assert sorted(r[3] for r in data if r[3]) == ["128", "128", "129", "129"]
    assert not any(r[4] or r[5] for r in rows)
    # with a wrong key no MIC checks out: tshark flags every data frame
    bad = tshark_fields(pcap, "wpan.frame_type", "_ws.expert.message", extra=keys_pref(OTHER))
    assert all(r[1] for r in bad if r[0] == "0x0001")


def test_replay_bad_mic_unknown_key_dropped(sim_factory, tmp_path):
    pcap = tmp_path / "adv.pcap"
    s = pair(sim_factory, "enc-mic32", pcap)
    assert ping(s, 0, 1, count=2, size=40) == 2
    # frames node 1 never hears: fresh counters to tamper with
    s.remove_link(0, 1)
    ping(s, 0, 1, count=1, size=40)
    s.set_link(0, 1, 1.0)
    s.run(s.now + 1)
    s.open_pcap(tmp_path / "rest.pcap")  # closes (flushes) the first capture
    frames = secured_from(pcap_frames(pcap), 0)
    before = sec(s, 1)
    heard = before["rx_secured"]
    assert heard >= 2
    last_heard = max(fc for _, fc, _ in frames[:heard])
    fresh = [f for f in frames if f[1] > last_heard]
    assert fresh

    # a replay of the first frame it took (an older sequence number: the
    # MAC's duplicate check does not catch it, the frame counter does)
    old, _, _ = frames[0]
    s.inject(1, old)
    s.run(s.now + 0.1)
    c = sec(s, 1)
    assert c["rx_replay"] == 1 and c["rx_secured"] == heard

    # one MIC bit flipped in a frame it never had
    f, fc, aux = fresh[0]
    mpdu = bytearray(f[:-2])
    mpdu[-1] ^= 0x01
    s.inject(1, bytes(mpdu) + fcs(mpdu))
    s.run(s.now + 0.1)
    c = sec(s, 1)
    assert c["rx_bad_mic"] == 1 and c["rx_secured"] == heard

    # an unknown key index
    mpdu = bytearray(f[:-2])
    mpdu[aux + 5] = 7
    s.inject(1, bytes(mpdu) + fcs(mpdu))
    s.run(s.now + 0.1)
    c = sec(s, 1)
    assert c["rx_no_key"] == 1 and c["rx_secured"] == heard

    # the frame itself still passes (the bad ones did not touch its counter)
    s.inject(1, f)
    s.run(s.now + 0.5)
    c = sec(s, 1)
    assert c["rx_secured"] == heard + 1
    # and now it is a replay
    s.inject(1, f)
    s.run(s.now + 0.1)
    assert sec(s, 1)["rx_replay"] + s.counters(1)["mac.rx_dup"] >= 2
    s.run(s.now + 5)
    assert s.pktbufs_clean()


def test_node_without_key_cannot_talk(sim_factory):
    s = pair(sim_factory, "enc-mic32", n=3)
    # node 2: no security at all -> its frames are unsecured, node 1 drops them
    assert ping(s, 2, 1, count=2, size=40) == 0
    assert sec(s, 1)["rx_level"] >= 2
    # node 2 with the level but no key: nothing leaves
    assert s.shell(2, "ifconfig 1 sec enc-mic32")[0] == 0
    assert ping(s, 2, 1, count=2, size=40) == 0
    assert sec(s, 2)["tx_no_key"] >= 2
    # node 2 with another key under the same index: bad MIC at node 1
    assert s.shell(2, f"ifconfig 1 key 2 {OTHER}")[0] == 0
    assert ping(s, 2, 1, count=2, size=40) == 0
    assert sec(s, 1)["rx_bad_mic"] >= 2
    # node 1 still talks to node 0, which has the key
    assert ping(s, 0, 1, count=2, size=40) == 2
    s.run(s.now + 5)
    assert s.pktbufs_clean()


def test_shell_errors_name_the_mistake(sim_factory):
    s = sim_factory(1)
    s.add_node(0, 0)
    res, out = s.shell(0, "ifconfig 1 key 2 c0c1")
    assert res < 0 and "32 hex digits" in out
    res, out = s.shell(0, "ifconfig 1 key 0 " + K2)
    assert res < 0 and "key index" in out
    res, out = s.shell(0, "ifconfig 1 sec enc-mic33")
    assert res < 0 and "enc-mic32" in out
    assert s.shell(0, "ifconfig 1 sec eb mic32")[0] == 0
    assert s.shell(0, f"ifconfig 1 key 1 {K2}")[0] == 0
    _, out = s.shell(0, "ifconfig")
    assert "beacon mic32 (key 1)" in out and "keys 1;" in out
    assert s.shell(0, "ifconfig 1 key 1 del")[0] == 0
    res, _ = s.shell(0, "ifconfig 1 key 1 del")
    assert res < 0


def test_asn_nonce_frames_refused_on_a_csma_link(sim_factory, tmp_path):
    """A secured frame with the ASN in its nonce (802.15.4-2015 9.3.2.2,
    TSCH's) on a CSMA link, which has no ASN: its frame counter suppressed,
    it would skip the replay check and pass however often it is played
    back. Built here with the right key (a data frame carrying a captured
    echo request, and an Enh-Ack) and injected three times: each refused,
    counted sec.rx_asn_not_tsch, nothing delivered; the frame-counter
    frames of the same node still pass."""
    from cryptography.hazmat.primitives.ciphers.aead import AESCCM

    pcap = tmp_path / "asn.pcap"
    s = pair(sim_factory, "enc-mic32", pcap)
    assert ping(s, 0, 1, count=1, size=40) == 1
    s.open_pcap(tmp_path / "rest.pcap")
    f, fc, aux = secured_from(pcap_frames(pcap), 0)[0]
    key = bytes.fromhex(K2)
    eui0 = bytes.fromhex(eui64_str(0).replace(":", ""))
    eui1 = bytes.fromhex(eui64_str(1).replace(":", ""))
    mpdu = f[:-2]
    mhr = mpdu[:aux + 6]  # security control, frame counter, key index
    payload = AESCCM(key, tag_length=4).decrypt(eui0 + struct.pack(">IB", fc, 5),
                                                  mpdu[aux + 6:], mhr)
    # the same payload in a version 2 frame, counter suppressed, ASN 0 in the nonce
    fcf = 1 | 1 << 3 | 1 << 6 | 3 << 10 | 2 << 12 | 3 << 14
    mhr = struct.pack("<HB", fcf, 0x77) + eui1[::-1] + eui0[::-1] + bytes([0x6D, 2])
    nonce = eui0 + bytes(5)
    data = mhr + AESCCM(key, tag_length=4).encrypt(nonce, payload, mhr)
    # an Enh-Ack (no source, no PAN ID), ASN 0 in the nonce
    ack_mhr = struct.pack("<HB", 2 | 1 << 3 | 1 << 6 | 3 << 10 | 2 << 12, 0x78) + eui1[::-1] + \
        bytes([0x6D, 2])
    ack = ack_mhr + AESCCM(key, tag_length=4).encrypt(nonce, b"", ack_mhr)
    before = sec(s, 1)
    rx6 = s.counters(1)["icmpv6.rx"]
    for _ in range(3):
        for frame in (data, ack):
            s.inject(1, frame + fcs(frame))
            s.run(s.now + 0.2)
    c = sec(s, 1)
    assert c["rx_asn_not_tsch"] - before["rx_asn_not_tsch"] == 6, c
    assert c["rx_secured"] == before["rx_secured"], c
    assert s.counters(1)["icmpv6.rx"] == rx6
    assert ping(s, 0, 1, count=2, size=40) == 2  # frame counters: still delivered
    s.run(s.now + 5)
    assert s.pktbufs_clean()
