"""./wren test: build and run every test, stage by stage.

Stages: C unit tests (ctest), Python tests (pytest), the same C and Python
tests under AddressSanitizer + UndefinedBehaviorSanitizer, every libFuzzer
target for a short time, and the Cortex-M3 build run under qemu with its
size report, the benchmarks' regression guards (./wren bench --check), then
the papers' figures in quick mode (./wren reproduce all --quick, written to
out/reproduce/; every row must state its basis). The summary ends with lizard's list of
the functions of src/ over 80 lines or cyclomatic complexity 20 (printed,
not failed). Exits non-zero if any stage fails. A stage fails on any
sanitizer report too, also one that leaves every exit status 0 (see
_run, _ctest, _sanitized; tests/py/test_testrun.py plants faults).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import argparse
import concurrent.futures
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from . import build, paths, progress


#: What a sanitizer prints when it reports: any of these in a stage's output,
#: its test logs or its report files fails the stage, whatever the exit codes
#: say (a test may ignore a child's status, or a report may be recoverable).
SANITIZER_MARKS = ("runtime error:", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                   "SUMMARY: UndefinedBehaviorSanitizer", "SUMMARY: AddressSanitizer",
                   "SUMMARY: LeakSanitizer")


def sanitizer_report(text: str) -> str | None:
    """The first line of @text that shows a sanitizer report, or None."""
    for line in text.splitlines():
        if any(m in line for m in SANITIZER_MARKS):
            return line
    return None


#: Held while a buffered command's output is printed, so that commands run
#: side by side (stage_fuzz) print theirs as whole blocks.
_print_lock = threading.Lock()


def failure_line(line: str) -> bool:
    """True if @line names a failure: pytest's FAILED/ERROR summary lines,
    ctest's failed or timed-out tests, testrun's own FAIL lines. The summary
    repeats them under their stage, so that the tail of a long log (all a CI
    may keep) says which test failed."""
    s = line.strip()
    return (s.startswith(("FAILED ", "ERROR ", "FAIL:")) or "***Failed" in s
            or "***Timeout" in s or "***Exception" in s)


#: The failure lines seen by _run and the stage checks since the last
#: take_failures() (main takes them after each stage).
_failures: list[str] = []
_failures_lock = threading.Lock()


def _note_failure(line: str) -> None:
    with _failures_lock:
        _failures.append(line.strip())


def take_failures() -> list[str]:
    """The failure lines noted since the last call, once each, in order."""
    with _failures_lock:
        seen = list(dict.fromkeys(_failures))
        _failures.clear()
    return seen


def _run(cmd: Sequence[object], env: Mapping[str, str] | None = None,
         cwd: Path | None = None, timeout: float | None = None,
         buffered: bool = False, ok_codes: Sequence[int] = (0,)) -> bool:
    """Run @cmd, echoing its output (stdout and stderr merged) as it comes,
    or, if @buffered, all at once when it ends (for commands run in parallel).
    @return True if it exited with one of @ok_codes and printed no sanitizer
    report."""
    title = f"$ {' '.join(str(c) for c in cmd)}"
    if not buffered:
        print(title, flush=True)
    p = subprocess.Popen([str(c) for c in cmd], env={**os.environ, **(env or {})}, cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    found: list[str] = []
    kept: list[str] = [title + "\n"]

    def pump() -> None:
        assert p.stdout is not None
        for raw in p.stdout:
            line = raw.decode(errors="replace")
            if buffered:
                kept.append(line)
            else:
                sys.stdout.write(line)
                sys.stdout.flush()
            if not found and sanitizer_report(line):
                found.append(line.strip())
            if failure_line(line):
                _note_failure(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        rc = p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise
    finally:
        reader.join()
        if buffered:
            with _print_lock:
                sys.stdout.write("".join(kept))
                sys.stdout.flush()
    if found:
        _fail(f"FAIL: sanitizer report in the output of {Path(str(cmd[0])).name}: {found[0]}")
    elif rc not in ok_codes:
        _fail(f"FAIL: {Path(str(cmd[0])).name} exited with status {rc}")
    return rc in ok_codes and not found


def _fail(line: str) -> None:
    """Print @line (a FAIL: line) and note it for the summary."""
    print(line, flush=True)
    _note_failure(line)


def _sanitized(run: Callable[[Mapping[str, str]], bool], asan: str,
               ubsan: str = "print_stacktrace=1:halt_on_error=1") -> bool:
    """Call @run with ASAN_OPTIONS/UBSAN_OPTIONS (@asan, @ubsan) that also
    send every report, from any process the run starts, to files of a
    directory of its own (log_path: reports of processes whose output a test
    captures or whose exit status it ignores are found too; GCC's UBSan,
    when linked with ASan, ignores log_path and prints to stderr, and its
    halt_on_error makes the report an exit status). @return False if @run
    did, or if any report file holds a report (each file is printed). A file
    with warnings only (ASan's one line about swapcontext, written by every
    process that switches application threads) is shown, not failed."""
    with tempfile.TemporaryDirectory(prefix="wren-sanitizer-") as logs:
        where = f"log_path={logs}/report"
        ok = run({"ASAN_OPTIONS": f"{asan}:{where}" if asan else where,
                  "UBSAN_OPTIONS": f"{ubsan}:{where}" if ubsan else where})
        for f in sorted(Path(logs).iterdir()):
            text = f.read_text(errors="replace")
            if sanitizer_report(text) is None:
                print(f"sanitizer warning, not a report ({f.name}): {text.strip()}", flush=True)
                continue
            print(f"FAIL: sanitizer report ({f.name}):\n{text}", flush=True)
            _note_failure(f"FAIL: sanitizer report ({f.name}): {sanitizer_report(text)}")
            ok = False
    return ok


def _ctest(tree: Path, env: Mapping[str, str] | None = None) -> bool:
    """ctest in @tree; the output of every test, passed or not (ctest shows
    only the failed ones'), is searched for sanitizer reports as well."""
    log = tree / "Testing/Temporary/LastTest.log"
    log.unlink(missing_ok=True)
    ok = _run(["ctest", "--test-dir", tree, "--output-on-failure", "-j", "2"], env=env)
    found = sanitizer_report(log.read_text(errors="replace")) if log.exists() else None
    if found:
        _fail(f"FAIL: sanitizer report in a test's output ({log}): {found.strip()}")
    return ok and not found


def stage_unit() -> bool:
    return _ctest(build.host())


def _pytest(env: Mapping[str, str] | None = None, args: Sequence[object] = (),
            tests: Sequence[object] = (paths.ROOT / "tests/py",)) -> bool:
    """pytest on @tests in two parts: the tests not marked realtime side by
    side, one worker per CPU (pytest-xdist; a file's tests stay on one
    worker, so module fixtures are made once), then the realtime ones
    (wall-clock bound: real processes, ZEP, TAP; tests/py/conftest.py marks
    them) alone, so that the other tests' load cannot make them late."""
    py = paths.ROOT / ".venv/bin/python"
    env = {"PYTHONPATH": str(paths.ROOT / "python"), **(env or {})}
    jobs = os.cpu_count() or 1
    common = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=15", *args]
    parallel = ["-n", str(jobs), "--dist", "loadfile"] if jobs > 1 else []
    ok = True
    for part, extra in (("not realtime", parallel), ("realtime", [])):
        print(f"--- pytest: tests {part}", flush=True)
        # pytest's exit status 5: no test was selected (every one deselected)
        ok &= _run([py, *common, *extra, "-m", part, *tests], env=env, ok_codes=(0, 5))
    return ok


def stage_python() -> bool:
    build.host()
    # the sweep on a local Ray instance too (test_sweep; ~30 s of both CPUs,
    # run beside the other simulated tests; never in the sanitized stage)
    return _pytest({"WREN_TEST_RAY": "1"})


def stage_sanitizers() -> bool:
    tree = build.sanitize()
    ok = _sanitized(lambda env: _ctest(tree, env), "detect_leaks=1:abort_on_error=1")
    # the Python tests again, with the sanitized library under the interpreter
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True,
                             text=True).stdout.strip()
    libubsan = subprocess.run(["gcc", "-print-file-name=libubsan.so"], capture_output=True,
                              text=True).stdout.strip()
    host_tests = (paths.ROOT / "tests/py/test_host.py", paths.ROOT / "tests/py/test_tcp_linux.py",
                  paths.ROOT / "tests/py/test_coap_linux.py",
                  paths.ROOT / "tests/py/test_coap_tcp_linux.py",
                  paths.ROOT / "tests/py/test_coap_plugtest.py",
                  paths.ROOT / "tests/py/test_lwip.py",
                  # wren-node processes only (issue 23): the sanitized ones
                  paths.ROOT / "tests/py/test_rpl_rul_host.py",
                  paths.ROOT / "tests/py/test_br_radio.py",
                  paths.ROOT / "tests/py/test_zep_rxdone.py",
                  paths.ROOT / "tests/py/test_riot.py",
                  paths.ROOT / "tests/py/test_ndn_interop.py")
    ok &= _sanitized(
        lambda env: _pytest({"WREN_LIB": str(tree / "libwren_sim.so"),
                             "LD_PRELOAD": f"{libasan}:{libubsan}", "WREN_SANITIZED": "1",
                             **env},
                            # the host tests run real programs (tshark, ping): not with the
                            # sanitizers preloaded into them, but against sanitized wren-node
                            args=[a for t in host_tests for a in ("--ignore", t)]),
        # CPython itself is not leak-clean; the C tests above check leaks
        "detect_leaks=0:abort_on_error=1")
    ok &= _sanitized(lambda env: _pytest({"WREN_BUILD": str(tree), **env}, tests=host_tests),
                     "detect_leaks=1:abort_on_error=1")
    return ok


