"""Counters come from one list: every counter a module declares is shown.

The lists are the X-macros `#define WREN_..._COUNTERS(C)` in the C headers
and the sets that expose them are the `WREN_COUNTER_SET("name", LIST, ...)`
initialisers in the C sources. This test reads both from the source tree
(not from the library) and checks that:

- every counter list is exposed by some set (a list nobody shows fails);
- every counter of every set a simulated node has appears in the
  simulator's JSON counters and in the shell's `stats` output;
- a wren-node process on ZEP shows its device's and its modules' sets too.
"""
import re
import subprocess
from pathlib import Path

import pytest

from wren import paths
from wren.addr import ll

from conftest import parse_stats

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [p for d in ("src", "runtime") for p in (ROOT / d).rglob("*.[ch]")]

# sets a node has only with a device or interface the simulator lacks, or
# (lora: a LoRa interface, only after wren_sim_set_lora; tests/py/
# test_lora_sim.py checks its counters) one this test's nodes do not have;
# lorawan and schc: the LoRaWAN link and SCHC module of a LoRa interface
NOT_IN_SIM = {"tap", "zep", "nd", "zep_bridge", "lora", "lora_udp", "lorawan", "schc",
              "simeth"}  # simeth: only on nodes with a simulated Ethernet port (sim_eth.h)


def _lists() -> dict[str, list[str]]:
    """Every counter list: macro name -> counter names (nested lists expanded)."""
    raw: dict[str, list[str]] = {}
    for p in SOURCES:
        text = p.read_text()
        for m in re.finditer(r"#define (WREN_\w+_COUNTERS)\(C\)((?:[^\n]*\\\n)*[^\n]*)", text):
            body = re.sub(r"/\*.*?\*/", "", m.group(2).replace("\\\n", " "))
            raw[m.group(1)] = re.findall(r"(?:\bC\((\w+)\)|\b(WREN_\w+_COUNTERS)\(C\))", body)

    def expand(name: str) -> list[str]:
        out: list[str] = []
        for counter, nested in raw[name]:
            out += expand(nested) if nested else [counter]
        return out
    return {name: expand(name) for name in raw}


def _sets() -> dict[str, str]:
    """Every counter set: set name -> its list's macro (names are unique)."""
    sets: dict[str, str] = {}
    for p in SOURCES:
        for m in re.finditer(r'WREN_COUNTER_SET\(\s*"([\w]+)",\s*(WREN_\w+_COUNTERS)',
                             p.read_text()):
            assert sets.get(m.group(1), m.group(2)) == m.group(2), f"two sets named {m.group(1)}"
            sets[m.group(1)] = m.group(2)
    return sets


def test_every_counter_list_is_exposed_by_a_set():
    lists, sets = _lists(), _sets()
    assert len(lists) >= 15 and len(sets) >= 14, (sorted(lists), sorted(sets))
    used = set(sets.values())
    # lists nested in an exposed list count as exposed
    for macro in list(used):
        text = "".join(p.read_text() for p in SOURCES)
        m = re.search(rf"#define {macro}\(C\)((?:[^\n]*\\\n)*[^\n]*)", text)
        used |= set(re.findall(r"\b(WREN_\w+_COUNTERS)\(C\)", m.group(1)))
    assert not set(lists) - used, f"counter lists no set shows: {sorted(set(lists) - used)}"


# the counters of the interface's MAC: CSMA's or TSCH's, as the node runs one
MAC_SETS = {"csma": "mac", "tsch": "tsch"}


@pytest.mark.parametrize("mac", ["csma", "tsch"])
def test_sim_node_shows_every_counter_in_json_and_shell(sim_factory, mac):
    lists, sets = _lists(), _sets()
    s = sim_factory()
    s.set_mac_kind(mac)
    s.set_modules(s.module_names())  # every module: the opt-in ones too
    a, b = s.add_node(0, 0), s.add_node(10, 0)
    s.set_link(a, b)
    s.set_link(b, a)
    s.shell(a, f"ping {ll(b)} -c 1")
    s.run(2.0)
    json_names = set(s.counters(a))
    _, out = s.shell(a, "stats")
    shell_names = set(parse_stats(out))
    missing_json, missing_shell = [], []
    for set_name, macro in sets.items():
        if set_name in NOT_IN_SIM or (set_name in MAC_SETS.values() and
                                      set_name != MAC_SETS[mac]):
            continue
        for counter in lists[macro]:
            full = f"{set_name}.{counter}"
            if full not in json_names:
                missing_json.append(full)
            # the raw traffic generator belongs to the simulator, not a module
            if set_name != "app" and full not in shell_names:
                missing_shell.append(full)
    assert not missing_json, f"not in the JSON counters: {missing_json}"
    assert not missing_shell, f"not in the shell's stats: {missing_shell}"
    # and what the node counted is what both show
    if mac == "csma":
        assert s.counters(a)["icmpv6.rx"] >= 1
    else:
        assert s.counters(a)["tsch.scan_hops"] >= 1
        s.shell(a, "tsch off")  # the ping waits for a network: flushed
        s.shell(b, "tsch off")


def test_wren_node_on_zep_shows_its_device_and_modules():
    exe = paths.BUILD / "wren-node"
    if not exe.exists():
        pytest.skip("wren-node not built")
    lists, sets = _lists(), _sets()
    res = subprocess.run([str(exe), "--id", "5", "--zep", "0:127.0.0.1:9", "--exit-on-eof"],
                         input="stats\n", capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    names = set(parse_stats(res.stdout))
    want = [f"{n}.{c}" for n in ("zep", "nib", "6lowpan", "netif", "mac", "tcp")
            for c in lists[sets[n]]]
    missing = [w for w in want if w not in names]
    assert not missing, f"wren-node's stats lacks {missing}"


def test_wren_node_modules_option_chooses_the_stack():
    exe = paths.BUILD / "wren-node"
    if not exe.exists():
        pytest.skip("wren-node not built")
    base = [str(exe), "--id", "5", "--zep", "0:127.0.0.1:9", "--exit-on-eof"]
    res = subprocess.run(base + ["--modules", "sixlowpan,ipv6,icmpv6"], input="stats\nhelp\n",
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    sets = {n.split(".")[0] for n in parse_stats(res.stdout)}
    assert {"6lowpan", "ipv6", "icmpv6", "zep"} <= sets, sets
    assert not {"udp", "tcp", "nib"} & sets, sets
    assert "\nfib " in res.stdout and "\nnib " not in res.stdout
    res = subprocess.run(base + ["--modules", "ipv6,icmp6"], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 2
    assert res.stderr.startswith("wren-node: --modules: no module 'icmp6' (the modules: "), res.stderr
    assert res.stderr.count("\n") == 1
