"""Makes the point caches `viewer memg fit` is tested and measured on
(tests/data/fit/, described in its README.md), with Blender's own tools:
its cloth, soft-body and armature solvers, its OBJ exporter (vertex order
kept) and its bundled PC2 exporter (`io_export_pc2`).

    blender -b --factory-startup --python-exit-code 1 -P tests/blender/make_caches.py -- OUTDIR

(`ONLY=flag`, `softbody`, `tube`, `walker` or `dancer` in the environment
makes that one alone; `TUBE=AROUNDxRINGS` a tube of another resolution,
`TUBE_FRAMES=N` of another length: BENCHMARKS.md measures a denser one.
The walker and the dancer are not kept in tests/data/fit/ (5.9 MB each):
BENCHMARKS.md measures the fit on them against Dem Bones' figures.)

Every scene is one mesh object whose transform is the identity, so the
.obj (written with forward Y, up Z: Blender's own axes) and the .pc2
(world space, no y-up rotation) hold the same coordinates. The scenes run
at 30 fps from frame 1; the .pc2 samples every frame.

- flag: a 2 m × 1 m cloth flag, 25 × 13 vertices, pinned along its pole
  edge, in a wind with turbulence: 120 frames. One group.
- softbody: an icosphere (642 vertices) of soft body dropped onto a tilted
  plane, where it squashes and slides: 120 frames. One group; and its
  frames 9 to 24 (landing) as a sequence of .obj files (softbody_frames/).
- tube: a tube of 25 rings × 16 vertices skinned to a chain of three bones
  (lower, middle, upper; weights blended across each joint), bent by
  keyframed bones: 300 frames. Its .obj groups are the faces' dominant
  vertex groups (the exporter's "vertex groups" option), so the rings
  between two groups belong to both. (The keys on the rig object's
  location and rotation move nothing: the Armature modifier deforms
  relative to the armature object. Kept, so the tube stays the one
  measured.)
- walker, dancer: a character of 13 bones (hips, spine, head; per side
  thigh, shin, foot, upper arm, forearm), 700 vertices in six tubes
  (torso, head, legs, arms) skinned with weights blended across every
  joint; the walker walks a circle of 1 m radius, the dancer squats,
  turns, raises its arms and kicks on the spot: 400 frames each. Their
  .obj groups are the faces' dominant bones.
"""

import math
import os
import sys

import bpy

FPS = 30
# The flag's wind (strength, and its tilt across the flag in radians) and
# gusts; the soft body's ramp (size in m, slope in radians).
WIND, WIND_TILT, TURBULENCE = 300.0, 0.25, 60.0
RAMP, SLOPE = 30.0, 0.2


def fresh_scene(frames):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    # Factory settings turn add-ons off: the PC2 exporter is one.
    bpy.ops.preferences.addon_enable(module="io_export_pc2")
    scene = bpy.context.scene
    scene.render.fps = FPS
    scene.render.fps_base = 1.0
    scene.frame_start = 1
    scene.frame_end = frames
    return scene


def mesh_object(name, verts, faces):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def only_active(obj):
    for o in bpy.context.scene.objects:
        o.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def export(obj, out, name, frames, vertex_groups=False):
    """The rest mesh as NAME.obj and every frame 1..FRAMES as NAME.pc2."""
    only_active(obj)
    bpy.context.scene.frame_set(1)
    bpy.ops.wm.obj_export(
        filepath=os.path.join(out, name + ".obj"),
        export_selected_objects=True,
        apply_modifiers=False,
        export_uv=False,
        export_normals=False,
        export_materials=False,
        export_object_groups=False,
        export_material_groups=False,
        export_vertex_groups=vertex_groups,
        forward_axis="Y",
        up_axis="Z",
    )
    bpy.ops.export_shape.pc2(
        filepath=os.path.join(out, name + ".pc2"),
        rot_x90=False,
        world_space=True,
        apply_modifiers=True,
        range_start=1,
        range_end=frames,
        sampling="1",
    )


def grid(nx, ny, size_x, size_y):
    """A flag in the xz plane: nx × ny vertices, its pole along x = 0."""
    verts = [
        (size_x * i / (nx - 1), 0.0, 1.0 + size_y * j / (ny - 1))
        for j in range(ny)
        for i in range(nx)
    ]
    faces = [
        (j * nx + i, j * nx + i + 1, (j + 1) * nx + i + 1, (j + 1) * nx + i)
        for j in range(ny - 1)
        for i in range(nx - 1)
    ]
    return verts, faces


