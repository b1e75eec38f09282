"""802.15.4 security on the TSCH MAC: the minimal 6TiSCH configuration
(RFC 8180 6: EBs MIC-32 with K1, data and Enh-ACKs ENC-MIC-32 with K2),
the ASN in the nonce (802.15.4-2015 9.3.2.2). Nodes with the keys join
(the EB is authenticated) and ping; a node without K1 never joins, and one
with the wrong K2 joins but cannot talk; every drop counted by reason."""
import pytest

from conftest import tshark_fields
from test_tsch import _quiesce, line, net, ping, tsch, wait  # noqa: F401 (fixture)

K1 = "000102030405060708090a0b0c0d0e0f"
K2 = "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf"
BAD = "00112233445566778899aabbccddeeff"


def minimal(k1=K1, k2=K2):
    cmds = []
    if k1:
        cmds.append(f"ifconfig 1 key 1 {k1}")
    if k2:
        cmds.append(f"ifconfig 1 key 2 {k2}")
    return tuple(cmds) + ("ifconfig 1 sec beacon mic32 1", "ifconfig 1 sec data enc-mic32 2",
                          "ifconfig 1 sec ack enc-mic32 2")


def sec(s, i):
    return {k[4:]: v for k, v in s.counters(i).items() if k.startswith("sec.")}


def test_tsch_secured_join_and_ping(sim_factory, tmp_path):
    s = sim_factory(5)
    pcap = tmp_path / "tsch_sec.pcap"
    net(s, 2, line(2), pcap=pcap, rpl=False, extra=minimal())
    assert wait(s, lambda: tsch(s, 1)["synced"], 120)
    assert ping(s, 1, "fe80::57:52ff:fe00:0") == 5
    assert ping(s, 0, "fe80::57:52ff:fe00:1") == 5
    for i in (0, 1):
        c = sec(s, i)
        assert c["tx_secured"] > 10 and c["rx_secured"] > 10, c
        assert sum(v for k, v in c.items() if k.startswith("rx_") and k != "rx_secured") == 0, c
        assert s.counters(i)["tsch.ack_rx"] > 0
    s.close()
    rows = tshark_fields(pcap, "wpan.frame_type", "wpan.security", "wpan.aux_sec.sec_level",
                         "wpan.aux_sec.key_index", "wpan.aux_sec.asn_in_nonce",
                         "wpan.aux_sec.frame_counter_suppression", "_ws.malformed")
    seen = set()
    for ftype, secured, level, kidx, asn, fcs, bad in rows:
        assert secured in ("1", "True"), (ftype, secured)
        assert not bad
        assert asn in ("1", "True") and fcs in ("1", "True")
        seen.add((ftype, level, kidx))
    assert ("0x0000", "0x01", "0x01") in seen     # EBs: MIC-32 with K1
    assert ("0x0001", "0x05", "0x02") in seen     # data: ENC-MIC-32 with K2
    assert ("0x0002", "0x05", "0x02") in seen     # Enh-ACKs: ENC-MIC-32 with K2


@pytest.mark.parametrize("k1,k2,joins", [(None, K2, False), (BAD, K2, False), (K1, BAD, True)])
def test_tsch_without_the_keys(sim_factory, k1, k2, joins):
    s = sim_factory(6)
    net(s, 2, line(2), rpl=False, extra=())
    for cmd in minimal():
        assert s.shell(0, cmd)[0] == 0
    for cmd in minimal(k1, k2):
        assert s.shell(1, cmd)[0] == 0
    synced = wait(s, lambda: tsch(s, 1)["synced"], 90)
    assert synced == joins
    c = sec(s, 1)
    if not joins:
        assert c["rx_no_key"] + c["rx_bad_mic"] > 0, c
        return
    # joined on K1, but data under another K2 does not get through
    res, out = s.shell(1, "ping fe80::57:52ff:fe00:0 -c 3 -i 2000")
    s.run(s.now + 20)
    out += s.output(1)
    assert " 0 received" in out, out
    assert sec(s, 0)["rx_bad_mic"] > 0


def test_tsch_replayed_and_forged_frames_do_not_desync(sim_factory, tmp_path):
    """Secured frames captured earlier and played back into a synchronised
    node (some land in its listening slots, where this slot's ASN is not
    theirs), and the same frames with a MIC bit flipped: dropped as bad MICs,
    the node stays in sync with its time source and still pings."""
    from test_sec_sim import fcs, pcap_frames

    s = sim_factory(8)
    pcap = tmp_path / "tsch_replay.pcap"
    net(s, 2, line(2), pcap=pcap, rpl=False, extra=minimal())
    assert wait(s, lambda: tsch(s, 1)["synced"], 120)
    assert ping(s, 0, "fe80::57:52ff:fe00:1", count=3) == 3
    s.open_pcap(tmp_path / "rest.pcap")  # flushes the first capture
    frames = [f for f in pcap_frames(pcap) if len(f) > 20 and f[0] & 0x08]
    assert frames
    before = sec(s, 1)
    desync = s.counters(1)["tsch.sync_desync"]
    for k in range(400):
        f = frames[k % len(frames)]
        if k % 2:
            mpdu = bytearray(f[:-2])
            mpdu[-1] ^= 0x01  # a flipped MIC bit
            f = bytes(mpdu) + fcs(mpdu)
        s.inject(1, f)
        s.run(s.now + 0.0137)  # out of step with the 10 ms slots
    after = sec(s, 1)
    assert after["rx_bad_mic"] - before["rx_bad_mic"] > 100  # most land while it listens
    # what passed in those 5.5 s is the coordinator's own traffic (EBs, keep-alive ACKs)
    assert after["rx_secured"] - before["rx_secured"] < 20
    assert tsch(s, 1)["synced"] and s.counters(1)["tsch.sync_desync"] == desync
    assert ping(s, 1, "fe80::57:52ff:fe00:0", count=3) == 3
