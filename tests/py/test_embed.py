"""wren as a library in someone else's project: `cmake --install` into a
prefix, then the application in examples/embed/ built against the installed
copy only (find_package(wren) on the host and on Cortex-M3, pkg-config on the
host and on Cortex-M3) and run (the Cortex-M3 image under qemu mps2-an385).

One configured wren build per platform and session (built only as far as the
install needs: the wren_package target); test_symbols.py reuses them."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples/embed"
ARM_TOOLS = ("arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm")
QEMU = ["qemu-system-arm", "-M", "mps2-an385", "-nographic",
        "-semihosting-config", "enable=on,target=native", "-kernel"]

if os.environ.get("WREN_SANITIZED"):
    # the sanitizer stage reruns tests/py against a sanitized simulator; the
    # package these tests build is not sanitized and was checked in the plain run
    pytestmark = pytest.mark.skip(reason="the plain (unsanitized) run covers the installed package")


def _gen():
    return ["-G", "Ninja"] if shutil.which("ninja") else []


def run(cmd, **kw):
    """Run @cmd, failing the test with its output when it fails."""
    res = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if res.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {res.returncode}:\n"
                    f"{res.stdout[-4000:]}\n{res.stderr[-4000:]}")
    return res


def need_arm():
    missing = [t for t in ARM_TOOLS if not shutil.which(t)]
    if missing:
        pytest.skip(f"Cortex-M3 toolchain or emulator not installed: {', '.join(missing)}")


_INSTALLS = {}


def installed(platform, tmp_path_factory):
    """Configure and build wren for @platform ("host" or "cortexm") and install
    it, once per session. Returns (build dir, install prefix)."""
    if platform not in _INSTALLS:
        base = tmp_path_factory.mktemp(f"wren-{platform}")
        build, prefix = base / "build", base / "prefix"
        opts = ["-DCMAKE_BUILD_TYPE=RelWithDebInfo"]
        if platform == "cortexm":
            need_arm()
            opts = ["-DCMAKE_BUILD_TYPE=MinSizeRel",
                    f"-DCMAKE_TOOLCHAIN_FILE={ROOT / 'cmake/arm-cortex-m3.cmake'}"]
        run(["cmake", "-S", ROOT, "-B", build, *_gen(), *opts,
             "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"])
        run(["cmake", "--build", build, "--target", "wren_package", "-j", os.cpu_count() or 2])
        run(["cmake", "--install", build, "--prefix", prefix])
        _INSTALLS[platform] = (build, prefix)
    return _INSTALLS[platform]


@pytest.fixture(scope="session")
def host(tmp_path_factory):
    return installed("host", tmp_path_factory)


@pytest.fixture(scope="session")
def cortexm(tmp_path_factory):
    need_arm()
    return installed("cortexm", tmp_path_factory)


def config_defs(compile_commands, source, output_part=""):
    """The CONFIG_WREN_* definitions of @source's compile command."""
    for e in json.loads(Path(compile_commands).read_text()):
        cmd = e.get("command") or " ".join(e["arguments"])
        if e["file"].endswith(source) and output_part in cmd:
            return sorted(w[2:] for w in cmd.split() if w.startswith("-DCONFIG_WREN_"))
    raise AssertionError(f"{source} ({output_part}) not in {compile_commands}")


def pkg_config(prefix, *args):
    env = {**os.environ, "PKG_CONFIG_PATH": str(prefix / "lib/pkgconfig")}
    env.pop("PKG_CONFIG_LIBDIR", None)
    return run(["pkg-config", *args], env=env).stdout.split()


def check_layout(prefix, runtime_headers, libs, pcs):
    inc = prefix / "include/wren"
    for h in ["core/node.h", "net/netapi.h", "sock/sock_udp.h", "drivers/loopback.h",
              *runtime_headers]:
        assert (inc / h).is_file(), h
    assert not list(inc.rglob("*_priv.h")), "private headers installed"
    for f in [*(f"lib/{lib}" for lib in libs), *(f"lib/pkgconfig/{p}" for p in pcs),
              "lib/cmake/wren/wren-config.cmake", "lib/cmake/wren/wren-config-version.cmake",
              "lib/cmake/wren/wren-targets.cmake"]:
        assert (prefix / f).is_file(), f


def check_headers_compile(prefix, cc, tmp, extra=()):
    """Every installed header, all in one unit, with nothing but the prefix:
    none reaches for a file that is not installed."""
    inc = prefix / "include/wren"
    unit = tmp / "all_headers.c"
    unit.write_text("".join(f'#include "{h.relative_to(inc)}"\n'
                            for h in sorted(inc.rglob("*.h"))))
    run([cc, "-std=c11", "-fsyntax-only", *extra, *pkg_config(prefix, "--cflags", "wren"), unit])


