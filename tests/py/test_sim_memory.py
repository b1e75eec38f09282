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
