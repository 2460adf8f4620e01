//! Where each channel's value comes from: the catalogue of a track's
//! channels, and the [`Evaluator`] that computes a chosen few of them at
//! one time after another.
//!
//! AIBO and MRTK channels are the columns of the track's table
//! (`export::table`), evaluated by the same samplers (`MtnSampler`,
//! `anim::input_animation::pose_at`); an MRTK pose is evaluated once a time
//! for all the channels asked of it, and only the poses asked for are. MEMG
//! channels follow the one MEMG rule ([`crate::anim::memg::Between`]):
//! coefficients blended linearly between the two timesteps around a time,
//! the local frame interpolated as glTF interpolates a node.

use super::{Channel, Unit};
use crate::anim::aibo::rig_model;
use crate::anim::curve::evaluate_bool;
use crate::anim::input_animation::{JOINT_NAMES, pose_at, ray_at};
use crate::anim::memg::{Between, MemgChannel};
use crate::anim::mtn::MtnSampler;
use crate::formats::input_animation::InputAnimation;
use crate::formats::memg::MemgMotion;
use crate::formats::mtn::Mtn;
use crate::scene::Track;

/// Which hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Left,
    Right,
}

/// A group of MRTK values evaluated together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pose {
    /// The head: px py pz rx ry rz rw.
    Camera,
    /// A hand joint: px py pz rx ry rz rw.
    Joint(Side, usize),
    /// A hand's tracked and pinching states.
    States(Side),
    /// The gaze ray: ox oy oz dx dy dz.
    Gaze,
}

/// Where one channel's value comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Pick {
    /// A `.mtn` pose value: 0..3 body roll, pitch, yaw, then the joints.
    Mtn(usize),
    /// Component `k` of an MRTK pose.
    Input(Pose, usize),
    /// A MEMG number.
    Memg(MemgChannel),
}

/// Every channel of `track` with where its value comes from, in table order.
pub(crate) fn catalogue(track: &Track) -> Vec<(Channel, Pick)> {
    match track {
        Track::Mtn { motion, .. } => mtn_channels(motion),
        Track::InputAnimation { recording, .. } => input_channels(recording),
        Track::Memg { motion, .. } => memg_channels(motion),
    }
}

fn channel(name: String, path: &[&str], unit: Unit, limits: Option<(f64, f64)>) -> Channel {
    Channel {
        name,
        path: path.iter().map(|s| s.to_string()).collect(),
        unit,
        limits,
    }
}

fn mtn_channels(m: &Mtn) -> Vec<(Channel, Pick)> {
    let mut out: Vec<(Channel, Pick)> = ["roll_deg", "pitch_deg", "yaw_deg"]
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let c = channel(name.to_string(), &["body"], Unit::Degrees, None);
            (c, Pick::Mtn(k))
        })
        .collect();
    let rig = m.model().map(rig_model);
    let roles = m.joint_roles();
    for (i, name) in m.joint_names().into_iter().enumerate() {
        let role = roles.get(i).copied().flatten();
        let limits = rig
            .zip(role)
            .and_then(|(rig, joint)| rig.limit(joint))
            .map(|l| (l.min_deg, l.max_deg));
        let part = role.map_or("other", |j| j.part().name());
        let c = channel(name.to_string(), &["joints", part], Unit::Degrees, limits);
        out.push((c, Pick::Mtn(3 + i)));
    }
    out
}

const POSE_COMPONENTS: [&str; 7] = ["px", "py", "pz", "rx", "ry", "rz", "rw"];

fn pose_channels(out: &mut Vec<(Channel, Pick)>, prefix: &str, path: &[&str], pose: Pose) {
    for (k, c) in POSE_COMPONENTS.iter().enumerate() {
        let unit = if k < 3 { Unit::Metres } else { Unit::Unitless };
        out.push((
            channel(format!("{prefix}_{c}"), path, unit, None),
            Pick::Input(pose, k),
        ));
    }
}

fn input_channels(r: &InputAnimation) -> Vec<(Channel, Pick)> {
    let mut out = Vec::new();
    if r.camera.is_some() {
        pose_channels(&mut out, "camera", &["camera"], Pose::Camera);
    }
    if r.hands.is_some() {
        for (side, word) in [(Side::Left, "left"), (Side::Right, "right")] {
            let hand = format!("{word} hand");
            for (k, state) in ["tracked", "pinching"].iter().enumerate() {
                out.push((
                    channel(format!("{word}_{state}"), &[&hand], Unit::State, None),
                    Pick::Input(Pose::States(side), k),
                ));
            }
            for (j, name) in JOINT_NAMES.iter().enumerate() {
                let prefix = format!("{word}_{name}");
                pose_channels(&mut out, &prefix, &[&hand, name], Pose::Joint(side, j));
            }
        }
    }
    if r.eye_gaze.is_some() {
        for (k, c) in ["ox", "oy", "oz", "dx", "dy", "dz"].iter().enumerate() {
            let unit = if k < 3 { Unit::Metres } else { Unit::Unitless };
            out.push((
                channel(format!("gaze_{c}"), &["gaze"], unit, None),
                Pick::Input(Pose::Gaze, k),
            ));
        }
    }
    out
}