def build_example(prefix, app, extra=()):
    run(["cmake", "-S", EXAMPLE, "-B", app, *_gen(), f"-DCMAKE_PREFIX_PATH={prefix}",
         "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", *extra])
    run(["cmake", "--build", app])


def check_output(res, platform):
    lines = res.stdout.strip().splitlines()
    assert res.returncode == 0, res.stdout + res.stderr
    assert lines and lines[-1].startswith(f"wren embed ({platform}): ")
    assert lines[-1].endswith("arrived intact"), lines


# --- host -----------------------------------------------------------------

def test_host_install_layout(host, tmp_path):
    build, prefix = host
    check_layout(prefix, ["host/rt_host.h", "host/tap.h", "host/zep.h"],
                 ["libwren.a", "libwren_host.a"], ["wren.pc", "wren-host.pc"])
    check_headers_compile(prefix, "cc", tmp_path)


def test_host_example_find_package(host, tmp_path):
    build, prefix = host
    app = tmp_path / "app"
    build_example(prefix, app)
    # what the library was compiled with, the application is compiled with
    assert (config_defs(app / "compile_commands.json", "main.c")
            == config_defs(build / "compile_commands.json", "src/core/node.c", "wren_core.dir"))
    check_output(subprocess.run([app / "app"], capture_output=True, text=True, timeout=30),
                 "host")


def test_host_example_pkg_config(host, tmp_path):
    build, prefix = host
    src = tmp_path / "embed"
    shutil.copytree(EXAMPLE, src)
    env = {**os.environ, "PKG_CONFIG_PATH": str(prefix / "lib/pkgconfig")}
    run(["make", "-C", src], env=env)
    check_output(subprocess.run([src / "app"], capture_output=True, text=True, timeout=30),
                 "host")


def test_host_package_refused_on_cortexm(host, tmp_path):
    """find_package(wren) with the host install from a Cortex-M3 project:
    not found (32-bit consumer, 64-bit package), never silently linked."""
    need_arm()
    build, prefix = host
    res = subprocess.run(["cmake", "-S", EXAMPLE, "-B", tmp_path / "app", *_gen(),
                          f"-DCMAKE_PREFIX_PATH={prefix}",
                          f"-DCMAKE_TOOLCHAIN_FILE={ROOT / 'cmake/arm-cortex-m3.cmake'}"],
                         capture_output=True, text=True)
    assert res.returncode != 0
    assert "wren" in res.stderr and ("64bit" in res.stderr or "Linux" in res.stderr), res.stderr


# --- Cortex-M3 --------------------------------------------------------------

def test_cortexm_install_layout(cortexm, tmp_path):
    build, prefix = cortexm
    check_layout(prefix, ["cortexm/rt_cortexm.h"], ["libwren.a", "libwren_cortexm.a"],
                 ["wren.pc", "wren-cortexm.pc"])
    assert (prefix / "share/wren/link.ld").is_file()
    assert (prefix / "share/wren/arm-cortex-m3.cmake").is_file()
    check_headers_compile(prefix, "arm-none-eabi-gcc", tmp_path)


def test_cortexm_example_find_package(cortexm, tmp_path):
    build, prefix = cortexm
    app = tmp_path / "app"
    build_example(prefix, app,
                  [f"-DCMAKE_TOOLCHAIN_FILE={prefix / 'share/wren/arm-cortex-m3.cmake'}"])
    # the installed library is the build's default full configuration
    # (wren_core_m3), and its CONFIG_WREN_* travel with it
    lib_defs = config_defs(build / "compile_commands.json", "src/core/node.c", "wren_core_m3.dir")
    assert config_defs(app / "compile_commands.json", "main.c") == lib_defs
    assert sorted(f[2:] for f in pkg_config(prefix, "--cflags", "wren")
                  if f.startswith("-DCONFIG_WREN_")) == lib_defs
    check_output(subprocess.run([*QEMU, app / "app.elf"], capture_output=True, text=True,
                                timeout=60), "cortex-m3")


def test_cortexm_example_pkg_config(cortexm, tmp_path):
    build, prefix = cortexm
    elf = tmp_path / "app.elf"
    run(["arm-none-eabi-gcc", "-std=c11", "-Os", "-Wall", "-Wextra", "-o", elf,
         EXAMPLE / "main.c", *pkg_config(prefix, "--cflags", "--libs", "wren-cortexm")])
    check_output(subprocess.run([*QEMU, elf], capture_output=True, text=True, timeout=60),
                 "cortex-m3")


def test_cortexm_package_refused_on_host(cortexm, tmp_path):
    build, prefix = cortexm
    res = subprocess.run(["cmake", "-S", EXAMPLE, "-B", tmp_path / "app", *_gen(),
                          f"-DCMAKE_PREFIX_PATH={prefix}"], capture_output=True, text=True)
    assert res.returncode != 0
    assert "wren" in res.stderr and ("32bit" in res.stderr or "Cortex-M3" in res.stderr), \
        res.stderr
