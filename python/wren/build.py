"""Configure and build the C trees with CMake (incremental)."""
import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from . import paths


def _gen() -> list[str]:
    return ["-G", "Ninja"] if shutil.which("ninja") else []


def cmake_build(tree: Path, *options: str, quiet: bool = True,
                env: Mapping[str, str] | None = None,
                target: str | Sequence[str] | None = None) -> Path:
    """Configure @tree (once) with @options and build it (only @target, one
    name or several, if given); raise on failure. Builds of one tree wait
    for each other (a lock file in it): tests run side by side may each call
    ./wren sim, and two ninjas in one tree break each other's outputs."""
    tree.mkdir(parents=True, exist_ok=True)
    with open(tree / ".wren-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (tree / "CMakeCache.txt").exists():
            cmd = ["cmake", "-S", str(paths.ROOT), "-B", str(tree), *_gen(), *options]
            _run(cmd, quiet, env)
        _run(["cmake", "--build", str(tree), "-j", str(os.cpu_count() or 2),
              *(["--target", *([target] if isinstance(target, str) else target)] if target
                else [])], quiet, env)
    return tree


def _run(cmd: Sequence[str], quiet: bool, env: Mapping[str, str] | None) -> None:
    res = subprocess.run(cmd, capture_output=quiet, text=True,
                         env={**os.environ, **(env or {})})
    if res.returncode != 0:
        if quiet:
            sys.stderr.write(res.stdout + res.stderr)
        raise SystemExit(f"wren: build failed: {' '.join(cmd)}")


def host() -> Path:
    return cmake_build(paths.BUILD, "-DCMAKE_BUILD_TYPE=RelWithDebInfo")


def sim_lib() -> Path:
    """Only what the simulator's Python binding loads (libwren_sim.so), in
    the host tree: ./wren demo, sim and sweep need no more."""
    return cmake_build(paths.BUILD, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", target="wren_sim")


def sanitize() -> Path:
    return cmake_build(paths.BUILD_ASAN, "-DCMAKE_BUILD_TYPE=Debug", "-DWREN_SANITIZE=ON")


def fuzz() -> Path:
    """The libFuzzer targets (fuzz/fuzz_*.c) only: nothing else of the tree."""
    return cmake_build(paths.BUILD_FUZZ, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DWREN_FUZZ=ON",
                       "-DWREN_TESTS=OFF", env={"CC": "clang"},
                       target=sorted(p.stem for p in (paths.ROOT / "fuzz").glob("fuzz_*.c")))


def arm() -> Path:
    return cmake_build(paths.BUILD_ARM, "-DCMAKE_BUILD_TYPE=MinSizeRel",
                       f"-DCMAKE_TOOLCHAIN_FILE={paths.ROOT / 'cmake/arm-cortex-m3.cmake'}")
