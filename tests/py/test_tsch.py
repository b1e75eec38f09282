"""The TSCH MAC (src/mac/tsch/*.c) in the simulator: nodes join by scanning
for enhanced beacons, keep time with their time source, and carry RPL, ICMPv6
and UDP over 6LoWPAN in the minimal cell (RFC 8180); keep-alives, desync and
rejoin, the coordinator losing power, hostile EBs and IEs. Slotframes are
shortened (11 slots) so the tests need little simulated time; the 802.15.4
default timeslot template (10 ms) is kept."""
import re
import struct

import pytest

from conftest import tshark_fields
from wren import scenario
from wren.addr import eui64_str

PREFIX = "2001:db8::/64"
SF_LEN = 11
SLOT_US = 10000
TX_OFFSET_US = 2120
HOP = [16, 17, 23, 18, 26, 15, 25, 22, 19, 11, 12, 13, 24, 14, 20, 21]


def ts_str(node: int) -> str:
    """An EUI-64 as `tsch` prints it (0257:52ff:fe00:0000)."""
    h = eui64_str(node).replace(":", "")
    return ":".join(h[k:k + 4] for k in range(0, 16, 4))


def tsch(s, i) -> dict:
    res, out = s.shell(i, "tsch")
    assert res == 0, out
    m = re.search(r"role (\S+)\s+(synced|not synced)\s+asn (\d+)\s+join prio (\d+)", out)
    assert m, out
    ts = re.search(r"time source (\S+)", out).group(1)
    return {"out": out, "role": m.group(1), "synced": m.group(2) == "synced",
            "asn": int(m.group(3)), "prio": int(m.group(4)), "ts": ts}


_built: list = []


@pytest.fixture(autouse=True)
def _quiesce(request):
    """TSCH queues and RPL always hold frames somewhere: after each test RPL
    is switched off on every node and the network runs on (TSCH delivers or
    drops what is queued) before sim_factory checks the packet buffers."""
    if "sim_factory" in request.fixturenames:
        request.getfixturevalue("sim_factory")
    _built.clear()
    yield
    for s, _, rpl in _built:
        if s.h:
            n = s.node_count
            if rpl:
                for i in range(n):
                    s.shell(i, "rpl off")
            s.run(s.now + 30)
            for i in range(n):
                s.shell(i, "tsch off")  # what still waits is flushed and counted
            s.run(s.now + 1)


def net(s, n, links, pcap=None, rpl=True, coordinator=0, extra=()):
    """@n TSCH nodes with @links (a, b, prr, both ways); @coordinator starts
    the network (and roots the DODAG if @rpl)."""
    s.set_mac_kind("tsch")
    _built.append((s, n, rpl))
    for i in range(n):
        s.add_node(10.0 * i, 0)
    for a, b, prr in links:
        s.set_link(a, b, prr)
        s.set_link(b, a, prr)
    if pcap:
        s.open_pcap(pcap)
    for i in range(n):
        for cmd in (f"tsch set sf_len {SF_LEN}",) + tuple(extra):
            res, out = s.shell(i, cmd)
            assert res == 0, out
    res, out = s.shell(coordinator, "tsch coordinator")
    assert res == 0, out
    if rpl:
        r = scenario.Rpl(root=[coordinator], leaves=[], mode="storing")
        scenario.rpl_tables(s, r, n)
        for node, cmd in scenario._rpl_commands(r, n):
            res, out = s.shell(node, cmd.replace(" instance 0", ""))
            assert res == 0, out


def line(n):
    return [(i, i + 1, 1.0) for i in range(n - 1)]


def wait(s, cond, limit_s, step=1.0):
    end = s.now + limit_s
    while not cond() and s.now < end:
        s.run(s.now + step)
    return cond()


def ping(s, src, dst, count=5, interval_ms=2000) -> int:
    res, out = s.shell(src, f"ping {dst} -c {count} -i {interval_ms}")
    assert res == 0, out
    s.run(s.now + count * interval_ms / 1000 + 10)
    out += s.output(src)
    m = re.search(r"(\d+) packets transmitted, (\d+) received", out)
    assert m, out
    return int(m.group(2))


def global_addr(s, i) -> str:
    res, out = s.shell(i, "rpl")
    m = re.search(r"^address (\S+)", out, re.M)
    assert m, out
    return m.group(1)


def rpl_ready(s, n) -> bool:
    """Every node joined and the root holds a route to each (storing mode)."""
    for i in range(n):
        res, out = s.shell(i, "rpl")
        if "not joined" in out or not re.search(r"^address", out, re.M):
            return False
    res, out = s.shell(0, "rpl")
    return len(re.findall(r"^route \S+ via", out, re.M)) == n - 1


