"""Errors as Python exceptions: typed, one line, naming the file."""

import errno

import numpy as np
import pytest

import motion_viewer as mv
from conftest import write_memg


def one_line(e):
    text = str(e)
    assert "\n" not in text and text
    return text


@pytest.mark.parametrize("name", ["sony_stand_sit.mtn", "hands.mrtk"])
def test_a_truncated_file_is_a_decode_error(data, tmp_path, name):
    raw = (data / name).read_bytes()
    cut = tmp_path / name
    cut.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(mv.DecodeError) as info:
        mv.open(cut)
    e = info.value
    assert isinstance(e, ValueError) and isinstance(e, mv.MotionViewerError)
    assert e.path == str(cut)
    assert isinstance(e.field, str) and e.field
    assert 0 <= e.offset <= len(raw) // 2
    assert e.expected and e.found
    text = one_line(e)
    assert text.startswith(str(cut) + ": ")
    assert f"{e.field} at byte {e.offset} (0x{e.offset:x}): expected {e.expected}, found {e.found}" in text
    # The same from memory, named as given.
    with pytest.raises(mv.DecodeError) as again:
        mv.open_bytes("cut-" + name, raw[: len(raw) // 2])
    assert again.value.path == "cut-" + name
    assert (again.value.field, again.value.offset) == (e.field, e.offset)


def test_a_truncated_memg_motion_is_a_decode_error(data, tmp_path):
    raw = (data / "flags.bin").read_bytes()
    (tmp_path / "flags.obj").write_bytes((data / "flags.obj").read_bytes())
    (tmp_path / "flags.bin").write_bytes(raw[:100_000])
    with pytest.raises(mv.DecodeError) as info:
        mv.open(tmp_path / "flags.bin")
    e = info.value
    assert e.path == str(tmp_path / "flags.bin")
    assert 16 <= e.offset <= 100_000
    one_line(e)


def test_a_truncated_obj(data, tmp_path):
    obj = (data / "flags.obj").read_bytes()
    (tmp_path / "flags.bin").write_bytes((data / "flags.bin").read_bytes())
    # Cut inside a vertex line: that line does not parse.
    cut = obj[: len(obj) // 3]
    (tmp_path / "flags.obj").write_bytes(cut[: cut.rindex(b"\nv ") + 5])
    with pytest.raises(mv.DecodeError) as info:
        mv.open(tmp_path / "flags.bin")
    assert info.value.path == str(tmp_path / "flags.obj")
    assert info.value.expected == "a number"
    one_line(info.value)
    # Cut at a line's end: it parses, but has too few vertices for the motion.
    (tmp_path / "flags.obj").write_bytes(cut[: cut.rindex(b"\n") + 1])
    with pytest.raises(mv.MismatchError) as mismatch:
        mv.open(tmp_path / "flags.bin")
    assert mismatch.value.path == str(tmp_path / "flags.bin")
    assert "maps its vertex" in one_line(mismatch.value)


def test_every_other_error_type(data, tmp_path):
    with pytest.raises(mv.FileError) as info:
        mv.open(tmp_path / "absent.mtn")
    assert isinstance(info.value, OSError) and info.value.errno == errno.ENOENT
    assert info.value.path == str(tmp_path / "absent.mtn")
    with pytest.raises(mv.FileError, match="folder"):
        mv.open(tmp_path)

    junk = tmp_path / "junk.mtn"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    with pytest.raises(mv.UnknownFormatError) as unknown:
        mv.open(junk)
    assert unknown.value.head.startswith("89 50 4e 47") or "89504e47" in unknown.value.head.replace(" ", "")

    with pytest.raises(mv.MismatchError, match="needs its .obj"):
        mv.open_bytes("flags.bin", (data / "flags.bin").read_bytes())
    with pytest.raises(mv.EntryError, match="not an ODA archive"):
        mv.open(data / "sony_stand_sit.mtn", entry="SIT")

    sit = mv.open(data / "sony_stand_sit.mtn")
    with pytest.raises(mv.UnsupportedError, match="unknown output type"):
        sit.export(tmp_path / "sit.xyz")


def test_output_is_input(data, tmp_path):
    copy = tmp_path / "sit.json"
    copy.write_bytes((data / "sony_stand_sit.mtn").read_bytes())
    track = mv.open_bytes(copy, copy.read_bytes())
    with pytest.raises(mv.FileError, match="is one of the input files"):
        track.export(copy, time=0.0)


def test_too_large(data, tmp_path):
    sit = mv.open(data / "sony_stand_sit.mtn")
    with pytest.raises(mv.TooLargeError) as info:
        sit.export(tmp_path / "huge.csv", fps=1e9)
    assert "more than the" in one_line(info.value)
    assert not (tmp_path / "huge.csv").exists()


def test_a_position_that_is_not_finite_is_refused(tmp_path):
    mean = write_memg(tmp_path / "nan.bin", vertices=9, basis=1, timesteps=2)
    raw = bytearray((tmp_path / "nan.bin").read_bytes())
    # The first mean value (after the 16-byte header, name, count and mapping).
    at = 16 + 4 + len(b"cloud") + 4 + 4 * 9
    assert np.frombuffer(bytes(raw[at : at + 8]), "<f8")[0] == mean[0]
    raw[at : at + 8] = np.array([np.nan], "<f8").tobytes()
    (tmp_path / "nan.bin").write_bytes(bytes(raw))
    cloud = mv.open(tmp_path / "nan.bin")
    assert np.isnan(cloud.positions([0.0])[0, 0]).all()
    with pytest.raises(mv.NonFiniteError) as info:
        cloud.export(tmp_path / "nan.pc2")
    message = one_line(info.value)
    assert "is NaN; refused" in message and "at 0 s" in message, message
    assert not (tmp_path / "nan.pc2").exists()


def test_edit_error(data):
    sit = mv.open(data / "sony_stand_sit.mtn")
    with pytest.raises(mv.EditError) as info:
        mv.mtn.retime(sit, speed=float("nan"))
    assert info.value.path == str(data / "sony_stand_sit.mtn")
    one_line(info.value)
    with pytest.raises(ValueError, match="not an AIBO model"):
        mv.mtn.convert(sit, "ERS-999")