def flag(out):
    frames = 120
    scene = fresh_scene(frames)
    nx, ny = 25, 13
    obj = mesh_object("flag", *grid(nx, ny, 2.0, 1.0))
    pin = obj.vertex_groups.new(name="pole")
    pin.add([j * nx for j in range(ny)], 1.0, "REPLACE")
    cloth = obj.modifiers.new("cloth", "CLOTH")
    cloth.settings.vertex_group_mass = "pole"
    cloth.settings.quality = 6
    cloth.settings.mass = 0.03
    cloth.settings.air_damping = 1.0
    cloth.point_cache.frame_start = 1
    cloth.point_cache.frame_end = frames
    # Wind blowing along +x, a little across the flag (a wind field pushes
    # along its local z, and cloth only feels it across its faces), gusting
    # through a turbulence field.
    bpy.ops.object.effector_add(type="WIND", location=(-1.0, 0.0, 1.5), rotation=(WIND_TILT, math.pi / 2, 0.0))
    wind = bpy.context.object
    wind.field.strength = WIND
    wind.field.noise = 1.0
    bpy.ops.object.effector_add(type="TURBULENCE", location=(1.0, 0.0, 1.5))
    turbulence = bpy.context.object
    turbulence.field.strength = TURBULENCE
    turbulence.field.size = 0.8
    export(obj, out, "flag", frames)


def softbody(out):
    frames = 120
    scene = fresh_scene(frames)
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=4, radius=0.5, location=(0.0, 0.0, 1.6))
    ball = bpy.context.object
    ball.name = "softbody"
    bpy.ops.object.transform_apply(location=True, rotation=True, scale=True)
    body = ball.modifiers.new("softbody", "SOFT_BODY")
    s = body.settings
    s.use_goal = False
    s.mass = 1.0
    s.friction = 0.5
    s.use_edges = True
    s.pull = 0.6
    s.push = 0.6
    s.damping = 2.0
    s.bend = 1.0
    s.use_stiff_quads = False
    body.point_cache.frame_start = 1
    body.point_cache.frame_end = frames
    # A ramp falling away along +x: the ball lands, squashes and rolls down.
    bpy.ops.mesh.primitive_plane_add(size=RAMP, location=(0.0, 0.0, 0.0), rotation=(0.0, SLOPE, 0.0))
    ramp = bpy.context.object
    ramp.modifiers.new("collision", "COLLISION")
    ramp.collision.damping = 0.1
    ramp.collision.friction_factor = 0.6
    export(ball, out, "softbody", frames)
    # Its landing again, as Blender's sequence of .obj files.
    sequence = os.path.join(out, "softbody_frames")
    os.makedirs(sequence, exist_ok=True)
    only_active(ball)
    bpy.ops.wm.obj_export(
        filepath=os.path.join(sequence, "softbody.obj"),
        export_selected_objects=True,
        apply_modifiers=True,
        export_animation=True,
        start_frame=9,
        end_frame=24,
        export_uv=False,
        export_normals=False,
        export_materials=False,
        forward_axis="Y",
        up_axis="Z",
    )


