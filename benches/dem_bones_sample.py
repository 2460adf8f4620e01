"""Dem Bones' own sample as a scene `.obj` and a `.pc2` for `viewer memg fit`.

Electronic Arts' Dem Bones (https://github.com/electronicarts/dem-bones,
BSD 3-Clause) ships the animation its command line decomposes in
`data/Bone_Anim.abc`: one mesh of 754 vertices and 752 quads, 400 frames,
in Alembic. Blender's `bpy` module (the wheel on Python 3.13, which reads
Alembic) imports it; this writes the mesh as at the first frame
(`bones.obj`, vertex order kept) and every frame's positions in world
space (`bones.pc2`).

    python3.13 -m venv venv && venv/bin/pip install bpy
    git clone --depth 1 https://github.com/electronicarts/dem-bones
    venv/bin/python benches/dem_bones_sample.py dem-bones/data/Bone_Anim.abc OUTDIR
    python3 benches/fit_ratios.py target/release/viewer OUTDIR/bones.obj OUTDIR/bones.pc2 \\
        --way "one group=--parts 1" --way "parts, shared frames=--parts auto --frames auto"

Prints the vertices, faces, frames and the diagonal of the box of every
position (the length the fit's bounds in % are of).
"""

import os
import struct
import sys

import bpy


def main():
    abc, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.wm.alembic_import(filepath=abc)
    scene = bpy.context.scene
    meshes = [o for o in scene.objects if o.type == "MESH"]
    if len(meshes) != 1:
        raise SystemExit(f"{abc}: expected one mesh, found {len(meshes)}")
    obj = meshes[0]
    frames, faces = [], []
    for f in range(scene.frame_start, scene.frame_end + 1):
        scene.frame_set(f)
        evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
        mesh = evaluated.to_mesh()
        world = evaluated.matrix_world
        frames.append([tuple(world @ v.co) for v in mesh.vertices])
        if not faces:
            faces = [tuple(p.vertices) for p in mesh.polygons]
        evaluated.to_mesh_clear()
    count = len(frames[0])
    if any(len(positions) != count for positions in frames):
        raise SystemExit(f"{abc}: the vertex count changes over time")
    with open(os.path.join(out, "bones.obj"), "w") as fh:
        fh.write("# Dem Bones' data/Bone_Anim.abc, first frame\ng bones\n")
        for x, y, z in frames[0]:
            fh.write(f"v {x:.9g} {y:.9g} {z:.9g}\n")
        for face in faces:
            fh.write("f " + " ".join(str(i + 1) for i in face) + "\n")
    with open(os.path.join(out, "bones.pc2"), "wb") as fh:
        # POINTCACHE2: signature, version 1, points, start frame, sample rate, samples.
        fh.write(b"POINTCACHE2\0" + struct.pack("<iiffi", 1, count, 0.0, 1.0, len(frames)))
        for positions in frames:
            for p in positions:
                fh.write(struct.pack("<fff", *p))
    lo = [min(p[a] for positions in frames for p in positions) for a in range(3)]
    hi = [max(p[a] for positions in frames for p in positions) for a in range(3)]
    diagonal = sum((h - l) ** 2 for l, h in zip(lo, hi)) ** 0.5
    print(f"{count} vertices, {len(faces)} faces, {len(frames)} frames, diagonal {diagonal:.6g}")


main()
