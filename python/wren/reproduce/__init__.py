"""./wren reproduce [NAME|all]: the papers' figures, re-run.

Every figure and table of the papers in ../shared/papers/ that a simulation
or a benchmark can reproduce is a Figure here. Running one measures wren
with the benchmarks' own functions (wren.bench, wren.size, wren.scenario,
wren.energy: nothing is measured twice in two ways) and sets the result
beside the paper's figure. The papers' numbers are the only ones not
measured, and they live in one file, data/paper_values.toml, each with its
page (section, figure or table) and a quote holding it. A figure that
cannot run says why (no TSCH yet, no Contiki peer, ...).

Per figure the command writes NAME.png and NAME.svg (the paper's values
drawn beside wren's), and for all of them one report, report.md and
report.html (self-contained: the plots are embedded), plus report.json
(the same rows as data): figure, quantity, paper value, wren value, ratio
and the command that reproduces it.

Where a paper measured CPU time on its iotlab-m3 (Cortex-M3, 72 MHz),
wren counts Cortex-M3 instructions under qemu at each payload size
(wren.qemu_bench.udp) and turns them into time by the project's one cycle
model (wren.cpu: CPI and its band at the paper's clock), stated beside every
such row (CPU_MODEL).

Every row states its basis in one line, "measured: ...; modelled: ...;
differs: ..." (Row.measured, .modelled, .differs), shown in the report and
under the figure's plot; a row whose value and bound come from the same
model is a consistency check (Row.kind) and claims no ratio. With --readme
each figure's result is kept in docs/reproduce.json and README.md's table
is rendered from it (readme.py).

The package: core (the papers' values, Row/Series/Panel/Outcome/Figure, the
shared measurements), one module per kind of figure (cpu_time, whole_node,
tcp, coap_vs_tcp, tsch), report (plots and the report files), readme (the
README's table), and here the list of figures and the command.
"""
import argparse
import difflib
import json
from collections.abc import Sequence
from contextlib import nullcontext, redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

from .. import paths
from ..errors import UserError
# the names tests and other modules use, re-exported
from .core import (CPU_MODEL, Figure, Outcome, Panel, PaperValue, Row, Series, fmt,
                   normalize, paper_number, paper_values, papers, papers_dir, pv)
from .coap_vs_tcp import _fig9_available, tcp_fig9
from .hetero import riot_fig1
from .cpu_time import de_fig2, de_fig3, riot_fig4, riot_fig5, riot_fig6, riot_fig9
from .icn import riot_fig14, riot_fig15
from . import readme
from .report import plot, run_figure, statements, unstated, write_report
from .tcp import riot_fig8, tcp_eq2, tcp_fig4, tcp_fig5, tcp_fig6, tcp_sec72
from .tsch import _tsch_available, tsch_fig4, tsch_fig5
from .whole_node import de_fig4, riot_fig10, riot_fig12, riot_table3

# ---- the list ------------------------------------------------------------------