def test_tsch_two_nodes_join_sync_and_ping(sim_factory, tmp_path):
    s = sim_factory(1)
    pcap = tmp_path / "tsch2.pcap"
    net(s, 2, line(2), pcap=pcap, rpl=False)
    st = tsch(s, 1)
    assert st["role"] == "node" and not st["synced"]
    assert wait(s, lambda: tsch(s, 1)["synced"], 120)
    c, n = tsch(s, 0), tsch(s, 1)
    assert c["role"] == "coordinator" and c["prio"] == 0
    assert n["ts"] == ts_str(0)
    assert n["prio"] == 1
    # the same slot count on both sides: the node took the coordinator's ASN
    assert abs(c["asn"] - n["asn"]) <= SF_LEN
    assert ping(s, 1, "fe80::57:52ff:fe00:0") == 5
    assert ping(s, 0, "fe80::57:52ff:fe00:1") == 5
    k = s.counters(1)
    assert k["tsch.sync_joins"] == 1 and k["tsch.sync_desync"] == 0
    assert k["tsch.sync_corrections"] > 0 and k["tsch.ack_rx"] > 0
    assert s.counters(0)["tsch.tx_eb"] > 0 and s.counters(0)["tsch.ack_tx"] > 0
    s.close()
    rows = tshark_fields(pcap, "wpan.frame_type", "wpan.version", "_ws.malformed", "_ws.expert")
    types = {r[0] for r in rows}
    assert {"0x0000", "0x0001", "0x0002"} <= types, types  # EBs, data, Enh-ACKs
    for r in rows:
        assert r[1] == "2", r  # TSCH frames are 802.15.4-2015 frames
        assert not r[2], r


def test_tsch_three_node_line_rpl_ping_udp(sim_factory):
    """Join, sync, RPL over the minimal cell, ping and UDP both ways across
    two hops."""
    n = 3
    s = sim_factory(2)
    net(s, n, line(n))
    assert wait(s, lambda: all(tsch(s, i)["synced"] for i in range(n)), 240)
    st = [tsch(s, i) for i in range(n)]
    assert st[2]["ts"] != st[1]["ts"]  # node 2 joined through node 1

    assert wait(s, lambda: rpl_ready(s, n), 240)
    # in a DODAG the join priority is DAGRank(rank) - 1 (RFC 8180 6.1; MSF sets it
    # from RPL's rank) and the time source RPL's preferred parent (node 1 for node 2)
    s.run(s.now + 2)
    for i in range(n):
        rank = int(re.search(r" rank (\d+)", s.shell(i, "rpl")[1]).group(1))
        assert tsch(s, i)["prio"] == rank // 256 - 1, (i, rank, tsch(s, i))
    assert tsch(s, 2)["ts"] == ts_str(1)
    addrs = [global_addr(s, i) for i in range(n)]
    assert ping(s, 2, addrs[0], count=10, interval_ms=4000) == 10
    assert ping(s, 0, addrs[2], count=10, interval_ms=4000) == 10
    res, out = s.shell(0, "udp server start 7000 sink")
    assert res == 0, out
    res, out = s.shell(2, f"udp send {addrs[0]} 7000 40 20 2000")
    assert res == 0, out
    s.run(s.now + 60)
    assert s.counters(0)["udp.rx"] >= 20
    for i in range(n):
        k = s.counters(i)
        assert k["tsch.drop_queue_full"] == 0 and k["tsch.drop_bad_ie"] == 0
        assert k["tsch.sync_desync"] == 0


def test_tsch_keepalives_hold_sync_and_without_them_desync_then_rejoin(sim_factory):
    """The coordinator stops sending EBs (join priority 0xff). With
    keep-alives the node stays synchronised on the ACKs of its time source;
    with them off nothing corrects its clock any more: after desync_ms it
    declares the desync, scans, and joins again once EBs come back."""
    s = sim_factory(3)
    net(s, 2, line(2), rpl=False)
    assert wait(s, lambda: tsch(s, 1)["synced"], 120)
    assert s.shell(0, "tsch prio 255")[0] == 0
    s.run(s.now + 300)
    k = s.counters(1)
    assert tsch(s, 1)["synced"] and k["tsch.sync_desync"] == 0
    assert k["tsch.tx_ka"] >= 300 // 5 - 5  # one per keep-alive period (5 s)
    eb0 = s.counters(0)["tsch.tx_eb"]
    s.run(s.now + 60)
    assert s.counters(0)["tsch.tx_eb"] == eb0  # none while the priority is 0xff
    # keep-alives off (a new configuration: the node scans and joins again,
    # EBs on for that), then EBs off: the last correction ages past desync_ms
    assert s.shell(0, "tsch prio 0")[0] == 0
    assert s.shell(1, "tsch set ka_ms 0")[0] == 0
    ka = s.counters(1)["tsch.tx_ka"]
    assert wait(s, lambda: tsch(s, 1)["synced"], 240)
    assert s.shell(0, "tsch prio 255")[0] == 0
    before = s.counters(1)["tsch.sync_desync"]
    t0 = s.now
    assert wait(s, lambda: not tsch(s, 1)["synced"], 60, step=0.5)
    took = s.now - t0
    # desync_ms (20 s) after the last correction: the coordinator's last EB
    # or frame, at most a few seconds before its EBs stopped
    assert 15 <= took <= 25, took
    assert s.counters(1)["tsch.sync_desync"] == before + 1 == 1, before
    assert s.counters(1)["tsch.tx_ka"] == ka  # none since they were switched off
    s.run(s.now + 30)
    assert not tsch(s, 1)["synced"]  # no EBs: nothing to join
    assert s.shell(0, "tsch prio 0")[0] == 0
    assert wait(s, lambda: tsch(s, 1)["synced"], 240)
    assert s.counters(1)["tsch.sync_joins"] == 3
    assert ping(s, 1, "fe80::57:52ff:fe00:0") == 5


