"""motion_viewer.memg.fit on a numpy array: the Blender-made cloth flag
(tests/data/fit/) read here with numpy, fitted within 1/1000 of its
diagonal, the track's motion checked against the input by the spec's
formula in float64 (conftest.reference_positions, on the saved file's own
numbers), and arrays that do not fit the scene refused."""

import pathlib
import shutil
import struct

import numpy as np
import pytest

import motion_viewer as mv
from conftest import ROOT, read_memg_f64, reference_positions

FIT = ROOT / "tests" / "data" / "fit"


def read_pc2(path: pathlib.Path) -> np.ndarray:
    raw = path.read_bytes()
    _, _, vertices, _, _, frames = struct.unpack("<12siiffi", raw[:32])
    return np.frombuffer(raw, "<f4", offset=32).reshape(frames, vertices, 3)


@pytest.fixture(scope="module")
def flag() -> np.ndarray:
    return read_pc2(FIT / "flag.pc2")


def diagonal(positions: np.ndarray) -> float:
    flat = positions.reshape(-1, 3).astype(np.float64)
    return float(np.linalg.norm(flat.max(0) - flat.min(0)))


def test_a_fit_holds_its_bound_at_every_vertex_and_frame(flag, tmp_path):
    bound = 1e-3 * diagonal(flag)
    track, report = mv.memg.fit(FIT / "flag.obj", flag.astype(np.float64), max_error=bound, report=True)
    assert track.kind == "memg" and track.fps == 30
    assert track.group_names == ["default"]
    assert report["frames"] == 120 and report["vertices"] == 325
    assert report["max_error"] <= bound
    assert report["groups"][0]["rank"] == track.U(0).shape[1]
    # Saved beside a copy of its scene, the file reopens; its own numbers,
    # read here in float64, place every vertex within the bound.
    shutil.copy(FIT / "flag.obj", tmp_path / "flag.obj")
    mv.memg.save(track, tmp_path / "flag.bin")
    memg = read_memg_f64((tmp_path / "flag.bin").read_bytes())
    rest = np.zeros((325, 3))
    worst = max(
        np.linalg.norm(reference_positions(memg, rest, t) - flag[t], axis=1).max() for t in range(120)
    )
    assert worst <= bound
    assert worst == pytest.approx(report["max_error"], abs=1e-6 * diagonal(flag))
    again = mv.open(tmp_path / "flag.bin")
    assert np.array_equal(again.Q(0), track.Q(0))
    # The library's deformer on the track agrees.
    got = track.positions(np.arange(120) / 30.0)
    assert np.abs(got - flag).max() <= bound * 1.0001


def test_an_rms_bound_holds_on_average_in_every_group(flag, tmp_path):
    bound = 1e-3 * diagonal(flag)
    track, report = mv.memg.fit(FIT / "flag.obj", flag, rms_error=bound, report=True)
    assert report["rms_error_bound"] == pytest.approx(bound) and report["max_error_bound"] is None
    shutil.copy(FIT / "flag.obj", tmp_path / "flag.obj")
    mv.memg.save(track, tmp_path / "flag.bin")
    memg = read_memg_f64((tmp_path / "flag.bin").read_bytes())
    rest = np.zeros((325, 3))
    errors = np.stack([np.linalg.norm(reference_positions(memg, rest, t) - flag[t], axis=1) for t in range(120)])
    assert np.sqrt((errors**2).mean()) <= bound
    # An average: some vertex strays past it, and the rank is far below a max bound's.
    assert errors.max() > bound
    assert track.U(0).shape[1] < mv.memg.fit(FIT / "flag.obj", flag, max_error=bound).U(0).shape[1]
    with pytest.raises(ValueError, match="not several"):
        mv.memg.fit(FIT / "flag.obj", flag, rms_error=bound, max_error=bound)


def test_a_percentage_and_a_rank(flag):
    by_share = mv.memg.fit(FIT / "flag.obj", flag, max_error="0.1%")
    assert by_share.U(0).shape[1] > 0
    fixed, report = mv.memg.fit(FIT / "flag.obj", flag, rank=5, frames="world", report=True)
    assert fixed.U(0).shape == (3 * 325, 5)
    assert report["max_error_bound"] is None and report["frame_mode"] == "world"
    assert fixed.parent(0) == -1


