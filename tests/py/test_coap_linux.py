"""wren's CoAP server against CoAP implementations nobody here wrote, over a
TAP in a network namespace: libcoap's coap-client (Debian's libcoap3-bin)
and aiocoap (PyPI), each doing GET/PUT/POST/DELETE, NON requests, the
16 KiB /pattern fetched block-wise (Block2, byte-exact), /.well-known/core
(aiocoap's link-format parser reads it), unknown critical options and
Proxy-Uri; tshark dissects every CoAP message of the capture with nothing
flagged. wren as a CoAP client comes with the client (issue 14).

Needs root, iproute2, tshark, coap-client-notls and aiocoap; the namespace,
tap0 and every process are removed by conftest's fixtures. Timeouts only
guard against hangs.
"""
import json
import re
import shutil
import subprocess
import sys
import time

import pytest

from conftest import parse_stats, tshark_fields
from test_host import kernel_addr_ready, need
from test_tcp_linux import TapCapture

WREN = "2001:db8::2"
KERNEL = "2001:db8::1"
BASE = f"coap://[{WREN}]"
PATTERN_LEN = 16384
# the ETSI CoAP plugtest's resources wren-node serves besides (src/coap/coap_plugtest.h)
PLUGTEST_PATHS = {"/test", "/seg1/seg2/seg3", "/query", "/separate", "/large", "/large-update",
                  "/large-create", "/large-post", "/obs", "/obs-non", "/obs-large",
                  "/multi-format", "/validate", "/location-query", "/create1", "/link1",
                  "/link2", "/link3", "/path", "/path/sub1", "/path/sub2", "/path/sub3"}


def pattern(n):
    return bytes(i % 251 for i in range(n))


@pytest.fixture
def coap_node(tapns, wren_node, tmp_path):
    """wren-node --id 1 on tap0 with 2001:db8::2/64, the kernel's
    2001:db8::1/64 on the other side, a capture of tap0 running; yields
    (ns, node, capture) and checks wren's packet buffer at the end."""
    need("tshark")
    ns = tapns
    node = wren_node("--tap", "tap0", "--id", "1", ns=ns)
    node.run(f"ifconfig 1 add {WREN}/64\nifconfig", r"drops:")
    node.wait_valid(WREN)
    ns.ip("-6", "addr", "add", f"{KERNEL}/64", "dev", "tap0")
    kernel_addr_ready(ns, KERNEL)
    cap = TapCapture(ns, tmp_path / "tap.pcap")
    yield ns, node, cap
    assert node.pktbuf_empty(), "wren-node's packet buffer is not empty at the end"
    assert node.exit() == 0


def coap_stats(node):
    """The coap counter set of `stats`, by counter name."""
    st = parse_stats(node.run("stats", r"^tcp:"))
    return {k.removeprefix("coap."): v for k, v in st.items() if k.startswith("coap.")}


COAP_FIELDS = ("coap.type", "coap.code", "coap.mid", "coap.token", "_ws.malformed",
               "_ws.expert.severity", "ipv6.src", "_ws.expert.message")


def request_tag_only(x):
    """libcoap 4.3.1 adds Request-Tag (option 292, RFC 9175) to Block1
    requests, which tshark 4.0 does not know ("Invalid Option Number 292")."""
    msgs = [m for m in x["_ws.expert.message"].split(",") if m]
    return x["ipv6.src"] != WREN and msgs and all(m == "Invalid Option Number 292" for m in msgs)


def check_capture(cap, want_min):
    """Every CoAP message of the capture dissected with nothing flagged;
    returns the rows."""
    frames = cap.stop()
    rows = tshark_fields(cap.pcap, *COAP_FIELDS, extra=("-Y", "coap"))
    assert len(rows) >= want_min, f"{len(rows)} CoAP messages of {frames} frames"
    r = [dict(zip(COAP_FIELDS, x)) for x in rows]
    bad = [x for x in r if x["_ws.malformed"] and not request_tag_only(x)]
    assert not bad, bad[:3]
    # nothing wren sent draws an expert entry of warning or error severity
    # (the peers' requests with an unknown option on purpose do: "Undecoded")
    severe = [x for x in r if x["ipv6.src"] == WREN and x["_ws.expert.severity"] and
              max(int(v, 0) for v in x["_ws.expert.severity"].split(",")) >= 0x00600000]
    assert not severe, severe[:3]
    assert any(x["ipv6.src"] == WREN for x in r) and any(x["ipv6.src"] == KERNEL for x in r)
    return r


def libcoap(ns, *args, timeout=30):
    if shutil.which("coap-client-notls") is None:
        pytest.skip("coap-client-notls (libcoap3-bin) is not installed")
    res = ns.run("timeout", str(timeout), "coap-client-notls", *args)
    assert res.returncode == 0, res.stdout + res.stderr
    return res