def stage_fuzz(seconds: int, tree: Path | None = None, fuzz_dir: Path | None = None,
               jobs: int | None = None) -> bool:
    """Each fuzz target (fuzz_*.c in @fuzz_dir, built in @tree; by default
    wren's, built now) for @seconds on its corpus, @jobs targets at a time
    (default: one per CPU; each target is one single-threaded process)."""
    tree = tree or build.fuzz()
    fuzz_dir = fuzz_dir or paths.ROOT / "fuzz"
    jobs = jobs or os.cpu_count() or 1

    def one(target: Path) -> bool:
        name = target.stem
        corpus = fuzz_dir / "corpus" / name.removeprefix("fuzz_")
        with tempfile.TemporaryDirectory() as work:
            dirs: list[object] = [work] + ([corpus] if corpus.is_dir() else [])
            return _sanitized(lambda env: _run([tree / name, f"-max_total_time={seconds}",
                                                "-print_final_stats=1",
                                                f"-artifact_prefix={work}/", *dirs], env=env,
                                               buffered=jobs > 1),
                              "detect_leaks=1")

    targets = sorted(fuzz_dir.glob("fuzz_*.c"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(one, targets))
    return all(results)


def stage_cortexm() -> bool:
    tree = build.arm()
    ok = True
    for image in ("reflect", "6ln_host", "6ln_host_softmac", "6ln_host_lto", "udp", "tcp", "coap",
                  "coap_server", "coap_server_min", "cpucost", "tsch"):
        elf = tree / f"runtime/cortexm/wren_{image}.elf"
        if shutil.which("qemu-system-arm"):
            ok &= _run(["qemu-system-arm", "-M", "mps2-an385", "-nographic",
                        "-semihosting-config", "enable=on,target=native", "-kernel", elf],
                       timeout=120)
        else:
            print(f"qemu-system-arm not installed: {elf.name} built, not run")
    if shutil.which("qemu-system-arm"):
        # the CPU model's costs file against a fresh measurement: a stack
        # change moves the counts, so a drift is reported, not failed
        from . import cpu
        now, kept = cpu.measure(), cpu.load()["instructions"]
        drift = {op: (kept[op], now[op]) for op in cpu.OPS if round(now[op], 3) != kept[op]}
        print("cpu_costs.toml matches the Cortex-M3 build" if not drift else
              f"cpu_costs.toml is stale (kept, measured: {drift}): run ./wren cpucosts")
    from . import size
    size.main(None)
    return ok


def stage_bench_check() -> bool:
    """./wren bench --check: CI's regression guards
    (python/wren/data/bench_guards.toml: deterministic records whose targets
    are met, each within its tolerance of its reference); the other records'
    missed targets are printed, never failed."""
    from . import bench
    return bench.main(argparse.Namespace(name=None, json=None, check=True, from_=None)) == 0


def stage_reproduce() -> bool:
    """./wren reproduce all --quick: every figure of the papers runs (or says
    why it cannot); a figure whose code fails fails the stage, and so does a
    row with a wren value that does not say what is measured and what differs
    from the paper (reproduce.unstated)."""
    import json
    from . import reproduce
    ok = reproduce.main(argparse.Namespace(names=["all"], quick=True, out=None)) == 0
    data = json.loads((paths.OUT / "reproduce" / "report.json").read_text())
    for row in reproduce.unstated(data):
        _fail(f"FAIL: reproduce row without its basis (measured, differs): {row}")
        ok = False
    return ok


#: How many failure lines the summary shows under a failed stage.
MAX_SUMMARY_FAILURES = 12

#: Function shape (issue 28): a function of src/ longer than this many lines
#: or with a cyclomatic complexity above SHAPE_MAX_CCN is listed in the
#: summary (lizard -w -L 80 -C 20), and tests/py/test_testrun.py fails when
#: src/ has one (or a source file over SHAPE_MAX_FILE_LINES lines).
SHAPE_MAX_LINES = 80
SHAPE_MAX_CCN = 20
SHAPE_MAX_FILE_LINES = 1000


_LIZARD_WARNING = re.compile(r"^(.*):(\d+): warning: (\S+) has \d+ NLOC, (\d+) CCN, .*?"
                             r"(\d+) length")


def shape_report(root: Path | None = None) -> list[tuple[str, int, str, int, int]] | None:
    """The functions of the C sources under @root (default src/) longer than
    SHAPE_MAX_LINES lines or with a cyclomatic complexity above
    SHAPE_MAX_CCN, as lizard -w finds them: [(file, line, function, length,
    CCN)] in file order. None if lizard is not installed (it is in
    python/requirements.txt, which scripts/bootstrap.sh installs)."""
    root = root or paths.ROOT / "src"
    where = root.relative_to(paths.ROOT) if root.is_relative_to(paths.ROOT) else root
    cmd = [sys.executable, "-m", "lizard", "-w", "-L", str(SHAPE_MAX_LINES),
           "-C", str(SHAPE_MAX_CCN), str(where)]
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=paths.ROOT)
    if "No module named lizard" in res.stderr:
        return None
    found = []
    for line in res.stdout.splitlines():
        m = _LIZARD_WARNING.match(line)
        if m:
            f, ln, name, ccn, length = m.groups()
            found.append((f, int(ln), name, int(length), int(ccn)))
    if not found and res.returncode != 0:
        raise RuntimeError(f"lizard failed: {res.stderr.strip()}")
    return sorted(found)


