"""Imports files into headless Blender and dumps what it evaluates, for the
Rust tests to compare with their own reference.

    blender -b --factory-startup --python dump.py -- JOBS.json OUT.json

JOBS.json is a list of jobs, each run in a fresh empty scene:

- {"kind": "gltf", "file": F, "fps": N, "times": [seconds], "vertices": REGEX}
  imports F with the glTF importer at scene rate N and, at each time, gives
  every object's world position and, for objects whose path matches REGEX,
  its evaluated world-space vertices.
- {"kind": "pc2", "obj": F, "pc2": P, "frames": [ints]}
  imports the .obj keeping its vertex order, puts a Mesh Cache (PC2) on it
  and gives its evaluated vertices at each scene frame.
- {"kind": "groups", "obj": F}
  imports the .obj as one mesh with its `g` groups as vertex groups and
  gives the meshes made, the mesh's vertices, and each group's vertex count.

An object's path is its names from the top of the hierarchy, joined by "|",
without Blender's ".001" suffixes. Positions are in glTF axes (y up):
(x, y, z)_glTF = (x, z, -y)_Blender. OUT.json gets one result per job.
"""

import json
import math
import re
import sys

import numpy

# Blender 3.4's glTF importer still says numpy.bool, which numpy 1.24 removed.
numpy.bool = bool

import bpy  # noqa: E402


def clean(name):
    return re.sub(r"\.\d{3}$", "", name)


def path_of(obj):
    names = []
    while obj is not None:
        names.append(clean(obj.name))
        obj = obj.parent
    return "|".join(reversed(names))


def to_gltf(co):
    return [co[0], co[2], -co[1]]


def props(obj):
    out = {}
    for key in obj.keys():
        value = obj[key]
        if isinstance(value, (int, float, str)):
            out[key] = value
    return out


def evaluated_vertices(obj, depsgraph, axes):
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    matrix = evaluated.matrix_world
    flat = []
    for v in mesh.vertices:
        world = matrix @ v.co
        flat.extend(axes(world))
    evaluated.to_mesh_clear()
    return flat


def set_time(scene, frame):
    whole = math.floor(frame)
    scene.frame_set(int(whole), subframe=frame - whole)


def gltf_job(job):
    scene = bpy.context.scene
    scene.render.fps = job["fps"]
    scene.render.fps_base = 1.0
    bpy.ops.import_scene.gltf(filepath=job["file"])
    dump = re.compile(job.get("vertices") or r"^$")
    objects = {path_of(o): {"type": o.type, "props": props(o)} for o in scene.objects}
    frames = []
    for t in job["times"]:
        set_time(scene, t * job["fps"])
        depsgraph = bpy.context.evaluated_depsgraph_get()
        at = {}
        for obj in scene.objects:
            path = path_of(obj)
            evaluated = obj.evaluated_get(depsgraph)
            entry = {"position": to_gltf(evaluated.matrix_world.translation),
                     "scale": list(evaluated.matrix_world.to_scale())}
            if obj.type == "MESH" and dump.search(path):
                entry["vertices"] = evaluated_vertices(obj, depsgraph, to_gltf)
            at[path] = entry
        frames.append({"time": t, "objects": at})
    return {"objects": objects, "frames": frames}


def pc2_job(job):
    scene = bpy.context.scene
    bpy.ops.wm.obj_import(filepath=job["obj"], forward_axis="Y", up_axis="Z")
    meshes = [o for o in scene.objects if o.type == "MESH"]
    if len(meshes) != 1:
        raise RuntimeError("expected one mesh from %s, got %d" % (job["obj"], len(meshes)))
    obj = meshes[0]
    cache = obj.modifiers.new("cache", "MESH_CACHE")
    cache.cache_format = "PC2"
    cache.filepath = job["pc2"]
    frames = []
    for f in job["frames"]:
        scene.frame_set(f)
        depsgraph = bpy.context.evaluated_depsgraph_get()
        frames.append({"frame": f, "vertices": evaluated_vertices(obj, depsgraph, list)})
    return {"frames": frames}


def groups_job(job):
    bpy.ops.wm.obj_import(filepath=job["obj"], forward_axis="Y", up_axis="Z", import_vertex_groups=True)
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    obj = meshes[0]
    counts = {g.name: 0 for g in obj.vertex_groups}
    for v in obj.data.vertices:
        for member in v.groups:
            counts[obj.vertex_groups[member.group].name] += 1
    return {"meshes": len(meshes), "vertices": len(obj.data.vertices), "groups": counts}


def main():
    args = sys.argv[sys.argv.index("--") + 1:]
    jobs_path, out_path = args
    with open(jobs_path) as f:
        jobs = json.load(f)
    results = []
    for job in jobs:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        run = {"gltf": gltf_job, "pc2": pc2_job, "groups": groups_job}[job["kind"]]
        results.append(run(job))
    with open(out_path, "w") as f:
        json.dump(results, f)


try:
    main()
except Exception as e:  # Blender would otherwise go on and exit 0.
    import traceback
    traceback.print_exc()
    sys.stdout.flush()
    sys.exit(1)
