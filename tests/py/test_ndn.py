"""The NDN stack in the simulator (src/ndn/, issue 26): the 4-hop fetch of
scenarios/ndn_line.toml with caching and PIT aggregation seen in the
counters, its capture decoded by python-ndn (software nobody here wrote),
the best-route strategy's retransmission to the next route, loop detection,
MustBeFresh against the Content Store (a packet too large for a frame:
tests/py/test_ndnlp_sim.py, NDNLPv2).
Everything runs in simulated time; no wall-clock thresholds."""
import struct

import pytest

from conftest import ROOT
from wren import scenario
from wren.lib import Sim

ndn_encoding = pytest.importorskip("ndn.encoding")


class DigestSigner(ndn_encoding.Signer):
    """python-ndn's DigestSha256Signer with hashlib's SHA-256: the sanitized
    stage preloads ASan into this interpreter, and pycryptodome's library,
    which python-ndn's own signer loads, aborts under it."""

    def write_signature_info(self, signature_info):
        signature_info.signature_type = ndn_encoding.SignatureType.DIGEST_SHA256
        signature_info.key_locator = None

    def get_signature_value_size(self):
        return 32

    def write_signature_value(self, wire, contents):
        import hashlib
        h = hashlib.sha256()
        for blk in contents:
            h.update(blk)
        wire[:] = h.digest()
        return 32


def eui(n: int) -> str:
    """Node n's EUI-64 in the simulator (02:57:52:ff:fe:00:00:n)."""
    return "02:57:52:ff:fe:00:00:%02x" % n


def ndn_counters(r: dict, node: int) -> dict[str, int]:
    return {k[4:]: v for k, v in r["nodes"][node]["counters"].items() if k.startswith("ndn.")}


@pytest.fixture(scope="module")
def line(tmp_path_factory):
    pcap = tmp_path_factory.mktemp("ndn") / "ndn_line.pcap"
    r = scenario.run(scenario.load(ROOT / "scenarios/ndn_line.toml"), pcap=pcap, progress=False)
    return r, pcap


def test_ndn_line_four_hops_cache_and_aggregation(line):
    r, _ = line
    assert r["failed_commands"] == [] and r["pktbuf_in_use"] == 0
    c = [ndn_counters(r, n) for n in range(6)]
    out0, out5 = r["nodes"][0]["shell"], r["nodes"][5]["shell"]
    for out in (out0, out5):
        assert 'ndn: data /wren/sensor/temp after' in out and '"TEMP=21.5C"' in out, out
        assert 'ndn: data /wren/sensor/humidity after' in out, out
    # node 0's fetch crossed forwarders 1-3 to the producer, each caching it
    assert all(c[n]["cs_inserts"] == 2 for n in (1, 2, 3)), c
    # node 5's fetch of the same name was answered by node 2's Content Store:
    # forwarders 3 and the producer saw one Interest per name, not two
    assert c[2]["cs_hits"] == 1, c[2]
    assert c[3]["rx_interests"] == 2 and c[4]["rx_interests"] == 2, (c[3], c[4])
    # nodes 0 and 5 asked for /wren/sensor/humidity at once: node 2 sent one
    # Interest upstream for both and gave the Data to both
    assert c[2]["pit_aggregated"] == 1, c[2]
    assert c[2]["tx_interests"] == 2 and c[2]["tx_data"] == 4, c[2]
    for n in range(6):
        bad = {k: v for k, v in c[n].items() if k.startswith("rx_drop") and v}
        assert not bad, (n, bad)


def wpan_payloads(pcap):
    """The MAC payloads of the data frames of a LINKTYPE 195 capture (with
    FCS), read with the frame control field's address modes (IEEE
    802.15.4-2015 7.2.1; no security, no IEs in these frames)."""
    data = pcap.read_bytes()
    magic, _, _, _, _, _, linktype = struct.unpack("<IHHiIII", data[:24])
    assert magic == 0xa1b2c3d4 and linktype == 195, (hex(magic), linktype)
    off = 24
    while off < len(data):
        _, _, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        fc = frame[0] | frame[1] << 8
        if fc & 7 != 1:   # not a data frame (ACKs)
            continue
        alen = {0: 0, 2: 2, 3: 8}
        dst, src = alen[(fc >> 10) & 3], alen[(fc >> 14) & 3]
        pan_comp = fc & 0x40
        hlen = 3 + (2 + dst if dst else 0) + (src + (0 if pan_comp else 2) if src else 0)
        yield frame[hlen:-2]


