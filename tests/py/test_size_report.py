"""The size report's reading of a linker map (python/wren/size.py): kept
input sections with the object that holds them, the --cref table (the
defining object first, long symbol names on a line of their own), and which
objects are the stack's, the toolchain's, or neither (the radio driver's
stand-in, the port, an image's main). The report's figures themselves come
from the Cortex-M3 images in ./wren test's Cortex-M3 stage."""
from wren import size

LIBC = ("/usr/lib/gcc/arm-none-eabi/12.2.1/../../../arm-none-eabi/lib/thumb/v7-m/nofp/"
        "libc_nano.a(lib_a-memcpy.o)")
STACK = "runtime/cortexm/libwren_core_m3_hwmac.a(nib.c.obj)"
DRIVER = "runtime/cortexm/libwren_core_m3_hwmac.a(loopback.c.obj)"
MAIN = "runtime/cortexm/CMakeFiles/wren_6ln_host.elf.dir/main_6ln_host.c.obj"
LONG = "wren_a_symbol_name_long_enough_to_take_a_line_of_its_own"

MAP = f"""Archive member included to satisfy reference by file (symbol)

Linker script and memory map

 .text.nib_handle
                0x00004b64      0x6d0 {STACK}
 .text.memcpy   0x00006a8c       0xec {LIBC}
 .bss.wren_inst_nib
                0x20001118      0x1c0 {MAIN}
 .text.unused   0x00000000       0x10 {STACK}
 .ARM.attributes
                0x00000000       0x2d {STACK}

Cross Reference Table

Symbol                                            File
memcpy                                            {LIBC}
                                                  {STACK}
                                                  {MAIN}
{LONG}
                                                  {STACK}
                                                  {MAIN}
wren_nib_solicit                                  {STACK}
"""


def test_map_keeps_placed_sections_with_their_objects():
    got = size.parse_map_objects(MAP)
    assert got == [(STACK, ".text.nib_handle", "rom", 0x6d0), (LIBC, ".text.memcpy", "rom", 0xec),
                   (MAIN, ".bss.wren_inst_nib", "bss", 0x1c0)]
    assert size.parse_map(MAP)[0] == ("nib.c", ".text.nib_handle", "rom", 0x6d0)


def test_cref_lists_the_definer_first_also_after_a_long_name():
    cref = size.parse_cref(MAP)
    assert cref["memcpy"] == [LIBC, STACK, MAIN]
    assert cref[LONG] == [STACK, MAIN]
    assert cref["wren_nib_solicit"] == [STACK]


def test_objects_are_the_stack_the_toolchain_or_neither():
    assert size._toolchain(LIBC) and not size._is_stack(LIBC)
    assert size._is_stack(STACK) and not size._toolchain(STACK)
    assert not size._is_stack(DRIVER)  # the radio driver's place
    assert not size._is_stack(MAIN) and not size._toolchain(MAIN)
    assert not size._is_stack("runtime/cortexm/CMakeFiles/wren_6ln_host.elf.dir/rt_cortexm.c.obj")


def test_the_lto_object_is_the_stack():
    """6ln_host_lto builds only the stack with -flto: the object the link-time
    optimiser makes of it is counted as the stack (its modules merged)."""
    lto = "runtime/cortexm/wren_6ln_host_lto.elf.ltrans0.ltrans.o"
    assert size._is_lto(lto) and size._is_stack(lto) and not size._toolchain(lto)
    assert not size._is_lto(STACK) and not size._is_lto(MAIN) and not size._is_lto(DRIVER)
