//! A motion's pose at one time (its state), as plain data: one type per
//! format behind [`State`], built by [`state_at`].
//! `viewer export --time S --out s.json` writes it; the window's panels read
//! it.
//!
//! The serialised field names are the keys `export` has always written.

use crate::anim::aibo::pose_from_mtn;
use crate::anim::input_animation::{
    FRAME_PERIOD_S, HandState, InputState, JOINT_NAMES, Pose, state_at as input_state_at,
};
use crate::anim::memg::{self as deformer, Between, Binding, steps_at};
use crate::anim::mtn::pose_at;
use crate::error::{Error, Result};
use crate::formats::input_animation::InputAnimation;
use crate::formats::memg::MemgMotion;
use crate::formats::mtn::{Mtn, prm_names};
use crate::formats::obj::ObjScene;
use crate::scene::Track;
use serde::{Serialize, Serializer};
use std::path::Path;

/// A moment of a motion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum At {
    /// Seconds from the start.
    Time(f64),
    /// A frame index in the motion's own frame period (a MEMG timestep, a
    /// `.mtn` frame, a 60 Hz MRTK frame).
    Frame(u64),
}

/// One motion's state at one time, whatever its format.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum State {
    /// An AIBO motion.
    Mtn(MtnState),
    /// A MEMG scene.
    Memg(MemgState),
    /// An MRTK recording.
    InputAnimation(InputAnimationState),
}

/// The state of `track` at `at`. Fails only for a MEMG time outside the
/// motion or a scene the motion does not fit.
pub fn state_at(track: &Track, at: At) -> Result<State> {
    Ok(match track {
        Track::Mtn { motion, .. } => State::Mtn(MtnState::new(motion, at)),
        Track::InputAnimation { recording, .. } => {
            State::InputAnimation(InputAnimationState::new(recording, at))
        }
        Track::Memg {
            scene,
            motion,
            motion_path,
            ..
        } => State::Memg(MemgState::new(scene, motion, at, motion_path)?),
    })
}

/// Named points in the order given, serialised as one JSON object.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedPoints(pub Vec<(&'static str, [f64; 3])>);

impl Serialize for NamedPoints {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(name, p)| (name, p)))
    }
}

/// An AIBO motion at one time: body attitude, joint angles and the rig.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MtnState {
    /// Always `"mtn"`.
    pub format: &'static str,
    /// The time sampled, clamped to the motion, seconds.
    pub time_s: f64,
    /// Body roll, pitch and yaw.
    pub body: BodyAttitude,
    /// Every servo the rig posed: the motion's joints in file order, then
    /// each other servo of the model (as the URDF names them) at the neutral
    /// angle the rig gave it, marked `neutral`.
    pub joints: Vec<JointAngle>,
    /// The rig's named points in the body frame, millimetres (x forward,
    /// y left, z up, origin at the body centre).
    pub points: NamedPoints,
    /// The same points after the body's roll, pitch and yaw.
    pub world: NamedPoints,
    /// Angles beyond a joint limit, joints the model lacks…
    pub rig_warnings: Vec<String>,
}

/// Body attitude in degrees.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BodyAttitude {
    /// + leans right.
    pub roll_deg: f64,
    /// + leans backward.
    pub pitch_deg: f64,
    /// + turns left.
    pub yaw_deg: f64,
}

/// One joint's angle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JointAngle {
    /// Its PRM name ([`Mtn::joint_names`]).
    pub name: String,
    /// The body part it moves, if known.
    pub part: Option<&'static str>,
    /// The angle in degrees.
    pub deg: f64,
    /// The motion does not drive this servo: the rig holds it at the
    /// model's neutral angle.
    pub neutral: bool,
}

