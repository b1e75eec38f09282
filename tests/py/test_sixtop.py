"""6P (RFC 8480) and MSF (RFC 9033) on the TSCH MAC in the simulator: a
three-node line (coordinator and RPL root 0, routers 1 and 2) where MSF
negotiates a TX cell from each node to its preferred parent, a 6P ADD/DELETE
round trip by hand from the shell, data in the negotiated cells, and tshark
dissecting every 6P message of the capture (the 6top sub-IE of the IETF
payload IE) with nothing flagged."""
import re

from conftest import tshark_fields
from test_tsch import _quiesce, global_addr, line, net, rpl_ready, ts_str, tsch, wait  # noqa: F401


def sixp(s, i) -> str:
    res, out = s.shell(i, "6p")
    assert res == 0, out
    return out


def cells(s, i, kind="negotiated") -> list:
    """(slot, choff, options, nbr, elapsed, used, acked, rx) of node i's cells of @kind."""
    res, out = s.shell(i, "tsch")
    assert res == 0, out
    rows = re.findall(r"cell sf 0 slot (\d+) choff (\d+) (\S+) " + kind +
                      r" nbr (\S+): elapsed (\d+) used (\d+) acked (\d+) rx (\d+)", out)
    return [(int(a), int(b), o, n, int(e), int(u), int(k), int(r)) for a, b, o, n, e, u, k, r in rows]


def test_sixtop_msf_three_nodes_add_delete_data(sim_factory, tmp_path):
    n = 3
    s = sim_factory(3)
    pcap = tmp_path / "sixtop3.pcap"
    net(s, n, line(n), pcap=pcap)
    assert wait(s, lambda: all(tsch(s, i)["synced"] for i in range(n)), 240)
    assert wait(s, lambda: rpl_ready(s, n), 240)
    # MSF: one negotiated TX cell from each router to its preferred parent,
    # the mirror RX cell at the parent; RPL's parent is TSCH's time source
    parent = {1: 0, 2: 1}
    assert wait(s, lambda: all(any(c[2].startswith("T") and c[3] == ts_str(p) for c in cells(s, i))
                               for i, p in parent.items()), 120)
    for i, p in parent.items():
        tx = [c for c in cells(s, i) if c[2].startswith("T") and c[3] == ts_str(p)]
        rx = [c for c in cells(s, p) if c[2][1] == "R" and c[3] == ts_str(i)]
        assert {(c[0], c[1]) for c in tx} <= {(c[0], c[1]) for c in rx}, (tx, rx)
        assert f"time source {ts_str(p)}" in s.shell(i, "tsch")[1]
        k = s.counters(i)
        assert k["sixtop.trans_ok"] >= 1 and k["sixtop.msf_add"] >= 1
    # the autonomous RX cell of every node
    for i in range(n):
        assert any(c[2] == "-R--" and c[3] == "any" for c in cells(s, i, "autonomous")), \
            s.shell(i, "tsch")[1]

    # 6P ADD by hand: node 2 asks node 1 for one more TX cell (node 2's MSF
    # off from here: it answers, but no longer adapts the cells we count)
    res, out = s.shell(2, "6p msf off")
    assert res == 0, out
    before = len([c for c in cells(s, 2) if c[2].startswith("T")])
    res, out = s.shell(2, f"6p add {ts_str(1)} tx 1")
    assert res == 0, out
    assert wait(s, lambda: "last response SUCCESS" in sixp(s, 2) and
                len([c for c in cells(s, 2) if c[2].startswith("T")]) == before + 1, 60)
    assert len([c for c in cells(s, 1) if c[2][1] == "R" and c[3] == ts_str(2)]) == before + 1
    seq2, seq1 = (re.search(rf"nbr {ts_str(a)} seqnum (\d+)", sixp(s, b)).group(1)
                  for a, b in ((1, 2), (2, 1)))
    assert seq2 == seq1 and int(seq2) >= 2, (seq2, seq1)

    # data in the negotiated cells: UDP from node 2 to the root
    addrs = [global_addr(s, i) for i in range(n)]
    res, out = s.shell(0, "udp server start 7000 sink")
    assert res == 0, out
    used0 = sum(c[5] for c in cells(s, 2) if c[2].startswith("T") and c[3] == ts_str(1))
    res, out = s.shell(2, f"udp send {addrs[0]} 7000 40 30 1000")
    assert res == 0, out
    s.run(s.now + 60)
    assert s.counters(0)["udp.rx"] >= 30
    used1 = sum(c[5] for c in cells(s, 2) if c[2].startswith("T") and c[3] == ts_str(1))
    # the MAC sends in whichever cell to the neighbour comes first: the two
    # negotiated cells of the 11-slot slotframe take most, the minimal cell the rest
    assert used1 - used0 >= 15, (used0, used1)
    acked = sum(c[6] for c in cells(s, 2) if c[2].startswith("T") and c[3] == ts_str(1))
    assert acked > 0

    # 6P DELETE by hand: back to what MSF had
    res, out = s.shell(2, f"6p delete {ts_str(1)} tx")
    assert res == 0, out
    assert wait(s, lambda: len([c for c in cells(s, 2) if c[2].startswith("T")]) == before, 60)
    assert len([c for c in cells(s, 1) if c[2][1] == "R" and c[3] == ts_str(2)]) == before
    for i in range(n):
        k = s.counters(i)
        for bad in ("rx_truncated", "rx_bad_version", "rx_unknown_cmd", "rx_err_seqnum",
                    "rx_stale_seqnum", "rx_bad_celllist", "rx_bad_length", "trans_timeout"):
            assert k[f"sixtop.{bad}"] == 0, (i, bad, k[f"sixtop.{bad}"])
    s.close()

    rows = tshark_fields(pcap, "wpan.6top_type", "wpan.6top_code", "wpan.6top_seqnum",
                         "wpan.6top_sfid", "_ws.malformed", "_ws.expert")
    six = [r for r in rows if r[0]]
    assert len(six) >= 8, len(six)  # MSF's ADDs and ours, their responses, the DELETE
    types = {r[0] for r in six}
    assert {"0x00", "0x01"} <= types or {"0", "1"} <= types, types
    for r in six:
        assert r[3] in ("0x00", "0"), r  # MSF
        assert not r[4] and not r[5], r


