"""Plays MJCF files written by `viewer export X.mtn --out x.xml` in MuJoCo.

For each model given, prints one JSON line: the verdict (falls, whether the
first posture stands, fall time, peak tilt, lowest body height) and the
body's position every 10 ms, from MuJoCo's own simulation of the file. The protocol is the one docs/physics.md
states and the MJCF carries: start at the `start` key, hold the first
keyframe for `settle_s`, play the keyframes (linear between them, the
commanded angles clamped to each servo's `ctrlrange`), hold the last one for
`hold_s`; each servo's target moves toward its command no faster than its
`max_speed` per step. Written from the file alone: nothing here knows the
viewer's code.

Usage: python mujoco_drive.py MODEL.xml...
"""

import bisect
import json
import math
import sys

import mujoco
import numpy as np

FALL_TILT_DEG = 60.0
CONTACT_M = 0.002
EXPECTED_CLEARANCE_M = 0.06
FLOOR_FALL_S = 0.05


def keyframes(m):
    """The motion's keys, in time order: (times, ctrl rows)."""
    keys = []
    for i in range(m.nkey):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_KEY, i)
        if name and name.startswith("keyframe_"):
            keys.append((float(m.key_time[i]), np.array(m.key_ctrl[i])))
    keys.sort(key=lambda k: k[0])
    return [k[0] for k in keys], [k[1] for k in keys]


def commanded(times, rows, t, lo, hi):
    """The keys' command at `t` (`interpolate`), clamped to the servos' range."""
    if not times:
        return None
    # np.clip's own result (the larger of the value and lo, then the
    # smaller of that and hi), without its wrapper's cost at every step.
    return np.minimum(np.maximum(interpolate(times, rows, t), lo), hi)


def interpolate(times, values, t):
    """Linear between keys, held before the first and after the last."""
    if t <= times[0]:
        return values[0]
    if t >= times[-1]:
        return values[-1]
    b = bisect.bisect_left(times, t)  # the first key at or after t
    a = b - 1
    span = times[b] - times[a]
    u = (t - times[a]) / span if span > 0 else 1.0
    return values[a] + (values[b] - values[a]) * u


class LowestZ:
    """The lowest point of the geoms, from MuJoCo's own placement of them:
    a sphere's centre less its radius, a capsule's less its half length along
    the vertical and its radius, a box's less its half extents along the
    vertical. Each kind computed over its geoms at once (numpy), in the same
    order of operations as one geom at a time, so the same bits."""

    def __init__(self, m, geoms):
        geoms = np.asarray(geoms, dtype=np.intp)
        kind = m.geom_type[geoms]
        self.kinds = []
        for k in (mujoco.mjtGeom.mjGEOM_SPHERE, mujoco.mjtGeom.mjGEOM_CAPSULE, mujoco.mjtGeom.mjGEOM_BOX):
            of_kind = geoms[kind == k]
            if len(of_kind):
                self.kinds.append((k, of_kind, m.geom_size[of_kind]))

    def __call__(self, d):
        low = math.inf
        for kind, geoms, size in self.kinds:
            z = d.geom_xpos[geoms, 2]
            # geom_xmat holds each 3x3 rotation by rows: r[2, i] is column 6 + i.
            r2 = d.geom_xmat[geoms, 6:9]
            if kind == mujoco.mjtGeom.mjGEOM_SPHERE:
                below = z - size[:, 0]
            elif kind == mujoco.mjtGeom.mjGEOM_CAPSULE:
                below = z - np.abs(r2[:, 2]) * size[:, 1] - size[:, 0]
            else:
                reach = np.abs(r2[:, 0]) * size[:, 0] + np.abs(r2[:, 1]) * size[:, 1]
                below = z - (reach + np.abs(r2[:, 2]) * size[:, 2])
            low = min(low, float(below.min()))
        return low


def run(path):
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    dt = m.opt.timestep
    start = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, "start")
    mujoco.mj_resetDataKeyframe(m, d, start)
    speeds = np.array(m.numeric("max_speed").data)
    settle = float(m.numeric("settle_s").data[0])
    hold = float(m.numeric("hold_s").data[0])
    # A servo without a range (the ears) is not clamped, and one without a
    # rated speed (`max_speed` 0) follows its command at once.
    limited = m.actuator_ctrllimited.astype(bool)
    lo = np.where(limited, m.actuator_ctrlrange[:, 0], -np.inf)
    hi = np.where(limited, m.actuator_ctrlrange[:, 1], np.inf)
    speeds = np.where(speeds > 0, speeds, np.inf)
    times, rows = keyframes(m)
    duration = times[-1] if times else 0.0
    target = np.array(d.ctrl)
    clearance = np.array(m.numeric("expected_clearance").data) if times else np.zeros(1)
    names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g) or "" for g in range(m.ngeom)]
    trunk = [g for g, n in enumerate(names) if "_body_" in n or "_head_" in n]
    lowest_z = LowestZ(m, trunk)
    on_floor_since, cause = None, None
    steps = (
        round(settle / dt) + math.ceil(duration / dt - 1e-9) + round(hold / dt)
    )
    falls, fall_time, peak, peak_t, low = False, None, 0.0, 0.0, math.inf
    traj = []
    for k in range(steps):
        t = (k + 1) * dt - settle
        goal = commanded(times, rows, t, lo, hi)
        if goal is None:
            goal = target
        most = speeds * dt
        target = target + np.minimum(np.maximum(goal - target, -most), most)
        d.ctrl[:] = target
        mujoco.mj_step(m, d)
        w, x, y, z = d.qpos[3:7]
        up_z = 1.0 - 2.0 * (x * x + y * y)
        tilt = math.degrees(math.acos(max(-1.0, min(1.0, up_z))))
        if tilt > peak:
            peak, peak_t = tilt, t
        if tilt > FALL_TILT_DEG and not falls:
            falls, fall_time, cause = True, t, "tilt"
        expected = interpolate(times, clearance, t) if times else 0.0
        # The trunk's lowest point only where the motion expects clearance
        # (the rule needs both; this order spares most steps the geoms).
        if expected >= EXPECTED_CLEARANCE_M and lowest_z(d) <= CONTACT_M:
            if on_floor_since is None:
                on_floor_since = t
            if t - on_floor_since + dt >= FLOOR_FALL_S - 1e-9 and not falls:
                falls, fall_time, cause = True, on_floor_since, "body on the floor"
        else:
            on_floor_since = None
        low = min(low, float(d.qpos[2]))
        if (k + 1) % 10 == 0:
            traj.append([round(t, 6)] + [float(v) for v in d.qpos[0:3]])
    # A fall that began while settling, before the motion: the first
    # posture does not stand, and the fall has no time in the motion.
    first_posture_stands = not (falls and fall_time < 0)
    return {
        "file": path,
        "falls": falls,
        "first_posture_stands": first_posture_stands,
        "fall_time_s": fall_time if first_posture_stands else None,
        "fall_cause": cause,
        "peak_tilt_deg": peak,
        "peak_tilt_time_s": peak_t,
        "min_body_height_m": low,
        "trajectory": traj,
    }


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(json.dumps(run(p)), flush=True)
