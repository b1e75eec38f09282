"""Progress bars for the long commands (sim, demo, bench, reproduce, sweep,
test), drawn with tqdm on stderr.

A bar shows simulated time, simulator events per second of wall time and an
ETA. It is drawn only when stderr is a terminal (WREN_PROGRESS=1 forces it
on, WREN_PROGRESS=0 off), so logs, pipes and CI see nothing of it, and it
never changes what a run computes: the caller runs the simulator in slices
(Sim.run to successive instants gives the same events as one run,
tests/py/test_determinism.py) and reports after each.

Two kinds of bar:

- SimBar(total_s): one simulation; update(now_s, events) after each slice.
  The ETA is the simulated time still to run at the recent pace.
- TaskBar(total): a count of tasks (runs of a sweep, figures, benchmarks);
  advance() per finished task, and sims running inside a task report their
  simulated seconds and events through sim_step() (wren.lib.Sim.run calls
  it), so even a task that drives its own Sim shows sim time and events/s.

    with progress.SimBar(duration, "demo") as bar:
        while t < duration:
            ...; sim.run(t); bar.update(sim.now, sim.events)

    with progress.TaskBar(len(runs), "sweep") as bar:
        for r in runs:
            run(r); bar.advance()
"""
import os
import sys
import time
from types import TracebackType
from typing import Any, TextIO

__all__ = ["enabled", "SimBar", "TaskBar", "sim_step", "echo", "slices"]

#: the TaskBar that sim_step() reports to (the innermost open one), if any
_active: list["TaskBar"] = []


def enabled(stream: TextIO | None = None) -> bool:
    """Whether bars are drawn on @stream (default stderr): it is a terminal,
    unless WREN_PROGRESS says otherwise ("1": always, "0": never)."""
    force = os.environ.get("WREN_PROGRESS")
    if force is not None and force.strip() != "":
        return force.strip() not in ("0", "no", "off", "false")
    s = stream if stream is not None else sys.stderr
    try:
        return bool(s.isatty())
    except (AttributeError, ValueError):
        return False


