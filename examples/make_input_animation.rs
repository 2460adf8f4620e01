//! Writes a sample MRTK input animation (version 1.1): a head looking around and
//! two hands reaching, waving and pinching, with eye gaze on the right index tip.
//!
//! `cargo run --no-default-features --example make_input_animation -- data/hands.mrtk`
//!
//! Unity space: metres, left-handed, x right, y up, z forward. The head stands at
//! 1.6 m; the hands work about 0.4 m in front of it.

use glam::{Mat3, Quat, Vec3};
use motion_viewer::formats::input_animation::{
    BoolCurve, BoolKey, Curve, Hands, InputAnimation, JOINT_COUNT, Key, Marker, PoseCurves,
    RayCurves, encode,
};
use std::f32::consts::PI;

/// Keys per second.
const RATE: usize = 60;
/// Length of the recording in seconds.
const SECONDS: usize = 4;

/// One finger in the right hand's frame (x toward the pinky, y back of the hand,
/// z along the fingers): metacarpal base, knuckle, phalanx lengths and splay.
struct Finger {
    metacarpal: Vec3,
    knuckle: Vec3,
    lengths: [f32; 3],
    /// Sideways lean of the finger in radians (+ toward the pinky).
    splay: f32,
}

const FINGERS: [Finger; 4] = [
    Finger {
        metacarpal: Vec3::new(-0.010, 0.0, 0.012),
        knuckle: Vec3::new(-0.022, 0.0, 0.085),
        lengths: [0.040, 0.024, 0.021],
        splay: -0.08,
    },
    Finger {
        metacarpal: Vec3::new(0.0, 0.0, 0.012),
        knuckle: Vec3::new(0.0, 0.0, 0.088),
        lengths: [0.045, 0.028, 0.023],
        splay: 0.0,
    },
    Finger {
        metacarpal: Vec3::new(0.010, 0.0, 0.012),
        knuckle: Vec3::new(0.020, -0.002, 0.082),
        lengths: [0.041, 0.027, 0.022],
        splay: 0.06,
    },
    Finger {
        metacarpal: Vec3::new(0.020, -0.002, 0.010),
        knuckle: Vec3::new(0.037, -0.005, 0.072),
        lengths: [0.031, 0.019, 0.019],
        splay: 0.14,
    },
];

/// The open thumb: metacarpal, proximal, distal, tip (right hand frame).
const THUMB: [Vec3; 4] = [
    Vec3::new(-0.020, -0.012, 0.020),
    Vec3::new(-0.042, -0.020, 0.045),
    Vec3::new(-0.058, -0.025, 0.072),
    Vec3::new(-0.066, -0.027, 0.097),
];

/// Joint positions in the right hand's frame for a pinch amount in [0, 1].
fn local_joints(pinch: f32) -> [Vec3; JOINT_COUNT] {
    let mut j = [Vec3::ZERO; JOINT_COUNT];
    // j[0] is the toolkit's `None` joint: recorded at the origin.
    j[2] = 0.5 * FINGERS[1].knuckle;
    for (f, finger) in FINGERS.iter().enumerate() {
        // A relaxed curl, and the index curls further to meet the thumb.
        let mut curl = [0.15, 0.2, 0.1];
        if f == 0 {
            curl = [0.15 + 0.55 * pinch, 0.2 + 0.6 * pinch, 0.1 + 0.3 * pinch];
        }
        let base = 7 + 5 * f;
        j[base] = finger.metacarpal;
        j[base + 1] = finger.knuckle;
        let mut angle = 0.0;
        for k in 0..3 {
            angle += curl[k];
            // Flexion turns the finger toward the palm (−y).
            let dir = Vec3::new(finger.splay.sin(), -angle.sin(), angle.cos()).normalize();
            j[base + 2 + k] = j[base + 1 + k] + finger.lengths[k] * dir;
        }
    }
    // Pinch: the thumb tip travels to the index tip (stopping 6 mm short, the
    // thickness of the finger pads), the distal joint bends along.
    let tip_target = j[11] + Vec3::new(-0.004, -0.004, -0.002);
    let distal_target = THUMB[1] + 0.55 * (tip_target - THUMB[1]) + Vec3::new(-0.008, -0.006, 0.0);
    j[3] = THUMB[0];
    j[4] = THUMB[1];
    j[5] = THUMB[2].lerp(distal_target, pinch);
    j[6] = THUMB[3].lerp(tip_target, pinch);
    j
}

