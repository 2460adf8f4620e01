#!/usr/bin/env python3
"""A MEMG motion reader in numpy, to compare `viewer bench` decoding with.

Reads the file's bytes into memory once, then times decoding them (median of
--runs): every f64 array narrowed to a fresh float32 array, as
`formats::memg::decode` does, plus a copy of the same bytes into a buffer
allocated beforehand (the memcpy `viewer bench` compares with). Prints one
JSON object. numpy is not a dependency of the crate; run this by hand:

    viewer bench --synthetic 1000000x32x100 --write-scene /tmp/s
    python3 benches/memg_numpy.py /tmp/s/synthetic-1000000x32x100.bin
    viewer bench /tmp/s/synthetic-1000000x32x100.obj /tmp/s/synthetic-1000000x32x100.bin
"""

import argparse
import json
import statistics
import time

import numpy as np


def decode(data: bytes):
    """Decodes a MEMG motion (docs/formats.md, the MEMG section) into float32 arrays."""
    endian = "<" if np.frombuffer(data, "<i4", 1, 0)[0] == 1 else ">"
    i4, f8 = np.dtype(endian + "i4"), np.dtype(endian + "f8")
    fps, k, n = np.frombuffer(data, i4, 3, 4)
    at = 16
    frames = np.frombuffer(data, f8, 12 * k * n, at).reshape(n, k, 12)
    at += 96 * k * n
    groups = []
    while at < len(data):
        name_len = int(np.frombuffer(data, i4, 1, at)[0])
        name = data[at + 4 : at + 4 + name_len].decode()
        at += 4 + name_len
        v = int(np.frombuffer(data, i4, 1, at)[0])
        mapping = np.frombuffer(data, i4, v, at + 4).astype(np.uint32)
        at += 4 + 4 * v
        mean = np.frombuffer(data, f8, 3 * v, at).astype(np.float32)
        at += 24 * v
        parent = int(np.frombuffer(data, i4, 1, at)[0])
        rows, r = (int(x) for x in np.frombuffer(data, i4, 2, at + 4))
        at += 12
        basis = np.frombuffer(data, f8, rows * r, at).astype(np.float32)
        at += 8 * rows * r
        q_rows, q_cols = (int(x) for x in np.frombuffer(data, i4, 2, at))
        at += 8
        coeffs = np.frombuffer(data, f8, q_rows * q_cols, at).astype(np.float32)
        at += 8 * q_rows * q_cols
        groups.append((name, mapping, mean, parent, r, basis, coeffs))
    return int(fps), frames.copy(), groups


def median_secs(f, runs: int) -> float:
    f()  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("motion")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with open(args.motion, "rb") as f:
        data = f.read()
    source = np.frombuffer(data, np.uint8)
    copy = np.ones_like(source)
    mb = len(data) / 1e6
    decode_s = median_secs(lambda: decode(data), args.runs)
    memcpy_s = median_secs(lambda: np.copyto(copy, source), args.runs)
    print(
        json.dumps(
            {
                "file": args.motion,
                "bytes": len(data),
                "numpy": np.__version__,
                "numpy_decode_mb_s": mb / decode_s,
                "numpy_memcpy_mb_s": mb / memcpy_s,
                "numpy_decode_vs_memcpy": memcpy_s / decode_s,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
