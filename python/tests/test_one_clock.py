"""One clock (issue 33): the Python samplers sample a motion at the times
the command line's exports do, and give the same values.

For an AIBO motion, an MRTK recording and a MEMG scene, at each motion's own
frame period and at 7, 29.97 and 1000 samples a second, `sample_times` is
the `time_s` column of `viewer export --fps R x.csv` exactly, and the
samplers give that table's values: `joint_angles` and `body_attitude` its
degrees in radians (to 1e-12 rad), `camera_poses` and `hand_joints` its
`f32`s bit for bit; a MEMG scene's `positions` are the `.pc2` point cache
written at the same rate (`--frames 8..10` at 1000 fps) and the `.obj`
written at `--time t`, bit for bit (one deformer, one rule between
timesteps). The grid itself is written out here: frame k at k/R s (or
k times the own period) for k = 0..floor(duration·R) within 1e-9 of a frame.

The `viewer` binary is the one `cargo test` builds (target/debug, or
target/release); without it these tests are skipped, and fail under CI.
"""

from __future__ import annotations

import csv
import math
import pathlib
import struct
import subprocess
from typing import Dict, List, Optional, Sequence

import numpy as np
import pytest

import motion_viewer as mv

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
RATES: List[Optional[float]] = [None, 7.0, 29.97, 1000.0]


def _label(rate: Optional[float]) -> str:
    return "own" if rate is None else f"{rate}fps"


def _export(viewer: pathlib.Path, inputs: Sequence[pathlib.Path], out: pathlib.Path, *args: str) -> pathlib.Path:
    run = subprocess.run(
        [str(viewer), "export", *map(str, inputs), *args, "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    return out


def _fps(rate: Optional[float]) -> List[str]:
    return [] if rate is None else ["--fps", repr(rate)]


def _table(viewer, inputs, tmp_path, rate) -> Dict[str, np.ndarray]:
    """`export --fps R x.csv`, each column as float64 (Python's float()
    reads the writer's shortest text back to the same number)."""
    path = _export(viewer, inputs, tmp_path / f"{_label(rate)}.csv", *_fps(rate))
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    columns = rows[0]
    values = np.array([[float(x) for x in row] for row in rows[1:]], dtype=np.float64)
    return {name: values[:, i] for i, name in enumerate(columns)}


def _grid(duration: float, period: float) -> np.ndarray:
    last = math.floor(duration / period + 1e-9)
    return np.array([k * period for k in range(last + 1)], dtype=np.float64)


def _check_times(track, table, rate: Optional[float]) -> np.ndarray:
    times = track.sample_times() if rate is None else track.sample_times(rate=rate)
    period = track.frame_period if rate is None else 1.0 / rate
    grid = _grid(track.duration, period)
    assert np.array_equal(table["time_s"], grid), f"the CSV at {_label(rate)}"
    assert np.array_equal(times, grid), f"sample_times at {_label(rate)}: {times[:4]} … vs {grid[:4]} …"
    return times


def _sample(method, rate: Optional[float]):
    return method() if rate is None else method(rate=rate)


@pytest.mark.parametrize("rate", RATES, ids=_label)
def test_aibo_samplers_are_the_csv(viewer, tmp_path, rate):
    path = DATA / "sony_stand_sit.mtn"
    track = mv.open(path)
    assert track.frame_period == 0.016 and track.duration == 4.88
    table = _table(viewer, [path], tmp_path, rate)
    _check_times(track, table, rate)
    angles = _sample(track.joint_angles, rate)
    want = np.radians(np.stack([table[name] for name in track.joint_names], axis=1))
    np.testing.assert_allclose(angles, want, rtol=0, atol=1e-12)
    attitude = _sample(track.body_attitude, rate)
    want = np.radians(np.stack([table[c] for c in ("roll_deg", "pitch_deg", "yaw_deg")], axis=1))
    np.testing.assert_allclose(attitude, want, rtol=0, atol=1e-12)


def _pose_columns(prefix: str) -> List[str]:
    return [f"{prefix}_{c}" for c in ("px", "py", "pz", "rx", "ry", "rz", "rw")]


@pytest.mark.parametrize("rate", RATES, ids=_label)
def test_mrtk_samplers_are_the_csv(viewer, tmp_path, rate):
    path = DATA / "hands.mrtk"
    track = mv.open(path)
    assert track.duration == 4.0
    table = _table(viewer, [path], tmp_path, rate)
    _check_times(track, table, rate)
    camera = _sample(track.camera_poses, rate)
    want = np.stack([table[c] for c in _pose_columns("camera")], axis=1).astype(np.float32)
    assert np.array_equal(camera, want), f"camera_poses at {_label(rate)}"
    joints = _sample(track.hand_joints, rate)
    for s, side in enumerate(("left", "right")):
        for j, name in enumerate(track.hand_joint_names):
            want = np.stack([table[c] for c in _pose_columns(f"{side}_{name}")], axis=1)
            assert np.array_equal(joints[:, s, j], want.astype(np.float32)), f"{side} {name} at {_label(rate)}"
        tracked = _sample(track.tracked, rate)[:, s]
        assert np.array_equal(tracked, table[f"{side}_tracked"] == 1.0), f"{side} tracked at {_label(rate)}"


def _pc2(path: pathlib.Path) -> np.ndarray:
    raw = path.read_bytes()
    assert raw[:12] == b"POINTCACHE2\0"
    _, points, start, sampling, frames = struct.unpack_from("<iiffi", raw, 12)
    assert (start, sampling) == (0.0, 1.0)
    return np.frombuffer(raw, "<f4", offset=32).reshape(frames, points, 3)


def _obj(path: pathlib.Path) -> np.ndarray:
    lines = [line.split()[1:] for line in path.read_text().splitlines() if line.startswith("v ")]
    return np.array(lines, dtype=np.float32)


@pytest.mark.parametrize("rate", RATES, ids=_label)
def test_memg_positions_are_the_point_cache_and_the_obj(viewer, tmp_path, rate):
    inputs = [DATA / "flags.obj", DATA / "flags.bin"]
    track = mv.open(DATA / "flags.bin")
    assert track.fps == 30 and track.duration == 239 / 30
    table = _table(viewer, inputs, tmp_path, rate)
    times = _check_times(track, table, rate)
    if rate is not None and rate > 100:
        # 7967 frames of 3116 points: the cache over frames 8..10 of the own 30 fps.
        cache = _pc2(_export(viewer, inputs, tmp_path / "window.pc2", *_fps(rate), "--frames", "8..10"))
        inside = times[(times >= 8 / 30 - 1e-9 / rate) & (times < 10 / 30 - 1e-9 / rate)]
        got = track.positions(inside)
    else:
        cache = _pc2(_export(viewer, inputs, tmp_path / f"{_label(rate)}.pc2", *_fps(rate)))
        got = _sample(track.positions, rate)
    assert got.shape == cache.shape, f"positions at {_label(rate)}"
    assert np.array_equal(got, cache), f"positions vs the .pc2 at {_label(rate)}"
    # A few grid times (2/7 s at 7 fps, between two timesteps) against `export --time`.
    for k in sorted({1, 2, len(times) // 2, len(times) - 1}):
        t = float(times[k])
        obj = _obj(_export(viewer, inputs, tmp_path / f"{k}.obj", "--time", repr(t)))
        [at] = track.positions([t])
        assert np.array_equal(at, obj), f"positions at {t} s vs export --time {t} .obj"
