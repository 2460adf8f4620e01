"""Plays MJCF files written by `viewer export X.mtn --out x.xml` in MuJoCo.

For each model given, prints one JSON line: the verdict (falls, whether the
first posture stands, fall time, peak tilt, lowest body height) and the
body's position every 10 ms, from MuJoCo's own simulation of the file. The protocol is the one docs/physics.md
states and the MJCF carries: start at the `start` key, hold the first
keyframe for `settle_s`, play the keyframes (linear between them, the
commanded angles clamped to each servo's `ctrlrange`), hold the last one for
`hold_s`; each servo's target moves toward its command no faster than its
`max_speed` per step. Written from the file alone: nothing here knows the
viewer's code. The controls do not depend on the simulation, so they are
computed first and MuJoCo steps through them on its own (`mujoco.rollout`),
the same `mj_step`s without Python between them.

Usage: python mujoco_drive.py MODEL.xml...
"""

import json
import math
import sys

import mujoco
import numpy as np
from mujoco import rollout

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


def interpolate(times, values, t):
    """Linear between keys, held before the first and after the last, at
    every time of the array `t` (the keys' `values`, one row each)."""
    times = np.asarray(times)
    values = np.asarray(values)
    shape = (len(t),) + values.shape[1:]
    if len(times) == 1:
        return np.broadcast_to(values[0], shape).copy()
    # The first key at or after each time (bisection), and the one before.
    b = np.clip(np.searchsorted(times, t, side="left"), 1, len(times) - 1)
    a = b - 1
    span = times[b] - times[a]
    u = np.where(span > 0, (t - times[a]) / np.where(span > 0, span, 1.0), 1.0)
    if values.ndim == 2:
        u = u[:, None]
    out = values[a] + (values[b] - values[a]) * u
    out[t <= times[0]] = values[0]
    out[t >= times[-1]] = values[-1]
    return out


class LowestZ:
    """The lowest point of the geoms, from MuJoCo's own placement of them:
    a sphere's centre less its radius, a capsule's less its half length along
    the vertical and its radius, a box's less its half extents along the
    vertical. Each kind computed over its geoms and the steps asked at once
    (numpy), in the same order of operations as one geom at a time, so the
    same bits."""

    def __init__(self, m, geoms):
        self.geoms = np.asarray(geoms, dtype=np.intp)
        kind = m.geom_type[self.geoms]
        self.kinds = []
        for k in (mujoco.mjtGeom.mjGEOM_SPHERE, mujoco.mjtGeom.mjGEOM_CAPSULE, mujoco.mjtGeom.mjGEOM_BOX):
            of_kind = np.nonzero(kind == k)[0]
            if len(of_kind):
                self.kinds.append((k, of_kind, m.geom_size[self.geoms[of_kind]]))

    def at(self, m, d, qpos):
        """The lowest point at each row of `qpos`, the geoms placed by
        MuJoCo's own kinematics (`mj_kinematics`, as `mj_step` places them
        before it integrates)."""
        n, g = len(qpos), len(self.geoms)
        xpos = np.empty((n, g, 3))
        xmat = np.empty((n, g, 9))
        for i in range(n):
            d.qpos[:] = qpos[i]
            mujoco.mj_kinematics(m, d)
            xpos[i] = d.geom_xpos[self.geoms]
            xmat[i] = d.geom_xmat[self.geoms]
        low = np.full(n, math.inf)
        for kind, of_kind, size in self.kinds:
            z = xpos[:, of_kind, 2]
            # geom_xmat holds each 3x3 rotation by rows: r[2, i] is column 6 + i.
            r2 = xmat[:, of_kind, 6:9]
            if kind == mujoco.mjtGeom.mjGEOM_SPHERE:
                below = z - size[:, 0]
            elif kind == mujoco.mjtGeom.mjGEOM_CAPSULE:
                below = z - np.abs(r2[..., 2]) * size[:, 1] - size[:, 0]
            else:
                reach = np.abs(r2[..., 0]) * size[:, 0] + np.abs(r2[..., 1]) * size[:, 1]
                below = z - (reach + np.abs(r2[..., 2]) * size[:, 2])
            low = np.minimum(low, below.min(axis=1))
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
    steps = (
        round(settle / dt) + math.ceil(duration / dt - 1e-9) + round(hold / dt)
    )
    # Each step's time, command and expected clearance, for every step at
    # once: the controls do not depend on the simulation (open loop).
    t = (np.arange(steps) + 1) * dt - settle
    if times:
        goal = np.minimum(np.maximum(interpolate(times, rows, t), lo), hi)
        clearance = np.array(m.numeric("expected_clearance").data)
        expected = interpolate(times, clearance, t)
    else:
        goal = np.broadcast_to(np.array(d.ctrl), (steps, m.nu))
        expected = np.zeros(steps)
    # Each servo's target moves toward its command no faster than its speed.
    ctrl = np.empty((steps, m.nu))
    target = np.array(d.ctrl)
    most = speeds * dt
    for k in range(steps):
        target = target + np.minimum(np.maximum(goal[k] - target, -most), most)
        ctrl[k] = target
    # MuJoCo steps through them on its own (`rollout`: mj_step with each
    # step's controls), keeping every step's state.
    full = mujoco.mjtState.mjSTATE_FULLPHYSICS
    initial = np.empty(mujoco.mj_stateSize(m, full))
    mujoco.mj_getState(m, d, initial, full)
    at = mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_TIME)
    if steps:
        qpos = rollout.rollout(m, d, initial, ctrl)[0][0, :, at : at + m.nq]
    else:
        qpos = np.empty((0, m.nq))
    # Where each step starts: the geoms are placed there (mj_step places them
    # before it integrates), the body after it.
    before = np.vstack([initial[at : at + m.nq], qpos[:-1]])
    # The trunk's lowest point only where the motion expects clearance: the
    # rule needs both.
    names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g) or "" for g in range(m.ngeom)]
    trunk = [g for g, n in enumerate(names) if "_body_" in n or "_head_" in n]
    asked = np.nonzero(expected >= EXPECTED_CLEARANCE_M)[0]
    touching = np.zeros(steps, dtype=bool)
    touching[asked] = LowestZ(m, trunk).at(m, d, before[asked]) <= CONTACT_M
    x, y = qpos[:, 4], qpos[:, 5]
    up_z = (1.0 - 2.0 * (x * x + y * y)).tolist()
    on_floor_since, cause = None, None
    falls, fall_time, peak, peak_t = False, None, 0.0, 0.0
    for k, (tk, up, floor) in enumerate(zip(t.tolist(), up_z, touching.tolist())):
        tilt = math.degrees(math.acos(max(-1.0, min(1.0, up))))
        if tilt > peak:
            peak, peak_t = tilt, tk
        if tilt > FALL_TILT_DEG and not falls:
            falls, fall_time, cause = True, tk, "tilt"
        if floor:
            if on_floor_since is None:
                on_floor_since = tk
            if tk - on_floor_since + dt >= FLOOR_FALL_S - 1e-9 and not falls:
                falls, fall_time, cause = True, on_floor_since, "body on the floor"
        else:
            on_floor_since = None
    low = float(qpos[:, 2].min()) if steps else math.inf
    traj = [
        [round(float(t[k]), 6)] + [float(v) for v in qpos[k, 0:3]]
        for k in range(9, steps, 10)
    ]
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
