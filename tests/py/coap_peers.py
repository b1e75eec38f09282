"""The clients of tests/py/test_coap_plugtest.py, run in the test's network
namespace: libcoap's coap-client with its `-v 7` log read back into the
PDUs it sent and received (lc), and Python snippets (py) with aiocoap, a
plain UDP socket and a plain TCP connection (RFC 8323) that build and read
CoAP messages by RFC 7252 3 / RFC 8323 3.2, for the clients that lose,
ignore or refuse what a well-behaved library would not.

A peer `pt` is anything with `.ns` (conftest.Netns) whose wren-node
serves coap://[WREN].
"""
import json
import re
import sys
import tempfile
from pathlib import Path

WREN = "2001:db8::2"
BASE = f"coap://[{WREN}]"

# ---- libcoap's coap-client --------------------------------------------------

PDU = re.compile(r"^v:\S+ t:(\w+) c:(\S+) i:([0-9a-f]+) \{([0-9a-f]*)\} \[ (.*?) ?\]"
                 r"(?: :: '(.*)')?$")


def parse_pdus(log):
    """The PDUs of coap-client's -v 7 log, each right after the line saying
    it was sent or received: {dir, type, code, mid, token, opts, payload}
    (opts: name -> list of values as libcoap prints them)."""
    pdus, direction = [], None
    for line in log.splitlines():
        m = re.search(r" : (sent|received) \d+ bytes$", line)
        if m:
            direction = "out" if m.group(1) == "sent" else "in"
            continue
        m = PDU.match(line)
        if m and direction:
            opts = {}
            for o in filter(None, m.group(5).split(", ")):
                k, _, v = o.partition(":")
                opts.setdefault(k, []).append(v)
            pdus.append({"dir": direction, "type": m.group(1), "code": m.group(2),
                         "mid": int(m.group(3), 16), "token": m.group(4), "opts": opts,
                         "payload": m.group(6) or ""})
        direction = None
    return pdus


def lc(pt, *args, timeout=40):
    """coap-client-notls -v 7 ARGS in the namespace: (the payload it got,
    the PDUs); CSM and other signals (7.xx) left out. (Its log goes to
    stdout: the payload goes to a file, -o.)"""
    with tempfile.TemporaryDirectory() as tmp:
        body = Path(tmp) / "body"
        extra = () if "-o" in args else ("-o", str(body))
        res = pt.ns.run("timeout", str(timeout), "coap-client-notls", "-v", "7", *extra, *args,
                        timeout=timeout + 10)
        out = body.read_text(errors="replace") if body.exists() else ""
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    pdus = [p for p in parse_pdus(res.stderr + res.stdout) if not p["code"].startswith("7.")
            and p["code"] not in ("CSM", "Ping", "Pong", "Release", "Abort")]
    return out, pdus


def responses(pdus):
    return [p for p in pdus if p["dir"] == "in" and p["code"] != "0.00"]


def block(v):
    """libcoap's 'NUM/M/SIZE' (M or _): (num, more, size)."""
    num, more, size = v.split("/")
    return int(num), more == "M", int(size)


def check_piggybacked(pdus, code, tcp):
    """RFC 7252 5.2.1 (RFC 8323 3: no types or MIDs over TCP): the request
    and its response, same MID and token; returns the response."""
    req = next(p for p in pdus if p["dir"] == "out")
    resp = responses(pdus)[-1]
    assert resp["code"] == code, pdus
    assert resp["token"] == req["token"], pdus
    if not tcp:
        assert req["type"] == "CON" and resp["type"] == "ACK" and resp["mid"] == req["mid"], pdus
    return resp


# ---- aiocoap and a plain socket, in the namespace ------------------------------

