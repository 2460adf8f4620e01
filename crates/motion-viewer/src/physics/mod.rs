//! Will it fall? An AIBO motion played on a physical dog (feature `physics`).
//!
//! [`simulate`] puts the motion's model ([`physical_model`]) on the ground
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

mod output;
mod verdict;
mod world;

use glam::{DQuat, DVec3};
use serde::Serialize;

use crate::anim::aibo::drive::{Drive, HOLD_S, SETTLE_S, Targets};
use crate::anim::aibo::physical::{
    Part, PhysicalModel, STEP_S, physical_model, start_pose, tilt_deg,
};
use crate::error::{Error, Result};
use crate::formats::aibo::Model;
use crate::formats::mtn::Mtn;
use crate::workbench::check::{FindingKind, Severity};

pub use output::{body_rpy_deg, reached_motion, write_csv};
pub use verdict::{
    EXPECTED_CLEARANCE_M, FALL_TILT_DEG, FLOOR_FALL_S, FOLLOW_MARGIN_DEG, JointFollow, PartContact,
    PawSlip, Verdict,
};

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
pub fn step_counts(duration_s: f64) -> (usize, usize, usize) {
    let steps = |s: f64| (s / STEP_S).round() as usize;
    let play = (duration_s / STEP_S - 1e-9).ceil().max(0.0) as usize;
    (steps(SETTLE_S), play, steps(HOLD_S))
}

/// Refuses what cannot be simulated, in one line: a motion of no known
/// model, one that never moves (shorter than one frame), one that drives a
/// servo past its stop (the workbench check's limit errors).
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
    let report = crate::workbench::check(mtn);
    if let Some(f) = report
        .findings
        .iter()
        .find(|f| f.severity == Severity::Error && f.kind == FindingKind::Limit)
    {
        let at = f
            .keyframe
            .map_or_else(String::new, |k| format!("keyframe {k}: "));
        return Err(fail(format!(
            "{at}{}; a servo cannot be driven past its stop",
            f.message
        )));
    }
    Ok(model)
}

/// Simulates `mtn` (named `name` in the verdict and in errors).
pub fn simulate(mtn: &Mtn, name: &str) -> Result<Simulation> {
    let model = check_simulable(mtn, name)?;
    let physical = physical_model(model);
    Ok(run(mtn, name, &physical))
}

/// The paws' lower-leg links and ball centres, in [`verdict::PAW_NAMES`] order.
fn paw_links(physical: &PhysicalModel) -> Vec<(usize, DVec3)> {
    verdict::PAW_NAMES
        .iter()
        .filter_map(|paw| {
            physical.links.iter().enumerate().find_map(|(i, l)| {
                if !l.name.starts_with(paw) {
                    return None;
                }
                l.colliders.iter().find_map(|c| match (c.part, c.geom) {
                    (Part::Paw, crate::anim::aibo::physical::Geom::Sphere { centre, .. }) => {
                        Some((i, DVec3::from_array(centre)))
                    }
                    _ => None,
                })
            })
        })
        .collect()
}

fn run(mtn: &Mtn, name: &str, physical: &PhysicalModel) -> Simulation {
    let drive = Drive::new(mtn, physical);
    let (first, _) = drive.commanded(0.0);
    let (position, attitude) = start_pose(physical, &first);
    let attitude = DQuat::from_xyzw(attitude[1], attitude[2], attitude[3], attitude[0]);
    let mut world = world::World::new(physical, DVec3::from_array(position), attitude, &first);
    let mut targets = Targets::new(physical, first);
    let servos: Vec<SimServo> = physical
        .servos()
        .map(|(i, s)| SimServo {
            joint: s.joint,
            name: s.name,
            label: physical.links[i].name.clone(),
        })
        .collect();
    let duration = drive.duration_s();
    let mut tally = verdict::Tally::new(
        name.to_string(),
        physical.model,
        duration,
        servos.iter().map(|s| (s.name, s.label.clone())).collect(),
    );
    let paws = paw_links(physical);
    let link_names: Vec<String> = physical.links.iter().map(|l| l.name.clone()).collect();
    let (settle, play, hold) = step_counts(duration);
    let frame_steps = ((f64::from(mtn.frame_ms()) / 1000.0 / STEP_S).round() as usize).max(1);
    let mut frames = Vec::new();
    for k in 0..settle + play + hold {
        let t = (k + 1) as f64 * STEP_S - SETTLE_S;
        let (commanded, _) = drive.commanded(t);
        targets.step(&commanded);
        world.step(&targets.angles);
        let links = world.link_frames();
        let reached = world.angles(&links);
        let (body_o, body_q) = links[0];
        let paw_states: Vec<(DVec3, DQuat, DVec3)> = paws
            .iter()
            .map(|&(i, centre)| (links[i].0, links[i].1, centre))
            .collect();
        let lowest: Vec<Option<f64>> = physical
            .links
            .iter()
            .zip(&links)
            .map(|(l, &(o, q))| {
                l.colliders
                    .iter()
                    .filter(|c| c.part != Part::Paw)
                    .map(|c| c.geom.lowest_z(o, q))
                    .reduce(f64::min)
            })
            .collect();
        let trunk_lowest_z = physical
            .links
            .iter()
            .zip(&links)
            .flat_map(|(l, &(o, q))| {
                l.colliders
                    .iter()
                    .filter(|c| matches!(c.part, Part::Body | Part::Head))
                    .map(move |c| c.geom.lowest_z(o, q))
            })
            .fold(f64::INFINITY, f64::min);
        tally.add(
            &verdict::StepState {
                t,
                dt: STEP_S,
                body_position: body_o,
                body_attitude: body_q,
                paws: &paw_states,
                link_lowest_z: &lowest,
                trunk_lowest_z,
                expected_clearance_m: drive.clearance(t),
                commanded: &commanded,
                reached: &reached,
            },
            &link_names,
        );
        if k + 1 >= settle && (k + 1 - settle) % frame_steps == 0 {
            frames.push(SimFrame {
                t,
                position: body_o.to_array(),
                attitude: body_q.to_array(),
                tilt_deg: tilt_deg(body_q),
                reached_deg: reached.iter().map(|a| a.to_degrees()).collect(),
                commanded_deg: commanded.iter().map(|a| a.to_degrees()).collect(),
            });
        }
    }
    Simulation {
        verdict: tally.finish(),
        servos,
        frames,
    }
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
    fn step_counts_cover_the_motion_to_the_step() {
        // 2 ms steps: 0.5 s of settling, 1 s of hold; a motion's last
        // partial step is played whole.
        assert_eq!(step_counts(4.88), (250, 2440, 500));
        assert_eq!(step_counts(0.0161), (250, 9, 500));
    }
}
