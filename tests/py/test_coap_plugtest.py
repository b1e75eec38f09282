"""The ETSI CoAP plugtests (CoAP#1-#4), server side, against wren-node's
plugtest resources (src/coap/coap_plugtest.c): one test per test
description (TD), named after it, with the TD's pass criteria (codes,
options, payloads, message types) checked on what the clients saw.

The descriptions are CoAP#4's (github.com/cabo/td-coap4: base.yml,
block.yml, link.yml; the Observe TDs are in block.yml, which has no
TD_COAP_OBS_03). Clients: libcoap's coap-client (Debian libcoap3-bin; its
`-v 7` log shows every PDU sent and received) and aiocoap (the venv; its
response objects carry type, MID, token and options) over UDP, and
coap-client over TCP (RFC 8323) where a TD applies to a reliable transport
(not the TDs about message types, separate responses, losses or ping:
CoAP over TCP has no types, MIDs or separate responses, and its Ping is a
signal; of the Observe TDs only OBS_01 runs over TCP).
Where a TD needs a client that loses or ignores messages (the lossy TDs,
a client switched off or rebooted) or sends an empty token, a plain UDP
socket (or TCP connection) in the namespace plays that client, by RFC 7252's
(RFC 8323's) rules: tests/py/coap_peers.py.

One wren-node per module (tap0 in a network namespace, as
test_coap_linux.py does), its observable resources set to change every
second and its ACK_TIMEOUT to 200 ms (`plugtest obs 1000`, `plugtest ack
200`: the TDs say "e.g. every 5 s" and leave the timeout to the server) so
the file runs in under two minutes (TD_COAP_BLOCK_05 has a node of its own,
see pt_fresh). Every test ends with wren's packet buffer
empty. Needs root, iproute2, coap-client-notls and aiocoap. Timeouts only
guard against hangs.
"""
import contextlib
import os
import re
import shutil
import subprocess
import time

import pytest

from coap_peers import BASE, WREN, block, check_piggybacked, lc, py, responses
from conftest import Netns, WrenNode, parse_stats
from test_coap_linux import PLUGTEST_PATHS
from test_host import kernel_addr_ready

KERNEL = "2001:db8::1"
TBASE = f"coap+tcp://[{WREN}]"
LARGE = b"".join(b"%02d wren plugtest %010d ...\n" % (i, 0) for i in range(64))
OBS_MS = 1000


class Plug:
    def __init__(self, ns, node):
        self.ns, self.node = ns, node

    def stats(self):
        """coap.* and coap_plugtest.* counters by full name."""
        st = parse_stats(self.node.run("stats", r"obs_404 \d+"))
        return {k: v for k, v in st.items() if k.startswith("coap")}

    def delta(self, before):
        now = self.stats()
        return {k: v - before.get(k, 0) for k, v in now.items() if v != before.get(k, 0)}


@contextlib.contextmanager
def plugtest_node(tag):
    """wren-node serving the plugtest resources on a TAP in a namespace of its own."""
    if shutil.which("coap-client-notls") is None:
        pytest.skip("coap-client-notls (libcoap3-bin) is not installed")
    pytest.importorskip("aiocoap")
    name = f"wren-pt{tag}-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", name], check=True, capture_output=True)
    ns = Netns(name)
    node = None
    try:
        ns.ip("link", "set", "lo", "up")
        ns.ip("tuntap", "add", "dev", "tap0", "mode", "tap")
        ns.ip("link", "set", "tap0", "up")
        node = WrenNode(ns, "--tap", "tap0", "--id", "1")
        node.run(f"ifconfig 1 add {WREN}/64\nifconfig", r"drops:")
        node.wait_valid(WREN)
        ns.ip("-6", "addr", "add", f"{KERNEL}/64", "dev", "tap0")
        kernel_addr_ready(ns, KERNEL)
        out = node.run(f"plugtest obs {OBS_MS}\nplugtest ack 200", r"ack timeout 200 ms")
        assert "22 resources" in out, out
        yield Plug(ns, node)
        assert node.exit() == 0
    finally:
        if node is not None:
            node.stop()
        ns.stop_all()
        ns.ip("tuntap", "del", "dev", "tap0", "mode", "tap", check=False)
        subprocess.run(["ip", "netns", "del", name], capture_output=True)


@pytest.fixture(scope="module")
def pt(host_ok):
    with plugtest_node("") as p:
        yield p


@pytest.fixture
def pt_fresh(host_ok):
    """A node of its own: the module's node has served the other TDs' POSTs
    from many endpoints, and their responses hold the duplicate cache for
    EXCHANGE_LIFETIME (its 5.03 with Max-Age is tested in
    tests/unit/coap/test_coap_conform.c)."""
    with plugtest_node("f") as p:
        yield p
        assert p.node.pktbuf_empty(), "wren-node's packet buffer is not empty after the TD"


@pytest.fixture(autouse=True)
def pktbuf_empty_after(request):
    yield
    if "pt" in request.fixturenames:
        node = request.getfixturevalue("pt").node
        assert node.pktbuf_empty(), "wren-node's packet buffer is not empty after the TD"


CON_, NON_, ACK_, RST_ = 0, 1, 2, 3

# ---- TD_COAP_CORE ---------------------------------------------------------------


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_01(pt, tr):
    """GET (CON): 2.05 piggybacked, same MID and token, Content-Format,
    a non-empty payload (over TCP: the response with the request's token)."""
    out, pdus = lc(pt, "-m", "get", f"{BASE if tr == 'udp' else TBASE}/test")
    resp = check_piggybacked(pdus, "2.05", tr == "tcp")
    assert resp["opts"]["Content-Format"] == ["text/plain"] and out.strip(), pdus
    if tr == "udp":
        r = py(pt, 'out["r"] = await req(ctx, GET, "/test")')["r"]
        assert r["code"] == "2.05" and r["mtype"] == ACK_ and r["cf"] == 0 and r["payload"]


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_02(pt, tr):
    """DELETE (CON): 2.02, same MID and token; Content-Format only with a
    payload."""
    out, pdus = lc(pt, "-m", "delete", f"{BASE if tr == 'udp' else TBASE}/test")
    resp = check_piggybacked(pdus, "2.02", tr == "tcp")
    assert "Content-Format" not in resp["opts"] or resp["payload"], pdus


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_03(pt, tr):
    """PUT (CON) with a Content-Format and a payload: 2.04 or 2.01, same MID
    and token."""
    out, pdus = lc(pt, "-m", "put", "-t", "0", "-e", "plugtest",
                   f"{BASE if tr == 'udp' else TBASE}/test")
    resp = check_piggybacked(pdus, responses(pdus)[-1]["code"], tr == "tcp")
    assert resp["code"] in ("2.04", "2.01"), pdus


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_04(pt, tr):
    """POST (CON) with a Content-Format and a payload: 2.01 or 2.04, same
    MID and token."""
    out, pdus = lc(pt, "-m", "post", "-t", "0", "-e", "plugtest",
                   f"{BASE if tr == 'udp' else TBASE}/test")
    resp = check_piggybacked(pdus, responses(pdus)[-1]["code"], tr == "tcp")
    assert resp["code"] in ("2.01", "2.04"), pdus