def test_ndn_capture_decodes_with_python_ndn(line):
    """Every data frame of the capture is NDN (dispatch 0x3e), and
    python-ndn decodes each packet in it without an error."""
    _, pcap = line
    from ndn.encoding import parse_data, parse_interest
    kinds = {"interest": 0, "data": 0}
    for payload in wpan_payloads(pcap):
        assert payload[0] == 0x3e, payload.hex()
        pkt = payload[1:]
        if pkt[0] == 0x05:
            name, params, _, _ = parse_interest(pkt)
            assert params.nonce is not None
            kinds["interest"] += 1
        else:
            assert pkt[0] == 0x06, pkt.hex()
            name, meta, content, sig = parse_data(pkt)
            assert bytes(content) == b"TEMP=21.5C" and meta.freshness_period == 60000
            kinds["data"] += 1
        assert ndn_encoding.Name.to_str(name).startswith("/wren/sensor/")
    # temp: 4 hops, then 5 -> 2 answered there; humidity: 0 -> 1 -> 2 and
    # 5 -> 2, one Interest on 2 -> 3 -> 4; the Data take the same hops back
    assert kinds == {"interest": 10, "data": 10}, kinds


def ndn_sim(n, seed=1):
    s = Sim(seed=seed)
    s.set_modules(["ndn"])
    for i in range(n):
        s.add_node(x=10.0 * i)
    return s


def ok(s, node, line):
    rc, out = s.shell(node, line)
    assert rc == 0, (line, out)
    return out


def cnt(s, node):
    return {k[4:]: v for k, v in s.counters(node).items() if k.startswith("ndn.")}


def test_ndn_retransmission_takes_the_next_route(sim_factory):
    """Consumer 0 has two routes to producer 3: via 1 (cost 1) and via 2
    (cost 5); the link 1 -> 3 is gone. The first Interest goes via 1 and is
    lost; the consumer's retransmission (same name, a new nonce) finds the
    PIT entry pending from the same face and goes to the route not tried
    yet, via 2, and the Data comes back."""
    s = sim_factory(1)
    s.set_modules(["ndn"])
    for _ in range(4):
        s.add_node()
    for a, b in ((0, 1), (0, 2), (2, 3)):
        s.set_link(a, b)
        s.set_link(b, a)
    ok(s, 0, f"ndn route add /p if 1 {eui(1)} cost 1")
    ok(s, 0, f"ndn route add /p if 1 {eui(2)} cost 5")
    for f in (1, 2):
        ok(s, f, f"ndn route add /p if 1 {eui(3)}")
    ok(s, 3, "ndn serve /p hello")
    ok(s, 0, "ndn interest /p/x lifetime 4000")
    s.run(0.5)
    assert "ndn: data" not in s.output(0)
    assert cnt(s, 1)["tx_interests"] == 1 and cnt(s, 2)["rx_interests"] == 0
    ok(s, 0, "ndn interest /p/x lifetime 4000")
    s.run(1.0)
    out = s.output(0)
    assert 'ndn: data /p/x' in out and '"hello"' in out, out
    c0 = cnt(s, 0)
    assert c0["pit_retx"] == 1 and c0["tx_interests"] == 2, c0
    assert cnt(s, 2)["tx_interests"] == 1 and cnt(s, 3)["rx_interests"] == 1
    s.run(6.0)   # forwarder 1's entry expires
    assert cnt(s, 1)["pit_expired"] == 1


def test_ndn_loop_is_caught_by_its_nonce(sim_factory):
    """Routes 0 -> 1 -> 2 -> 0 for /loop: the Interest comes back to node 0
    with its own nonce and is dropped there, not forwarded round again."""
    s = sim_factory(1)
    s.set_modules(["ndn"])
    for _ in range(3):
        s.add_node()
    for a in range(3):
        s.set_link(a, (a + 1) % 3)
        ok(s, a, f"ndn route add /loop if 1 {eui((a + 1) % 3)}")
    ok(s, 0, "ndn interest /loop/a lifetime 1000")
    s.run(3.0)
    c = [cnt(s, n) for n in range(3)]
    assert c[0]["rx_drop_loop"] == 1, c[0]
    assert [x["tx_interests"] for x in c] == [1, 1, 1], c
    assert "ndn: timeout /loop/a" in s.output(0)
    assert c[0]["pit_expired"] == 1


