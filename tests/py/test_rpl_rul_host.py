"""A RPL-unaware leaf behind a wren RPL router with two radios, reached from
Linux with no static route anywhere but Linux's one to the prefix (issue 23,
2: RFC 9008 and RFC 9010):

    Linux (netns) --tap0-- BR: wren-node --rpl-root --ZEP(ch 11)-- R: wren-node,
        `rpl router`, a second ZEP radio (ch 26, no RPL instance there)
        --ZEP(ch 26)-- H: wren-node without the rpl module (ND only)

H solicits R (`nib rs`), takes the DODAG's prefix from R's RA (R's NIBs
advertise it once R joined: GET WREN_NETOPT_RPL_PREFIX), registers its
address with an ARO (RFC 6775: no R flag, it sends no RPL message: a RUL)
and R announces it to the root in a non-storing DAO with the TIO's E flag
(RFC 9010 9.2.2), in both modes. Linux pings H and H pings Linux; the root
and R ping H too. H is a wren-node, which would take an RPI; a stack built
without extension headers (RIOT's examples) drops every datagram with a
hop-by-hop header, so the test checks in the capture of H's link that no
frame for H carries one: the root tunnels to R (RFC 9008 7.1.3, 8.1.3), R
sends H the inner datagram, and R's own datagrams to H go without an RPI.
Needs root, iproute2, tshark and ping; timeouts only guard against hangs."""
import os
import re
import time

import pytest

from conftest import tshark_fields
from test_host import Capture, kernel_addr_ready, need

PREFIX = "2001:db8:c0::"
LINUX_LL = "fe80::1"
LINUX_GLOBAL = "2001:db8:ff::1"
BR_LL_ETH = "fe80::57:52ff:fe00:1"   # --id 1 on Ethernet: MAC 02:57:52:00:00:01
R_GLOBAL = "2001:db8:c0:0:57:52ff:fe00:2"  # --id 2: EUI-64 02:57:52:ff:fe:00:00:02
H_GLOBAL = "2001:db8:c0:0:57:52ff:fe00:3"
H_PORT = 17757                       # the ZEP link R - H (captured)
HOST_MODULES = "sixlowpan,ipv6,icmpv6,udp,nib"

pytestmark = pytest.mark.realtime


def poll(what, fn, timeout=60.0):
    deadline = time.monotonic() + timeout
    while True:
        got = fn()
        if got:
            return got
        assert time.monotonic() < deadline, what()
        time.sleep(0.5)


@pytest.mark.parametrize("mode", ["storing", "non-storing"])
def test_rpl_unaware_leaf_from_linux_two_radios(tapns, wren_node, tmp_path, mode):
    need("tshark")
    ns = tapns
    pcap = tmp_path / "rul.pcapng"
    os.chmod(tmp_path, 0o777)
    cap = Capture(ns, pcap, zep_port=H_PORT)
    cap.sync()
    br = wren_node("--tap", "tap0", "--zep", "17754:127.0.0.1:17755", "--id", "1",
                   "--rpl-root", f"{PREFIX}/64", "--rpl-mode", mode, "--default-via", LINUX_LL,
                   ns=ns)
    r = wren_node("--zep", "17755:127.0.0.1:17754", "--zep", f"17756:127.0.0.1:{H_PORT}@26",
                  "--id", "2", ns=ns)
    h = wren_node("--zep", f"{H_PORT}:127.0.0.1:17756@26", "--id", "3",
                  "--modules", HOST_MODULES, ns=ns)
    for n in (br, r, h):
        n.run("help", r"^exit ")
    ns.ip("-6", "addr", "add", f"{LINUX_LL}/64", "dev", "tap0")
    ns.ip("-6", "addr", "add", f"{LINUX_GLOBAL}/64", "dev", "tap0")
    ns.ip("-6", "route", "add", f"{PREFIX}/64", "via", BR_LL_ETH, "dev", "tap0")
    kernel_addr_ready(ns, LINUX_LL)
    kernel_addr_ready(ns, LINUX_GLOBAL)
    r.run("rpl router\nhelp", r"^exit ")
    poll(lambda: r.run("rpl", r"^rx_dis "),
         lambda: f"address {R_GLOBAL}" in r.run("rpl", r"^rx_dis "))
    h.run("nib rs\nhelp", r"^exit ")
    h.wait_valid(H_GLOBAL, timeout=30)
    # R announced H; the root routes it through a tunnel to R
    route = re.compile(rf"^route {re.escape(H_GLOBAL)}/128 via {re.escape(R_GLOBAL)} .*external",
                       re.M)
    poll(lambda: br.run("rpl", r"^rx_dis "), lambda: route.search(br.run("rpl", r"^rx_dis ")))
    leaf = re.compile(rf"^leaf {re.escape(H_GLOBAL)} iface \d+ .*announced$", re.M)
    poll(lambda: r.run("rpl", r"^rx_dis "), lambda: leaf.search(r.run("rpl", r"^rx_dis ")))
    # Linux -> H and H -> Linux. Until three answers (ping -w): a first
    # request can be lost while a border router resolves Linux's address
    # (its reply held for it), or to CSMA on the wall-clock ZEP links
    res = ns.run("ping", "-6", "-c", "3", "-i", "0.3", "-w", "30", H_GLOBAL, check=False)
    assert " 3 received" in res.stdout, res.stdout + res.stderr + br.run("rpl", r"^rx_dis ")
    for n, dst in ((h, LINUX_GLOBAL), (br, H_GLOBAL), (r, H_GLOBAL)):
        # H -> Linux; the root and the 6LR themselves -> H
        out = n.run(f"ping {dst} -c 6 -i 300", r"packets transmitted")
        m = re.search(r"(\d+) packets transmitted, (\d+) received", out)
        assert m and int(m.group(2)) >= 3 and "DUP" not in out, out
    for n in (h, r, br):
        assert n.pktbuf_empty(wait_s=15.0)
    for n in (h, r, br):
        assert n.exit() == 0
    cap.stop()
    # every datagram for H on its link: ICMPv6 right after the IPv6 header
    rows = tshark_fields(pcap, "ipv6.nxt", "ipv6.dst", "icmpv6.type",
                         extra=["-d", f"udp.port=={H_PORT},zep", "-Y", f"ipv6.dst == {H_GLOBAL}"])
    echoes = [x for x in rows if "128" in x[2].split(",")]
    assert len(echoes) >= 9, rows  # Linux's, the root's and R's requests answered
    for x in rows:
        assert x[0].split(",") == ["58"] and x[1] == H_GLOBAL, x
