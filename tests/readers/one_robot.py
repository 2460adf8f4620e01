"""Compares an MJCF and a URDF of the same robot, read from the files alone.

Usage: python one_robot.py SEED MODEL.xml MODEL.urdf [MODEL.xml MODEL.urdf]...

For each pair, prints one JSON line: the problems found (a servo, limit,
speed, torque, parent or mass on which the two files disagree) and the
worst distance between MuJoCo's placement of each body and this script's
own forward kinematics of the same-named URDF link (`body` is the URDF's
`base_link`), over random poses with every servo at a random angle within
its limits. The URDF's kinematics is written here in f64 from the URDF
specification (joint frame = parent frame x origin (xyz, then rpy as fixed
axes x, y, z) x rotation about the axis by the angle): nothing here knows
the viewer's code.
"""

import json
import math
import random
import sys
import xml.etree.ElementTree as ET

import mujoco
import numpy as np

POSES = 25


def floats(text, default):
    return [float(v) for v in text.split()] if text else list(default)


def rotation(axis, angle):
    """Rodrigues: the rotation by `angle` about the unit `axis`."""
    x, y, z = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def rpy(r, p, y):
    return rotation([0, 0, 1], y) @ rotation([0, 1, 0], p) @ rotation([1, 0, 0], r)


def read_urdf(path):
    """The URDF's joints (in file order) and links' inertials."""
    root = ET.parse(path).getroot()
    links = {}
    for link in root.findall("link"):
        inertial = link.find("inertial")
        if inertial is None:
            links[link.get("name")] = None
            continue
        origin = inertial.find("origin")
        i = inertial.find("inertia").attrib
        links[link.get("name")] = {
            "mass": float(inertial.find("mass").get("value")),
            "com": floats(origin.get("xyz") if origin is not None else None, [0, 0, 0]),
            "inertia": [float(i["ixx"]), float(i["iyy"]), float(i["izz"])],
            "products": [float(i.get(k, 0)) for k in ("ixy", "ixz", "iyz")],
        }
    joints = []
    for j in root.findall("joint"):
        origin = j.find("origin")
        axis = j.find("axis")
        limit = j.find("limit")
        joints.append({
            "name": j.get("name"),
            "type": j.get("type"),
            "parent": j.find("parent").get("link"),
            "child": j.find("child").get("link"),
            "xyz": floats(origin.get("xyz") if origin is not None else None, [0, 0, 0]),
            "rpy": floats(origin.get("rpy") if origin is not None else None, [0, 0, 0]),
            "axis": floats(axis.get("xyz") if axis is not None else None, [1, 0, 0]),
            "limit": None if limit is None else {k: float(v) for k, v in limit.attrib.items()},
        })
    return links, joints


def urdf_fk(joints, angles):
    """Every link's (position, rotation) in the root link's frame."""
    children = {j["child"] for j in joints}
    roots = {j["parent"] for j in joints} - children
    assert len(roots) == 1, roots
    frames = {roots.pop(): (np.zeros(3), np.eye(3))}
    pending = list(joints)
    while pending:
        left = []
        for j in pending:
            if j["parent"] not in frames:
                left.append(j)
                continue
            p, r = frames[j["parent"]]
            turn = rotation(j["axis"], angles.get(j["name"], 0.0)) if j["type"] != "fixed" else np.eye(3)
            r_origin = rpy(*j["rpy"])
            frames[j["child"]] = (p + r @ np.array(j["xyz"]), r @ r_origin @ turn)
        assert len(left) < len(pending), "a joint whose parent is no link"
        pending = left
    return frames


def fl(values):
    return [float(v) for v in values]


def close(a, b):
    """Equal to the last bits: both files write each number in full."""
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=1e-15)


def name(m, kind, i):
    return mujoco.mj_id2name(m, kind, i)