impl MtnState {
    /// `m` at `at` (a frame counts in the motion's own frame period).
    pub fn new(m: &Mtn, at: At) -> Self {
        let t = match at {
            At::Time(t) => t,
            At::Frame(n) => m.frame_s(n),
        };
        let pose = pose_at(m, t);
        let (model, rig) = pose_from_mtn(m, t);
        let names = m.joint_names();
        let roles = m.joint_roles();
        let driven = pose
            .joints_deg
            .iter()
            .enumerate()
            .map(|(i, &deg)| JointAngle {
                name: names[i].to_string(),
                part: m.joint_part(i).map(|p| p.name()),
                deg,
                neutral: false,
            });
        let prm = prm_names(model);
        let neutral = rig
            .angles_deg
            .iter()
            .filter(|(joint, _)| !roles.contains(&Some(*joint)))
            .filter_map(|&(joint, deg)| {
                let (_, name) = prm.iter().find(|(j, _)| *j == joint)?;
                Some(JointAngle {
                    name: (*name).to_string(),
                    part: Some(joint.part().name()),
                    deg,
                    neutral: true,
                })
            });
        MtnState {
            format: "mtn",
            time_s: pose.time_s,
            body: BodyAttitude {
                roll_deg: pose.body_deg[0],
                pitch_deg: pose.body_deg[1],
                yaw_deg: pose.body_deg[2],
            },
            joints: driven.chain(neutral).collect(),
            points: NamedPoints(rig.body),
            world: NamedPoints(rig.world),
            rig_warnings: rig.warnings,
        }
    }
}

/// A MEMG scene at one time. Positions are large: the state holds their box.
///
/// Between two timesteps every value follows the one MEMG rule
/// ([`crate::anim::memg::Between`]): the coefficients blend, the local
/// frames interpolate, and the box is that of the scene so deformed — what
/// the window shows at that time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemgState {
    /// Always `"memg"`.
    pub format: &'static str,
    /// The time sampled, seconds (clamped to the motion).
    pub time_s: f64,
    /// Where that time falls, in timesteps: a whole number on a timestep
    /// (written as an integer, `37`), `8.571…` between timesteps 8 and 9.
    #[serde(serialize_with = "whole_as_integer")]
    pub timestep: f64,
    /// Lowest corner of the deformed scene.
    pub bbox_min: [f32; 3],
    /// Highest corner of the deformed scene.
    pub bbox_max: [f32; 3],
    /// Each motion group at that time, in file order: the curves'
    /// `g{g}_q{i}` is `groups[g].q[i]`, `g{g}_tx` is `groups[g].translation[0]`.
    pub groups: Vec<MemgGroupState>,
}

/// One MEMG group's reduced coordinates at one time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemgGroupState {
    /// The group's name.
    pub name: String,
    /// Its basis coefficients q_i.
    pub q: Vec<f64>,
    /// Its local frame's translation, `None` (null) for a group in world space.
    pub translation: Option<[f64; 3]>,
}

impl MemgGroupState {
    /// Every group of `m` at `at` (coefficients the file lacks left out).
    pub fn all(m: &MemgMotion, at: Between) -> Vec<MemgGroupState> {
        m.groups
            .iter()
            .map(|g| {
                let r = g.basis_len;
                let held = g.coeffs.len() >= (at.t1.max(at.t0) + 1) * r;
                MemgGroupState {
                    name: g.name.clone(),
                    q: if held {
                        (0..r).map(|j| at.coefficient(g, j)).collect()
                    } else {
                        Vec::new()
                    },
                    translation: at.frame(m, g.parent).map(|f| [f[3], f[7], f[11]]),
                }
            })
            .collect()
    }
}

impl MemgState {
    /// The scene deformed at `at` (read from `file`, for errors).
    pub fn new(s: &ObjScene, m: &MemgMotion, at: At, file: &Path) -> Result<Self> {
        let place = place(m, at, file)?;
        let binding = Binding::new(s, m).map_err(|e| Error::mismatch(file, e))?;
        let mut positions = Vec::new();
        deformer::deform(s, m, &binding, place.steps(), &mut positions);
        let (lo, hi) = deformer::bounding_box(&positions).unwrap_or_default();
        Ok(MemgState {
            format: "memg",
            time_s: match at {
                At::Time(t) => t,
                At::Frame(n) => crate::anim::clock::time_of(n, 1.0 / f64::from(m.fps.max(1))),
            },
            timestep: place.steps(),
            bbox_min: lo,
            bbox_max: hi,
            groups: MemgGroupState::all(m, place),
        })
    }
}

/// A whole number as a JSON integer, any other as a float.
fn whole_as_integer<S: Serializer>(x: &f64, s: S) -> std::result::Result<S::Ok, S::Error> {
    if x.fract() == 0.0 && x.abs() < 2f64.powi(53) {
        s.serialize_i64(*x as i64)
    } else {
        s.serialize_f64(*x)
    }
}