def non_check(pt, method, path, codes, *extra):
    """A NON request: a NON response with a server MID, the request's token."""
    out, pdus = lc(pt, "-N", "-m", method, *extra, f"{BASE}{path}")
    req = next(p for p in pdus if p["dir"] == "out")
    resp = responses(pdus)[-1]
    assert req["type"] == "NON" and resp["type"] == "NON", pdus
    assert resp["code"] in codes and resp["token"] == req["token"], pdus
    assert not any(p["type"] == "ACK" for p in pdus if p["dir"] == "in"), pdus
    return resp


def test_TD_COAP_CORE_05(pt):
    """GET (NON): a NON 2.05 with the request's token and a Content-Format."""
    resp = non_check(pt, "get", "/test", ("2.05",))
    assert resp["opts"]["Content-Format"] == ["text/plain"] and resp["payload"]
    r = py(pt, 'out["r"] = await req(ctx, GET, "/test", mtype=NON)')["r"]
    assert r["mtype"] == NON_ and r["code"] == "2.05" and r["cf"] == 0, r


def test_TD_COAP_CORE_06(pt):
    """DELETE (NON): a NON 2.02 with the request's token."""
    non_check(pt, "delete", "/test", ("2.02",))


def test_TD_COAP_CORE_07(pt):
    """PUT (NON) with a payload and Content-Format: a NON 2.04 or 2.01."""
    non_check(pt, "put", "/test", ("2.04", "2.01"), "-t", "0", "-e", "x")


def test_TD_COAP_CORE_08(pt):
    """POST (NON) with a payload and Content-Format: a NON 2.01 or 2.04."""
    non_check(pt, "post", "/test", ("2.01", "2.04"), "-t", "0", "-e", "x")


def separate_check(pdus, token_len=None):
    """RFC 7252 5.2.2: an empty ACK with the request's MID, then a CON 2.05
    with a server MID and the request's token, which the client ACKs."""
    req = next(p for p in pdus if p["dir"] == "out")
    ins = [p for p in pdus if p["dir"] == "in"]
    assert ins[0]["type"] == "ACK" and ins[0]["code"] == "0.00" and ins[0]["mid"] == req["mid"]
    assert ins[0]["token"] == "" and not ins[0]["payload"], pdus
    resp = ins[1]
    assert resp["type"] == "CON" and resp["code"] == "2.05" and resp["mid"] != req["mid"], pdus
    assert resp["token"] == req["token"] and resp["payload"] == "separate", pdus
    assert resp["opts"]["Content-Format"] == ["text/plain"], pdus
    ack = [p for p in pdus if p["dir"] == "out" and p["type"] == "ACK"]
    assert ack and ack[0]["mid"] == resp["mid"] and ack[0]["code"] == "0.00", pdus
    if token_len is not None:
        assert len(req["token"]) == 2 * token_len, pdus


def test_TD_COAP_CORE_09(pt):
    """GET of /separate (CON): an empty ACK, some time later a CON 2.05
    (server MID, same token, Content-Format, payload) that the client
    acknowledges."""
    st = pt.stats()
    out, pdus = lc(pt, "-m", "get", f"{BASE}/separate")
    separate_check(pdus)
    r = py(pt, 'out["r"] = await req(ctx, GET, "/separate")')["r"]
    assert r["mtype"] == CON_ and r["code"] == "2.05" and r["payload"] == "separate", r
    d = pt.delta(st)
    assert d["coap_plugtest.sep_deferred"] == 2 and d["coap.sep_sent"] == 2, d
    assert "coap.sep_retx" not in d, d


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_10(pt, tr):
    """GET with a token of 1..8 bytes: 2.05 with the same token."""
    out, pdus = lc(pt, "-m", "get", "-T", "a1b2c3d4", f"{BASE if tr == 'udp' else TBASE}/test")
    resp = check_piggybacked(pdus, "2.05", tr == "tcp")
    assert 2 <= len(resp["token"]) <= 16 and resp["opts"]["Content-Format"] and resp["payload"]


def test_TD_COAP_CORE_11(pt):
    """GET of /separate with a token: empty ACK, then a CON 2.05 with that
    token, acknowledged."""
    out, pdus = lc(pt, "-m", "get", "-T", "c0ffee", f"{BASE}/separate")
    separate_check(pdus, token_len=len("c0ffee"))


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_12(pt, tr):
    """GET with a zero-length token: 2.05 with a zero-length token (and the
    request's MID over UDP), Content-Format, payload. coap-client always
    sends a token: a plain socket is the client."""
    r = py(pt, r'''
c = Raw()
c.send(0, 1, 0x1234, b"", [(11, b"test")])
out["r"] = c.recv(5)
''' if tr == "udp" else r'''
c = RawTcp()
c.send(1, b"", [(11, b"test")])
out["r"] = c.recv()
c.s.close()
''')["r"]
    assert r["code"] == "2.05" and r["token"] == "", r
    assert r["opts"]["12"] == [""] and "Token: 0 bytes" in r["payload"], r
    if tr == "udp":
        assert r["type"] == ACK_ and r["mid"] == 0x1234, r
        assert r["payload"].startswith("Type: CON\nCode: GET\nMID: 4660\n"), r
    else:
        assert r["payload"].endswith("(CoAP over TCP)"), r


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_13(pt, tr):
    """GET with three Uri-Path options seg1, seg2, seg3: 2.05 with payload."""
    out, pdus = lc(pt, "-m", "get", f"{BASE if tr == 'udp' else TBASE}/seg1/seg2/seg3")
    req = next(p for p in pdus if p["dir"] == "out")
    assert req["opts"]["Uri-Path"] == ["seg1", "seg2", "seg3"], pdus
    resp = check_piggybacked(pdus, "2.05", tr == "tcp")
    assert resp["opts"]["Content-Format"] and out.strip() == "/seg1/seg2/seg3"


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_14(pt, tr):
    """GET /query?first=1&second=2&third=3 (one Uri-Query each): 2.05 with
    a payload."""
    out, pdus = lc(pt, "-m", "get", f"{BASE if tr == 'udp' else TBASE}/query?first=1&second=2"
                   "&third=3")
    req = next(p for p in pdus if p["dir"] == "out")
    assert req["opts"]["Uri-Query"] == ["first=1", "second=2", "third=3"], pdus
    resp = check_piggybacked(pdus, "2.05", tr == "tcp")
    assert resp["opts"]["Content-Format"] and out.strip() == "Query: first=1&second=2&third=3"


