"""Determinism of the simulator against how it is driven: the same scenario
and seed must give the same counters, event count and byte-identical pcap
whether Sim.run() is called once or in many pieces (boundaries that fall on
event instants, zero-length runs), and whether read-only shell commands
(stats, rpl, nib, fib, ifconfig, pktbuf) are run between the pieces."""
import hashlib
import math
import random

import pytest

from wren.lib import Sim

N = 20
READ_ONLY = ["stats", "rpl", "nib", "fib", "ifconfig", "pktbuf"]


def mesh(seed, width=50.0, reach=16.0):
    """A connected random geometric graph; links lose 0..20 % of frames."""
    rnd = random.Random(seed)
    while True:
        pos = [(rnd.uniform(0, width), rnd.uniform(0, width)) for _ in range(N)]
        links = [(a, b, round(rnd.uniform(0.8, 1.0), 2)) for a in range(N)
                 for b in range(a + 1, N) if math.dist(pos[a], pos[b]) < reach]
        seen, todo = {0}, [0]
        while todo:
            k = todo.pop()
            for a, b, _ in links:
                for x, y in ((a, b), (b, a)):
                    if x == k and y not in seen:
                        seen.add(y)
                        todo.append(y)
        if len(seen) == N:
            return pos, links


def run_scenario(tmp_path, name, seed, stops=(), cmds=()):
    """An RPL mesh with echo and UDP traffic, run to 40 s, then to 70 s
    through @stops, running @cmds on every node at each stop. Returns what
    must not depend on @stops and @cmds."""
    pcap = tmp_path / f"{name}.pcap"
    s = Sim(seed)
    try:
        pos, links = mesh(3)
        for x, y in pos:
            s.add_node(x, y)
        for a, b, prr in links:
            s.set_link(a, b, prr)
            s.set_link(b, a, prr)
        s.open_pcap(pcap)
        for i in range(N):
            s.set_cca(i, True)
        for i in range(N):
            res, out = s.shell(i, "rpl root 2001:db8::/64 storing" if i == 0 else "rpl router")
            assert res == 0, out
        res, out = s.shell(0, "udp server start 5000 sink")
        assert res == 0, out
        s.run(40)
        root = "2001:db8::57:52ff:fe00:0"
        for i in range(1, N, 3):
            res, out = s.shell(i, f"ping {root} -c 25 -i 700 -s 120")
            assert res == 0, out
        for i in range(2, N, 4):
            res, out = s.shell(i, f"udp send {root} 5000 20-200 40 450")
            assert res == 0, out
        for t in stops:
            s.run(t)
            for i in range(N):
                for c in cmds:
                    s.shell(i, c)
        s.run(70)
        counters = [s.counters(i) for i in range(N)]
        events, now = s.events, s.now
        outputs = [s.output(i) for i in range(N)] if not cmds else None
    finally:
        s.close()
    return {"events": events, "now": now, "counters": counters, "outputs": outputs,
            "pcap": hashlib.sha256(pcap.read_bytes()).hexdigest()}


def splits():
    """Run boundaries: whole seconds and tenths (on timer instants of the
    1 s / 100 ms periods), odd microsecond steps, repeated and zero-length
    runs."""
    fine = [40 + k * 0.001 for k in range(1, 400)]
    return {
        "seconds": [float(t) for t in range(41, 70)],
        "3s": [float(t) for t in range(43, 70, 3)],
        "odd": [40 + k * 1.234567 for k in range(1, 24)],
        "fine": fine + [t for t in fine[:50]] + [45.0, 45.0, 45.000001],
    }


@pytest.mark.parametrize("seed", [1, 15])
def test_run_in_pieces_is_the_same_as_one_run(tmp_path, seed):
    base = run_scenario(tmp_path, "straight", seed)
    again = run_scenario(tmp_path, "again", seed)
    assert again == base, "the same scenario and seed gave two results"
    assert base["events"] > 10000  # a busy network, not an idle one
    assert base["counters"][0]["icmpv6.tx_echo_reply"] > 20  # the root answered echoes
    for name, stops in splits().items():
        got = run_scenario(tmp_path, name, seed, stops)
        assert got == base, f"run split as {name!r} changed the simulation"


@pytest.mark.parametrize("seed", [1, 15])
def test_read_only_shell_commands_do_not_change_the_simulation(tmp_path, seed):
    base = run_scenario(tmp_path, "straight", seed)
    base.pop("outputs")
    for c in READ_ONLY:
        got = run_scenario(tmp_path, c, seed, [float(t) for t in range(41, 70, 2)], [c])
        got.pop("outputs")
        assert got == base, f"the shell command {c!r} changed the simulation"
    got = run_scenario(tmp_path, "all", seed, [40 + k * 0.777 for k in range(1, 38)], READ_ONLY)
    got.pop("outputs")
    assert got == base, "read-only shell commands between odd run pieces changed the simulation"