PRELUDE = r"""
import asyncio, json, socket, struct, sys, time
from aiocoap import Context, Message, GET, PUT, POST, DELETE, CON, NON
from aiocoap.optiontypes import BlockOption

BASE = sys.argv[1]
WREN = sys.argv[2]

def d(r):
    o = r.opt
    blk = lambda b: None if b is None else [b.block_number, bool(b.more), b.size_exponent]
    return {"code": r.code.dotted, "mtype": int(r.mtype) if r.mtype is not None else None,
            "mid": r.mid, "token": r.token.hex(),
            "cf": None if o.content_format is None else int(o.content_format),
            "etag": o.etag.hex() if o.etag is not None else None, "observe": o.observe,
            "lp": list(o.location_path), "lq": list(o.location_query),
            "block1": blk(o.block1), "block2": blk(o.block2), "size2": o.size2,
            "max_age": o.max_age, "payload": r.payload.decode("latin-1")}

async def req(ctx, code, path, payload=b"", mtype=None, **opts):
    m = Message(code=code, uri=BASE + path, payload=payload, **opts)
    if mtype is not None:
        m.mtype = mtype
    pr = ctx.request(m)
    r = await asyncio.wait_for(pr.response, 30)
    return d(r)

# a plain UDP client (RFC 7252 3): what a client that loses messages does
def u(v):
    return v.to_bytes((v.bit_length() + 7) // 8, "big")

def ext(x):
    if x < 13:
        return x, b""
    if x < 269:
        return 13, bytes([x - 13])
    return 14, struct.pack("!H", x - 269)

def enc_body(opts, payload):
    b, last = b"", 0
    for num, val in sorted(opts, key=lambda o: o[0]):
        dn, dx = ext(num - last)
        ln, lx = ext(len(val))
        last = num
        b += bytes([dn << 4 | ln]) + dx + lx + val
    return b + (b"\xff" + payload if payload else b"")

def enc(t, code, mid, tok=b"", opts=(), payload=b""):
    hdr = bytes([0x40 | (t << 4) | len(tok), code]) + struct.pack("!H", mid) + tok
    return hdr + enc_body(opts, payload)

def dec(b):
    tkl = b[0] & 15
    i, num, opts = 4 + tkl, 0, {}
    while i < len(b) and b[i] != 0xff:
        dn, ln = b[i] >> 4, b[i] & 15
        i += 1
        vals = []
        for x in (dn, ln):
            if x == 13:
                x, i = b[i] + 13, i + 1
            elif x == 14:
                x, i = struct.unpack("!H", b[i:i + 2])[0] + 269, i + 2
            vals.append(x)
        num += vals[0]
        opts.setdefault(str(num), []).append(b[i:i + vals[1]].hex())
        i += vals[1]
    return {"type": (b[0] >> 4) & 3, "code": "%d.%02d" % (b[1] >> 5, b[1] & 31),
            "mid": struct.unpack("!H", b[2:4])[0], "token": b[4:4 + tkl].hex(), "opts": opts,
            "payload": b[i + 1:].decode("latin-1") if i < len(b) else "", "len": len(b)}

class Raw:
    def __init__(self):
        self.s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        self.s.bind(("::", 0))
    def send(self, *a, **k):
        self.s.sendto(enc(*a, **k), (WREN, 5683))
    def recv(self, timeout):
        self.s.settimeout(timeout)
        try:
            return dec(self.s.recv(2048))
        except socket.timeout:
            return None
    def recv_all(self, seconds, ack=True):
        # every message within @seconds; CONs acknowledged when @ack
        out, end = [], time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            m = self.recv(left)
            if m is None:
                break
            out.append(m)
            if ack and m["type"] == 0:
                self.s.sendto(enc(2, 0, m["mid"]), (WREN, 5683))
        return out

# a plain CoAP-over-TCP client (RFC 8323 3.2: Len/TKL, Code, Token, options)
def tcp_msg(code, tok=b"", opts=(), payload=b""):
    body = enc_body(opts, payload)
    ln, lx = ext(len(body))
    return bytes([ln << 4 | len(tok)]) + lx + bytes([code]) + tok + body

class RawTcp:
    def __init__(self):
        self.s = socket.create_connection((WREN, 5683), timeout=5)
        self.buf = b""
        self.s.sendall(tcp_msg(0xe1))   # CSM first, no options (RFC 8323 5.3)
    def send(self, *a, **k):
        self.s.sendall(tcp_msg(*a, **k))
    def _read(self, n):
        while len(self.buf) < n:
            more = self.s.recv(4096)
            if not more:
                raise EOFError
            self.buf += more
        out, self.buf = self.buf[:n], self.buf[n:]
        return out
    def recv(self):
        # the next message that is not a signal (7.xx), read as dec() does
        while True:
            b0 = self._read(1)[0]
            ln, tkl = b0 >> 4, b0 & 15
            if ln == 13:
                ln = self._read(1)[0] + 13
            elif ln == 14:
                ln = struct.unpack("!H", self._read(2))[0] + 269
            code = self._read(1)[0]
            rest = self._read(tkl + ln)
            if code >> 5 != 7:
                return dec(bytes([0x40 | tkl, code, 0, 0]) + rest)

async def main():
    ctx = await Context.create_client_context()
    out = {}
#BODY#
    await ctx.shutdown()
    print(json.dumps(out))

asyncio.run(main())
"""


def py(pt, body, timeout=90):
    """Run @body (the inside of an async main with `ctx` and `out`) in the
    namespace; returns `out`."""
    body = "\n".join("    " + line for line in body.strip("\n").splitlines())
    res = pt.ns.run(sys.executable, "-c", PRELUDE.replace("#BODY#", body), BASE, WREN,
                    timeout=timeout)
    assert res.returncode == 0, res.stdout + res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])
