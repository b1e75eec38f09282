"""./wren sweep: a grid of simulation runs, merged into one table with mean
and 95 % confidence interval per cell and metric.

    ./wren sweep SCENARIO --set KEY=V1,V2.. [--set ...] --seeds N
                 [--jobs J] [--ray ADDRESS|auto] [--out DIR] [--duration S]

Every combination of the --set values (a cell) runs once per seed 1..N. KEY
is a dotted scenario key (radio.prr, mac.retries, duration, apps.0.interval:
an array of tables takes an entry's index); each value is a TOML value
(0.8, 3, true, "x") or else a bare string (storing). Before anything runs or
is written, every value is put in the scenario and checked by the scenario
parser: a key that does not exist or a value it refuses is one line naming
the --set, exit 2.

Runs are processes on this machine (--jobs, default the number of cores) or
tasks on a Ray cluster (--ray ADDRESS, --ray auto: the cluster `ray start`
made on this machine; ray is imported only then). Each run's result is a
JSON file under DIR/runs/, named by a hash of the scenario's text, the
parameters, the seed, the duration and the energy profile, written whole
(renamed into place): a sweep that was stopped resumes where it stopped,
since a rerun of the same command skips the runs that finished; a run that
failed is run again. A run that fails (an exception, or its worker process
dies) is reported with its parameters, seed and error, in the table's
"failed" column and on stderr; the command then exits 1.

The table (DIR/results.csv and DIR/results.parquet) has one row per cell and
metric: the parameters, metric, n (runs that finished), mean, std, ci95_low,
ci95_high (Student t with n-1 degrees of freedom; empty for n < 2) and
failed (the seeds that failed); DIR/runs.csv and .parquet have one row per
run. The metrics (METRICS below) come from the run's counters, the duty cycle
and the energy model, and --metric COUNTER adds a counter's total over the
nodes (coap.obs_notify; every counter's total is in the run files, so a
metric added later needs no run again); wall time is in the run files but not in the table,
so that the same sweep gives the same table locally and on Ray.
"""
import argparse
import concurrent.futures as cf
import csv
import hashlib
import json
import math
import multiprocessing
import os
import signal
import sys
import time
import tomllib
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import paths, progress
from .errors import UserError

#: the metrics of a run, in table order, with what each is
METRICS: dict[str, str] = {
    "tx_frames": "frames on the air (radio.tx_frames, all nodes)",
    "rx_frames": "frames received (radio.rx_frames)",
    "collisions": "frames lost to collisions (radio.rx_collisions)",
    "app_sent": "application packets sent (app.sent)",
    "app_received": "application packets received (app.received)",
    "app_delivery": "app.received / app.sent (unicast traffic: the delivery ratio)",
    "duty_pct": "mean radio duty cycle over the nodes, percent",
    "energy_mj": "energy of all nodes, mJ (wren.energy)",
    "mj_per_packet": "energy per delivered application packet, mJ",
    "events": "simulator events",
    "failed_commands": "[[shell]] commands that returned an error",
    "formed_s": "with [rpl]: simulated seconds until the DODAG formed (rpl_formed_s)",
}


class SweepError(UserError):
    """A mistake in the sweep's arguments."""


# ---- the grid -------------------------------------------------------------

def split_values(text: str) -> list[str]:
    """"a,b,[1,2]" -> ["a", "b", "[1,2]"]: commas inside brackets or quotes
    do not split."""
    out, cur, depth, quote = [], "", 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    out.append(cur.strip())
    return out


