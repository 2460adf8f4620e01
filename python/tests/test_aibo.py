"""AIBO .mtn: joint angles, body attitude, rig points and keyframes against
the seed motion's bytes (docs/formats.md §1) and independent rotation math."""

import json
import math
import subprocess

import numpy as np
import pytest

import motion_viewer as mv
from conftest import ROOT

URAD = 1e-6  # the file stores microradians


@pytest.fixture
def sit(data):
    return mv.open(data / "sony_stand_sit.mtn")


def test_facts(sit):
    assert sit.kind == "mtn"
    assert sit.name == "sony_stand_sit"
    # 305 frames of 16 ms.
    assert sit.duration == pytest.approx(4.88, abs=1e-12)
    assert sit.frame_period == pytest.approx(0.016, abs=1e-15)
    assert len(sit.joint_names) == 20
    assert sit.info()["format"] == "mtn"
    assert sit.info()["keyframes"] == len(sit.keyframes()["time"])


def test_joint_angles_between_keyframes(sit):
    # Keyframe 1 is 61 frames × 16 ms = 0.976 s in; halfway is 0.488 s.
    a = sit.joint_angles([0.0, 0.488])
    assert a.shape == (2, 20) and a.dtype == np.float64
    # Head tilt 0 → 0xFFF73628 = -575960 µrad: -287980 halfway.
    assert a[1, 0] == pytest.approx(-287980 * URAD, abs=1e-12)
    # Mouth stays at 0xFFFF3378 = -52360 µrad.
    assert a[0, 3] == pytest.approx(-52360 * URAD, abs=1e-12)
    assert a[1, 3] == pytest.approx(-52360 * URAD, abs=1e-12)
    body = sit.body_attitude([0.0, 0.488, 1.792, 100.0])
    # Pitch 0x885A = 34906 → 0xFFFE66F0 = -104720: -34907 halfway; keyframe 2
    # (frame 112 = 1.792 s) is 0x03FEA8 = 261800; the end holds 558506.
    assert body[:, 1] == pytest.approx(np.array([34906, -34907, 261800, 558506]) * URAD, abs=1e-9)
    assert np.all(body[:, [0, 2]] == 0)


def test_every_frame_and_a_rate(sit):
    # Frames 0..=305 by default; 10 Hz gives 0, 0.1, … 4.8.
    assert sit.joint_angles().shape == (306, 20)
    assert np.allclose(sit.sample_times(), np.arange(306) * 0.016)
    assert sit.joint_angles(rate=10).shape == (49, 20)
    with pytest.raises(ValueError):
        sit.joint_angles([0.0], rate=10)
    with pytest.raises(ValueError):
        sit.joint_angles(rate=-1)
    with pytest.raises(TypeError, match=r"\[t\] for one time"):
        sit.joint_angles(1.0)
    assert sit.joint_angles([]).shape == (0, 20)
    assert sit.joint_angles(range(3)).shape == (3, 20)


def test_keyframes(sit):
    k = sit.keyframes()
    assert k["frame"][:3].tolist() == [0, 61, 112]
    assert k["time"][:3] == pytest.approx([0.0, 0.976, 1.792])
    assert k["body_attitude"][0, 1] == pytest.approx(34906 * URAD)
    assert k["joint_angles"].shape == (len(k["time"]), 20)
    # A keyframe time samples exactly the keyframe.
    assert np.allclose(sit.joint_angles(k["time"]), k["joint_angles"], atol=1e-12)


def rotation(roll, pitch, yaw):
    """Yaw about z, then pitch about the turned y (+ lifts the front: -pitch
    about +y), then roll about the turned x."""
    cz, sz = math.cos(yaw), math.sin(yaw)
    cy, sy = math.cos(-pitch), math.sin(-pitch)
    cx, sx = math.cos(roll), math.sin(roll)
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    return rz @ ry @ rx


def test_rig_points_body_and_world(sit):
    times = [0.0, 0.488, 2.5]
    body = sit.rig_points(times)
    world = sit.rig_points(times, frame="world")
    names = sit.point_names
    assert body.shape == (3, len(names), 3)
    assert len(set(names)) == len(names)
    # Metres: an AIBO's points lie within half a metre of its body centre.
    assert 0.01 < np.abs(body).max() < 0.5
    attitude = sit.body_attitude(times)
    for i in range(3):
        r = rotation(*attitude[i])
        assert np.allclose(world[i], body[i] @ r.T, atol=1e-12)
    with pytest.raises(ValueError):
        sit.rig_points(times, frame="camera")


