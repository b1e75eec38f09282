"""./wren test fails on any sanitizer report (python/wren/testrun.py).

Faults are planted in small programs this test builds in a temporary
directory (a signed overflow UBSan reports and lets run on, a heap overflow
ASan reports), and run through testrun's own code: the command runner that
scans the output, the ctest runner that also reads every test's log, the
wrapper that sends reports of any process to files (log_path), the pytest
runner, and the whole fuzz stage with a planted fuzz target. Each planted
fault is hidden the way a real one can be: in a test that passes, behind an
exit status a wrapper ignores, in the captured output of a child process.
The same runs without the fault pass, so the check is not "always fail".
"""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from wren import testrun

if os.environ.get("WREN_SANITIZED"):
    # the sanitizer stage reruns tests/py with ASan preloaded into Python;
    # these tests build and run sanitized programs of their own
    pytestmark = pytest.mark.skip(reason="the plain run covers testrun.py")

UB = r"""
#include <limits.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    (void)argv;
    volatile int k = FAULT ? 2 : 0;
    int v = INT_MAX - argc + 1;
    printf("%d\n", v + k); /* signed overflow when FAULT */
    return 0;
}
"""

HEAP = r"""
#include <stdlib.h>
int main(void)
{
    volatile char *p = malloc(4);
    p[FAULT ? 4 : 3] = 1; /* one past the end when FAULT */
    free((void *)p);
    return 0;
}
"""

FUZZ = r"""
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)data;
    volatile int k = FAULT ? 2 : 0;
    volatile int v = INT_MAX - (int)(size & 1);
    return v + k == 0; /* signed overflow when FAULT */
}
"""


def build(tmp: Path, name: str, source: str, fault: bool, cc: str = "gcc",
          flags: tuple[str, ...] = ("-fsanitize=address,undefined",)) -> Path:
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    src = tmp / f"{name}.c"
    src.write_text(source)
    exe = tmp / name
    subprocess.run([cc, "-g", "-O0", f"-DFAULT={int(fault)}", *flags, str(src), "-o", str(exe)],
                   check=True)
    return exe


def ctest_tree(tmp: Path, command: str) -> Path:
    """A ctest tree (no CMake needed) with one test: sh -c @command."""
    tree = tmp / "tree"
    tree.mkdir()
    (tree / "CTestTestfile.cmake").write_text(f'add_test(planted "sh" "-c" "{command}")\n')
    return tree


@pytest.mark.parametrize("fault", [True, False])
def test_run_fails_on_a_report_with_exit_status_0(tmp_path, capsys, fault):
    exe = build(tmp_path, "ub", UB, fault)
    # plain UBSan options: the report is recoverable and the program exits 0
    ok = testrun._run([exe], env={"UBSAN_OPTIONS": "print_stacktrace=1"})
    assert ok is not fault
    assert ("FAIL: sanitizer report in the output of ub" in capsys.readouterr().out) is fault


@pytest.mark.parametrize("fault", [True, False])
def test_ctest_fails_on_a_report_in_a_test_that_passes(tmp_path, capsys, fault):
    """ctest prints only failed tests' output: the runner reads the log of
    every test (stage_unit and the sanitizer stage run ctest through it)."""
    exe = build(tmp_path, "ub", UB, fault)
    tree = ctest_tree(tmp_path, f"{exe}; exit 0")
    ok = testrun._ctest(tree, env={"UBSAN_OPTIONS": "print_stacktrace=1"})
    out = capsys.readouterr().out
    assert "100% tests passed" in out, out  # ctest itself is content
    assert ok is not fault, out
    assert ("FAIL: sanitizer report in a test's output" in out) is fault, out


@pytest.mark.parametrize("fault", [True, False])
def test_sanitized_ctest_finds_a_report_nobody_printed(tmp_path, capsys, fault):
    """The sanitizer stage's ctest, with a heap overflow in a program whose
    output and exit status its test throws away: only the report file of
    log_path shows it."""
    exe = build(tmp_path, "heap", HEAP, fault)
    tree = ctest_tree(tmp_path, f"{exe} >/dev/null 2>&1; exit 0")
    ok = testrun._sanitized(lambda env: testrun._ctest(tree, env),
                            "detect_leaks=1:abort_on_error=1")
    out = capsys.readouterr().out
    assert ok is not fault, out
    assert ("ERROR: AddressSanitizer: heap-buffer-overflow" in out) is fault, out


@pytest.mark.parametrize("fault", [True, False])
def test_sanitized_pytest_finds_a_report_a_test_captured(tmp_path, capsys, fault):
    """A Python test that runs a sanitized program, captures its output and
    ignores its status passes; the stage that ran it does not."""
    exe = build(tmp_path, "heap", HEAP, fault)
    test = tmp_path / "test_planted.py"
    test.write_text("import subprocess\n\n\ndef test_planted():\n"
                    f"    subprocess.run([{str(exe)!r}], capture_output=True)\n")
    ok = testrun._sanitized(lambda env: testrun._pytest(env, tests=[test]),
                            "detect_leaks=1:abort_on_error=1")
    out = capsys.readouterr().out
    assert "1 passed" in out, out
    assert ok is not fault, out
    assert ("ERROR: AddressSanitizer: heap-buffer-overflow" in out) is fault, out