/// World poses of every joint for a wrist pose; `mirror` makes it a left hand.
fn hand_poses(wrist: Vec3, rot: Quat, pinch: f32, mirror: bool) -> [(Vec3, Quat); JOINT_COUNT] {
    let m = if mirror {
        Vec3::new(-1.0, 1.0, 1.0)
    } else {
        Vec3::ONE
    };
    let local = local_joints(pinch);
    let world = |p: Vec3| wrist + rot * (p * m);
    let up = rot * Vec3::Y;
    // Each bone's joint looks along the bone toward the next joint, back of the hand up.
    let look = |from: Vec3, to: Vec3| {
        let fwd = (world(to) - world(from)).normalize_or(rot * Vec3::Z);
        let right = up.cross(fwd).normalize_or(rot * Vec3::X);
        Quat::from_mat3(&Mat3::from_cols(right, fwd.cross(right), fwd))
    };
    let mut out = [(Vec3::ZERO, Quat::IDENTITY); JOINT_COUNT];
    out[1] = (world(local[1]), rot);
    out[2] = (world(local[2]), rot);
    // Chains: thumb 3..=6, then each finger's five joints.
    let chains: [std::ops::RangeInclusive<usize>; 5] = [3..=6, 7..=11, 12..=16, 17..=21, 22..=26];
    for chain in chains {
        let (a, b) = (*chain.start(), *chain.end());
        for i in a..=b {
            // The tip keeps the direction of its last bone.
            let q = if i < b {
                look(local[i], local[i + 1])
            } else {
                look(local[i - 1], local[i])
            };
            out[i] = (world(local[i]), q);
        }
    }
    out
}

/// Smoothstep between waypoints `(time, value)`, held before the first and after the last.
fn path<T: Copy>(t: f32, points: &[(f32, T)], mix: impl Fn(T, T, f32) -> T) -> T {
    let i = points.partition_point(|p| p.0 <= t);
    if i == 0 {
        return points[0].1;
    }
    if i == points.len() {
        return points[i - 1].1;
    }
    let ((t0, a), (t1, b)) = (points[i - 1], points[i]);
    let s = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
    mix(a, b, s * s * (3.0 - 2.0 * s))
}

fn vec_path(t: f32, points: &[(f32, Vec3)]) -> Vec3 {
    path(t, points, Vec3::lerp)
}

fn quat_path(t: f32, points: &[(f32, Quat)]) -> Quat {
    path(t, points, Quat::slerp)
}

fn scalar_path(t: f32, points: &[(f32, f32)]) -> f32 {
    path(t, points, |a, b, s| a + (b - a) * s)
}

/// Right hand: reach, raise and wave, come back and pinch, lower.
fn right_hand(t: f32) -> (Vec3, Quat, f32) {
    // Palms down and a little inward, thumbs slightly up (a relaxed forearm).
    let palm_down = Quat::from_rotation_z(-0.35);
    let palm_forward = Quat::from_rotation_x(-PI / 2.0);
    let pos = vec_path(
        t,
        &[
            (0.0, Vec3::new(0.20, 1.22, 0.28)),
            (0.9, Vec3::new(0.14, 1.36, 0.46)),
            (1.3, Vec3::new(0.22, 1.50, 0.40)),
            (2.3, Vec3::new(0.22, 1.50, 0.40)),
            (2.6, Vec3::new(0.10, 1.36, 0.40)),
            (3.3, Vec3::new(0.10, 1.36, 0.40)),
            (4.0, Vec3::new(0.20, 1.22, 0.30)),
        ],
    );
    let mut rot = quat_path(
        t,
        &[
            (0.9, palm_down),
            (1.3, palm_forward),
            (2.3, palm_forward),
            (2.6, Quat::from_rotation_z(-0.9)),
            (3.3, Quat::from_rotation_z(-0.9)),
            (4.0, palm_down),
        ],
    );
    if (1.3..2.3).contains(&t) {
        // Waving: side to side about the forward axis, two and a half times.
        let s = (t - 1.3) / 1.0;
        rot = Quat::from_rotation_z(0.35 * (2.0 * PI * 2.5 * s).sin()) * rot;
    }
    let pinch = scalar_path(t, &[(2.4, 0.0), (2.6, 1.0), (3.1, 1.0), (3.3, 0.0)]);
    (pos, rot, pinch)
}

/// Left hand: a small reach, then resting (untracked for a moment in between).
fn left_hand(t: f32) -> (Vec3, Quat, f32) {
    let pos = vec_path(
        t,
        &[
            (0.0, Vec3::new(-0.18, 1.24, 0.30)),
            (0.8, Vec3::new(-0.14, 1.34, 0.44)),
            (2.0, Vec3::new(-0.16, 1.30, 0.38)),
            (4.0, Vec3::new(-0.18, 1.26, 0.34)),
        ],
    );
    let rot = Quat::from_rotation_z(0.35 + 0.1 * (t * 1.5).sin());
    (pos, rot, 0.0)
}

