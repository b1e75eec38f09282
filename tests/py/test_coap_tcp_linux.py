"""CoAP over TCP (RFC 8323) between wren and libcoap (Debian's
libcoap3-bin) over a TAP in a network namespace, both directions:
coap-client against wren's server on TCP 5683 (GET/PUT/POST/DELETE, the
16 KiB /pattern block-wise each way, observe, link format), and wren's
client (`coap ... coap+tcp://`) against coap-server. tshark dissects every
CoAP-over-TCP message with nothing flagged (signals included); wren's
counters show the CSMs and no Abort, drop or refusal.

Needs root, iproute2, tshark and libcoap3-bin; the namespace, tap0 and the
processes are removed by conftest's fixtures. Timeouts only guard against
hangs.
"""
import json
import re
import shutil
import subprocess
import time

import pytest

from conftest import parse_stats, tshark_fields
from test_coap_linux import (KERNEL, PATTERN_LEN, WREN, client_node, coap_node,  # noqa: F401
                             fnv1a, libcoap, pattern, request_tag_only, wren_coap)

TBASE = f"coap+tcp://[{WREN}]"


def tcp_stats(node):
    """The coap_tcp and coap counter sets of `stats`, by counter name."""
    # (the sets come in the stack's order; coap_tcp's last counter ends the wait)
    st = parse_stats(node.run("stats", r"obs_deferred"))
    return {k: v for k, v in st.items() if k.startswith(("coap_tcp.", "coap."))}


FIELDS = ("coap.code", "coap.token", "_ws.malformed", "_ws.expert.severity", "ipv6.src",
          "_ws.expert.message", "tcp.srcport", "tcp.dstport")


SIGNAL_MISREADS = re.compile(r"Invalid Option Number \d+|Invalid Option Range: .*")
# TCP's analysis notes (a retransmitted segment, a window update...) flag no CoAP message
TCP_NOTE = re.compile(r"This frame is a \(suspected\)|Previous segment|ACKed segment|"
                      r"Duplicate ACK|.*[Ww]indow")


def coap_msgs(x):
    """The expert messages of a row, TCP's analysis notes left out."""
    return [m for m in x["_ws.expert.message"].replace("|", ",").split(",")
            if m and not TCP_NOTE.match(m)]


def signal_misread(codes, x):
    """tshark 4.0 reads a signal's options (RFC 8323 5.2: numbers of their
    own per signal code, e.g. CSM's Max-Message-Size 2 and
    Block-Wise-Transfer 4) with the request option table: "Invalid Option
    Number 2", and option 4 taken for an ETag of length 0. Excused on
    segments with a signal (7.xx) whose warnings are only those."""
    msgs = coap_msgs(x)
    return (any(224 <= c <= 231 for c in codes) and msgs and
            all(SIGNAL_MISREADS.fullmatch(m) for m in msgs))


def check_tcp_capture(cap, want_min):
    """Every CoAP message over TCP dissected, nothing flagged but what
    tshark cannot read (signal options; libcoap's Request-Tag); returns the
    messages' codes."""
    frames = cap.stop()
    rows = tshark_fields(cap.pcap, *FIELDS, extra=("-Y", "coap && tcp", "-E", "occurrence=a",
                                                   "-E", "aggregator=|"))
    codes_all = []
    for x in rows:
        d = dict(zip(FIELDS, x))
        # a segment may carry several CoAP messages: one row, codes joined
        codes = [int(c) for c in d["coap.code"].split("|") if c]
        codes_all += codes
        assert "5683" in (d["tcp.srcport"], d["tcp.dstport"]), d
        if not d["_ws.malformed"] and not d["_ws.expert.severity"]:
            continue
        if request_tag_only(d) or signal_misread(codes, d):
            continue
        sev = max(int(v, 0) for v in d["_ws.expert.severity"].replace("|", ",").split(",") if v)
        # a warning on wren's segment only from TCP's analysis is no CoAP flag
        assert not d["_ws.malformed"] and (d["ipv6.src"] != WREN or sev < 0x00600000 or
                                           not coap_msgs(d)), d
    assert len(codes_all) >= want_min, f"{len(codes_all)} CoAP messages of {frames} frames"
    assert 225 in codes_all, "no CSM (7.01) dissected"
    return codes_all


