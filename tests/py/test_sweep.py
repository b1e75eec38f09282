"""./wren sweep: a grid of runs merged into one table with mean and 95 % CI
(Student t) per cell and metric; a failed run reported with its seed and
error; a sweep interrupted halfway resumes and ends with the same table; the
same sweep on a local Ray instance (`ray start --head` inside the test)
gives the identical table (WREN_TEST_RAY=1, which ./wren test's Python stage
sets; ~30 s); every mistake one line and exit 2, nothing
written."""
import csv
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT
from wren import cli, sweep

# four nodes, each sending to node 0: the delivery ratio depends on the
# links' PRR and the traffic; a run is a few tens of milliseconds
TINY = """\
name = "tiny"
duration = 1.0
[grid]
rows = 2
cols = 2
spacing = 10.0
[radio]
range = 15.0
prr = 0.9
[[apps]]
nodes = [1, 2, 3]
dst = 0
size = 30
interval = 0.1
[[apps]]
nodes = 0
interval = 0.0   # receives only
"""
# the grid: 2 parameters x 3 values x 5 seeds
# (and a counter's total as a metric of its own)
GRID = ["--set", "radio.prr=0.6,0.8,1.0", "--set", "apps.0.interval=0.05,0.1,0.2",
        "--metric", "mac.tx_retries"]
SEEDS = 5
RUNS = 3 * 3 * SEEDS


def sweep_cmd(scn, out, *extra):
    return [sys.executable, "-m", "wren.cli", "sweep", str(scn), *GRID, "--seeds", str(SEEDS),
            "--out", str(out), *extra]


def run_cli(cmd, **kw):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "WREN_PROGRESS": "0"}
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, **kw)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    d = tmp_path_factory.mktemp("sweep")
    scn = d / "tiny.toml"
    scn.write_text(TINY)
    return scn


@pytest.fixture(scope="module")
def local(tiny):
    """The whole grid in two local processes."""
    out = tiny.parent / "local"
    res = run_cli(sweep_cmd(tiny, out, "--jobs", "2"))
    assert res.returncode == 0, res.stderr
    return out, res


def test_t_quantiles_match_the_tables():
    # two-sided 95 %: t(0.975, df) from any statistics table
    for df, t in ((1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (29, 2.0452),
                  (120, 1.9799)):
        assert sweep.t_quantile(0.975, df) == pytest.approx(t, abs=5e-4)
    r = sweep.mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])
    half = 2.7764 * math.sqrt(2.5) / math.sqrt(5)
    assert r["mean"] == 3.0 and r["ci95_low"] == pytest.approx(3 - half, abs=1e-3)
    assert sweep.mean_ci([7.0])["ci95_low"] is None