/// The head: turns right toward the wave, left past centre, and back.
fn camera(t: f32) -> (Vec3, Quat) {
    let yaw = scalar_path(t, &[(0.0, 0.0), (1.5, 0.35), (3.0, -0.17), (4.0, 0.0)]);
    let pitch = scalar_path(t, &[(0.0, 0.1), (1.5, -0.05), (2.8, 0.2), (4.0, 0.1)]);
    let pos = Vec3::new(0.01 * (t * 1.3).sin(), 1.6 + 0.005 * (t * 2.1).sin(), 0.0);
    (
        pos,
        Quat::from_rotation_y(yaw) * Quat::from_rotation_x(pitch),
    )
}

/// Float curves sampled once per key.
#[derive(Default)]
struct PoseRecorder {
    channels: [Vec<Key>; 7],
    last: Option<Quat>,
}

impl PoseRecorder {
    fn push(&mut self, t: f32, p: Vec3, mut q: Quat) {
        // Keep neighbouring quaternions in one hemisphere so the per-channel
        // linear blend between keys stays near the short arc.
        if self.last.is_some_and(|l| l.dot(q) < 0.0) {
            q = -q;
        }
        self.last = Some(q);
        for (c, v) in self
            .channels
            .iter_mut()
            .zip([p.x, p.y, p.z, q.x, q.y, q.z, q.w])
        {
            c.push(Key::linear(t, v));
        }
    }

    fn finish(self) -> PoseCurves {
        let mut c = self.channels.map(|keys| Curve {
            keys,
            ..Curve::default()
        });
        PoseCurves {
            position: [0, 1, 2].map(|i| std::mem::take(&mut c[i])),
            rotation: [3, 4, 5, 6].map(|i| std::mem::take(&mut c[i])),
        }
    }
}

fn bools(keys: &[(f32, bool)]) -> BoolCurve {
    BoolCurve {
        keys: keys
            .iter()
            .map(|&(time, on)| BoolKey {
                time,
                value: if on { 1.0 } else { 0.0 },
            })
            .collect(),
        ..BoolCurve::default()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "data/hands.mrtk".into());
    let mut cam = PoseRecorder::default();
    let mut left: Vec<PoseRecorder> = (0..JOINT_COUNT).map(|_| PoseRecorder::default()).collect();
    let mut right: Vec<PoseRecorder> = (0..JOINT_COUNT).map(|_| PoseRecorder::default()).collect();
    let mut gaze: [Vec<Key>; 6] = Default::default();
    for i in 0..=RATE * SECONDS {
        let t = i as f32 / RATE as f32;
        let (cp, cq) = camera(t);
        cam.push(t, cp, cq);
        let (lp, lq, lpinch) = left_hand(t);
        for (rec, (p, q)) in left.iter_mut().zip(hand_poses(lp, lq, lpinch, true)) {
            rec.push(t, p, q);
        }
        let (rp, rq, rpinch) = right_hand(t);
        let rj = hand_poses(rp, rq, rpinch, false);
        for (rec, &(p, q)) in right.iter_mut().zip(&rj) {
            rec.push(t, p, q);
        }
        // The eyes follow the right index tip.
        let dir = (rj[11].0 - cp).normalize();
        for (c, v) in gaze.iter_mut().zip([cp.x, cp.y, cp.z, dir.x, dir.y, dir.z]) {
            c.push(Key::linear(t, v));
        }
    }
    let [ox, oy, oz, dx, dy, dz] = gaze.map(|keys| Curve {
        keys,
        ..Curve::default()
    });
    let anim = InputAnimation {
        version: (1, 1),
        camera: Some(cam.finish()),
        hands: Some(Hands {
            tracked_left: bools(&[(0.0, true), (1.2, false), (1.8, true)]),
            tracked_right: bools(&[(0.0, true)]),
            pinch_left: bools(&[(0.0, false)]),
            pinch_right: bools(&[(0.0, false), (2.6, true), (3.1, false)]),
            left: left.into_iter().map(PoseRecorder::finish).collect(),
            right: right.into_iter().map(PoseRecorder::finish).collect(),
        }),
        eye_gaze: Some(RayCurves {
            origin: [ox, oy, oz],
            direction: [dx, dy, dz],
        }),
        markers: vec![
            Marker {
                time: 1.3,
                name: "wave".into(),
            },
            Marker {
                time: 2.6,
                name: "pinch".into(),
            },
        ],
        warnings: Vec::new(),
    };
    let bytes = encode(&anim, (1, 1))?;
    std::fs::write(&out, &bytes)?;
    println!("{out}: {} bytes, {SECONDS} s at {RATE} Hz", bytes.len());
    Ok(())
}