FIGURES: list[Figure] = [
    Figure("riot_fig1", "riot", "Fig. 1: a router across 802.15.4, LoRa and Ethernet, loss vs "
           "rate", riot_fig1),
    Figure("riot_fig4", "riot", "Fig. 4: UDP goodput vs payload, IP loopback and L2 reflector",
           riot_fig4, readme=True),
    Figure("riot_fig5", "riot", "Fig. 5: processing time and rate per layer", riot_fig5,
           readme=True),
    Figure("riot_fig6", "riot", "Fig. 6: packets per second on a PC (RIOT native, Linux)",
           riot_fig6),
    Figure("riot_fig8", "riot", "Fig. 8: single-hop radio goodput vs the PHY bound", riot_fig8,
           readme=True),
    Figure("riot_fig9", "riot", "Fig. 9: the radio against the stack, per packet", riot_fig9),
    Figure("riot_table3", "riot", "Table 3: ROM and RAM per configuration", riot_table3,
           readme=True),
    Figure("riot_fig10", "riot", "Fig. 10: ROM and RAM of the stack", riot_fig10),
    Figure("riot_fig12", "riot", "Fig. 12: energy per packet, 1 packet/s", riot_fig12,
           readme=True),
    Figure("riot_fig13", "riot", "Fig. 13: device-to-device travel times, RIOT vs Contiki",
           reason="the figure sets RIOT beside Contiki's uIP on the same boards: wren has no "
                  "Contiki peer, and the paper gives only the relative difference",
           cited=("riot.fig13.contiki_text",)),
    Figure("riot_fig14", "riot", "Fig. 14: CCN-lite (ICN) stack size beside GNRC",
           riot_fig14),
    Figure("riot_fig15", "riot", "Fig. 15: CCN-lite (ICN) processing time per request",
           riot_fig15),
    Figure("tcp_fig4", "tcp", "Fig. 4: goodput vs MSS, one hop", tcp_fig4),
    Figure("tcp_fig5", "tcp", "Fig. 5: goodput vs window (buffer) size, one hop", tcp_fig5),
    Figure("tcp_fig6", "tcp", "Fig. 6: goodput and segment loss vs link retry delay", tcp_fig6),
    Figure("tcp_sec72", "tcp", "Section 7.2: goodput over 1-4 hops", tcp_sec72,
           readme=True),
    Figure("tcp_eq2", "tcp", "Eq. 2: the goodput model against measurements", tcp_eq2),
    Figure("tcp_fig9", "tcp", "Fig. 9: TCP vs CoAP under injected loss",
           **({"run": tcp_fig9} if _fig9_available() else  # type: ignore[arg-type]
              {"reason": "pending: the TCP-vs-CoAP experiment (helper fig9, "
                         "python/wren/experiments/coap_vs_tcp.py) has not landed",
                         "cited": ("tcp.fig9.reliability",)}),
           readme=True),
    Figure("tsch_fig4", "tsch", "Fig. 4: end-to-end PDR in 30-node 6TiSCH networks",
           **({"run": tsch_fig4} if _tsch_available() else  # type: ignore[arg-type]
              {"reason": "TSCH is not built yet: wren's only 802.15.4 MAC is unslotted CSMA-CA, "
                         "and the figure is a property of a TSCH network (6top, MSF, minimal "
                         "schedule); the CSMA comparison runs: ./wren bench tsch_paper",
               "cited": ("tsch.fig4.pdr",)}),
           readme=True),
    Figure("tsch_fig5", "tsch", "Fig. 5: radio duty cycle in 30-node 6TiSCH networks",
           **({"run": tsch_fig5} if _tsch_available() else  # type: ignore[arg-type]
              {"reason": "TSCH is not built yet: without a slotted MAC a wren radio listens "
                         "whenever it is not sending (or, with low-power listening, at every "
                         "check), so its duty cycle is not the figure's; the CSMA comparison "
                         "runs: ./wren bench tsch_paper",
               "cited": ("tsch.fig5.duty",)}),
           readme=True),
    Figure("de_fig2", "de", "Abb. 2: throughput vs payload without the radio", de_fig2,
           readme=True),
    Figure("de_fig3", "de", "Abb. 3: energy per payload byte, 20 and 1,000 bytes", de_fig3),
    Figure("de_fig4", "de", "Abb. 4: RAM of the network stack", de_fig4),
]


def by_name() -> dict[str, Figure]:
    return {f.name: f for f in FIGURES}


