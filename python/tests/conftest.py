"""Shared helpers: the sample files, and a MEMG reader and writer in plain
numpy written from docs/formats.md §3 (independent of the Rust decoder)."""

from __future__ import annotations

import os
import pathlib
import struct
from typing import Any, Dict, List

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data"


@pytest.fixture
def data() -> pathlib.Path:
    return DATA


def read_memg_f64(raw: bytes) -> Dict[str, Any]:
    """A MEMG motion in float64, exactly as stored (the spec's layout)."""
    endian = "<" if struct.unpack_from("<i", raw, 0)[0] == 1 else ">"
    i4, f8 = np.dtype(endian + "i4"), np.dtype(endian + "f8")
    fps, k, n = (int(x) for x in np.frombuffer(raw, i4, 3, 4))
    at = 16
    frames = np.frombuffer(raw, f8, 12 * k * n, at).reshape(n, k, 3, 4)
    at += 96 * k * n
    groups: List[Dict[str, Any]] = []
    while at < len(raw):
        name_len = int(np.frombuffer(raw, i4, 1, at)[0])
        name = raw[at + 4 : at + 4 + name_len].decode()
        at += 4 + name_len
        v = int(np.frombuffer(raw, i4, 1, at)[0])
        mapping = np.frombuffer(raw, i4, v, at + 4)
        at += 4 + 4 * v
        mean = np.frombuffer(raw, f8, 3 * v, at)
        at += 24 * v
        parent = int(np.frombuffer(raw, i4, 1, at)[0])
        rows, r = (int(x) for x in np.frombuffer(raw, i4, 2, at + 4))
        at += 12
        u = np.frombuffer(raw, f8, rows * r, at).reshape(r, rows).T  # column-major
        at += 8 * rows * r
        q_rows, q_cols = (int(x) for x in np.frombuffer(raw, i4, 2, at))
        at += 8
        q = np.frombuffer(raw, f8, q_rows * q_cols, at).reshape(q_cols, q_rows).T
        at += 8 * q_rows * q_cols
        groups.append(dict(name=name, mapping=mapping, mean=mean, parent=parent, u=u, q=q))
    return dict(fps=fps, k=k, n=n, frames=frames, groups=groups)


def reference_positions(memg: Dict[str, Any], rest: np.ndarray, t: float) -> np.ndarray:
    """The spec's formula in float64 at `t` timesteps: Q blended linearly
    between the timesteps around t, the parent frame of the nearest one,
    p = M · (mean + U q); vertices of no group keep their rest position."""
    out = rest.astype(np.float64).copy()
    n = memg["n"]
    t = min(max(t, 0.0), n - 1)
    t0 = int(np.floor(t))
    t1 = min(t0 + 1, n - 1)
    w = t - t0
    nearest = min(int(np.floor(t + 0.5)), n - 1)
    for g in memg["groups"]:
        q = g["q"][:, t0] + (g["q"][:, t1] - g["q"][:, t0]) * w
        local = (g["mean"] + g["u"] @ q).reshape(-1, 3)
        if 0 <= g["parent"] < memg["k"]:
            m = memg["frames"][nearest, g["parent"]]
            local = local @ m[:, :3].T + m[:, 3]
        out[g["mapping"] - 1] = local
    return out


def write_memg(path: os.PathLike, vertices: int, basis: int, timesteps: int, seed: int = 1) -> np.ndarray:
    """A one-group MEMG motion (world space, little-endian) and its `.obj`
    (a row of points, no faces) beside it; returns the mean pose."""
    rng = np.random.default_rng(seed)
    mean = rng.standard_normal(3 * vertices)
    u = rng.standard_normal((3 * vertices, basis)) * 0.01
    q = rng.standard_normal((basis, timesteps))
    name = b"cloud"
    parts = [
        struct.pack("<4i", 1, 30, 0, timesteps),
        struct.pack("<i", len(name)) + name,
        struct.pack("<i", vertices),
        np.arange(1, vertices + 1, dtype="<i4").tobytes(),
        mean.astype("<f8").tobytes(),
        struct.pack("<3i", -1, 3 * vertices, basis),
        u.T.astype("<f8").tobytes(),  # column-major
        struct.pack("<2i", basis, timesteps),
        q.T.astype("<f8").tobytes(),
    ]
    path = pathlib.Path(path)
    path.write_bytes(b"".join(parts))
    write_obj(path.with_suffix(".obj"), mean.reshape(-1, 3))
    return mean


def write_obj(path: os.PathLike, points: np.ndarray) -> None:
    """An `.obj` of `points` in one group `cloud`, each three a triangle."""
    with open(path, "w") as f:
        f.write("g cloud\n")
        np.savetxt(f, points, fmt="v %.9g %.9g %.9g")
        faces = np.arange(1, len(points) - len(points) % 3 + 1).reshape(-1, 3)
        np.savetxt(f, faces, fmt="f %d %d %d")
