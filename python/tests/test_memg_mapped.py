"""MEMG motions opened without decoding them: `open` reads the file once and
checks it whole, so a bad file raises there, as the decoder raises; the
mean poses, bases and coefficients are float64 views of the stored doubles
(in the file's byte order, aligned or not), whichever way the track was
opened; positions equal those of a track decoded up front."""

import struct

import numpy as np
import pytest

import motion_viewer as mv
from conftest import DATA, read_memg_f64, reference_positions, write_memg


def pack_memg(m, endian):
    """The motion `read_memg_f64` read, written back in `endian` ("<" or ">")."""
    i4, f8 = endian + "i", endian + "f8"
    parts = [struct.pack(endian + "4i", 1, m["fps"], m["k"], m["n"]), m["frames"].astype(f8).tobytes()]
    for g in m["groups"]:
        name = g["name"].encode()
        rows, r = g["u"].shape
        parts += [
            struct.pack(i4, len(name)) + name,
            struct.pack(i4, len(g["mapping"])),
            g["mapping"].astype(endian + "i4").tobytes(),
            g["mean"].astype(f8).tobytes(),
            struct.pack(endian + "3i", g["parent"], rows, r),
            g["u"].T.astype(f8).tobytes(),  # column-major
            struct.pack(endian + "2i", r, m["n"]),
            g["q"].T.astype(f8).tobytes(),
        ]
    return b"".join(parts)


@pytest.fixture
def cloud(tmp_path):
    """A small motion (group name "cloud": its arrays lie off 8-byte
    boundaries) and its .obj, little-endian."""
    write_memg(tmp_path / "cloud.bin", vertices=50, basis=3, timesteps=4)
    return tmp_path / "cloud.bin"


def test_views_are_the_stored_doubles_in_either_byte_order(cloud, tmp_path):
    raw = cloud.read_bytes()
    ref = read_memg_f64(raw)
    big = tmp_path / "big" / "cloud.bin"
    big.parent.mkdir()
    big.write_bytes(pack_memg(ref, ">"))
    assert read_memg_f64(big.read_bytes())["groups"][0]["u"].dtype.byteorder == ">"
    big.with_suffix(".obj").write_bytes(cloud.with_suffix(".obj").read_bytes())
    g = ref["groups"][0]
    for path, order in [(cloud, "<"), (big, ">")]:
        track = mv.open(path)
        mean, u, q = track.mean(), track.U("cloud"), track.Q(-1)
        for a in (mean, u, q):
            assert a.base is track and not a.flags.writeable and not a.flags.owndata
            assert a.dtype == np.dtype(order + "f8")
        # 16 + 4 + len("cloud") + 4 + 4 × 50: the mean pose starts at byte 229.
        assert not mean.flags.aligned
        assert np.array_equal(mean.ravel(), g["mean"])
        assert np.array_equal(u, g["u"]) and u.flags.f_contiguous
        assert np.array_equal(q, g["q"]) and q.flags.f_contiguous
        times = [0.0, 0.05, 0.1]
        got = track.positions(times)
        for i, t in enumerate(times):
            want = reference_positions(ref, track.rest_positions, t * 30)
            assert np.allclose(got[i], want, atol=1e-5), (order, t)


def test_every_way_of_opening_gives_the_same_views_and_positions(cloud):
    obj = cloud.with_suffix(".obj")
    opened = mv.open(cloud)
    (paired,) = mv.open_all([obj, cloud])
    (memory,) = mv.open_bytes_all([("cloud.obj", obj.read_bytes()), ("cloud.bin", cloud.read_bytes())])
    times = np.linspace(0, opened.duration, 7)
    first = opened.positions(times)
    for track in (paired, memory):
        for view in ("mean", "U", "Q"):
            a, b = getattr(track, view)(), getattr(opened, view)()
            assert a.base is track and np.array_equal(a, b)
        # Decoded up front or on first need: the same CPU deformer.
        assert np.array_equal(track.positions(times), first)
    assert opened.info() == paired.info()
    assert opened.warnings == paired.warnings


def test_a_view_outlives_its_last_name_for_the_track(cloud):
    q = mv.open(cloud).Q()
    want = read_memg_f64(cloud.read_bytes())["groups"][0]["q"]
    assert isinstance(q.base, mv.Track)
    assert np.array_equal(q, want)


def garbled(raw):
    """Bad copies of a motion: cut in the header, in a mapping, in U and in
    Q, and with a bad U shape, a bad Q shape and a zero mapping entry."""
    name_end = 16 + 4 + len(b"cloud")
    mapping_at = name_end + 4
    u_shape_at = mapping_at + 4 * 50 + 24 * 50 + 4
    copies = {f"cut at {n}": raw[:n] for n in (10, mapping_at + 6, u_shape_at + 100, len(raw) - 3)}
    for what, at, value in [("U rows", u_shape_at, 149), ("zero mapping", mapping_at + 8, 0)]:
        bad = bytearray(raw)
        bad[at : at + 4] = struct.pack("<i", value)
        copies[what] = bytes(bad)
    q_shape_at = u_shape_at + 8 + 8 * 150 * 3
    bad = bytearray(raw)
    bad[q_shape_at + 4 : q_shape_at + 8] = struct.pack("<i", 5)
    copies["Q columns"] = bytes(bad)
    return copies


def test_a_bad_motion_raises_at_open_as_the_decoder_raises(cloud, tmp_path):
    raw = cloud.read_bytes()
    assert struct.unpack_from("<2i", raw, 16 + 4 + 5 + 4 + 4 * 50 + 24 * 50 + 4) == (150, 3)
    obj = cloud.with_suffix(".obj").read_bytes()
    for what, bad in garbled(raw).items():
        cloud.write_bytes(bad)
        with pytest.raises(mv.DecodeError) as mapped:
            mv.open(cloud)
        # The decoder, on the same bytes from memory.
        with pytest.raises(mv.DecodeError) as decoded:
            mv.open_bytes_all([("cloud.obj", obj), (str(cloud), bad)])
        a, b = mapped.value, decoded.value
        assert (a.path, a.field, a.offset, a.expected, a.found) == (b.path, b.field, b.offset, b.expected, b.found), what
        assert str(a) == str(b)
    # Named fields, not just agreement: the bad U shape.
    cloud.write_bytes(garbled(raw)["U rows"])
    with pytest.raises(mv.DecodeError) as info:
        mv.open(cloud)
    assert info.value.field == "group 'cloud' U shape" and info.value.found == "149 × 3"


def test_the_flags_sample_opens_mapped_and_binds_its_groups():
    track = mv.open(DATA / "flags.bin")
    (paired,) = mv.open_all([DATA / "flags.obj", DATA / "flags.bin"])
    assert track.warnings == paired.warnings
    assert track.group_names == paired.group_names
    for i in range(len(track.group_names)):
        assert np.array_equal(track.U(i), paired.U(i)) and track.parent(i) == paired.parent(i)
