"""Memory per simulated node by part (wren_sim_memory; `./wren sim --json`'s
"memory"): the parts add up to the total, and state a node does not use costs
nothing: a node that never opens a TCP connection pays for no TCP socket, and
one that does pays for one socket, not for every one it could have (issue 25).
"""
from test_coap_sim import B_ADDR, coap, pair, parse

# one TCP socket's buffers (CONFIG_WREN_SOCK_TCP_SNDBUF + _RCVBUF, src/sock/sock_tcp.h)
SOCK_BUFS = 2048 + 2048


def test_memory_parts_add_up_to_the_total(sim_factory):
    s, a, b = pair(sim_factory)
    c = s.add_node(20, 0)
    s.rawgen(c, -1, size=20, interval_s=1.0)
    (line,) = coap(s, a, f"get coap+tcp://[{B_ADDR}]/counter")
    assert parse(line)[0] == "2.05", line
    per_node = [s.memory(n) for n in (a, b, c)]
    for mem in per_node:
        assert mem["total"] == sum(v for k, v in mem.items() if k != "total"), mem
        assert mem["pktbuf"] == 6144 and mem["coap_tcp"] > 0 and mem["radio"] > 0, mem
    every = s.memory(-1)
    for k, v in every.items():
        assert v == sum(m.get(k, 0) for m in per_node), k
    assert s.bytes_per_node() == every["total"] // 3
    assert per_node[2]["apps"] > 0 == per_node[0]["apps"], per_node  # the generator: c's


def test_a_node_without_tcp_pays_for_no_tcp_socket(sim_factory):
    s, a, b = pair(sim_factory)
    idle = s.add_node(20, 0)
    (line,) = coap(s, a, f"get coap+tcp://[{B_ADDR}]/counter")
    assert parse(line)[0] == "2.05", line
    ma, mb, mi = (s.memory(n) for n in (a, b, idle))
    # the idle node: less CoAP-over-TCP state than one socket's buffers
    assert mi["coap_tcp"] < SOCK_BUFS, mi
    assert s.counters(idle)["coap_tcp.conn_accept"] == 0
    # the client and the server made one socket each, on first use
    for m in (ma, mb):
        assert mi["coap_tcp"] + SOCK_BUFS <= m["coap_tcp"] < mi["coap_tcp"] + 2 * SOCK_BUFS, m


def test_a_role_and_a_key_make_their_tables_once(sim_factory):
    """RPL's parent and leaf tables (208 bytes) come with its route table (512)
    when a role is first taken; link-layer security's key and counter tables
    (164) with the first key; a node that does neither has none of them."""
    s = sim_factory(3)
    node, idle = s.add_node(0, 0), s.add_node(10, 0)
    s.run(1.0)
    m0, mi = s.memory(node), s.memory(idle)
    assert s.shell(node, "rpl root 2001:db8:1::/64 storing")[0] == 0
    assert s.shell(node, "ifconfig 1 key 2 " + "22" * 16)[0] == 0
    m1 = s.memory(node)
    # each: the table and the simulator's 24-byte piece header
    assert m1["rpl"] - m0["rpl"] == 512 + 24 + 208 + 24, (m0, m1)
    assert m1["netif"] - m0["netif"] == 164 + 24, (m0, m1)
    assert s.shell(node, "rpl off")[0] == 0
    assert s.shell(node, "rpl root 2001:db8:1::/64 storing")[0] == 0
    assert s.shell(node, "ifconfig 1 key 3 " + "33" * 16)[0] == 0
    assert s.memory(node)["rpl"] == m1["rpl"] and s.memory(node)["netif"] == m1["netif"]
    s.run(3.0)
    assert s.memory(idle)["rpl"] == mi["rpl"] and s.memory(idle)["netif"] == mi["netif"]