def test_sweep_local_table_mean_and_ci(local):
    out, res = local
    runs = read_csv(out / "runs.csv")
    assert len(runs) == RUNS and all(r["status"] == "ok" for r in runs)
    assert len(list((out / "runs").glob("*.json"))) == RUNS
    rows = read_csv(out / "results.csv")
    assert len(rows) == 9 * (len(sweep.METRICS) + 1)
    # each cell's figures are those of its five runs
    for row in rows:
        cell = [r for r in runs if r["radio.prr"] == row["radio.prr"]
                and r["apps.0.interval"] == row["apps.0.interval"]]
        xs = [float(r[row["metric"]]) for r in cell if r[row["metric"]] != ""]
        # no [rpl]: no formation time (empty, not 0)
        assert int(row["n"]) == len(xs) == (0 if row["metric"] == "formed_s" else SEEDS)
        if not xs:
            assert row["mean"] == row["ci95_low"] == ""
            continue
        want = sweep.mean_ci(xs)
        assert float(row["mean"]) == pytest.approx(want["mean"])
        if want["std"]:
            assert float(row["ci95_low"]) == pytest.approx(want["ci95_low"])
            assert float(row["ci95_low"]) < float(row["mean"]) < float(row["ci95_high"])
        assert row["failed"] == ""
    # the parameters did something: lossier links deliver less
    tx = {(r["radio.prr"], r["apps.0.interval"]): float(r["mean"]) for r in rows
          if r["metric"] == "tx_frames"}
    assert tx[("0.6", "0.1")] > tx[("1.0", "0.1")]   # more retries on worse links
    deliv = {(r["radio.prr"], r["apps.0.interval"]): float(r["mean"]) for r in rows
             if r["metric"] == "app_delivery"}
    assert 0 < deliv[("0.6", "0.1")] < deliv[("1.0", "0.1")] <= 1
    sent = {r["apps.0.interval"]: float(r["mean"]) for r in rows
            if r["metric"] == "app_sent" and r["radio.prr"] == "1.0"}
    assert sent["0.05"] > sent["0.1"] > sent["0.2"]
    # --metric: the counter's total over the nodes, from each run's file
    recs = [json.loads(f.read_text()) for f in (out / "runs").glob("*.json")]
    for row in (r for r in rows if r["metric"] == "mac.tx_retries"):
        xs = [float(rec["totals"]["mac.tx_retries"]) for rec in recs
              if dict(rec["params"]) == {"radio.prr": float(row["radio.prr"]),
                                         "apps.0.interval": float(row["apps.0.interval"])}]
        assert len(xs) == SEEDS and float(row["mean"]) == pytest.approx(sum(xs) / SEEDS)
    # Parquet holds the same table
    import pyarrow.parquet as pq
    t = pq.read_table(out / "results.parquet").to_pylist()
    assert len(t) == len(rows)
    assert t[0]["metric"] == rows[0]["metric"]
    assert t[0]["mean"] == pytest.approx(float(rows[0]["mean"]))
    assert "45 runs" in res.stdout and "0 already done" in res.stdout