def test_TD_COAP_CORE_15(pt):
    """GET (CON) in a lossy context: the client here loses the response and
    retransmits (same MID): the server answers the retransmission with the
    same response and executes the request once (RFC 7252 4.2, 4.5); a
    retransmission of a lost request is an ordinary request to it."""
    st = pt.stats()
    r = py(pt, r'''
c = Raw()
c.send(0, 1, 0x4321, b"\x15", [(11, b"test")])
first = c.recv(5)          # "lost": not seen by the client, which retransmits
c.send(0, 1, 0x4321, b"\x15", [(11, b"test")])
out["r"] = [first, c.recv(5)]
''')["r"]
    assert r[0] == r[1] and r[0]["type"] == ACK_ and r[0]["code"] == "2.05", r
    assert r[0]["mid"] == 0x4321 and r[0]["token"] == "15" and r[0]["payload"], r
    d = pt.delta(st)
    assert d["coap.rx_dup"] == 1 and d["coap_plugtest.req"] == 1, d


def test_TD_COAP_CORE_16(pt):
    """GET of /separate (CON) in a lossy context: the client loses the
    empty ACK (retransmits: the server ACKs again, defers once), then loses
    its own ACK of the CON response: the server retransmits the response
    (same MID) until acknowledged, then stops."""
    st = pt.stats()
    r = py(pt, r'''
c = Raw()
c.send(0, 1, 0x5555, b"\x16", [(11, b"separate")])
ack1 = c.recv(5)
c.send(0, 1, 0x5555, b"\x16", [(11, b"separate")])
ack2 = c.recv(5)
resp = c.recv(5)
again = c.recv(5)          # the ACK of resp was "lost": it comes again
c.s.sendto(enc(2, 0, again["mid"]), (WREN, 5683))
out["r"] = [ack1, ack2, resp, again, c.recv(2)]
''')["r"]
    ack1, ack2, resp, again, after = r
    assert ack1 == ack2 and ack1["type"] == ACK_ and ack1["code"] == "0.00", r
    assert ack1["mid"] == 0x5555 and ack1["len"] == 4, r
    assert resp["type"] == CON_ and resp["code"] == "2.05" and resp["token"] == "16", r
    assert resp["payload"] == "separate" and resp["opts"]["12"] == [""], r
    assert again == resp and after is None, r
    d = pt.delta(st)
    assert d["coap_plugtest.sep_deferred"] == 1 and d["coap.sep_retx"] == 1, d
    assert d["coap.sep_sent"] == 1 and "coap.sep_timeout" not in d, d


def test_TD_COAP_CORE_17(pt):
    """GET of /separate (NON): no empty ACK; some time later a NON 2.05
    (server MID, Content-Format, payload)."""
    resp = non_check(pt, "get", "/separate", ("2.05",))
    assert resp["opts"]["Content-Format"] == ["text/plain"] and resp["payload"] == "separate"


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_18(pt, tr):
    """POST to /test with a payload and Content-Format: 2.01 with three
    Location-Path options location1, location2, location3."""
    out, pdus = lc(pt, "-m", "post", "-t", "0", "-e", "x", f"{BASE if tr == 'udp' else TBASE}/test")
    resp = check_piggybacked(pdus, "2.01", tr == "tcp")
    assert resp["opts"]["Location-Path"] == ["location1", "location2", "location3"], pdus
    if tr == "udp":
        r = py(pt, 'out["r"] = await req(ctx, POST, "/test", b"x", content_format=0)')["r"]
        assert r["code"] == "2.01" and r["lp"] == ["location1", "location2", "location3"], r


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_19(pt, tr):
    """POST to /location-query: 2.01 with Location-Query first=1, second=2."""
    out, pdus = lc(pt, "-m", "post", "-t", "0", "-e", "x",
                   f"{BASE if tr == 'udp' else TBASE}/location-query")
    resp = check_piggybacked(pdus, "2.01", tr == "tcp")
    assert resp["opts"]["Location-Query"] == ["first=1", "second=2"], pdus
    if tr == "udp":
        r = py(pt, 'out["r"] = await req(ctx, POST, "/location-query", b"x", content_format=0)')
        assert r["r"]["code"] == "2.01" and r["r"]["lq"] == ["first=1", "second=2"], r


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_20(pt, tr):
    """GET /multi-format with Accept 0: 2.05 text/plain; with Accept 41:
    2.05 application/xml, each payload in its format."""
    base = BASE if tr == "udp" else TBASE
    out, pdus = lc(pt, "-m", "get", "-A", "0", f"{base}/multi-format")
    resp = check_piggybacked(pdus, "2.05", tr == "tcp")
    assert resp["opts"]["Content-Format"] == ["text/plain"] and "<" not in out, pdus
    out, pdus = lc(pt, "-m", "get", "-A", "41", f"{base}/multi-format")
    resp = check_piggybacked(pdus, "2.05", tr == "tcp")
    assert resp["opts"]["Content-Format"] == ["application/xml"], pdus
    assert out.strip().startswith("<multi-format>"), out
    if tr == "udp":
        r = py(pt, '''
out["text"] = await req(ctx, GET, "/multi-format", accept=0)
out["xml"] = await req(ctx, GET, "/multi-format", accept=41)
out["json"] = await req(ctx, GET, "/multi-format", accept=50)
''')
        assert r["text"]["cf"] == 0 and r["xml"]["cf"] == 41 and r["xml"]["payload"][0] == "<", r
        assert r["json"]["code"] == "4.06", r   # RFC 7252 5.10.4


