#!/usr/bin/env python3
"""The `motion_viewer` Python package against the numpy reader of
`benches/memg_numpy.py`, in one process, on the same files:

- open + positions: the flags sample (data/flags.obj + data/flags.bin), every
  timestep's vertex positions. numpy: read both files, `memg_numpy.decode`,
  the `.obj`'s `v` lines, then every frame at once as mean + U·Q (BLAS) in
  the parent frame; motion_viewer: `open` then `positions()`.
- open: a synthetic MEMG scene (VERTICES×BASIS×FRAMES, default 1M×32×100:
  a 796 MB motion and its `.obj` of a million `v` lines), in the page cache.
  numpy: the `.obj`'s vertices, then the motion read and `memg_numpy.decode`d
  (every array narrowed to float32); motion_viewer: `open` (the same two
  files: the `.obj` parsed, the motion mapped and checked whole, its arrays
  left in the file as float64 views, narrowed when `positions` first needs
  them).
- the motion alone: the same motion with every vertex mapped to `.obj`
  vertex 1 and a one-vertex `.obj` beside it (`open` needs a scene the
  motion binds to; this one costs nothing to parse), so `open` is the
  motion's decode: against numpy's decode of that file, read from the file
  and (as memg_numpy.py times it) of its bytes already in memory.
- open + positions of the synthetic scene, every timestep (numpy as for the
  flags; medians of --big-runs).

Prints one JSON object (medians of --runs after a warm-up). Run from the
repository root with the package installed (`pip install ./python`):

    python benches/python_vs_numpy.py --scene /tmp/py-bench
"""

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "python" / "tests"))

import memg_numpy  # noqa: E402  (the reader compared with)
import motion_viewer as mv  # noqa: E402
from conftest import write_memg  # noqa: E402  (the same writer the tests use)


def median_s(f, runs):
    f()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def obj_vertices(path):
    """The `v` lines of an `.obj` as an n × 3 float32 array."""
    with open(path, "rb") as f:
        lines = [line[2:] for line in f.read().splitlines() if line.startswith(b"v ")]
    return np.array(b" ".join(lines).split(), dtype=np.float32).reshape(-1, 3)


def numpy_positions(obj, motion):
    """Every timestep's positions from the numpy reader's arrays."""
    rest = obj_vertices(obj)
    with open(motion, "rb") as f:
        fps, frames, groups = memg_numpy.decode(f.read())
    n, k = frames.shape[0], frames.shape[1]
    out = np.repeat(rest[None], n, axis=0)
    for _, mapping, mean, parent, r, basis, coeffs in groups:
        v = len(mapping)
        u = basis.reshape(r, 3 * v).T
        q = coeffs.reshape(n, r).T
        local = (mean[:, None] + u @ q).T.reshape(n, v, 3)
        if 0 <= parent < k:
            m = frames[:, parent].reshape(n, 3, 4)
            local = np.einsum("nij,nvj->nvi", m[:, :, :3], local) + m[:, None, :, 3]
        out[:, mapping - 1] = local
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scene", default="/tmp/py-bench", help="folder for the synthetic scene")
    parser.add_argument("--size", default="1000000x32x100", help="VERTICESxBASISxFRAMES")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--big-runs", type=int, default=3, help="runs of open + positions on the synthetic scene")
    args = parser.parse_args()
    root = HERE.parent
    flags_obj, flags_bin = root / "data" / "flags.obj", root / "data" / "flags.bin"

    mine = mv.open(flags_bin).positions()
    theirs = numpy_positions(flags_obj, flags_bin)
    assert mine.shape == theirs.shape
    assert np.abs(mine - theirs).max() <= 1e-4 * np.abs(theirs).max()
    np_flags = median_s(lambda: numpy_positions(flags_obj, flags_bin), args.runs)
    mv_flags = median_s(lambda: mv.open(flags_bin).positions(), args.runs)

    v, r, n = (int(x) for x in args.size.split("x"))
    scene = pathlib.Path(args.scene)
    scene.mkdir(parents=True, exist_ok=True)
    motion = scene / f"synthetic-{args.size}.bin"
    if not motion.exists():
        write_memg(motion, vertices=v, basis=r, timesteps=n)
    # The motion alone: every vertex on .obj vertex 1 of a one-vertex scene.
    alone = scene / f"alone-{args.size}.bin"
    if not alone.exists():
        raw = bytearray(motion.read_bytes())
        at = 16 + 4 + len(b"cloud") + 4  # header, name length, name, count (write_memg)
        raw[at : at + 4 * v] = np.ones(v, "<i4").tobytes()
        alone.write_bytes(bytes(raw))
        del raw
        alone.with_suffix(".obj").write_text("g cloud\nv 0 0 0\n")
    data = alone.read_bytes()
    np_decode = median_s(lambda: memg_numpy.decode(data), args.runs)
    del data

    def numpy_read_decode():
        with open(alone, "rb") as f:
            return memg_numpy.decode(f.read())

    def numpy_open():
        rest = obj_vertices(motion.with_suffix(".obj"))
        with open(motion, "rb") as f:
            return rest, memg_numpy.decode(f.read())

    np_read_decode = median_s(numpy_read_decode, args.runs)
    mv_alone = median_s(lambda: mv.open(alone), args.runs)
    np_open = median_s(numpy_open, args.runs)
    mv_open = median_s(lambda: mv.open(motion), args.runs)
    np_big = median_s(lambda: numpy_positions(motion.with_suffix(".obj"), motion), args.big_runs)
    mv_big = median_s(lambda: mv.open(motion).positions(), args.big_runs)
    mb = motion.stat().st_size / 1e6
    print(
        json.dumps(
            {
                "numpy": np.__version__,
                "cpus": os.cpu_count(),
                "flags_timesteps": int(mine.shape[0]),
                "flags_vertices": int(mine.shape[1]),
                "flags_numpy_s": np_flags,
                "flags_motion_viewer_s": mv_flags,
                "flags_speedup": np_flags / mv_flags,
                "synthetic": args.size,
                "synthetic_mb": mb,
                "open_numpy_s": np_open,
                "open_motion_viewer_s": mv_open,
                "open_speedup": np_open / mv_open,
                "motion_decode_numpy_from_memory_s": np_decode,
                "motion_read_decode_numpy_s": np_read_decode,
                "motion_open_motion_viewer_s": mv_alone,
                "motion_vs_numpy_read_decode": np_read_decode / mv_alone,
                "motion_vs_numpy_decode_from_memory": np_decode / mv_alone,
                "open_positions_numpy_s": np_big,
                "open_positions_motion_viewer_s": mv_big,
                "open_positions_speedup": np_big / mv_big,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