def test_tsch_coordinator_power_loss_network_delivers_again(sim_factory):
    """The coordinator (and RPL root) loses power for 10 s: radio off, its
    queues and routes gone, a new network (ASN 0) when it comes back. Every
    node notices (desync: no correction from its time source), rejoins, and
    the root reaches every node again within 3 simulated minutes. The time is
    printed. EBs go every 300 ms after a (re)start (eb_min_ms): a scanning
    node hears one EB in 16 (one channel of the 16), so the EB rate sets how
    fast each hop rejoins."""
    n = 4
    s = sim_factory(4)
    net(s, n, line(n), extra=("tsch set eb_min_ms 300",))
    assert wait(s, lambda: rpl_ready(s, n), 300)
    addrs = [global_addr(s, i) for i in range(n)]
    assert ping(s, n - 1, addrs[0], count=3, interval_ms=8000) == 3
    joins = [s.counters(i)["tsch.sync_joins"] for i in range(n)]
    assert s.shell(0, "rpl off")[0] == 0
    assert s.shell(0, "tsch off")[0] == 0
    s.run(s.now + 10)
    t0 = s.now
    assert s.shell(0, "tsch coordinator")[0] == 0
    assert s.shell(0, f"rpl root {PREFIX} storing")[0] == 0
    assert wait(s, lambda: rpl_ready(s, n) and all(
        s.counters(i)["tsch.sync_joins"] > joins[i] for i in range(1, n)), 180)
    took = s.now - t0
    print(f"\n  every node rejoined and the root has every route {took:.0f} s after the "
          f"coordinator came back")
    for i in range(1, n):
        assert s.counters(i)["tsch.sync_desync"] >= 1, i
    assert tsch(s, 1)["asn"] < 200 * 100  # the new network's ASN, not the old one's
    delivered = sum(ping(s, 0, addrs[i], count=2, interval_ms=8000) for i in range(1, n))
    assert delivered == 2 * (n - 1), delivered
    assert s.now - t0 <= 180 + 3 * 20, s.now - t0


def _fcs(data):
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return struct.pack("<H", crc)


def eb_frame(src_node, asn, join_metric=0, sync_len=6, sf_count=1):
    """An enhanced beacon as RFC 8180 6.1 has it (802.15.4-2015 frame
    version 2), from node @src_node's EUI-64, with TSCH Synchronization (ASN
    @asn), Timeslot id 0, Channel Hopping id 0 and the minimal cell;
    @sync_len / @sf_count other than 6 / 1 make the IEs lie about their
    length / count."""
    from wren.addr import eui64
    fcf = 0x0000 | 1 << 6 | 1 << 8 | 1 << 9 | 2 << 10 | 2 << 12 | 3 << 14
    mhr = struct.pack("<HHH", fcf, 0x0023, 0xFFFF) + bytes(reversed(eui64(src_node)))
    ht1 = struct.pack("<H", 0x7E << 7)
    sync_body = struct.pack("<Q", asn)[:5] + bytes([join_metric]) + b"\0" * max(0, sync_len - 6)
    sync_body = sync_body[:sync_len]
    subs = struct.pack("<H", len(sync_body) | 0x1A << 8) + sync_body
    subs += struct.pack("<H", 1 | 0x1C << 8) + b"\x00"
    subs += struct.pack("<H", 1 | 0x9 << 11 | 0x8000) + b"\x00"
    sf = bytes([sf_count, 0]) + struct.pack("<HB", SF_LEN, 1) + struct.pack("<HHB", 0, 0, 0x0F)
    subs += struct.pack("<H", len(sf) | 0x1B << 8) + sf
    mlme = struct.pack("<H", len(subs) | 1 << 11 | 0x8000) + subs
    frame = mhr + ht1 + mlme
    return frame + _fcs(frame)


