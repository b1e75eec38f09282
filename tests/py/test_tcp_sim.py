"""TCP over simulated 802.15.4: 100 KiB bulk transfers across 1..4 hops of a
line with static routes, byte-exact (the sink checks every byte against the
i mod 251 pattern), with both ends CLOSED afterwards and every packet buffer
empty (sim_factory checks it). Variants: 10 % random frame loss on every
link, and hidden terminals that interfere (PRR-0 links between nodes two
apart: energy without delivery), with the TCP paper's 40 ms link retry delay
where it helps. And tshark's verdict on a captured one-hop transfer."""
import re

import pytest

from conftest import tshark_fields
from wren.addr import ll

SIZE = 102400
PORT = 5001  # not 80: tshark would dissect the pattern as HTTP
PI_SEQUENCE = 0x02000000  # tshark's expert group of TCP's sequence analysis
PI_WARN = 0x00600000


def addr(i):
    return f"2001:db8::{100 + i}"


def line(sim_factory, hops, prr=1.0, interfere=False, retry_delay_ms=None, seed=1, pcap=None):
    """Nodes 0..hops 10 m apart; each hears only its neighbours (so nodes two
    apart are hidden terminals); with @interfere they also disturb each other."""
    n = hops + 1
    s = sim_factory(seed)
    for i in range(n):
        s.add_node(10.0 * i, 0)
    for i in range(n - 1):
        s.set_link(i, i + 1, prr)
        s.set_link(i + 1, i, prr)
    if interfere:
        for i in range(n - 2):
            s.set_link(i, i + 2, 0.0)
            s.set_link(i + 2, i, 0.0)
    if pcap:
        s.open_pcap(pcap)
    for i in range(n):
        s.set_mac(i, csma=True, retry_delay_ms=retry_delay_ms)
        assert s.shell(i, f"ifconfig 1 add {addr(i)}/64")[0] == 0
        assert s.shell(i, "forward on")[0] == 0
        if i > 0:
            assert s.shell(i, f"fib add {addr(0)}/128 via {ll(i - 1)} dev 1")[0] == 0
        if i < n - 1:
            assert s.shell(i, f"fib add {addr(n - 1)}/128 via {ll(i + 1)} dev 1")[0] == 0
    return s


def conn(stats, name):
    """(state, sent, received, bad) of the 'client' or 'server' line of `tcp stats`."""
    m = re.search(rf"{name}: (\S+) .*?sent (\d+)/\d+ received (\d+) bad (\d+)", stats)
    assert m, stats
    return m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))


def transfer(s, hops, limit_s=600):
    """Node 0 sends SIZE bytes to node @hops and closes; run until both ends
    are CLOSED (or @limit_s of simulated time). Returns the stats of both."""
    assert s.shell(hops, f"tcp listen {PORT} sink")[0] == 0
    assert s.shell(0, f"tcp connect {addr(hops)} {PORT}")[0] == 0
    assert s.shell(0, f"tcp send {SIZE} close")[0] == 0
    end = s.now + limit_s
    while s.now < end:
        s.run(s.now + 10)
        cli = s.shell(0, "tcp stats")[1]
        srv = s.shell(hops, "tcp stats")[1]
        if conn(cli, "client")[0] == "CLOSED" and conn(srv, "server")[0] == "CLOSED":
            break
    # a datagram that lost a fragment for good holds its reassembly slot until
    # the 10 s timeout: let that pass before sim_factory checks the buffers
    s.run(s.now + 11)
    return cli, srv


def check_exact(cli, srv):
    c_state, c_sent, _, _ = conn(cli, "client")
    s_state, _, s_received, s_bad = conn(srv, "server")
    assert (c_state, s_state) == ("CLOSED", "CLOSED"), (cli, srv)
    assert c_sent == SIZE
    assert s_received == SIZE and s_bad == 0, srv
    assert "err 0" in cli and "err 0" in srv, (cli, srv)


