"""What every figure of ./wren reproduce is made of: the papers' values
(data/paper_values.toml), a figure's rows, series and panels, and the
measurements several figures share (cached within one run).
"""
import functools
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import cpu, paths

PAPER_VALUES: Path = Path(__file__).resolve().parent.parent / "data" / "paper_values.toml"

#: how every CPU-time row gets its time (the one cycle model, wren.cpu)
CPU_MODEL = ("Cortex-M3 instructions counted under qemu (mps2-an385, the -Os build, at each "
             "payload size: wren.qemu_bench.udp); " + cpu.model_text())


# ---- the papers' values ---------------------------------------------------

@dataclass(frozen=True)
class PaperValue:
    """One figure a paper gives, with where it stands and a quote holding it."""
    key: str
    paper: str
    file: str
    where: str
    quote: str
    unit: str
    value: float | None = None
    bound: str | None = None      # "upper": the true figure is below; "lower": above
    as_written: str | None = None  # the number as the quote writes it, when not digits

    def text(self, value: float | None = None) -> str:
        v = self.value if value is None else value
        if v is None:
            return f'"{self.quote}"'
        sign = {"upper": "< ", "lower": "> "}.get(self.bound or "", "")
        return f"{sign}{fmt(v)}"

    def cite(self) -> str:
        return f'{self.paper} paper, {self.where}: "{self.quote}"'


def papers_dir() -> Path | None:
    """Where the papers' texts are: WREN_PAPERS, else the first shared/papers
    in the repository's parent folders (../shared/papers beside /work/main);
    None when there is none."""
    import os
    env = os.environ.get("WREN_PAPERS")
    if env:
        return Path(env)
    for p in paths.ROOT.parents:
        if (p / "shared" / "papers").is_dir():
            return p / "shared" / "papers"
    return None


@functools.cache
def _data(path: Path = PAPER_VALUES) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


def papers(path: Path = PAPER_VALUES) -> dict[str, dict[str, str]]:
    return dict(_data(path)["papers"])


def paper_values(path: Path = PAPER_VALUES) -> dict[str, PaperValue]:
    data = _data(path)
    out = {}
    for key, v in data["values"].items():
        paper = data["papers"][v["paper"]]
        out[key] = PaperValue(key=key, paper=v["paper"], file=v.get("file", paper["file"]),
                              where=v["where"], quote=v["quote"], unit=v["unit"],
                              value=float(v["value"]) if "value" in v else None,
                              bound=v.get("bound"), as_written=v.get("as_written"))
    return out


def pv(key: str) -> PaperValue:
    return paper_values()[key]


def paper_number(key: str) -> float:
    v = pv(key).value
    if v is None:
        raise KeyError(f"{key} has no number")
    return v


def normalize(text: str) -> str:
    """Text for quote matching: hyphenation at line ends undone, every run of
    white space one space."""
    text = re.sub(r"(\w)-\n\s*(\w)", r"\1\2", text)
    return re.sub(r"\s+", " ", text).strip()


# ---- what a figure produces -----------------------------------------------

def fmt(v: float | None) -> str:
    if v is None:
        return "-"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    if a >= 0.1:
        return f"{v:.3f}"
    return f"{v:.3g}"


@dataclass
class Row:
    """One quantity: wren's value beside the paper's (None: no number)."""
    quantity: str
    unit: str
    wren: float | None
    paper: PaperValue | None = None
    paper_value: float | None = None  # computed from the paper's (paper.value if None)
    note: str = ""
    # what the row stands on, one short clause each (issue 27: every row says
    # what is measured, what is modelled and what differs from the paper):
    measured: str = ""   # e.g. "Cortex-M3 instructions under qemu, 1,000-byte datagram"
    modelled: str = ""   # e.g. "cycles = instructions x CPI 1.25 at 72 MHz"; "" if nothing
    differs: str = ""    # e.g. "the paper's link had interference; wren's line has none"
    #: "paper": set beside the paper's figure; "consistency": value and bound
    #: come from the same model (a check of the model, not a result beside
    #: the paper); "label": shown for context, no comparison claimed
    kind: str = "paper"
    #: the README's line for its figure (a figure with none marked shows its
    #: first "paper" row that has a wren value)
    headline: bool = False

    @property
    def paper_number(self) -> float | None:
        if self.paper_value is not None:
            return self.paper_value
        return self.paper.value if self.paper else None

    @property
    def ratio(self) -> float | None:
        p = self.paper_number
        if p is None or self.wren is None or p == 0:
            return None
        return self.wren / p

    @property
    def claimed_ratio(self) -> float | None:
        """The ratio the report claims: only a "paper" row is set beside the
        paper (a consistency check's bound is wren's own model's)."""
        return self.ratio if self.kind == "paper" else None

    def basis(self) -> str:
        """The row's statement in one line ("" when it states nothing):
        "measured: ...; modelled: ...; differs: ..."."""
        if not (self.measured or self.modelled or self.differs):
            return ""
        return (f"measured: {self.measured or '(not stated)'}; "
                f"modelled: {self.modelled or 'nothing'}; "
                f"differs: {self.differs or '(not stated)'}")

    def wren_text(self) -> str:
        if self.wren is None:
            return f"not measured: {self.note}" if self.note else "-"
        return fmt(self.wren)

    def paper_text(self) -> str:
        if self.paper is None:
            return "-"
        if self.paper.value is None:
            return "(no number) " + self.paper.text()
        return self.paper.text(self.paper_number)


