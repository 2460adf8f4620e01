//! Checking a motion against what the robot can do and what its software expects.
//!
//! - **Joint limits**, per keyframe, from the kinematic models
//!   ([`crate::anim::aibo::rig_model`]; [`limits_provenance`] says where each
//!   model's come from and which are estimates). Past a limit but within
//!   the servo's mechanical stop 3° beyond it is a warning, past the stop an
//!   error (the one rule of `anim::aibo::stops`, which `simulate`, the
//!   editor and the sampler apply too).
//! - **Joint speeds**, per segment between keyframes, against the servo speeds
//!   of [`max_speed_rad_s`] at the motion's frame period. A servo asked to go
//!   faster lags behind: a warning. (Sony's own walking gaits swing the knees
//!   up to 15 times faster than these figures; its other motions stay within
//!   1.4 times.)
//! - **The name**, against the `g_start#end_description` rules the robot
//!   parses (Dogsbody's page): the servo group letter against the design
//!   label, known posture words, an alphanumeric description.
//! - **Start and end postures**: the legs of the first and last keyframes
//!   against the standard pose their posture word names ([`standard_pose`]).
//! - **Structure**: an unknown model or joint, fewer than two keyframes, more
//!   than 250 s (Skitter's limits), a frame period other than 16 ms, and
//!   what the decoder had to recover from.

use crate::anim::aibo::{Reach, joint_label, rig_model};
use crate::formats::aibo::{
    Joint, Leg, LegJoint, Model, POSE_TOLERANCE_DEG, POSTURES, Provenance, max_speed_rad_s,
    speed_provenance, standard_pose,
};
use crate::formats::mtn::{Mtn, Scope, ServoGroup, URAD_TO_DEG};
use serde::Serialize;

pub(crate) use crate::anim::aibo::RESOLUTION_DEG;

/// The longest motion the robot plays, in seconds (Skitter: "up to 250
/// seconds of custom motion").
pub const MAX_DURATION_S: f64 = 250.0;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The robot plays it, but not quite as written (or a tool may trip on it).
    Warning,
    /// The robot cannot play it as written.
    Error,
}

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A joint angle past its limit.
    Limit,
    /// A joint turning faster than its servo can.
    Speed,
    /// The motion name.
    Name,
    /// The first or last keyframe against its standard posture.
    Posture,
    /// The file as a whole: model, joints, keyframes, timing.
    Structure,
}

/// One thing found wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// What it is about.
    pub kind: FindingKind,
    /// The keyframe concerned (for a speed, the keyframe ending the segment).
    pub keyframe: Option<usize>,
    /// That keyframe's time in seconds, for marking it on a timeline.
    pub time_s: Option<f64>,
    /// The joint concerned, by its short label (`left_front_j3`).
    pub joint: Option<String>,
    /// What is wrong, in one sentence.
    pub message: String,
}

/// Everything [`check`] found in one motion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The motion name.
    pub name: String,
    /// The robot model, if the design label names one.
    pub model: Option<Model>,
    /// Keyframes in the motion.
    pub keyframes: usize,
    /// Its duration in seconds.
    pub duration_s: f64,
    /// Where the joint limits used come from.
    pub limits: Option<Provenance>,
    /// Where the servo speeds used come from.
    pub speeds: Option<Provenance>,
    /// Findings with [`Severity::Error`].
    pub errors: usize,
    /// Findings with [`Severity::Warning`].
    pub warnings: usize,
    /// Every finding, in keyframe order within each kind.
    pub findings: Vec<Finding>,
}

impl Report {
    /// True when nothing was found.
    pub fn is_clean(&self) -> bool {
        self.findings.is_empty()
    }
}

/// Where a model's joint limits come from, and whether they are estimates.
pub fn limits_provenance(model: Model) -> Provenance {
    match model {
        Model::Ers7 => Provenance {
            source: "Tekkotsu's ERS7Info.h outputRanges (docs/formats.md §1)",
            estimated: false,
        },
        Model::Ers210 => Provenance {
            source: "Tekkotsu's ERS210Info.h outputRanges (docs/formats.md §1)",
            estimated: false,
        },
        Model::Ers220 => Provenance {
            source: "the ERS-210's; Tekkotsu's ERS220Info.h agrees for the legs, pan and roll \
                     but lets the head tilt down to -88.5° where -82° is used",
            estimated: true,
        },
        Model::Ers110 => Provenance {
            source: "estimated: the ranges Sony's own 551 ERS-110 motions use, rounded outward",
            estimated: true,
        },
        Model::Ers310 => Provenance {
            source: "estimated: the ERS-210's legs, plausible head ranges (none published)",
            estimated: true,
        },
    }
}

