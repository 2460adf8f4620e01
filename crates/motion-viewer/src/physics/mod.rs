//! Will it fall? An AIBO motion played on a physical dog (feature `physics`).
//!
//! [`simulate`] puts the motion's model (the physical dog of `docs/physics.md`, its servos [`servos`]) on the ground
//! in the first keyframe's posture, lets it settle, plays the motion's
//! commanded angles (the library's one AIBO sampler, through
//! `Drive`) through rate-limited position servos at a fixed step, holds
//! the last keyframe, and returns the [`Verdict`] with the simulated motion
//! (body pose and reached angles per frame).
//!
//! The engine is rapier (`rapier3d-f64`, reduced-coordinate multibody
//! joints, enhanced determinism): pure Rust, so the same code runs in the
//! web page, and bit-for-bit deterministic across platforms. MuJoCo runs the
//! same model from the MJCF export (`export::mjcf`) as a check.
//! Every number is in `docs/physics.md`.

mod bound;
mod output;
mod stepper;
mod verdict;
mod world;

use serde::Serialize;

use crate::anim::aibo::drive::{HOLD_S, SETTLE_S};
use crate::anim::aibo::physical::simulated_model;
use crate::anim::clock;
use crate::error::{Error, Result};
use crate::formats::aibo::Model;
use crate::formats::mtn::Mtn;
use crate::workbench::check::{Finding, FindingKind, Severity};

pub use crate::anim::aibo::physical::STEP_S;
pub use bound::{DEFAULT_MAX_DURATION_S, MAX_DURATION_CEILING_S, Watch, check_length, total_steps};
pub use output::{reached_motion, write_csv};
pub(crate) use stepper::Stepper;
pub use verdict::{FALL_TILT_DEG, FOLLOW_MARGIN_DEG, JointFollow, PartContact, PawSlip, Verdict};

/// One recorded frame of the simulated motion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimFrame {
    /// Seconds of the motion.
    pub t: f64,
    /// The body's centre, metres (x forward at the start, z up from the ground).
    pub position: [f64; 3],
    /// The body's attitude, unit quaternion `[x, y, z, w]`.
    pub attitude: [f64; 4],
    /// The body's tilt from upright, degrees.
    pub tilt_deg: f64,
    /// Each simulated servo's reached angle, degrees ([`Simulation::servos`] order).
    pub reached_deg: Vec<f64>,
    /// Each simulated servo's commanded angle, degrees.
    pub commanded_deg: Vec<f64>,
}

/// A simulated servo, as the frames list them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimServo {
    /// Its role.
    #[serde(skip)]
    pub joint: crate::formats::aibo::Joint,
    /// The model's PRM name for it.
    pub name: &'static str,
    /// Its short label.
    pub label: String,
}

/// A simulated motion: the verdict and the motion as the dog did it.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// The verdict.
    pub verdict: Verdict,
    /// The servos the frames list.
    pub servos: Vec<SimServo>,
    /// One frame per frame period of the motion, from its start to the end
    /// of the hold after it.
    pub frames: Vec<SimFrame>,
}

/// The number of fixed steps of each phase of a motion of `duration_s`:
/// settling, playing, holding (docs/physics.md §3; the MuJoCo driver counts
/// the same way).
pub(crate) fn step_counts(duration_s: f64) -> (usize, usize, usize) {
    let steps = |s: f64| clock::nearest_frame(s, STEP_S) as usize;
    let play = clock::frames_to_reach(duration_s, STEP_S) as usize;
    (steps(SETTLE_S), play, steps(HOLD_S))
}

/// The servos a model's simulated dog drives, in the order the frames
/// (and the MJCF export's actuators) list them.
pub fn servos(model: Model) -> Vec<SimServo> {
    servos_of(&simulated_model(model))
}

/// The servos of a physical model, in its order.
fn servos_of(physical: &crate::anim::aibo::physical::PhysicalModel) -> Vec<SimServo> {
    physical
        .servos()
        .map(|(i, s)| SimServo {
            joint: s.joint,
            name: s.name,
            label: physical.links[i].name.clone(),
        })
        .collect()
}

