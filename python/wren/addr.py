"""Addresses of wren's nodes, as the stack makes them.

An 802.15.4 interface's EUI-64 is, unless set, derived from the node id
(wren_ieee802154_eui64_from_id in src/link/ieee802154_link.c):
02:57:52:ff:fe and the id's low 24 bits, its high byte folded into the fe.
Its interface identifier is the EUI-64 with the U/L bit inverted (RFC 4944
section 6), so the link-local address of node 1 is fe80::57:52ff:fe00:1;
wren-node --id N and simulated node N have the same one.
"""
import ipaddress


def eui64(node: int) -> bytes:
    """The EUI-64 node `node` derives from its id."""
    return bytes([0x02, 0x57, 0x52, 0xFF, 0xFE ^ ((node >> 24) & 0xFF),
                  (node >> 16) & 0xFF, (node >> 8) & 0xFF, node & 0xFF])


def eui64_str(node: int) -> str:
    """The EUI-64 as wren prints and wren-node --eui64 takes it (aa:bb:...)."""
    return ":".join(f"{b:02x}" for b in eui64(node))


def iid(eui: bytes) -> bytes:
    """RFC 4944 6: the interface identifier of an EUI-64 (U/L bit inverted)."""
    return bytes([eui[0] ^ 0x02]) + eui[1:]


def addr(prefix: str, node: int) -> str:
    """`prefix` (a /64, e.g. "2001:db8::") with node `node`'s IID, compressed."""
    p = ipaddress.IPv6Address(prefix).packed[:8]
    return str(ipaddress.IPv6Address(p + iid(eui64(node))))


def ll(node: int) -> str:
    """Node `node`'s link-local address on 802.15.4."""
    return addr("fe80::", node)