@pytest.mark.parametrize("hops", [1, 2, 3, 4])
def test_bulk_transfer_across_hops(sim_factory, hops):
    # the line itself has hidden terminals: node i and i+2 cannot hear each other
    s = line(sim_factory, hops)
    cli, srv = transfer(s, hops)
    check_exact(cli, srv)
    for i in range(1, hops):
        assert s.counters(i)["ipv6.rx_forwarded"] > SIZE // 462  # every segment


@pytest.mark.parametrize("retry_delay_ms", [None, 40])
@pytest.mark.parametrize("hops", [1, 2, 3, 4])
def test_bulk_transfer_with_10_percent_frame_loss(sim_factory, hops, retry_delay_ms):
    # 2 hops without retry delay, seed 1, once lost the first data segment
    # and its retransmission timer with it (the RTO cleared on open): a
    # regression test
    s = line(sim_factory, hops, prr=0.9, retry_delay_ms=retry_delay_ms)
    cli, srv = transfer(s, hops)
    check_exact(cli, srv)
    lost = sum(s.counters(i)["radio.rx_link_loss"] for i in range(hops + 1))
    assert lost > 100  # the loss really happened, and the MAC and TCP repaired it


@pytest.mark.parametrize("prr", [1.0, 0.9])
@pytest.mark.parametrize("retry_delay_ms", [None, 40])
@pytest.mark.parametrize("hops", [2, 3, 4])
def test_bulk_transfer_with_interfering_hidden_terminals(sim_factory, hops, retry_delay_ms, prr):
    s = line(sim_factory, hops, prr=prr, interfere=True, retry_delay_ms=retry_delay_ms)
    cli, srv = transfer(s, hops)
    check_exact(cli, srv)
    collisions = sum(s.counters(i)["radio.rx_collisions"] for i in range(hops + 1))
    assert collisions > 0


def test_prr_zero_link_interferes_without_delivering(sim_factory):
    # what the interference variant relies on: 0 -> 2 at PRR 0 delivers nothing
    s = line(sim_factory, 2, interfere=True)
    s.shell(2, "udp server start 50123 sink")
    s.shell(0, f"udp send {ll(2)} 50123 20 5 100")
    s.run(s.now + 2)
    assert s.counters(2)["udp.rx"] == 0
    assert s.counters(2)["radio.rx_frames"] == 0


def test_same_seed_same_transfer(sim_factory):
    outs = []
    for _ in range(2):
        s = line(sim_factory, 2, prr=0.9, seed=7)
        cli, srv = transfer(s, 2)
        outs.append((s.now, cli, srv, s.counters(1)))
    assert outs[0] == outs[1]


def test_tshark_dissects_tcp_transfer(tmp_path, sim_factory):
    pcap = tmp_path / "tcp.pcap"
    s = line(sim_factory, 1, pcap=pcap)
    s.shell(1, f"tcp listen {PORT} sink")
    s.shell(0, f"tcp connect {addr(1)} {PORT}")
    s.shell(0, "tcp send 20000 close")
    s.run(s.now + 10)
    check_exact_size = conn(s.shell(1, "tcp stats")[1], "server")
    assert check_exact_size[2:] == (20000, 0)
    s.close()
    rows = tshark_fields(pcap, "frame.protocols", "wpan.fcs_ok", "_ws.expert.group",
                         "_ws.expert.severity", "_ws.malformed",
                         "wpan.frame_type", "tcp.flags.syn", "tcp.flags.ack",
                         "tcp.options.sack_perm", "tcp.options.timestamp.tsval",
                         "tcp.checksum.status", "6lowpan.frag.size", "tcp.len",
                         "tcp.analysis.window_full",
                         extra=["-o", "tcp.check_checksum:TRUE"])
    assert len(rows) > 200
    syn = synack = segments = payload = 0
    for (proto, fcs_ok, groups, severities, malformed, ftype, fsyn, fack, sack_perm, tsval, ck,
         fragsz, tlen, wfull) in rows:
        assert fcs_ok == "1"
        assert malformed == "", proto
        # only TCP's sequence notes (SYN, FIN, and duplicate ACKs: a MAC
        # retransmission of an ACK whose link ACK was lost looks like one;
        # "window full", a warning, when a full send buffer goes out into
        # the receiver's equal window); no checksum, malformed or protocol
        # warnings
        for g, sev in zip(groups.split(","), severities.split(",")):
            if g:
                assert int(g) == PI_SEQUENCE and (int(sev) < PI_WARN or wfull), (proto, g, sev)
        if ftype == "0x0002":
            continue  # the MAC's acknowledgements
        assert "6lowpan" in proto, proto
        if "tcp" not in proto:
            assert fragsz, proto  # a fragment of a segment not yet reassembled
            continue
        assert "ipv6" in proto, proto
        assert ck == "1", proto  # checksum verified good
        segments += 1
        payload += int(tlen or 0)
        if fsyn == "1":
            # SACK-permitted and timestamps offered and answered
            assert sack_perm != "" and tsval != "", (fsyn, fack, sack_perm, tsval)
            if fack == "1":
                synack += 1
            else:
                syn += 1
        else:
            assert tsval != ""  # timestamps on every segment once negotiated
    assert (syn, synack) == (1, 1)
    assert segments > 60
    assert payload >= 20000


