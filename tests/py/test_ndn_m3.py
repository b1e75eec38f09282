"""The NDN stack as a whole Cortex-M3 image (runtime/cortexm/main_ndn.c,
whole_node_ndn; issue 26, the RIOT paper's Figs. 14-15) under qemu: every
Interest of the consumer and of the neighbour the image plays gets its Data,
the packet buffer ends empty, the stack keeps its margin; the figures
wren.ndn_m3 reads from the ELF and from the traced run."""
import os
import shutil
import subprocess

import pytest

from wren import build, ndn_m3, paths

QEMU = ["qemu-system-arm", "-M", "mps2-an385", "-nographic",
        "-semihosting-config", "enable=on,target=native", "-kernel"]

if os.environ.get("WREN_SANITIZED"):
    pytestmark = pytest.mark.skip(reason="Cortex-M3 images: the plain run covers them")


def _need(*tools):
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        pytest.skip(f"Cortex-M3 toolchain or emulator not installed: {', '.join(missing)}")


@pytest.fixture(scope="module")
def tree():
    _need("arm-none-eabi-gcc", "qemu-system-arm")
    return build.cmake_build(paths.BUILD_ARM, "-DCMAKE_BUILD_TYPE=MinSizeRel",
                             f"-DCMAKE_TOOLCHAIN_FILE={paths.ROOT / 'cmake/arm-cortex-m3.cmake'}",
                             target=["wren_whole_node_ndn.elf", "wren_whole_node_reflector.elf"])


def test_ndn_image_answers_every_interest_under_qemu(tree):
    res = subprocess.run(QEMU + [str(tree / "runtime/cortexm/wren_whole_node_ndn.elf")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "36/36 Interests answered with their Data, pktbuf empty" in res.stdout, res.stdout


def test_ndn_image_figures(tree):
    n, ip = ndn_m3.image(), ndn_m3.image(ndn_m3.IP_IMAGE)
    assert n["arena"] == ip["arena"] == 6144 and n["heap"] == ip["heap"]
    # the application's buffers and the neighbour are out of the node's RAM
    assert n["app_buffers"] >= 192 + 128 and n["peer"] > 2 * 128
    assert n["ram_node"] == n["ram"] - n["app_buffers"] - n["peer"]
    # the ndn module's state is a part of it, the packet buffer another
    assert 1000 < n["ndn_state"] < n["ram_node"] - n["arena"]
    assert n["rom"] > 20000 and ip["rom"] > 20000


def test_ndn_counts_grow_with_the_name(tree):
    """Sender and receiver cost, traced instruction by instruction: longer
    Names cost more; the receiver runs only up to a Data that fits a frame."""
    c = ndn_m3.counts()
    xs = sorted(c)
    assert xs[0] == 8 and len(xs) == 11
    snd = [c[x].sender for x in xs]
    assert all(a < b for a, b in zip(snd, snd[1:])), snd
    rcv = [c[x].receiver for x in xs if c[x].receiver is not None]
    assert len(rcv) == 7 and all(a < b for a, b in zip(rcv, rcv[1:])), rcv
    assert all(r > s for r, s in zip(rcv, snd))  # Data out, its digest checked