def parse_value(text: str) -> Any:
    """A TOML value (0.8, 3, true, "x", [1, 2]), or else the text itself."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_sets(sets: Sequence[str]) -> list[tuple[str, list[Any]]]:
    """[(key, [values])] from the --set arguments (KEY=V1,V2..)."""
    out: list[tuple[str, list[Any]]] = []
    for s in sets:
        key, eq, vals = s.partition("=")
        key = key.strip()
        if not eq or not key:
            raise SweepError(f"--set {s}: write KEY=VALUE[,VALUE...], e.g. radio.prr=0.8,0.9")
        if any(k == key for k, _ in out):
            raise SweepError(f"--set {key}: given twice; put all its values in one --set")
        if key == "seed":
            raise SweepError("--set seed: the seeds of a sweep are --seeds N (1..N)")
        values = [parse_value(v) for v in split_values(vals)]
        if any(v == "" for v in values):
            raise SweepError(f"--set {s}: an empty value")
        out.append((key, values))
    return out


def apply(data: Mapping[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of the scenario @data with the dotted @key set to @value (a
    SweepError naming the key if it cannot lead anywhere)."""
    root: dict[str, Any] = json.loads(json.dumps(data))  # a deep copy (TOML data is JSON data)
    parts = key.split(".")
    node: Any = root
    for i, part in enumerate(parts[:-1]):
        where = ".".join(parts[:i + 1])
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise SweepError(f"--set {key}: [[{'.'.join(parts[:i])}]] has entries "
                                 f"0..{len(node) - 1}, not {part}")
            node = node[int(part)]
        else:
            nxt = node.get(part)
            if nxt is None:
                nxt = node[part] = {}
            elif isinstance(nxt, list) and not parts[i + 1].isdigit():
                raise SweepError(f"--set {key}: [[{where}]] is an array of tables: name an "
                                 f"entry by its index, e.g. {where}.0.{parts[i + 1]}")
            elif not isinstance(nxt, (dict, list)):
                raise SweepError(f"--set {key}: '{where}' is a value, not a table")
            node = nxt
    last = parts[-1]
    if isinstance(node, list):
        raise SweepError(f"--set {key}: name a key of an entry, e.g. {key}.0.KEY")
    node[last] = value
    return root


def show(v: Any) -> str:
    """A parameter value as the table shows it."""
    return json.dumps(v) if not isinstance(v, str) else v


@dataclass(frozen=True)
class Run:
    """One run of the grid."""
    params: tuple[tuple[str, Any], ...]
    seed: int
    key: str

    def label(self) -> str:
        return " ".join(f"{k}={show(v)}" for k, v in self.params) + f" seed {self.seed}"


@dataclass
class Plan:
    """A checked sweep: the scenario, the grid, the runs."""
    source: str
    text: str
    data: dict[str, Any]
    sets: list[tuple[str, list[Any]]]
    seeds: list[int]
    duration: float | None
    profile: str
    runs: list[Run]