def test_coap_tcp_libcoap_client(coap_node, tmp_path):
    ns, node, cap = coap_node
    # GET, POST, PUT, DELETE on /counter over TCP
    assert libcoap(ns, "-m", "get", f"{TBASE}/counter").stdout.strip() == "0"
    assert libcoap(ns, "-m", "post", f"{TBASE}/counter").stdout.strip() == "1"
    assert libcoap(ns, "-m", "put", "-e", "41", f"{TBASE}/counter").stdout.strip() == "41"
    assert libcoap(ns, "-m", "delete", f"{TBASE}/counter").returncode == 0
    assert libcoap(ns, "-m", "get", f"{TBASE}/counter").stdout.strip() == "0"
    # 16 KiB block-wise each way (Block2 followed by libcoap; Block1 of 64 bytes)
    out = tmp_path / "pattern.bin"
    libcoap(ns, "-m", "get", "-o", str(out), f"{TBASE}/pattern")
    assert out.read_bytes() == pattern(PATTERN_LEN)
    body = tmp_path / "body.bin"
    body.write_bytes(pattern(PATTERN_LEN - 1000))
    libcoap(ns, "-m", "put", "-b", "64", "-f", str(body), f"{TBASE}/pattern")
    out.unlink()
    libcoap(ns, "-m", "get", "-o", str(out), f"{TBASE}/pattern")
    assert out.read_bytes() == pattern(PATTERN_LEN - 1000)
    wk = libcoap(ns, "-m", "get", f"{TBASE}/.well-known/core").stdout
    assert "</counter>;ct=0;obs" in wk, wk
    # observe over TCP while three POSTs (over TCP too) change /counter
    watcher = ns.popen("coap-client-notls", "-s", "6", "-m", "get", f"{TBASE}/counter",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 15
    while tcp_stats(node)["coap_tcp.obs_add"] == 0:
        assert time.monotonic() < deadline, "coap-client never registered"
        time.sleep(0.1)
    for _ in range(3):
        libcoap(ns, "-m", "post", f"{TBASE}/counter")
        time.sleep(0.2)
    outw, errw = watcher.communicate(timeout=30)
    assert outw.strip() == "0123", outw + errw
    st = tcp_stats(node)
    assert st["coap_tcp.obs_add"] == 1 and st["coap_tcp.obs_notify"] == 3, st
    assert st["coap_tcp.rx_csm"] == st["coap_tcp.conn_accept"] >= 12, st
    for k in ("rx_drop_format", "rx_drop_big", "rx_no_csm", "rx_sig_critical", "tx_abort",
              "tx_drop", "tx_too_big", "rx_drop_unexpected"):
        assert st[f"coap_tcp.{k}"] == 0, (k, st)
    assert st["coap.req_incomplete"] == 0 and st["coap.rx"] == 0, st  # nothing over UDP
    msgs = check_tcp_capture(cap, 2 * (12 + 16 + 240 + 16) + 4)
    print("\n[coap+tcp libcoap client] " + json.dumps({"coap_messages": len(msgs), "stats": st}))


def test_coap_tcp_conform_libcoap(coap_node, tmp_path):
    """Issue 24 over TCP with coap-client: 4.06 for a POST asking for JSON
    (not executed), 2.03 for a GET with the current ETag, 4.13 with Size1
    for 1,300 bytes to /counter (libcoap sends Block1 blocks: wren's CSM
    says 1,152), 4.00 for a Block2 of SZX 7 (no BERT in wren's CSM); the
    connection is never aborted."""
    ns, node, cap = coap_node

    def both(res):
        return res.stdout + res.stderr
    res = libcoap(ns, "-m", "post", "-A", "50", f"{TBASE}/counter")
    assert "4.06" in both(res), both(res)
    res = libcoap(ns, "-m", "get", "-O", "4,0x00000000", f"{TBASE}/counter")
    assert res.stdout.strip() == "", both(res)   # 2.03: no payload
    body = tmp_path / "big.bin"
    body.write_bytes(b"1" * 1300)
    res = ns.run("timeout", "30", "coap-client-notls", "-m", "put", "-f", str(body),
                 f"{TBASE}/counter")
    assert "4.13" in both(res), both(res)
    res = ns.run("timeout", "30", "coap-client-notls", "-m", "get", "-O", "23,0x07",
                 f"{TBASE}/pattern")
    assert "4.00" in both(res), both(res)
    assert libcoap(ns, "-m", "get", f"{TBASE}/counter").stdout.strip() == "0"
    st = tcp_stats(node)
    assert st["coap.req_not_acceptable"] == 1 and st["coap.req_valid"] == 1, st
    assert st["coap.req_too_large"] == 1 and st["coap.req_bad_szx"] == 1, st
    assert st["coap_tcp.tx_abort"] == 0 and st["coap_tcp.rx_drop_big"] == 0, st
    codes = check_tcp_capture(cap, 2 * 5)
    assert {67, 128, 134, 141} <= set(codes), codes  # 2.03 4.00 4.06 4.13
    print("\n[coap+tcp conform] " + json.dumps({"coap_messages": len(codes), "stats": st}))


def test_coap_tcp_wren_client_libcoap_server(client_node, tmp_path):
    ns, node, cap = client_node
    if shutil.which("coap-server-notls") is None:
        pytest.skip("coap-server-notls (libcoap3-bin) is not installed")
    ns.popen("coap-server-notls", "-A", KERNEL, stdout=subprocess.DEVNULL,
             stderr=subprocess.DEVNULL)
    ns.wait_listening(5683)  # (a SYN before it is answered with a reset)
    base = f"coap+tcp://[{KERNEL}]"
    code, n, _, text = wren_coap(node, f"get {base}/")
    assert code == "2.05" and "libcoap" in text, text
    code, n, _, _ = wren_coap(node, f"put {base}/example_data hello")
    assert code in ("2.01", "2.04"), code
    code, n, _, text = wren_coap(node, f"get {base}/example_data")
    assert code == "2.05" and text == "hello", (code, text)
    # 3,000 bytes in Block1 blocks, then back in Block2 blocks (wren's
    # Max-Message-Size of 1152 keeps libcoap from sending it whole)
    code, _, _, _ = wren_coap(node, f"put {base}/example_data pattern:3000")
    assert code in ("2.01", "2.04"), code
    code, n, h, _ = wren_coap(node, f"get {base}/example_data")
    assert (code, n, h) == ("2.05", 3000, fnv1a(pattern(3000))), (code, n, h)
    code, _, _, _ = wren_coap(node, f"get {base}/nothing")
    assert code == "4.04", code
    # observe libcoap's /time (a notification a second), then cancel
    node.run(f"coap observe {base}/time", r"^coap: notification 2\.05")
    node.run("", r"^coap: notification 2\.05", timeout=10)
    # cancel sends the GET again with Observe 1 (RFC 7641 3.6; over TCP no RST
    # can refuse a notification); libcoap's answer ends the exchange
    node.run("coap cancel\ncoap", r"client requests: \d of")
    deadline = time.monotonic() + 10
    while "client requests: 0 of" not in node.run("coap", r"client requests: \d of"):
        assert time.monotonic() < deadline, "the deregistration was never answered"
        time.sleep(0.1)
    st = tcp_stats(node)
    assert st["coap_tcp.conn_open"] == 1 and st["coap_tcp.rx_csm"] == 1, st
    assert st["coap.cl_timeout"] == 0 and st["coap_tcp.tx_abort"] == 0, st
    assert st["coap_tcp.rx_drop_unmatched"] <= 1, st  # a notification crossing the cancel
    assert st["coap_tcp.rx_drop_format"] == 0 and st["coap_tcp.tx_drop"] == 0, st
    msgs = check_tcp_capture(cap, 2 * (5 + 3000 // 128 + 3) + 2)
    print("\n[coap+tcp wren client, libcoap server] " +
          json.dumps({"coap_messages": len(msgs), "stats": st}))
