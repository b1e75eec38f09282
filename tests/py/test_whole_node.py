"""The whole-node images (runtime/cortexm/main_whole_node.c): the RIOT
paper's Table 3 application as one Cortex-M3 image each, run under qemu
(mps2-an385), and the whole-image figures wren.size reads from their ELFs:
everything linked is ROM, and RAM holds the packet buffer, the C library's
heap and the stack the image really runs on."""
import os
import shutil
import subprocess

import pytest

from wren import build, paths, size

QEMU = ["qemu-system-arm", "-M", "mps2-an385", "-nographic",
        "-semihosting-config", "enable=on,target=native", "-kernel"]

if os.environ.get("WREN_SANITIZED"):
    pytestmark = pytest.mark.skip(reason="Cortex-M3 images: the plain run covers them")


def _need(*tools):
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        pytest.skip(f"Cortex-M3 toolchain or emulator not installed: {', '.join(missing)}")


def _build(image):
    return build.cmake_build(paths.BUILD_ARM, "-DCMAKE_BUILD_TYPE=MinSizeRel",
                             f"-DCMAKE_TOOLCHAIN_FILE={paths.ROOT / 'cmake/arm-cortex-m3.cmake'}",
                             target=f"wren_{image}.elf")


@pytest.mark.parametrize("image", size.WHOLE_IMAGES)
def test_whole_image_returns_every_datagram_under_qemu(image):
    _need("arm-none-eabi-gcc", "qemu-system-arm")
    tree = _build(image)
    res = subprocess.run(QEMU + [str(tree / f"runtime/cortexm/wren_{image}.elf")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "8/8 datagrams (8 to 1232 bytes) returned intact, pktbuf empty" in res.stdout, \
        res.stdout


def _symbols(elf):
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    return {p[2]: int(p[0], 16) for p in (line.split() for line in out.splitlines())
            if len(p) == 3}


def _initial_sp(elf):
    """Word 0 of the vector table: the stack pointer the core starts with."""
    out = subprocess.run(["arm-none-eabi-objdump", "-s", "-j", ".text", "--start-address=0",
                          "--stop-address=4", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    word = [line.split()[1] for line in out.splitlines() if line.startswith(" 0000 ")][0]
    return int.from_bytes(bytes.fromhex(word), "little")


@pytest.mark.parametrize("image", size.WHOLE_IMAGES)
def test_whole_ram_holds_the_packet_buffer_heap_and_the_stack_it_runs_on(image):
    _need("arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm")
    tree = _build(image)
    elf = tree / f"runtime/cortexm/wren_{image}.elf"
    w = size.whole_image(image)
    sec = size.elf_sections(elf)
    # RAM is every RAM section the image has, and ROM all it keeps in flash
    assert w["ram"] == sec[".data"] + sec[".bss"] + sec[".heap"] + sec[".stack"]
    assert w["rom"] == sec[".text"] + sec.get(".ARM.exidx", 0) + sec[".data"]
    # the packet buffer (GNRC's default size, as the paper's) is inside bss
    assert w["arena"] == 6144 and w["arena"] + w["app_buffers"] < w["bss"]
    # the core starts on the counted stack: SP = the top of .stack
    syms = _symbols(elf)
    assert _initial_sp(elf) == syms["_estack"]
    assert syms["_estack"] - syms["_sstack"] == w["stack"] > 0
    assert syms["_eheap"] - syms["_sheap"] == w["heap"] > 0
    # ... and keeps a quarter's margin over the deepest it reached
    run = size.whole_run(image)
    assert run["stack"] == w["stack"] and run["heap"] == w["heap"]
    assert run["deepest"] + run["deepest"] // 4 <= w["stack"]
    assert run["heap_used"] <= w["heap"]


def test_whole_figures_exceed_the_stack_only_ones():
    _need("arm-none-eabi-gcc", "arm-none-eabi-nm")
    build.arm()
    host, arena = size.image_report("6ln_host")
    udp, _ = size.image_report("udp")
    stack_rom = size.counted(host, "rom") + udp["UDP"]["rom"] + udp["sock"]["rom"]
    stack_ram = size.counted(host, "ram") + udp["UDP"]["ram"] + udp["sock"]["ram"]
    w = size.whole_image("whole_node_reflector")
    assert w["rom"] > stack_rom
    assert w["ram"] > stack_ram + arena
    assert w["ram"] >= w["arena"] + w["stack"] + w["heap"] + w["data"]
    recs = {r["name"]: r for r in size.whole_records(out=lambda s: None)}
    assert recs["rom_whole_node_reflector_bytes"]["value"] == w["rom"]
    # as the paper's Table 3: without the application's buffer
    assert recs["ram_whole_node_reflector_bytes"]["value"] == w["ram"] - w["app_buffers"]
    assert w["app_buffers"] == 1232
    assert recs["ram_whole_node_reflector_bytes"]["target"] == 15112
    assert recs["rom_whole_node_reflector_bytes"]["target"] == 35880


# ---- RIOT Fig. 12: board energy against a hand computation ----------------
#
# board_scenario(5): node 0 sends 5 UDP datagrams of 20 bytes to node 1, one
# per second, over 5 s. Each datagram is one frame (no fragmentation), so the
# CPU model charges the sender 5 x udp_tx instructions and the receiver
# 5 x udp_rx (python/wren/data/cpu_costs.toml), at cpu.CPI cycles per
# instruction and cpu.CLOCK_HZ. With the iotlab-m3-board profile (V, radio
# currents, the MCU's active current I_a, no sleep current):
#   E_node = V * (sum over radio states of I_s * t_s) + V * I_a * t_cpu
# and the "never sleeping" edge replaces V * I_a * t_cpu by V * I_a * 5 s.

BOARD_PACKETS = 5


@pytest.fixture(scope="module")
def board():
    from wren import energy, scenario
    from wren.reproduce import whole_node
    res = scenario.run(whole_node.board_scenario(BOARD_PACKETS), progress=False)
    energy.annotate(res, whole_node.PROFILE)
    return res


def test_board_counters_are_one_frame_per_datagram(board):
    tx, rx = (nd["counters"] for nd in board["nodes"])
    n = BOARD_PACKETS
    assert tx["udp.tx"] == tx["ipv6.tx_pkts"] == tx["netif.tx_frames"] == n
    assert tx["netif.rx_frames"] == 0 and tx["ipv6.rx_pkts"] == 0
    assert rx["udp.rx"] == rx["ipv6.rx_pkts"] == rx["netif.rx_frames"] == n
    assert rx["netif.tx_frames"] == 0 and rx["ipv6.tx_pkts"] == 0
    for c in (tx, rx):   # the radio is on (listening) the whole run
        assert c["radio.time_off_us"] == 0
        assert sum(c[f"radio.time_{s}_us"] for s in ("listen", "rx", "tx")) == n * 1_000_000


def test_board_energy_matches_the_hand_computation(board):
    import tomllib

    from wren import cpu
    from wren.reproduce import whole_node
    with open(paths.ROOT / "python/wren/data/energy_profiles.toml", "rb") as f:
        p = tomllib.load(f)[whole_node.PROFILE]
    ins = cpu.load()["instructions"]
    v, i_a, n = p["supply_v"], p["mcu_active_ma"], BOARD_PACKETS
    assert "mcu_sleep_ma" not in p      # no cited sleep current: charged nothing
    for node, op in ((0, "udp_tx"), (1, "udp_rx")):
        c = board["nodes"][node]["counters"]
        radio = v * sum(p[f"radio_{s}_ma"] * c[f"radio.time_{s}_us"] / 1e6
                        for s in ("off", "listen", "rx", "tx"))
        t_cpu = n * ins[op] * cpu.CPI / cpu.CLOCK_HZ
        e = board["nodes"][node]["energy"]
        assert e["mcu_active_mj"] == pytest.approx(v * i_a * t_cpu, rel=1e-9)
        assert e["mcu_sleep_mj"] == 0.0
        assert e["mj"] == pytest.approx(radio + v * i_a * t_cpu, rel=1e-9)
        per = whole_node.board_energy(board, node, n)
        assert per["radio"] == pytest.approx(radio / n, rel=1e-9)
        assert per["mcu_active"] == pytest.approx(v * i_a * t_cpu / n, rel=1e-9)
        assert per["low"] == pytest.approx((radio + v * i_a * t_cpu) / n, rel=1e-9)
        assert per["high"] == pytest.approx((radio + v * i_a * n) / n, rel=1e-9)


def test_mcu_active_then_asleep_is_charged_by_hand():
    # a profile with both MCU figures: active for t_cpu, asleep the rest
    from wren import energy
    prof = energy.Profile(name="hand", description="", supply_v=3.0,
                          radio_ma={s: 0.0 for s in energy.STATES}, mcu_sleep_ma=0.5,
                          mcu_active_ma=10.0, sources=(), missing=())
    e = energy.node_energy({}, 2.0, prof, cpu_s=0.25)
    # 3 V * 10 mA * 0.25 s = 7.5 mJ; 3 V * 0.5 mA * 1.75 s = 2.625 mJ
    assert e["mcu_active_mj"] == pytest.approx(7.5, rel=1e-12)
    assert e["mcu_sleep_mj"] == pytest.approx(2.625, rel=1e-12)
    assert e["mj"] == e["mcu_mj"] == pytest.approx(10.125, rel=1e-12)
