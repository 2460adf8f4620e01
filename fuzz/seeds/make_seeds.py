#!/usr/bin/env python3
"""Builds the committed seed inputs of the fuzz targets that take more than
one real file in one input (see README.md): small ODA archives holding the
first entries of real Sony archives, and the length-prefixed file sets of
`obj_memg` and `pipeline` (fuzz/src/lib.rs `split`). Run from the repository
root after writing the small MEMG and MRTK files into /tmp/seeds (README)."""
import os
import struct

ROOT = os.getcwd()
SRC = "/tmp/seeds"
OUT = os.path.join(ROOT, "fuzz", "seeds")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(target, name, data):
    os.makedirs(os.path.join(OUT, target), exist_ok=True)
    with open(os.path.join(OUT, target, name), "wb") as f:
        f.write(data)


def small_oda(path, keep):
    """The archive's header and first `keep` entries, data re-laid after the table."""
    data = read(path)
    count, element = struct.unpack_from("<II", data, 8)
    entries = []
    for i in range(min(keep, count)):
        at = 64 + i * element
        kind, name = data[at:at + 4], data[at + 4:at + 132]
        offset, size = struct.unpack_from("<II", data, at + 132)
        entries.append((kind, name, data[offset:offset + size]))
    header = bytearray(data[:64])
    struct.pack_into("<I", header, 8, len(entries))
    struct.pack_into("<I", header, 12, 144)
    table = bytearray()
    body = bytearray()
    start = 64 + 144 * len(entries)
    for kind, name, blob in entries:
        table += kind + name + struct.pack("<III", start + len(body), len(blob), 0)
        body += blob
    return bytes(header + table + body)


def files(*parts, count_byte=None):
    """`parts` as `split` reads them: each but the last prefixed by its u16 length."""
    out = bytearray() if count_byte is None else bytearray([count_byte])
    for p in parts[:-1]:
        out += struct.pack("<H", len(p)) + p
    return bytes(out + parts[-1])


oda = os.path.join(ROOT, "tests", "data", "oda")
write("oda", "ers210_first2.oda", small_oda(os.path.join(oda, "ers210_MOTION.ODA"), 2))
write("oda", "ers110_first1.oda", small_oda(os.path.join(oda, "ers110_Motion.ODA"), 1))
write("oda", "ers7_first1.oda", small_oda(os.path.join(oda, "ers7_MOTION7.ODA"), 1))

for name in ["tiny", "tinybe"]:
    obj, mtl, motion = (read(os.path.join(SRC, f"{name}.{e}")) for e in ["obj", "mtl", "bin"])
    write("memg", f"{name}.bin", motion)
    write("obj_memg", f"{name}.set", files(obj, mtl, motion))
    # One file: count byte 0; four files: count byte 3.
    write("pipeline", f"{name}_scene.set", files(obj, motion, mtl, count_byte=2))

for name in ["hands11", "hands10", "gaze11"]:
    write("mrtk", f"{name}.mrtk", read(os.path.join(SRC, f"{name}.mrtk")))

stand = read(os.path.join(ROOT, "data", "sony_stand_sit.mtn"))
skitter = read(os.path.join(ROOT, "data", "skitter_sleep_to_sit.mtn"))
gaze = read(os.path.join(SRC, "gaze11.mrtk"))
tiny = [read(os.path.join(SRC, f"tiny.{e}")) for e in ["obj", "bin"]]
write("pipeline", "stand.set", files(stand, count_byte=0))
write("pipeline", "gaze.set", files(gaze, count_byte=0))
write("pipeline", "hands11.set", files(read(os.path.join(SRC, "hands11.mrtk")), count_byte=0))
write("pipeline", "all.set", files(skitter, gaze, tiny[0], tiny[1], count_byte=3))