def test_ndn_must_be_fresh_skips_stale_data(sim_factory):
    """Data without a FreshnessPeriod is cached but stale at once: a second
    Interest is answered from the store, one with MustBeFresh goes on to
    the producer."""
    s = sim_factory(1)
    s.set_modules(["ndn"])
    for _ in range(3):
        s.add_node()
    for a, b in ((0, 1), (1, 2)):
        s.set_link(a, b)
        s.set_link(b, a)
        ok(s, a, f"ndn route add /d if 1 {eui(b)}")
    ok(s, 2, "ndn serve /d v")
    out = ""
    for i, flags in enumerate(("", "", "fresh")):
        out += ok(s, 0, f"ndn interest /d/x {flags}")   # (with what came meanwhile)
        s.run(1.0 * (i + 1))
    out += s.output(0)
    assert out.count("ndn: data /d/x") == 3, out
    assert cnt(s, 0)["cs_hits"] == 1          # the second, from node 0's own store
    assert cnt(s, 2)["rx_interests"] == 2     # the first and the MustBeFresh one


def test_ndn_shell_mistakes_are_one_line(sim_factory):
    s = sim_factory(1)
    s.set_modules(["ndn"])
    s.add_node()
    for line, what in (("ndn route add /a if 1 zz", "bad face"),
                       ("ndn route add /a face 7", "bad face"),
                       ("ndn interest /a/%zz", "ndn interest NAME"),
                       ("ndn serve /a " + "t" * 40, "up to 32 characters")):
        rc, out = s.shell(0, line)
        assert rc < 0 and out.startswith("error: ") and what in out and out.count("\n") == 1, out


def test_ndn_line_is_deterministic(line, tmp_path):
    """The same seed gives the same capture, byte for byte (nonces come from
    the node's seeded PRNG)."""
    r, pcap = line
    again = tmp_path / "again.pcap"
    r2 = scenario.run(scenario.load(ROOT / "scenarios/ndn_line.toml"), pcap=again, progress=False)
    assert again.read_bytes() == pcap.read_bytes()
    assert [n["counters"] for n in r2["nodes"]] == [n["counters"] for n in r["nodes"]]


def ndn_frame(seq: int, payload: bytes) -> bytes:
    """An 802.15.4 data frame from EUI-64 ...:00:01 to node 0 (...:00:00) in
    the simulator's PAN 0x23, carrying NDN (dispatch 0x3e) @payload."""
    from wren.zep_peer import fcs
    mhr = (struct.pack("<HBH", 0xCC41, seq, 0x23) + bytes.fromhex(eui(0).replace(":", ""))[::-1]
           + bytes.fromhex(eui(1).replace(":", ""))[::-1])
    return mhr + b"\x3e" + payload + struct.pack("<H", fcs(mhr + b"\x3e" + payload))


def test_ndn_bad_packets_are_dropped_and_counted_by_reason(sim_factory):
    """Packets python-ndn encodes (one spoilt per reason) into node 0: each
    drop lands on its own counter, and nothing is forwarded."""
    from ndn.encoding import InterestParam, MetaInfo, make_data, make_interest
    s = sim_factory(1)
    s.set_modules(["ndn"])
    s.add_node()
    s.add_node()
    s.set_link(0, 1)
    ok(s, 0, f"ndn route add / if 1 {eui(1)}")
    good = bytes(make_interest("/a/b", InterestParam(nonce=1, lifetime=1000)))
    data = bytes(make_data("/a/b", MetaInfo(), b"x", signer=DigestSigner()))
    critical = bytes([0x05, len(good) - 2 + 2]) + good[2:] + b"\x1f\x00"   # type 31: critical
    cases = {
        "rx_drop_hop_limit": bytes(make_interest("/h", InterestParam(nonce=2, hop_limit=0))),
        "rx_drop_malformed": good[:-1],
        "rx_drop_critical": critical,
        "rx_drop_digest": data[:-1] + bytes([data[-1] ^ 1]),
        "rx_drop_type": b"\x07\x00",               # a Name alone: no Interest, Data, LpPacket
        "lp_idle": b"\x64\x00",                    # an LpPacket without a Fragment (NDNLPv2)
        "lp_drop_critical": b"\x64\x02\x62\x00",   # a PitToken: unknown, not to be ignored
        "rx_drop_unsolicited": data,
    }
    for seq, (reason, payload) in enumerate(cases.items()):
        assert s.inject(0, ndn_frame(seq, payload)) == 0
        s.run(s.now + 0.01)
        assert cnt(s, 0)[reason] == 1, (reason, cnt(s, 0))
    c = cnt(s, 0)
    assert c["tx_interests"] == 0 and c["tx_data"] == 0 and c["rx_interests"] == 0, c
    assert s.counters(1)["radio.rx_frames"] == 0


