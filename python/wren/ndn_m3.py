"""The NDN stack on the Cortex-M3 (runtime/cortexm/main_ndn.c, the
whole_node_ndn image) beside the IP stack's whole-node image: its whole ROM
and RAM (the RIOT paper's Figure 14) and its instructions per Interest at
the sender and per Interest-to-Data at the receiver against name length,
every guest instruction traced under qemu (Figure 15), cached on disk beside
the image keyed by its SHA-256 as qemu_bench.udp's counts are."""
import hashlib
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import build, qemu_bench, size

IMAGE = "whole_node_ndn"
IP_IMAGE = "whole_node_reflector"
#: the application's own buffers (the paper's figures are "w/o application
#: buffers"): its packet buffer and the producer's prepared Data
APP_BUFFERS = ("app_buf", "app_chunk")
#: the neighbour the image plays (another node's device and buffers)
PEER = ("peer_dev", "peer_rx", "peer_tx", "peer_name", "peer_pkt_buf", "peer_piece", "peer_lp",
        "peer_seq")
_CACHE_VERSION = "ndn-1"


def image(name: str = IMAGE) -> dict[str, int]:
    """size.whole_image's figures of @name, with the application's buffers
    and (the NDN image) the neighbour it plays set apart: ram_node = the
    node's RAM, what is compared."""
    w = size.whole_image(name)
    elf = build.arm() / f"runtime/cortexm/wren_{name}.elf"
    syms = size._symbol_sizes(elf, APP_BUFFERS + PEER + size.WHOLE_APP_BUFFERS)
    app = sum(syms.get(n, 0) for n in set(APP_BUFFERS + size.WHOLE_APP_BUFFERS))
    peer = sum(syms.get(n, 0) for n in PEER)
    mod = size._symbol_sizes(elf, ("ndn_state",)).get("ndn_state", 0)
    return {**w, "app_buffers": app, "peer": peer, "ram_node": w["ram"] - app - peer,
            "ndn_state": mod}


@dataclass
class NdnM3:
    """Cortex-M3 instructions at one name length (the Name's TLV-VALUE)."""
    name_len: int
    sender: float            # an Interest from the consumer to the device
    receiver: float | None   # the peer's Interest in to the Data at the device


def _measure(tree: Path) -> dict[int, NdnM3]:
    elf = tree / f"runtime/cortexm/wren_{IMAGE}.elf"
    q = qemu_bench._Qemu(elf)
    phases = qemu_bench._phases(q.lines(), qemu_bench.calls(elf),
                                qemu_bench.function_layers(tree, IMAGE),
                                qemu_bench.instructions(elf))
    if q.returncode != 0:
        raise RuntimeError(f"wren_{IMAGE}.elf failed under qemu: {q.output.strip()[-300:]}")
    m = re.search(r"^name lengths:((?: \d+)+)$", q.output, re.M)
    r = re.search(r"^receiver up to: (\d+)$", q.output, re.M)
    if m is None or r is None:
        raise RuntimeError(f"wren_{IMAGE}.elf printed no name lengths: {q.output[-300:]}")
    lens = [int(x) for x in m.group(1).split()]
    rx_max = int(r.group(1))
    want = len(lens) + sum(n <= rx_max for n in lens)
    if len(phases) != want:
        raise RuntimeError(f"wren_{IMAGE}.elf: {want} phases expected, {len(phases)} traced")
    out, it = {}, iter(phases)
    for n in lens:
        snd = next(it).instructions
        rcv = next(it).instructions if n <= rx_max else None
        out[n] = NdnM3(n, snd, rcv)
    return out


def counts() -> dict[int, NdnM3]:
    """{name length: NdnM3}: one traced qemu run of the image, cached."""
    if not shutil.which("qemu-system-arm"):
        raise RuntimeError("qemu-system-arm is not installed (apt-get install qemu-system-arm)")
    tree = build.arm()
    elf = tree / f"runtime/cortexm/wren_{IMAGE}.elf"
    path = tree / f"runtime/cortexm/wren_{IMAGE}.m3counts.json"
    key = hashlib.sha256(elf.read_bytes() + _CACHE_VERSION.encode()).hexdigest()
    if path.exists():
        data = json.loads(path.read_text())
        if data.get("key") == key:
            return {int(k): NdnM3(**v) for k, v in data["lens"].items()}
    res = _measure(tree)
    path.write_text(json.dumps({"key": key, "lens": {k: vars(v) for k, v in res.items()}}))
    return res


def interest_len(name_len: int) -> int:
    """Octets of the image's consumer Interest with a Name of @name_len:
    Interest and Name TLV-TYPE/LENGTH, the Name and the Nonce (6) that
    wren_ndn_app_express adds."""
    return 2 + 2 + name_len + 6


def ip_pipe(payload: int) -> tuple[int, float]:
    """wren's IP path for a payload of about @payload bytes: the nearest
    size qemu_bench.udp('pipe') measures and its instructions per datagram
    (node A's socket to node B's: send and receive)."""
    per = qemu_bench.udp("pipe")
    s = min(per, key=lambda k: (abs(k - payload), k))
    return s, per[s].total


def cost_ratio_shortest() -> tuple[float, dict[str, float]]:
    """NDN / IP Cortex-M3 instructions at the shortest name: one Interest
    out at the sender plus its Interest-to-Data at the receiver, over one
    datagram of the Interest's size sent and received by wren's IP path."""
    c = counts()
    n = min(k for k, v in c.items() if v.receiver is not None)
    ndn = c[n].sender + (c[n].receiver or 0)
    size_, ip = ip_pipe(interest_len(n))
    return ndn / ip, {"name_len": n, "ndn": ndn, "sender": c[n].sender,
                      "receiver": c[n].receiver or 0, "ip_payload": size_, "ip": ip}
