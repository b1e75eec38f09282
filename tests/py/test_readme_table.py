"""README.md's table of the papers' figures is generated (wren.reproduce.readme)
from docs/reproduce.json, each figure's last ./wren reproduce result."""
import argparse
import json

import pytest

from wren import reproduce
from wren.errors import UserError
from wren.reproduce import readme


def test_readme_table_is_the_rendering_of_the_kept_results():
    """README.md says what docs/reproduce.json holds: change either only
    through `./wren reproduce NAMES --readme` (or --readme --from REPORT)."""
    results = readme.load(readme.RESULTS)
    want = readme.render(results, reproduce.FIGURES)
    got = readme.section(readme.README.read_text())
    assert got == want, ("README.md's table differs from the rendering of docs/reproduce.json: "
                         "run ./wren reproduce --readme --from out/reproduce/report.json (or "
                         "re-run the figures with --readme)")
    # every figure the README shows has a kept result, with its run
    for f in reproduce.FIGURES:
        if f.readme:
            assert f.name in results, f.name
            assert {"commit", "date", "mode", "rows"} <= set(results[f.name])
    assert 5 <= got.count("\n| ") <= 16      # a handful of rows, one or two per figure


def _report(name="riot_fig8", rows=None, reason=None, commit="abc1234", mode="full"):
    rows = rows if rows is not None else [
        {"quantity": "q1", "unit": "x", "wren": 0.5, "paper_text": "< 0.667", "kind": "paper",
         "headline": False, "measured": "m1", "modelled": "", "differs": "d1"},
        {"quantity": "q2", "unit": "x", "wren": 0.9, "paper_text": "-", "kind": "consistency",
         "headline": False, "measured": "m2", "modelled": "o2", "differs": "d2"}]
    return {"commit": commit, "date": "2026-11-29 14:00 UTC", "mode": mode, "machine": "m",
            "figures": [{"name": name, "paper": "riot", "title": "Fig. 8: t",
                         "command": f"./wren reproduce {name}", "reason": reason,
                         "failed": False, "seconds": 1.0, "rows": rows}]}


def test_merge_replaces_a_figure_and_keeps_the_others():
    results = {"riot_fig4": {"old": True}, "riot_fig8": {"old": True}}
    assert readme.merge(results, _report()) == ["riot_fig8"]
    assert results["riot_fig4"] == {"old": True}
    assert results["riot_fig8"]["commit"] == "abc1234"
    assert results["riot_fig8"]["rows"][1]["modelled"] == "o2"
    # a figure that cannot run keeps its last result
    assert readme.merge(results, _report(reason="no valgrind", commit="def5678")) == []
    assert results["riot_fig8"]["commit"] == "abc1234"


def test_headline_rows_are_chosen_by_the_field():
    rows = _report()["figures"][0]["rows"]
    assert [r["quantity"] for r in readme.headlines(rows)] == ["q1"]   # the first paper row
    rows[0]["kind"] = "label"
    assert readme.headlines(rows) == []        # no paper row, none marked
    rows[1]["headline"] = True
    assert [r["quantity"] for r in readme.headlines(rows)] == ["q2"]


def test_rendering_shows_window_model_run_and_kind():
    results = {}
    readme.merge(results, _report())
    results["riot_fig8"]["rows"][1]["headline"] = True
    results["riot_fig8"]["rows"][0]["headline"] = True
    text = readme.render(results, reproduce.FIGURES)
    assert "| RIOT Fig. 8 | q1 (x) | < 0.667 | 0.500 | m1 | - | abc1234, 2026-11-29, full |" in text
    assert "| RIOT Fig. 8 | q2 (x), consistency check | - | 0.900 | m2 | o2 |" in text
    # a README figure without a result says how to make one
    assert "not run yet: `./wren reproduce riot_fig4 --readme`" in text


def test_reproduce_readme_from_a_report(tmp_path, monkeypatch, capsys):
    rep = tmp_path / "report.json"
    rep.write_text(json.dumps(_report()))
    md = tmp_path / "README.md"
    md.write_text(f"# x\n\nbefore\n{readme.BEGIN}\nold\n{readme.END}\nafter\n")
    monkeypatch.setattr(readme, "README", md)
    monkeypatch.setattr(readme, "RESULTS", tmp_path / "docs" / "reproduce.json")
    ns = argparse.Namespace(names=[], readme=True, from_=str(rep), quick=False, out=None)
    assert reproduce.main(ns) == 0
    assert "riot_fig8 updated" in capsys.readouterr().out
    text = md.read_text()
    assert text.startswith("# x\n\nbefore\n") and text.endswith("\nafter\n")
    assert "old" not in text and "| RIOT Fig. 8 | q1 (x) |" in text
    kept = readme.load(tmp_path / "docs" / "reproduce.json")
    assert list(kept) == ["riot_fig8"]
    assert readme.section(text) == readme.render(kept, reproduce.FIGURES)
    # a README without the markers: one clear line, nothing written
    md.write_text("# no table\n")
    with pytest.raises(UserError, match="no generated table"):
        reproduce.main(ns)
    with pytest.raises(UserError, match="only goes with --readme"):
        reproduce.main(argparse.Namespace(names=[], readme=False, from_=str(rep), quick=False,
                                          out=None))


def test_a_figure_without_a_headline_row_says_so():
    results = {}
    readme.merge(results, _report(rows=[
        {"quantity": "q", "unit": "x", "wren": 1.0, "paper_text": "-", "kind": "label",
         "headline": False, "measured": "m", "modelled": "", "differs": "d"}]))
    text = readme.render(results, reproduce.FIGURES)
    assert "| RIOT Fig. 8 | Fig. 8: single-hop radio goodput vs the PHY bound | - | no headline " \
           "row" in text