def test_window_option_limits_the_window_and_a_one_segment_window_needs_no_retransmission(
        sim_factory):
    # `wnd 488`: one 500-byte MSS segment (488 data bytes with timestamps) at
    # a time; every segment must wait for the window update of the one
    # before, and none may go beyond the window (no RTO on a lossless link)
    s = line(sim_factory, 1)
    assert s.shell(1, f"tcp listen {PORT} sink mss 500 wnd 488")[0] == 0
    assert s.shell(0, f"tcp connect {addr(1)} {PORT} mss 500 wnd 488")[0] == 0
    assert s.shell(0, "tcp send 20000 close")[0] == 0
    s.run(s.now + 20)
    cli, srv = s.shell(0, "tcp stats")[1], s.shell(1, "tcp stats")[1]
    check_exact_size = conn(srv, "server")
    assert check_exact_size[0] == "CLOSED" and check_exact_size[2:] == (20000, 0), srv
    assert re.search(r"rexmt 0 .*rto 0 ", cli), cli
    assert re.search(r"client: .*\n.*wnd 488 ", cli), cli  # the peer's window, as announced
    assert s.shell(0, "tcp connect ::1 1 wnd 63")[0] != 0  # under the 64-byte minimum


def test_a_lost_fragment_drops_the_rest_of_its_datagram(sim_factory):
    # node 1 never acknowledges (PRR 0 towards it): the FRAG1 of a 1,000-byte
    # datagram fails after its retries, and its FRAGNs are not sent at all
    s = sim_factory(1)
    s.add_node(0, 0)
    s.add_node(10, 0)
    s.set_link(0, 1, 0.0)
    s.set_link(1, 0)
    s.set_mac(0, csma=True)
    s.shell(0, f"udp send {ll(1)} 50123 1000 1")
    s.run(s.now + 2)
    c = s.counters(0)
    assert c["6lowpan.tx_frags"] == 11  # 21-octet MAC headers (EUI-64 both ways)
    assert c["netif.tx_noack"] == 1 and c["netif.tx_frames"] == 1
    assert c["netif.tx_drop_frag"] == 10
    assert c["mac.tx_attempts"] == 4  # the FRAG1 and its three retries, nothing more


def test_tcp_line_scenario_transfers_byte_exact():
    from wren import scenario
    from conftest import ROOT
    res = scenario.run(scenario.load(ROOT / "scenarios/tcp_line.toml"), progress=False)
    assert res["failed_commands"] == []
    assert res["pktbuf_in_use"] == 0
    sink = conn(res["nodes"][3]["shell"], "server")
    assert sink[0] == "CLOSED" and sink[2:] == (SIZE, 0), res["nodes"][3]["shell"]
    assert conn(res["nodes"][0]["shell"], "client")[0] == "CLOSED"
