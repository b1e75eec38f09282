"""./wren test: build and run every test, stage by stage.

Stages: C unit tests (ctest), Python tests (pytest), the same C and Python
tests under AddressSanitizer + UndefinedBehaviorSanitizer, every libFuzzer
target for a short time, and the Cortex-M3 build run under qemu with its
size report. Exits non-zero if any stage fails.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import argparse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from . import build, paths


def _run(cmd: Sequence[object], env: Mapping[str, str] | None = None,
         cwd: Path | None = None, timeout: float | None = None) -> bool:
    print(f"$ {' '.join(str(c) for c in cmd)}", flush=True)
    res = subprocess.run([str(c) for c in cmd], env={**os.environ, **(env or {})},
                         cwd=cwd, timeout=timeout)
    return res.returncode == 0


def stage_unit() -> bool:
    tree = build.host()
    return _run(["ctest", "--test-dir", tree, "--output-on-failure", "-j", "2"])


def _pytest(env: Mapping[str, str] | None = None, args: Sequence[str] = ()) -> bool:
    py = paths.ROOT / ".venv/bin/python"
    return _run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args,
                 paths.ROOT / "tests/py"],
                env={"PYTHONPATH": str(paths.ROOT / "python"), **(env or {})})


def stage_python() -> bool:
    build.host()
    return _pytest()


def stage_sanitizers() -> bool:
    tree = build.sanitize()
    ok = _run(["ctest", "--test-dir", tree, "--output-on-failure", "-j", "2"],
              env={"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=1",
                   "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"})
    # the Python tests again, with the sanitized library under the interpreter
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                             text=True).stdout.strip()
    libubsan = subprocess.run(["gcc", "-print-file-name=libubsan.so"], capture_output=True,
                              text=True).stdout.strip()
    ok &= _pytest({"WREN_LIB": str(tree / "libwren_sim.so"),
                   "LD_PRELOAD": f"{libasan}:{libubsan}",
                   # CPython itself is not leak-clean; the C tests above check leaks
                   "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
                   "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
                   "WREN_SANITIZED": "1"},
                  # the host tests run real programs (tshark, ping): not with the
                  # sanitizers preloaded into them, but against sanitized wren-node
                  args=("--ignore", str(paths.ROOT / "tests/py/test_host.py"),
                        "--ignore", str(paths.ROOT / "tests/py/test_tcp_linux.py")))
    ok &= _run([paths.ROOT / ".venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                paths.ROOT / "tests/py/test_host.py", paths.ROOT / "tests/py/test_tcp_linux.py"],
               env={"PYTHONPATH": str(paths.ROOT / "python"), "WREN_BUILD": str(tree),
                    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=1",
                    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"})
    return ok


def stage_fuzz(seconds: int) -> bool:
    tree = build.fuzz()
    ok = True
    for target in sorted(Path(paths.ROOT / "fuzz").glob("fuzz_*.c")):
        name = target.stem
        corpus = paths.ROOT / "fuzz/corpus" / name.removeprefix("fuzz_")
        with tempfile.TemporaryDirectory() as work:
            dirs: list[object] = [work] + ([corpus] if corpus.is_dir() else [])
            ok &= _run([tree / name, f"-max_total_time={seconds}", "-print_final_stats=1",
                        f"-artifact_prefix={work}/", *dirs],
                       env={"ASAN_OPTIONS": "detect_leaks=1"})
    return ok


def stage_cortexm() -> bool:
    tree = build.arm()
    ok = True
    for image in ("reflect", "ip6lo", "ip6lo_softmac", "ip6lo_lto", "udp", "tcp"):
        elf = tree / f"runtime/cortexm/wren_{image}.elf"
        if shutil.which("qemu-system-arm"):
            ok &= _run(["qemu-system-arm", "-M", "mps2-an385", "-nographic",
                        "-semihosting-config", "enable=on,target=native", "-kernel", elf],
                       timeout=120)
        else:
            print(f"qemu-system-arm not installed: {elf.name} built, not run")
    from . import size
    size.main(None)
    return ok


def main(args: argparse.Namespace) -> int:
    stages: list[tuple[str, Callable[[], bool]]] = [("C unit tests", stage_unit), ("Python tests", stage_python)]
    if not args.quick:
        stages += [("sanitizers (ASan+UBSan)", stage_sanitizers),
                   ("fuzz targets", lambda: stage_fuzz(args.fuzz_seconds)),
                   ("Cortex-M3 build, qemu run, size", stage_cortexm)]
    results = []
    for name, fn in stages:
        print(f"\n=== {name} ===", flush=True)
        t0 = time.monotonic()
        try:
            ok = fn()
        except (subprocess.SubprocessError, SystemExit, OSError) as e:
            print(f"{name}: {e}")
            ok = False
        results.append((name, ok, time.monotonic() - t0))
    print("\n=== summary ===")
    for name, ok, dt in results:
        print(f"{'PASS' if ok else 'FAIL'}  {name}  ({dt:.0f} s)")
    return 0 if all(ok for _, ok, _ in results) else 1
