"""The ctypes binding takes its numbers and names from the C side: netopt
keys and rawgen timings from the headers (wren.cenum), counter names from
the library at run time; and nothing in Python breaks when the library
reports counters or counter sets it has never seen."""
import io
import re

import pytest

from conftest import ROOT
from wren import cenum, lib, scenario
from wren.lib import Sim

NETOPT_H = ROOT / "src/net/netopt.h"


def simple_enum(text: str, name: str) -> dict[str, int]:
    """A second, line-based reading of an enum (one enumerator per line, as
    the headers write them), to check cenum against."""
    body = re.search(rf"enum {name} \{{(.*?)\n\}};", text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    out, nxt = {}, 0
    for line in body.splitlines():
        m = re.match(r"\s*(\w+)\s*(?:=\s*(0x[0-9a-fA-F]+|\d+))?\s*,", line)
        if m:
            nxt = int(m.group(2), 0) if m.group(2) else nxt
            out[m.group(1)] = nxt
            nxt += 1
    return out


def test_netopt_numbers_are_the_headers():
    text = NETOPT_H.read_text()
    want = simple_enum(text, "wren_netopt")
    assert cenum.parse(text, "wren_netopt") == want
    assert dict(lib.NETOPT) == {k.removeprefix("WREN_NETOPT_"): v for k, v in want.items()}
    # a few that the binding uses, as the header spells them today
    assert want["WREN_NETOPT_CHANNEL"] == 1
    assert want["WREN_NETOPT_CCA_BEFORE_TX"] == 8
    assert want["WREN_NETOPT_CSMA"] == 0x80                    # explicit
    assert want["WREN_NETOPT_CSMA_MIN_BE"] == 0x81             # implicit after it
    assert want["WREN_NETOPT_MAC_POLL"] == want["WREN_NETOPT_MAC_PARENT"] + 1
    # every NETOPT_* constant of the binding is the header's value of that name
    used = {n: getattr(lib, n) for n in dir(lib) if n.startswith("NETOPT_")}
    assert len(used) >= 10
    for name, value in used.items():
        assert value == want[f"WREN_{name}"], name


def test_timings_are_rawgens():
    text = (ROOT / "src/apps/rawgen.h").read_text()
    want = simple_enum(text, "wren_rawgen_timing")
    assert dict(lib.TIMING) == {k.removeprefix("WREN_RAWGEN_").lower(): v
                                for k, v in want.items()}
    assert set(lib.TIMING) == {"jitter", "poisson", "periodic"}  # the scenario names


def test_cenum_reads_what_c_allows():
    text = """
    /* enum decoy { NOT_THIS = 5 }; */
    enum e {
        A,                 // 0
        B = 0x10,          /* explicit, hex */
        C,                 /* 0x11 */
        D = 010,           /* octal: 8 */
        E = 2U,
        F = B + 4,         /* an earlier enumerator */
        G = (1 << 4) | 3,
        H = 'a',
        I,
    };
    enum other { X = 1 };
    """
    assert cenum.parse(text, "e") == {"A": 0, "B": 16, "C": 17, "D": 8, "E": 2, "F": 20,
                                      "G": 19, "H": 97, "I": 98}
    assert cenum.parse(text, "other") == {"X": 1}
    with pytest.raises(cenum.CEnumError, match="no enum missing"):
        cenum.parse(text, "missing")
    with pytest.raises(cenum.CEnumError, match="preprocessor"):
        cenum.parse("enum p {\n A,\n#if X\n B,\n#endif\n};", "p")
    with pytest.raises(cenum.CEnumError, match="cannot evaluate"):
        cenum.parse("enum q { A = sizeof(int) };", "q")
    assert cenum.define(ROOT / "src/apps/rawgen.h", "WREN_RAWGEN_HDR_LEN") >= 1


def test_counters_are_the_librarys_every_one(sim):
    sim.add_node()
    c = sim.counters(0)
    n = sim.lib.wren_sim_counters(sim.h, 0, None, None, 0)
    assert len(c) == n > 0                      # none cut off
    assert all(re.fullmatch(r"[\w]+\.\w+", k) for k in c), [k for k in c if "." not in k]
    sets = lib.counter_sets(c)
    assert "radio" in sets and "pktbuf" in sets
    assert sum(len(v) for v in sets.values()) == n


class FakeLib:
    """wren_sim_counters of a library with more counters (and sets) than
    the binding has ever seen."""

    def __init__(self, names: list[str]) -> None:
        self.names = [n.encode() for n in names]
        self.calls = []

    def wren_sim_free(self, h):
        pass

    def wren_sim_counters(self, h, node, names, values, max_):
        self.calls.append(max_)
        for i in range(min(max_, len(self.names))):
            names[i] = self.names[i]
            values[i] = i + 1
        return len(self.names)


def fake_sim(names: list[str]) -> Sim:
    s = Sim.__new__(Sim)
    s.h, s.bridged, s.lib = 1, False, FakeLib(names)
    return s


def test_new_counters_and_sets_pass_through():
    names = ([f"radio.c{i}" for i in range(300)] + ["nib.rx_ns", "nib.cache_replaced",
                                                    "tcp.rx", "6lowpan.frag_drop_hdr"])
    s = fake_sim(names)
    c = s.counters(0)
    assert list(c) == names and c["6lowpan.frag_drop_hdr"] == len(names)
    assert s.lib.calls == [0, len(names)]       # asked how many, then all of them
    sets = lib.counter_sets(c)
    assert set(sets) == {"radio", "nib", "tcp", "6lowpan"} and sets["tcp"] == {"rx": 303}


def test_summary_with_unknown_counters_and_without_known_ones():
    """A result with counters nobody listed and without some the table
    shows prints all the same."""
    counters = {"nib.rx_ns": 3, "tcp.rx": 4, "6lowpan.frag_drop_hdr": 1, "netif.tx_drop_x": 2,
                "radio.tx_frames": 7}
    result = {"scenario": "s", "seed": 1, "duration_s": 1.0, "wall_s": 0.1, "events": 5,
              "pcap": None, "pktbuf_in_use": 0, "failed_commands": [],
              "totals": dict(counters), "nodes": [{"id": 0, "counters": counters, "shell": ""}]}
    out = io.StringIO()
    scenario.summary(result, out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == [name for name, _ in scenario.SUMMARY_COLUMNS]
    assert lines[1].split()[:3] == ["0", "7", "0"] and lines[1].split()[-2] == "2"  # drops


def test_every_library_counter_reaches_the_json_result():
    res = scenario.run({"nodes": [{}, {"x": 5}], "radio": {"range": 10.0}, "duration": 1.0,
                        "apps": [{"nodes": [0], "dst": 1, "interval": 0.1}]}, progress=False)
    with Sim() as s:
        s.add_node()
        names = set(s.counters(0))
    assert set(res["nodes"][0]["counters"]) == names
    assert set(res["totals"]) == {n for n in names if n.split(".")[0] not in ("pktbuf", "sched")}