def test_wrong_kind_is_a_type_error(sit, data):
    with pytest.raises(TypeError, match="is for memg tracks"):
        sit.positions([0.0])
    with pytest.raises(TypeError, match="is for input-animation tracks"):
        sit.camera_poses()


def test_simulate_the_seed_stands_and_returns_the_arrays(sit):
    r = sit.simulate()
    v = r["verdict"]
    assert v["model"] == "ERS-210"
    assert v["falls"] is False and v["fall_time_s"] is None
    assert 10.0 < v["peak_tilt_deg"] < 60.0
    assert len(v["joints"]) == 15 and len(v["paws"]) == 4
    n = len(r["time"])
    # Every 16 ms frame from the start to the end of the 1 s hold.
    assert n == math.floor((4.88 + 1.0) / 0.016) + 1
    assert r["time"][0] == 0.0 and abs(r["time"][-1] - 5.872) < 1e-9
    assert r["body_position"].shape == (n, 3)
    assert r["body_attitude"].shape == (n, 4)
    assert np.allclose(np.linalg.norm(r["body_attitude"], axis=1), 1.0)
    assert r["reached"].shape == (n, 15) and r["commanded"].shape == (n, 15)
    assert len(r["servos"]) == 15 and "PRM:/r2/c1-Joint2:j1" in r["servos"]
    # The body stays well above the floor, and the servos follow their commands.
    assert r["body_position"][:, 2].min() > 0.03
    assert np.abs(r["reached"] - r["commanded"]).max() < math.radians(10.0)
    # The tilt is the body's up axis from the world's.
    x, y = r["body_attitude"][:, 0], r["body_attitude"][:, 1]
    up_z = 1.0 - 2.0 * (x * x + y * y)
    assert np.allclose(np.degrees(np.arccos(np.clip(up_z, -1, 1))), r["tilt_deg"], atol=1e-6)


def test_simulate_refuses_a_motion_of_no_known_model(tmp_path, data):
    raw = bytearray((data / "sony_stand_sit.mtn").read_bytes())
    at = raw.find(b"DRX-910")
    raw[at : at + 7] = b"DRX-999"
    path = tmp_path / "unknown.mtn"
    path.write_bytes(bytes(raw))
    with pytest.raises(mv.UnsupportedError, match="unknown design label"):
        mv.open(path).simulate()


def test_a_garbled_servo_name_is_given_as_every_path_gives_it():
    # Sony's ERS-110 cd#14 names the left hind elevator "PRM:/r5/c0/c1/c2-Joint"
    # and the tail pan "PRM:/r1/c0-Joint:j1" (tests/data/mtn/SOURCES.txt); the
    # model's PRM names (docs/formats.md §1) are the ones info, URDF and MCAP give.
    track = mv.open(ROOT / "tests" / "data" / "oda" / "ers110_Motion.ODA:cd#14")
    names = track.joint_names
    assert names[14] == "PRM:/r5/c0/c1-Joint:j1"
    assert names[17] == "PRM:/r1/c1-Joint:j1"
    assert "PRM:/r5/c0/c1/c2-Joint" not in names and "PRM:/r1/c0-Joint:j1" not in names


# Every real AIBO motion the repository carries: the sample motions
# (data/SOURCES.md), the .mtn files taken from public repositories
# (tests/data/mtn/SOURCES.txt) and the Sony ODA archives, every entry
# (tests/data/oda/SOURCES.txt).
REAL_MOTIONS = sorted(
    [
        *ROOT.glob("data/*.mtn"),
        *ROOT.glob("tests/data/mtn/*/*.mtn"),
        *ROOT.glob("tests/data/oda/*.ODA"),
    ]
)


def test_the_real_motions_are_all_found():
    # 2 samples + 27 files + 4 archives (the SOURCES files list them).
    assert len(REAL_MOTIONS) == 33


@pytest.mark.parametrize("path", REAL_MOTIONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_joint_names_are_infos_for_every_real_motion(viewer, path):
    # `viewer info --json` lists a file's motion, or each archive entry's.
    run = subprocess.run([str(viewer), "info", "--json", str(path)], capture_output=True, check=True)
    summaries = [s.get("mtn", s) for s in json.loads(run.stdout)]
    tracks = mv.open_all([path])
    assert len(tracks) == len(summaries) > 0
    for track, summary in zip(tracks, summaries):
        assert track.joint_names == [j["name"] for j in summary["joints"]], track.path

