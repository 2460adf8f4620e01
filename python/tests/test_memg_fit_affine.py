"""motion_viewer.memg.fit with frames="auto" on a body that turns,
stretches and shears as a whole: the fit takes one affine frame shared by
its two blocks (report["affine_frame"]), each block then one column of
basis, in a smaller file than rigid frames; the saved file's own numbers,
read here in float64 and deformed by the spec's formula
(conftest.reference_positions), hold the bound at every vertex and frame.
The body is made here with numpy, not by the library."""

import pathlib

import numpy as np

import motion_viewer as mv
from conftest import read_memg_f64, reference_positions

FRAMES = 60


def tumbled(p: np.ndarray, t: int) -> np.ndarray:
    """Points (… × 3) turned 0.1·t radians about (1, 2, 3) by Rodrigues'
    formula, then moved by 0.05·t·(1, 2, 3)."""
    k = np.array([1.0, 2.0, 3.0]) / np.sqrt(14.0)
    s, c = np.sin(0.1 * t), np.cos(0.1 * t)
    turned = p * c + np.cross(k, p) * s + np.outer(p @ k, k) * (1.0 - c)
    return turned + 0.05 * t * np.array([1.0, 2.0, 3.0])


def stretched_body() -> np.ndarray:
    """Two 4 × 4 × 4 blocks of points, five apart, stretched in x and z and
    sheared as one body, turned and moved, each waving along a field of its
    own: frames × 128 × 3."""
    i = np.arange(64)
    out = np.empty((FRAMES, 128, 3))
    for t in range(FRAMES):
        sx, sz, shear = 1 + 0.2 * np.sin(0.3 * t), 1 - 0.1 * np.sin(0.2 * t), 0.15 * np.sin(0.25 * t)
        for b in range(2):
            p = np.stack([i % 4 - 1.5 + 5.0 * b, i // 4 % 4 - 1.5, i // 16 - 1.5], axis=1)
            u = np.stack([np.zeros(64), 0.02 * np.sin(p[:, 0]), 0.04 * np.cos(p[:, 1] + b)], axis=1)
            y = p + u * np.sin(0.5 * t + b)
            stretched = np.stack([sx * y[:, 0] + shear * y[:, 1], y[:, 1], sz * y[:, 2]], axis=1)
            out[t, 64 * b : 64 * (b + 1)] = tumbled(stretched, t)
    return out


def write_scene(path: pathlib.Path, rest: np.ndarray) -> None:
    """The blocks as the groups `block0` and `block1`: a right triangle
    at every point, to its neighbours in x and y."""
    lines = [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in rest]
    for b in range(2):
        lines.append(f"g block{b}")
        for i in range(64):
            corners = (64 * b + i, 64 * b + (i ^ 1), 64 * b + (i ^ 4))
            lines.append("f " + " ".join(str(c + 1) for c in corners))
    path.write_text("\n".join(lines) + "\n")


def test_a_body_that_stretches_takes_one_affine_frame_under_auto(tmp_path):
    positions = stretched_body()
    scene = tmp_path / "body.obj"
    write_scene(scene, positions[0])
    bound = 1e-3
    track, auto = mv.memg.fit(scene, positions, max_error=bound, frames="auto", report=True)
    _, local = mv.memg.fit(scene, positions, max_error=bound, frames="local", report=True)
    assert auto["affine_frame"] is True and local["affine_frame"] is False
    assert [(g["rank"], g["frame"]) for g in auto["groups"]] == [(1, True), (1, True)]
    assert all(g["rank"] > 1 for g in local["groups"])
    assert auto["bytes"]["memg"] < local["bytes"]["memg"]

    mv.memg.save(track, tmp_path / "body.bin")
    memg = read_memg_f64((tmp_path / "body.bin").read_bytes())
    assert memg["frames"].shape == (FRAMES, 1, 3, 4)
    # The frame is no rotation, nor a rotation times a scale: AᵀA is far
    # from a multiple of the identity at some timestep.
    a = memg["frames"][:, 0, :, :3]
    gram = np.einsum("tia,tib->tab", a, a)
    mean = np.trace(gram, axis1=1, axis2=2) / 3.0
    off = np.abs(gram - mean[:, None, None] * np.eye(3)).max(axis=(1, 2))
    assert (off > 0.05 * mean).any()
    worst = max(
        np.linalg.norm(reference_positions(memg, positions[0], t) - positions[t], axis=1).max()
        for t in range(FRAMES)
    )
    assert worst <= bound * (1 + 1e-6)
