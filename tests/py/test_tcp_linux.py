"""wren's TCP against the Linux kernel's: wren-node on a TAP interface in a
network namespace, Python sockets (the kernel's TCP) on the other side.

1 MiB each way, byte-exact (stream byte i is i mod 251), with Linux as
client (to wren's sink, and to wren's echo: both directions on one
connection) and as server (wren connects; both sides send 1 MiB at once);
each clean and again with 5 % loss and 5 % reordering injected by wren's TAP
driver in both directions. A capture of the TAP (an AF_PACKET socket of the
test's, written as pcap) is dissected by tshark: SACK-permitted, timestamps
and MSS in both SYN and SYN-ACK, Linux's window-scale offer declined, SACK
blocks on the wire in the lossy runs, no wren data beyond Linux's window,
every checksum good.

Needs root (namespaces, TAP); the fixtures are conftest's (tapns,
wren_node: removed and stopped also when a test fails), the helpers
test_host.py's, so WREN_BUILD selects the wren-node under test (./wren test runs this file
again against the ASan+UBSan build). Timeouts only guard against hangs:
nothing here asserts on wall-clock time. Durations, goodput and
retransmission counters are printed (pytest -s shows them).
"""
import json
import re
import subprocess
import sys
import time

import pytest

from conftest import tshark_fields
from test_host import KERNEL_LL, WREN_LL, kernel_addr_ready, need

MIB = 1 << 20
PORT = 5001
# 1,220 bytes: IPv6's minimum MTU less the headers; wren's default (462)
# is five 802.15.4 frames. With 2 KiB buffers that is one or two segments
# in flight: the transfer is window-bound either way.
MSS = 1220
FAULTS = {
    "clean": (),
    "lossy": ("--tap-loss", "5", "--tap-reorder", "5", "--tap-seed", "6"),
}

# The Linux side, run with the namespace's python: the kernel's TCP through
# plain sockets. Prints one JSON line (and "ready" first for a server).
PEER = r"""
import json, socket, struct, sys, threading, time
mode, n = sys.argv[1], int(sys.argv[2])
PAT = bytes(range(251)) * (65536 // 251 + 2)
TIMEOUT = 90

def send_pattern(s, n):
    sent = 0
    while sent < n:
        k = min(n - sent, 65536)
        s.sendall(PAT[sent % 251:sent % 251 + k])
        sent += k
    s.shutdown(socket.SHUT_WR)

def recv_check(s):
    got = bad = 0
    while True:
        d = s.recv(65536)
        if not d:
            return got, bad
        want = PAT[got % 251:got % 251 + len(d)] if len(d) <= 65536 else None
        if d != want:
            bad += sum(1 for i, x in enumerate(d) if x != (got + i) % 251)
        got += len(d)

def info(s):
    # struct tcp_info: tcpi_options at 5, snd/rcv_wscale at 6, total_retrans at 100
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    opts, wscale = b[5], b[6]
    return {"ts": bool(opts & 1), "sack": bool(opts & 2), "wscale": bool(opts & 4),
            "snd_wscale": wscale & 15, "rcv_wscale": wscale >> 4,
            "snd_mss": struct.unpack_from("I", b, 16)[0],
            "retrans": struct.unpack_from("I", b, 100)[0]}

def finish(s, t0, got, bad):
    r = {"received": got, "bad": bad, "secs": round(time.monotonic() - t0, 3), **info(s)}
    s.close()
    print(json.dumps(r), flush=True)

if mode == "server":     # send n and check what arrives, both at once
    ls = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("::", int(sys.argv[3])))
    ls.listen(1)
    ls.settimeout(TIMEOUT)
    print("ready", flush=True)
    s, _ = ls.accept()
else:                    # client: "sink" sends n, "echo" sends n and checks it back
    s = socket.create_connection((sys.argv[3], int(sys.argv[4])), timeout=TIMEOUT)
s.settimeout(TIMEOUT)
t0 = time.monotonic()
if mode == "sink":
    send_pattern(s, n)
    got, bad = recv_check(s)    # until wren's FIN
else:
    t = threading.Thread(target=send_pattern, args=(s, n), daemon=True)
    t.start()
    got, bad = recv_check(s)
    t.join(TIMEOUT)
finish(s, t0, got, bad)
"""

