"""MEMG: positions against the spec's formula in float64 on the file's own
numbers, and the stored arrays as views of the track (no copy)."""

import sys

import numpy as np
import pytest

import motion_viewer as mv
from conftest import read_memg_f64, reference_positions, write_memg


@pytest.fixture(scope="module")
def flags():
    from conftest import DATA

    return mv.open(DATA / "flags.bin")


@pytest.fixture(scope="module")
def flags_f64():
    from conftest import DATA

    return read_memg_f64((DATA / "flags.bin").read_bytes())


def test_facts(flags, flags_f64):
    assert flags.kind == "memg"
    assert flags.fps == flags_f64["fps"] == 30
    # 240 timesteps at 30 fps.
    assert flags.duration == pytest.approx(239 / 30)
    assert flags.group_names == [g["name"] for g in flags_f64["groups"]]
    assert flags.info()["timesteps"] == 240


def test_positions_match_the_f64_reference(flags, flags_f64):
    rest = flags.rest_positions
    times = np.array([0.0, 1.0, 2.51, 7.9, 100.0])  # seconds; the last clamps
    got = flags.positions(times)
    assert got.shape == (5, rest.shape[0], 3) and got.dtype == np.float32
    for i, t in enumerate(times):
        want = reference_positions(flags_f64, rest, t * 30)
        scale = np.abs(want).max()
        assert np.abs(got[i] - want).max() <= 1e-5 * scale, t


def test_raw_arrays_are_views_of_the_track(flags, flags_f64):
    g0 = flags_f64["groups"][0]
    mean, u, q = flags.mean(0), flags.U(0), flags.Q(g0["name"])
    for a in (mean, u, q, flags.frames, flags.mapping(0), flags.rest_positions, flags.triangles):
        assert a.base is flags
        assert not a.flags.writeable
        assert not a.flags.owndata
    # The same memory twice, not two copies.
    assert np.shares_memory(flags.U(0), flags.U(0))
    assert u.flags.f_contiguous and q.flags.f_contiguous
    assert mean.shape == (len(g0["mapping"]), 3)
    assert u.shape == g0["u"].shape and q.shape == g0["q"].shape
    # The stored float64 values themselves, as are the frames.
    assert mean.dtype == u.dtype == q.dtype == np.float64
    assert np.array_equal(mean.ravel(), g0["mean"])
    assert np.array_equal(u, g0["u"])
    assert np.array_equal(q, g0["q"])
    assert np.array_equal(flags.frames, flags_f64["frames"])
    assert np.array_equal(flags.mapping(0), g0["mapping"])
    assert flags.parent(0) == g0["parent"]
    # A view keeps the track alive after the last name for it goes.
    held = mv.open(flags.path).U(0)
    before = sys.getrefcount(held.base)
    assert before >= 2 and np.isfinite(held).all()
    with pytest.raises(ValueError):
        mean[0, 0] = 1.0
    with pytest.raises(IndexError):
        flags.mean(99)
    with pytest.raises(KeyError):
        flags.mean("nope")


def test_a_synthetic_cloud_in_world_space(tmp_path):
    write_memg(tmp_path / "cloud.bin", vertices=1000, basis=4, timesteps=5)
    track = mv.open(tmp_path / "cloud.bin")
    ref = read_memg_f64((tmp_path / "cloud.bin").read_bytes())
    got = track.positions([0.0, 0.05, 4 / 30])
    for i, t in enumerate([0.0, 1.5, 4.0]):
        want = reference_positions(ref, track.rest_positions, t)
        assert np.allclose(got[i], want, atol=1e-5)
