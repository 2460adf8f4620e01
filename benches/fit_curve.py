"""Rank–error–size curves of `viewer memg fit` (BENCHMARKS.md, "MEMG fit"):
the cache's first N frames fitted at each rank, and at 1/1000 of the
diagonal, each point measured by the fit itself on the decoded motion.

    python3 benches/fit_curve.py target/release/viewer tests/data/fit/tube.obj \
        tests/data/fit/tube.pc2 --frames 100 200 300 --ranks 2 4 6 8 12 16 24

Prints one markdown table row per (frames, rank): max error (scene units
and share of the diagonal), KG error, MEMG bytes and its ratio to the raw
f32 frames; the rank column of the bounded fit lists each group's rank.
Only the standard library: the viewer does the work.
"""

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile


def truncated(pc2: str, frames: int, folder: str) -> str:
    """The cache's first `frames` samples, as a .pc2 of their own."""
    with open(pc2, "rb") as f:
        raw = f.read()
    magic, version, vertices, start, sampling, count = struct.unpack("<12siiffi", raw[:32])
    if frames > count:
        sys.exit(f"{pc2} has {count} frames, fewer than {frames}")
    out = os.path.join(folder, f"first{frames}.pc2")
    with open(out, "wb") as f:
        f.write(struct.pack("<12siiffi", magic, version, vertices, start, sampling, frames))
        f.write(raw[32 : 32 + 12 * vertices * frames])
    return out


def fit(viewer: str, obj: str, cache: str, out: str, extra: list) -> dict:
    run = subprocess.run(
        [viewer, "memg", "fit", obj, cache, "--out", out, "--json", *extra],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        sys.exit(run.stderr)
    return json.loads(run.stdout)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("viewer")
    p.add_argument("obj")
    p.add_argument("pc2")
    p.add_argument("--frames", type=int, nargs="+", required=True)
    p.add_argument("--ranks", type=int, nargs="+", required=True)
    p.add_argument("--frame-mode", choices=["local", "world"], default="local")
    args = p.parse_args()
    print("| frames | rank | max error | of diagonal | KG error | MEMG bytes | vs raw f32 |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "fit.bin")
        for frames in args.frames:
            cache = truncated(args.pc2, frames, folder)
            runs = [(str(r), ["--rank", str(r)]) for r in args.ranks]
            runs.append(("bound", ["--max-error", "0.1%"]))
            for label, extra in runs:
                r = fit(args.viewer, args.obj, cache, out, extra + ["--frames", args.frame_mode])
                if label == "bound":
                    label = "0.1%: " + "/".join(str(g["rank"]) for g in r["groups"])
                memg, raw = r["bytes"]["memg"], r["bytes"]["raw_f32"]
                print(
                    f"| {frames} | {label} | {r['max_error']:.3e} | {r['max_error'] / r['diagonal']:.2e} "
                    f"| {r['kg_error']:.3f} | {memg} | {raw / memg:.2f}x |"
                )


if __name__ == "__main__":
    main()