def print_shape_report() -> None:
    """The summary's function-shape lines: how many functions of src/ pass
    the limits, and which (the Python stage's test_src_within_the_shape_limits
    fails on any)."""
    try:
        found = shape_report()
    except (OSError, RuntimeError) as e:
        print(f"function shape: not measured ({e})")
        return
    if found is None:
        print("function shape: not measured, lizard is not installed "
              "(./scripts/bootstrap.sh test installs it)")
        return
    print(f"function shape (lizard -w -L {SHAPE_MAX_LINES} -C {SHAPE_MAX_CCN} src): "
          f"{len(found)} functions over {SHAPE_MAX_LINES} lines or cyclomatic complexity "
          f"{SHAPE_MAX_CCN}")
    for f, ln, name, length, ccn in found:
        print(f"      {f}:{ln} {name}: {length} lines, CCN {ccn}")


def main(args: argparse.Namespace) -> int:
    stages: list[tuple[str, Callable[[], bool]]] = [("C unit tests", stage_unit), ("Python tests", stage_python)]
    if not args.quick:
        stages += [("sanitizers (ASan+UBSan)", stage_sanitizers),
                   ("fuzz targets", lambda: stage_fuzz(args.fuzz_seconds)),
                   ("Cortex-M3 build, qemu run, size", stage_cortexm),
                   ("bench guards (./wren bench --check)", stage_bench_check),
                   ("papers' figures (./wren reproduce all --quick)", stage_reproduce)]
    results = []
    with progress.TaskBar(len(stages), "test", unit="stage") as bar:
        for name, fn in stages:
            progress.echo(f"\n=== {name} ===\n")
            bar.task(name)
            t0 = time.monotonic()
            try:
                ok = fn()
            except (subprocess.SubprocessError, SystemExit, OSError) as e:
                progress.echo(f"{name}: {e}\n")
                _note_failure(f"FAIL: {name}: {e}")
                ok = False
            results.append((name, ok, time.monotonic() - t0, take_failures()))
            bar.advance()
    print("\n=== summary ===")
    for name, ok, dt, failures in results:
        print(f"{'PASS' if ok else 'FAIL'}  {name}  ({dt:.0f} s)")
        if not ok:
            # the last ones are the stage's own verdicts; a flood of them is cut
            for line in failures[-MAX_SUMMARY_FAILURES:]:
                print(f"      {line[:300]}")
    print_shape_report()
    return 0 if all(ok for _, ok, _, _ in results) else 1