def test_ndn_content_store_is_bounded_lru(sim_factory):
    """Five names through a store of four entries: the least recently used
    goes; the one used again stays and still answers."""
    s = sim_factory(1)
    s.set_modules(["ndn"])
    s.add_node()
    s.add_node()
    s.set_link(0, 1)
    s.set_link(1, 0)
    ok(s, 0, f"ndn route add /c if 1 {eui(1)}")
    ok(s, 1, "ndn serve /c v fresh 60000")
    for name in ("n0", "n1", "n2", "n3", "n0", "n4", "n0", "n1"):
        ok(s, 0, f"ndn interest /c/{name}")
        s.run(s.now + 0.5)
    c = cnt(s, 0)
    # n0 from the store twice; n4 evicted n1 (least recently used), fetched again
    assert c["cs_hits"] == 2 and c["cs_evictions"] == 2 and c["cs_inserts"] == 6, c
    assert cnt(s, 1)["rx_interests"] == 6
    assert s.shell(0, "ndn cs")[1].count(" fresh") == 4


def test_ndn_pit_entry_lifetime_is_bounded(sim_factory):
    """An Interest asking for 60 s holds its PIT entry (and the packet
    buffer) 16 s at most (CONFIG_WREN_NDN_PIT_MAX_LIFETIME_MS; found by
    fuzz_node_rx: the buffer was not empty 30 s after the last frame)."""
    from ndn.encoding import InterestParam, make_interest
    s = sim_factory(1)
    s.set_modules(["ndn"])
    s.add_node()
    s.add_node()
    s.set_link(0, 1)
    ok(s, 0, "ndn route add / if 1")     # the broadcast face (1 sends the Interest)
    s.inject(0, ndn_frame(1, bytes(make_interest("/slow", InterestParam(nonce=9, lifetime=60000)))))
    s.run(15.9)
    assert cnt(s, 0)["pit_expired"] == 0 and "/slow" in s.shell(0, "ndn pit")[1]
    s.run(16.1)
    assert cnt(s, 0)["pit_expired"] == 1 and s.pktbufs_clean()


def test_ndn_implicit_digest_names_the_exact_data(sim_factory):
    """An Interest whose name ends in the ImplicitSha256DigestComponent of a
    Data (its full name) is answered by that Data, through the PIT and from
    the Content Store, and by no other: the digest is python-ndn's SHA-256
    of the packet producer 1 sends (byte-exact, tests above)."""
    import hashlib
    from ndn.encoding import MetaInfo, make_data
    s = sim_factory(1)
    s.set_modules(["ndn"])
    s.add_node()
    s.add_node()
    s.set_link(0, 1)
    s.set_link(1, 0)
    ok(s, 0, f"ndn route add /c if 1 {eui(1)}")
    ok(s, 1, "ndn serve /c v fresh 60000")
    data = bytes(make_data("/c/z", MetaInfo(freshness_period=60000), b"v",
                           signer=DigestSigner()))
    digest = hashlib.sha256(data).hexdigest()
    out = ok(s, 0, f"ndn interest /c/z/sha256digest={digest}")
    s.run(1.0)
    out += ok(s, 0, f"ndn interest /c/z/sha256digest={digest}")   # from node 0's store
    s.run(2.0)
    out += ok(s, 0, "ndn interest /c/y/sha256digest=" + "00" * 32 + " lifetime 1000")
    s.run(4.0)
    out += s.output(0)
    assert out.count("ndn: data /c/z after") == 2, out
    assert "ndn: timeout /c/y/sha256digest=" in out, out
    assert cnt(s, 0)["cs_hits"] == 1 and cnt(s, 1)["rx_interests"] == 2
    # /c/y's Data matched no entry at node 1 (its producer's forwarder)
    assert cnt(s, 1)["rx_drop_unsolicited"] == 1