def test_TD_COAP_CORE_21(pt):
    """GET /validate: 2.05 with ETag E1; GET with ETag E1: 2.03 Valid with
    ETag E1 and no payload; after another client's PUT, GET with ETag E1:
    2.05 with another ETag and another payload."""
    r = py(pt, '''
out["a"] = await req(ctx, GET, "/validate")
out["b"] = await req(ctx, GET, "/validate", etags=[bytes.fromhex(out["a"]["etag"])])
ctx2 = await Context.create_client_context()
m = Message(code=PUT, uri=BASE + "/validate", payload=b"updated %f" % time.time(), content_format=0)
out["put"] = d(await asyncio.wait_for(ctx2.request(m).response, 30))
await ctx2.shutdown()
out["c"] = await req(ctx, GET, "/validate", etags=[bytes.fromhex(out["a"]["etag"])])
''')
    a, b, c = r["a"], r["b"], r["c"]
    assert a["code"] == "2.05" and a["etag"] and a["payload"], r
    assert b["code"] == "2.03" and b["etag"] == a["etag"] and b["payload"] == "", r
    assert r["put"]["code"] == "2.04", r
    assert c["code"] == "2.05" and c["etag"] not in (None, a["etag"]), r
    assert c["payload"] != a["payload"], r


def test_TD_COAP_CORE_21_tcp(pt):
    """TD_COAP_CORE_21 over TCP: the ETag of a GET, then a GET with it
    answered 2.03 Valid with no payload."""
    out, pdus = lc(pt, "-m", "get", f"{TBASE}/validate")
    etag = check_piggybacked(pdus, "2.05", True)["opts"]["ETag"][0]
    out, pdus = lc(pt, "-m", "get", "-O", f"4,{etag}", f"{TBASE}/validate")
    resp = check_piggybacked(pdus, "2.03", True)
    assert resp["opts"]["ETag"] == [etag] and resp["payload"] == "", pdus


def test_TD_COAP_CORE_22(pt):
    """GET /validate (ETag E1); PUT with If-Match E1: 2.04; GET: the new
    payload with ETag E2; another PUT (no If-Match): 2.04; PUT with If-Match
    E2: 4.12 and the resource unchanged."""
    r = py(pt, '''
out["a"] = await req(ctx, GET, "/validate")
e1 = bytes.fromhex(out["a"]["etag"])
out["p1"] = await req(ctx, PUT, "/validate", b"first", content_format=0, if_match=[e1])
out["b"] = await req(ctx, GET, "/validate")
e2 = bytes.fromhex(out["b"]["etag"])
out["p2"] = await req(ctx, PUT, "/validate", b"second", content_format=0)
out["p3"] = await req(ctx, PUT, "/validate", b"third", content_format=0, if_match=[e2])
out["c"] = await req(ctx, GET, "/validate")
''')
    assert r["a"]["code"] == "2.05" and r["p1"]["code"] == "2.04", r
    assert r["b"]["payload"] == "first" and r["b"]["etag"] != r["a"]["etag"], r
    assert r["p2"]["code"] == "2.04" and r["p3"]["code"] == "4.12", r
    assert r["c"]["payload"] == "second", r


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_CORE_23(pt, tr):
    """PUT /create1 with If-None-Match (the resource does not exist): 2.01;
    the same again: 4.12 Precondition Failed."""
    base = BASE if tr == "udp" else TBASE
    lc(pt, "-m", "delete", f"{base}/create1")   # the TD's precondition
    out, pdus = lc(pt, "-m", "put", "-t", "0", "-e", "one", "-O", "5,", f"{base}/create1")
    req = next(p for p in pdus if p["dir"] == "out")
    assert "If-None-Match" in req["opts"], pdus
    check_piggybacked(pdus, "2.01", tr == "tcp")
    out, pdus = lc(pt, "-m", "put", "-t", "0", "-e", "two", "-O", "5,", f"{base}/create1")
    check_piggybacked(pdus, "4.12", tr == "tcp")
    out, pdus = lc(pt, "-m", "get", f"{base}/create1")
    assert out.strip() == "one", pdus


def test_TD_COAP_CORE_31(pt):
    """CoAP ping: a 4-byte empty CON is answered with a 4-byte RST of the
    same MID (RFC 7252 4.3)."""
    r = py(pt, r'''
c = Raw()
c.send(0, 0, 0x3131)
out["r"] = c.recv(5)
''')["r"]
    assert r == {"type": RST_, "code": "0.00", "mid": 0x3131, "token": "", "opts": {},
                 "payload": "", "len": 4}, r


# ---- TD_COAP_BLOCK ----------------------------------------------------------------

def block2_check(pdus, want_size, body):
    """Every response a 2.05 whose Block2 numbers the blocks in order, M on
    all but the last, each full but the last; the blocks make @body."""
    rs = [p for p in responses(pdus)]
    assert rs and all(p["code"] == "2.05" for p in rs), pdus
    blocks = [block(p["opts"]["Block2"][0]) for p in rs]
    n = len(blocks)
    assert [b[0] for b in blocks] == list(range(blocks[0][0], blocks[0][0] + n)), blocks
    assert all(b[1] for b in blocks[:-1]) and not blocks[-1][1], blocks
    assert all(b[2] == want_size for b in blocks[1:]), blocks
    return blocks


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_BLOCK_01(pt, tr, tmp_path):
    """GET /large with Block2 0/0/64 (early negotiation): every block a 2.05
    with Block2 NUM=i, M=1 (the last M=0), SZX no larger than asked, full
    blocks but the last; the whole representation in order."""
    f = tmp_path / "large"
    out, pdus = lc(pt, "-m", "get", "-b", "64", "-o", str(f),
                   f"{BASE if tr == 'udp' else TBASE}/large")
    req = next(p for p in pdus if p["dir"] == "out")
    assert block(req["opts"]["Block2"][0]) == (0, False, 64), pdus
    blocks = block2_check(pdus, 64, LARGE)
    assert blocks[0] == (0, True, 64) and len(blocks) == len(LARGE) // 64, blocks
    assert f.read_bytes() == LARGE


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_BLOCK_02(pt, tr, tmp_path):
    """GET /large without Block2 (late negotiation): a 2.05 with Block2
    NUM=0, M=1 and a full block; the client asks for the rest and gets it
    block by block in order (aiocoap too)."""
    f = tmp_path / "large"
    out, pdus = lc(pt, "-m", "get", "-o", str(f), f"{BASE if tr == 'udp' else TBASE}/large")
    req = next(p for p in pdus if p["dir"] == "out")
    assert "Block2" not in req["opts"], pdus
    first = responses(pdus)[0]
    num, more, size = block(first["opts"]["Block2"][0])
    assert (num, more) == (0, True) and first["opts"]["Size2"] == [str(len(LARGE))], pdus
    block2_check(pdus, size, LARGE)
    assert f.read_bytes() == LARGE
    if tr == "udp":
        r = py(pt, 'out["r"] = await req(ctx, GET, "/large")')["r"]
        assert r["code"] == "2.05" and r["payload"].encode() == LARGE, r