@pytest.mark.parametrize("fault", [True, False])
def test_fuzz_stage_fails_on_undefined_behaviour(tmp_path, capsys, fault):
    """The fuzz stage itself, on a planted target built as wren's were before
    -fno-sanitize-recover (UBSan reports and carries on)."""
    fuzz_dir = tmp_path / "fuzz"
    tree = tmp_path / "build"
    fuzz_dir.mkdir()
    tree.mkdir()
    (fuzz_dir / "fuzz_planted.c").write_text(FUZZ)
    build(tree, "fuzz_planted", FUZZ, fault, cc="clang",
          flags=("-fsanitize=fuzzer,address,undefined",))
    ok = testrun.stage_fuzz(1, tree=tree, fuzz_dir=fuzz_dir)
    out = capsys.readouterr().out
    assert ok is not fault, out
    assert ("runtime error: signed integer overflow" in out) is fault, out


SWAP = r"""
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
static ucontext_t main_ctx, co_ctx;
static char stack[65536];
static void co(void) { puts("in"); }
int main(void)
{
    volatile char *p = malloc(4);
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = stack;
    co_ctx.uc_stack.ss_size = sizeof(stack);
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, co, 0);
    swapcontext(&main_ctx, &co_ctx);  /* ASan warns once, as for wren's threads */
    p[FAULT ? 4 : 3] = 1; /* one past the end when FAULT */
    free((void *)p);
    return 0;
}
"""


@pytest.mark.parametrize("fault", [True, False])
def test_sanitized_warning_alone_is_no_report(tmp_path, capsys, fault):
    """ASan writes a warning to the report file of every process that calls
    swapcontext (wren's application threads do): that alone passes; a
    report beside it still fails."""
    exe = build(tmp_path, "swap", SWAP, fault)
    tree = ctest_tree(tmp_path, f"{exe} >/dev/null 2>&1; exit 0")
    ok = testrun._sanitized(lambda env: testrun._ctest(tree, env),
                            "detect_leaks=1:abort_on_error=1")
    out = capsys.readouterr().out
    assert "swapcontext" in out, out
    assert ok is not fault, out


def test_report_marks():
    assert testrun.sanitizer_report("x\n==1==ERROR: LeakSanitizer: detected memory leaks\n")
    assert testrun.sanitizer_report("SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior a.c")
    assert testrun.sanitizer_report("all good\nPASS  fuzz targets\n") is None


@pytest.mark.parametrize("fault", [True, False])
def test_summary_names_the_failed_tests(tmp_path, capsys, fault):
    """A CI that keeps only the tail of the log must still say which test
    failed: the failure lines of pytest and ctest are collected for the
    summary under their stage."""
    testrun.take_failures()
    test = tmp_path / "test_planted.py"
    test.write_text(f"def test_planted_one():\n    assert {not fault}\n\n\n"
                    "def test_planted_other():\n    pass\n")
    tree = ctest_tree(tmp_path, f"exit {int(fault)}")
    ok = testrun._pytest(tests=[test]) & testrun._ctest(tree)
    capsys.readouterr()
    failures = testrun.take_failures()
    assert ok is not fault
    named = "\n".join(failures)
    assert ("FAILED" in named and "test_planted.py::test_planted_one" in named) is fault, named
    assert "test_planted_other" not in named
    assert ("planted" in named and "***Failed" in named) is fault, named
    assert testrun.take_failures() == []


LONG_AND_SHORT = """
int branchy(int x)
{
%s
    return x;
}

int straight(int x)
{
    return x + 1;
}
"""


def test_shape_report_lists_long_and_complex_functions(tmp_path, capsys):
    """The summary's function-shape report (issue 28): lizard's list of the
    functions over 80 lines or cyclomatic complexity 20, here a planted
    function with 21 branches (CCN 22) and one of 94 lines; a short one is
    not listed."""
    src = tmp_path / "src"
    src.mkdir()
    ifs = "\n".join(f"    if (x == {i}) {{\n        x++;\n    }}" for i in range(21))
    (src / "a.c").write_text(LONG_AND_SHORT % ifs)
    (src / "b.c").write_text(LONG_AND_SHORT % "\n".join("    x++;" for _ in range(90)))
    found = testrun.shape_report(src)
    assert found is not None, "lizard is not installed in the venv"
    names = [(Path(f).name, name) for f, _, name, _, _ in found]
    assert names == [("a.c", "branchy"), ("b.c", "branchy")], found
    (_, line, _, _, ccn), (_, _, _, length, _) = found
    assert line == 2 and ccn == 22 and length == 94, found
    # a tree within the limits: nothing listed
    (src / "a.c").write_text(LONG_AND_SHORT % "    x++;")
    (src / "b.c").unlink()
    assert testrun.shape_report(src) == []


def test_src_within_the_shape_limits():
    """Issue 28's shape: no function of src/ over 80 lines or cyclomatic
    complexity 20 (lizard -w -L 80 -C 20), no source file of src/ over 1,000
    lines. A function or file past them is split along the protocol's steps."""
    found = testrun.shape_report()
    assert found is not None, "lizard is not installed in the venv (./scripts/bootstrap.sh test)"
    assert found == [], "functions over the limits:\n" + "\n".join(
        f"{f}:{ln} {name}: {length} lines, CCN {ccn}" for f, ln, name, length, ccn in found)
    src = Path(testrun.paths.ROOT) / "src"
    long_files = [(str(p.relative_to(src)), n) for p in sorted(src.rglob("*.[ch]"))
                  if (n := len(p.read_text().splitlines())) > testrun.SHAPE_MAX_FILE_LINES]
    assert long_files == [], f"files over {testrun.SHAPE_MAX_FILE_LINES} lines: {long_files}"
