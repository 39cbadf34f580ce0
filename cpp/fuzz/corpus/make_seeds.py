#!/usr/bin/env python3
"""Writes the small seed corpus of each fuzz target (cpp/fuzz/corpus/<target>/).

FuzzedDataProvider takes the shape and mode choices from the end of an
input and the element values from its start, so plain pseudo-random bytes
of a few sizes already reach every dtype pair, mistake and layout; libFuzzer
grows the rest.  Deterministic: rerunning rewrites the same files.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = {  # target: sizes of its seeds in bytes
    "fuzz_gemm": [64, 200, 600, 1500, 3000],
    "fuzz_requant": [48, 160, 500, 1200, 2500],
    "fuzz_packed": [64, 200, 600, 1500, 3000],
    "fuzz_knobs": [40, 120, 300, 800],
}

rng = random.Random(20240601)
for target, sizes in TARGETS.items():
    os.makedirs(os.path.join(HERE, target), exist_ok=True)
    for i, size in enumerate(sizes):
        with open(os.path.join(HERE, target, f"seed{i}"), "wb") as f:
            f.write(bytes(rng.randrange(256) for _ in range(size)))
# Knob values the parser must handle: digits, junk, overflow, empty.
with open(os.path.join(HERE, "fuzz_knobs", "values"), "wb") as f:
    f.write(b"4\\\\0\\\\18446744073709551616\\\\12x\\\\\\\\ 7\\\\99999999999999999999999\\\\1\\\\256\\\\" + bytes(64))