def test_sixtop_shell_mistakes_get_one_clear_line(sim_factory):
    """A bad neighbour, a missing argument or an interface without TSCH:
    one line saying what is wrong, nothing sent."""
    s = sim_factory(1)
    s.add_node(0, 0)
    res, out = s.shell(0, "6p add 0257:52ff")
    assert res != 0 and out.strip() == "error: bad neighbour '0257:52ff' (an EUI-64: 0011:2233:4455:6677)"
    res, out = s.shell(0, "6p relocate 0257:52ff:fe00:0001 5")
    assert res != 0 and out.startswith("usage: 6p") and out.count("\n") == 1, out
    res, out = s.shell(0, "6p frobnicate 0257:52ff:fe00:0001")
    assert res != 0 and out.startswith("usage: 6p"), out
    # CSMA: no TSCH schedule to take cells from
    res, out = s.shell(0, "6p add 0257:52ff:fe00:0001")
    assert res != 0 and out == "error: 6p add: interface 1 runs no TSCH\n", out
    res, out = s.shell(0, "6p")
    assert res == 0 and "eui64 0257:52ff:fe00:0000" in out, out
    assert s.counters(0)["sixtop.tx_request"] == 0


def test_sixtop_request_goes_before_queued_data(sim_factory):
    """A 6P request to a neighbour whose queue is full of data goes out
    first: the last data frame makes room for it. A hub of 50 nodes that
    forwarded more than its one autonomous cell to the root carried had its
    ADD requests wait behind 8 data frames (or be dropped at the full
    queue) past the 6P timeout: the root installed cells the hub had given
    up on, and the hub never got the negotiated cells it needed."""
    s = sim_factory(4)
    net(s, 2, line(2), rpl=False)
    assert wait(s, lambda: tsch(s, 1)["synced"], 120)
    s.run(s.now + 10)  # the queues empty after joining
    assert s.shell(0, "udp server start 7000 sink")[0] == 0
    k0 = s.counters(1)
    res, out = s.shell(1, "udp send fe80::57:52ff:fe00:0 7000 40 20 0")
    assert res == 0, out
    full = s.counters(1)["tsch.drop_queue_full"] - k0["tsch.drop_queue_full"]
    assert full == 12, full  # 20 datagrams into 8 places
    res, out = s.shell(1, f"6p add {ts_str(0)} tx 1")
    assert res == 0, out
    # one datagram made room; the head may already have gone to the radio
    assert s.counters(1)["tsch.drop_queue_full"] - k0["tsch.drop_queue_full"] == 13
    assert wait(s, lambda: s.counters(0)["sixtop.rx_request"] == 1, 30, step=0.01)
    assert s.counters(0)["udp.rx"] <= 1, s.counters(0)["udp.rx"]
    assert wait(s, lambda: "last response SUCCESS" in sixp(s, 1), 30)
    s.run(s.now + 10)
    assert s.counters(0)["udp.rx"] == 7
    assert s.counters(1)["sixtop.trans_timeout"] == 0
    s.shell(0, "udp server stop")