def compare(mjcf, urdf, rng):
    problems = []
    links, joints = read_urdf(urdf)
    moving = {j["name"]: j for j in joints if j["type"] in ("revolute", "continuous")}
    m = mujoco.MjModel.from_xml_path(mjcf)
    d = mujoco.MjData(m)
    speeds = list(m.numeric("max_speed").data)
    link_of = lambda body: "base_link" if body == "body" else body

    # Every servo: an actuator on the same-named hinge, the same limits,
    # speed and torque.
    actuators = {}
    for a in range(m.nu):
        joint = name(m, mujoco.mjtObj.mjOBJ_JOINT, m.actuator_trnid[a][0])
        actuators[name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, a)] = (a, joint)
    if set(actuators) != set(moving):
        problems.append(f"actuators {sorted(set(actuators) ^ set(moving))} in one file only")
    for n, (a, joint) in actuators.items():
        if joint != n:
            problems.append(f"actuator {n} drives joint {joint}")
        u = moving.get(n)
        if u is None:
            continue
        jid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, n)
        lim = u["limit"]
        if u["type"] == "revolute":
            want = [lim["lower"], lim["upper"]]
            if not m.jnt_limited[jid] or fl(m.jnt_range[jid]) != want:
                problems.append(f"{n}: range {fl(m.jnt_range[jid])} vs URDF {want}")
            if not m.actuator_ctrllimited[a] or fl(m.actuator_ctrlrange[a]) != want:
                problems.append(f"{n}: ctrlrange {fl(m.actuator_ctrlrange[a])} vs URDF {want}")
            if speeds[a] != lim["velocity"]:
                problems.append(f"{n}: max_speed {speeds[a]} vs URDF velocity {lim['velocity']}")
            if fl(m.actuator_forcerange[a]) != [-lim["effort"], lim["effort"]]:
                problems.append(f"{n}: forcerange {fl(m.actuator_forcerange[a])} vs URDF effort {lim['effort']}")
        elif m.jnt_limited[jid] or m.actuator_ctrllimited[a]:
            problems.append(f"{n}: limited in MuJoCo, continuous in the URDF")
        if not close(m.jnt_axis[jid], np.array(u["axis"]) / np.linalg.norm(u["axis"])):
            problems.append(f"{n}: axis {fl(m.jnt_axis[jid])} vs URDF {u['axis']}")

    # Every body: a URDF link of the same name, the same parent, mass,
    # centre of mass and inertia.
    parent_of = {j["child"]: j["parent"] for j in joints}
    for b in range(1, m.nbody):
        body = name(m, mujoco.mjtObj.mjOBJ_BODY, b)
        link = link_of(body)
        if link not in links or links[link] is None:
            problems.append(f"body {body}: no URDF link with a mass")
            continue
        parent = m.body_parentid[b]
        if parent != 0 and parent_of.get(link) != link_of(name(m, mujoco.mjtObj.mjOBJ_BODY, parent)):
            problems.append(f"body {body}: parent differs")
        u = links[link]
        if m.body_mass[b] != u["mass"] or fl(m.body_ipos[b]) != u["com"]:
            problems.append(f"body {body}: mass {m.body_mass[b]} at {fl(m.body_ipos[b])} vs URDF {u['mass']} at {u['com']}")
        if not close(m.body_inertia[b], u["inertia"]) or any(u["products"]):
            problems.append(f"body {body}: inertia {fl(m.body_inertia[b])} vs URDF {u['inertia']}")
    massive = {k for k, v in links.items() if v is not None}
    bodies = {link_of(name(m, mujoco.mjtObj.mjOBJ_BODY, b)) for b in range(1, m.nbody)}
    if massive != bodies:
        problems.append(f"links {sorted(massive ^ bodies)} with a mass in one file only")

    # Forward kinematics at random angles, every servo turned.
    worst_pos = worst_rot = 0.0
    for _ in range(POSES):
        angles = {}
        d.qpos[:] = 0
        d.qpos[3] = 1.0  # the free joint at the origin, unturned
        for n, j in moving.items():
            lim = j["limit"]
            lo, hi = (lim["lower"], lim["upper"]) if j["type"] == "revolute" else (-math.pi, math.pi)
            angles[n] = rng.uniform(lo, hi)
            jid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, n)
            if jid >= 0:
                d.qpos[m.jnt_qposadr[jid]] = angles[n]
        mujoco.mj_kinematics(m, d)
        frames = urdf_fk(joints, angles)
        for b in range(1, m.nbody):
            link = link_of(name(m, mujoco.mjtObj.mjOBJ_BODY, b))
            if link not in frames:
                continue
            p, r = frames[link]
            worst_pos = max(worst_pos, float(np.linalg.norm(d.xpos[b] - p)))
            worst_rot = max(worst_rot, float(np.abs(d.xmat[b].reshape(3, 3) - r).max()))
    return {"problems": problems, "worst_m": worst_pos, "worst_rotation": worst_rot,
            "servos": len(moving), "bodies": m.nbody - 1}


def main():
    rng = random.Random(int(sys.argv[1]))
    files = sys.argv[2:]
    for mjcf, urdf in zip(files[0::2], files[1::2]):
        print(json.dumps(compare(mjcf, urdf, rng)))


main()
