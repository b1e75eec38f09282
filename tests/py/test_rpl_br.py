"""wren-node as the RPL border router: the DODAG root of a 20-node simulated
mesh, reached from Linux.

    Linux (netns) --tap0-- wren-node --rpl-root --ZEP-- sim bridge radio ~ 20 simulated RPL routers

The whole mesh runs in the simulator at wall-clock pace (runtime/sim/
zep_bridge.c); the border router is the real wren-node binary, outside it,
on a TAP in a network namespace the test makes and on ZEP to the
simulator's bridge radio, which sits at the edge of the mesh and hears two
nodes. The simulated nodes are plain RPL routers (`rpl router`): they join
the DODAG from the border router's DIOs, take an address from its prefix
and announce it with DAOs, so every route to them is RPL's. Linux routes
the prefix via the border router's TAP link-local address; the border
router's default route goes back to Linux (--default-via).

For each mode (storing, non-storing) one mesh serves every check of the
module (module-scoped fixture; the two modes' rigs run side by side, one
thread each): Linux pings every node by its global address, every node
pings Linux, Linux opens a TCP connection to a node four radio hops from
the border router (its echo service), fetches a CoAP resource from the
deepest node with libcoap's coap-client and that node fetches one from
libcoap's coap-server on Linux; tshark then dissects the capture (the ZEP
datagrams on the namespace's lo: everything the bridge radio heard and
the border router sent; and tap0) with nothing flagged, and shows what
Linux sends tunnelled by the root (RFC 9008).

The bridge's socket is opened inside the namespace (setns on the calling
thread only), so the border router's ZEP port and the capture live there
too. Needs root, iproute2, tshark, ping and libcoap3-bin. Timeouts only
guard against hangs: nothing asserts on wall-clock time.
"""
import ctypes
import os
import re
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pytest

from conftest import Netns, WrenNode, tshark_fields
from test_host import Capture, kernel_addr_ready
from test_sim_zep import Pacer
from wren.addr import addr, eui64_str
from wren.lib import Sim

PREFIX = "2001:db8:b0::"
LINUX_LL = "fe80::1"
LINUX_GLOBAL = "2001:db8:ff::1"
BR_ID = 100
BR_LL_ETH = "fe80::57:52ff:fe00:64"      # --id 100 on Ethernet: MAC 02:57:52:00:00:64
BR_ZEP_PORT = 17754                     # in the namespace: nothing else there
BRIDGE_PORT = 17760
COLS, ROWS, SPACING = 5, 4, 10.0        # 20 nodes, 10 m apart
N = COLS * ROWS
RANGE = 15.0                            # neighbours: the 8 around (diagonals 14.1 m)
MIN_HOP, OF0_INC = 256, 3 * 256         # OF0: rank = 256 + hops x 768
TCP_PORT = 5001
CLONE_NEWNET = 0x40000000

pytestmark = pytest.mark.realtime
MODES = ("storing", "non-storing")


