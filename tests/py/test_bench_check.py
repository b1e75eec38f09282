"""./wren bench --check (wren.bench_check, data/bench_guards.toml), and the
benchmarks' anchors, which state the paper's or peer's figure and the
setup, never an earlier wren measurement."""
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wren import bench, bench_check
from wren.bench_check import Guard, Table

ROOT = Path(__file__).resolve().parents[2]


def wren(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "WREN_PROGRESS": "0"}
    return subprocess.run([sys.executable, "-m", "wren.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _rec(name, value, target, better="lower", unit="bytes"):
    return {"name": name, "value": value, "unit": unit, "better": better, "target": target,
            "anchor": ""}


TABLE = Table([Guard("rom_x", "size", 1000, 0.02, "an image's bytes"),
               Guard("pdr_x", "sim", 0.995, 0.005, "a simulated run")],
              {"fraction_x": "goodput over the simulator's own bound"})


def test_guards_hold_within_target_and_tolerance():
    recs = [_rec("rom_x", 1010, 1200), _rec("pdr_x", 0.993, 0.99, "higher", "ratio"),
            _rec("open_x", 9000, 5000)]
    fails, open_ = bench_check.check(recs, TABLE)
    assert fails == []
    assert open_ == ["open_x: 9000 bytes, target 5000 (lower is better)"]   # printed, not failed


def test_a_guard_fails_on_a_miss_a_drift_either_way_and_absence():
    fails, _ = bench_check.check([_rec("rom_x", 1300, 1200)], TABLE)
    assert fails[0] == "rom_x: 1300 bytes misses its target 1200"
    assert fails[1].startswith("pdr_x: no such record")
    # still within its target, but 3 % from its reference: a regression
    fails, _ = bench_check.check([_rec("rom_x", 1030, 1200),
                                  _rec("pdr_x", 0.995, 0.99, "higher", "ratio")], TABLE)
    assert fails == ["rom_x: 1030 bytes is +3.0 % from its reference 1000 (tolerance 2 %): "
                     "a regression"]
    # better beyond the tolerance: the reference must move with it
    fails, _ = bench_check.check([_rec("rom_x", 900, 1200),
                                  _rec("pdr_x", 0.995, 0.99, "higher", "ratio")], TABLE)
    assert "better: if that is meant, set its reference" in fails[0]
    # a guard whose record lost its target is no guard
    fails, _ = bench_check.check([_rec("rom_x", 1000, None),
                                  _rec("pdr_x", 0.995, 0.99, "higher", "ratio")], TABLE)
    assert fails == ["rom_x: a guard without a target"]


def test_the_table_names_real_benchmarks_and_met_targets():
    table = bench_check.load()
    assert table.guards, "no guards"
    names = [g.name for g in table.guards]
    assert len(names) == len(set(names))
    for g in table.guards:
        assert g.bench in bench.BENCHES, g
        assert 0 <= g.tolerance < 0.2 and g.why
        # no wall-clock record is a guard
        assert not re.search(r"speed|wall|echo|zep_", g.name), g.name
    assert "udp_1hop_goodput_nomac_vs_bound" in table.consistency


def _saved(tmp_path, recs):
    f = tmp_path / "recs.json"
    f.write_text(json.dumps(recs))
    return f


def _at_reference(table):
    """A record for every guard at its reference, target met either way."""
    return [_rec(g.name, g.reference, g.reference * 1.5 if g.reference > 0 else 1)
            for g in table.guards]


def test_check_from_a_saved_file_exit_status(tmp_path):
    table = bench_check.load()
    recs = _at_reference(table)
    # only an unguarded target missed: printed, exit 0; consistency checks apart
    ok = recs + [_rec("open_target_x", 9, 1),
                 _rec("udp_1hop_goodput_mac_vs_bound", 0.85, None, "higher", "fraction")]
    res = wren("bench", "--check", "--from", str(_saved(tmp_path, ok)), cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"guards: {len(table.guards)} of {len(table.guards)} hold" in res.stdout
    assert "open targets, missed (printed, not failed): 1\n  open_target_x: 9 bytes" in res.stdout
    records, cons = res.stdout.split("\nguards:")[0].split(
        "consistency checks, not set beside a paper")
    assert "udp_1hop_goodput_mac_vs_bound" in cons and "open_target_x" not in cons
    assert "udp_1hop_goodput_mac_vs_bound" not in records and "open_target_x" in records
    # a guarded miss
    miss = [dict(r) for r in recs]
    miss[0]["value"] = miss[0]["target"] * 2
    res = wren("bench", "--check", "--from", str(_saved(tmp_path, miss)), cwd=tmp_path)
    assert res.returncode == 1 and f"FAIL: {miss[0]['name']}" in res.stdout
    assert "misses its target" in res.stdout
    # within the target, drifted beyond the tolerance
    drift = [dict(r) for r in recs]
    g = table.guards[0]
    drift[0]["value"] = g.reference * (1 + 2 * g.tolerance + 0.01)
    drift[0]["target"] = g.reference * 10
    res = wren("bench", "--check", "--from", str(_saved(tmp_path, drift)), cwd=tmp_path)
    assert res.returncode == 1 and "a regression" in res.stdout
    # mistakes: one line each
    res = wren("bench", "--from", str(_saved(tmp_path, ok)), cwd=tmp_path)
    assert res.returncode == 2 and res.stderr == "wren: --from FILE only goes with --check\n"
    (tmp_path / "bad.json").write_text("{}")
    res = wren("bench", "--check", "--from", "bad.json", cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr == "wren: bad.json is not a list of ./wren bench records\n"


# ---- anchors ------------------------------------------------------------------

#: modules whose strings make records' anchors
ANCHOR_SOURCES = [ROOT / "python/wren" / p for p in ("bench.py", "bench_tcp.py", "size.py",
                                                      "energy.py", "cpu.py", "qemu_bench.py")] \
    + sorted((ROOT / "python/wren/experiments").glob("*.py"))

#: an earlier run typed in: "34,859 at 0205d43", "measured 2026-11-25",
#: "an earlier (ad hoc) run", "the 2,901 quoted before"
STALE = [re.compile(r"\bat [0-9a-f]{7,40}\b"),
         re.compile(r"\bmeasured\b[^.;]{0,60}\b20\d\d-\d\d-\d\d\b"),
         re.compile(r"\b(earlier|previous|last) (ad hoc )?runs?\b"),
         re.compile(r"\b(quoted|measured|reported) (before|earlier|previously)\b")]


def _strings(path):
    """Every string literal of @path, f-strings by their literal parts."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value
        elif isinstance(node, ast.JoinedStr):
            yield node.lineno, "".join(v.value for v in node.values
                                       if isinstance(v, ast.Constant))


def _wren_commit(token):
    res = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet",
                          f"{token}^{{commit}}"], capture_output=True, text=True)
    return res.returncode == 0


def stale_literals(paths, is_commit):
    found = []
    for path in paths:
        if not path.exists():
            continue
        for line, s in _strings(path):
            for rx in STALE:
                if m := rx.search(s):
                    found.append(f"{path.name}:{line}: {m.group(0)!r}")
            for tok in re.findall(r"\b[0-9a-f]{7,40}\b", s):
                if re.search(r"\d", tok) and re.search(r"[a-f]", tok) and is_commit(tok):
                    found.append(f"{path.name}:{line}: wren commit {tok}")
    return found


def test_no_anchor_quotes_an_earlier_wren_run(tmp_path):
    """An anchor states the paper's or peer's figure and the setup: no wren
    commit (a peer's, such as RIOT c8bd52f, names its version and stays),
    no "measured ... <date>", no earlier run's figure."""
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse"], capture_output=True).returncode:
        pytest.skip("not a git checkout: wren's commits cannot be told from peers'")
    assert stale_literals(ANCHOR_SOURCES, _wren_commit) == []
    # the check finds what it is for
    revs = subprocess.run(["git", "-C", str(ROOT), "rev-list", "--max-count=50", "HEAD"],
                          capture_output=True, text=True).stdout.split()
    head = next(r[:7] for r in revs if re.search(r"\d", r[:7]) and re.search(r"[a-f]", r[:7]))
    planted = tmp_path / "planted.py"
    planted.write_text(f'a = {{"anchor": f"GNRC: 24,199; wren {{x}} (wren {head})"}}\n'
                       'b = "34,859 at 0205d43"\n'
                       'c = "measured on the build machine 2026-11-25"\n'
                       'd = "an earlier ad hoc run: 20 s"\n'
                       'e = "RIOT c8bd52f on iotlab-m3"\n'
                       'f = "5,646 bytes (the 2,901 quoted before is a Cortex-M0+ figure)"\n')
    found = stale_literals([planted], _wren_commit)
    assert sorted({int(f.split(":")[1]) for f in found}) == [1, 2, 3, 4, 6], found


def test_the_test_runs_bench_guard_stage(monkeypatch, capsys):
    """./wren test's stage "bench guards" runs only the guards' benchmarks and
    fails on a guard's miss, not on an open target."""
    from wren import testrun
    ran = []
    value = {"v": 1000}

    def fake_bench():
        ran.append("fake")
        return [_rec("rom_x", value["v"], 1200), _rec("open_x", 9, 1)]

    monkeypatch.setitem(bench.BENCHES, "fake", fake_bench)
    monkeypatch.setitem(bench.BENCHES, "other", lambda: ran.append("other") or [])
    monkeypatch.setattr(bench_check, "load",
                        lambda: Table([Guard("rom_x", "fake", 1000, 0.02, "bytes")], {}))
    assert testrun.stage_bench_check() is True
    assert ran == ["fake"]
    assert "open_x: 9 bytes, target 1" in capsys.readouterr().out
    value["v"] = 1300
    assert testrun.stage_bench_check() is False
    assert "FAIL: rom_x: 1300 bytes misses its target 1200" in capsys.readouterr().out
