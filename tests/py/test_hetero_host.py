"""The router across three technologies on real Linux: one wren-node with
--tap (Ethernet to the kernel, in a network namespace the test makes and
removes), --zep (802.15.4, through wren-zep-hub, to a sensor wren-node) and
--lora (IPv6 over SCHC over LoRaWAN, through wren-lora-hub, to a sensor
wren-node), forwarding between them with one IPv6 forwarding path. The
kernel pings both sensors, and both sensors send UDP datagrams to a kernel
socket (the LoRa sensor's compressed by SCHC rule 1 to its rule ID and 2
bytes of residue).

Needs root (namespaces, TAP) and iproute2, as test_host.py; skipped without.
Timeouts only guard against hangs: nothing asserts on wall-clock time."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BUILD, HUB, parse_stats
from test_host import KERNEL_LL, kernel_addr_ready, need, quiet

LORA_HUB = BUILD / "wren-lora-hub"
ROUTER_LL = "fe80::57:52ff:fe00:1"  # --id 1: on the TAP (MAC) and on ZEP (EUI-64) alike
KERNEL = "2001:db8:e::2"
S154, SLORA = "2001:db8:154::2", "2001:db8:10a::2"
SESSION = "260b0001:2b7e151628aed2a6abf7158809cf4f3c:000102030405060708090a0b0c0d0e0f"
PORT = 6100

RULES = f"""rule 1
ipv6.ver bi equal not-sent 6
ipv6.tc bi equal not-sent 0
ipv6.fl bi equal not-sent 0
ipv6.len bi ignore compute
ipv6.nxt bi equal not-sent 17
ipv6.hop bi match-mapping mapping-sent 64,63,255
ipv6.devpre bi equal not-sent 0x20010db8010a0000
ipv6.deviid bi equal not-sent 0x0000000000000002
ipv6.apppre bi equal not-sent 0x20010db8000e0000
ipv6.appiid bi equal not-sent 0x0000000000000002
udp.devport bi ignore value-sent
udp.appport bi equal not-sent {PORT}
udp.len bi ignore compute
udp.cksum bi ignore compute
rule 22 nocomp
"""

# a kernel UDP socket on [KERNEL]:PORT: prints the source of each datagram
SINK = f"""
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("{KERNEL}", {PORT}))
print("ready", flush=True)
while True:
    data, src = s.recvfrom(2048)
    print(src[0], len(data), flush=True)
