"""./wren reproduce (wren.reproduce) and ./wren sim --plot (wren.plot).

Only cheap figures run here (the simulated ones take well under a second
each); the callgrind and Cortex-M3 ones belong to ./wren reproduce itself.
"""
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path


from wren import reproduce
from wren.reproduce import Figure, Outcome, Row

ROOT = Path(__file__).resolve().parents[2]
CHEAP = ["riot_fig8", "riot_fig13", "tcp_sec72", "tsch_fig4"]  # in the list's order


def wren(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    return subprocess.run([sys.executable, "-m", "wren.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def _numbers(quote: str) -> set[float]:
    """Every number a quote writes, read the English (10,000; 64.1) and the
    German way (0,227; 15,5)."""
    out = set()
    for tok in re.findall(r"\d[\d.,]*", quote):
        tok = tok.rstrip(".,")
        for t in (tok.replace(",", ""), tok.replace(".", "").replace(",", ".")):
            try:
                out.add(float(t))
            except ValueError:
                pass
    return out


def test_every_paper_value_is_cited():
    vals = reproduce.paper_values()
    papers = reproduce.papers()
    assert len(vals) >= 40
    texts = {}
    pdir = reproduce.papers_dir()
    for key, v in vals.items():
        assert v.paper in papers, key
        assert v.where and v.quote and v.unit, key
        assert v.bound in (None, "upper", "lower"), key
        if v.value is not None and key != "riot.fig8.mac_fraction":
            assert v.value in _numbers(v.quote), f"{key}: {v.value} is not in {v.quote!r}"
        if pdir is not None:
            if v.file not in texts:
                texts[v.file] = reproduce.normalize((pdir / v.file).read_text())
            assert reproduce.normalize(v.quote) in texts[v.file], f"{key}: quote not in {v.file}"
    # "below two third": the one number the paper writes in words
    assert "two third" in vals["riot.fig8.mac_fraction"].quote


def test_every_figure_runs_or_says_why():
    names = [f.name for f in reproduce.FIGURES]
    assert len(names) == len(set(names))
    for want in ("riot_fig4", "riot_fig5", "riot_fig8", "riot_table3", "riot_fig10",
                 "riot_fig12", "riot_fig13", "riot_fig14", "tcp_fig4", "tcp_fig5", "tcp_fig6",
                 "tcp_sec72", "tcp_eq2", "tcp_fig9", "tsch_fig4", "tsch_fig5", "de_fig2",
                 "de_fig3"):
        assert want in names
    for f in reproduce.FIGURES:
        assert (f.run is None) == bool(f.reason), f.name
        for k in f.cited:
            assert k in reproduce.paper_values(), (f.name, k)
    assert "Contiki" in reproduce.by_name()["riot_fig13"].reason
    assert reproduce.by_name()["riot_fig14"].run is not None   # the NDN stack (issue 26)
    if reproduce._tsch_available():
        assert reproduce.by_name()["tsch_fig5"].run is not None
    else:
        assert "TSCH is not built" in reproduce.by_name()["tsch_fig5"].reason


def test_a_figure_that_measures_nothing_gets_a_reason(tmp_path):
    fig = Figure("empty", "riot", "nothing", run=lambda quick: Outcome(
        rows=[Row("x", "us", None, reproduce.pv("riot.fig5.udp_us"))]))
    out = reproduce.run_figure(fig, True, tmp_path)
    assert out.reason and "measured nothing" in out.reason
    assert not list(tmp_path.iterdir())   # no plot of nothing
    reproduce.write_report([(fig, out)], True, tmp_path, "test")
    md = (tmp_path / "report.md").read_text()
    assert "| empty | nothing | - | cannot run: it ran but measured nothing" in md


def test_cheap_figures_end_to_end(tmp_path):
    res = wren("reproduce", *CHEAP, "--quick", "--out", "rep", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    # not a terminal: one line per figure, then where the report is
    lines = res.stdout.splitlines()
    assert [ln.split(":")[0] for ln in lines[:len(CHEAP)]] == CHEAP
    rep = tmp_path / "rep"
    data = json.loads((rep / "report.json").read_text())
    assert [f["name"] for f in data["figures"]] == CHEAP
    figs = {f["name"]: f for f in data["figures"]}
    md = (rep / "report.md").read_text()
    html = (rep / "report.html").read_text()
    for name, f in figs.items():
        assert f["command"] == f"./wren reproduce {name} --quick"
        assert f"`{f['command']}`" in md and name in html
        if f["reason"]:
            assert f["reason"] in md
            assert not (rep / f"{name}.png").exists()
            continue
        assert (rep / f"{name}.png").stat().st_size > 5000
        assert (rep / f"{name}.svg").read_text().lstrip().startswith("<?xml")
        assert f.get("rows") and all(r["wren"] is not None for r in f["rows"])
        for r in f["rows"]:
            if r["paper"] is not None and r["kind"] == "paper":
                assert math.isclose(r["ratio"], r["wren"] / r["paper"])
            elif r["kind"] != "paper":   # a consistency check or context claims no ratio
                assert r["ratio"] is None
            assert r["cite"] and r["cite"] in md
    # the radio figure: the paper's 2/3 beside a fraction of the bound
    r8 = figs["riot_fig8"]["rows"]
    assert r8[0]["paper_text"] == "< 0.667" and 0.3 < r8[0]["wren"] < 1.0
    assert 0.9 < r8[1]["wren"] <= 1.0
    # the paper's four hops, each beside wren's
    hops = figs["tcp_sec72"]["rows"][:4]  # (then each over the paper's own bound)
    assert [r["paper"] for r in hops] == [64.1, 28.3, 19.5, 17.5]
    assert hops[0]["wren"] > hops[1]["wren"] > hops[2]["wren"] > hops[3]["wren"] > 0
    assert "no Contiki peer" in figs["riot_fig13"]["reason"]
    # the HTML page is self-contained: every plot is in it
    # the 6TiSCH paper's PDR: TSCH and, as a comparison, CSMA beside the paper's "above 99%"
    if reproduce._tsch_available():
        t4 = figs["tsch_fig4"]["rows"]  # TSCH's three windows, Trickle's three, CSMA
        assert t4[0]["quantity"].startswith("TSCH") and t4[0]["paper_text"] == "> 99.0"
        assert "from each node's join" in t4[0]["quantity"]
        assert "Trickle DIOs" in t4[3]["quantity"] and "not Table I" in t4[3]["note"]
        assert t4[-1]["quantity"].startswith("CSMA") and 0 < t4[-1]["wren"] <= 100
        assert "a comparison" in t4[-1]["note"]
    else:
        assert "TSCH is not built" in figs["tsch_fig4"]["reason"]
    assert html.count("data:image/png;base64,") == 2 + reproduce._tsch_available()
    assert "<img" in html and "src='riot_fig8.png'" not in html


def test_unknown_figure_is_one_line_and_exit_2(tmp_path):
    res = wren("reproduce", "riot_fig99", "--out", "rep", cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr.startswith("wren: unknown figure 'riot_fig99' (did you mean 'riot_fig")
    assert res.stderr.count("\n") == 1 and res.stdout == ""
    assert not (tmp_path / "rep").exists()
    (tmp_path / "file").write_text("")
    res = wren("reproduce", "tsch_fig4", "--out", "file/rep", cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr == "wren: cannot write the report to file/rep: Not a directory\n"


RPL_LINE = """\
name = "line"
duration = 40.0
[[nodes]]
x = 0.0
[[nodes]]
x = 10.0
[[nodes]]
x = 20.0
[[nodes]]
x = 20.0
y = 10.0
[radio]
range = 12.0
prr = 0.9
[rpl]
root = 0
[[apps]]
nodes = [3]
dst = 2
size = 30
interval = 2.0
start = 20.0
[[apps]]
nodes = [2]
interval = 0.0
"""


def test_sim_plot_draws_the_dodag(tmp_path):
    (tmp_path / "line.toml").write_text(RPL_LINE)
    res = wren("sim", "line.toml", "--plot", "pic.png", "--json", "r.json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "picture: pic.png" in res.stdout
    png = (tmp_path / "pic.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000
    r = json.loads((tmp_path / "r.json").read_text())
    assert r["positions"][3] == [20.0, 10.0, 0.0]
    # the range model's links: neighbours 10 m apart, both ways, PRR 0.9
    assert sorted((a, b) for a, b, _ in r["links"]) == [(0, 1), (1, 0), (1, 2), (2, 1),
                                                         (2, 3), (3, 2)]
    assert {prr for _, _, prr in r["links"]} == {0.9}
    # the DODAG the picture draws: a line up to the root
    assert r["rpl_roots"] == [0]
    assert r["rpl_parents"] == {"0": None, "1": 0, "2": 1, "3": 2}


def test_sim_plot_without_rpl_and_bad_name(tmp_path):
    from wren import plot
    result = {"scenario": "x", "positions": [[0, 0, 0]] * 3, "links": [[0, 1, 1.0], [1, 2, 0.5]],
              "nodes": [{"id": i, "counters": {"app.sent": i, "radio.time_listen_us": 5,
                                               "radio.time_off_us": 5}} for i in range(3)]}
    # no distinct positions: networkx lays the links out
    assert plot.topology(result, tmp_path / "t.svg") == [tmp_path / "t.svg"]
    assert (tmp_path / "t.svg").read_text().lstrip().startswith("<?xml")
    (tmp_path / "line.toml").write_text(RPL_LINE)
    res = wren("sim", "line.toml", "--plot", "pic.gif", "--json", "r.json", cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr == ("wren: cannot draw pic.gif: the picture's file name must end in "
                          ".png, .svg, .pdf\n")
    assert not (tmp_path / "r.json").exists()


def test_a_failing_figure_fails_the_command(tmp_path, monkeypatch, capsys):
    import argparse
    from wren import build
    fig = Figure("boom", "riot", "a figure whose code fails", run=lambda quick: 1 // 0)
    monkeypatch.setattr(reproduce, "FIGURES", [fig])
    monkeypatch.setattr(build, "host", lambda: None)
    rc = reproduce.main(argparse.Namespace(names=["boom"], quick=True, out=str(tmp_path)))
    assert rc == 1
    out = capsys.readouterr().out
    assert "boom: cannot run (failed to run: ZeroDivisionError" in out
    assert "failed: boom (the report says why)" in out
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["figures"][0]["failed"] is True


def test_every_row_with_a_wren_value_states_its_basis(tmp_path):
    """Issue 27: every row says what is measured (and on what), what is
    modelled and what differs from the paper's setup. The cheap figures here;
    ./wren test's reproduce stage checks every figure of `reproduce all
    --quick` the same way (reproduce.unstated)."""
    res = wren("reproduce", *CHEAP, "--quick", "--out", "rep", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert any(r["wren"] is not None for f in data["figures"] for r in f["rows"])
    assert reproduce.unstated(data) == []
    md = (tmp_path / "rep" / "report.md").read_text()
    for f in data["figures"]:
        for r in f["rows"]:
            if r["wren"] is not None:
                assert r["kind"] in ("paper", "consistency", "label")
                assert r["basis"].startswith(f"measured: {r['measured']}; modelled: ")
                assert r["basis"] in md
                if r["kind"] != "paper":
                    assert r["ratio"] is None


def _png_height(path):
    return int.from_bytes(path.read_bytes()[20:24], "big")


def test_row_statements_in_the_report_and_under_the_plot(tmp_path):
    from wren.reproduce import Panel, Series
    rows = [Row("goodput", "kbit/s", 80.0, reproduce.pv("riot.fig8.mac_fraction"),
                measured="simulated 802.15.4, 1,232-byte datagrams, 10 s",
                differs="no interference on the simulated line"),
            Row("goodput / own bound", "fraction", 0.9, None, measured="the same run",
                modelled="the simulator's airtime bound", differs="a check of the model",
                kind="consistency", paper_value=0.5),
            Row("unstated", "x", 1.0, None)]
    panel = Panel("p", "x", "y", [Series("wren", [1, 2], [1.0, 2.0])])
    fig = Figure("basis", "riot", "Fig. 8: t", run=lambda quick: Outcome(rows=rows,
                                                                          panels=[panel]))
    out = reproduce.run_figure(fig, True, tmp_path / "with")
    lines = reproduce.statements(out)
    assert lines[0] == ("goodput: measured: simulated 802.15.4, 1,232-byte datagrams, 10 s; "
                        "modelled: nothing; differs: no interference on the simulated line")
    assert lines[1].startswith("[consistency check] goodput / own bound: measured: the same")
    assert lines[2] == "unstated: (no statement of what is measured)"
    reproduce.write_report([(fig, out)], True, tmp_path / "with", "test")
    data = json.loads((tmp_path / "with" / "report.json").read_text())
    assert reproduce.unstated(data) == ["basis: unstated"]
    r1 = data["figures"][0]["rows"][1]
    assert r1["kind"] == "consistency" and r1["paper"] == 0.5 and r1["ratio"] is None
    md = (tmp_path / "with" / "report.md").read_text()
    assert "| basis | goodput / own bound (consistency check) | - [fraction] | 0.900 | - |" in md
    assert ("- **goodput / own bound (consistency check)**: measured: the same run; modelled: "
            "the simulator's airtime bound; differs: a check of the model") in md
    html = (tmp_path / "with" / "report.html").read_text()
    assert "<b>goodput</b>: measured: simulated 802.15.4" in html
    # the caption makes the picture taller than the same panels without it
    bare = Figure("basis", "riot", "Fig. 8: t",
                  run=lambda quick: Outcome(rows=[Row("g", "x", 1.0, None)], panels=[panel]))
    reproduce.run_figure(bare, True, tmp_path / "without")
    assert _png_height(tmp_path / "with" / "basis.png") > \
        _png_height(tmp_path / "without" / "basis.png") + 20


def test_the_test_runs_reproduce_stage_fails_on_a_row_without_its_basis(tmp_path, monkeypatch,
                                                                           capsys):
    from wren import paths, testrun
    rows = [Row("stated", "x", 1.0, None, measured="m", differs="d")]

    def fake_main(args):
        fig = Figure("fake", "riot", "Fig. 1: t", run=lambda quick: Outcome(rows=list(rows)))
        d = paths.OUT / "reproduce"
        reproduce.write_report([(fig, reproduce.run_figure(fig, True, d))], True, d, "fake")
        return 0

    monkeypatch.setattr(paths, "OUT", tmp_path)
    monkeypatch.setattr(reproduce, "main", fake_main)
    assert testrun.stage_reproduce() is True
    rows.append(Row("unstated", "x", 2.0, None, measured="m"))
    assert testrun.stage_reproduce() is False
    assert ("FAIL: reproduce row without its basis (measured, differs): fake: unstated"
            in capsys.readouterr().out)