def tube(out):
    frames = int(os.environ.get("TUBE_FRAMES", 300))
    scene = fresh_scene(frames)
    around, rings = (int(x) for x in os.environ.get("TUBE", "16x25").split("x"))
    radius, length = 0.25, 3.0
    verts = [
        (radius * math.cos(2 * math.pi * k / around), radius * math.sin(2 * math.pi * k / around), length * r / (rings - 1))
        for r in range(rings)
        for k in range(around)
    ]
    faces = [
        (r * around + k, r * around + (k + 1) % around, (r + 1) * around + (k + 1) % around, (r + 1) * around + k)
        for r in range(rings - 1)
        for k in range(around)
    ]
    obj = mesh_object("tube", verts, faces)
    bones = ["lower", "middle", "upper"]
    # Each bone owns a third of the length; weights blend linearly over
    # 0.5 m across each joint.
    blend = 0.25
    groups = [obj.vertex_groups.new(name=b) for b in bones]
    for i, (_, _, z) in enumerate(verts):
        weights = []
        for b in range(3):
            lo, hi = b * 1.0, (b + 1) * 1.0
            w_lo = 1.0 if b == 0 else min(1.0, max(0.0, (z - (lo - blend)) / (2 * blend)))
            w_hi = 1.0 if b == 2 else min(1.0, max(0.0, ((hi + blend) - z) / (2 * blend)))
            weights.append(w_lo * w_hi)
        total = sum(weights)
        for g, w in zip(groups, weights):
            if w > 0:
                g.add([i], w / total, "REPLACE")

    data = bpy.data.armatures.new("rig")
    rig = bpy.data.objects.new("rig", data)
    scene.collection.objects.link(rig)
    only_active(rig)
    bpy.ops.object.mode_set(mode="EDIT")
    parent = None
    for b, name in enumerate(bones):
        bone = data.edit_bones.new(name)
        bone.head = (0.0, 0.0, float(b))
        bone.tail = (0.0, 0.0, float(b + 1))
        if parent is not None:
            bone.parent = parent
            bone.use_connect = True
        parent = bone
    bpy.ops.object.mode_set(mode="OBJECT")
    skin = obj.modifiers.new("skin", "ARMATURE")
    skin.object = rig
    skin.use_vertex_groups = True

    # Bends at every joint, out of phase, while the rig walks along x and turns.
    for f in range(1, frames + 1):
        t = (f - 1) / FPS
        rig.location = (0.6 * math.sin(2 * math.pi * t / 7.0), 0.3 * t / 10.0, 0.0)
        rig.rotation_euler = (0.0, 0.0, 0.8 * math.sin(2 * math.pi * t / 9.0))
        rig.keyframe_insert("location", frame=f)
        rig.keyframe_insert("rotation_euler", frame=f)
        for b, name in enumerate(bones):
            pose = rig.pose.bones[name]
            pose.rotation_mode = "XYZ"
            pose.rotation_euler = (
                0.55 * math.sin(2 * math.pi * t / (3.3 - 0.7 * b) + b),
                0.45 * math.sin(2 * math.pi * t / (2.1 + 0.5 * b) + 2 * b),
                0.3 * math.sin(2 * math.pi * t / 4.0 + b),
            )
            pose.keyframe_insert("rotation_euler", frame=f)
    export(obj, out, "tube", frames, vertex_groups=True)


# The walker's limbs: (bone, parent, head, tail) in metres, standing at the
# origin facing -y, z up; and the tubes its skin is made of: a polyline
# through bones' joints, its radius, the bone its first end also follows
# (blended over its first BLEND_M) and the bones of its segments.
WALKER_BONES = [
    ("hips", None, (0.0, 0.0, 0.85), (0.0, 0.0, 1.1)),
    ("spine", "hips", (0.0, 0.0, 1.1), (0.0, 0.0, 1.45)),
    ("head", "spine", (0.0, 0.0, 1.5), (0.0, 0.0, 1.75)),
]
for side, x in (("L", 1.0), ("R", -1.0)):
    WALKER_BONES += [
        ("thigh." + side, "hips", (0.1 * x, 0.0, 0.88), (0.1 * x, 0.0, 0.48)),
        ("shin." + side, "thigh." + side, (0.1 * x, 0.0, 0.48), (0.1 * x, 0.02, 0.08)),
        ("foot." + side, "shin." + side, (0.1 * x, 0.02, 0.08), (0.1 * x, -0.16, 0.03)),
        ("upper_arm." + side, "spine", (0.2 * x, 0.0, 1.42), (0.24 * x, 0.02, 1.12)),
        ("forearm." + side, "upper_arm." + side, (0.24 * x, 0.02, 1.12), (0.26 * x, -0.02, 0.84)),
    ]
BLEND_M = 0.06


def walker_tubes():
    """(points, radius, attach bone, segment bones) of each piece of skin."""
    joint = {name: (head, tail) for name, _, head, tail in WALKER_BONES}
    tubes = [
        ([joint["hips"][0], joint["hips"][1], joint["spine"][1]], 0.16, None, ["hips", "spine"]),
        ([joint["head"][0], joint["head"][1]], 0.1, "spine", ["head"]),
    ]
    for side in ("L", "R"):
        leg = ["thigh." + side, "shin." + side, "foot." + side]
        arm = ["upper_arm." + side, "forearm." + side]
        tubes.append(([joint[leg[0]][0]] + [joint[b][1] for b in leg], 0.065, "hips", leg))
        tubes.append(([joint[arm[0]][0]] + [joint[b][1] for b in arm], 0.045, "spine", arm))
    return tubes