/// Collects findings with the motion's keyframe times at hand.
struct Findings<'a> {
    times: Vec<f64>,
    list: Vec<Finding>,
    motion: &'a Mtn,
}

impl Findings<'_> {
    fn add(
        &mut self,
        severity: Severity,
        kind: FindingKind,
        keyframe: Option<usize>,
        joint: Option<Joint>,
        message: String,
    ) {
        self.list.push(Finding {
            severity,
            kind,
            keyframe,
            time_s: keyframe.and_then(|k| self.times.get(k).copied()),
            joint: joint.map(joint_label),
            message,
        });
    }
}

/// Checks one motion (see the module docs for what is checked).
pub fn check(m: &Mtn) -> Report {
    let mut f = Findings {
        times: m.keyframe_times_s(),
        list: Vec::new(),
        motion: m,
    };
    let model = m.model();
    structure(&mut f, model);
    if let Some(model) = model {
        let roles = m.joint_roles();
        limits(&mut f, model, &roles);
        speeds(&mut f, model, &roles);
        name(&mut f, model);
        postures(&mut f, model, &roles);
    }
    let count = |s| f.list.iter().filter(|x| x.severity == s).count();
    Report {
        name: m.name.clone(),
        model,
        keyframes: m.keyframes.len(),
        duration_s: m.duration_s(),
        limits: model.map(limits_provenance),
        speeds: model.map(speed_provenance),
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        findings: f.list,
    }
}

fn structure(f: &mut Findings, model: Option<Model>) {
    let m = f.motion;
    let Some(model) = model else {
        f.add(
            Severity::Error,
            FindingKind::Structure,
            None,
            None,
            format!(
                "design label {:?} names no AIBO model (DRX-700, -910, -900, -801, -1000)",
                m.design
            ),
        );
        return;
    };
    let roles = m.joint_roles();
    for (i, role) in roles.iter().enumerate() {
        let message = match role {
            None => format!("joint {i} ({:?}) is not an {model} joint", m.joints[i]),
            Some(r) if roles[..i].contains(role) => {
                format!(
                    "joint {i} ({:?}) drives {} a second time",
                    m.joints[i],
                    joint_label(*r)
                )
            }
            Some(_) => continue,
        };
        f.add(Severity::Error, FindingKind::Structure, None, None, message);
    }
    let warn = |f: &mut Findings, message: String| {
        f.add(
            Severity::Warning,
            FindingKind::Structure,
            None,
            None,
            message,
        );
    };
    if m.keyframes.len() < 2 {
        warn(
            f,
            format!(
                "{} keyframe(s): a motion needs at least a first and a last",
                m.keyframes.len()
            ),
        );
    }
    if m.duration_s() > MAX_DURATION_S {
        warn(
            f,
            format!(
                "{:.1} s long: the robot plays at most {MAX_DURATION_S} s",
                m.duration_s()
            ),
        );
    }
    if !m.is_ers110() && m.frame_ms() != 16 {
        warn(
            f,
            format!("{} ms frames: every Sony motion uses 16 ms", m.frame_ms()),
        );
    }
    for w in &m.warnings {
        warn(f, format!("the file needed a repair to read: {w}"));
    }
}

fn limits(f: &mut Findings, model: Model, roles: &[Option<Joint>]) {
    let rig = rig_model(model);
    for (k, keyframe) in f.motion.keyframes.iter().enumerate() {
        for (&urad, role) in keyframe.joints.iter().zip(roles) {
            let Some(limit) = role.and_then(|j| rig.limit(j)) else {
                continue;
            };
            let deg = f64::from(urad) * URAD_TO_DEG;
            let Some((reach, message)) = limit.past(&joint_label(limit.joint), deg) else {
                continue;
            };
            let severity = match reach {
                Reach::PastStop { .. } => Severity::Error,
                _ => Severity::Warning,
            };
            f.add(
                severity,
                FindingKind::Limit,
                Some(k),
                Some(limit.joint),
                message,
            );
        }
    }
}

fn speeds(f: &mut Findings, model: Model, roles: &[Option<Joint>]) {
    let m = f.motion;
    let frame_s = m.frame_s(1);
    for (k, pair) in m.keyframes.windows(2).enumerate() {
        let frames = f64::from(pair[1].interp) + 1.0;
        for (j, role) in roles.iter().enumerate() {
            let Some(joint) = *role else { continue };
            let Some(rad_s) = max_speed_rad_s(model, joint) else {
                continue;
            };
            let (a, b) = (pair[0].joints.get(j), pair[1].joints.get(j));
            let (Some(&a), Some(&b)) = (a, b) else {
                continue;
            };
            let turn = (f64::from(b) - f64::from(a)).abs() * URAD_TO_DEG;
            let per_frame = turn / frames;
            let rated = rad_s.to_degrees() * frame_s;
            if per_frame > rated * (1.0 + 1e-9) {
                let message = format!(
                    "{} turns {turn:.1}° in {frames} frame(s) between keyframes {k} and {}: \
                     {per_frame:.2}°/frame, {:.1}× the {rated:.2}°/frame its servo is rated for",
                    joint_label(joint),
                    k + 1,
                    per_frame / rated
                );
                f.add(
                    Severity::Warning,
                    FindingKind::Speed,
                    Some(k + 1),
                    Some(joint),
                    message,
                );
            }
        }
    }
}