def body_of(n):
    return bytes(65 + (i * 7) % 26 for i in range(n))


def block1_check(pdus, final_code, size):
    """Block1 requests NUM=i, M=1 but the last; the server's 2.31 Continue
    with Block1 NUM=i, M=1 for each but the last, @final_code with M=0 for
    the last."""
    reqs = [p for p in pdus if p["dir"] == "out" and "Block1" in p["opts"]]
    rs = responses(pdus)
    assert len(reqs) == len(rs) > 1, pdus
    for i, (q, r) in enumerate(zip(reqs, rs)):
        last = i == len(rs) - 1
        assert block(q["opts"]["Block1"][0]) == (i, not last, size), pdus
        assert r["code"] == (final_code if last else "2.31"), pdus
        assert block(r["opts"]["Block1"][0]) == (i, not last, size), pdus
    return rs[-1]


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_BLOCK_03(pt, tr, tmp_path):
    """PUT /large-update in Block1 blocks: 2.31 with Block1 NUM=i, M=1 for
    each block, 2.04 with M=0 for the last; the resource is then the whole
    body (atomic)."""
    base = BASE if tr == "udp" else TBASE
    body = body_of(1200 if tr == "udp" else 1100)
    f = tmp_path / "body"
    f.write_bytes(body)
    out, pdus = lc(pt, "-m", "put", "-t", "0", "-b", "64", "-f", str(f), f"{base}/large-update")
    block1_check(pdus, "2.04", 64)
    g = tmp_path / "back"
    lc(pt, "-m", "get", "-o", str(g), f"{base}/large-update")
    assert g.read_bytes() == body


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_BLOCK_04(pt, tr, tmp_path):
    """POST /large-create in Block1 blocks: 2.31 Continue (M=1) for each,
    2.01 with M=0 and Location-Path large-create/PS for the last; a GET of
    that location shows the body arrived whole."""
    base = BASE if tr == "udp" else TBASE
    body = body_of(1000)
    f = tmp_path / "body"
    f.write_bytes(body)
    out, pdus = lc(pt, "-m", "post", "-t", "0", "-b", "128", "-f", str(f), f"{base}/large-create")
    last = block1_check(pdus, "2.01", 128)
    lp = last["opts"]["Location-Path"]
    assert len(lp) == 2 and lp[0] == "large-create" and "/" not in lp[1], pdus
    h = 2166136261
    for b in body:
        h = ((h ^ b) * 16777619) & 0xffffffff
    out, pdus = lc(pt, "-m", "get", f"{base}/{lp[0]}/{lp[1]}")
    assert out.strip() == f"{len(body)} bytes, fnv1a 0x{h:08x}", out


def test_TD_COAP_BLOCK_05(pt_fresh, tmp_path):
    """POST /large-post in Block1 blocks (2.31 Continue for each), the last
    answered 2.04 with Block1 M=0 and Block2 NUM=0, M=1 and a full block;
    the client fetches the rest of the response with Block2."""
    f = tmp_path / "body"
    f.write_bytes(body_of(700))
    args = ("-m", "post", "-t", "0", "-b", "64", "-f", str(f), f"{BASE}/large-post")
    pt = pt_fresh
    out, pdus = lc(pt, *args)
    reqs = [p for p in pdus if p["dir"] == "out" and "Block1" in p["opts"]]
    rs = responses(pdus)[:len(reqs)]
    assert all(r["code"] == "2.31" for r in rs[:-1]), pdus
    last = rs[-1]
    assert last["code"] == "2.04" and block(last["opts"]["Block1"][0])[1] is False, pdus
    assert block(last["opts"]["Block2"][0])[:2] == (0, True), pdus
    want = large_post_answer(body_of(700))
    assert last["opts"]["Size2"] == [str(len(want))], pdus
    # RFC 7959 2.6: the later blocks, asked with Block2 NUM > 0, carry the
    # same answer (one ETag): the POST was not executed again
    later = [r for r in responses(pdus)[len(reqs):] if "Block2" in r["opts"]]
    assert later and all(r["code"] == "2.04" for r in later), pdus
    assert {r["opts"]["ETag"][0] for r in later} == {last["opts"]["ETag"][0]}, pdus
    assert out.encode() == want, out
    # aiocoap, NON
    r = py(pt, f'out["r"] = await req(ctx, POST, "/large-post", payload=bytes({list(body_of(300))}), '
               'mtype=NON)')["r"]
    assert r["code"] == "2.04" and r["payload"].encode("latin-1") == large_post_answer(body_of(300)), r


def large_post_answer(body):
    """/large-post's answer to @body: its size and FNV-1a, then /large's
    lines with the size (src/coap/coap_plugtest.c)."""
    h = 2166136261
    for b in body:
        h = ((h ^ b) * 16777619) & 0xffffffff
    return (b"%d bytes, fnv1a 0x%08x\n" % (len(body), h) +
            b"".join(b"%02d wren plugtest %010d ...\n" % (i, len(body)) for i in range(64)))


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_BLOCK_06(pt, tr, tmp_path):
    """TD_COAP_BLOCK_01 with 16-byte blocks (SZX 0)."""
    f = tmp_path / "large"
    out, pdus = lc(pt, "-m", "get", "-b", "16", "-o", str(f),
                   f"{BASE if tr == 'udp' else TBASE}/large")
    blocks = block2_check(pdus, 16, LARGE)
    assert blocks[0] == (0, True, 16) and len(blocks) == len(LARGE) // 16, blocks
    assert f.read_bytes() == LARGE


# ---- TD_COAP_OBS -------------------------------------------------------------------

def observe_udp(pt, path, seconds, *extra):
    """coap-client -s observing @path for @seconds: (request, first response,
    notifications)."""
    out, pdus = lc(pt, "-s", str(seconds), *extra, "-m", "get", f"{BASE}{path}",
                   timeout=seconds + 30)
    req = next(p for p in pdus if p["dir"] == "out")
    rs = responses(pdus)
    return req, rs[0], rs[1:], pdus


def obs_values(ms):
    return [int(m["opts"]["Observe"][0]) for m in ms]


