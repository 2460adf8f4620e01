"""The numpy peer of `viewer memg fit` (BENCHMARKS.md, "MEMG fit"): the same
model fitted with `np.linalg.svd`, for the time and size at the same error.

    python3 benches/fit_numpy.py SCENE.obj CACHE.pc2 --max-error E [--frames local|world] [--json]

Per `.obj` group (every vertex its faces use; vertices no face uses join
the first group), as `viewer memg fit` does: a rigid frame per timestep
(`local`: Kabsch by an SVD of the 3×3 cross-covariance, aligned to the
group's mean shape, three Procrustes rounds; `world`: none), the group's
positions in that frame, their mean over time, then the thin SVD of the
centred 3v × n matrix, and the smallest rank whose largest vertex error
over every frame is at most E. The error is measured on the float64
reconstruction, not on a written file: the peer does no file output.
Prints the ranks, the largest error, the MEMG size those ranks make and
the seconds taken (reading excluded).
"""

import argparse
import json
import struct
import sys
import time

import numpy as np


def read_obj_groups(path):
    """Vertex count and, per `g` group in first-seen order, the sorted
    0-based vertices its faces use (faces before any `g`: `default`)."""
    count = 0
    groups = {}
    current = None
    with open(path) as f:
        for line in f:
            words = line.split("#")[0].split()
            if not words:
                continue
            if words[0] == "v":
                count += 1
            elif words[0] == "g":
                current = " ".join(words[1:]) or "default"
                groups.setdefault(current, set())
            elif words[0] == "f":
                if current is None:
                    current = "default"
                    groups.setdefault(current, set())
                for w in words[1:]:
                    i = int(w.split("/")[0])
                    groups[current].add(i - 1 if i > 0 else count + i)
    used = set().union(*groups.values()) if groups else set()
    loose = [i for i in range(count) if i not in used]
    names = list(groups)
    out = [(n, sorted(groups[n])) for n in names]
    if loose and out:
        out[0] = (out[0][0], sorted(set(out[0][1]) | set(loose)))
    return count, out


def read_pc2(path):
    data = open(path, "rb").read()
    _, _, vertices, _, _, frames = struct.unpack("<12siiffi", data[:32])
    return np.frombuffer(data[32:], dtype="<f4").reshape(frames, vertices, 3)


def kabsch_frames(x, rounds=3):
    """Rotations R (n×3×3) and translations c (n×3) with x[t] ≈ R[t] @ s + c[t]."""
    c = x.mean(axis=1)
    centred = x - c[:, None, :]
    reference = centred[0]
    for _ in range(rounds):
        h = np.einsum("tvi,vj->tij", centred, reference)
        u, _, vt = np.linalg.svd(h)
        d = np.sign(np.linalg.det(u @ vt))
        u[:, :, 2] *= d[:, None]
        r = u @ vt
        local = np.einsum("tji,tvj->tvi", r, centred)
        reference = local.mean(axis=0)
    return r, c


def fit_group(x, max_error, frames):
    """Rank and largest error of one group's fit; x is n × v × 3."""
    n, v, _ = x.shape
    if frames == "local":
        r, c = kabsch_frames(x)
        local = np.einsum("tji,tvj->tvi", r, x - c[:, None, :])
    else:
        local = x.astype(np.float64)
    a = local.reshape(n, 3 * v).T  # 3v × n, one column per frame
    mean = a.mean(axis=1, keepdims=True)
    a = a - mean
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    residual = a.copy()
    for rank in range(len(s) + 1):
        worst = np.sqrt((residual.reshape(v, 3, n) ** 2).sum(axis=1)).max()
        if worst <= max_error:
            return rank, worst
        residual -= np.outer(u[:, rank] * s[rank], vt[rank])
    return len(s), worst


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("obj")
    p.add_argument("pc2")
    p.add_argument("--max-error", type=float, required=True)
    p.add_argument("--frames", choices=["local", "world"], default="local")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    count, groups = read_obj_groups(args.obj)
    x = read_pc2(args.pc2).astype(np.float64)
    n = x.shape[0]
    if x.shape[1] != count:
        sys.exit(f"{args.pc2}: {x.shape[1]} vertices, the .obj has {count}")
    start = time.perf_counter()
    ranks, worst = {}, 0.0
    for name, vertices in groups:
        rank, err = fit_group(x[:, vertices, :], args.max_error, args.frames)
        ranks[name] = rank
        worst = max(worst, err)
    took = time.perf_counter() - start
    # The MEMG those ranks make: header, frames, and per group its name,
    # mapping, mean, parent, U and Q (docs/formats.md §3).
    k = len(groups) if args.frames == "local" else 0
    size = 16 + 96 * k * n
    for name, vertices in groups:
        v, r = len(vertices), ranks[name]
        size += 4 + len(name.encode()) + 4 + 4 * v + 24 * v + 4 + 8 + 24 * v * r + 8 + 8 * r * n
    report = {
        "ranks": ranks,
        "max_error": worst,
        "memg_bytes": size,
        "raw_f32_bytes": 12 * count * n,
        "seconds": took,
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(
            f"ranks {ranks}, max error {worst:.3g}, MEMG {size} bytes "
            f"({12 * count * n / size:.2f}x smaller than raw f32), {took:.3f} s"
        )


if __name__ == "__main__":
    main()