def character(out, label, frames, pose_at):
    """A character of 13 bones (hips, spine, head; per side thigh, shin,
    foot, upper arm, forearm) skinned with weights blended across every
    joint, posed at every frame by `pose_at(t)`: per bone an XYZ Euler
    rotation, and the hips' location in their own axes (x, y, z: the
    world's x, z, -y). The whole motion is the bones': the Armature
    modifier deforms relative to the armature object, so moving the object
    would not move the skin."""
    scene = fresh_scene(frames)
    around, per_metre = 10, 16
    verts, faces, weights = [], [], []
    for points, radius, attach, bones in walker_tubes():
        lengths = [math.dist(a, b) for a, b in zip(points, points[1:])]
        total = sum(lengths)
        rings = max(4, round(total * per_metre) + 1)
        first = len(verts)
        for r in range(rings):
            u = total * r / (rings - 1)
            # The segment this ring lies on and the point on it.
            seg, start = 0, 0.0
            while seg < len(lengths) - 1 and u > start + lengths[seg]:
                start += lengths[seg]
                seg += 1
            a, b = points[seg], points[seg + 1]
            f = min(1.0, (u - start) / lengths[seg])
            centre = [a[i] + f * (b[i] - a[i]) for i in range(3)]
            axis = [(b[i] - a[i]) / lengths[seg] for i in range(3)]
            # Two directions across the axis.
            side = (1.0, 0.0, 0.0) if abs(axis[0]) < 0.9 else (0.0, 1.0, 0.0)
            n1 = [side[i] - axis[i] * sum(side[j] * axis[j] for j in range(3)) for i in range(3)]
            norm = math.sqrt(sum(c * c for c in n1))
            n1 = [c / norm for c in n1]
            n2 = [axis[1] * n1[2] - axis[2] * n1[1], axis[2] * n1[0] - axis[0] * n1[2], axis[0] * n1[1] - axis[1] * n1[0]]
            # Weights: each segment's bone, blended linearly over BLEND_M
            # either side of each joint and with the attach bone at the start.
            w = {}
            edges = [0.0]
            for length in lengths:
                edges.append(edges[-1] + length)
            for k, bone in enumerate(bones):
                lo, hi = edges[k], edges[k + 1]
                w_lo = 1.0 if (k == 0 and attach is None) else min(1.0, max(0.0, (u - (lo - BLEND_M)) / (2 * BLEND_M)))
                w_hi = 1.0 if k == len(bones) - 1 else min(1.0, max(0.0, ((hi + BLEND_M) - u) / (2 * BLEND_M)))
                w[bone] = w_lo * w_hi
            if attach is not None:
                w[attach] = min(1.0, max(0.0, (BLEND_M - u) / (2 * BLEND_M) + 0.5))
            for k in range(around):
                t = 2 * math.pi * k / around
                verts.append(tuple(centre[i] + radius * (math.cos(t) * n1[i] + math.sin(t) * n2[i]) for i in range(3)))
                weights.append(w)
        for r in range(rings - 1):
            for k in range(around):
                faces.append((first + r * around + k, first + r * around + (k + 1) % around,
                              first + (r + 1) * around + (k + 1) % around, first + (r + 1) * around + k))
    obj = mesh_object(label, verts, faces)
    groups = {name: obj.vertex_groups.new(name=name) for name, _, _, _ in WALKER_BONES}
    for i, w in enumerate(weights):
        total = sum(w.values())
        for bone, x in w.items():
            if x > 0:
                groups[bone].add([i], x / total, "REPLACE")

    data = bpy.data.armatures.new("rig")
    rig = bpy.data.objects.new("rig", data)
    scene.collection.objects.link(rig)
    only_active(rig)
    bpy.ops.object.mode_set(mode="EDIT")
    for name, parent, head, tail in WALKER_BONES:
        bone = data.edit_bones.new(name)
        bone.head, bone.tail = head, tail
        if parent is not None:
            bone.parent = data.edit_bones[parent]
    bpy.ops.object.mode_set(mode="OBJECT")
    skin = obj.modifiers.new("skin", "ARMATURE")
    skin.object = rig
    skin.use_vertex_groups = True

    for f in range(1, frames + 1):
        hips, pose = pose_at((f - 1) / FPS)
        bone = rig.pose.bones["hips"]
        bone.location = hips
        bone.keyframe_insert("location", frame=f)
        for bone_name, (x, y, z) in pose.items():
            bone = rig.pose.bones[bone_name]
            bone.rotation_mode = "XYZ"
            bone.rotation_euler = (x, y, z)
            bone.keyframe_insert("rotation_euler", frame=f)
    export(obj, out, label, frames, vertex_groups=True)