def _rate(n: float) -> str:
    """Events per second, short: 950, 12.3k, 4.56M."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= div:
            return f"{n / div:.3g}{suffix}"
    return f"{n:.0f}"


def _hms(s: float) -> str:
    s = int(max(s, 0))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class _Bar:
    """A tqdm bar or nothing (disabled: every call is a no-op)."""

    def __init__(self, total: float, desc: str, unit: str, stream: TextIO | None,
                 show: bool | None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.on = enabled(self.stream) if show is None else show
        self.t0 = time.monotonic()
        self._bar: Any = None
        if self.on:
            from tqdm import tqdm
            self._bar = tqdm(total=total, desc=desc, unit=unit, file=self.stream,
                             dynamic_ncols=True, leave=False, mininterval=0.2,
                             bar_format="{desc}: {percentage:3.0f}%|{bar}| "
                                        "[{elapsed}<{remaining}{postfix}]")

    def _post(self, text: str) -> None:
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=False)

    def write(self, line: str, file: TextIO | None = None) -> None:
        """Print @line (on stdout, or @file) without breaking the bar."""
        f = file if file is not None else sys.stdout
        if self._bar is not None and not isinstance(f, _Above):
            self._bar.write(line, file=f)
        else:
            print(line, file=f, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "_Bar":
        return self

    def __exit__(self, typ: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class SimBar(_Bar):
    """A bar over the @total_s simulated seconds of one run."""

    def __init__(self, total_s: float, desc: str = "sim", stream: TextIO | None = None,
                 show: bool | None = None) -> None:
        super().__init__(max(float(total_s), 1e-9), desc, "s", stream, show)
        self.total_s = float(total_s)
        self.done_s = 0.0
        self.events0: int | None = None

    def update(self, now_s: float, events: int) -> None:
        """The run has reached simulated @now_s after @events events in all."""
        if self._bar is None:
            return
        if self.events0 is None:
            self.events0 = events
        wall = max(time.monotonic() - self.t0, 1e-6)
        now_s = min(now_s, self.total_s)
        self._bar.update(now_s - self.done_s)
        self.done_s = now_s
        self._post(f"sim {now_s:.1f}/{self.total_s:g} s, {_rate((events - self.events0) / wall)}"
                   f" ev/s, {now_s / wall:.1f}x real time")
        if now_s >= self.total_s:   # the end is drawn, however fast the run was
            self._bar.refresh()


class TaskBar(_Bar):
    """A bar over @total tasks; simulations inside report through sim_step()."""

    def __init__(self, total: int, desc: str = "tasks", stream: TextIO | None = None,
                 show: bool | None = None, unit: str = "run") -> None:
        super().__init__(max(int(total), 1), desc, unit, stream, show)
        self.total = int(total)
        self.done = 0
        self.sim_s = 0.0
        self.events = 0
        self.current = ""
        self._shown = 0.0

    def __enter__(self) -> "TaskBar":
        _active.append(self)
        self._stdout: TextIO | None = None
        if self._bar is not None and not isinstance(sys.stdout, _Above):
            self._stdout = sys.stdout
            sys.stdout = _Above(sys.stdout)  # type: ignore[assignment]
        return self

    def __exit__(self, typ: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self in _active:
            _active.remove(self)
        if self._stdout is not None:
            sys.stdout = self._stdout
            self._stdout = None
        self.close()

    def _refresh(self) -> None:
        wall = max(time.monotonic() - self.t0, 1e-6)
        cur = f"{self.current}: " if self.current else ""
        self._post(f"{cur}{self.done}/{self.total}, sim {self.sim_s:.0f} s, "
                   f"{_rate(self.events / wall)} ev/s")

    def task(self, name: str) -> None:
        """The task now running is @name (shown beside the count)."""
        self.current = name
        if self._bar is not None:
            self._refresh()
            self._bar.refresh()

    def advance(self, n: int = 1, sim_s: float = 0.0, events: int = 0) -> None:
        """@n tasks finished (having simulated @sim_s seconds in @events
        events that sim_step did not already report)."""
        self.done += n
        self.sim_s += sim_s
        self.events += events
        if self._bar is not None:
            self._refresh()
            self._bar.update(n)

    def step(self, sim_s: float, events: int) -> None:
        self.sim_s += sim_s
        self.events += events
        if self._bar is not None:
            now = time.monotonic()
            if now - self._shown > 0.2:
                self._shown = now
                self._refresh()
                self._bar.refresh()


def sim_step(sim_s: float, events: int) -> None:
    """A simulator ran @sim_s more simulated seconds in @events events:
    the open TaskBar, if any, counts them (wren.lib.Sim.run calls this)."""
    if _active:
        _active[-1].step(sim_s, events)


def echo(text: str, file: TextIO | None = None) -> None:
    """Write @text to stdout (or @file) now; an open TaskBar keeps itself
    below it (it routes stdout while it is drawn)."""
    f = file if file is not None else sys.stdout
    f.write(text)
    f.flush()


class _Above:
    """What stdout is while a TaskBar is drawn: each write clears the bar,
    writes, and draws the bar again, so printed lines and the bar do not mix."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> int:
        from tqdm import tqdm
        with tqdm.external_write_mode(file=self.out):
            n = self.out.write(text)
            self.out.flush()
        return n

    def __getattr__(self, name: str) -> Any:
        return getattr(self.out, name)


def slices(start_s: float, end_s: float, n: int = 100, min_s: float = 0.001) -> list[float]:
    """The instants at which a run from @start_s to @end_s stops to report:
    about @n equal steps of at least @min_s, the last one exactly @end_s.
    Where a run stops does not change it (tests/py/test_determinism.py)."""
    step = max((end_s - start_s) / n, min_s)
    out, t = [], start_s
    while t < end_s:
        t = min(end_s, t + step)
        out.append(t)
    return out


def eta(done: float, total: float, wall: float) -> str:
    """The remaining wall time at the pace so far, as m:ss ("?" at first)."""
    if done <= 0 or wall <= 0:
        return "?"
    return _hms(wall * (total - done) / done)
