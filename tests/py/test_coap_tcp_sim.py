"""CoAP over TCP (RFC 8323) between two simulated 802.15.4 nodes (6LoWPAN,
one hop) through the shell's `coap ... coap+tcp://`: the four methods, 16
KiB block-wise each way, observe, the `coap_tcp` command (connections,
ping, release); over a lossy link every POST answered
exactly once (TCP retransmits, CoAP does not); the same seed gives the same
run; tshark dissects every frame."""
from conftest import tshark_fields
from test_coap_sim import A_ADDR, B_ADDR, PATTERN_FNV, PATTERN_LEN, coap, pair, parse
from test_coap_tcp_linux import signal_misread

TB = f"coap+tcp://[{B_ADDR}]"

TA = f"coap+tcp://[{A_ADDR}]"


def test_coap_tcp_two_nodes(sim_factory, tmp_path):
    pcap = tmp_path / "coap_tcp.pcap"
    s, a, b = pair(sim_factory, pcap=str(pcap))
    (line,) = coap(s, a, f"get {TB}/counter")
    assert parse(line)[0] == "2.05" and parse(line)[3] == "0", line
    (line,) = coap(s, a, f"post {TB}/counter")
    assert parse(line)[3] == "1", line
    (line,) = coap(s, a, f"put {TB}/counter 77")
    assert parse(line)[0] == "2.04" and parse(line)[3] == "77", line
    (line,) = coap(s, a, f"delete {TB}/counter")
    assert parse(line)[0] == "2.02", line
    # /slow defers its answer over UDP (a separate response); over TCP there is
    # no empty ACK to send first, so it answers at once
    (line,) = coap(s, a, f"get {TB}/slow")
    assert parse(line)[0] == "2.05" and parse(line)[3] == "slow", line
    (line,) = coap(s, a, f"get {TB}/pattern", wait=120)
    assert parse(line)[:3] == ("2.05", PATTERN_LEN, PATTERN_FNV), line
    (line,) = coap(s, b, f"put {TA}/pattern pattern:{PATTERN_LEN - 100}", wait=300)
    assert parse(line)[0] == "2.04", line
    (line,) = coap(s, b, f"get {TA}/pattern", wait=120)
    assert parse(line)[1] == PATTERN_LEN - 100, line
    # observe over TCP: B watches A's counter while A POSTs to itself over UDP
    lines = coap(s, b, f"observe {TA}/counter", wait=5)
    for _ in range(3):
        coap(s, a, f"post {A_ADDR} /counter", wait=2)
    lines += coap(s, b, "cancel", wait=2)
    notes = [parse(x)[3] for x in lines if x.startswith("coap: notification")]
    assert notes == ["0", "1", "2", "3"], lines
    ca, cb = s.counters(a), s.counters(b)
    assert ca["coap_tcp.obs_notify"] == 3 and ca["coap_tcp.obs_add"] == 1, ca
    assert ca["coap_tcp.conn_accept"] == 1 and cb["coap_tcp.conn_accept"] == 1, (ca, cb)
    assert ca["coap_tcp.conn_open"] == 1 and cb["coap_tcp.conn_open"] == 1, (ca, cb)
    for c in (ca, cb):
        assert c["coap_tcp.rx_csm"] == 2, c
        for k in ("rx_drop_format", "rx_drop_big", "rx_no_csm", "tx_abort", "tx_drop"):
            assert c[f"coap_tcp.{k}"] == 0, (k, c)
        assert c["coap.cl_timeout"] == 0, c
    # B's cancel deregistered over TCP (RFC 7641 3.6): A has no observer left
    assert ca["coap_tcp.obs_remove"] == 1, ca
    # the coap_tcp command: A's client connection to B (B released A's first one
    # after 5 idle minutes), a Ping with custody, a Release
    assert cb["coap_tcp.conn_idle"] == 1, cb
    (line,) = coap(s, a, f"get {TB}/counter")
    res, out = s.shell(a, "coap_tcp")
    assert res == 0 and f"[{B_ADDR}]:5683 client ready, peer max message 1152" in out, out
    res, out = s.shell(a, f"coap_tcp ping {B_ADDR} custody")
    assert res == 0, out
    s.run(s.now + 2)
    assert "coap_tcp: pong (custody)" in s.output(a)
    assert s.shell(a, f"coap_tcp release {B_ADDR}")[0] == 0
    s.run(s.now + 2)
    res, out = s.shell(a, "coap_tcp")
    assert "client ready" not in out, out
    assert s.counters(b)["coap_tcp.rx_release"] == 1 and s.counters(b)["coap_tcp.rx_ping"] == 1
    res, out = s.shell(a, "coap_tcp ping nonsense")
    assert res != 0 and "usage" in out, out
    s.close()
    rows = tshark_fields(pcap, "frame.protocols", "_ws.malformed", "coap.code",
                         "_ws.expert.message", "ipv6.src",
                         extra=["-E", "occurrence=a", "-E", "aggregator=|"])
    bad = []
    for r in rows:
        if not r[1]:
            continue
        codes = [int(c) for c in r[2].split("|") if c]
        # (TCP's analysis notes, e.g. a retransmitted segment, flag no CoAP message)
        if not signal_misread(codes, {"_ws.expert.message": r[3]}):
            bad.append(r)
    assert rows and not bad, bad[:3]
    assert sum(1 for r in rows if "coap" in r[0]) > 16 + 16


def test_coap_tcp_lossy_link_each_post_once(sim_factory):
    """Frames arrive with probability 0.6: TCP retransmits, and each of ten
    POSTs over one connection is answered once, in order, executed once."""
    s, a, b = pair(sim_factory, seed=3, prr=0.6)
    answers = []
    for _ in range(10):
        lines = coap(s, a, f"post {TB}/counter", wait=120)
        assert len(lines) == 1, lines
        answers.append(parse(lines[0]))
    assert [x[0] for x in answers] == ["2.04"] * 10, answers
    assert [int(x[3]) for x in answers] == list(range(1, 11)), answers
    ca, cb = s.counters(a), s.counters(b)
    assert cb["coap.req"] == 10 and cb["coap_tcp.req"] == 10, cb
    assert ca["tcp.tx_rexmt"] + cb["tcp.tx_rexmt"] > 0, (ca, cb)  # the loss was real
    assert ca["coap_tcp.conn_open"] == 1, ca  # one connection throughout


def test_coap_tcp_same_seed_same_run(sim_factory):
    outs = []
    for _ in range(2):
        s, a, b = pair(sim_factory, seed=9, prr=0.7)
        lines = coap(s, a, f"get {TB}/pattern", wait=300)
        outs.append((lines, s.counters(a)["tcp.tx_rexmt"], s.counters(b)["coap_tcp.tx"]))
    assert outs[0] == outs[1]
    assert parse(outs[0][0][0])[:3] == ("2.05", PATTERN_LEN, PATTERN_FNV), outs[0]
