"""Scenario files: parsed into typed objects, every mistake one line that
names the file, the line and the key (and, for a misspelling, the key
meant); ./wren sim prints it after "wren: " and exits with status 2. And
every scenario in scenarios/ still loads and runs."""
import dataclasses
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT
from wren import scenario
from wren.scenario import App, Grid, Link, Radio, Scenario, ScenarioError, Shell
from wren.tomlpos import Positions

SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))

# three nodes; a mistake is added (or a line replaced) per test
BASE = """\
name = "t"
seed = 3
duration = 1.0

[[nodes]]
x = 0.0
[[nodes]]
x = 10.0
[[nodes]]
x = 20.0

[radio]
range = 15.0
cca = true

[[apps]]
nodes = [0, 2]
dst = 1
size = 30
interval = 0.1
"""


def write(tmp_path: Path, text: str, name: str = "x.toml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def error(path: Path) -> str:
    with pytest.raises(ScenarioError) as e:
        scenario.load(path)
    msg = str(e.value)
    assert "\n" not in msg, msg
    return msg


def line_of(path: Path, needle: str) -> int:
    """The (1-based) line of @path that contains @needle."""
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {path}")


# ---- typed objects ----------------------------------------------------------

def test_scenarios_load_into_typed_objects():
    sc = scenario.load(ROOT / "scenarios/broadcast_grid.toml")
    assert isinstance(sc, Scenario)
    assert sc.name == "broadcast_grid" and sc.seed == 1 and sc.duration == 30.0
    assert sc.grid == Grid(rows=5, cols=5, spacing=10.0)
    assert sc.radio == Radio(range=15.0, prr=0.95, cca=True, channel=26, proc_delay_us=0)
    assert sc.apps == [App(kind="rawgen", nodes="all", dst="broadcast", size=60, interval=0.25,
                           timing="jitter", start=0.1, count=0)]
    assert sc.node_count == 25 and len(sc.positions()) == 25
    line = scenario.load(ROOT / "scenarios/ip_line.toml")
    assert line.shell[0] == Shell(at=0.0, nodes="all",
                                  cmd=["ifconfig 1 add 2001:db8::10{id}/64", "forward on"])
    assert line.shell[3] == Shell(at=1.0, node=0, cmd=["ping 2001:db8::105 -c 3 -s 8 -i 1000"])
    hidden = scenario.load(ROOT / "scenarios/hidden_terminal.toml")
    assert hidden.links[0] == Link(src=0, dst=1, prr=1.0, both=True)
    # an integer where a number is asked for is a float in the object
    sc = scenario.parse({"duration": 2, "nodes": [{"x": 1}]})
    assert type(sc.duration) is float and type(sc.nodes[0].x) is float
    assert sc.name is None and sc.radio == Radio() and sc.mac == scenario.Mac()
    # one id or one command is a list of one
    sc = scenario.parse({"nodes": [{}], "apps": [{"nodes": 0}],
                         "shell": [{"cmd": "all", "nodes": 0}]})
    assert sc.apps[0].nodes == [0] and sc.shell[0].cmd == ["all"] and sc.shell[0].nodes == [0]


def test_readme_documents_every_key():
    """docs/scenarios.md (the README links it) names every key."""
    assert "(docs/scenarios.md)" in (ROOT / "README.md").read_text()
    section = (ROOT / "docs/scenarios.md").read_text()
    documented = set(re.findall(r"`\[*([a-z_]+)\]*(?: = [^`]*)?`", section))

    def keys(cls):
        for f in dataclasses.fields(cls):
            yield f.metadata.get("key") or f.name
            tp = f.type
            for sub in [tp, *getattr(tp, "__args__", ())]:
                if dataclasses.is_dataclass(sub):
                    yield from keys(sub)
    # `name` is shown by every file in scenarios/ rather than in the list
    missing = sorted(set(keys(Scenario)) - documented - {"name"})
    assert not missing, f"docs/scenarios.md does not document {missing}"


# ---- mistakes -----------------------------------------------------------------

def test_unknown_key_names_file_line_and_table(tmp_path):
    p = write(tmp_path, BASE.replace("cca = true", "cca = true\nzap = 1"))
    assert error(p) == (f"{p}:{line_of(p, 'zap')}: unknown key 'zap' in [radio] (known: "
                        f"'range', 'prr', 'cca', 'channel', 'proc_delay_us', 'drift_ppm')")
    p = write(tmp_path, "zap = 1\n" + BASE)
    assert error(p).startswith(f"{p}:1: unknown key 'zap' at the top level (known: 'name', ")


@pytest.mark.parametrize("old, new, message", [
    ("range = 15.0", "rage = 15.0", "unknown key 'rage' in [radio] (did you mean 'range'?)"),
    ("seed = 3", "sed = 3", "unknown key 'sed' at the top level (did you mean 'seed'?)"),
    ("interval = 0.1", "intervall = 0.1",
     "unknown key 'intervall' in [[apps]] (did you mean 'interval'?)"),
    ("x = 10.0", "xx = 10.0", "unknown key 'xx' in [[nodes]] (did you mean 'x'?)"),
    ("[radio]", "[radoi]", "unknown table [radoi] (did you mean [radio]?)"),
    ("[[apps]]", "[[app]]", "unknown table [[app]] (did you mean [[apps]]?)"),
    ("name = \"t\"", "name = \"t\"\n[mac]\nretry_delay = 20",
     "unknown key 'retry_delay' in [mac] (did you mean 'retry_delay_ms'?)"),
])
def test_misspelled_key_suggests_the_known_one(tmp_path, old, new, message):
    p = write(tmp_path, BASE.replace(old, new, 1))
    bad = re.match(r"\[*(\w+)", new.splitlines()[-1]).group(1)
    assert error(p) == f"{p}:{line_of(p, bad)}: {message}"


def test_misspelled_key_in_links_and_shell(tmp_path):
    p = write(tmp_path, BASE + "[[links]]\nform = 0\nto = 1\n")
    assert error(p) == f"{p}:{line_of(p, 'form')}: unknown key 'form' in [[links]] " \
                       f"(did you mean 'from'?)"
    p = write(tmp_path, BASE + "[[shell]]\nnode = 1\ncommand = \"fib\"\n")
    assert error(p) == f"{p}:{line_of(p, 'command')}: unknown key 'command' in [[shell]] " \
                       f"(did you mean 'cmd'?)"
    p = write(tmp_path, BASE + "[[shell]]\nnode = 1\nrun = \"fib\"\n")
    assert error(p) == f"{p}:{line_of(p, 'run')}: unknown key 'run' in [[shell]] " \
                       f"(known: 'at', 'every', 'until', 'node', 'nodes', 'cmd')"


@pytest.mark.parametrize("old, new, message", [
    ("seed = 3", 'seed = "3"', "'seed' at the top level must be an integer, not the string \"3\""),
    ("duration = 1.0", "duration = true",
     "'duration' at the top level must be a number, not true"),
    ("cca = true", 'cca = "yes"', "'cca' in [radio] must be true or false, not the string \"yes\""),
    ("range = 15.0", "range = [15]", "'range' in [radio] must be a number, not an array"),
    ("size = 30", "size = 30.5", "'size' in [[apps]] must be an integer, not the number 30.5"),
    ("nodes = [0, 2]", 'nodes = "some"',
     "'nodes' in [[apps]] must be \"all\", a list of node ids or a node id, not the string "
     "\"some\""),
    ("nodes = [0, 2]", 'nodes = "al"',
     "'nodes' in [[apps]] must be \"all\", a list of node ids or a node id, not the string "
     "\"al\" (did you mean \"all\"?)"),
    ("nodes = [0, 2]", 'nodes = [0, "2"]',
     "'nodes' in [[apps]] must be \"all\", a list of node ids or a node id, not a list holding "
     "the string \"2\""),
    ("dst = 1", 'dst = "broadcat"',
     "'dst' in [[apps]] must be \"broadcast\" or a node id, not the string \"broadcat\" "
     "(did you mean \"broadcast\"?)"),
    ("interval = 0.1", 'interval = 0.1\ntiming = "poison"',
     "'timing' in [[apps]] must be \"jitter\", \"poisson\" or \"periodic\", not the string "
     "\"poison\" (did you mean \"poisson\"?)"),
    ("interval = 0.1", 'interval = 0.1\ntype = "udp"',
     "'type' in [[apps]] must be \"rawgen\", not the string \"udp\""),
    ("[[apps]]", "[apps]", "[apps] must be an array of tables: write [[apps]]"),
])
def test_wrong_type_names_file_line_key_and_expected_type(tmp_path, old, new, message):
    p = write(tmp_path, BASE.replace(old, new, 1))
    assert error(p) == f"{p}:{line_of(p, new.splitlines()[-1])}: {message}"
    p = write(tmp_path, "radio = 5\n[[nodes]]\n")
    assert error(p) == f"{p}:1: 'radio' at the top level must be a table, not the integer 5"
    p = write(tmp_path, "seed = 1\nnodes = [{x = 1},\n  2]\n")
    assert error(p) == f"{p}:3: [[nodes]] must be a table, not the integer 2"


def test_wrong_type_in_shell(tmp_path):
    p = write(tmp_path, BASE + "[[shell]]\nat = \"1s\"\ncmd = \"fib\"\n")
    assert error(p) == f"{p}:{line_of(p, 'at =')}: 'at' in [[shell]] must be a number, not " \
                       f"the string \"1s\""
    p = write(tmp_path, BASE + "[[shell]]\ncmd = 5\n")
    assert error(p) == f"{p}:{line_of(p, 'cmd')}: 'cmd' in [[shell]] must be a string or a " \
                       f"list of strings, not the integer 5"


@pytest.mark.parametrize("old, new, message", [
    ("cca = true", "cca = true\nchannel = 27",
     "'channel' in [radio] must be between 11 and 26, not 27"),
    ("range = 15.0", "range = 15.0\nprr = 1.5", "'prr' in [radio] must be between 0 and 1, not 1.5"),
    ("size = 30", "size = 4", "'size' in [[apps]] must be between 10 and 65535 bytes, not 4"),
    ("interval = 0.1", "interval = -1", "'interval' in [[apps]] must be between 0 and 4294.97 "
                                        "seconds, not -1"),
    ("duration = 1.0", "duration = -5", "'duration' at the top level must be at least 0 seconds, "
                                        "not -5"),
])
def test_value_out_of_range(tmp_path, old, new, message):
    p = write(tmp_path, BASE.replace(old, new, 1))
    key = new.splitlines()[-1].split()[0]
    assert error(p) == f"{p}:{line_of(p, key + ' =')}: {message}"


@pytest.mark.parametrize("addition, key, table, node, needle", [
    ("[[apps]]\nnodes = [1, 3]\n", "nodes", "[[apps]]", 3, "nodes = [1, 3]"),
    ("[[apps]]\nnodes = 7\n", "nodes", "[[apps]]", 7, "nodes = 7"),
    ("[[apps]]\nnodes = [1]\ndst = 3\n", "dst", "[[apps]]", 3, "dst = 3"),
    ("[[links]]\nfrom = 3\nto = 1\n", "from", "[[links]]", 3, "from = 3"),
    ("[[links]]\nfrom = 0\nto = -1\n", "to", "[[links]]", -1, "to = -1"),
    ("[[shell]]\nnode = 5\ncmd = \"fib\"\n", "node", "[[shell]]", 5, "node = 5"),
    # in a list split over lines: the line of the id itself
    ("[[shell]]\nnodes = [0,\n  4]\ncmd = \"fib\"\n", "nodes", "[[shell]]", 4, "  4]"),
])
def test_node_id_out_of_range_is_named(tmp_path, addition, key, table, node, needle):
    p = write(tmp_path, BASE + addition)
    assert error(p) == (f"{p}:{line_of(p, needle)}: node {node} in '{key}' of {table} is out "
                        f"of range: the scenario has 3 nodes (0..2)")


def test_missing_required_key(tmp_path):
    p = write(tmp_path, BASE + "[[links]]\nfrom = 0\n")
    assert error(p) == f"{p}:{line_of(p, '[[links]]')}: [[links]] needs 'to' (a node id)"
    p = write(tmp_path, BASE + "[[shell]]\nnode = 0\n")
    assert error(p) == f"{p}:{line_of(p, '[[shell]]')}: [[shell]] needs 'cmd' (a string or a " \
                       f"list of strings)"
    p = write(tmp_path, "[grid]\nrows = 2\n")
    assert error(p) == f"{p}:1: [grid] needs 'cols' (an integer)"


def test_other_mistakes(tmp_path):
    p = write(tmp_path, "seed = 1\n")
    assert error(p) == f"{p}: no nodes: the scenario needs [grid], [random] or [[nodes]]"
    p = write(tmp_path, BASE.replace("duration = 1.0", "duration = inf"))
    assert error(p) == f"{p}:3: 'duration' at the top level must be a finite number, not inf"
    p = write(tmp_path, BASE + "[grid]\nrows = 2\ncols = 2\n")
    assert error(p) == (f"{p}:{line_of(p, '[grid]')}: [grid] besides [[nodes]]: a scenario "
                        f"places its nodes with one of [grid], [random] and [[nodes]]")
    p = write(tmp_path, BASE + "[[links]]\nfrom = 1\nto = 1\n")
    assert error(p) == f"{p}:{line_of(p, 'to = 1')}: a link from node 1 to itself"
    p = write(tmp_path, BASE + "[[shell]]\nnode = 1\nnodes = [2]\ncmd = \"fib\"\n")
    assert error(p) == f"{p}:{line_of(p, 'nodes = [2]')}: [[shell]] has both 'node' and " \
                       f"'nodes': give one"
    p = write(tmp_path, BASE + "[[shell]]\ncmd = [\"fib\", \"ping fe80::{idd}\"]\n")
    assert error(p) == (f"{p}:{line_of(p, 'cmd')}: 'cmd' in [[shell]]: unknown placeholder "
                        f"{{idd}} in \"ping fe80::{{idd}}\" (known: {{id}}, {{prev}}, {{next}}, "
                        f"{{addr}}, {{addr[N]}})")
    p = write(tmp_path, BASE + "[[shell]]\ncmd = \"ping {addr[1]}\"\n")
    assert error(p) == (f"{p}:{line_of(p, 'cmd')}: 'cmd' in [[shell]]: {{addr[1]}} in "
                        f"\"ping {{addr[1]}}\" needs [rpl] with a /64 'prefix' (the nodes' "
                        f"addresses are in it)")
    rpl = BASE + "[rpl]\nroot = 0\n"
    p = write(tmp_path, rpl + "[[shell]]\ncmd = \"ping {addr[7]}\"\n")
    assert error(p) == (f"{p}:{line_of(p, 'cmd')}: 'cmd' in [[shell]]: node 7 is out of range: "
                        f"the scenario has 3 nodes in \"ping {{addr[7]}}\"")
    p = write(tmp_path, BASE + "[[shell]]\nat = 2.0\nuntil = 5.0\ncmd = \"fib\"\n")
    assert error(p) == (f"{p}:{line_of(p, 'until')}: 'until' in [[shell]] without 'every': a "
                        f"command that runs once needs no end")
    p = write(tmp_path, BASE + "[[shell]]\nat = 2.0\nevery = 1.0\nuntil = 1.0\ncmd = \"fib\"\n")
    assert error(p) == (f"{p}:{line_of(p, 'until')}: 'until' in [[shell]] (1 s) is before "
                        f"'at' (2 s)")
    p = write(tmp_path, BASE + "[[shell]]\nevery = 0.0\ncmd = \"fib\"\n")
    assert error(p) == (f"{p}:{line_of(p, 'every')}: 'every' in [[shell]] must be at least "
                        f"0.001 seconds, not 0")
    p = write(tmp_path, BASE + "[[shell]]\ncmd = \"udp send {\"\n")
    assert error(p).startswith(f"{p}:{line_of(p, 'cmd')}: 'cmd' in [[shell]]: Single '{{'")


def test_shell_every_until_and_addresses():
    """[[shell]] `every` repeats a command until `until` (inclusive) or the
    end of the run (exclusive); {addr} and {addr[N]} are the nodes'
    addresses in the [rpl] prefix (IIDs from their EUI-64s)."""
    from wren.addr import addr
    sc = scenario.parse({"duration": 10.0, "nodes": [{}, {"x": 10.0}], "rpl": {"root": 0},
                         "shell": [{"at": 2.0, "every": 3.0, "node": 1, "cmd": "ping {addr[0]}"},
                                   {"at": 1.0, "every": 2.0, "until": 5.0, "nodes": "all",
                                    "cmd": "coap get {addr} /counter"},
                                   {"at": 4.0, "node": 0, "cmd": "fib"}]})
    cmds = [c for c in scenario._commands(sc, 2, 10.0) if not c[2].startswith("rpl")]
    a0, a1 = addr("2001:db8::", 0), addr("2001:db8::", 1)
    assert cmds == [(1.0, 0, f"coap get {a0} /counter"), (1.0, 1, f"coap get {a1} /counter"),
                    (2.0, 1, f"ping {a0}"),
                    (3.0, 0, f"coap get {a0} /counter"), (3.0, 1, f"coap get {a1} /counter"),
                    (4.0, 0, "fib"),
                    (5.0, 1, f"ping {a0}"),   # at the same time: in the file's order
                    (5.0, 0, f"coap get {a0} /counter"), (5.0, 1, f"coap get {a1} /counter"),
                    (8.0, 1, f"ping {a0}")]
    # and in a run: node 1 pings node 0 by its address in the prefix
    res = scenario.run({"duration": 12.0, "nodes": [{}, {"x": 10.0}], "radio": {"range": 15.0},
                        "rpl": {"root": 0},
                        "shell": [{"at": 5.0, "every": 2.0, "until": 9.0, "node": 1,
                                   "cmd": "ping {addr[0]} -c 1"}]}, progress=False)
    out = res["nodes"][1]["shell"]
    assert out.count(f"> ping {a0} -c 1") == 3
    assert out.count(f"bytes from {a0}") == 3, out
    assert res["rpl_formed_s"] is not None and res["rpl_formed_s"] <= 5.0


def test_missing_file_and_invalid_toml(tmp_path):
    assert error(tmp_path / "nope.toml") == f"{tmp_path / 'nope.toml'}: no such file"
    assert error(tmp_path) == f"{tmp_path}: is a directory, not a scenario file"
    p = write(tmp_path, BASE.replace("size = 30", "size = "))
    assert error(p) == f"{p}:{line_of(p, 'size')}: invalid TOML: Invalid value (column 8)"
    p = write(tmp_path, BASE + "seed = 4\n")   # (in [[apps]]: not a duplicate there)
    assert "unknown key 'seed' in [[apps]]" in error(p)
    p = write(tmp_path, "seed = 1\nseed = 2\n")
    assert error(p).startswith(f"{p}:2: invalid TOML: Cannot overwrite a value")
    p = write(tmp_path, "a = [1,\n")
    assert error(p) == f"{p}:1: invalid TOML: Invalid value at the end of the file"


def test_dict_scenarios_are_checked_too():
    with pytest.raises(ScenarioError, match=r"^unknown table \[radoi\] \(did you mean "
                                            r"\[radio\]\?\)$"):
        scenario.run({"nodes": [{}], "radoi": {}}, progress=False)
    with pytest.raises(ScenarioError, match=r"^node 4 in 'to' of \[\[links\]\] is out of range"):
        scenario.build({"nodes": [{}, {}], "links": [{"from": 0, "to": 4}]})


def test_simulator_refusals_name_the_table(tmp_path):
    """What only the library checks is reported at the table that asked."""
    p = write(tmp_path, BASE + "[mac]\nmax_be = 200\n")
    with pytest.raises(ScenarioError) as e:
        scenario.build(scenario.load(p))
    assert re.fullmatch(rf"{re.escape(str(p))}:{line_of(p, '[mac]')}: MAC parameters of node 0: "
                        r"netopt set failed: .+", str(e.value)), str(e.value)


# ---- through the command line ------------------------------------------------

def wren_sim(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    return subprocess.run([sys.executable, "-m", "wren.cli", "sim", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("text, message", [
    (BASE.replace("range", "rage"), "x.toml:13: unknown key 'rage' in [radio] (did you mean "
                                    "'range'?)"),
    (BASE.replace("seed = 3", 'seed = "x"'), "x.toml:2: 'seed' at the top level must be an "
                                             "integer, not the string \"x\""),
    (BASE.replace("dst = 1", "dst = 9"), "x.toml:18: node 9 in 'dst' of [[apps]] is out of "
                                         "range: the scenario has 3 nodes (0..2)"),
    (BASE.replace("[radio]", "[radio"), "x.toml:12: invalid TOML: Expected ']' at the end of a "
                                        "table declaration (column 7)"),
    (None, "x.toml: no such file"),
])
def test_cli_prints_one_line_and_exits_2(tmp_path, text, message):
    if text is not None:
        write(tmp_path, text)
    res = wren_sim("x.toml", cwd=tmp_path)
    assert res.returncode == 2, res
    assert res.stderr == f"wren: {message}\n", res.stderr
    assert res.stdout == ""


def test_cli_capture_path_that_cannot_be_written(tmp_path):
    write(tmp_path, BASE)
    res = wren_sim("x.toml", "--pcap", str(tmp_path / "no/such/dir/x.pcap"), cwd=tmp_path)
    assert res.returncode == 2, res
    assert res.stderr == (f"wren: cannot write the capture {tmp_path}/no/such/dir/x.pcap: "
                          f"No such file or directory\n"), res.stderr


# ---- the scenarios we ship ---------------------------------------------------

@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_every_scenario_loads_and_runs(path):
    sc = scenario.load(path)
    res = scenario.run(sc, progress=False)
    assert res["failed_commands"] == []
    assert len(res["nodes"]) == sc.node_count > 0
    assert res["duration_s"] == sc.duration
    assert res["totals"]["radio.tx_frames"] > 0
    assert res["totals"].get("app.rx_bad", 0) == 0


def test_shell_commands_of_a_list_run_in_its_order(tmp_path):
    p = write(tmp_path, BASE + "[[shell]]\nat = 0.5\nnode = 1\ncmd = [\"pktbuf\", \"fib\"]\n")
    out = scenario.run(scenario.load(p), progress=False)["nodes"][1]["shell"]
    assert out.index("> pktbuf") < out.index("> fib"), out


# ---- key positions ---------------------------------------------------------------

def test_positions_of_keys_and_tables():
    text = textwrap.dedent('''\
        # a comment with [fake] = table
        name = "x"  # [fake]
        radio.range = 3
        pt = { x = 1, "q.r" = [1,
          2] }
        arr = [ { a = 1 },
          { b = 2 } ]
        s = """multi
        [not] = a header
        """
        when = 1979-05-27 07:32:00
        [grid]
        rows = 5
        "cols" = 5
        [[nodes]]
        x = 0.0
        [[nodes]]
        y = 1.5
        [nodes.sub]
        k = 1
        ''')
    import tomllib
    tomllib.loads(text)  # valid TOML
    p = Positions(text)
    want = {((), "name"): 2, (("radio",), "range"): 3, (("pt",), "x"): 4, (("pt",), "q.r"): 4,
            ((), "arr"): 6, (("arr", 0), "a"): 6, (("arr", 1), "b"): 7, ((), "s"): 8,
            ((), "when"): 11, ((), "grid"): 12, (("grid",), "rows"): 13,
            (("grid",), "cols"): 14, ((), "nodes"): 15, (("nodes", 0), "x"): 16,
            (("nodes", 1), "y"): 18, (("nodes", 1, "sub"), "k"): 20}
    for (table, key), line in want.items():
        assert p.key(table, key) == line, (table, key)
    assert p.key((), "not") is None and p.key((), "fake") is None
    assert p.table(("nodes", 1)) == 17 and p.table(("pt", "q.r", 1)) == 5
    assert p.line(("grid",), "spacing") == 12   # a key not there: its table's line


# ---- the stack a node runs ------------------------------------------------------

def test_stack_modules_choose_what_nodes_run(tmp_path):
    p = write(tmp_path, BASE + '[stack]\nmodules = ["sixlowpan", "ipv6", "icmpv6"]\n')
    sim, _ = scenario.build(scenario.load(p))
    try:
        sets = {name.split(".")[0] for name in sim.counters(0)}
        assert {"6lowpan", "ipv6", "icmpv6"} <= sets, sets
        assert not {"udp", "tcp", "nib"} & sets, sets
        res, out = sim.shell(0, "tcp listen 80")
        assert res < 0 and "No such device" in out, out
    finally:
        sim.close()


def test_stack_unknown_module_is_named_with_a_suggestion(tmp_path):
    write(tmp_path, BASE + '[stack]\nmodules = ["ipv6", "icmp6"]\n')
    res = wren_sim("x.toml", cwd=tmp_path)
    assert res.returncode == 2, res
    assert re.fullmatch(r"wren: x\.toml:\d+: modules: unknown module 'icmp6' \(did you mean "
                        r"'icmpv6'\?\); the modules are sixlowpan, ipv6, .*\n", res.stderr), res.stderr


def test_summary_names_nodes_whose_neighbour_cache_refused_entries():
    """The summary says which nodes' neighbour caches were full (the
    nib.nc_full / nd_eth.nc_full counters: entries refused), and says
    nothing when none was."""
    import io
    res = scenario.run({"nodes": [{}, {"x": 5}], "radio": {"range": 10.0}, "duration": 1.0},
                       progress=False)
    out = io.StringIO()
    scenario.summary(res, out)
    assert "neighbour cache full" not in out.getvalue()
    res["nodes"][1]["counters"]["nib.nc_full"] = 3
    out = io.StringIO()
    scenario.summary(res, out)
    assert "neighbour cache full on node (refusals): 1 (3 refused)" in out.getvalue()
