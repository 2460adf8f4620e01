"""Exports through the library's one entry point, and the mtn workbench."""

import csv
import json
import struct

import numpy as np
import pytest

import motion_viewer as mv


def test_state_at_one_time_as_json(data, tmp_path):
    sit = mv.open(data / "sony_stand_sit.mtn")
    written = sit.export(tmp_path / "sit.json", time=0.488)
    assert written == [str(tmp_path / "sit.json")]
    state = json.loads((tmp_path / "sit.json").read_text())
    [state] = state if isinstance(state, list) else [state]
    assert state["time_s"] == pytest.approx(0.488)
    # Head tilt halfway between keyframes 0 and 1: -287980 µrad in degrees.
    assert state["joints"][0]["deg"] == pytest.approx(np.degrees(-287980e-6), abs=1e-9)


def test_a_table_has_a_row_per_frame(data, tmp_path):
    sit = mv.open(data / "sony_stand_sit.mtn")
    [path] = sit.export(tmp_path / "sit.csv")
    rows = list(csv.reader(open(path)))
    assert len(rows) - 1 == len(sit.sample_times()) == 306


def test_pc2_holds_the_positions(data, tmp_path):
    flags = mv.open(data / "flags.bin")
    [path] = flags.export(tmp_path / "flags.pc2")
    raw = open(path, "rb").read()
    # Blender's point cache: "POINTCACHE2\0", version, points, start, rate, samples.
    assert raw[:12] == b"POINTCACHE2\0"
    _, points, _, _, samples = struct.unpack_from("<iiffi", raw, 12)
    assert points == flags.rest_positions.shape[0] and samples == 240
    cache = np.frombuffer(raw, "<f4", offset=32).reshape(samples, points, 3)
    got = flags.positions(np.arange(samples) / 30)
    assert np.array_equal(cache[7], got[7]) or np.allclose(cache[7], got[7], atol=1e-6)


def test_several_tracks_in_one_glb(data, tmp_path):
    tracks = [mv.open(data / "sony_stand_sit.mtn"), mv.open(data / "hands.mrtk")]
    [path] = mv.export(tracks, tmp_path / "both.glb")
    raw = open(path, "rb").read()
    magic, version, length = struct.unpack_from("<4sII", raw)
    assert (magic, version, length) == (b"glTF", 2, len(raw))
    with pytest.raises(ValueError, match="time or frame"):
        mv.export(tracks, tmp_path / "x.json", time=1.0, frame=2)


def test_workbench_edits(data, tmp_path):
    sit = mv.open(data / "sony_stand_sit.mtn")
    back = mv.mtn.reverse(sit)
    assert back.duration == pytest.approx(sit.duration)
    # Reversed: the last pose comes first.
    assert np.allclose(back.joint_angles([0.0]), sit.joint_angles([sit.duration]))
    assert np.allclose(mv.mtn.reverse(back).joint_angles(), sit.joint_angles())

    fast = mv.mtn.retime(sit, speed=2.0)
    assert fast.duration == pytest.approx(2.44, abs=0.016)
    slow = mv.mtn.retime(sit, frame_ms=8)
    assert slow.frame_period == pytest.approx(0.008)
    assert slow.duration == pytest.approx(sit.duration, abs=0.008)

    twice = mv.mtn.concat([sit, sit])
    assert twice.duration >= 2 * sit.duration

    mirrored = mv.mtn.mirror(sit)
    assert mirrored.joint_names == sit.joint_names
    # Pitch is its own mirror; roll and yaw change sign.
    assert np.allclose(mirrored.body_attitude()[:, 1], sit.body_attitude()[:, 1])

    report = mv.mtn.check(sit)
    assert report["errors"] == sum(f["severity"] == "error" for f in report["findings"])
    assert mv.mtn.convert(sit, "ERS-7").kind == "mtn"

    out = tmp_path / "fast.mtn"
    mv.mtn.save(fast, out)
    again = mv.open(out)
    assert np.allclose(again.joint_angles(), fast.joint_angles())
    with pytest.raises(mv.FileError, match="is one of the input files"):
        mv.mtn.save(sit, data / "sony_stand_sit.mtn")
    with pytest.raises(TypeError):
        mv.mtn.mirror(mv.open(data / "hands.mrtk"))