def walker(out):
    """The character walking a circle of 1 m radius, a stride of 1.1 s, one
    lap in 13 s, its arms swinging: 400 frames."""

    def pose_at(t):
        phase = 2 * math.pi * t / 1.1
        lap = 2 * math.pi * t / 13.0
        hips = (math.cos(lap), 0.03 * math.sin(2 * phase), -math.sin(lap))
        pose = {
            "hips": (0.0, lap + math.pi + 0.06 * math.sin(phase), 0.0),
            "spine": (0.05, 0.15 * math.sin(phase), 0.0),
            "head": (0.1 * math.sin(2 * phase), 0.2 * math.sin(2 * math.pi * t / 4.0), 0.0),
        }
        for side, s in (("L", 1.0), ("R", -1.0)):
            swing = s * math.sin(phase)
            pose["thigh." + side] = (0.5 * swing, 0.0, 0.0)
            pose["shin." + side] = (-0.6 * max(0.0, math.sin(phase * s + 1.0)) - 0.05, 0.0, 0.0)
            pose["foot." + side] = (0.25 * math.sin(phase * s + 0.5), 0.0, 0.0)
            pose["upper_arm." + side] = (-0.45 * swing, 0.0, 0.1 * s)
            pose["forearm." + side] = (0.35 + 0.2 * swing, 0.0, 0.0)
        return hips, pose

    character(out, "walker", int(os.environ.get("WALKER_FRAMES", 400)), pose_at)


def dancer(out):
    """The character dancing on the spot: squats, a turn to either side,
    the arms raised and waved, a kick with either leg: 400 frames."""

    def pose_at(t):
        beat = 2 * math.pi * t / 0.8
        squat = 0.5 * (1 - math.cos(beat))
        hips = (0.05 * math.sin(beat / 2), -0.12 * squat, 0.0)
        pose = {
            "hips": (0.1 * squat, 0.7 * math.sin(2 * math.pi * t / 5.0), 0.08 * math.sin(beat / 2)),
            "spine": (-0.15 * squat, 0.3 * math.sin(beat / 2), 0.1 * math.sin(beat)),
            "head": (0.2 * math.sin(beat), 0.4 * math.sin(2 * math.pi * t / 3.0), 0.0),
        }
        for side, s in (("L", 1.0), ("R", -1.0)):
            # A kick with this leg every other 4 s, the other leg's turn between.
            kick = max(0.0, math.sin(2 * math.pi * t / 4.0 * s + 0.3)) ** 2
            raise_arm = 0.5 * (1 - math.cos(2 * math.pi * t / 3.2 + (0.0 if s > 0 else 1.6)))
            pose["thigh." + side] = (-0.5 * squat - 0.9 * kick, 0.0, 0.1 * s * squat)
            pose["shin." + side] = (0.9 * squat * (1 - kick) + 0.1, 0.0, 0.0)
            pose["foot." + side] = (-0.3 * squat + 0.4 * kick, 0.0, 0.0)
            pose["upper_arm." + side] = (0.3 * math.sin(beat), 0.0, s * (0.2 + 2.4 * raise_arm))
            pose["forearm." + side] = (0.8 * raise_arm * (0.5 + 0.5 * math.sin(2 * beat)), 0.0, 0.0)
        return hips, pose

    character(out, "dancer", int(os.environ.get("WALKER_FRAMES", 400)), pose_at)

def main():
    out = os.path.abspath(sys.argv[sys.argv.index("--") + 1])
    os.makedirs(out, exist_ok=True)
    only = os.environ.get("ONLY")
    # The characters only when asked for by name (not kept in tests/data/fit).
    for make in (flag, softbody, tube, walker, dancer):
        if (only is None and make not in (walker, dancer)) or make.__name__ == only:
            make(out)
    print("made in %s with Blender %s" % (out, bpy.app.version_string))


main()