# Capture of the Linux side of the TAP: every frame both ways, as pcap.
# Started before the handshake ("ready" once bound); on "stop" it drains what
# the socket holds (the transfer is over by then) and reports the kernel's
# drop count for the socket (PACKET_STATISTICS), which must be 0.
CAPTURE = r"""
import select, socket, struct, sys, time
ETH_P_ALL, SOL_PACKET, PACKET_STATISTICS = 3, 263, 6
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE: above rmem_max
s.bind((sys.argv[2], 0))
f = open(sys.argv[1], "wb")
f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
print("ready", flush=True)
n, stopping = 0, False
while True:
    r, _, _ = select.select([s, sys.stdin], [], [], 0 if stopping else 1.0)
    if sys.stdin in r:
        sys.stdin.readline()
        stopping = True
    if s in r:
        d = s.recv(65536)
        t = time.time()
        f.write(struct.pack("<IIII", int(t), int(t % 1 * 1e6), len(d), len(d)) + d)
        n += 1
    elif stopping:
        break
f.close()
drops = struct.unpack("II", s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))[1]
print(n, drops, flush=True)
"""


class TapCapture:
    def __init__(self, ns, pcap):
        self.p = ns.popen(sys.executable, "-c", CAPTURE, pcap, "tap0", stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.p.stdout.readline().strip() == "ready", self.p.stderr.read()
        self.pcap = pcap

    def stop(self):
        self.p.stdin.write("stop\n")
        self.p.stdin.flush()
        frames, drops = map(int, self.p.stdout.readline().split())
        assert self.p.wait(20) == 0
        assert drops == 0, f"the capture socket dropped {drops} frames"
        return frames


@pytest.fixture(params=sorted(FAULTS))
def tcp_node(request, tapns, wren_node, tmp_path):
    """wren-node --id 1 on tap0 (with the faults of the parameter), the
    kernel's fe80::1 ready, a capture of tap0 running; yields (ns, node,
    lossy, capture) and checks wren's packet buffer is empty at the end."""
    need("tshark")
    ns = tapns
    node = wren_node("--tap", "tap0", "--id", "1", *FAULTS[request.param], ns=ns)
    node.wait_valid(WREN_LL)
    ns.ip("-6", "addr", "add", f"{KERNEL_LL}/64", "dev", "tap0")
    kernel_addr_ready(ns, KERNEL_LL)
    cap = TapCapture(ns, tmp_path / "tap.pcap")
    yield ns, node, request.param == "lossy", cap
    assert node.pktbuf_empty(), "wren-node's packet buffer is not empty at the end"
    assert node.exit() == 0


def peer_result(p, timeout=120):
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def tcp_stats(node):
    """wren's layer counters and its connections: {"rx": .., "rexmt": ..,
    ..., "client"/"server": {state, sent, received, bad, goodput, ...}}."""
    # pktbuf's line marks the end of the connection lines
    out = node.run("tcp stats\npktbuf", r"^packet buffer:")
    s = {}
    m = re.search(r"tcp: rx (\d+); drops: csum (\d+) hdr (\d+) no-conn (\d+) seq (\d+) ack (\d+) "
                  r"paws (\d+); ooo (\d+) dup-bytes (\d+) dup-acks (\d+) rst (\d+)", out)
    assert m, out
    s.update(zip(("rx", "csum", "hdr", "no_conn", "seq", "ack", "paws", "ooo", "dup_bytes",
                  "dup_acks", "rx_rst"), map(int, m.groups())))
    m = re.search(r"tcp: tx (\d+) rexmt (\d+) rst (\d+) nobufs (\d+); rto (\d+) fast-rexmt (\d+) "
                  r"sack-rexmt (\d+) persist (\d+) challenge-acks (\d+)", out)
    assert m, out
    s.update(zip(("tx", "rexmt", "tx_rst", "nobufs", "rto", "fast_rexmt", "sack_rexmt",
                  "persist", "challenge"), map(int, m.groups())))
    for m in re.finditer(r"^(client|server): (\S+) \[[^\]]*\]:\d+ -> \d+; sent (\d+)/(\d+) "
                         r"received (\d+) bad (\d+) goodput ([\d.]+) kbit/s\n"
                         r"  mss (\d+) cwnd (\d+) ssthresh (\d+) srtt (\d+) ms rto (\d+) ms "
                         r"wnd (\d+) err (-?\d+)", out, re.M):
        g = m.groups()
        s[g[0]] = {"state": g[1], "sent": int(g[2]), "to_send": int(g[3]),
                   "received": int(g[4]), "bad": int(g[5]), "goodput_kbps": float(g[6]),
                   "mss": int(g[7]), "srtt_ms": int(g[10]), "err": int(g[13])}
    return s


def wait_conn(node, side, done, timeout=90.0):
    """Poll `tcp stats` until done(stats[side]); return the stats."""
    deadline = time.monotonic() + timeout
    while True:
        s = tcp_stats(node)
        if side in s and done(s[side]):
            return s
        assert time.monotonic() < deadline, s
        time.sleep(0.2)


def fault_counters(node):
    out = node.run("ifconfig", r"drops:")
    m = re.search(r"rx dropped (\d+) reordered (\d+) held-timeout \d+; tx dropped (\d+) "
                  r"reordered (\d+)", out)
    assert m, out
    return dict(zip(("rx_dropped", "rx_reordered", "tx_dropped", "tx_reordered"),
                    map(int, m.groups())))


TCP_FIELDS = ("ipv6.src", "tcp.srcport", "tcp.dstport", "tcp.flags.syn", "tcp.flags.ack",
              "tcp.options.mss_val", "tcp.options.sack_perm", "tcp.options.timestamp.tsval",
              "tcp.options.wscale.shift", "tcp.options.sack_le", "tcp.checksum.status",
              "tcp.checksum", "tcp.checksum_calculated", "tcp.stream", "tcp.seq", "tcp.ack",
              "tcp.len", "tcp.flags.reset",
              "tcp.window_size_value", "tcp.analysis.retransmission", "_ws.malformed",
              "frame.number", "frame.len", "frame.cap_len", "ipv6.plen")


#: Decode the test's streams as bytes (tshark -d).
TCP_AS_DATA = ("-d", f"tcp.port=={PORT},data", "-d", f"tcp.port=={PORT + 1},data")


def _malformed_report(pcap, rows) -> str:
    """What tshark found malformed, compact, with the first such frame's
    dissection."""
    keys = ("frame.number", "frame.len", "frame.cap_len", "ipv6.src", "ipv6.plen", "tcp.seq",
            "tcp.len", "tcp.flags.syn", "_ws.malformed")
    lines = [" ".join(f"{k}={x[k]}" for k in keys) for x in rows[:10]]
    dump = subprocess.run(["tshark", "-r", str(pcap), "-V", *TCP_AS_DATA, "-Y",
                           f"frame.number == {rows[0]['frame.number']}"],
                          capture_output=True, text=True, timeout=60).stdout
    return "\n".join(lines + [f"({len(rows)} malformed)", dump[-4000:]])


def check_capture(cap, lossy, wren_is_server):
    """tshark's reading of the TAP capture; returns a summary for the report."""
    frames = cap.stop()
    # the test's bytes are only bytes (-d): tshark would otherwise read them
    # as the protocol registered on the kernel's ephemeral port if there is
    # one (ADS on 48898, ...) and now and then call them malformed
    rows = tshark_fields(cap.pcap, *TCP_FIELDS,
                         extra=("-o", "tcp.check_checksum:TRUE", "-Y", "tcp",
                                *TCP_AS_DATA))
    assert rows, f"no TCP in the capture ({frames} frames)"
    r = [dict(zip(TCP_FIELDS, x)) for x in rows]
    bad_rows = [x for x in r if x["_ws.malformed"]]
    assert not bad_rows, _malformed_report(cap.pcap, bad_rows)
    # checksums: 1 = good (the kernel's and wren's alike), except that now
    # and then the kernel sends 0xffff for 0x0000 (the same in ones'
    # complement, RFC 1624 3; tshark calls it bad): wren takes those
    bad = [x for x in r if x["tcp.checksum.status"] != "1"]
    assert all(x["tcp.checksum.status"] == "0" and x["tcp.checksum"] == "0xffff" and
               x["tcp.checksum_calculated"] == "0x0000" for x in bad), bad
    syn = [x for x in r if x["tcp.flags.syn"] == "1" and x["tcp.flags.ack"] == "0"]
    synack = [x for x in r if x["tcp.flags.syn"] == "1" and x["tcp.flags.ack"] == "1"]
    assert syn and synack, r[:4]
    wren = lambda x: x["ipv6.src"] == WREN_LL  # noqa: E731
    for x in syn + synack:
        # MSS, SACK-permitted and timestamps in every SYN and SYN-ACK
        assert x["tcp.options.mss_val"] and x["tcp.options.sack_perm"] and \
            x["tcp.options.timestamp.tsval"], x
        if wren(x):
            assert x["tcp.options.mss_val"] == str(MSS), x
            assert x["tcp.options.wscale.shift"] == "", x   # wren never offers scaling
    if wren_is_server:
        assert all(not wren(x) and x["tcp.options.wscale.shift"] for x in syn), syn  # Linux offers
        assert all(wren(x) for x in synack), synack                               # wren declines
    else:
        assert all(wren(x) for x in syn), syn
        # Linux answers a SYN without window scale without one
        assert all(not wren(x) and x["tcp.options.wscale.shift"] == "" for x in synack), synack
    # Linux does not scale: its windows stay below 65,536 as on the wire
    # (unscaled) and grow past 2 KiB (they are not wren-sized)
    linux_wnd = [int(x["tcp.window_size_value"]) for x in r if not wren(x)]
    assert max(linux_wnd) <= 65535 and max(linux_wnd) > 4096, max(linux_wnd)
    # wren announces at most its 2 KiB buffer
    assert max(int(x["tcp.window_size_value"]) for x in r if wren(x)) <= 2048
    # wren sends only into Linux's window: no byte beyond the highest right
    # edge (ACK + window, relative numbers) Linux announced before it (a
    # zero-window probe is one byte beyond)
    edge, beyond = {}, []
    for x in r:
        st = x["tcp.stream"]
        if not wren(x) and x["tcp.flags.ack"] == "1" and x["tcp.flags.reset"] == "0":
            e = int(x["tcp.ack"]) + int(x["tcp.window_size_value"])
            edge[st] = max(edge.get(st, 0), e)
        elif wren(x) and int(x["tcp.len"]) > 0:
            end = int(x["tcp.seq"]) + int(x["tcp.len"])
            if end > edge.get(st, 0) + (int(x["tcp.len"]) == 1):
                beyond.append(x)
    assert not beyond, beyond[:3]
    sack = {"wren": sum(1 for x in r if wren(x) and x["tcp.options.sack_le"]),
            "linux": sum(1 for x in r if not wren(x) and x["tcp.options.sack_le"])}
    rexmt = {"wren": sum(1 for x in r if wren(x) and x["tcp.analysis.retransmission"]),
             "linux": sum(1 for x in r if not wren(x) and x["tcp.analysis.retransmission"])}
    if lossy:
        # losses and reordering make holes: both receivers report them
        assert sack["wren"] > 0 and sack["linux"] > 0, sack
    return {"frames": frames, "tcp_segments": len(r), "csum_ffff": len(bad), "sack_segments": sack,
            "tshark_retransmissions": rexmt}


def report(name, lossy, **kv):
    print(f"\n[{name} {'lossy' if lossy else 'clean'}] " + json.dumps(kv))


def test_tcp_linux_client_to_wren_sink_and_echo(tcp_node):
    """Linux connects: 1 MiB into wren's sink (checked by wren), then 1 MiB
    through wren's echo (checked by Linux): both directions on one
    connection."""
    ns, node, lossy, cap = tcp_node
    f0 = fault_counters(node)
    node.run(f"tcp listen {PORT} sink mss {MSS}", r"tcp: listening")
    peer = ns.popen(sys.executable, "-c", PEER, "sink", MIB, f"{WREN_LL}%tap0", PORT,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lin = peer_result(peer)
    s = wait_conn(node, "server", lambda c: c["state"] == "CLOSED")
    assert s["server"]["received"] == MIB and s["server"]["bad"] == 0, s
    assert s["server"]["mss"] == MSS and s["server"]["err"] == 0, s
    # Linux saw wren's FIN after its own data, and took SACK and timestamps
    assert lin["received"] == 0 and lin["bad"] == 0, lin
    assert lin["ts"] and lin["sack"] and not lin["wscale"], lin
    sink = {"linux_secs": lin["secs"], "linux_retrans": lin["retrans"],
            "wren_goodput_kbps": s["server"]["goodput_kbps"]}

    node.run("tcp unlisten\npktbuf", r"^packet buffer:")
    node.run(f"tcp listen {PORT + 1} echo mss {MSS}", r"tcp: listening")
    peer = ns.popen(sys.executable, "-c", PEER, "echo", MIB, f"{WREN_LL}%tap0", PORT + 1,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lin = peer_result(peer)
    assert lin["received"] == MIB and lin["bad"] == 0, lin
    assert lin["ts"] and lin["sack"] and not lin["wscale"], lin
    s = wait_conn(node, "server", lambda c: c["state"] == "CLOSED")
    assert s["server"]["received"] == MIB and s["server"]["sent"] == 0, s
    assert s["server"]["err"] == 0, s
    f1 = fault_counters(node)
    capsum = check_capture(cap, lossy, wren_is_server=True)
    faults = {k: f1[k] - f0[k] for k in f0}
    if lossy:
        assert faults["rx_dropped"] > 0 and faults["tx_dropped"] > 0, faults
        assert s["rexmt"] > 0 and lin["retrans"] > 0, (s, lin)
    else:
        assert not any(faults.values()), faults
    # (no tx_rst here: a late duplicate of Linux's, such as a probe of its
    # FIN, may find the connection closed and get a RST, rightly)
    assert s["csum"] == s["hdr"] == s["nobufs"] == 0, s
    report("linux client", lossy, sink=sink,
           echo={"linux_secs": lin["secs"], "linux_retrans": lin["retrans"]},
           wren={k: s[k] for k in ("rx", "tx", "rexmt", "rto", "fast_rexmt", "sack_rexmt", "ooo",
                                   "dup_bytes", "dup_acks", "seq", "paws", "tx_rst", "no_conn")},
           faults=faults, capture=capsum)


def test_tcp_linux_server_wren_client(tcp_node):
    """wren connects to a Linux server; each side sends 1 MiB at once and
    checks what arrives (wren's sink counts mismatches, Linux's script too)."""
    ns, node, lossy, cap = tcp_node
    f0 = fault_counters(node)
    peer = ns.popen(sys.executable, "-c", PEER, "server", MIB, PORT,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert peer.stdout.readline().strip() == "ready"
    node.run(f"tcp connect {KERNEL_LL} {PORT} mss {MSS}", r"tcp: connected")
    node.run(f"tcp send {MIB} close\npktbuf", r"^packet buffer:")
    lin = peer_result(peer)
    assert lin["received"] == MIB and lin["bad"] == 0, lin
    assert lin["ts"] and lin["sack"] and not lin["wscale"], lin
    assert lin["snd_mss"] <= MSS, lin
    s = wait_conn(node, "client", lambda c: c["received"] == MIB and
                  c["state"] in ("TIME_WAIT", "CLOSED"))
    c = s["client"]
    assert c["bad"] == 0 and c["sent"] == c["to_send"] == MIB and c["err"] == 0, s
    f1 = fault_counters(node)
    capsum = check_capture(cap, lossy, wren_is_server=False)
    faults = {k: f1[k] - f0[k] for k in f0}
    if lossy:
        assert faults["rx_dropped"] > 0 and faults["tx_dropped"] > 0, faults
        assert s["rexmt"] > 0 and lin["retrans"] > 0, (s, lin)
    # (no tx_rst here: a late duplicate of Linux's, such as a probe of its
    # FIN, may find the connection closed and get a RST, rightly)
    assert s["csum"] == s["hdr"] == s["nobufs"] == 0, s
    report("linux server", lossy, linux_secs=lin["secs"], linux_retrans=lin["retrans"],
           wren_goodput_kbps=c["goodput_kbps"],
           wren={k: s[k] for k in ("rx", "tx", "rexmt", "rto", "fast_rexmt", "sack_rexmt", "ooo",
                                   "dup_bytes", "dup_acks", "seq", "paws", "tx_rst", "no_conn")},
           faults=faults, capture=capsum)
