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


def _glb(path):
    """A .glb's JSON and binary chunk, by the container's layout."""
    raw = open(path, "rb").read()
    json_len, _ = struct.unpack_from("<II", raw, 12)
    doc = json.loads(raw[20 : 20 + json_len])
    bin_len, _ = struct.unpack_from("<II", raw, 20 + json_len)
    return doc, raw[28 + json_len : 28 + json_len + bin_len]


def _vec3s(doc, blob, index):
    """Accessor `index` (VEC3) as float64, normalized integers read as glTF
    2.0 says: max(q / 32767, -1) for a short."""
    a = doc["accessors"][index]
    view = doc["bufferViews"][a["bufferView"]]
    kind = {5126: "<f4", 5122: "<i2"}[a["componentType"]]
    size = np.dtype(kind).itemsize
    stride = view.get("byteStride", 3 * size)
    start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
    rows = np.ndarray(
        (a["count"], 3), kind, blob, start, (stride, size)
    ).astype(np.float64)
    if a.get("normalized"):
        rows = np.maximum(rows / 32767.0, -1.0)
    return rows


def test_memg_gltf_in_16_bit_integers(data, tmp_path):
    flags = mv.open(data / "flags.bin")
    [plain] = flags.export(tmp_path / "floats.glb")
    [small] = flags.export(tmp_path / "ints.glb", quantize=True)
    [spent] = flags.export(tmp_path / "spent.glb", quantize=0.01)
    doc, blob = _glb(plain)
    qdoc, qblob = _glb(small)
    assert "KHR_mesh_quantization" not in doc.get("extensionsRequired", [])
    assert "KHR_mesh_quantization" in qdoc["extensionsRequired"]
    sizes = [len(open(p, "rb").read()) for p in (plain, small, spent)]
    assert sizes[2] < sizes[1] < 0.8 * sizes[0], sizes
    # Each mesh's rest positions: the integers, placed by their node's
    # translation and uniform scale, within a 16-bit step of the floats.
    for m, mesh in enumerate(qdoc["meshes"]):
        [node] = [n for n in qdoc["nodes"] if n.get("mesh") == m]
        [same] = [k for k, x in enumerate(doc["meshes"]) if x["name"] == mesh["name"]]
        ints = _vec3s(qdoc, qblob, mesh["primitives"][0]["attributes"]["POSITION"])
        floats = _vec3s(doc, blob, doc["meshes"][same]["primitives"][0]["attributes"]["POSITION"])
        # (glTF leaves out a unit scale and a zero translation.)
        unit = node.get("scale", [1.0])[0]
        placed = np.asarray(node.get("translation", [0.0] * 3)) + unit * ints
        assert np.abs(placed - floats).max() <= unit / 32767.0 + 1e-6
    for bad, kind in [(-1.0, ValueError), (float("nan"), ValueError), ("yes", TypeError)]:
        with pytest.raises(kind, match="quantize"):
            flags.export(tmp_path / "bad.glb", quantize=bad)
    assert not (tmp_path / "bad.glb").exists()
