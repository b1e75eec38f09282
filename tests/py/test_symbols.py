"""The stack library's namespace: every external symbol it defines (nm's T,
D, B, R, C, W, ...) starts with wren_, so that an application can link wren
next to another stack (lwIP has tcp_input, ip6_output...) or its own code.
Checked on the installed libwren.a and on the build's own stack library
(libwren_core.a; libwren_core_m3.a on Cortex-M3), with the builds of
test_embed.py; the installed runtime libraries (libwren_host.a,
libwren_cortexm.a, whose startup code names its handlers wren_ too) as well."""
import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_embed import installed, need_arm, run  # noqa: E402  (one build per session)

PREFIX = "wren_"

if os.environ.get("WREN_SANITIZED"):
    pytestmark = pytest.mark.skip(reason="the plain (unsanitized) run covers the library")


def foreign_symbols(nm, lib, least=100):
    """(object, symbol, type) of each defined external symbol of @lib that
    does not start with wren_."""
    out = run([nm, "-A", "-g", "--defined-only", "-P", lib]).stdout
    bad, n = [], 0
    for line in out.splitlines():
        where, _, rest = line.rpartition(": ")
        fields = rest.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        n += 1
        if not name.startswith(PREFIX):
            bad.append((where.rpartition("[")[2].rstrip("]"), name, kind))
    assert n > least, f"{lib}: only {n} symbols: not the library meant?"
    return bad


def check(nm, lib, least=100):
    bad = foreign_symbols(nm, lib, least)
    assert not bad, (f"{len(bad)} external symbols of {lib.name} outside the {PREFIX} "
                     "namespace:\n" + "\n".join(f"  {o}: {s} ({k})" for o, s, k in bad))


@pytest.mark.parametrize("which", ["installed", "build"])
def test_host_stack_library_namespace(which, tmp_path_factory):
    build, prefix = installed("host", tmp_path_factory)
    if which == "installed":
        lib = prefix / "lib/libwren.a"
    else:
        run(["cmake", "--build", build, "--target", "wren_core"])
        lib = build / "libwren_core.a"
    check(shutil.which("nm") or "nm", lib)


@pytest.mark.parametrize("which", ["installed", "build"])
def test_cortexm_stack_library_namespace(which, tmp_path_factory):
    need_arm()
    build, prefix = installed("cortexm", tmp_path_factory)
    if which == "installed":
        lib = prefix / "lib/libwren.a"
    else:
        run(["cmake", "--build", build, "--target", "wren_core_m3"])
        lib = build / "runtime/cortexm/libwren_core_m3.a"
    check("arm-none-eabi-nm", lib)


def test_installed_runtime_libraries_namespace(tmp_path_factory):
    _, prefix = installed("host", tmp_path_factory)
    check(shutil.which("nm") or "nm", prefix / "lib/libwren_host.a", least=10)
    need_arm()
    _, prefix = installed("cortexm", tmp_path_factory)
    check("arm-none-eabi-nm", prefix / "lib/libwren_cortexm.a", least=3)