"""


def start_hubs(ns):
    zhub = ns.popen(HUB, "--port", 17754, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True)
    assert "listening" in zhub.stdout.readline()
    lhub = ns.popen(LORA_HUB, "--port", 17759, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    text=True)
    assert "listening" in lhub.stdout.readline()


def kernel_side(ns):
    ns.ip("-6", "addr", "add", f"{KERNEL_LL}/64", "dev", "tap0")
    ns.ip("-6", "addr", "add", f"{KERNEL}/64", "dev", "tap0")
    kernel_addr_ready(ns, KERNEL)
    for prefix in ("2001:db8:154::/64", "2001:db8:10a::/64"):
        ns.ip("-6", "route", "add", prefix, "via", ROUTER_LL, "dev", "tap0")


def set_up(router, s154, slora):
    # wren-node's interfaces: the TAP first, then ZEP, then LoRa
    for cmd in ("ifconfig 1 add 2001:db8:e::1/64", "ifconfig 2 add 2001:db8:154::1/64",
                "ifconfig 3 add 2001:db8:10a::1/64", "forward on",
                f"fib add {S154}/128 via fe80::57:52ff:fe00:2 dev 2",
                f"fib add {SLORA}/128 dev 3", f"fib add {KERNEL}/128 dev 1",
                "lora set dc 0"):
        quiet(router, cmd)
    for cmd in (f"ifconfig 1 add {S154}/64", f"fib add default via {ROUTER_LL} dev 1"):
        quiet(s154, cmd)
    # no duty-cycle limit (a lab run, as the RIOT paper's Figure 1)
    for cmd in (f"ifconfig 1 add {SLORA}/64", "fib add default dev 1", "lora set dc 0"):
        quiet(slora, cmd)


def test_linux_reaches_both_sensors_through_the_three_technology_router(tapns, wren_node,
                                                                         tmp_path: Path):
    need("ping")
    if not LORA_HUB.exists():
        pytest.skip(f"build wren-lora-hub first ({LORA_HUB})")
    ns = tapns
    rules = tmp_path / "rules.txt"
    rules.write_text(RULES)
    start_hubs(ns)
    router = wren_node("--id", "1", "--tap", "tap0", "--zep", "17801:17754", "--lora",
                       "17901:17759", "--lorawan", SESSION + ":network", "--schc-rules", rules,
                       ns=ns)
    s154 = wren_node("--id", "2", "--zep", "17802:17754", ns=ns)
    slora = wren_node("--id", "3", "--lora", "17903:17759", "--lorawan", SESSION,
                      "--schc-rules", rules, ns=ns)
    router.wait_valid(ROUTER_LL)
    kernel_side(ns)
    set_up(router, s154, slora)
    # the kernel pings both sensors: 6LoWPAN one way, SCHC (no-compression
    # rule: ICMPv6) over LoRaWAN downlink and uplink the other
    for dst in (S154, SLORA):
        res = ns.run("ping", "-6", "-c", "3", "-i", "0.5", "-W", "5", "-s", "16", dst,
                     timeout=60)
        assert res.returncode == 0 and " 3 received" in res.stdout, dst + res.stdout + res.stderr
    # both sensors send UDP to a kernel socket
    sink = ns.popen(sys.executable, "-c", SINK, stdout=subprocess.PIPE, text=True)
    assert sink.stdout.readline().strip() == "ready"
    for node in (s154, slora):
        out = node.run(f"udp send {KERNEL} {PORT} 8 3 300", r"^udp send|sent|error|usage")
        assert not re.search(r"^(usage|error)", out, re.M), out
    got = [sink.stdout.readline().split() for _ in range(6)]
    assert sorted(g[0] for g in got) == [SLORA] * 3 + [S154] * 3, got
    assert all(g[1] == "8" for g in got), got
    # the LoRa sensor's datagrams went by rule 1; the router forwarded all
    st = parse_stats(slora.run("stats\npktbuf", r"^packet buffer:"))
    assert st["schc.tx_compressed"] >= 3, st
    rst = parse_stats(router.run("stats\npktbuf", r"^packet buffer:"))
    assert rst["ipv6.rx_forwarded"] >= 12 and rst["schc.rx_pkts"] >= 6, rst
    for node in (router, s154, slora):
        assert node.pktbuf_empty(), "a packet buffer is not empty at the end"
    for node in (slora, s154, router):
        assert node.exit() == 0


@pytest.mark.parametrize("args, says", [
    (["--lorawan", "260b0001:00ff"], "--lorawan wants DEVADDR:NWKSKEY:APPSKEY[:network]"),
    (["--lorawan", SESSION + ":gateway"], "--lorawan wants DEVADDR:NWKSKEY:APPSKEY[:network]"),
    (["--schc-rules", "RULES"], "--schc-rules needs --lorawan"),
    (["--lorawan", SESSION, "--schc-rules", "BAD"], "--schc-rules BAD: "),
])
def test_wren_node_lorawan_mistakes_are_one_line(tmp_path: Path, args, says) -> None:
    from conftest import NODE
    from test_lora_host import free_udp_ports
    if not NODE.exists():
        pytest.skip(f"build wren-node first ({NODE})")
    (tmp_path / "RULES").write_text(RULES)
    (tmp_path / "BAD").write_text("rule 1\nipv6.ver bi equal not-sent\n")
    a, b = free_udp_ports(2)
    res = subprocess.run([str(NODE), "--lora", f"{a}:{b}", *args], cwd=tmp_path,
                         capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert res.returncode == 2, res
    err = res.stderr.strip()
    assert says in err and err.count("\n") == 0, err