/// Refuses what cannot be simulated, in one line: a motion of no known
/// model, one that never moves (shorter than one frame), one that drives a
/// servo past its mechanical stop (`check`'s limit errors: the stops' rule
/// of `anim::aibo::stops`). Past a limit but within the stop is played, and
/// said in the verdict's warnings (`limit_warnings`).
pub fn check_simulable(mtn: &Mtn, name: &str) -> Result<Model> {
    let fail = |reason: String| Error::unsupported(name, reason);
    let model = mtn.model().ok_or_else(|| {
        fail(format!(
            "unknown design label {:?}: no physical model to simulate it on (ERS-110, ERS-210, \
             ERS-220, ERS-310 and ERS-7 are known)",
            mtn.design
        ))
    })?;
    if mtn.duration_s() <= 0.0 {
        return Err(fail(format!(
            "zero-length motion ({} keyframe(s), 0 s): nothing to play",
            mtn.keyframes.len()
        )));
    }
    if let Some(f) = limit_findings(mtn).find(|f| f.severity == Severity::Error) {
        return Err(fail(format!(
            "{}: a servo cannot be driven past its stop",
            at_keyframe(&f)
        )));
    }
    Ok(model)
}

/// `check`'s warnings for angles past a joint's limit but within its
/// mechanical stop, as the verdict lists them: the simulated servo stops at
/// the limit (the physical dog's joint range, docs/physics.md).
pub(crate) fn limit_warnings(mtn: &Mtn) -> Vec<String> {
    limit_findings(mtn)
        .filter(|f| f.severity == Severity::Warning)
        .map(|f| format!("{}; simulated at the limit", at_keyframe(&f)))
        .collect()
}

/// `check`'s findings on joint limits.
fn limit_findings(mtn: &Mtn) -> impl Iterator<Item = Finding> {
    crate::workbench::check(mtn)
        .findings
        .into_iter()
        .filter(|f| f.kind == FindingKind::Limit)
}

/// A finding's sentence after its keyframe: `keyframe 3: left_front_j3 is …`.
fn at_keyframe(f: &Finding) -> String {
    match f.keyframe {
        Some(k) => format!("keyframe {k}: {}", f.message),
        None => f.message.clone(),
    }
}

/// Simulates `mtn` (named `name` in the verdict and in errors); a motion
/// longer than [`DEFAULT_MAX_DURATION_S`] is refused ([`check_length`]).
pub fn simulate(mtn: &Mtn, name: &str) -> Result<Simulation> {
    let sim = simulate_with(mtn, name, DEFAULT_MAX_DURATION_S, Watch::default())?;
    Ok(sim.expect("a run without a cancel flag is never cancelled"))
}

