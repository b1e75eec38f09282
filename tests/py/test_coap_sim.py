"""CoAP between two simulated 802.15.4 nodes (6LoWPAN, one hop), through
the shell's `coap` command: GET/POST/PUT/DELETE, 16 KiB block-wise each way
(1,024-byte blocks are 6LoWPAN-fragmented), observe, NON, CON retransmission
over a lossy link without duplicate execution, the same output for the same
seed, and tshark's verdict on every frame of the capture."""
import re

from conftest import tshark_fields
from wren.addr import addr

# IIDs from the nodes' EUI-64s, so the link address follows (RFC 4944 6, RFC 6775 5.2)
A_ADDR, B_ADDR = addr("2001:db8::", 0), addr("2001:db8::", 1)
PATTERN_LEN = 16384


def fnv1a(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h


PATTERN_FNV = fnv1a(bytes(i % 251 for i in range(PATTERN_LEN)))


def pair(sim_factory, seed=1, prr=1.0, pcap=None, modules=None):
    s = sim_factory(seed)
    s.set_modules(modules)
    a, b = s.add_node(0, 0), s.add_node(10, 0)
    s.set_link(a, b, prr)
    s.set_link(b, a, prr)
    if pcap:
        s.open_pcap(pcap)
    for n, addr in ((a, A_ADDR), (b, B_ADDR)):
        s.set_cca(n, True)
        assert s.shell(n, f"ifconfig 1 add {addr}/64")[0] == 0
        assert s.shell(n, "fib add 2001:db8::/64 dev 1")[0] == 0
    return s, a, b


def coap(s, node, args, wait=30.0):
    """`coap ARGS` on @node; the lines it printed within @wait simulated seconds."""
    res, out = s.shell(node, f"coap {args}")
    assert res == 0, out
    s.run(s.now + wait)
    return re.findall(r"^coap: .*$", out + s.output(node), re.M)


def parse(line):
    m = re.match(r"coap: (notification )?(\d\.\d\d), (\d+) bytes, fnv1a 0x([0-9a-f]{8})"
                 r"(?:: (.*))?$", line)
    assert m, line
    return m.group(2), int(m.group(3)), int(m.group(4), 16), m.group(5) or ""


def test_coap_two_nodes(sim_factory, tmp_path):
    pcap = tmp_path / "coap.pcap"
    s, a, b = pair(sim_factory, pcap=str(pcap))
    # A asks B
    (line,) = coap(s, a, f"get {B_ADDR} /counter")
    assert parse(line)[0] == "2.05" and parse(line)[3] == "0"
    (line,) = coap(s, a, f"post {B_ADDR} /counter")
    assert parse(line)[3] == "1"
    (line,) = coap(s, a, f"put {B_ADDR} /counter 77")
    assert parse(line)[:1] == ("2.04",) and parse(line)[3] == "77"
    (line,) = coap(s, a, f"get {B_ADDR} /counter non")
    assert parse(line)[3] == "77"
    (line,) = coap(s, a, f"delete {B_ADDR} /counter")
    assert parse(line)[0] == "2.02"
    # 16 KiB each way in 1,024-byte blocks (Block2) and 128-byte blocks (Block1)
    (line,) = coap(s, a, f"get {B_ADDR} /pattern", wait=120)
    assert parse(line)[:3] == ("2.05", PATTERN_LEN, PATTERN_FNV), line
    (line,) = coap(s, b, f"put {A_ADDR} /pattern pattern:{PATTERN_LEN - 100}", wait=300)
    assert parse(line)[0] == "2.04", line
    (line,) = coap(s, b, f"get {A_ADDR} /pattern", wait=120)
    assert parse(line)[1] == PATTERN_LEN - 100, line
    # observe: B watches A's counter while A's own shell POSTs to itself
    lines = coap(s, b, f"observe {A_ADDR} /counter", wait=2)
    for _ in range(3):
        coap(s, a, f"post {A_ADDR} /counter", wait=2)
    lines += coap(s, b, "cancel", wait=2)
    notes = [parse(x)[3] for x in lines if x.startswith("coap: notification")]
    assert notes == ["0", "1", "2", "3"], lines
    ca, cb = s.counters(a), s.counters(b)
    assert ca["coap.obs_notify"] == 3, ca
    assert cb["coap.cl_timeout"] == 0 and ca["coap.cl_timeout"] == 0
    assert ca["coap.rx_drop_format"] == 0 and cb["coap.rx_drop_format"] == 0
    assert ca["6lowpan.frag_reassembled"] > 0 and cb["6lowpan.frag_reassembled"] > 0
    # every frame dissected by tshark, every CoAP message without a flag
    s.close()
    rows = tshark_fields(pcap, "frame.protocols", "_ws.malformed", "coap.code",
                         extra=["-o", "udp.check_checksum:TRUE"])
    assert rows and all(r[1] == "" for r in rows), [r for r in rows if r[1]][:3]
    assert sum(1 for r in rows if "coap" in r[0]) > 2 * (5 + 16 + 127 + 16)


def test_coap_lossy_link_no_duplicate_execution(sim_factory):
    """CON over lossy links (each frame arrives with probability 0.6; after
    the MAC's retries some datagrams are still lost): CoAP retransmits, the
    server answers duplicates from its cache, and every POST it received is
    executed once: the counter equals the POST exchanges B executed."""
    # (seed 1: with the EUI-64 frames seed 5's losses no longer hit a
    # response, so B saw no duplicate; the run is random, the checks not)
    s, a, b = pair(sim_factory, seed=1, prr=0.6)
    answered = 0
    for i in range(20):
        lines = coap(s, a, f"post {B_ADDR} /counter", wait=120)
        assert len(lines) == 1, lines
        answered += parse(lines[0])[0] == "2.04"
    ca, cb = s.counters(a), s.counters(b)
    (line,) = coap(s, a, f"get {B_ADDR} /counter", wait=120)
    assert int(parse(line)[3]) == cb["coap.req"], (line, cb)
    assert answered >= 18, (answered, ca, cb)
    # the loss was real: retransmissions, and duplicates answered from the cache
    assert ca["coap.cl_retx"] > 0 and cb["coap.rx_dup"] > 0, (ca, cb)


def test_coap_same_seed_same_run(sim_factory):
    outs = []
    for _ in range(2):
        s, a, b = pair(sim_factory, seed=9, prr=0.7)
        lines = coap(s, a, f"get {B_ADDR} /pattern", wait=300)
        outs.append((lines, s.counters(a)["coap.cl_retx"], s.counters(b)["coap.tx"]))
    assert outs[0] == outs[1]


def test_coap_multicast_discovery(sim_factory):
    """`coap get coap://[ff02::fd]/.well-known/core` on A: a NON to All CoAP
    Nodes (RFC 7252 8.1), a line per answer with its unicast source, then the
    end of the wait (the servers' leisure and a margin)."""
    s = sim_factory(3)
    a, b, c = s.add_node(0, 0), s.add_node(10, 0), s.add_node(-10, 0)
    for n in (b, c):
        s.set_link(a, n, 1.0)
        s.set_link(n, a, 1.0)
    for n in (a, b, c):
        s.set_cca(n, True)
    s.run(s.now + 1)
    lines = coap(s, a, "get coap://[ff02::fd]/.well-known/core", wait=10)
    answers = [re.match(r"coap: from (\S+) 2\.05, (\d+) bytes, .*</counter>", x) for x in lines]
    assert len(lines) == 3 and all(answers[:2]) and lines[2] == "coap: multicast wait over", lines
    srcs = {m.group(1) for m in answers[:2]}
    assert len(srcs) == 2 and not any(x.startswith("ff") for x in srcs), lines
    cnt = s.counters(a)
    assert cnt["coap.cl_resp"] == 2 and cnt["coap.cl_retx"] == 0 and cnt["coap.tx"] == 1, cnt
    assert s.counters(b)["coap.mc_req"] == 1 and s.counters(c)["coap.mc_req"] == 1
