"""The largest error of one of Dem Bones' decompositions of its own sample,
as a share of the diagonal: Blender plays the decomposition (an FBX of a
skinned mesh and its bones' keys, as Dem Bones writes it) and every vertex
at every frame is compared with the sample's `.pc2`
(`benches/dem_bones_sample.py`).

    blender -b --factory-startup --python-exit-code 1 -P benches/dem_bones_errors.py -- \\
        dem-bones/data/Decomposition_10.fbx DIR/bones.pc2

Dem Bones writes centimetres (read at 100× here) and its keys from frame
2, where the sample's first frame is (checked: the frames one earlier miss
by 8 % of the diagonal). Prints the bones and the largest error.
"""

import array
import struct
import sys

import bpy


def main():
    fbx, pc2 = sys.argv[sys.argv.index("--") + 1 :]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.fbx(filepath=fbx, global_scale=100.0)
    scene = bpy.context.scene
    mesh = next(o for o in scene.objects if o.type == "MESH")
    rig = next(o for o in scene.objects if o.type == "ARMATURE")
    first = int(rig.animation_data.action.frame_range[0])
    data = open(pc2, "rb").read()
    count, frames = struct.unpack("<i", data[16:20])[0], struct.unpack("<i", data[28:32])[0]
    cache = array.array("f")
    cache.frombytes(data[32 : 32 + 12 * count * frames])
    lo = [min(cache[a::3]) for a in range(3)]
    hi = [max(cache[a::3]) for a in range(3)]
    diagonal = sum((h - l) ** 2 for l, h in zip(lo, hi)) ** 0.5
    if len(mesh.data.vertices) != count:
        raise SystemExit(f"{fbx}: {len(mesh.data.vertices)} vertices, the cache {count}")
    worst = 0.0
    for t in range(frames):
        scene.frame_set(first + t)
        evaluated = mesh.evaluated_get(bpy.context.evaluated_depsgraph_get())
        positions = evaluated.to_mesh()
        world = evaluated.matrix_world
        for i, v in enumerate(positions.vertices):
            p = world @ v.co
            b = 3 * (t * count + i)
            d = sum((p[a] - cache[b + a]) ** 2 for a in range(3)) ** 0.5
            worst = max(worst, d)
        evaluated.to_mesh_clear()
    bones = len(rig.data.bones)
    print(f"{bones} bones: largest error {worst:.6g}, {worst / diagonal:.4e} of the diagonal {diagonal:.6g}")


main()
