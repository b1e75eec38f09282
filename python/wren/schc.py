"""SCHC rules (src/wire/schc.h's text form) for a sensor and its router.

`pair_rules()` writes the rules that compress UDP/IPv6 between one sensor
(the Device) and one router (the Application) to the rule ID and a 2-bit
hop-limit index, both ways, with a rule for their link-local addresses too
and the no-compression rule as a fallback; `check()` reads a rule text with
wren's own parser (through libwren_sim.so) and raises ValueError with its
one-line mistake. The text goes to a node's SCHC module with SET
WREN_NETOPT_SCHC_RULES.
"""
from __future__ import annotations

import ipaddress
from ctypes import c_char_p, c_int, c_size_t, c_void_p, create_string_buffer

from wren.lib import load

RULES_BAD = -1000  # runtime/sim/wire_schc.c: the text did not parse


def _half(addr: str, which: int) -> str:
    return "0x" + ipaddress.IPv6Address(addr).packed[8 * which:8 * which + 8].hex()


def _rule(rule_id: int, dev: str, app: str, dev_port: int, app_port: int) -> list[str]:
    return [
        f"rule {rule_id}",
        "ipv6.ver bi equal not-sent 6",
        "ipv6.tc bi equal not-sent 0",
        "ipv6.fl bi equal not-sent 0",
        "ipv6.len bi ignore compute",
        "ipv6.nxt bi equal not-sent 17",
        # a sensor sends with 64, a router forwards with one less; 255 for ND
        "ipv6.hop bi match-mapping mapping-sent 64,63,255",
        f"ipv6.devpre bi equal not-sent {_half(dev, 0)}",
        f"ipv6.deviid bi equal not-sent {_half(dev, 1)}",
        f"ipv6.apppre bi equal not-sent {_half(app, 0)}",
        f"ipv6.appiid bi equal not-sent {_half(app, 1)}",
        f"udp.devport bi equal not-sent {dev_port}",
        f"udp.appport bi equal not-sent {app_port}",
        "udp.len bi ignore compute",
        "udp.cksum bi ignore compute",
    ]


def pair_rules(sensor: str, router: str, sensor_port: int, router_port: int,
               sensor_ll: str | None = None, router_ll: str | None = None) -> str:
    """Rule 1: the sensor's and the router's addresses and ports; rule 2 the
    same between their link-local addresses (when given); rule 22 no
    compression (the default set's)."""
    lines = _rule(1, sensor, router, sensor_port, router_port)
    if sensor_ll and router_ll:
        lines += _rule(2, sensor_ll, router_ll, sensor_port, router_port)
    return "\n".join(lines + ["rule 22 nocomp", ""])


def check(text: str) -> None:
    """Raise ValueError with wren's one-line message if @text does not parse."""
    lib = load()
    fn = lib.wren_wire_schc_compress
    fn.restype = c_int
    fn.argtypes = [c_char_p, c_int, c_char_p, c_size_t, c_void_p, c_size_t, c_void_p, c_size_t]
    out, err = create_string_buffer(8), create_string_buffer(160)
    if fn(text.encode(), 1, b"", 0, out, 8, err, 160) == RULES_BAD:
        raise ValueError(err.value.decode())