def test_TD_COAP_OBS_01(pt):
    """GET /obs (CON) with Observe: an ACK 2.05 with Observe and the
    resource's Content-Format; then CON 2.05 notifications with the token,
    that format and increasing Observe values, each acknowledged."""
    req, first, notes, pdus = observe_udp(pt, "/obs", 4)
    assert req["type"] == "CON" and req["opts"]["Observe"] == ["0"], pdus
    assert first["type"] == "ACK" and first["code"] == "2.05" and "Observe" in first["opts"]
    assert first["mid"] == req["mid"] and first["token"] == req["token"], pdus
    notes = [m for m in notes if m["token"] == req["token"]]
    assert len(notes) >= 2, pdus
    assert all(m["type"] == "CON" and m["code"] == "2.05" for m in notes), pdus
    assert all(m["opts"]["Content-Format"] == first["opts"]["Content-Format"] for m in notes)
    seq = obs_values([first] + notes)
    assert seq == sorted(set(seq)), seq
    acked = {p["mid"] for p in pdus if p["dir"] == "out" and p["type"] == "ACK"}
    assert all(m["mid"] in acked for m in notes), pdus


def test_TD_COAP_OBS_01_tcp(pt):
    """TD_COAP_OBS_01 over TCP (RFC 8323 7: no message types): the 2.05 with
    Observe, then notifications with the token, the format and increasing
    Observe values."""
    out, pdus = lc(pt, "-s", "4", "-m", "get", f"{TBASE}/obs", timeout=40)
    req = next(p for p in pdus if p["dir"] == "out")
    rs = [p for p in responses(pdus) if p["token"] == req["token"]]
    assert len(rs) >= 3 and all(p["code"] == "2.05" for p in rs), pdus
    seq = obs_values(rs)
    assert seq == sorted(set(seq)), seq


def test_TD_COAP_OBS_02(pt):
    """GET /obs-non (NON) with Observe: NON 2.05 notifications with the
    token, one Content-Format and increasing Observe values (the TD's note
    allows an occasional CON: wren's first notification to an observer is
    CON, RFC 7641 4.5)."""
    req, first, notes, pdus = observe_udp(pt, "/obs-non", 5, "-N")
    assert req["type"] == "NON" and first["type"] == "NON", pdus
    notes = [m for m in notes if m["token"] == req["token"]]
    assert len(notes) >= 3, pdus
    assert all(m["type"] == "NON" for m in notes[1:]), pdus
    assert {tuple(m["opts"]["Content-Format"]) for m in [first] + notes} == {("text/plain",)}
    seq = obs_values([first] + notes)
    assert seq == sorted(set(seq)), seq


def test_TD_COAP_OBS_03(pt):
    """(no such TD)"""
    pytest.skip("CoAP#4's test descriptions (cabo/td-coap4 block.yml) have no TD_COAP_OBS_03")


REGISTER = r'''
c = Raw()
tok = b"\x0b\x5e"
c.send(0, 1, 0x0b01, tok, [(6, b""), (11, b"obs")])
first = c.recv(5)
'''


def test_TD_COAP_OBS_04(pt):
    """Re-registration (the client, having lost track of the observation,
    registers again with the same token): the server answers 2.05 with
    Observe and keeps one observer for it, whose notifications go on with
    Observe values newer than the response's. (The TD's detection of the
    lost state by Max-Age is the client's.)"""
    st = pt.stats()
    r = py(pt, REGISTER + r'''
notes = c.recv_all(1.5)
c.send(0, 1, 0x0b02, tok, [(6, b""), (11, b"obs")])
again = [m for m in c.recv_all(0.5) if m["mid"] == 0x0b02]
later = c.recv_all(2.5)
for m in c.recv_all(0.3, ack=False) + later[-1:]:
    c.s.sendto(enc(3, 0, m["mid"]), (WREN, 5683))   # done: RST
out["r"] = [first, notes, again, later]
''')["r"]
    first, notes, again, later = r
    assert first["code"] == "2.05" and "6" in first["opts"] and notes, r
    assert again and again[0]["type"] == ACK_ and again[0]["code"] == "2.05", r
    assert "6" in again[0]["opts"] and again[0]["token"] == "0b5e", r
    later = [m for m in later if m["token"] == "0b5e"]
    assert later and all(m["code"] == "2.05" for m in later), r
    d = pt.delta(st)
    assert d["coap.obs_add"] == 1, d


def test_TD_COAP_OBS_05(pt):
    """The observer switched off: the server's CON notifications go
    unacknowledged, its retransmissions carry newer Observe values, and it
    stops and forgets the observer after the last retransmission (RFC 7641
    4.5)."""
    st = pt.stats()
    r = py(pt, REGISTER + r'''
out["r"] = [first] + c.recv_all(16, ack=False)
''', timeout=60)["r"]
    first, notes = r[0], r[1:]
    # one notification and its MAX_RETRANSMIT (4) retransmissions, each
    # with the current state: the changes meanwhile add no message
    assert first["code"] == "2.05" and len(notes) == 5, r
    assert all(m["type"] == CON_ for m in notes), r
    seq = [int(m["opts"]["6"][0] or "0", 16) for m in notes]
    assert seq == sorted(set(seq)), seq
    d = pt.delta(st)
    assert d["coap.obs_timeout"] == 1 and d["coap.obs_add"] == 1, d
    assert "/obs " in pt.node.run("plugtest", r"ack timeout")


def test_TD_COAP_OBS_06(pt):
    """The observer rebooted: it answers the next notification with RST;
    the server removes it and sends nothing more."""
    st = pt.stats()
    r = py(pt, REGISTER + r'''
n = c.recv(3)
c.s.sendto(enc(3, 0, n["mid"]), (WREN, 5683))
out["r"] = [first, n, c.recv_all(2.5)]
''')["r"]
    first, n, after = r
    assert first["code"] == "2.05" and n["code"] == "2.05" and after == [], r
    d = pt.delta(st)
    assert d["coap.obs_rst"] == 1, d