def test_tsch_hostile_ebs_and_ies_counted_no_desync(sim_factory):
    """Forged EBs in the victim's listening windows, claiming to come from its
    time source: an absurd ASN jump ahead or back (refused: the ASN is never
    taken from an EB once synchronised), a Sync IE of the wrong length, a slotframe count
    that disagrees with the IE; and the same into a scanning node, which
    joins none of the malformed ones. Each is a counted drop, the victim stays
    synchronised with the real network and still delivers."""
    s = sim_factory(5)
    net(s, 3, line(3), rpl=False)
    assert wait(s, lambda: all(tsch(s, i)["synced"] for i in range(3)), 240)
    victim = 1
    before = s.counters(victim)
    asn = tsch(s, 0)["asn"]
    forged = [eb_frame(0, asn + 1_000_000), eb_frame(0, (1 << 40) - 1),
              eb_frame(0, asn, sync_len=5), eb_frame(0, asn, sf_count=3),
              eb_frame(0, asn // 2), eb_frame(0, asn // 3)]  # backwards: refused alike
    # every millisecond for 3 s: every listening window of the victim gets
    # some (the radio takes a frame only while it listens)
    t = s.now
    for k in range(3000):
        s.run(t + k / 1000)
        s.inject(victim, forged[k % len(forged)])
    after = s.counters(victim)
    d = {k: after[k] - before[k] for k in after if k.startswith("tsch.")}
    assert d["tsch.drop_eb_asn"] >= 5, d
    assert d["tsch.drop_bad_ie"] >= 5, d
    assert d["tsch.sync_desync"] == 0 and d["tsch.sync_joins"] == 0, d
    st = [tsch(s, i) for i in range(3)]
    assert st[victim]["synced"] and abs(st[victim]["asn"] - st[0]["asn"]) <= SF_LEN
    assert ping(s, victim, "fe80::57:52ff:fe00:0") == 5
    assert ping(s, 2, "fe80::57:52ff:fe00:1") == 5
    # a node that scans takes the ASN of a well-formed EB only
    s.add_node(40, 0)
    s.set_link(3, 2, 1.0)
    s.set_link(2, 3, 1.0)
    assert s.shell(3, f"tsch set sf_len {SF_LEN}")[0] == 0
    b3 = s.counters(3)
    t = s.now
    for k in range(2000):
        s.run(t + k / 1000)
        s.inject(3, forged[2 + k % 2])
    a3 = s.counters(3)
    assert a3["tsch.drop_bad_ie"] - b3["tsch.drop_bad_ie"] >= 100
    assert not tsch(s, 3)["synced"] and a3["tsch.sync_joins"] == 0
    assert wait(s, lambda: tsch(s, 3)["synced"], 240)
    assert tsch(s, 3)["ts"] == ts_str(2)


@pytest.mark.parametrize("ppm", [30, 100])
def test_tsch_drifting_crystals_stay_synchronised_for_a_day(sim_factory, ppm):
    """Crystals +ppm, -ppm, +ppm on a 3-node line (neighbours 2 x ppm apart),
    the RFC 8180 defaults (10 ms slots, slotframe 101): over a simulated day
    no node loses sync; each estimates its drift against its time source;
    the radio is on well under 1 % of the time."""
    s = sim_factory(7)
    s.set_mac_kind("tsch")
    _built.append((s, 3, False))
    for i in range(3):
        s.add_node(10.0 * i, 0)
    for a, b, prr in line(3):
        s.set_link(a, b, prr)
        s.set_link(b, a, prr)
    for i, d in enumerate((ppm, -ppm, ppm)):
        s.set_drift(d, i)
    assert s.shell(0, "tsch coordinator")[0] == 0
    s.run(24 * 3600)
    for i in range(1, 3):
        k = s.counters(i)
        assert tsch(s, i)["synced"], i
        assert k["tsch.sync_joins"] == 1 and k["tsch.sync_desync"] == 0, (i, k)
        assert k["tsch.sync_clamped"] == 0 and k["tsch.tx_noack"] == 0, (i, k)
        assert k["tsch.sync_corrections"] > 24 * 3600 / 10, (i, k)
    # node 1 keeps time with the coordinator (2 x ppm apart), node 2 with
    # node 1, whose slots run at the coordinator's rate: the same as its own
    d1 = int(re.search(r"drift (-?\d+) ppb", tsch(s, 1)["out"]).group(1))
    d2 = int(re.search(r"drift (-?\d+) ppb", tsch(s, 2)["out"]).group(1))
    assert abs(d1 + 2 * ppm * 1000) < 0.05 * 2 * ppm * 1000, d1
    assert abs(d2) < 2000, d2
    for i in range(2):  # (node 2 scanned, radio on, until it heard an EB)
        k = s.counters(i)
        on = k["radio.time_listen_us"] + k["radio.time_rx_us"] + k["radio.time_tx_us"]
        assert on / (on + k["radio.time_off_us"]) < 0.01, (i, on)
    # one shared cell a second: the pings go slowly
    assert ping(s, 1, "fe80::57:52ff:fe00:0", count=3, interval_ms=10000) == 3
    assert ping(s, 2, "fe80::57:52ff:fe00:1", count=3, interval_ms=10000) == 3


def test_tsch_frames_on_the_channels_the_hopping_sequence_gives(sim_factory, tmp_path):
    """From a capture with channel numbers (LINKTYPE 283): every frame is on
    hop[(ASN + channel offset) % 16], the ASN taken from the last EB's
    Synchronization IE (tshark's) and the time since; the minimal cell has
    offset 0, a dedicated cell node 1 -> node 0 (slot 5, offset 3) carries
    some of the pings' requests."""
    s = sim_factory(8)
    pcap = tmp_path / "hop.pcap"
    s.set_mac_kind("tsch")
    _built.append((s, 2, False))
    for i in range(2):
        s.add_node(10.0 * i, 0)
    s.set_link(0, 1, 1.0)
    s.set_link(1, 0, 1.0)
    s.open_pcap(pcap, "wpan-tap")
    for i in range(2):
        assert s.shell(i, f"tsch set sf_len {SF_LEN}")[0] == 0
    assert s.shell(0, "tsch coordinator")[0] == 0
    assert wait(s, lambda: tsch(s, 1)["synced"], 120)
    e0 = ts_str(0).replace(":", "")
    assert s.shell(1, f"tsch cell add 0 5 3 T {e0}")[0] == 0
    assert s.shell(0, f"tsch cell add 0 5 3 R {ts_str(1).replace(':', '')}")[0] == 0
    assert ping(s, 1, "fe80::57:52ff:fe00:0", count=10) == 10
    res, out = s.shell(1, "tsch")
    cell = re.search(r"cell sf 0 slot 5 choff 3 T--- manual .*used (\d+) acked (\d+)", out)
    # (frames to node 0 take whichever of its cells comes first: this one or
    # the minimal cell)
    assert cell and int(cell.group(1)) >= 3 and int(cell.group(2)) == int(cell.group(1)), out
    s.close()
    rows = tshark_fields(pcap, "frame.time_epoch", "wpan-tap.ch_num", "wpan.frame_type",
                         "wpan.src64", "wpan.dst64", "wpan.tsch.asn")
    last_eb = None
    checked = {0: 0, 3: 0}
    for t, ch, ftype, src, dst, asn in rows:
        t = float(t)
        if ftype == "0x0000":
            last_eb = (t, int(asn))
        if last_eb is None:
            continue
        # frames start tx_offset into their slot (Enh-ACKs ack_delay after a frame)
        slots = (t - last_eb[0]) / (SLOT_US / 1e6)
        n = last_eb[1] + round(slots) if ftype != "0x0002" else last_eb[1] + int(slots)
        off = n % SF_LEN
        assert off in (0, 5), (t, n, ftype)
        choff = 0 if off == 0 else 3
        assert int(ch) == HOP[(n + choff) % 16], (t, ch, n, choff, ftype)
        checked[choff] += 1
    assert checked[0] > 50 and checked[3] >= 6, checked


def test_tsch_scenario_mac_kind(tmp_path):
    """[mac] kind = "tsch": every node runs TSCH, [mac] coordinator starts
    the network, the others join it; an unknown kind is one clear error."""
    from wren.scenario import ScenarioError
    sim, _ = scenario.build({"duration": 1, "nodes": [{}, {"x": 10.0}],
                             "links": [{"from": 0, "to": 1}],
                             "mac": {"kind": "tsch", "coordinator": 1}})
    try:
        assert wait(sim, lambda: tsch(sim, 0)["synced"], 300)
        assert tsch(sim, 1)["role"] == "coordinator" and tsch(sim, 0)["ts"] == ts_str(1)
        for i in range(2):
            sim.shell(i, "tsch off")
        sim.run(sim.now + 1)
        assert sim.pktbufs_clean()
    finally:
        sim.close()
    with pytest.raises(ScenarioError, match="kind"):
        scenario.build({"nodes": [{}], "mac": {"kind": "tdma"}})


def test_tsch_broadcast_overload_keeps_the_shared_cell_heard(sim_factory):
    """Every node offers the minimal cell many times the broadcasts it can
    carry (a datagram to ff02::1 every 0.5 s each, one cell per slotframe):
    the chance of sending a broadcast there falls with how busy the cell is
    heard, so broadcasts still get through, and what cannot go is dropped
    and counted at the queue, never collided away."""
    n = 10
    s = sim_factory(7)
    net(s, n, [(a, b, 1.0) for a in range(n) for b in range(a + 1, n)], rpl=False)
    assert wait(s, lambda: all(tsch(s, i)["synced"] for i in range(n)), 600)
    for i in range(n):
        res, out = s.shell(i, "udp server start 5000 sink")
        assert res == 0, out
    before = [s.counters(i) for i in range(n)]
    for i in range(n):
        res, out = s.shell(i, "udp send ff02::1 5000 20 600 500")
        assert res == 0, out
    s.run(s.now + 300)
    after = [s.counters(i) for i in range(n)]
    cells = 300 / (SF_LEN * 0.01)  # minimal cells in the 300 s
    for i in range(n):
        got = after[i]["udp.rx"] - before[i]["udp.rx"]
        # a cell carries at most one broadcast; p-persistence at its best
        # delivers one in about e (0.37) of them: half that is the floor
        assert got >= 0.18 * cells, (i, got, cells)
        assert after[i]["tsch.drop_bcast_full"] > before[i]["tsch.drop_bcast_full"]
        m = re.search(r"broadcast chance (\d+)\.(\d) %", tsch(s, i)["out"])
        assert m, tsch(s, i)["out"]
        # about one sender of the ten per cell
        assert float(f"{m.group(1)}.{m.group(2)}") < 2 * 100 / (n - 1) + 5
    for i in range(n):
        s.shell(i, "udp server stop")


def _rx_windows(s, i) -> tuple:
    """(listening windows, frames received) over node i's RX cells so far."""
    rows = re.findall(r"cell sf \d+ slot \d+ choff \d+ (\S+) \S+ nbr \S+: elapsed (\d+) "
                      r"used (\d+) acked \d+ rx (\d+)", tsch(s, i)["out"])
    return (sum(int(e) - int(u) for o, e, u, _ in rows if o[1] == "R"),
            sum(int(r) for o, _, _, r in rows if o[1] == "R"))


def test_tsch_short_colliding_frames_are_not_idle_cells(sim_factory):
    """Nodes 1 and 2, which do not hear each other, send keep-alives to the
    coordinator between them every 200 ms: many collide there. A keep-alive
    (23 bytes, 0.93 ms) ends before the guard does (1.1 ms after
    tx_offset): looked at only at the guard's end, the radio idle again,
    each collision was an idle cell (rx_idle), and in the shared cells
    the broadcast chance rose with it (in a 50-node network the minimal
    cell, full of short colliding frames, looked idle and collapsed). A
    frame coming in 300 us after tx_offset makes the cell busy."""
    s = sim_factory(9)
    net(s, 3, [(0, 1, 1.0), (0, 2, 1.0)], rpl=False)
    for i in (1, 2):
        assert s.shell(i, "tsch set ka_ms 200")[0] == 0
    assert wait(s, lambda: tsch(s, 1)["synced"] and tsch(s, 2)["synced"], 300)
    k0, (w0, r0) = s.counters(0), _rx_windows(s, 0)
    s.run(s.now + 120)
    k, (w, r) = s.counters(0), _rx_windows(s, 0)
    collisions = k["radio.rx_collisions"] - k0["radio.rx_collisions"]
    assert collisions > 100, collisions
    idle = k["tsch.rx_idle"] - k0["tsch.rx_idle"]
    # the simulated radio counts a collision of two frames twice (the second
    # frame's start, the first one's end): collisions / 2 windows had one,
    # and none of them is idle (nor a window with a frame received)
    assert idle <= (w - w0) - (r - r0) - collisions // 2, (idle, w - w0, r - r0, collisions)
    for i in (1, 2):
        assert s.counters(i)["tsch.sync_desync"] == 0


def test_tsch_full_broadcast_queue_sheds_its_oldest(sim_factory):
    """A burst of 20 broadcasts into the 8-frame broadcast queue: the oldest
    are shed (counted), the newest go out, because the latest copy of control
    traffic is what counts (a DIO with the rank of a minute ago feeds loops).
    The datagrams grow by a byte each (20..39), so their sizes say which
    arrived."""
    s = sim_factory(3)
    net(s, 2, line(2), rpl=False)
    assert wait(s, lambda: tsch(s, 1)["synced"], 120)
    s.run(s.now + 10)  # the queues empty after joining
    assert s.shell(0, "udp server start 5000 sink")[0] == 0
    before = s.counters(1)["tsch.drop_bcast_full"]
    res, out = s.shell(1, "udp send ff02::1 5000 20-39 20 0")
    assert res == 0, out
    s.run(s.now + 60)
    res, out = s.shell(0, "udp server stats")
    m = re.search(r"received (\d+) .* size_sum (\d+)", out)
    assert m, out
    got, size_sum = int(m.group(1)), int(m.group(2))
    shed = s.counters(1)["tsch.drop_bcast_full"] - before
    assert shed == 12, shed  # 20 into 8 places, all at once
    assert 6 <= got <= 8, got  # a broadcast may meet the coordinator's EB
    # the newest eight (32..39, mean 35.5) rather than the first (20..27)
    assert size_sum / got >= 30, (got, size_sum)
    s.shell(0, "udp server stop")


def test_tsch_time_source_switch_keeps_the_drift_estimate(sim_factory):
    """A node whose crystal runs 300 ppm fast keeps time with node 1, then
    its time source becomes the coordinator (as RPL's parent switch makes it,
    through SET TIME_SOURCE). Both run network time, so the drift estimate
    still holds and is kept: with keep-alives off the only corrections are
    the time source's EBs, up to 24 s apart (desync_ms 60 s here), over
    which an uncompensated 300 ppm clock moves 7 ms, past the 1.1 ms
    guard: it would hear no EB of its new time source again and desync (a
    hub that switched parent in a 30-node network did, and every node below
    it followed)."""
    s = sim_factory(5)
    net(s, 3, [(0, 1, 1.0), (1, 2, 1.0), (0, 2, 1.0)], rpl=False)
    s.set_drift(0, 0)
    s.set_drift(0, 1)
    s.set_drift(300, 2)
    # no keep-alives: EBs alone keep node 2 in time, up to 24 s apart
    assert s.shell(2, "tsch set ka_ms 0")[0] == 0
    assert s.shell(2, "tsch set desync_ms 60000")[0] == 0
    assert wait(s, lambda: tsch(s, 1)["synced"] and tsch(s, 2)["synced"], 120)
    # node 2 below node 1 (as RPL's rank would put it: MSF sets both)
    assert s.shell(1, f"tsch ts {ts_str(0)}")[0] == 0
    assert s.shell(2, "tsch prio 2")[0] == 0
    assert s.shell(2, f"tsch ts {ts_str(1)}")[0] == 0
    # the EB period grows to its 16 s; the estimate is learnt on node 1's EBs
    s.run(s.now + 900)
    t = tsch(s, 2)
    assert t["synced"] and t["ts"] == ts_str(1), t["out"]
    d_before = int(re.search(r"drift (-?\d+) ppb", t["out"]).group(1))
    assert abs(d_before - 300000) < 15000, d_before
    k0 = s.counters(2)
    assert s.shell(2, f"tsch ts {ts_str(0)}")[0] == 0
    s.run(s.now + 300)
    t = tsch(s, 2)
    k = s.counters(2)
    assert t["synced"] and t["ts"] == ts_str(0), t["out"]
    assert k["tsch.sync_desync"] == k0["tsch.sync_desync"] == 0, k
    # corrected by the coordinator's EBs all along (one per 8..24 s)
    assert k["tsch.sync_corrections"] - k0["tsch.sync_corrections"] >= 300 // 24, k
    d_after = int(re.search(r"drift (-?\d+) ppb", t["out"]).group(1))
    assert abs(d_after - 300000) < 15000, d_after


def test_tsch_set_takes_each_key_within_its_field_and_names_what_it_refuses(sim_factory):
    """`tsch set KEY VALUE` (tsch_shell.c's key table): each key lands in its
    own field of the configuration, a value too large for the field or an
    unknown key is refused with one line naming it, and a configuration that
    does not hold (wren_tsch_config_check) is refused by the MAC."""
    s = sim_factory(1)
    s.set_mac_kind("tsch")
    s.add_node(0, 0)
    for cmd in ("slot_us 20000", "sf_len 57", "eb_period_ms 30000", "eb_min_ms 2000",
                "eb_sf_len 211", "ka_ms 4000", "desync_ms 25000", "scan_ms 900",
                "max_retries 3", "min_be 2", "max_be 6"):
        res, out = s.shell(0, "tsch set " + cmd)
        assert res == 0, (cmd, out)
    out = s.shell(0, "tsch")[1]
    for want in ("slot 20000 us", "slotframe 57", "EB 2000..30000 ms", "EB slotframe 211",
                 "keep-alive 4000 ms",
                 "desync 25000 ms", "retries 3", "BE 2..6"):
        assert want in out, (want, out)
    for cmd, why in (("max_be 256", "out of range: max_be 256"),
                     ("sf_len 70000", "out of range: sf_len 70000"),
                     ("bogus 3", "unknown key or value out of range: bogus 3"),
                     ("min_be x", "tsch set min_be: bad value 'x'"),
                     ("max_be 9", "does not hold"),  # 802.15.4 macMaxBe is 8 at most
                     ("min_be 7", "does not hold")):  # above max_be
        res, out = s.shell(0, "tsch set " + cmd)
        assert res < 0 and why in out and out.count("\n") == 1, (cmd, out)
    assert "BE 2..6" in s.shell(0, "tsch")[1]  # the refused ones changed nothing


def test_tsch_detached_router_asks_its_time_source_for_a_dio(sim_factory):
    """A router that has just synchronised sends its DIS to its time source
    (rpl.c dis_target), which answers with a unicast DIO (RFC 6550 8.3) in
    the cells for that neighbour, not in the minimal cell every DIO shares:
    the DIS goes within two seconds of the sync, before RPL has a parent.
    Before, a detached router's DIS went to all RPL nodes every 20-25 s and
    the DIO came on the DIO schedule (on the 6TiSCH paper's floor 67-82 s
    from sync to a parent, median; 6 s with this)."""
    n = 3
    s = sim_factory(4)
    net(s, n, line(n))
    t = {}
    while s.now < 240 and "join" not in t:
        s.run(s.now + 1)
        k = s.counters(2)
        if "sync" not in t and tsch(s, 2)["synced"]:
            t["sync"] = s.now
        if "dis" not in t and k["rpl.dis_unicast_tx"]:
            t["dis"] = s.now
            t["ts_rx_dis"] = s.counters(1)["rpl.rx_dis"]
        if k["rpl.joined"]:
            t["join"] = s.now
    assert {"sync", "dis", "join"} <= set(t), t
    assert t["sync"] <= t["dis"] <= t["sync"] + 2 and t["dis"] <= t["join"], t
    assert tsch(s, 2)["ts"] == ts_str(1)
    s.run(s.now + 2)
    assert s.counters(1)["rpl.rx_dis"] >= 1


def _joined_now(s, i) -> bool:
    """What `flow send ... start joined` waits for (runtime/sim/flow.h):
    synchronised, an RPL preferred parent, a TX cell to it that is not
    shared."""
    st = tsch(s, i)
    par = re.search(r"^parent fe80::(\S+) .* preferred$", s.shell(i, "rpl")[1], re.M)
    if not st["synced"] or par is None:
        return False
    iid = [int(x, 16) for x in par.group(1).split(":")]
    eui = f"{iid[0] ^ 0x0200:04x}:" + ":".join(f"{x:04x}" for x in iid[1:])
    return re.search(rf"T-[-R]-\s+negotiated nbr {eui}", st["out"]) is not None


def test_flow_from_join_window_starts_at_each_nodes_join(sim_factory):
    """The 6TiSCH experiment's primary window (tsch_paper, "join"): each
    sender starts once its node has joined, and its radio window runs from
    there. Node 2 is switched on 150 s late: until it has joined it makes no
    datagram (none is counted against it), it starts within a second of the
    join, every datagram it then makes reaches the sink, and its window is
    the 60 s from its start."""
    n = 3
    s = sim_factory(5)
    net(s, n, line(n))
    assert s.shell(2, "tsch off")[0] == 0
    root = global_addr(s, 0)
    assert s.shell(0, "flow sink window 60000")[0] == 0
    for i in (1, 2):
        res, out = s.shell(i, f"flow send {root} count 5 mean 10000 start joined window 60000")
        assert res == 0, out
    s.run(150)
    out = s.shell(2, "flow stats")[1]
    assert "flow waiting to join" in out and "generated 0 " in out, out
    assert "flow started" in s.shell(1, "flow stats")[1]
    assert s.shell(2, "tsch node")[0] == 0
    joined = None
    while joined is None and s.now < 600:
        s.run(s.now + 1)
        if _joined_now(s, 2):
            joined = s.now
    assert joined is not None
    s.run(joined + 130)
    out = s.shell(2, "flow stats")[1]
    start = int(re.search(r"flow started (\d+) us", out).group(1)) / 1e6
    assert joined - 1 < start <= joined + 1, (joined, start)
    assert "generated 5 failed 0" in out, out
    w = [int(x) for x in re.search(r"flow window 60000 ms radio (\d+) (\d+) (\d+) (\d+)",
                                   out).groups()]
    # timed on the node's crystal (within 30 ppm of true time, the radio's)
    assert abs(sum(w) - 60_000_000) <= 60 * 30 and 0 < w[1] + w[2] + w[3] < sum(w) / 10, w
    sink = s.shell(0, "flow stats")[1]
    assert re.search(rf"flow src {global_addr(s, 2)} received 5 dup 0", sink), sink
    assert "flow window 60000 ms" in sink