def test_coap_libcoap_client(coap_node, tmp_path):
    ns, node, cap = coap_node
    # GET, POST, PUT, DELETE on /counter (text)
    assert libcoap(ns, "-m", "get", f"{BASE}/counter").stdout.strip() == "0"
    assert libcoap(ns, "-m", "post", f"{BASE}/counter").stdout.strip() == "1"
    assert libcoap(ns, "-m", "put", "-e", "41", f"{BASE}/counter").stdout.strip() == "41"
    assert libcoap(ns, "-m", "post", f"{BASE}/counter").stdout.strip() == "42"
    # NON request: NON response
    assert libcoap(ns, "-N", "-m", "get", f"{BASE}/counter").stdout.strip() == "42"
    assert libcoap(ns, "-m", "delete", f"{BASE}/counter").returncode == 0
    assert libcoap(ns, "-m", "get", f"{BASE}/counter").stdout.strip() == "0"
    # multicast (RFC 7252 8): a NON to All CoAP Nodes on the link, answered
    # after the leisure (up to 5 s) from wren's unicast address
    # after the leisure (up to 5 s) from wren's unicast address; the link
    # format of every resource (the plugtest's too: ~650 bytes) is larger than
    # the answer's 128-byte slot, so it comes as Block2 block 0 and libcoap
    # fetches the rest by unicast (RFC 7959 2.8)
    res = libcoap(ns, "-N", "-B", "6", "-m", "get", "coap://[ff02::fd%tap0]/.well-known/core")
    links = res.stdout.strip()
    assert "</counter>;ct=0;obs" in links, res.stdout + res.stderr
    assert len(links) > 128 and "</large-post>" in links, res.stdout + res.stderr
    st = coap_stats(node)
    assert st["mc_req"] == 1 and st["mc_busy"] == 0, st
    uni = libcoap(ns, "-m", "get", f"{BASE}/.well-known/core").stdout.strip()
    assert links == uni, (links, uni)
    # a separate response (RFC 7252 5.2.2): empty ACK, then a CON 2.05 that
    # libcoap acknowledges; and for a NON request a NON response
    assert libcoap(ns, "-m", "get", f"{BASE}/slow").stdout.strip() == "slow"
    assert libcoap(ns, "-N", "-m", "get", f"{BASE}/slow").stdout.strip() == "slow"
    # 16 KiB block-wise (libcoap follows Block2 from the first response),
    # and with 64-byte blocks asked for (-b 2 is SZX 2)
    for extra in ((), ("-b", "64")):
        out = tmp_path / "pattern.bin"
        libcoap(ns, "-m", "get", *extra, "-o", str(out), f"{BASE}/pattern")
        assert out.read_bytes() == pattern(PATTERN_LEN), extra
        out.unlink()
    # 16 KiB the other way: PUT in Block1 blocks (libcoap's -b 64: 64-byte blocks)
    # into /pattern, which checks every byte and takes the size at the last block
    body = tmp_path / "body.bin"
    body.write_bytes(pattern(PATTERN_LEN - 1000))
    libcoap(ns, "-m", "put", "-b", "64", "-f", str(body), f"{BASE}/pattern")
    out = tmp_path / "back.bin"
    libcoap(ns, "-m", "get", "-o", str(out), f"{BASE}/pattern")
    assert out.read_bytes() == pattern(PATTERN_LEN - 1000)
    body.write_bytes(pattern(PATTERN_LEN))
    libcoap(ns, "-m", "put", "-f", str(body), f"{BASE}/pattern")
    # link format
    wk = libcoap(ns, "-m", "get", f"{BASE}/.well-known/core").stdout
    assert "</counter>;ct=0" in wk and "</pattern>;ct=42" in wk, wk
    # unknown critical option (65001, experimental use): 4.02; Proxy-Uri: 5.05;
    # unknown path: 4.04
    res = libcoap(ns, "-m", "get", "-O", "65001,x", f"{BASE}/counter")
    assert "4.02" in res.stdout + res.stderr, res.stdout + res.stderr
    res = libcoap(ns, "-m", "get", "-P", f"coap://[{WREN}]:5683", "coap://example.org/x")
    assert "5.05" in res.stdout + res.stderr, res.stdout + res.stderr
    res = libcoap(ns, "-m", "get", f"{BASE}/nothing")
    assert "4.04" in res.stdout + res.stderr, res.stdout + res.stderr
    # observe: coap-client -s watches /counter while three POSTs change it
    watcher = ns.popen("coap-client-notls", "-s", "10", "-m", "get", f"{BASE}/counter",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 15
    while coap_stats(node)["obs_add"] == 0:   # registered
        assert time.monotonic() < deadline, "coap-client never registered"
        time.sleep(0.1)
    for _ in range(3):
        libcoap(ns, "-m", "post", f"{BASE}/counter")
        time.sleep(0.3)
    outw, errw = watcher.communicate(timeout=30)
    # (it prints each payload as it comes, without a separator)
    assert outw.strip() == "0123", outw + errw
    # observe + block-wise (RFC 7959 3.4): coap-client -s watches /pattern
    # (16 KiB) while two PUTs change it to 3,000 and 5,000 bytes; every
    # notification carries Block2 and libcoap fetches the rest
    watcher = ns.popen("coap-client-notls", "-s", "12", "-m", "get", f"{BASE}/pattern",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 15
    while coap_stats(node)["obs_add"] < 2:
        assert time.monotonic() < deadline, "coap-client never registered on /pattern"
        time.sleep(0.1)
    time.sleep(1)
    for n in (3000, 5000):
        body.write_bytes(pattern(n))
        libcoap(ns, "-m", "put", "-f", str(body), f"{BASE}/pattern")
        time.sleep(1)
    outw, errw = watcher.communicate(timeout=30)
    want = pattern(PATTERN_LEN) + pattern(3000) + pattern(5000)
    assert outw.removesuffix(b"\n") == want, (len(outw), errw[-500:])  # it ends with a newline
    st = coap_stats(node)
    assert st["obs_add"] == 2 and st["obs_notify"] == 5, st
    assert st["req_bad_option"] == 1 and st["req_proxy"] == 1 and st["req_not_found"] == 1, st
    assert st["rx_drop_format"] == 0 and st["tx_drop"] == 0 and st["req_busy"] == 0, st
    assert st["req_incomplete"] == 0, st
    assert st["sep_defer"] == 2 and st["sep_sent"] == 2 and st["sep_timeout"] == 0, st
    assert st["sep_retx"] == 0 and st["sep_rst"] == 0, st
    rows = check_capture(cap, 2 * (7 + 16 + 256 + 240 + 15 + 16 + 4))
    # the separate CON response and libcoap's ACK of it
    slow = [x for x in rows if x["ipv6.src"] == WREN and x["coap.type"] == "0" and
            x["coap.code"] == "69"]
    assert slow, "no CON 2.05 from wren"
    print("\n[coap libcoap] " + json.dumps({"coap_messages": len(rows), "stats": st}))


AIOCOAP_SCRIPT = r"""
import asyncio, json, sys
from aiocoap import Context, Message, GET, PUT, POST, DELETE, NON
from aiocoap.util.linkformat import parse

BASE = sys.argv[1]

async def main():
    out = {}
    ctx = await Context.create_client_context()
    async def req(code, path, payload=b"", mtype=None, **opts):
        m = Message(code=code, uri=BASE + path, payload=payload, **opts)
        if mtype is not None:
            m.mtype = mtype
        r = await asyncio.wait_for(ctx.request(m).response, 30)
        return str(r.code), r.payload, r
    out["get0"] = (await req(GET, "/counter"))[1].decode()
    out["post"] = (await req(POST, "/counter"))[1].decode()
    code, pl, r = await req(PUT, "/counter", b"7")
    out["put"] = [code, pl.decode()]
    etag = r.opt.etag
    # If-Match with the current ETag succeeds, with another one: 4.12
    out["if_match_ok"] = (await req(PUT, "/counter", b"8", if_match=[etag]))[0]
    out["if_match_bad"] = (await req(PUT, "/counter", b"9", if_match=[b"\x01"]))[0]
    out["if_none_match"] = (await req(PUT, "/counter", b"9", if_none_match=True))[0]
    out["non"] = (await req(GET, "/counter", mtype=NON))[1].decode()
    out["delete"] = (await req(DELETE, "/counter"))[0]
    out["accept_json"] = (await req(GET, "/counter", accept=50))[0]
    # the 16 KiB pattern: aiocoap reassembles Block2 itself
    code, pl, r = await req(GET, "/pattern")
    out["pattern"] = [code, len(pl), pl == bytes(i % 251 for i in range(len(pl)))]
    # and back: 16 KiB PUT, aiocoap sends it in Block1 blocks itself
    code, pl, r = await req(PUT, "/pattern", bytes(i % 251 for i in range(16000)))
    out["put_pattern"] = code
    code, pl, r = await req(GET, "/pattern")
    out["pattern_back"] = [len(pl), pl == bytes(i % 251 for i in range(16000))]
    code, pl, r = await req(GET, "/.well-known/core")
    out["wk_cf"] = r.opt.content_format
    out["links"] = {l.href: dict(l.attr_pairs) for l in parse(pl.decode()).links}
    # RFC 6690 4.1 filters, the query as aiocoap encodes it from the URI
    code, pl, r = await req(GET, "/slow")
    out["slow"] = [code, pl.decode()]
    out["filtered"] = {}
    for q in ("ct=42", "href=/c*", "obs", "ct=50"):
        code, pl, r = await req(GET, "/.well-known/core?" + q)
        out["filtered"][q] = [code, sorted(l.href for l in parse(pl.decode()).links)]
    code, pl, r = await req(GET, "/stats")
    out["stats_lines"] = len(pl.decode().splitlines())
    # observe /counter while 100 POSTs change it
    obs = ctx.request(Message(code=GET, uri=BASE + "/counter", observe=0))
    first = await asyncio.wait_for(obs.response, 30)
    seen = [first.payload.decode()]
    async def collect():
        async for n in obs.observation:
            seen.append(n.payload.decode())
            if seen[-1] == str(int(seen[0]) + 100):
                break
    task = asyncio.ensure_future(collect())
    for i in range(100):
        await req(POST, "/counter")
    await asyncio.wait_for(task, 30)
    obs.observation.cancel()
    out["observe"] = [first.opt.observe is not None, len(seen), seen[0], seen[-1],
                      [int(v) for v in seen] == sorted(int(v) for v in seen)]
    # RFC 7641 + RFC 7959 3.4: observing /pattern, larger than a message: the
    # registration's response and each notification carry Block2, aiocoap
    # fetches the rest
    def pat(n):
        return bytes(i % 251 for i in range(n))
    obs = ctx.request(Message(code=GET, uri=BASE + "/pattern", observe=0))
    first = await asyncio.wait_for(obs.response, 30)
    got = [[len(first.payload), first.payload == pat(len(first.payload))]]
    async def collect_big():
        async for n in obs.observation:
            got.append([len(n.payload), n.payload == pat(len(n.payload))])
            if len(got) == 3:
                break
    task = asyncio.ensure_future(collect_big())
    await req(PUT, "/pattern", pat(3000))
    await asyncio.sleep(1)
    await req(PUT, "/pattern", pat(5000))
    await asyncio.wait_for(task, 30)
    obs.observation.cancel()
    out["observe_big"] = got
    await ctx.shutdown()
    print(json.dumps(out))

asyncio.run(main())
"""


def test_coap_aiocoap_client(coap_node):
    pytest.importorskip("aiocoap")
    ns, node, cap = coap_node
    res = ns.run(sys.executable, "-c", AIOCOAP_SCRIPT, BASE)
    assert res.returncode == 0, res.stdout + res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["get0"] == "0" and out["post"] == "1", out
    assert out["put"] == ["2.04 Changed", "7"], out
    assert out["if_match_ok"] == "2.04 Changed", out
    assert out["if_match_bad"] == "4.12 Precondition Failed", out
    assert out["if_none_match"] == "4.12 Precondition Failed", out
    assert out["non"] == "8", out
    assert out["delete"] == "2.02 Deleted", out
    assert out["accept_json"] == "4.06 Not Acceptable", out
    assert out["pattern"] == ["2.05 Content", PATTERN_LEN, True], out
    assert out["put_pattern"] == "2.04 Changed", out
    assert out["pattern_back"] == [16000, True], out
    assert out["wk_cf"] == 40, out
    # the default resources (wren-node also serves the ETSI plugtest's, each
    # checked in test_coap_plugtest.py, with the filters' answers for them)
    defaults = {"/counter": {"ct": "0", "obs": None}, "/stats": {"ct": "0"},
                "/pattern": {"ct": "42", "obs": None}, "/slow": {"ct": "0"}}
    assert {k: v for k, v in out["links"].items() if k in defaults} == defaults, out
    assert set(out["links"]) - set(defaults) <= PLUGTEST_PATHS, out["links"]
    filtered = {q: [code, [h for h in hrefs if h in defaults]]
                for q, (code, hrefs) in out["filtered"].items()}
    assert filtered == {"ct=42": ["2.05 Content", ["/pattern"]],
                        "href=/c*": ["2.05 Content", ["/counter"]],
                        "obs": ["2.05 Content", ["/counter", "/pattern"]],
                        "ct=50": ["2.05 Content", []]}, out["filtered"]
    assert out["slow"] == ["2.05 Content", "slow"], out
    assert out["observe_big"] == [[16000, True], [3000, True], [5000, True]], out["observe_big"]
    assert out["stats_lines"] > 50, out
    ok, n, first, last, ordered = out["observe"]
    assert ok and int(last) == int(first) + 100 and ordered, out["observe"]
    assert n >= 90, out["observe"]   # changes may coalesce while a CON waits for its ACK
    st = coap_stats(node)
    assert st["rx_drop_format"] == 0 and st["tx_drop"] == 0 and st["req_busy"] == 0, st
    assert st["obs_add"] == 2 and st["obs_notify"] >= 92 and st["obs_timeout"] == 0, st
    rows = check_capture(cap, 2 * (11 + 16 + 16 + 16) + 200)
    print("\n[coap aiocoap] " + json.dumps({"coap_messages": len(rows), "stats": st}))


# ---- RFC 7252/7641/7959 to the letter (issue 24) -------------------------------

AIOCOAP_CONFORM = r"""
import asyncio, json, sys
from aiocoap import Context, Message, GET, PUT, POST

BASE = sys.argv[1]

async def main():
    out = {}
    ctx = await Context.create_client_context()
    async def req(code, path, payload=b"", **opts):
        r = await asyncio.wait_for(ctx.request(Message(code=code, uri=BASE + path,
                                                       payload=payload, **opts)).response, 30)
        return str(r.code), r.payload, r
    # RFC 7252 5.10.6.2: a GET listing the current ETag among others: 2.03
    code, pl, r = await req(GET, "/counter")
    etag = r.opt.etag
    code, pl, r = await req(GET, "/counter", etags=[b"\x09\x09", etag])
    out["valid"] = [code, len(pl), r.opt.etag == etag]
    # 5.10.4: Accept on a POST; 5.9.2.10: a PUT in a format /counter does not take
    out["post_accept"] = (await req(POST, "/counter", accept=50))[0]
    out["put_json"] = (await req(PUT, "/counter", b"5", content_format=50))[0]
    out["after"] = (await req(GET, "/counter"))[1].decode()
    # RFC 7641 4.1: two observations from one socket (one endpoint, two tokens)
    a = ctx.request(Message(code=GET, uri=BASE + "/counter", observe=0))
    b = ctx.request(Message(code=GET, uri=BASE + "/counter", observe=0))
    await asyncio.wait_for(a.response, 30)
    await asyncio.wait_for(b.response, 30)
    async def first(o):
        async for n in o.observation:
            return n.payload.decode()
    ta, tb = asyncio.ensure_future(first(a)), asyncio.ensure_future(first(b))
    await asyncio.sleep(0.5)
    await req(POST, "/counter")
    out["two_observers"] = [await asyncio.wait_for(ta, 30), await asyncio.wait_for(tb, 30)]
    a.observation.cancel()
    b.observation.cancel()
    await ctx.shutdown()
    print(json.dumps(out))

asyncio.run(main())
"""

# A CON PUT of 1,300 bytes in one datagram, beyond wren's 1,152-byte receive
# buffer: prints the answer's code and Size1 (option 60), or null.
BIG_PUT = r"""
import json, select, socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.connect((sys.argv[1], 5683))
# CON, TKL 2, PUT, MID 0x1313, token "bg", Uri-Path "counter", payload
req = bytes([0x42, 0x03, 0x13, 0x13]) + b"bg" + bytes([0xB7]) + b"counter" + b"\xff" + b"1" * 1300
s.send(req)
if not select.select([s], [], [], 5)[0]:
    print("null")
    sys.exit(0)
d = s.recv(2048)
i, num, size1 = 4 + (d[0] & 15), 0, None
while i < len(d) and d[i] != 0xFF:   # options (RFC 7252 3.1): deltas and lengths
    delta, n, i = d[i] >> 4, d[i] & 15, i + 1
    ext = lambda v: (d[i] + 13, 1) if v == 13 else ((d[i] << 8 | d[i + 1]) + 269, 2) if v == 14 else (v, 0)
    delta, k = ext(delta); i += k
    n, k = ext(n); i += k
    num += delta
    if num == 60:
        size1 = int.from_bytes(d[i:i + n], "big")
    i += n
print(json.dumps([d[1] >> 5, d[1] & 31, d[2] << 8 | d[3], size1]))
"""


def test_coap_conform_libcoap_aiocoap(coap_node, tmp_path):
    """Issue 24 against real clients: coap-client gets 4.06 for a POST
    asking for JSON, 4.15 for a PUT in JSON, 4.13 with Size1 for a body in
    Block1 blocks to /counter (which takes none) and 2.03 for a GET with the
    current ETag; a kernel socket's 1,300-byte datagram gets 4.13 with Size1
    at once; aiocoap gets 2.03, 4.06, 4.15, and two observations from its one
    socket are both notified."""
    ns, node, cap = coap_node

    def both(res):
        return res.stdout + res.stderr
    res = libcoap(ns, "-m", "post", "-A", "50", f"{BASE}/counter")
    assert "4.06" in both(res), both(res)
    res = libcoap(ns, "-m", "put", "-t", "50", "-e", "5", f"{BASE}/counter")
    assert "4.15" in both(res), both(res)
    assert libcoap(ns, "-m", "get", f"{BASE}/counter").stdout.strip() == "0"  # neither executed
    body = tmp_path / "big.bin"
    body.write_bytes(b"1" * 1300)
    res = ns.run("timeout", "30", "coap-client-notls", "-m", "put", "-f", str(body),
                 f"{BASE}/counter")
    assert "4.13" in both(res), both(res)
    # ETag of /counter at 0 is 00000000: 2.03 Valid, no payload
    res = libcoap(ns, "-m", "get", "-O", "4,0x00000000", f"{BASE}/counter")
    assert res.stdout.strip() == "", both(res)
    res = ns.run(sys.executable, "-c", BIG_PUT, WREN, timeout=30)
    assert res.returncode == 0, both(res)
    assert json.loads(res.stdout.strip().splitlines()[-1]) == [4, 13, 0x1313, 1152 - 15], both(res)
    pytest.importorskip("aiocoap")
    res = ns.run(sys.executable, "-c", AIOCOAP_CONFORM, BASE, timeout=120)
    assert res.returncode == 0, both(res)
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["valid"] == ["2.03 Valid", 0, True], out
    assert out["post_accept"] == "4.06 Not Acceptable", out
    assert out["put_json"] == "4.15 Unsupported Content Format", out
    assert out["after"] == "0", out
    assert out["two_observers"] == ["1", "1"], out
    st = coap_stats(node)
    assert st["req_not_acceptable"] == 2 and st["req_unsupported_cf"] == 2, st
    assert st["req_too_large"] == 2 and st["rx_drop_big"] == 1 and st["req_valid"] == 2, st
    assert st["obs_add"] == 2, st
    rows = check_capture(cap, 20)
    from_wren = {x["coap.code"] for x in rows if x["ipv6.src"] == WREN}
    assert {"67", "134", "141", "143"} <= from_wren, from_wren  # 2.03 4.06 4.13 4.15
    # every 4.13 carries Size1 (libcoap's Block1 PUT: 1,152 less its header and options)
    size1 = tshark_fields(cap.pcap, "coap.opt.size1",
                          extra=("-Y", f"coap.code == 141 && ipv6.src == {WREN}"))
    assert len(size1) == 2 and all(x[0].isdigit() and int(x[0]) > 1024 for x in size1), size1
    print("\n[coap conform] " + json.dumps({"coap_messages": len(rows), "aiocoap": out,
                                            "stats": st}))


# ---- wren as the client ------------------------------------------------------

def fnv1a(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h


def wren_coap(node, args, timeout=60.0):
    """`coap ARGS` on wren-node; the response line's (code, length, fnv, text)."""
    out = node.run(f"coap {args}", r"^coap: ", timeout=timeout)
    line = out.splitlines()[-1]
    m = re.match(r"coap: (\d\.\d\d), (\d+) bytes, fnv1a 0x([0-9a-f]{8})(?:: (.*))?$", line)
    assert m, out
    return m.group(1), int(m.group(2)), int(m.group(3), 16), m.group(4) or ""


@pytest.fixture
def client_node(coap_node):
    ns, node, cap = coap_node
    node.run("fib add 2001:db8::/64 dev 1\nfib", r"2001:db8::/64")
    return ns, node, cap


def test_coap_wren_client_libcoap_server(client_node, tmp_path):
    ns, node, cap = client_node
    if shutil.which("coap-server-notls") is None:
        pytest.skip("coap-server-notls (libcoap3-bin) is not installed")
    # -d: PUT creates (observable) resources
    ns.popen("coap-server-notls", "-A", KERNEL, "-d", "4", stdout=subprocess.DEVNULL,
             stderr=subprocess.DEVNULL)
    ns.wait_listening(5683, udp=True)
    code, n, _, text = wren_coap(node, f"get {KERNEL} /")
    assert code == "2.05" and "libcoap" in text, text
    code, n, _, text = wren_coap(node, f"get {KERNEL} /time non")
    assert code == "2.05" and n > 0, (code, text)
    code, n, _, _ = wren_coap(node, f"put {KERNEL} /example_data hello")
    assert code in ("2.01", "2.04"), code
    code, n, _, text = wren_coap(node, f"get {KERNEL} /example_data")
    assert code == "2.05" and text == "hello", (code, text)
    code, _, _, text = wren_coap(node, f"get {KERNEL} /nothing")
    assert code == "4.04", code
    # observe + block-wise (RFC 7959 3.4): wren observes /big (a resource the
    # PUT created, libcoap's -d) of 3,000 bytes: libcoap's response with
    # Observe carries Block2, wren fetches the rest with a token of its own
    # and stays registered. (libcoap 4.3.1's example server notifies no PUT
    # to it, so later notifications in blocks are shown against wren's own
    # server: tests/unit/coap/test_coap_client.c)
    body = tmp_path / "ex.bin"
    body.write_bytes(pattern(3000))
    libcoap(ns, "-m", "put", "-f", str(body), f"coap://[{KERNEL}]/big")
    line = r"^coap: notification 2\.05, \d+ bytes, fnv1a 0x[0-9a-f]+$"
    first = node.run(f"coap observe {KERNEL} /big", line).strip().splitlines()[-1]
    assert first.endswith(f"3000 bytes, fnv1a 0x{fnv1a(pattern(3000)):08x}"), first
    node.run("coap", r"client requests: 1 of")   # still observing
    node.run("coap cancel\ncoap", r"client requests: 0 of")
    st = coap_stats(node)
    assert st["cl_timeout"] == 0, st
    rows = check_capture(cap, 10)
    print("\n[coap wren client, libcoap server] " +
          json.dumps({"coap_messages": len(rows), "stats": st}))


AIOCOAP_SERVER = r"""
import asyncio, sys
import aiocoap, aiocoap.resource as resource
from aiocoap.numbers.contentformat import ContentFormat

class Big(resource.Resource):
    async def render_get(self, request):
        return aiocoap.Message(payload=bytes(i % 251 for i in range(16384)),
                               content_format=42)

class Slow(resource.Resource):
    async def render_get(self, request):
        await asyncio.sleep(2.0)   # aiocoap sends an empty ACK first: a separate response
        return aiocoap.Message(payload=b"slow but sure", content_format=0)

class Sink(resource.Resource):
    async def render_put(self, request):
        ok = request.payload == bytes(i % 251 for i in range(len(request.payload)))
        return aiocoap.Message(code=aiocoap.CHANGED if ok else aiocoap.BAD_REQUEST,
                               payload=str(len(request.payload)).encode())

class Ticker(resource.ObservableResource):
    def __init__(self):
        super().__init__()
        self.n = 0
        asyncio.get_event_loop().call_later(0.3, self.tick)
    def tick(self):
        self.n += 1
        self.updated_state()
        asyncio.get_event_loop().call_later(0.3, self.tick)
    async def render_get(self, request):
        return aiocoap.Message(payload=b"tick %d" % self.n, content_format=0)

class Echo(resource.Resource):
    async def render_post(self, request):
        return aiocoap.Message(code=aiocoap.CHANGED, payload=request.payload[::-1])
    async def render_delete(self, request):
        return aiocoap.Message(code=aiocoap.DELETED)

async def main():
    root = resource.Site()
    root.add_resource(["big"], Big())
    root.add_resource(["slow"], Slow())
    root.add_resource(["echo"], Echo())
    root.add_resource(["sink"], Sink())
    root.add_resource(["ticker"], Ticker())
    await aiocoap.Context.create_server_context(root, bind=(sys.argv[1], 5683))
    print("ready", flush=True)
    await asyncio.get_running_loop().create_future()

asyncio.run(main())
"""


def test_coap_wren_client_aiocoap_server(client_node):
    pytest.importorskip("aiocoap")
    ns, node, cap = client_node
    srv = ns.popen(sys.executable, "-c", AIOCOAP_SERVER, KERNEL, stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, text=True)
    assert srv.stdout.readline().strip() == "ready", srv.stderr.read()
    # 16 KiB block-wise: wren follows Block2 to the end
    code, n, h, _ = wren_coap(node, f"get {KERNEL} /big")
    assert (code, n, h) == ("2.05", PATTERN_LEN, fnv1a(pattern(PATTERN_LEN))), (code, n, h)
    # a separate response: empty ACK, then the response as a CON, which wren ACKs
    code, _, _, text = wren_coap(node, f"get {KERNEL} /slow")
    assert code == "2.05" and text == "slow but sure", (code, text)
    code, _, _, text = wren_coap(node, f"post {KERNEL} /echo wren")
    assert code == "2.04" and text == "nerw", (code, text)
    code, _, _, text = wren_coap(node, f"post {KERNEL} /echo abc non")
    assert code == "2.04" and text == "cba", (code, text)
    code, _, _, _ = wren_coap(node, f"delete {KERNEL} /echo")
    assert code == "2.02", code
    # 16 KiB PUT from wren in Block1 blocks, which aiocoap joins (atomic)
    code, _, _, text = wren_coap(node, f"put {KERNEL} /sink pattern:{PATTERN_LEN}")
    assert code == "2.04" and text == str(PATTERN_LEN), (code, text)
    # observe: a line per notification, in order, until cancelled
    out = node.run(f"coap observe {KERNEL} /ticker", r"^coap: notification .*tick \d+$")
    ticks = []
    while len(ticks) < 5:
        out = node.run("", r"^coap: notification .*tick \d+$", timeout=10)
        ticks.append(int(out.strip().splitlines()[-1].split()[-1]))
    assert ticks == sorted(ticks) and len(set(ticks)) == 5, ticks
    node.run("coap cancel\ncoap", r"client requests: 0 of")
    st = coap_stats(node)
    assert st["cl_separate"] == 1 and st["cl_timeout"] == 0, st
    # (and the observation's first response and notifications)
    assert st["cl_resp"] >= 16 + 4 + PATTERN_LEN // 128 + 6 and st["cl_retx"] == 0, st
    rows = check_capture(cap, 2 * (16 + 4 + PATTERN_LEN // 128))
    print("\n[coap wren client, aiocoap server] " +
          json.dumps({"coap_messages": len(rows), "stats": st}))


AIOCOAP_LOSSY = r"""
import asyncio, json, sys
from aiocoap import Context, Message, GET, POST
from aiocoap.numbers.constants import TransportTuning

class Patient(TransportTuning):
    ACK_TIMEOUT = 0.4
    MAX_RETRANSMIT = 7

async def main():
    ctx = await Context.create_client_context()
    async def req(code):
        m = Message(code=code, uri=sys.argv[1] + "/counter", transport_tuning=Patient())
        r = await ctx.request(m).response
        return r.payload.decode()
    out = {"start": int(await req(GET)), "answers": []}
    for _ in range(20):
        out["answers"].append(await req(POST))
    await ctx.shutdown()
    print(json.dumps(out))

asyncio.run(main())
"""

# One CON POST (fixed message id and token) sent again and again, 0.5 s
# apart, until two answers came back (at most 40 sends): every copy after the
# first that reaches wren is a duplicate. Prints the answers as
# [message id, code, payload] lists.
DUPLICATE_POST = r"""
import json, select, socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.connect((sys.argv[1], 5683))
mid, token = 0x7777, b"dup1"
# CON (ver 1, type 0, TKL 4), POST (0.02), Uri-Path "counter" (option 11)
req = bytes([0x44, 0x02, mid >> 8, mid & 0xFF]) + token + bytes([0xB7]) + b"counter"
def payload(d):
    i = 4 + (d[0] & 15)
    while i < len(d) and d[i] != 0xFF:  # options: skip each (RFC 7252 3.1)
        n, i = d[i] & 15, i + 1 + {13: 1, 14: 2}.get(d[i] >> 4, 0)
        i += {13: 1, 14: 2}.get(n, 0) + (d[i] + 13 if n == 13 else
                                         (d[i] << 8 | d[i + 1]) + 269 if n == 14 else n)
    return d[i + 1:]
answers = []
for _ in range(40):
    s.send(req)
    if select.select([s], [], [], 0.5)[0]:
        d = s.recv(2048)
        answers.append([d[2] << 8 | d[3], d[1], payload(d).decode()])
        if len(answers) == 2:
            break
print(json.dumps(answers))
"""


def test_coap_lossy_tap_no_duplicate_execution(tapns, wren_node):
    """CON under 20 % loss each way on the TAP (wren-node's fault injector):
    libcoap retransmits, wren answers duplicates from its cache, and no POST
    is executed twice: the answers are distinct and increasing, and wren
    executed at most one POST per request. Then aiocoap, whose retransmission
    budget covers the loss: every request answered, each executed once."""
    if shutil.which("coap-client-notls") is None:
        pytest.skip("coap-client-notls (libcoap3-bin) is not installed")
    ns = tapns
    node = wren_node("--tap", "tap0", "--id", "1", "--tap-loss", "20", "--tap-seed", "7", ns=ns)
    node.run(f"ifconfig 1 add {WREN}/64\nifconfig", r"drops:")
    node.wait_valid(WREN)
    ns.ip("-6", "addr", "add", f"{KERNEL}/64", "dev", "tap0")
    kernel_addr_ready(ns, KERNEL)
    # the loss is for CoAP: Linux's neighbor discovery would otherwise give
    # up on wren now and then (3 lost solicitations) and fail the send
    ns.ip("-6", "neigh", "replace", WREN, "lladdr", "02:57:52:00:00:01", "dev", "tap0",
          "nud", "permanent")
    answers = []
    for _ in range(3):
        # libcoap retransmits with its 2..3 s doubling timeout (4 retransmissions);
        # -B bounds its wait. One client port (-p) for all: one endpoint. (POSTs
        # from more endpoints than the duplicate cache has slots within
        # EXCHANGE_LIFETIME get 5.03, by design; GETs and PUTs do not.) No retry here: coap-client's "cannot send CoAP pdu" is
        # its NACK for an exchange that ran out of retransmissions (the POST may
        # have been executed), not a local error; a new POST would execute again.
        res = ns.run("coap-client-notls", "-p", "40000", "-B", "93", "-m", "post",
                     f"{BASE}/counter", timeout=120)
        if res.returncode == 0 and res.stdout.strip().isdigit():
            answers.append(int(res.stdout.strip()))
        else:
            print(f"\n[coap lossy tap] unanswered: rc {res.returncode} "
                  f"{res.stdout.strip()!r} {res.stderr.strip()[-200:]!r}")
    st = coap_stats(node)
    # An unanswered POST is one whose five transmissions or their answers all
    # met the injected loss (wren answered every copy it received from its
    # cache: checked with a trace of serve() and the TAP's per-frame fate).
    # The injector's draws are per frame index, so with seed 7 they run at
    # about 30 % each way over the frames this test uses (rx 17, tx 19 of the
    # first 60 draws), and about one POST in thirty meets that (which costs
    # the test libcoap's whole 93 s budget: three POSTs only). The answer count
    # is therefore held loosely, the invariant is not; aiocoap below, with a
    # budget that covers the loss, is held to every request answered.
    assert len(answers) >= 1, (answers, st)
    assert answers == sorted(set(answers)), answers  # each answer once, in order
    assert st["req"] <= 3 and max(answers) <= st["req"], (answers, st)
    # aiocoap with a retransmission budget that covers the loss (MAX_RETRANSMIT
    # 7 from a 0.4 s ACK_TIMEOUT: all eight copies or their answers lost is
    # 0.36^8 at 20 % each way): every one of 20 POSTs answered, each executed
    # exactly once (the answers are the counter's next 20 values)
    res = ns.run(sys.executable, "-c", AIOCOAP_LOSSY, BASE, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    got = json.loads(res.stdout.strip().splitlines()[-1])
    st2 = coap_stats(node)
    start = got["start"]
    assert got["answers"] == [str(start + 1 + i) for i in range(20)], got
    assert st2["req"] - st["req"] == 21, (st, st2)  # 20 POSTs and the GET, once each
    # The duplicates above depend on which answers the loss hit (none lost
    # in 20 exchanges happens about once in 30 runs); this one POST, sent
    # until two answers came back, always makes wren see one: the same
    # answer twice from its cache, one execution
    res = ns.run(sys.executable, "-c", DUPLICATE_POST, WREN, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    dup = json.loads(res.stdout.strip().splitlines()[-1])
    st3 = coap_stats(node)
    assert len(dup) == 2 and dup[0] == dup[1], dup
    assert dup[0][0] == 0x7777 and dup[0][1] >> 5 == 2 and dup[0][2] == str(start + 21), dup
    assert st3["req"] - st2["req"] == 1 and st3["rx_dup"] > st2["rx_dup"], (st2, st3)
    print("\n[coap lossy tap] " + json.dumps({"libcoap_answered": len(answers),
                                              "aiocoap": got, "stats": st3}))
    assert node.pktbuf_empty()
    assert node.exit() == 0