def _run_key(text: str, params: Sequence[tuple[str, Any]], seed: int,
             duration: float | None, profile: str) -> str:
    blob = json.dumps({"scenario": hashlib.sha256(text.encode()).hexdigest(),
                       "params": [[k, v] for k, v in params], "seed": seed,
                       "duration": duration, "profile": profile}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def plan(scenario_path: str, sets: Sequence[str], seeds: int, duration: float | None = None,
         profile: str = "iotlab-m3") -> Plan:
    """Check everything the sweep was given; the runs it makes."""
    from . import energy, scenario
    if seeds < 1:
        raise SweepError(f"--seeds {seeds}: give at least 1")
    base = scenario.load(scenario_path)  # the file itself is sound
    energy.profile(profile)
    text = Path(scenario_path).read_text(encoding="utf-8")
    data = tomllib.loads(text)
    grid = parse_sets(sets)
    if not grid:
        raise SweepError("no --set KEY=V1,V2..: a sweep needs at least one parameter")
    for key, values in grid:
        for v in values:
            try:
                scenario.parse(apply(data, key, v), name=base.name)
            except scenario.ScenarioError as e:
                raise SweepError(f"--set {key}={show(v)}: {e.message}") from None
    cells: list[list[tuple[str, Any]]] = [[]]
    for key, values in grid:
        cells = [c + [(key, v)] for c in cells for v in values]
    runs = [Run(tuple(c), s, _run_key(text, c, s, duration, profile))
            for c in cells for s in range(1, seeds + 1)]
    return Plan(str(scenario_path), text, data, grid, list(range(1, seeds + 1)), duration,
                profile, runs)


# ---- one run ------------------------------------------------------------

def metrics(result: Mapping[str, Any]) -> dict[str, float | None]:
    """The METRICS of a ./wren sim result that has its energy block."""
    from . import scenario
    t = result["totals"]
    sent, rcvd = t.get("app.sent", 0), t.get("app.received", 0)
    nodes = result["nodes"]
    en = result["energy"]
    return {
        "tx_frames": t.get("radio.tx_frames", 0),
        "rx_frames": t.get("radio.rx_frames", 0),
        "collisions": t.get("radio.rx_collisions", 0),
        "app_sent": sent,
        "app_received": rcvd,
        "app_delivery": rcvd / sent if sent else None,
        "duty_pct": 100.0 * sum(scenario.duty(n["counters"]) for n in nodes) / len(nodes),
        "energy_mj": en["mj"],
        "mj_per_packet": en["mj_per_delivered_packet"],
        "events": result["events"],
        "failed_commands": len(result.get("failed_commands", [])),
        "formed_s": result.get("rpl_formed_s"),
    }


def run_one(data: dict[str, Any], name: str | None, params: Sequence[tuple[str, Any]],
            seed: int, duration: float | None, profile: str) -> dict[str, Any]:
    """Run one cell with one seed; its record (never raises: an error is
    the record's "error")."""
    from . import energy, scenario
    rec: dict[str, Any] = {"params": [[k, v] for k, v in params], "seed": seed}
    t0 = time.monotonic()
    try:
        d = data
        for k, v in params:
            d = apply(d, k, v)
        sc = scenario.parse(d, name=name)
        res = scenario.run(sc, seed=seed, duration=duration, progress=False)
        energy.annotate(res, profile)
        rec.update(status="ok", error=None, metrics=metrics(res), totals=res["totals"],
                   duration_s=res["duration_s"], events=res["events"])
    except Exception as e:  # the run failed: say how, with the seed (never dropped)
        rec.update(status="error", error=f"{type(e).__name__}: {e}".strip(),
                   traceback=traceback.format_exc(limit=8))
    rec["wall_s"] = round(time.monotonic() - t0, 3)
    return rec


def _worker_init(env: Mapping[str, str]) -> None:
    os.environ.update(env)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver handles Ctrl-C


def _env() -> dict[str, str]:
    """What a worker needs to find this tree's simulator library."""
    from . import lib
    env = {"WREN_ROOT": str(paths.ROOT), "WREN_BUILD": str(paths.BUILD),
           "WREN_LIB": str(lib.library_path()), "WREN_PROGRESS": "0"}
    if os.environ.get("GLIBC_TUNABLES"):
        # ./wren's huge pages (see the launcher) for Ray's workers too
        env["GLIBC_TUNABLES"] = os.environ["GLIBC_TUNABLES"]
    return env


# ---- executors ----------------------------------------------------------

Done = Callable[[Run, dict[str, Any]], None]


def run_local(p: Plan, todo: Sequence[Run], jobs: int, done: Done) -> None:
    """@todo in @jobs processes of this machine; @done per finished run. A
    run whose worker died is run again alone, and reported if it dies then."""
    name = Path(p.source).stem
    ctx = multiprocessing.get_context("spawn")
    pending = list(todo)
    while pending:
        broken: list[Run] = []
        with cf.ProcessPoolExecutor(max_workers=max(1, min(jobs, len(pending))), mp_context=ctx,
                                    initializer=_worker_init, initargs=(_env(),)) as ex:
            futs = {ex.submit(run_one, p.data, name, r.params, r.seed, p.duration, p.profile): r
                    for r in pending}
            try:
                for f in cf.as_completed(futs):
                    r = futs[f]
                    try:
                        done(r, f.result())
                    except cf.process.BrokenProcessPool:
                        broken.append(r)
            except BaseException:
                for f in futs:
                    f.cancel()
                raise
        if len(broken) == 1 or (broken and jobs == 1):
            for r in broken:
                done(r, {"params": [[k, v] for k, v in r.params], "seed": r.seed,
                         "status": "error", "wall_s": None,
                         "error": "the worker process died while running it (a crash of the "
                                  "simulator: run the cell alone with ./wren sim to see it)"})
            broken = []
        # several at once: one of them killed the pool; run them one by one
        pending, jobs = broken, 1


def _probe(address: str, timeout_s: float = 5.0) -> None:
    """A SweepError unless something accepts TCP connections at @address
    (HOST:PORT, or ray://HOST:PORT): ray.init would retry an address where
    nothing listens for minutes."""
    import socket
    hostport = address.split("://", 1)[-1]
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise SweepError(f"--ray {address}: give HOST:PORT of the cluster's head (as `ray start "
                         f"--head` printed it) or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            pass
    except OSError as e:
        raise SweepError(f"--ray {address}: cannot reach a Ray cluster there "
                         f"({e.strerror or e})") from None


def _ray_init(address: str) -> Any:
    if address != "auto":
        _probe(address)   # first: importing ray takes seconds
    try:
        import ray
    except ImportError:
        raise SweepError("--ray: the ray package is not installed (python/requirements.txt; "
                         "rerun scripts/bootstrap.sh)") from None
    env = _env()
    try:
        ray.init(address=address, logging_level="ERROR", log_to_driver=False,
                 runtime_env={"env_vars": env})
    except (ConnectionError, RuntimeError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise SweepError(f"--ray {address}: cannot reach a Ray cluster ({first})") from None
    return ray


def run_ray(ray: Any, p: Plan, todo: Sequence[Run], done: Done) -> None:
    """@todo as tasks of the Ray cluster that @ray (from _ray_init) is
    connected to; @done per finished run, as results come."""
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(run_one)
        name = Path(p.source).stem
        data = ray.put(p.data)
        refs = {remote.remote(data, name, r.params, r.seed, p.duration, p.profile): r
                for r in todo}
        waiting = list(refs)
        try:
            _ray_collect(ray, refs, waiting, done)
        except BaseException:   # Ctrl-C: the cluster drops what has not run
            for ref in waiting:
                ray.cancel(ref, force=True)
            raise
    finally:
        ray.shutdown()


def _ray_collect(ray: Any, refs: Mapping[Any, Run], waiting: list[Any], done: Done) -> None:
    """Hand each finished task's record to @done as it comes; @waiting (in
    place) holds the tasks not finished."""
    while waiting:
        # whatever finished within a second (one wait per second, not per
        # task: a sweep of thousands of runs does not wait thousands of times
        # over the whole list)
        ready, rest = ray.wait(waiting, num_returns=len(waiting), timeout=1.0)
        if not ready:
            ready, rest = ray.wait(rest, num_returns=1)
        waiting[:] = rest
        for ref in ready:
            r = refs[ref]
            try:
                rec = ray.get(ref)
            except Exception as e:  # the task or its worker died
                rec = {"params": [[k, v] for k, v in r.params], "seed": r.seed,
                       "status": "error", "wall_s": None,
                       "error": f"Ray task failed: {type(e).__name__}: "
                                f"{str(e).strip().splitlines()[0] if str(e).strip() else ''}"}
            done(r, rec)


# ---- statistics -----------------------------------------------------------

def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularised incomplete beta function
    (modified Lentz's method)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def _betai(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
           + a * math.log(x) + b * math.log(1.0 - x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with @df degrees of freedom."""
    x = df / (df + t * t)
    tail = 0.5 * _betai(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The @p quantile of Student's t (bisection on t_cdf; 0.5 < p < 1)."""
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


def mean_ci(xs: Sequence[float], level: float = 0.95) -> dict[str, float | None]:
    """n, mean, std (sample), and the Student-t confidence interval of the mean."""
    n = len(xs)
    if n == 0:
        return {"n": 0, "mean": None, "std": None, "ci95_low": None, "ci95_high": None}
    mean = sum(xs) / n
    if n < 2:
        return {"n": 1, "mean": mean, "std": None, "ci95_low": None, "ci95_high": None}
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = t_quantile(0.5 + level / 2.0, n - 1) * std / math.sqrt(n)
    return {"n": n, "mean": mean, "std": std, "ci95_low": mean - half, "ci95_high": mean + half}


# ---- the sweep ------------------------------------------------------------

def _record_path(out: Path, r: Run) -> Path:
    return out / "runs" / f"{r.key}.json"


def _load(path: Path) -> dict[str, Any] | None:
    try:
        rec: dict[str, Any] = json.loads(path.read_text())
        return rec
    except (OSError, ValueError):
        return None


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def _value(rec: Mapping[str, Any], m: str) -> Any:
    """Metric @m of a finished run: one of METRICS, else a counter's total."""
    if m in METRICS:
        return rec["metrics"].get(m)
    return rec.get("totals", {}).get(m, 0)


def counter_names() -> list[str]:
    """Every counter a node has (a node with every module of the stack,
    opt-in ones included)."""
    from .lib import Sim
    with Sim(1) as s:
        s.set_modules(s.module_names())
        s.add_node()
        return list(s.counters(0))


def check_metrics(names: Sequence[str]) -> list[str]:
    """--metric names: counters (their totals over the nodes); a SweepError
    naming an unknown one, with the closest as a suggestion."""
    import difflib
    if not names:
        return []
    known = counter_names()
    for n in names:
        if n not in known and n not in METRICS:
            close = difflib.get_close_matches(n, known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else " (./wren sim --json shows them)"
            raise SweepError(f"--metric {n}: no such counter{hint}")
    return [n for n in names if n not in METRICS]


def table(p: Plan, records: Mapping[str, dict[str, Any]],
          extra: Sequence[str] = ()) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(cells, runs): the rows of results.* and runs.* from the records;
    @extra: counters (totals) tabled beside METRICS."""
    keys = [k for k, _ in p.sets]
    cells: dict[tuple[Any, ...], list[Run]] = {}
    for r in p.runs:
        cells.setdefault(tuple(json.dumps(v) for _, v in r.params), []).append(r)
    rows: list[dict[str, Any]] = []
    run_rows: list[dict[str, Any]] = []
    for runs in cells.values():
        params = {k: show(v) for k, v in runs[0].params}
        recs = [(r, records.get(r.key)) for r in runs]
        ok = [rec for _, rec in recs if rec and rec.get("status") == "ok"]
        failed = [r.seed for r, rec in recs if rec and rec.get("status") != "ok"]
        for m in [*METRICS, *extra]:
            xs = [float(_value(rec, m)) for rec in ok if _value(rec, m) is not None]
            rows.append({**params, "metric": m, **mean_ci(xs),
                         "failed": " ".join(str(s) for s in failed)})
        for r, rec in recs:
            row = {**params, "seed": r.seed,
                   "status": "missing" if rec is None else rec.get("status"),
                   "error": None if rec is None else rec.get("error")}
            for m in [*METRICS, *extra]:
                row[m] = _value(rec, m) if rec and rec.get("status") == "ok" else None
            run_rows.append(row)
    assert all(set(keys) <= set(r) for r in rows)
    return rows, run_rows


def _write_table(rows: list[dict[str, Any]], csv_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    if not rows:
        return
    cols = list(rows[0])
    tmp = csv_path.with_name(csv_path.name + ".tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: "" if r[k] is None else r[k] for k in cols})
    os.replace(tmp, csv_path)
    pq_path = csv_path.with_suffix(".parquet")
    tmp = pq_path.with_name(pq_path.name + ".tmp")
    pq.write_table(pa.Table.from_pylist(rows), tmp)
    os.replace(tmp, pq_path)


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.4g}"


def print_table(p: Plan, rows: Sequence[Mapping[str, Any]], metrics_shown: Iterable[str],
                out: Any = sys.stdout) -> None:
    """The cells with mean [95 % CI] of @metrics_shown."""
    keys = [k for k, _ in p.sets]
    shown = list(metrics_shown)
    by_cell: dict[tuple[str, ...], dict[str, Mapping[str, Any]]] = {}
    for r in rows:
        by_cell.setdefault(tuple(r[k] for k in keys), {})[r["metric"]] = r
    hdr = keys + ["n"] + shown
    lines = []
    for cell, ms in by_cell.items():
        first = next(iter(ms.values()))
        vals = []
        for m in shown:
            r = ms[m]
            vals.append(_fmt(r["mean"]) + ("" if r["ci95_low"] is None else
                                          f" ±{_fmt((r['ci95_high'] - r['ci95_low']) / 2)}"))
        lines.append(list(cell) + [str(first["n"]) + (f" ({len(first['failed'].split())} failed)"
                                                      if first["failed"] else "")] + vals)
    widths = [max(len(str(x)) for x in col) for col in zip(hdr, *lines)]
    fmt = "  ".join(f"{{:>{w}}}" for w in widths)
    print(fmt.format(*hdr), file=out)
    for ln in lines:
        print(fmt.format(*ln), file=out)


def main(args: argparse.Namespace) -> int:
    p = plan(args.scenario, args.set or [], args.seeds, args.duration, args.profile)
    if args.jobs is not None and args.jobs < 1:
        raise SweepError(f"--jobs {args.jobs}: give at least 1")
    extra = check_metrics(getattr(args, "metric", None) or [])
    out = Path(args.out) if args.out else paths.OUT / "sweep" / Path(p.source).stem
    ray = _ray_init(args.ray) if args.ray else None   # before anything is written
    try:
        (out / "runs").mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SweepError(f"--out {out}: cannot create it: {e.strerror}") from None
    records: dict[str, dict[str, Any]] = {}
    for r in p.runs:
        rec = _load(_record_path(out, r))
        if rec is not None and rec.get("status") == "ok":
            records[r.key] = rec
    todo = [r for r in p.runs if r.key not in records]
    cells = len(p.runs) // len(p.seeds)
    where = f"Ray cluster {args.ray}" if args.ray else \
        f"{args.jobs or os.cpu_count() or 1} local processes"
    print(f"sweep {p.source}: {cells} cells x {len(p.seeds)} seeds = {len(p.runs)} runs; "
          f"{len(p.runs) - len(todo)} already done in {out}, {len(todo)} to run on {where}",
          flush=True)
    failures: list[tuple[Run, str]] = []

    # Ctrl-C stops the sweep, but never between writing a run's file and
    # renaming it into place: it is taken when that is done
    state = {"critical": False, "pending": False}

    def on_int(sig: int, frame: Any) -> None:
        if state["critical"]:
            state["pending"] = True
        else:
            raise KeyboardInterrupt

    old_int = signal.signal(signal.SIGINT, on_int)
    with progress.TaskBar(len(todo), "sweep") as bar:
        def done(r: Run, rec: dict[str, Any]) -> None:
            rec["key"] = r.key
            state["critical"] = True
            try:
                _write_atomic(_record_path(out, r), json.dumps(rec, indent=1))
                records[r.key] = rec
            finally:
                state["critical"] = False
            if state["pending"]:
                raise KeyboardInterrupt
            if rec["status"] != "ok":
                failures.append((r, rec["error"]))
                if bar.on:   # (the list at the end says it again, also without a terminal)
                    bar.write(f"run failed: {r.label()}: {rec['error']}", file=sys.stderr)
            bar.task(r.label())
            bar.advance(sim_s=rec.get("duration_s") or 0.0, events=rec.get("events") or 0)

        try:
            if not todo:
                pass
            elif ray is not None:
                run_ray(ray, p, todo, done)
            else:
                run_local(p, todo, args.jobs or os.cpu_count() or 1, done)
        except KeyboardInterrupt:
            n = sum(1 for r in p.runs if r.key in records)
            bar.close()
            print(f"\nwren: sweep interrupted: {n} of {len(p.runs)} runs are done in {out}; "
                  f"the same command resumes it", file=sys.stderr)
            return 130
        finally:
            signal.signal(signal.SIGINT, old_int)
    rows, run_rows = table(p, records, extra)
    _write_table(rows, out / "results.csv")
    _write_table(run_rows, out / "runs.csv")
    print_table(p, rows, ["app_delivery", "duty_pct", "energy_mj", "collisions", *extra])
    print(f"table: {out / 'results.csv'} and .parquet (mean, std, 95 % CI per cell and metric;"
          f" metrics: {', '.join([*METRICS, *extra])}); every run: {out / 'runs.csv'}")
    for r, err in failures:
        print(f"failed: {r.label()}: {err}", file=sys.stderr)
    failed_all = [r for r in p.runs if records.get(r.key, {}).get("status") != "ok"]
    if failed_all:
        print(f"wren: {len(failed_all)} of {len(p.runs)} runs failed (table column 'failed', "
              f"{out / 'runs.csv'}); rerunning the command runs them again", file=sys.stderr)
        return 1
    return 0
