"""The energy model: per node, the simulated radio's time in each state
(radio.time_{off,listen,rx,tx}_us, counted by the sim radio driver,
runtime/sim/medium.c) times the current a real part draws in that state,
times the supply voltage, from a profile in data/energy_profiles.toml
(datasheet figures, each cited there).

    E [mJ] = V * sum over states s of I_s [mA] * t_s [s]
             + V * I_mcu_active [mA] * t_cpu [s]               (when the profile has it)
             + V * I_mcu_sleep [mA] * (duration - t_cpu) [s]   (when the profile has it;
                                                                the whole run without
                                                                an active current)

CPU active time is estimated per node by wren.cpu (Cortex-M3 instructions
per frame and datagram, measured under qemu, times the node's counters) and
added to the result as its "cpu" block. It is charged in mJ only when the
profile has an MCU active current (mcu_active_ma: the MCU is active for
t_cpu and asleep for the rest of the run). The datasheet profiles have none,
because no datasheet figure could be checked; iotlab-m3-board takes the RIOT
paper's own board figures instead. A profile without an MCU sleep figure
charges the sleeping MCU nothing; the gaps are stated in the result ("mcu"
of the energy block). Each node's block splits the MCU's share into
mcu_active_mj and mcu_sleep_mj.

Per node, beside the total: mJ per packet the node's applications received
(app.received) and uJ per payload byte received (app.rx_bytes), None when it
received none. The network's totals divide the sum of every node's energy by
every delivered packet and payload byte.
"""
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import UserError

PROFILES: Path = Path(__file__).resolve().parent / "data" / "energy_profiles.toml"
DEFAULT = "iotlab-m3"
#: the profile a node's LoRa interfaces are charged by (their lora<N>.time_*
#: counters), beside the node's own profile for its 802.15.4 radio and MCU
LORA_PROFILE = "sx1276"
_LORA_TIME = re.compile(r"^(lora\d*)\.time_(off|listen|rx|tx)_us$")
#: the radio states the simulator accounts, as named in its counters
STATES = ("off", "listen", "rx", "tx")


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    supply_v: float
    radio_ma: Mapping[str, float]   # per state of STATES
    mcu_sleep_ma: float | None      # None: not in the profile, not charged
    mcu_active_ma: float | None     # None: CPU time not charged in mJ
    sources: tuple[str, ...]
    missing: tuple[str, ...]


def _load_all(path: Path = PROFILES) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


def names(path: Path = PROFILES) -> list[str]:
    return list(_load_all(path))


def profile(name: str, path: Path = PROFILES) -> Profile:
    """The profile @name (a UserError naming the known ones if there is none)."""
    data = _load_all(path)
    if name not in data:
        raise UserError(f"unknown energy profile '{name}' (known: {', '.join(data)})")
    p = data[name]
    return Profile(name=name, description=p["description"], supply_v=float(p["supply_v"]),
                   radio_ma={s: float(p[f"radio_{s}_ma"]) for s in STATES},
                   mcu_sleep_ma=float(p["mcu_sleep_ma"]) if "mcu_sleep_ma" in p else None,
                   mcu_active_ma=float(p["mcu_active_ma"]) if "mcu_active_ma" in p else None,
                   sources=tuple(p.get("sources", ())), missing=tuple(p.get("missing", ())))


def _per(num: float, den: int) -> float | None:
    return num / den if den else None


def node_energy(c: Mapping[str, int], duration_s: float, p: Profile,
                cpu_s: float = 0.0) -> dict[str, Any]:
    """The energy block of one node from its counters (and its CPU active
    time @cpu_s, charged only if the profile has an MCU active current)."""
    radio_mj = {s: p.supply_v * p.radio_ma[s] * c.get(f"radio.time_{s}_us", 0) / 1e6
                for s in STATES}
    sleep_ma = p.mcu_sleep_ma or 0.0
    active_mj = 0.0
    if p.mcu_active_ma is not None:
        active_mj = p.supply_v * p.mcu_active_ma * cpu_s
    # asleep whenever not active (the sleep current for the whole run, less
    # the active time when the active current is charged for it)
    asleep_s = duration_s - (cpu_s if p.mcu_active_ma is not None else 0.0)
    sleep_mj = p.supply_v * sleep_ma * asleep_s
    mcu_mj = active_mj + sleep_mj
    lora_mj = lora_energy(c)
    total = sum(radio_mj.values()) + mcu_mj + sum(lora_mj.values())
    rcvd, rbytes = c.get("app.received", 0), c.get("app.rx_bytes", 0)
    per_byte = _per(total, rbytes)
    return {
        "mj": total,
        "radio_mj": radio_mj,
        "mcu_mj": mcu_mj,
        "lora_mj": lora_mj,
        "mcu_active_mj": active_mj,
        "mcu_sleep_mj": sleep_mj,
        "mj_per_rx_packet": _per(total, rcvd),
        "uj_per_rx_byte": None if per_byte is None else per_byte * 1000.0,
    }


def lora_energy(c: Mapping[str, int]) -> dict[str, float]:
    """mJ of each LoRa interface's radio (by its counter set, "lora2"), its
    time in each state times LORA_PROFILE's currents; {} without one."""
    times: dict[str, dict[str, int]] = {}
    for name, v in c.items():
        m = _LORA_TIME.match(name)
        if m:
            times.setdefault(m.group(1), {})[m.group(2)] = v
    if not times:
        return {}
    p = profile(LORA_PROFILE)
    return {dev: p.supply_v * sum(p.radio_ma[s] * t.get(s, 0) for s in STATES) / 1e6
            for dev, t in times.items()}


def mcu_note(p: Profile) -> str:
    """What the MCU share of the figures is."""
    if p.mcu_active_ma is None:
        cpu = ("CPU active time is estimated (cpu_ms, cpu%) but not charged in mJ: the "
               "profile has no checked MCU active current")
    else:
        cpu = "CPU active time is charged at the profile's MCU active current"
    if p.mcu_sleep_ma is None:
        return f"{cpu}; the profile has no MCU sleep figure, so the sleeping MCU is not charged"
    if p.mcu_active_ma is None:
        return f"{cpu}; the MCU is charged its sleep current for the whole run"
    return f"{cpu}; the MCU is charged its sleep current whenever it is not active"


def annotate(result: dict[str, Any], name: str = DEFAULT) -> None:
    """Add the energy of every node, and the network's, to a ./wren sim
    result (in place): result["energy"] and each node's "energy"."""
    from . import cpu
    p = profile(name)
    cpu.annotate(result)
    duration = float(result["duration_s"])
    total = 0.0
    for nd in result["nodes"]:
        nd["energy"] = node_energy(nd["counters"], duration, p, nd["cpu"]["active_s"])
        total += nd["energy"]["mj"]
    t = result["totals"]
    delivered, dbytes = t.get("app.received", 0), t.get("app.rx_bytes", 0)
    per_byte = _per(total, dbytes)
    result["energy"] = {
        "profile": p.name,
        "description": p.description,
        "supply_v": p.supply_v,
        "radio_ma": dict(p.radio_ma),
        "mcu_sleep_ma": p.mcu_sleep_ma,
        "mcu_active_ma": p.mcu_active_ma,
        "mcu": mcu_note(p),
        "lora": (f"each LoRa interface's radio is charged by the {LORA_PROFILE} profile "
                 "(its lora<N>.time_* counters) and added to its node's mJ"),
        "sources": list(p.sources),
        "missing": list(p.missing),
        "mj": total,
        "mj_per_delivered_packet": _per(total, delivered),
        "uj_per_delivered_byte": None if per_byte is None else per_byte * 1000.0,
    }
