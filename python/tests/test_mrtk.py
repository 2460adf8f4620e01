"""MRTK input animation: hands.mrtk as data/README.md describes it."""

import numpy as np
import pytest

import motion_viewer as mv


@pytest.fixture
def hands(data):
    return mv.open(data / "hands.mrtk")


def test_facts(hands):
    assert hands.kind == "input-animation"
    # 4 s, keys at 60 Hz.
    assert hands.duration == pytest.approx(4.0, abs=1e-6)
    assert hands.frame_period == pytest.approx(1 / 60)
    # examples/make_input_animation.rs, which wrote the file: wave at 1.3 s, pinch at 2.6 s.
    assert [name for _, name in hands.markers] == ["wave", "pinch"]
    assert [t for t, _ in hands.markers] == pytest.approx([1.3, 2.6], abs=1e-6)
    assert hands.info()["markers"][0]["name"] == "wave"
    assert len(hands.hand_joint_names) == 27
    assert hands.hand_joint_names[11] == "IndexTip"


def test_shapes_and_unit_quaternions(hands):
    times = hands.sample_times()
    assert len(times) == 241
    camera = hands.camera_poses()
    joints = hands.hand_joints()
    assert camera.shape == (241, 7) and camera.dtype == np.float32
    assert joints.shape == (241, 2, 27, 7)
    assert np.allclose(np.linalg.norm(camera[:, 3:], axis=1), 1, atol=1e-6)
    assert np.allclose(np.linalg.norm(joints[..., 3:], axis=-1), 1, atol=1e-6)
    assert hands.gaze().shape == (241, 6)


def test_pinch_and_tracking_windows(hands):
    # The right hand pinches 2.6–3.1 s; the left is untracked 1.2–1.8 s.
    times = [1.0, 1.5, 2.0, 2.8, 3.5]
    pinching = hands.pinching(times)
    tracked = hands.tracked(times)
    assert pinching.dtype == np.bool_
    assert pinching[:, 1].tolist() == [False, False, False, True, False]
    assert tracked[:, 0].tolist() == [True, False, True, True, True]
    assert tracked[:, 1].all()


def test_gaze_looks_at_the_right_index_tip(hands):
    times = np.linspace(0.5, 3.5, 7)
    gaze = hands.gaze(times).astype(np.float64)
    tip = hands.hand_joints(times)[:, 1, 11, :3].astype(np.float64)
    to_tip = tip - gaze[:, :3]
    to_tip /= np.linalg.norm(to_tip, axis=1, keepdims=True)
    direction = gaze[:, 3:] / np.linalg.norm(gaze[:, 3:], axis=1, keepdims=True)
    assert np.allclose(direction, to_tip, atol=1e-3)


def test_pinching_thumb_meets_index(hands):
    # Thumb tip to index tip while pinching.
    j = hands.hand_joints([2.85])[0, 1]
    thumb, index = j[6, :3], j[11, :3]
    assert np.linalg.norm(thumb - index) < 0.02