def test_arrays_that_do_not_fit_the_scene_are_refused(flag):
    with pytest.raises(mv.MismatchError, match="expected an array of \\(frames, 325, 3\\)"):
        mv.memg.fit(FIT / "flag.obj", flag[:, :300])
    bad = flag.copy()
    bad[7, 11, 2] = np.nan
    with pytest.raises(mv.NonFiniteError, match=r"positions\[7, 11, 2\]"):
        mv.memg.fit(FIT / "flag.obj", bad)
    with pytest.raises(ValueError, match="frames × vertices × 3"):
        mv.memg.fit(FIT / "flag.obj", flag[0])
    with pytest.raises(mv.UnsupportedError, match="no rank meets"):
        mv.memg.fit(FIT / "flag.obj", flag, max_error=1e-12)
    with pytest.raises(ValueError, match="not several"):
        mv.memg.fit(FIT / "flag.obj", flag, rank=3, max_error=0.01)


def test_parts_split_the_tube_write_the_scene_and_hold_the_bound(tmp_path):
    # The Blender tube (three bones): split into three parts by the fit,
    # the scene with the parts as its groups written beside the motion.
    tube = read_pc2(FIT / "tube.pc2")
    bound = 1e-3 * diagonal(tube)
    out_scene = tmp_path / "parts.obj"
    track, report = mv.memg.fit(
        FIT / "tube.obj", tube, max_error=bound, parts=3, out_scene=out_scene, report=True
    )
    assert report["parts"]["asked"] == {"count": 3} and report["parts"]["chosen"] == 3
    assert sorted(track.group_names) == ["part1", "part2", "part3"]
    # The scene written: the input's lines but for its `g` lines, every
    # vertex kept in order, each part a `g` group of the faces.
    written = out_scene.read_text().splitlines()
    given = (FIT / "tube.obj").read_text().splitlines()
    def kept(lines):
        return [line for line in lines if not line.startswith(("g ", "o "))]

    assert kept(written) == kept(given)
    assert sorted({l for l in written if l.startswith("g ")}) == ["g part1", "g part2", "g part3"]
    # The motion saved beside it: its own numbers, read here in float64,
    # place every vertex within the bound at every frame.
    mv.memg.save(track, tmp_path / "parts.bin")
    memg = read_memg_f64((tmp_path / "parts.bin").read_bytes())
    rest = np.zeros((tube.shape[1], 3))
    worst = max(
        np.linalg.norm(reference_positions(memg, rest, t) - tube[t], axis=1).max() for t in range(tube.shape[0])
    )
    assert worst <= bound
    again = mv.open(tmp_path / "parts.bin")
    assert sorted(again.group_names) == ["part1", "part2", "part3"]


def test_auto_parts_and_bad_parts(tmp_path, flag):
    track, report = mv.memg.fit(
        FIT / "flag.obj", flag, parts="auto", out_scene=tmp_path / "p.obj", report=True
    )
    assert report["parts"]["asked"] == "auto"
    tried = report["parts"]["tried"]
    assert tried[0]["parts"] == 1 and len(tried) >= 2
    sizes = [t["memg"] for t in tried if t["memg"] is not None]
    assert report["bytes"]["memg"] == min(sizes)
    with pytest.raises(ValueError, match="out_scene"):
        mv.memg.fit(FIT / "flag.obj", flag, parts=2)
    with pytest.raises(ValueError, match="parts"):
        mv.memg.fit(FIT / "flag.obj", flag, parts="many", out_scene=tmp_path / "q.obj")
    with pytest.raises(ValueError, match="parts"):
        mv.memg.fit(FIT / "flag.obj", flag, parts=0, out_scene=tmp_path / "q.obj")
    with pytest.raises(mv.MotionViewerError, match="parts"):
        mv.memg.fit(FIT / "flag.obj", flag, parts=1000, out_scene=tmp_path / "q.obj")
    # Never over the input scene.
    with pytest.raises(mv.MotionViewerError):
        mv.memg.fit(FIT / "flag.obj", flag, parts=2, out_scene=FIT / "flag.obj")
    assert not (tmp_path / "q.obj").exists()
