"""Experiments that reproduce the papers' figures in the simulator, one module each."""
