"""The simulated wired Ethernet bus (runtime/sim/sim_eth.h), on a Sim.

    sim = Sim(1)
    ethernet.enable(sim)                 # nodes added from now on get a port
    router, host = sim.add_node(0, 0), sim.add_node(5, 0)
    ethernet.enable(sim, False)
    ethernet.params(sim, latency_us=50, bitrate=100_000_000)
    ethernet.open_pcap(sim, "eth.pcap")  # LINKTYPE_ETHERNET
"""
import ctypes
from ctypes import c_char_p, c_int, c_uint32, c_void_p
from typing import Final

from .lib import Sim, _check, load_with

_SIGNATURES: Final = {
    "wren_sim_set_eth": (c_int, [c_void_p, c_int]),
    "wren_sim_eth_params": (c_int, [c_void_p, c_uint32, c_uint32]),
    "wren_sim_eth_if": (c_int, [c_void_p, c_uint32]),
    "wren_sim_eth_open_pcap": (c_int, [c_void_p, c_char_p]),
}


def _lib() -> ctypes.CDLL:
    return load_with(_SIGNATURES)


def enable(sim: Sim, on: bool = True) -> None:
    """Nodes added to @sim from now on get an Ethernet port (or not)."""
    _check(_lib().wren_sim_set_eth(sim.h, int(on)), "ethernet enable")


def params(sim: Sim, latency_us: int, bitrate: int) -> None:
    """The bus's one-way latency (us) and bit rate (bit/s)."""
    if not 0 <= latency_us < 2**32:
        raise ValueError(f"ethernet latency_us = {latency_us}: takes 0..4294967295")
    if not 0 < bitrate < 2**32:
        raise ValueError(f"ethernet bitrate = {bitrate}: takes 1..4294967295 (bit/s)")
    _check(_lib().wren_sim_eth_params(sim.h, latency_us, bitrate), "ethernet params")


def interface(sim: Sim, node: int) -> int:
    """@node's Ethernet interface id."""
    return _check(_lib().wren_sim_eth_if(sim.h, node), f"ethernet interface of node {node}")


def open_pcap(sim: Sim, path: str) -> None:
    """Capture every frame on the bus to @path (LINKTYPE_ETHERNET, 1)."""
    _check(_lib().wren_sim_eth_open_pcap(sim.h, str(path).encode()), f"ethernet pcap {path}")
