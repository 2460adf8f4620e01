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


def _on_ci() -> bool:
    return os.environ.get("CI", "") not in ("", "0", "false")


@pytest.fixture(scope="session")
def viewer() -> pathlib.Path:
    """The `viewer` binary `cargo test` builds (target/debug, or
    target/release, the newer); without it a test that needs it is skipped,
    and fails under CI."""
    found = [ROOT / "target" / kind / "viewer" for kind in ("debug", "release")]
    found = [p for p in found if p.is_file()]
    if not found:
        message = "no target/debug/viewer or target/release/viewer: run `cargo build` first"
        if _on_ci():
            pytest.fail(message)
        pytest.skip(message)
    return max(found, key=lambda p: p.stat().st_mtime)


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


def _trs(m: np.ndarray):
    """A 3×4 frame as translation, rotation matrix and positive scale (its
    columns' lengths), or None where it is no rotation times a positive
    scale (a shear or a mirror, within 1e-6)."""
    linear = m[:, :3]
    scale = np.linalg.norm(linear, axis=0)
    if not np.all(scale > 0):
        return None
    rotation = linear / scale
    if np.abs(rotation.T @ rotation - np.eye(3)).max() > 1e-6 or np.linalg.det(rotation) <= 0:
        return None
    return m[:, 3], rotation, scale


def _quaternion(r: np.ndarray) -> np.ndarray:
    """A rotation matrix's unit quaternion (w, x, y, z), from its largest
    diagonal combination (Shepperd)."""
    t = np.trace(r)
    k = int(np.argmax([t, r[0, 0], r[1, 1], r[2, 2]]))
    if k == 0:
        q = np.array([1 + t, r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]])
    else:
        i, j, l = [(0, 1, 2), (1, 2, 0), (2, 0, 1)][k - 1]
        q = np.empty(4)
        q[0] = r[l, j] - r[j, l]
        q[1 + i] = 1 + 2 * r[i, i] - t
        q[1 + j] = r[j, i] + r[i, j]
        q[1 + l] = r[l, i] + r[i, l]
    return q / np.linalg.norm(q)


def _rotation(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def blend_frames(a: np.ndarray, b: np.ndarray, w: float) -> np.ndarray:
    """Two 3×4 local frames blended by `w` as glTF blends a node
    (docs/formats.md §5, "MEMG between timesteps"): translation and scale
    linearly, rotation along the shorter arc (slerp); element by element
    where either frame is not a rotation times a positive scale."""
    if w == 0:
        return a
    ta, tb = _trs(a), _trs(b)
    if ta is None or tb is None:
        return a + (b - a) * w
    qa, qb = _quaternion(ta[1]), _quaternion(tb[1])
    if qa @ qb < 0:
        qb = -qb
    angle = np.arccos(min(qa @ qb, 1.0))
    if angle < 1e-12:
        q = qa + (qb - qa) * w
    else:
        q = (np.sin((1 - w) * angle) * qa + np.sin(w * angle) * qb) / np.sin(angle)
    out = np.empty((3, 4))
    out[:, :3] = _rotation(q) * (ta[2] + (tb[2] - ta[2]) * w)
    out[:, 3] = ta[0] + (tb[0] - ta[0]) * w
    return out


def reference_positions(memg: Dict[str, Any], rest: np.ndarray, t: float) -> np.ndarray:
    """The spec's formula in float64 at `t` timesteps, with the one rule
    between timesteps (docs/formats.md §5): Q blended linearly between the
    timesteps t0, t1 around t, the parent frame blended by `blend_frames`,
    p = M · (mean + U q); vertices of no group keep their rest position."""
    out = rest.astype(np.float64).copy()
    n = memg["n"]
    t = min(max(t, 0.0), n - 1)
    t0 = int(np.floor(t))
    t1 = min(t0 + 1, n - 1)
    w = t - t0
    for g in memg["groups"]:
        q = g["q"][:, t0] + (g["q"][:, t1] - g["q"][:, t0]) * w
        local = (g["mean"] + g["u"] @ q).reshape(-1, 3)
        if 0 <= g["parent"] < memg["k"]:
            frames = memg["frames"]
            m = blend_frames(frames[t0, g["parent"]], frames[t1, g["parent"]], w)
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