def test_TD_COAP_OBS_07(pt):
    """/obs deleted (by another client's DELETE): its observer gets a CON
    4.04 with its token and no Observe option, then nothing more."""
    st = pt.stats()
    r = py(pt, REGISTER + r'''
note = c.recv(3)
c.s.sendto(enc(2, 0, note["mid"]), (WREN, 5683))
out["del"] = await req(ctx, DELETE, "/obs")
msgs = c.recv_all(2.5)
out["r"] = [first, note, msgs]
out["get"] = await req(ctx, GET, "/obs")
out["back"] = await req(ctx, PUT, "/obs", b"", content_format=0)
''')
    first, note, msgs = r["r"]
    assert r["del"]["code"] == "2.02", r
    # (a change may have been told before the DELETE came) the 4.04, then nothing
    assert msgs and all(m["code"] == "2.05" for m in msgs[:-1]), r
    end = msgs[-1]
    assert end["type"] == CON_ and end["code"] == "4.04", r
    assert end["token"] == "0b5e" and "6" not in end["opts"], r
    assert r["get"]["code"] == "4.04" and r["back"]["code"] == "2.01", r
    assert pt.delta(st)["coap_plugtest.obs_404"] == 1


def test_TD_COAP_OBS_08(pt):
    """/obs given another Content-Format (another client's PUT of
    application/xml): its observer gets a CON 4.06 with its token and no
    Observe option, then nothing more."""
    st = pt.stats()
    r = py(pt, REGISTER + r'''
note = c.recv(3)
c.s.sendto(enc(2, 0, note["mid"]), (WREN, 5683))
out["put"] = await req(ctx, PUT, "/obs", b"<v>1</v>", content_format=41)
msgs = c.recv_all(2.5)
out["r"] = [first, note, msgs]
out["get"] = await req(ctx, GET, "/obs")
out["back"] = await req(ctx, PUT, "/obs", b"", content_format=0)
''')
    first, note, msgs = r["r"]
    assert r["put"]["code"] == "2.04", r
    assert msgs and all(m["code"] == "2.05" for m in msgs[:-1]), r
    end = msgs[-1]
    assert end["type"] == CON_ and end["code"] == "4.06", r
    assert end["token"] == "0b5e" and "6" not in end["opts"], r
    assert r["get"]["cf"] == 41 and r["get"]["payload"] == "<v>1</v>", r
    assert pt.delta(st)["coap_plugtest.obs_406"] == 1


def test_TD_COAP_OBS_09(pt):
    """/obs updated with a payload of the same Content-Format (another
    client's PUT): its observer gets a CON 2.05 with that payload, the same
    format, its token and a newer Observe value."""
    r = py(pt, REGISTER + r'''
note = c.recv(3)
c.s.sendto(enc(2, 0, note["mid"]), (WREN, 5683))
out["put"] = await req(ctx, PUT, "/obs", b"new value", content_format=0)
msgs = c.recv_all(1)
for m in msgs:
    c.s.sendto(enc(3, 0, m["mid"]), (WREN, 5683))
out["back"] = await req(ctx, PUT, "/obs", b"", content_format=0)
for m in c.recv_all(1, ack=False):
    c.s.sendto(enc(3, 0, m["mid"]), (WREN, 5683))
out["r"] = [first, note, msgs]
''')
    first, note, msgs = r["r"]
    assert r["put"]["code"] == "2.04" and r["back"]["code"] == "2.04", r
    new = [m for m in msgs if m["payload"] == "new value"]
    assert new and new[0]["type"] == CON_ and new[0]["code"] == "2.05", r
    assert new[0]["opts"]["12"] == [""] and new[0]["token"] == "0b5e", r
    assert int(new[0]["opts"]["6"][0], 16) > int(note["opts"]["6"][0], 16), r


def test_TD_COAP_OBS_10(pt):
    """A GET of /obs without Observe and with another token (same client)
    is answered 2.05 without Observe and does not end the observation:
    notifications with the first token go on."""
    r = py(pt, REGISTER + r'''
n1 = c.recv(3)
c.s.sendto(enc(2, 0, n1["mid"]), (WREN, 5683))
c.send(0, 1, 0x0b10, b"\x77", [(11, b"obs")])
plain = [m for m in c.recv_all(0.5) if m["mid"] == 0x0b10]
later = [m for m in c.recv_all(2.5) if m["token"] == "0b5e"]
c.send(0, 1, 0x0b11, tok, [(6, b"\x01"), (11, b"obs")])   # done: Observe 1
c.recv_all(0.5)
out["r"] = [first, plain, later]
''')
    first, plain, later = r["r"]
    assert plain and plain[0]["code"] == "2.05" and plain[0]["token"] == "77", r
    assert "6" not in plain[0]["opts"] and plain[0]["type"] == ACK_, r
    assert later and all(m["code"] == "2.05" and "6" in m["opts"] for m in later), r


def test_TD_COAP_OBS_12(pt):
    """GET with Observe 1 and the observation's token ends it: 2.05 without
    Observe, no notification after."""
    r = py(pt, REGISTER + r'''
n1 = c.recv(3)
c.s.sendto(enc(2, 0, n1["mid"]), (WREN, 5683))
c.send(0, 1, 0x0b12, tok, [(6, b"\x01"), (11, b"obs")])
msgs = c.recv_all(2.5)
out["r"] = [first, msgs]
''')
    first, msgs = r["r"]
    k = next(i for i, m in enumerate(msgs) if m["mid"] == 0x0b12)
    assert msgs[k]["code"] == "2.05" and "6" not in msgs[k]["opts"], r
    # (a change may have been told before the GET came) nothing after its answer
    assert msgs[k + 1:] == [], r


def test_TD_COAP_OBS_13(pt):
    """GET /obs-large with Observe: the response and each notification
    carry Observe and Block2 NUM=0, M=1 with a full block; aiocoap fetches
    the rest: each representation whole."""
    r = py(pt, '''
obs = ctx.request(Message(code=GET, uri=BASE + "/obs-large", observe=0))
first = await asyncio.wait_for(obs.response, 30)
got = [d(first)]
async def collect():
    async for n in obs.observation:
        got.append(d(n))
        if len(got) == 3:
            break
await asyncio.wait_for(collect(), 30)
obs.observation.cancel()
out["r"] = got
''')["r"]
    assert len(r) == 3 and all(m["code"] == "2.05" and m["observe"] is not None for m in r), r
    vals = [m["payload"] for m in r]
    assert all(len(v) == len(LARGE) for v in vals) and len(set(vals)) == 3, [len(v) for v in vals]