def test_sweep_resumes_after_interruption(tiny, local):
    """Interrupted (Ctrl-C) after a few runs: what finished is on disk, whole;
    the same command runs only the rest, and the table is the uninterrupted
    sweep's."""
    out = tiny.parent / "resumed"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python"), "WREN_PROGRESS": "0"}
    p = subprocess.Popen(sweep_cmd(tiny, out, "--jobs", "1"), cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while len(list((out / "runs").glob("*.json"))) < 3 and p.poll() is None:
            assert time.monotonic() < deadline, "no run finished"
            time.sleep(0.01)
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 130, stderr
    done = sorted(x.name for x in (out / "runs").glob("*.json"))
    assert 3 <= len(done) < RUNS, len(done)
    assert "the same command resumes it" in stderr
    assert not list((out / "runs").glob("*.tmp*"))         # nothing half-written
    for f in (out / "runs").glob("*.json"):
        assert json.loads(f.read_text())["status"] == "ok"
    before = {f.name: f.stat().st_mtime_ns for f in (out / "runs").glob("*.json")}
    res = run_cli(sweep_cmd(tiny, out, "--jobs", "2"))
    assert res.returncode == 0, res.stderr
    assert f"{len(done)} already done" in res.stdout and f"{RUNS - len(done)} to run" in res.stdout
    for name, mtime in before.items():                   # the finished runs were not redone
        assert (out / "runs" / name).stat().st_mtime_ns == mtime
    assert read_csv(out / "results.csv") == read_csv(local[0] / "results.csv")


def test_sweep_failed_run_reported_with_seed_and_error(tiny):
    """macMaxCSMABackoffs 9 passes the scenario's range check (0..255) but
    the MAC refuses it (802.15.4: at most 5): each such run fails, and is
    reported, not dropped; the other cell is in the table."""
    out = tiny.parent / "failing"
    res = run_cli([sys.executable, "-m", "wren.cli", "sweep", str(tiny), "--set",
                   "mac.max_backoffs=4,9", "--seeds", "2", "--out", str(out)])
    assert res.returncode == 1, res.stderr
    for seed in (1, 2):
        assert (f"failed: mac.max_backoffs=9 seed {seed}: ScenarioError: MAC parameters"
                in res.stderr), res.stderr
    assert "2 of 4 runs failed" in res.stderr
    rows = read_csv(out / "results.csv")
    bad = [r for r in rows if r["mac.max_backoffs"] == "9"]
    assert bad and all(r["n"] == "0" and r["failed"] == "1 2" and r["mean"] == "" for r in bad)
    good = [r for r in rows if r["mac.max_backoffs"] == "4"]
    assert all(r["n"] == "2" and r["failed"] == "" for r in good if r["metric"] != "formed_s")
    runs = read_csv(out / "runs.csv")
    errs = [r for r in runs if r["status"] == "error"]
    assert sorted(r["seed"] for r in errs) == ["1", "2"]
    assert all("netopt set failed" in r["error"] for r in errs)


@pytest.mark.parametrize("args,msg", [
    (["--set", "radio.pr=0.5"],
     "--set radio.pr=0.5: unknown key 'pr' in [radio] (did you mean 'prr'?)"),
    (["--set", "radio.prr=0.5,high"],
     "--set radio.prr=high: 'prr' in [radio] must be a number, not the string \"high\""),
    (["--set", "radio.prr=1.5"],
     "--set radio.prr=1.5: 'prr' in [radio] must be between 0 and 1"),
    (["--set", "mac.retries=2.5"],
     "--set mac.retries=2.5: 'retries' in [mac] must be an integer"),
    (["--set", "apps.size=10"],
     "--set apps.size: [[apps]] is an array of tables: name an entry by its index, "
     "e.g. apps.0.size"),
    (["--set", "apps.3.size=10"], "--set apps.3.size: [[apps]] has entries 0..1, not 3"),
    (["--set", "seed=1,2"], "--set seed: the seeds of a sweep are --seeds N"),
    (["--set", "radio.prr"], "--set radio.prr: write KEY=VALUE"),
    (["--set", "radio.prr=0.5", "--metric", "mac.tx_retry"],
     "--metric mac.tx_retry: no such counter (did you mean 'mac.tx_retries'?)"),
    ([], "no --set KEY=V1,V2.."),
])
def test_sweep_bad_input_one_line_exit_2(tiny, tmp_path, capsys, args, msg):
    out = tmp_path / "never"
    assert cli.main(["sweep", str(tiny), "--seeds", "2", "--out", str(out), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("wren: ") and msg in err, err
    assert not out.exists()


def test_sweep_unreachable_ray_address_one_line(tiny, tmp_path, capsys):
    out = tmp_path / "never"
    # port 1 on the loopback: nothing listens there
    assert cli.main(["sweep", str(tiny), "--set", "radio.prr=0.5", "--seeds", "1",
                     "--out", str(out), "--ray", "127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wren: --ray 127.0.0.1:1: cannot reach a Ray cluster") and \
        err.count("\n") == 1, err
    assert not out.exists()


RAY = Path(sys.executable).parent / "ray"


@pytest.mark.skipif(os.environ.get("WREN_TEST_RAY") != "1" or bool(os.environ.get("WREN_SANITIZED")),
                    reason="WREN_TEST_RAY=1 runs it (./wren test's Python stage sets it: "
                           "starting Ray and its workers takes ~30 s of a 2-core machine; never "
                           "under the sanitizers, whose runtime Ray's processes would inherit)")
def test_sweep_on_local_ray_gives_the_same_table(tiny, local, tmp_path):
    """`ray start --head` (2 CPUs, no dashboard), the same sweep with --ray
    auto: the identical table; the cluster is stopped afterwards."""
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    start = subprocess.run([str(RAY), "start", "--head", "--num-cpus", "2", "--port", "0",
                            "--include-dashboard", "false", "--disable-usage-stats"],
                           capture_output=True, text=True, env=env, timeout=300)
    try:
        assert start.returncode == 0, start.stdout + start.stderr
        out = tmp_path / "ray"
        res = run_cli(sweep_cmd(tiny, out, "--ray", "auto"), timeout=600)
        assert res.returncode == 0, res.stderr
        assert "on Ray cluster auto" in res.stdout
        assert read_csv(out / "results.csv") == read_csv(local[0] / "results.csv")
        runs = read_csv(out / "runs.csv")
        assert len(runs) == RUNS and all(r["status"] == "ok" for r in runs)
    finally:
        subprocess.run([str(RAY), "stop", "--force"], capture_output=True, env=env, timeout=120)