/// The design scope a servo group letter promises.
fn scope_of(group: ServoGroup) -> Scope {
    match group {
        ServoGroup::All => Scope::Full,
        ServoGroup::Head => Scope::Head,
        ServoGroup::Legs => Scope::Legs,
        ServoGroup::Mouth => Scope::Mouth,
        ServoGroup::Ears => Scope::Ears,
        ServoGroup::Tail => Scope::Tail,
    }
}

fn name(f: &mut Findings, model: Model) {
    let m = f.motion;
    let Some(parsed) = m.motion_name() else {
        // Sony's ERS-110 motions are named otherwise (`cd#14`, `sitt001`).
        let severity = if model == Model::Ers110 {
            Severity::Warning
        } else {
            Severity::Error
        };
        let message = format!(
            "name {:?} is not g_start#end_description (g one of a, h, l, m, e, t): the robot \
             reads the postures from it",
            m.name
        );
        f.add(severity, FindingKind::Name, None, None, message);
        return;
    };
    let mut add = |severity, message| f.add(severity, FindingKind::Name, None, None, message);
    if let Some(scope) = m.scope()
        && scope != scope_of(parsed.group)
    {
        add(
            Severity::Error,
            format!(
                "name starts with {:?} ({} servos) but the design label {:?} drives {}",
                &m.name[..1],
                parsed.group.name(),
                m.design,
                match scope {
                    Scope::Full => "the whole body".to_string(),
                    other => format!("{other:?} only").to_lowercase(),
                }
            ),
        );
    }
    for word in [&parsed.start, &parsed.end] {
        if !POSTURES.contains(&word.as_str()) {
            add(
                Severity::Warning,
                format!(
                    "posture {word:?} is not one AIBO knows ({})",
                    POSTURES.join(", ")
                ),
            );
        }
    }
    if !parsed
        .description
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        add(
            Severity::Warning,
            format!(
                "description {:?} has characters other than letters, digits and _",
                parsed.description
            ),
        );
    }
    if model == Model::Ers7 && parsed.start != parsed.end {
        add(
            Severity::Warning,
            format!(
                "starts in {:?} and ends in {:?}: the ERS-7 may play a motion that changes \
                 posture as its own transition between them (Skitter: start and end alike)",
                parsed.start, parsed.end
            ),
        );
    }
}

fn postures(f: &mut Findings, model: Model, roles: &[Option<Joint>]) {
    let m = f.motion;
    let Some(parsed) = m.motion_name() else {
        return;
    };
    let servos = [LegJoint::Rotator, LegJoint::Elevator, LegJoint::Knee];
    // The index of each leg joint in the motion, in standard_pose order.
    let Some(index) = Leg::ALL
        .iter()
        .flat_map(|&leg| servos.map(|s| Joint::Leg(leg, s)))
        .map(|joint| {
            roles
                .iter()
                .position(|r| *r == Some(joint))
                .map(|i| (joint, i))
        })
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let last = m.keyframes.len().saturating_sub(1);
    for (which, word, k) in [("starts", &parsed.start, 0), ("ends", &parsed.end, last)] {
        let (Some(pose), Some(keyframe)) = (standard_pose(model, word), m.keyframes.get(k)) else {
            continue;
        };
        let expected = pose.iter().flatten();
        let worst = index
            .iter()
            .zip(expected)
            .map(|(&(joint, i), &want)| {
                let deg = f64::from(keyframe.joints.get(i).copied().unwrap_or(0)) * URAD_TO_DEG;
                (joint, deg, want, (deg - want).abs())
            })
            .max_by(|a, b| a.3.total_cmp(&b.3));
        if let Some((joint, deg, want, off)) = worst
            && off > POSE_TOLERANCE_DEG
        {
            let message = format!(
                "{which} {off:.1}° from the standard {model} {word} pose ({} is {deg:.1}°, \
                 the pose has {want}°)",
                joint_label(joint)
            );
            f.add(
                Severity::Warning,
                FindingKind::Posture,
                Some(k),
                Some(joint),
                message,
            );
        }
    }
}