/// Where `at` falls in `m`: `Frame(N)` is timestep N, `Time(S)` is S × fps
/// timesteps ([`crate::anim::memg::steps_at`]), between two timesteps when
/// it is not whole. Fails before the start or past the last timestep,
/// saying the motion's range, as an [`Error::Mismatch`] for `file`.
pub(crate) fn place(m: &MemgMotion, at: At, file: &Path) -> Result<Between> {
    let invalid = |reason: String| Error::mismatch(file, reason);
    let steps = match at {
        At::Frame(n) => n as f64,
        At::Time(s) => {
            let x = steps_at(m, s);
            // Also refuses NaN, which compares false with everything.
            if x.is_nan() || x < 0.0 {
                return Err(invalid(format!(
                    "time {s} s is before the start of the motion"
                )));
            }
            x
        }
    };
    let last = m.timesteps.saturating_sub(1) as f64;
    if m.timesteps == 0 || steps > last {
        return Err(invalid(format!(
            "timestep {steps} is past the motion's end: it has {} timesteps (0..={}, {:.3} s at {} fps)",
            m.timesteps,
            m.timesteps.saturating_sub(1),
            m.duration_s(),
            m.fps
        )));
    }
    Between::at_steps(m, steps).ok_or_else(|| invalid("the motion has no timesteps".into()))
}

/// An MRTK recording at one time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputAnimationState {
    /// Always `"input-animation"`.
    pub format: &'static str,
    /// The time sampled, seconds.
    pub time_s: f64,
    /// The head pose, if recorded.
    pub camera: Option<PoseState>,
    /// Both hands, if recorded.
    pub hands: Option<HandsState>,
    /// The eye-gaze ray, if recorded.
    pub eye_gaze: Option<RayState>,
}

/// A position and rotation (Unity: metres, left-handed, y up; quaternion x, y, z, w).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PoseState {
    /// Position.
    pub position: [f32; 3],
    /// Unit quaternion x, y, z, w.
    pub rotation: [f32; 4],
}

/// Both hands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HandsState {
    /// The left hand.
    pub left: HandJoints,
    /// The right hand.
    pub right: HandJoints,
}

/// One hand: its states and every joint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HandJoints {
    /// The tracked curve is on.
    pub tracked: bool,
    /// The pinch curve is on.
    pub pinching: bool,
    /// The 27 joints in the toolkit's order.
    pub joints: Vec<NamedPose>,
}

/// One named joint's pose.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedPose {
    /// The toolkit's joint name.
    pub name: &'static str,
    /// Position.
    pub position: [f32; 3],
    /// Unit quaternion x, y, z, w.
    pub rotation: [f32; 4],
}

/// A ray.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RayState {
    /// Start point.
    pub origin: [f32; 3],
    /// Direction as recorded.
    pub direction: [f32; 3],
}

impl InputAnimationState {
    /// `r` at `at` (a frame counts at 60 Hz).
    pub fn new(r: &InputAnimation, at: At) -> Self {
        let t = match at {
            At::Time(t) => t,
            At::Frame(n) => crate::anim::clock::time_of(n, FRAME_PERIOD_S),
        };
        Self::from_state(&input_state_at(r, t))
    }

    /// The same data as an evaluated [`InputState`].
    pub(crate) fn from_state(s: &InputState) -> Self {
        let pose = |p: &Pose| PoseState {
            position: p.position,
            rotation: p.rotation,
        };
        let hand = |h: &HandState| HandJoints {
            tracked: h.tracked,
            pinching: h.pinching,
            joints: JOINT_NAMES
                .iter()
                .zip(&h.joints)
                .map(|(&name, p)| NamedPose {
                    name,
                    position: p.position,
                    rotation: p.rotation,
                })
                .collect(),
        };
        InputAnimationState {
            format: "input-animation",
            time_s: s.time_s,
            camera: s.camera.as_ref().map(pose),
            hands: s.hands.as_ref().map(|h| HandsState {
                left: hand(&h.left),
                right: hand(&h.right),
            }),
            eye_gaze: s.eye_gaze.map(|g| RayState {
                origin: g.origin,
                direction: g.direction,
            }),
        }
    }
}
