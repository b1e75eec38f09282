"""./wren bench --check: every record beside its target, and CI's
regression guards.

data/bench_guards.toml lists
- [[guard]]: records that are deterministic (sizes of Cortex-M3 images,
  instruction counts under callgrind, simulated results: the same source and
  toolchain give the same figure) and met their targets when they became
  guards, each with its reference value and a tolerance (a fraction of the
  reference). --check fails when a guard's record is missing, misses its
  target, or stands further than its tolerance from its reference, either
  way (a change that moves it on purpose sets the new reference in the same
  commit: the guard then catches the next drift, not only a miss);
- [[consistency]]: records whose value and bound come from the same model
  (a goodput over the simulator's own PHY bound): a check of the model, not
  a result set beside a paper. Their records get "kind": "consistency" and
  ./wren bench prints them apart.
Every other record with a target that misses it is printed, never failed:
an open target does not block a landing.
"""
import json
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import UserError

GUARDS: Path = Path(__file__).resolve().parent / "data" / "bench_guards.toml"

Record = dict[str, Any]


@dataclass(frozen=True)
class Guard:
    name: str         # the record's
    bench: str        # the ./wren bench benchmark that makes it
    reference: float  # its value when the guard was set (or last moved on purpose)
    tolerance: float  # how far it may stand from the reference, a fraction of it
    why: str          # why the record is deterministic


@dataclass(frozen=True)
class Table:
    guards: list[Guard]
    consistency: dict[str, str]   # record name: why value and bound share a model


def load(path: Path = GUARDS) -> Table:
    """The table; a UserError naming the first entry that is wrong."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    guards = []
    for g in data.get("guard", []):
        keys = set(g) - {"name", "bench", "reference", "tolerance", "why"}
        if keys or not isinstance(g.get("reference"), (int, float)) \
                or not 0 <= g.get("tolerance", -1) < 1 or not g.get("why"):
            raise UserError(f"{path.name}: guard {g.get('name', '?')} needs name, bench, "
                            f"reference (a number), tolerance (0 <= t < 1) and why, nothing "
                            f"else")
        guards.append(Guard(g["name"], g["bench"], float(g["reference"]),
                            float(g["tolerance"]), g["why"]))
    cons = {c["name"]: c["why"] for c in data.get("consistency", [])}
    return Table(guards, cons)


def label(records: Sequence[Record], table: Table) -> None:
    """Give the table's consistency records "kind": "consistency"."""
    for r in records:
        if r["name"] in table.consistency:
            r["kind"] = "consistency"


def misses(r: Record) -> bool:
    """True if @r has a target and is on the wrong side of it."""
    t = r.get("target")
    if t is None:
        return False
    return r["value"] > t if r["better"] == "lower" else r["value"] < t


def _drift(g: Guard, r: Record) -> str | None:
    """Why @r stands too far from @g's reference, or None."""
    off = r["value"] - g.reference
    if abs(off) <= g.tolerance * abs(g.reference):
        return None
    worse = (off > 0) == (r["better"] == "lower")
    pct = 100 * off / g.reference if g.reference else float("inf")
    return (f"{r['name']}: {r['value']} {r['unit']} is {pct:+.1f} % from its reference "
            f"{g.reference:g} (tolerance {100 * g.tolerance:g} %): "
            + ("a regression" if worse else
               "better: if that is meant, set its reference to the new value in "
               "python/wren/data/bench_guards.toml"))


def check(records: Sequence[Record], table: Table) -> tuple[list[str], list[str]]:
    """(failures of the guards, target misses of the other records)."""
    by = {r["name"]: r for r in records}
    fails = []
    for g in table.guards:
        r = by.get(g.name)
        if r is None:
            fails.append(f"{g.name}: no such record (benchmark {g.bench} did not make it)")
        elif r.get("target") is None:
            fails.append(f"{g.name}: a guard without a target")
        elif misses(r):
            fails.append(f"{g.name}: {r['value']} {r['unit']} misses its target {r['target']}")
        elif (why := _drift(g, r)) is not None:
            fails.append(why)
    guarded = {g.name for g in table.guards}
    open_ = [f"{r['name']}: {r['value']} {r['unit']}, target {r['target']} ({r['better']} is "
             f"better)" for r in records if r["name"] not in guarded and misses(r)]
    return fails, open_


def report(records: Sequence[Record], table: Table,
           out: Callable[[str], object] = print) -> int:
    """Print check()'s verdict; 1 if a guard failed, else 0."""
    fails, open_ = check(records, table)
    held = len(table.guards) - len(fails)
    out(f"\nguards: {held} of {len(table.guards)} hold (python/wren/data/bench_guards.toml)")
    for f in fails:
        out(f"FAIL: {f}")
    if open_:
        out(f"open targets, missed (printed, not failed): {len(open_)}")
        for m in open_:
            out(f"  {m}")
    return 1 if fails else 0


def read(path: str) -> list[Record]:
    """The records of a `./wren bench --json` file; a UserError if it is not one."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise UserError(f"{path} is not JSON: {e.msg} (line {e.lineno})") from None
    if not isinstance(data, list) or not all(
            isinstance(r, dict) and {"name", "value", "unit", "better"} <= set(r) for r in data):
        raise UserError(f"{path} is not a list of ./wren bench records")
    return data