@dataclass
class Series:
    label: str
    xs: Sequence[Any]
    ys: Sequence[float | None]
    style: str = "o-"
    paper: bool = False  # drawn as the paper's (red)
    #: (lower ys, upper ys): a sensitivity band drawn around the series (e.g.
    #: the cycle model's CPI_LOW..CPI_HIGH); None: no band
    band: tuple[Sequence[float | None], Sequence[float | None]] | None = None


@dataclass
class Panel:
    title: str
    xlabel: str
    ylabel: str
    series: list[Series] = field(default_factory=list)
    hlines: list[tuple[float, str]] = field(default_factory=list)  # the paper's levels
    vlines: list[tuple[float, str]] = field(default_factory=list)  # the paper's positions
    bars: bool = False     # series are bar groups over categorical xs
    logy: bool = False


@dataclass
class Outcome:
    rows: list[Row] = field(default_factory=list)
    panels: list[Panel] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reason: str | None = None   # why it cannot run (then no rows of wren's, no plot)
    failed: bool = False        # its code failed (a bug or a missing tool), not a known gap
    seconds: float = 0.0
    files: list[str] = field(default_factory=list)


#: how the report labels a row of each kind ("paper" rows need no label)
KIND_LABEL = {"paper": "", "consistency": "consistency check", "label": "for context"}


@dataclass(frozen=True)
class Figure:
    name: str
    paper: str
    title: str
    run: Callable[[bool], Outcome] | None = None
    reason: str | None = None          # set when run is None
    cited: tuple[str, ...] = ()        # paper values shown when it cannot run
    readme: bool = False               # its headline rows are in README.md's table

    def command(self, quick: bool) -> str:
        return f"./wren reproduce {self.name}" + (" --quick" if quick else "")


# ---- shared measurements (cached within one ./wren reproduce) ----------------

def _sizes(quick: bool) -> list[int]:
    if quick:
        return [20, 100, 200, 500, 1000, 1232]
    return sorted(set(range(48, 1233, 48)) | {20, 1000, 1232})


def _m3(mode: str, size: int) -> Any:
    """qemu_bench.UdpM3 of one datagram of @size bytes on bench_udp's @mode
    path on the Cortex-M3 (one traced qemu run per path, cached)."""
    from .. import qemu_bench
    per = qemu_bench.udp(mode)
    if size not in per:
        raise KeyError(f"{size}-byte datagrams are not measured by wren_"
                       f"{qemu_bench.IMAGES[mode]}.elf: add the size to "
                       f"runtime/cortexm/udp_sizes.h")
    return per[size]


def _udp(mode: str, size: int) -> tuple[float, dict[str, float]]:
    """Cortex-M3 instructions per datagram (send + receive) and their split
    by module (exclusive)."""
    r = _m3(mode, size)
    return r.total, r.modules


@functools.cache
def _x86(mode: str, size: int) -> float:
    """x86-64 instructions per datagram (callgrind: bench.udp_per_datagram),
    for the M3/x86 ratio shown as information."""
    from .. import bench
    return bench.udp_per_datagram(mode, size, n=100)[0]


def _mhz() -> float:
    return cpu.CLOCK_HZ / 1e6


def _us(instructions: float, cpi: float = cpu.CPI) -> float:
    """CPU time on the paper's Cortex-M3 by the cycle model (CPU_MODEL)."""
    return cpu.seconds(instructions, cpi) * 1e6


@functools.cache
def _radio(mode: str, size: int, secs: float) -> tuple[float, float]:
    from .. import bench
    return bench.goodput_1hop(mode, size, secs)
