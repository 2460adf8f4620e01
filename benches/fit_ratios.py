"""The ratios of `viewer memg fit` against Dem Bones' published figures
(BENCHMARKS.md, "Against Dem Bones"): a cache fitted at the four errors of
issue 47 (Dem Bones' 5-, 10- and 20-bone decompositions of its own sample,
and 1/1000 of the diagonal), as `.bin` and `.glb`, in each way asked.

    python3 benches/fit_ratios.py target/release/viewer walker.obj walker.pc2 \
        --way "one group=--parts 1" \
        --way "parts=--parts auto" \
        --way "parts, shared frames=--parts auto --frames auto"

Prints one markdown table row per way and error: the bytes of the `.bin`
and the `.glb` and their ratios to the raw f32 frames (12 × vertices ×
frames, as the issue counts), the parts and ranks chosen, the frames
written (affine where the shared affine frame was kept) and the seconds
each fit took (the `.bin`'s, then the `.glb`'s); `--only bin` or
`--only glb` fits one of the two. Only the standard library: the
viewer does the work, and checks every fit's bound on the files it writes.
"""

import argparse
import json
import os
import subprocess
import tempfile
import time

# Dem Bones' errors (share of the diagonal) and its ratios at them, from
# issue 47's table (its sample: 754 vertices × 400 frames).
LEVELS = [
    ("Dem Bones' 5 bones", 2.5e-2, 47.6),
    ("Dem Bones' 10 bones", 1.8e-2, 26.5),
    ("Dem Bones' 20 bones", 1.3e-2, 14.3),
    ("1e-3", 1e-3, None),
]


def fit(viewer, obj, pc2, out, args, folder):
    """One fit's report (JSON) and its wall time."""
    scene = os.path.join(folder, "parts.obj")
    extra = list(args)
    if "--parts" in extra:
        extra += ["--out-scene", scene]
    started = time.monotonic()
    done = subprocess.run(
        [viewer, "memg", "fit", obj, pc2, "--out", out, "--json", "--force"] + extra,
        capture_output=True,
        text=True,
    )
    took = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: {done.stderr.strip()}")
    return json.loads(done.stdout), took


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("viewer")
    parser.add_argument("obj")
    parser.add_argument("pc2")
    parser.add_argument("--way", action="append", required=True, help="NAME=ARGS")
    parser.add_argument(
        "--only", choices=("bin", "glb"), help="fit only the MEMG file or only the glTF"
    )
    a = parser.parse_args()
    exts = [a.only] if a.only else ["bin", "glb"]
    print("| way | error (of the diagonal) | `.bin` bytes | `.bin` ratio | `.glb` bytes | `.glb` ratio | parts: ranks | frames written | s | `.glb` s |")
    print("|---|---|---:|---:|---:|---:|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for way in a.way:
            name, _, args = way.partition("=")
            for label, share, _ in LEVELS:
                bound = ["--max-error", f"{100 * share:g}%"]
                row = {}
                for ext in exts:
                    out = os.path.join(folder, "fit." + ext)
                    report, took = fit(a.viewer, a.obj, a.pc2, out, args.split() + bound, folder)
                    row[ext] = (os.path.getsize(out), report, took)
                report = row.get("bin", row.get("glb"))[1]
                raw = report["bytes"]["raw_f32"]
                ranks = [g["rank"] for g in report["groups"]]
                frames = str(report["local_frames"])
                if report.get("affine_frame"):
                    frames += " (affine)"

                def cells(ext):
                    if ext not in row:
                        return "– | –", "–"
                    size, _, took = row[ext]
                    return f"{size} | {raw / size:.1f}×", f"{took:.1f}"

                (bin_cells, bin_s), (glb_cells, glb_s) = cells("bin"), cells("glb")
                print(
                    f"| {name} | {label}: {share:g} | {bin_cells} | {glb_cells} "
                    f"| {len(ranks)}: {ranks} | {frames} | {bin_s} | {glb_s} |"
                )


if __name__ == "__main__":
    main()