@contextmanager
def in_netns(name):
    """Run the block's system calls in network namespace @name (this thread
    only): sockets made there stay there."""
    libc = ctypes.CDLL(None, use_errno=True)
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(target, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {name}")
        try:
            yield
        finally:
            if libc.setns(own, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back")
    finally:
        os.close(own)
        os.close(target)


def rpl_state(pacer, i):
    with pacer.lock:
        res, out = pacer.sim.shell(i, "rpl")
    assert res == 0, out
    m = re.search(r"^address (\S+)", out, re.M)
    r = re.search(r" rank (\d+)", out)
    return {"joined": "not joined" not in out and r is not None,
            "addr": m.group(1) if m else None, "rank": int(r.group(1)) if r else None,
            "out": out}


def br_routes(br):
    out = br.run("rpl", r"^rx_dis ")
    m = re.search(r"^routes (\d+) of (\d+)", out, re.M)
    return int(m.group(1)), out


class Mesh:
    """One mode's rig: namespace, capture, simulated mesh with its bridge,
    border router. start() sets it up until the DODAG has formed, finish()
    ends it in order and checks that nothing is left in any packet buffer,
    close() releases whatever exists (also after a failure)."""

    def __init__(self, mode, tmp):
        self.mode, self.tmp = mode, tmp
        self.name = f"wren-br-{os.getpid()}-{mode}"
        self.ns = Netns(self.name)
        self.sim = self.pacer = self.br = self.cap = None
        self.pcap = tmp / "br.pcapng"
        self.state = []
        self.made_ns = False

    def start(self):
        ns, mode = self.ns, self.mode
        subprocess.run(["ip", "netns", "add", self.name], check=True, capture_output=True)
        self.made_ns = True
        ns.ip("link", "set", "lo", "up")
        ns.ip("tuntap", "add", "dev", "tap0", "mode", "tap")
        ns.ip("link", "set", "tap0", "up")
        os.chmod(self.tmp, 0o777)
        self.cap = Capture(ns, self.pcap, zep_port=BR_ZEP_PORT, also=("tap0",))
        self.cap.sync()
        self.sim = sim = Sim(7)
        sim.set_range(RANGE, 1.0)
        for k in range(N):
            sim.add_node(SPACING * (k % COLS), SPACING * (k // COLS))
            sim.set_cca(k, True)
            # retries 0..20 ms apart: hidden terminals' retries would
            # otherwise collide again (CSMA's backoff is shorter than a frame)
            sim.set_mac(k, retry_delay_ms=20)
            if mode == "storing":
                sim.rpl_routes(k, N)  # a router may hold a route to every node
        with in_netns(self.name):
            # at the mesh's west edge: it hears nodes 0 and 5 only
            sim.zep_bridge(BRIDGE_PORT, BR_ZEP_PORT, x=-SPACING, y=SPACING / 2)
        # the border router: the one documented command (docs/host.md)
        self.br = br = WrenNode(ns, "--tap", "tap0", "--zep",
                                f"{BR_ZEP_PORT}:127.0.0.1:{BRIDGE_PORT}", "--id", BR_ID,
                                "--rpl-root", f"{PREFIX}/64", "--rpl-mode", mode,
                                "--default-via", LINUX_LL)
        br.run("help", r"^exit ")
        self.pacer = pacer = Pacer(sim)
        for k in range(N):
            pacer.shell(k, "rpl router")
        ns.ip("-6", "addr", "add", f"{LINUX_LL}/64", "dev", "tap0")
        ns.ip("-6", "addr", "add", f"{LINUX_GLOBAL}/64", "dev", "tap0")
        ns.ip("-6", "route", "add", f"{PREFIX}/64", "via", BR_LL_ETH, "dev", "tap0")
        kernel_addr_ready(ns, LINUX_LL)
        kernel_addr_ready(ns, LINUX_GLOBAL)
        # formed: the root holds a route to every node
        t0 = time.monotonic()
        deadline = t0 + 120
        while True:
            n, out = br_routes(br)
            if n >= N:
                break
            assert time.monotonic() < deadline, f"the root routes {n} of {N} nodes:\n{out}"
            time.sleep(0.5)
        self.state = [rpl_state(pacer, k) for k in range(N)]
        assert all(s["joined"] and s["addr"] for s in self.state), self.state
        print(f"\n{mode}: formed in {time.monotonic() - t0:.1f} s (wall clock), hops "
              f"{sorted(self.hops(k) for k in range(N))}")

    def finish(self):
        # the mesh stops talking to the border router, which then empties
        # and leaves; the mesh is silenced and runs on (virtual time, fast)
        # until nothing is in flight. (Checked while the mesh still ran, the
        # border router's buffer was caught busy in every look for 5 s under
        # the sanitizers: a datagram whose fragments were lost holds its
        # reassembly buffer CONFIG_WREN_SIXLOWPAN_REASS_TIMEOUT_MS, 10 s.)
        br, sim = self.br, self.sim
        self.pacer.close()
        self.pacer = None
        if not br.pktbuf_empty(wait_s=15.0):
            raise AssertionError("the border router's packet buffer is not empty:\n" +
                                 br.run("pktbuf\nstats", r"^rpl2"))
        assert br.exit() == 0
        for k in range(N):
            sim.shell(k, "rpl off")
        sim.run(sim.now + 15)
        assert sim.pktbufs_clean(), "a simulated node's packet buffer is not empty"
        # the simulated nodes asked for ACKs: the bridge sent them on the air
        # for the border router, whose own (late by a UDP trip) stayed off it
        st = sim.zep_stats()
        assert st["acks_for_live"] > 0 and st["from_zep_acks"] > 0, st
        assert st["to_zep_errors"] == st["rx_malformed"] == st["rx_bad_fcs"] == 0, st

    def close(self):
        try:
            if self.pacer:
                self.pacer.close()
            if self.br:
                self.br.stop()
            self.ns.stop_all()
            if self.sim:
                self.sim.close()
        finally:
            if self.made_ns:
                self.ns.ip("tuntap", "del", "dev", "tap0", "mode", "tap", check=False)
                subprocess.run(["ip", "netns", "del", self.name], capture_output=True)

    def hops(self, i):
        return (self.state[i]["rank"] - MIN_HOP) // OF0_INC

    def run_all(self, cmd_of, regex, nodes=None, apart=0.2, timeout=30.0):
        """Give each of @nodes (default: all) a shell command, @apart seconds
        one after the other; return each one's output up to @regex (by node
        index; '' for the others)."""
        nodes = range(N) if nodes is None else nodes
        for i in nodes:
            with self.pacer.lock:
                self.sim.output(i)  # drop what came before
                res, _ = self.sim.shell(i, cmd_of(i))
            assert res == 0, cmd_of(i)
            time.sleep(apart)
        got = [""] * N
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.pacer.lock:
                for i in nodes:
                    got[i] += self.sim.output(i)
            if all(re.search(regex, got[i]) for i in nodes):
                break
            time.sleep(0.2)
        return got


def both(fn, meshes):
    """fn(mesh) on every mesh at once (one thread each); a failure names
    its mode."""
    errors = {}

    def run(m):
        try:
            fn(m)
        except BaseException as e:  # noqa: BLE001 - reported below, with the mode
            errors[m.mode] = e
    threads = [threading.Thread(target=run, args=(m,)) for m in meshes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        mode, e = next(iter(errors.items()))
        raise AssertionError(f"{mode}: {type(e).__name__}: {e}" +
                             "".join(f"\n(also {k}: {v})" for k, v in list(errors.items())[1:])
                             ) from e


def need(tool):
    import shutil
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")


@pytest.fixture(scope="module")
def no_preload():
    """The programs this module runs (ip, tshark, ping, coap-client,
    wren-node) run without the sanitizers that ./wren test preloads into the
    interpreter for a sanitized libwren_sim.so (as its host tests do)."""
    saved = os.environ.pop("LD_PRELOAD", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["LD_PRELOAD"] = saved


@pytest.fixture(scope="module")
def meshes(host_ok, no_preload, tmp_path_factory):
    """Both modes' rigs, set up, used and ended side by side (wall time)."""
    need("tshark")
    need("ping")
    rigs = [Mesh(mode, tmp_path_factory.mktemp(f"br-{mode}")) for mode in MODES]
    try:
        both(Mesh.start, rigs)
        yield rigs
        both(Mesh.finish, rigs)
    finally:
        for m in rigs:
            m.close()


def test_linux_pings_every_node(meshes):
    both(linux_pings_every_node, meshes)


ATTEMPTS = 6  # echo requests per node at most, 0.5 s apart, until one is answered


def linux_pings_every_node(mesh):
    # each node is pinged until it answers (ping -c 1 -w: at most ATTEMPTS
    # requests), the nodes 0.2 s apart: on a mesh with hidden terminals a
    # frame is lost now and then (the MAC gives up after its retries), and
    # many echoes at once through the two nodes next to the bridge lose more
    procs = []
    for k in range(N):
        procs.append((k, mesh.ns.popen("ping", "-6", "-c", "1", "-i", "0.5",
                                       "-w", ATTEMPTS // 2, "-s", "32", mesh.state[k]["addr"],
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True)))
        time.sleep(0.2)
    sent, silent = [], {}
    for k, p in procs:
        out, _ = p.communicate(timeout=60)
        m = re.search(r"(\d+) packets transmitted, (\d+) received", out)
        if not m or m.group(2) != "1":
            silent[k] = out
        sent.append(int(m.group(1)) if m else 0)
    print(f"{mesh.mode}: Linux -> every node: echo requests until answered {sent}")
    assert not silent, silent


def test_every_node_pings_linux(meshes):
    both(every_node_pings_linux, meshes)


def every_node_pings_linux(mesh):
    # every node pings Linux once, 0.2 s apart; those not answered again, in
    # rounds, at most ATTEMPTS times
    todo, tries = list(range(N)), [0] * N
    for _ in range(ATTEMPTS):
        got = mesh.run_all(lambda k: f"ping {LINUX_GLOBAL} -c 1 -s 32", r"packets transmitted",
                           nodes=todo, apart=0.2)
        for k in todo:
            tries[k] += 1
        todo = [k for k in todo if not re.search(r"transmitted, 1 received", got[k])]
        if not todo:
            break
    print(f"{mesh.mode}: every node -> Linux: echo requests until answered {tries}")
    assert not todo, f"never answered: nodes {todo}"


def test_tcp_to_a_node_four_hops_deep(meshes):
    both(tcp_to_a_node_four_hops_deep, meshes)


def tcp_to_a_node_four_hops_deep(mesh):
    deep = [k for k in range(N) if mesh.hops(k) == 4]
    assert deep, [mesh.hops(k) for k in range(N)]
    k = deep[0]
    mesh.pacer.shell(k, f"tcp listen {TCP_PORT} echo")
    data = bytes(i % 251 for i in range(2000))
    client = (
        "import socket, sys\n"
        f"s = socket.create_connection(('{mesh.state[k]['addr']}', {TCP_PORT}), timeout=60)\n"
        f"d = bytes(i % 251 for i in range({len(data)}))\n"
        "s.sendall(d)\n"
        "got = b''\n"
        "while len(got) < len(d):\n"
        "    b = s.recv(4096)\n"
        "    if not b: break\n"
        "    got += b\n"
        "s.close()\n"
        "print('echoed', len(got), got == d)\n")
    res = mesh.ns.run(sys.executable, "-c", client, timeout=90)
    assert res.returncode == 0 and f"echoed {len(data)} True" in res.stdout, \
        res.stdout + res.stderr
    mesh.pacer.shell(k, "tcp unlisten")


def test_coap_both_ways_with_a_deep_node(meshes):
    need("coap-client-notls")
    need("coap-server-notls")
    both(coap_both_ways_with_a_deep_node, meshes)


def coap_both_ways_with_a_deep_node(mesh):
    # libcoap's client on Linux GETs the deepest node's resource list, and
    # that node's client GETs libcoap's server on Linux (issue 14: interop
    # through the border router to simulated nodes)
    k = max(range(N), key=mesh.hops)
    res = mesh.ns.run("timeout", "60", "coap-client-notls", "-m", "get", "-B", "50",
                      f"coap://[{mesh.state[k]['addr']}]/.well-known/core", timeout=90)
    assert res.returncode == 0 and "</counter>" in res.stdout, res.stdout + res.stderr
    mesh.ns.popen("coap-server-notls", "-A", LINUX_GLOBAL, stdout=subprocess.DEVNULL,
                  stderr=subprocess.DEVNULL)
    mesh.ns.wait_listening(5683, udp=True)
    got = mesh.run_all(lambda i: f"coap get {LINUX_GLOBAL} /", r"(?m)^coap: ", nodes=[k])[k]
    assert re.search(r"^coap: 2\.05, \d+ bytes, .*libcoap", got, re.M), got


#: The echo's bytes are only bytes: without this, tshark reads them as the
#: protocol registered on Linux's ephemeral port when there is one (MQTT on
#: 1883, ADS on 48898, ...) and may call them malformed.
TCP_AS_DATA = ("-d", f"tcp.port=={TCP_PORT},data")


def test_capture_dissects_clean(meshes):
    both(capture_dissects_clean, meshes)


def capture_dissects_clean(mesh):
    assert mesh.cap.stop() == 0
    rows = tshark_fields(mesh.pcap, "frame.protocols", "wpan.fcs_ok", "_ws.malformed",
                         "_ws.expert", "icmpv6.type", "icmpv6.code", "icmpv6.checksum.status",
                         "tcp.checksum.status",
                         extra=("-R", f"udp.port == {BR_ZEP_PORT}", "-2",
                                "-o", "tcp.check_checksum:TRUE", *TCP_AS_DATA))
    assert rows
    assert all(r[2] == "" for r in rows), [r for r in rows if r[2]]
    data = [r for r in rows if ":wpan" in r[0]]
    assert data and all(r[1] == "1" for r in data), [r for r in data if r[1] != "1"]
    # every ICMPv6 and TCP checksum checked and good
    assert all(r[6] in ("", "1") and r[7] in ("", "1") for r in data), \
        [r for r in data if r[6] not in ("", "1") or r[7] not in ("", "1")]
    # and the UDP inside (CoAP); the outer UDP of ZEP on lo has the partial
    # checksum of the kernel's offload, so it is left out
    udp = tshark_fields(mesh.pcap, "udp.checksum.status",
                        extra=("-R", f"udp.port == {BR_ZEP_PORT} && 6lowpan && udp.port == 5683",
                               "-2", "-o", "udp.check_checksum:TRUE"))
    assert udp and all(r[0].split(",")[-1] == "1" for r in udp), udp
    # Nothing flagged: no error or warning of any dissector. Allowed: RFC
    # 9008's RPI type 0x23, which tshark 4.0 predates (a note "Unknown
    # Data"), and the Sequence group's traffic analysis: the
    # bridge hears a datagram at every hop near it (TCP's "suspected
    # retransmission", an echo request answered out of its earshot)
    def flagged(expert):
        return [e for e in expert.split(",") if e and "/Sequence)" not in e and
                not ("(Note/Undecoded)" in e and "Unknown Data" in e)]
    bad = [r for r in data if flagged(r[3])]
    assert not bad, bad
    # RPL's messages have nothing to note at all
    rpl = [r for r in data if r[4] == "155"]
    assert all(r[3] == "" for r in rpl), [r for r in rpl if r[3]]
    assert {r[5] for r in rpl} >= {"1", "2", "3"}, rpl     # DIO, DAO, DAO-ACK
    assert any(":tcp" in r[0] for r in data) and any(":coap" in r[0] for r in data)
    # Linux's side (tap0): the same, every ICMPv6, TCP and UDP checksum good
    tap = tshark_fields(mesh.pcap, "frame.protocols", "_ws.malformed", "_ws.expert",
                        "icmpv6.checksum.status", "tcp.checksum.status", "udp.checksum.status",
                        extra=("-R", "frame.interface_name == \"tap0\"", "-2",
                               "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
                               *TCP_AS_DATA))
    assert any(":icmpv6" in r[0] for r in tap) and any(":tcp" in r[0] for r in tap) and \
        any(":coap" in r[0] for r in tap), tap
    bad = [r for r in tap if r[1] or flagged(r[2]) or any(x not in ("", "1") for x in r[3:])]
    assert not bad, bad
    # RFC 9008: what Linux sends into the DODAG, the root forwards tunnelled
    # (IPv6-in-IPv6 from its own address, the RPI in the outer header); in
    # non-storing mode the outer header carries the source route (RFC 6554)
    # to every node beyond the root's children
    br_addr = addr(PREFIX, BR_ID)
    down = tshark_fields(mesh.pcap, "frame.protocols", "ipv6.src", "ipv6.dst", "ipv6.opt.type",
                         "ipv6.routing.type",
                         extra=("-2", "-R", f"udp.port == {BR_ZEP_PORT} && wpan.src64 == "
                                f"{eui64_str(BR_ID)} && icmpv6.type == 128"))
    assert len(down) >= N, down
    deep = {mesh.state[k]["addr"] for k in range(N) if mesh.hops(k) > 1}
    for protos, src, dst, opt, rt in down:
        assert ":ipv6:ipv6" in protos.replace(".hopopts", "").replace(".routing", ""), protos
        assert src.split(",") == [br_addr, LINUX_GLOBAL] and "0x23" in opt.split(","), (src, opt)
        if mesh.mode == "non-storing" and dst.split(",")[-1] in deep:
            assert rt == "3", (protos, dst, rt)
        elif mesh.mode == "storing":
            assert rt == "", (protos, dst, rt)


def test_wren_node_rpl_root_options():
    """--rpl-root makes the first ZEP interface's RPL a root of the prefix
    (its address, forwarding, the prefix routed onto the radio link, a
    route table for 1,024 nodes), --rpl-mode picks the mode; a mistake is
    one line and exit 2. Needs neither root nor a peer."""
    from conftest import NODE
    if not NODE.exists():
        pytest.skip("wren-node not built")

    def run(*args):
        return subprocess.run([str(NODE), "--id", "5", *args, "--exit-on-eof"],
                              input="rpl\nfib\n", capture_output=True, text=True, timeout=30)
    for mode, mop in ((None, 2), ("storing", 2), ("non-storing", 1)):
        res = run("--zep", "0:127.0.0.1:9", "--rpl-root", f"{PREFIX}/64",
                  *(("--rpl-mode", mode) if mode else ()))
        assert res.returncode == 0, res
        assert "iface 1 role root" in res.stdout and f"mop {mop} " in res.stdout, res.stdout
        assert f"address {addr(PREFIX, 5)}\n" in res.stdout, res.stdout
        assert re.search(r"^routes 0 of 1024", res.stdout, re.M), res.stdout
        assert re.search(rf"^{re.escape(PREFIX)}/64 +on-link +1", res.stdout, re.M), res.stdout
    for bad, why in ((["--zep", "0:127.0.0.1:9", "--rpl-root", "2001:db8::"], "--rpl-root wants"),
                     (["--zep", "0:127.0.0.1:9", "--rpl-root", "fe80::/64"], "--rpl-root wants"),
                     (["--zep", "0:127.0.0.1:9", "--rpl-root", "ff02::/64"], "--rpl-root wants"),
                     (["--zep", "0:127.0.0.1:9", "--rpl-root", "2001:db8::/129"],
                      "--rpl-root wants"),
                     (["--zep", "0:127.0.0.1:9", "--rpl-root", f"{PREFIX}/64", "--rpl-mode", "x"],
                      "--rpl-mode wants"),
                     (["--zep", "0:127.0.0.1:9", "--rpl-mode", "storing"],
                      "--rpl-mode needs --rpl-root"),
                     (["--tap", "x", "--rpl-root", f"{PREFIX}/64"], "--rpl-root needs --zep")):
        res = run(*bad)
        assert res.returncode == 2 and why in res.stderr, res
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    help_ = subprocess.run([str(NODE), "--help"], capture_output=True, text=True).stdout
    assert "--rpl-root PREFIX/LEN" in help_ and "--rpl-mode storing|non-storing" in help_