def select(names: Sequence[str] | None) -> list[Figure]:
    """The figures @names name, in the list's order (none or "all": every
    one); an unknown name is a UserError naming the known ones."""
    if not names or "all" in names:
        return list(FIGURES)
    figs = by_name()
    for name in names:
        if name not in figs:
            close = difflib.get_close_matches(name, list(figs), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise UserError(f"unknown figure '{name}'{hint}; the figures are all, "
                            f"{', '.join(figs)}")
    return [f for f in FIGURES if f.name in names]



def _taskbar(n: int) -> Any:
    """The shared progress bar (wren.progress.TaskBar: drawn on stderr only
    when it is a terminal), or None where that module does not exist."""
    try:
        from .. import progress  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        return None
    return progress.TaskBar(n, "reproduce", unit="fig")


def _out_dir(args: argparse.Namespace) -> Path:
    """The report's directory, checked writable."""
    directory = Path(args.out) if args.out else paths.OUT / "reproduce"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / ".wren-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise UserError(f"cannot write the report to {directory}: {e.strerror}") from None
    return directory


def _run_all(figs: Sequence[Figure], quick: bool, directory: Path) -> list[tuple[Figure, Outcome]]:
    results = []
    bar = _taskbar(len(figs))
    with bar if bar is not None else nullcontext():
        for f in figs:
            if bar is not None:
                bar.task(f.name)
            out = run_figure(f, quick, directory)
            results.append((f, out))
            line = (f"{f.name}: cannot run ({out.reason})" if out.reason else
                    f"{f.name}: {len(out.rows)} values in {out.seconds:.1f} s")
            if bar is not None and bar.on:
                bar.write(line)    # above the bar
            else:
                print(line, flush=True)
            if bar is not None:
                bar.advance()
    return results


def _readme(report: dict[str, Any]) -> None:
    put = readme.update(report, FIGURES)
    print(f"README.md's table rendered from {readme.RESULTS.name} "
          f"({', '.join(put) or 'no figure'} updated)")


def _from_report(args: argparse.Namespace) -> int:
    """--readme --from REPORT.json: the figures named (all: every one) of a
    report written before go into docs/reproduce.json and README.md."""
    if not getattr(args, "readme", False):
        raise UserError("--from REPORT.json only goes with --readme")
    report = readme.read_report(args.from_)
    if args.names and "all" not in args.names:
        names = {f.name for f in select(args.names)}
        report["figures"] = [f for f in report["figures"] if f["name"] in names]
    _readme(report)
    return 0


def main(args: argparse.Namespace) -> int:
    if getattr(args, "from_", None):
        return _from_report(args)
    figs = select(args.names)      # a bad name: before anything is built
    directory = _out_dir(args)
    quick = bool(args.quick)
    from .. import build
    with redirect_stdout(StringIO()):
        build.host()
    command = "./wren reproduce " + (" ".join(args.names) or "all") + \
        (" --quick" if quick else "") + \
        (f" --out {args.out}" if args.out else "")
    results = _run_all(figs, quick, directory)
    files = write_report(results, quick, directory, command)
    print(f"report: {files[0]} and {files[1]}")
    if getattr(args, "readme", False):
        _readme(json.loads(files[2].read_text()))
    failed = [f.name for f, o in results if o.failed]
    if failed:
        print(f"failed: {', '.join(failed)} (the report says why)")
    return 1 if failed else 0


def add_arguments(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("names", nargs="*", metavar="NAME",
                    help="figures (e.g. riot_fig4 tcp_sec72) or all (the default)")
    sp.add_argument("--out", help="directory for the plots and the report (default out/reproduce)")
    sp.add_argument("--quick", action="store_true",
                    help="fewer payload sizes, one seed: minutes instead of tens of minutes")
    sp.add_argument("--readme", action="store_true",
                    help="keep each figure's result in docs/reproduce.json (in place of its "
                         "last) and render README.md's table from it")
    sp.add_argument("--from", dest="from_", metavar="REPORT.json",
                    help="with --readme: take the figures from a report.json written before "
                         "instead of running them")


__all__ = ["CPU_MODEL", "FIGURES", "Figure", "Outcome", "Panel", "PaperValue", "Row", "Series",
           "add_arguments", "by_name", "fmt", "main", "normalize", "paper_number", "paper_values",
           "papers", "papers_dir", "plot", "pv", "readme", "run_figure", "select", "statements",
           "unstated", "write_report",
           "_fig9_available", "_tsch_available"]
