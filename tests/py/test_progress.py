"""Progress bars (wren.progress): drawn on a terminal only (or when
WREN_PROGRESS=1 forces them), with simulated time, events per second and an
ETA; nothing on stderr otherwise; the same results either way; simulations
inside a TaskBar report to it through Sim.run."""
import json
import os
import subprocess
import sys

from conftest import ROOT
from wren import progress
from wren.lib import Sim


def sim_cli(tmp_path, name, env_progress):
    out = tmp_path / f"{name}.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    env.pop("WREN_PROGRESS", None)
    if env_progress is not None:
        env["WREN_PROGRESS"] = env_progress
    res = subprocess.run([sys.executable, "-m", "wren.cli", "sim",
                          str(ROOT / "scenarios/rpl_grid.toml"), "--duration", "30",
                          "--json", str(out)], capture_output=True, text=True, cwd=ROOT, env=env)
    assert res.returncode == 0, res.stderr
    return res, json.loads(out.read_text())


def test_quiet_without_a_terminal_drawn_when_forced_same_results(tmp_path):
    quiet, r0 = sim_cli(tmp_path, "quiet", None)       # stderr is a pipe here
    # (only the bar is looked for: a sanitizer runtime may warn on stderr)
    assert "rpl_grid:" not in quiet.stderr and "ev/s" not in quiet.stderr, quiet.stderr
    shown, r1 = sim_cli(tmp_path, "shown", "1")
    assert "rpl_grid:" in shown.stderr and "ev/s" in shown.stderr
    assert "sim 30.0/30 s" in shown.stderr and "x real time" in shown.stderr
    assert "<" in shown.stderr                           # [elapsed<remaining]: the ETA
    for r in (r0, r1):
        r.pop("wall_s")
    assert r0 == r1


def test_enabled_follows_the_terminal(monkeypatch):
    monkeypatch.delenv("WREN_PROGRESS", raising=False)
    master, slave = os.openpty()
    try:
        with os.fdopen(slave, "w", closefd=False) as tty, open(os.devnull, "w") as null:
            assert progress.enabled(tty) and not progress.enabled(null)
            monkeypatch.setenv("WREN_PROGRESS", "0")
            assert not progress.enabled(tty)
            monkeypatch.setenv("WREN_PROGRESS", "1")
            assert progress.enabled(null)
    finally:
        os.close(master)
        os.close(slave)


def test_slices_end_exactly_and_cover_the_run():
    s = progress.slices(0.0, 30.0)
    assert len(s) == 100 and s[-1] == 30.0 and s == sorted(s)
    short = progress.slices(0.0, 0.05)                   # steps of at least 1 ms
    assert len(short) == 50 and short[-1] == 0.05
    assert progress.slices(2.0, 2.0) == []


def test_sims_report_to_the_open_task_bar():
    with progress.TaskBar(2, "t", show=False) as bar:
        with Sim(1) as s:
            a, b = s.add_node(0, 0), s.add_node(10, 0)
            s.set_link(a, b)
            s.rawgen(a, b, size=30, interval_s=0.1)
            s.rawgen(b, -1, interval_s=0.0)
            s.run(2.0)
            s.run(5.0)
            assert bar.sim_s == 5.0 and bar.events == s.events > 0
        bar.advance()
    with Sim(1) as s:     # no bar open: nothing to report to, nothing fails
        s.add_node()
        s.run(1.0)
    assert bar.sim_s == 5.0