/// Simulates `mtn` as [`simulate`] does, refusing a motion longer than
/// `max_duration_s` (at most [`MAX_DURATION_CEILING_S`]) before any step,
/// and telling `watch` of the steps taken; `None` when `watch` cancelled
/// the run.
pub fn simulate_with(
    mtn: &Mtn,
    name: &str,
    max_duration_s: f64,
    watch: Watch<'_>,
) -> Result<Option<Simulation>> {
    // The cheap bound first: the check below looks at every keyframe.
    check_length(mtn, name, max_duration_s)?;
    let model = check_simulable(mtn, name)?;
    Ok(stepper::run(mtn, name, simulated_model(model), watch))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> Mtn {
        crate::formats::mtn::decode(include_bytes!("../../../../data/sony_stand_sit.mtn")).unwrap()
    }

    #[test]
    fn the_seed_stand_sit_stands_and_ends_sitting_back() {
        let sim = simulate(&seed(), "seed").unwrap();
        let v = &sim.verdict;
        assert!(!v.falls && v.fall_time_s.is_none());
        // Sony's file pitches the body back to 32° at the end: the dog sits
        // (the body leaning back about that much), well short of a fall.
        let last = sim.frames.last().unwrap();
        assert!((25.0..50.0).contains(&last.tilt_deg), "{}", last.tilt_deg);
        assert!(v.peak_tilt_deg < FALL_TILT_DEG);
        // Every servo followed within the margin on this gentle motion.
        assert!(
            v.joints.iter().all(|j| !j.could_not_follow()),
            "{:?}",
            v.joints
        );
        // Settling, 305 frames of 16 ms, the hold: 0.5 + 4.88 + 1.0 s.
        assert!((v.simulated_s - 6.38).abs() < 1e-6, "{}", v.simulated_s);
        assert_eq!(
            sim.frames.len(),
            ((4.88 + 1.0) / 0.016_f64).floor() as usize + 1
        );
    }

    #[test]
    fn the_same_motion_gives_the_same_result_bit_for_bit() {
        let a = simulate(&seed(), "seed").unwrap();
        let b = simulate(&seed(), "seed").unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn each_joints_largest_difference_is_the_motions_and_the_holds_is_apart() {
        let sim = simulate(&seed(), "seed").unwrap();
        let v = &sim.verdict;
        // After Sony's sit the hind rotators still move in the hold: over
        // the whole run their largest difference falls there, past 4.88 s.
        let k = sim
            .servos
            .iter()
            .position(|s| s.label == "left_hind_j1")
            .unwrap();
        let j = &v.joints[k];
        assert!(j.hold_at_s > v.duration_s, "{j:?}");
        assert!(j.hold_max_error_deg.abs() > j.max_error_deg.abs(), "{j:?}");
        assert!(j.at_s <= v.duration_s, "{j:?}");
        // Every servo: no recorded frame of the motion (or of the hold) is
        // further behind than the figure for the motion (or the hold).
        for (k, j) in v.joints.iter().enumerate() {
            for f in &sim.frames {
                let behind = (f.commanded_deg[k] - f.reached_deg[k]).abs();
                let most = if f.t <= v.duration_s {
                    j.max_error_deg
                } else {
                    j.hold_max_error_deg
                };
                assert!(
                    behind <= most.abs() + 1e-9,
                    "{} at {}: {behind}",
                    j.label,
                    f.t
                );
            }
        }
    }

    /// The seed with every servo of keyframe 3 that has a limit at
    /// `past_deg` beyond its upper limit.
    fn past_every_upper_limit(past_deg: f64) -> Mtn {
        let mut m = seed();
        let rig = crate::anim::aibo::rig_model(m.model().unwrap());
        let roles = m.joint_roles();
        for (urad, role) in m.keyframes[3].joints.iter_mut().zip(roles) {
            if let Some(limit) = role.and_then(|j| rig.limit(j)) {
                let deg = limit.max_deg + past_deg;
                *urad = (deg * 1e6 * std::f64::consts::PI / 180.0).round() as i32;
            }
        }
        m
    }

    #[test]
    fn three_degrees_past_every_limit_is_played_with_checks_warnings() {
        let m = past_every_upper_limit(3.0);
        let report = crate::workbench::check(&m);
        let limits: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::Limit)
            .collect();
        // The seed's 20 ERS-210 joints but its two ears (which have no
        // limit): a warning each.
        assert_eq!(limits.len(), 18);
        assert!(limits.iter().all(|f| f.severity == Severity::Warning));
        let sim = simulate(&m, "past").unwrap();
        let want: Vec<String> = limits
            .iter()
            .map(|f| format!("keyframe 3: {}; simulated at the limit", f.message))
            .collect();
        assert_eq!(sim.verdict.warnings, want);
        assert!(
            want[0].contains("3.00° past its limit")
                && want[0].contains("within its mechanical stop"),
            "{}",
            want[0]
        );
        // The seed itself has none.
        assert!(
            simulate(&seed(), "seed")
                .unwrap()
                .verdict
                .warnings
                .is_empty()
        );
    }

    #[test]
    fn five_degrees_past_every_limit_is_refused_in_checks_words() {
        let m = past_every_upper_limit(5.0);
        let report = crate::workbench::check(&m);
        let first = report
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::Limit)
            .unwrap();
        assert_eq!(first.severity, Severity::Error);
        let e = check_simulable(&m, "past").unwrap_err().to_string();
        assert!(e.contains(&format!("keyframe 3: {}", first.message)), "{e}");
        assert!(
            e.contains("5.00° past its limit") && e.contains("and past its mechanical stop"),
            "{e}"
        );
        assert!(simulate(&m, "past").is_err());
    }

    #[test]
    fn step_counts_cover_the_motion_to_the_step() {
        // 2 ms steps: 0.5 s of settling, 1 s of hold; a motion's last
        // partial step is played whole.
        assert_eq!(step_counts(4.88), (250, 2440, 500));
        assert_eq!(step_counts(0.0161), (250, 9, 500));
    }
}
