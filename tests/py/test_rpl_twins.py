"""RPL built with one mode of operation (core/config.h:
CONFIG_WREN_RPL_STORING=0 or CONFIG_WREN_RPL_NONSTORING=0, the images of the
rom_rpl_storing_bytes / rom_rpl_nonstoring_bytes records): on a Cortex-M3
under qemu, each image's node refuses the mode left out with -ENOTSUP (as a
root, and as the one mode a router is told to join), takes the mode built,
and roots a DODAG of it; the image with both modes takes both."""
import os
import shutil
import subprocess

import pytest

from wren import build, paths

QEMU = ["qemu-system-arm", "-M", "mps2-an385", "-nographic",
        "-semihosting-config", "enable=on,target=native", "-kernel"]

if os.environ.get("WREN_SANITIZED"):
    pytestmark = pytest.mark.skip(reason="Cortex-M3 images: the plain run covers them")


@pytest.mark.parametrize("image,root", [("rpl_storing", "storing root"),
                                        ("rpl_nonstoring", "non-storing root"),
                                        ("rpl_both", "non-storing root")])
def test_image_refuses_the_mode_left_out(image, root):
    missing = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if not shutil.which(t)]
    if missing:
        pytest.skip(f"Cortex-M3 toolchain or emulator not installed: {', '.join(missing)}")
    tree = build.cmake_build(paths.BUILD_ARM, "-DCMAKE_BUILD_TYPE=MinSizeRel",
                             f"-DCMAKE_TOOLCHAIN_FILE={paths.ROOT / 'cmake/arm-cortex-m3.cmake'}",
                             target=f"wren_{image}.elf")
    res = subprocess.run(QEMU + [str(tree / f"runtime/cortexm/wren_{image}.elf")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"wren cortex-m3 rpl: {root}" in res.stdout, res.stdout
