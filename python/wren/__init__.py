"""wren's Python front end: scenarios, benchmarks, size reports, tests.

Modules: lib (ctypes binding of libwren_sim.so), scenario (TOML scenarios
as checked dataclasses, their runs and results), tomlpos (line numbers of
TOML keys, for error messages), cenum (C enum values read from the stack's
headers), cli (./wren), addr (the addresses
wren's nodes make from their ids), build, testrun, bench, size, qemu_bench, paths
(where the tree and the build trees are: WREN_ROOT, WREN_BUILD), errors.
"""
