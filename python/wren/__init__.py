"""wren's Python front end: scenarios, benchmarks, size reports, tests."""