def test_TD_COAP_OBS_11(pt):
    """Observation with CON notifications, lossy: the client loses a
    notification (sends no ACK); the server's retransmission carries the
    newer state (a newer Observe value) and nothing else is sent while it is
    outstanding; once acknowledged, notifications go on, each CON."""
    r = py(pt, REGISTER + r'''
n1 = c.recv(3)                      # lost
n2 = c.recv(3)                      # the next message: the retransmission
c.s.sendto(enc(2, 0, n2["mid"]), (WREN, 5683))
rest = c.recv_all(2.5)
for m in c.recv_all(1.5, ack=False):
    c.s.sendto(enc(3, 0, m["mid"]), (WREN, 5683))   # done: RST
out["r"] = [first, n1, n2, rest]
''')["r"]
    first, n1, n2, rest = r
    assert n1["type"] == CON_ and n2["type"] == CON_ and n2["token"] == "0b5e", r
    assert int(n2["opts"]["6"][0], 16) > int(n1["opts"]["6"][0], 16), r
    assert rest and all(m["type"] == CON_ and m["code"] == "2.05" for m in rest), r
    seq = [int(m["opts"]["6"][0], 16) for m in [n2] + rest]
    assert seq == sorted(set(seq)), seq


def test_TD_COAP_OBS_14(pt):
    """(not run)"""
    pytest.skip("needs /obs-pumping, a resource of varying size, which is not among the "
                "plugtest resources the issue asks for; /obs-large's Block2 notifications "
                "are OBS_13's")


# ---- TD_COAP_LINK ------------------------------------------------------------------

def links(payload):
    """href -> {attribute: value} of a link-format payload (RFC 6690 2)."""
    out = {}
    for m in re.finditer(r'<([^>]*)>((?:;[^;,="]+(?:="[^"]*"|=[^;,]*)?)*)', payload):
        attrs = dict(re.findall(r';([^;=,]+)(?:=("[^"]*"|[^;,]*))?', m.group(2)))
        out[m.group(1)] = {k: v.strip('"') for k, v in attrs.items()}
    return out


def discover(pt, query="", tr="udp"):
    base = BASE if tr == "udp" else TBASE
    out, pdus = lc(pt, "-m", "get", f"{base}/.well-known/core{'?' + query if query else ''}")
    resp = check_piggybacked(pdus, "2.05", tr == "tcp")
    assert resp["opts"]["Content-Format"] == ["application/link-format"], pdus
    return links(out)





@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_LINK_01(pt, tr):
    """GET /.well-known/core: 2.05, Content-Format 40, every resource's link
    (aiocoap's link-format parser reads it too)."""
    ls = discover(pt, tr=tr)
    assert PLUGTEST_PATHS <= set(ls), sorted(ls)
    assert ls["/obs"].keys() >= {"obs", "rt"} and ls["/large"]["sz"] == "2048", ls
    if tr == "udp":
        r = py(pt, '''
from aiocoap.util.linkformat import parse
r = await req(ctx, GET, "/.well-known/core")
out["r"] = [r["cf"], sorted(l.href for l in parse(r["payload"]).links)]
''')["r"]
        assert r[0] == 40 and PLUGTEST_PATHS <= set(r[1]), r


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_LINK_02(pt, tr):
    """?rt=Type1: only the links whose rt has Type1."""
    assert set(discover(pt, "rt=Type1", tr)) == {"/link1", "/link3"}


def test_TD_COAP_LINK_03(pt):
    """?rt=*: only the links that have an rt attribute."""
    ls = discover(pt, "rt=*")
    every = discover(pt)
    assert set(ls) == {h for h, a in every.items() if "rt" in a} and "/validate" not in ls, ls


def test_TD_COAP_LINK_04(pt):
    """?rt=Type2 with resources of rt "Type1 Type2", "Type2 Type3", "Type1
    Type3" and "": only the first two groups."""
    every = discover(pt)
    assert every["/path/sub3"]["rt"] == "" and every["/link3"]["rt"] == "Type1 Type3"
    assert set(discover(pt, "rt=Type2")) == {"/link1", "/link2"}


def test_TD_COAP_LINK_05(pt):
    """?if=If*: only the links whose if starts with If (not foo, not none)."""
    assert set(discover(pt, "if=If*")) == {"/link1", "/link2"}


def test_TD_COAP_LINK_06(pt):
    """?sz=*: only the links with a sz attribute."""
    assert set(discover(pt, "sz=*")) == {"/large", "/large-update", "/obs-large"}


@pytest.mark.parametrize("tr", ["udp", "tcp"])
def test_TD_COAP_LINK_07(pt, tr):
    """?href=/link1: only /link1's link."""
    assert set(discover(pt, "href=/link1", tr)) == {"/link1"}


def test_TD_COAP_LINK_08(pt):
    """?href=/link*: only the links matching /link* (not /test)."""
    assert set(discover(pt, "href=/link*")) == {"/link1", "/link2", "/link3"}


def test_TD_COAP_LINK_09(pt):
    """/path listed with ct=40; a GET of /path: 2.05, Content-Format 40, the
    links of /path/sub1.. ; a GET of /path/sub1: 2.05 naming it."""
    assert discover(pt)["/path"]["ct"] == "40"
    out, pdus = lc(pt, "-m", "get", f"{BASE}/path")
    resp = check_piggybacked(pdus, "2.05", False)
    assert resp["opts"]["Content-Format"] == ["application/link-format"], pdus
    assert set(links(out)) == {"/path/sub1", "/path/sub2", "/path/sub3"}, out
    out, pdus = lc(pt, "-m", "get", f"{BASE}/path/sub1")
    check_piggybacked(pdus, "2.05", False)
    assert out.strip() == "/path/sub1"


def test_plugtest_counters_and_shell(pt):
    """The module's counters and its shell line: what the TDs above did is
    counted (run last; on its own it checks its own requests)."""
    st = pt.stats()
    lc(pt, "-m", "get", f"{BASE}/test")
    py(pt, 'out["r"] = await req(ctx, GET, "/multi-format", accept=50)')
    d = pt.delta(st)
    # the 4.06 is the server's (`cfs`): the handler does not run. The
    # observations earlier TDs leave (their clients gone: a NON notification
    # is never refused) are notified on /obs's 1-second ticks, each a handler
    # run too: those are not this test's requests
    runs = (d.get("coap_plugtest.req", 0) - d.get("coap.obs_notify", 0) -
            d.get("coap_tcp.obs_notify", 0))
    assert runs == 1 and d["coap.req_not_acceptable"] == 1, d
    line = pt.node.run("plugtest", r"/validate etag")
    assert re.search(r"plugtest: 22 resources; /obs value \d+, changes every 1000 ms while "
                     r"observed \((observed|resting)\); separate pending 0", line), line
    assert "ack timeout 200 ms" in line, line
    bad = pt.node.run("plugtest obs 0", r"plugtest: want")
    assert "MS 1..3600000" in bad, bad