fn memg_channels(m: &MemgMotion) -> Vec<(Channel, Pick)> {
    crate::anim::memg::channels(m)
        .into_iter()
        .map(|c| {
            let (group, part) = match c {
                MemgChannel::Coefficient { group, .. } => (group, "coefficients"),
                MemgChannel::Translation { group, .. } => (group, "local frame"),
            };
            let label = format!("group {group} ({})", m.groups[group].name);
            // Translations are in the .obj's own length unit, which the format does not name.
            let channel = channel(c.name(), &[&label, part], Unit::Unitless, None);
            (channel, Pick::Memg(c))
        })
        .collect()
}

/// Computes chosen channels of one track at one time after another.
pub(crate) struct Evaluator<'a> {
    track: &'a Track,
    sampler: Option<MtnSampler<'a>>,
    picks: Vec<Pick>,
    /// The distinct MRTK poses the picks read, and for each pick its pose's
    /// place in that list.
    poses: Vec<Pose>,
    pose_of: Vec<usize>,
    scratch: Vec<[f64; 7]>,
}

impl<'a> Evaluator<'a> {
    /// An evaluator of `picks` (from [`catalogue`] of the same track).
    pub(crate) fn new(track: &'a Track, picks: Vec<Pick>) -> Evaluator<'a> {
        let sampler = match track {
            Track::Mtn { motion, .. } => Some(MtnSampler::new(motion)),
            _ => None,
        };
        let mut poses = Vec::new();
        let pose_of = picks
            .iter()
            .map(|p| match p {
                Pick::Input(pose, _) => poses.iter().position(|q| q == pose).unwrap_or_else(|| {
                    poses.push(*pose);
                    poses.len() - 1
                }),
                _ => 0,
            })
            .collect();
        let scratch = vec![[0.0; 7]; poses.len()];
        Evaluator {
            track,
            sampler,
            picks,
            poses,
            pose_of,
            scratch,
        }
    }

    /// The picked values at `t` seconds, into `out` (one per pick).
    pub(crate) fn values_at(&mut self, t: f64, out: &mut [f64]) {
        match self.track {
            Track::Mtn { .. } => {
                let Some(sampler) = &self.sampler else { return };
                let pose = sampler.pose_at(t);
                for (o, p) in out.iter_mut().zip(&self.picks) {
                    if let Pick::Mtn(k) = *p {
                        *o = if k < 3 {
                            pose.body_deg[k]
                        } else {
                            pose.joints_deg.get(k - 3).copied().unwrap_or(f64::NAN)
                        };
                    }
                }
            }
            Track::InputAnimation { recording, .. } => {
                for (slot, pose) in self.scratch.iter_mut().zip(&self.poses) {
                    *slot = input_pose(recording, *pose, t);
                }
                for ((o, p), &i) in out.iter_mut().zip(&self.picks).zip(&self.pose_of) {
                    if let Pick::Input(_, k) = *p {
                        *o = self.scratch[i][k];
                    }
                }
            }
            Track::Memg { motion, .. } => {
                let step = Between::at_time(motion, t);
                for (o, p) in out.iter_mut().zip(&self.picks) {
                    *o = step.as_ref().map_or(f64::NAN, |s| match p {
                        Pick::Memg(c) => c.value(motion, s),
                        _ => f64::NAN,
                    });
                }
            }
        }
    }
}

/// One MRTK pose's values at `t` (unused components left 0).
fn input_pose(r: &InputAnimation, pose: Pose, t: f64) -> [f64; 7] {
    let mut out = [0.0; 7];
    let mut put = |p: crate::anim::input_animation::Pose| {
        for (o, v) in out.iter_mut().zip(p.position.iter().chain(&p.rotation)) {
            *o = f64::from(*v);
        }
    };
    match pose {
        Pose::Camera => {
            if let Some(c) = &r.camera {
                put(pose_at(c, t));
            }
        }
        Pose::Joint(side, j) => {
            if let Some(h) = &r.hands {
                let joints = if side == Side::Left {
                    &h.left
                } else {
                    &h.right
                };
                if let Some(c) = joints.get(j) {
                    put(pose_at(c, t));
                }
            }
        }
        Pose::States(side) => {
            if let Some(h) = &r.hands {
                let (tracked, pinch) = match side {
                    Side::Left => (&h.tracked_left, &h.pinch_left),
                    Side::Right => (&h.tracked_right, &h.pinch_right),
                };
                out[0] = f64::from(u8::from(evaluate_bool(tracked, t)));
                out[1] = f64::from(u8::from(evaluate_bool(pinch, t)));
            }
        }
        Pose::Gaze => {
            if let Some(g) = &r.eye_gaze {
                let ray = ray_at(g, t);
                for (o, v) in out.iter_mut().zip(ray.origin.iter().chain(&ray.direction)) {
                    *o = f64::from(*v);
                }
            }
        }
    }
    out
}
