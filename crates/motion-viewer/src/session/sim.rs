//! Will it fall, in the viewer (feature `physics`): each AIBO track played
//! on the simulated dog ([`crate::physics`]), its verdict for the status
//! and the panel, its fall and the joints that could not follow as marks
//! for the timeline and the curves, and the dog as it moved, drawn beside
//! the commanded rig or over it as a ghost.
//!
//! Plain data, no clock and no thread: the window asks for a number of
//! steps a frame ([`Simulations::advance`]), so a motion simulates while the
//! user watches, on the desktop and in the page alike; the result does not
//! depend on the slicing. A track whose motion changes (an edit, a reload)
//! starts over ([`Simulations::sync`]).

use glam::Vec3;
use serde::Serialize;

use super::viewer::ViewerState;
use crate::anim::aibo::{joint_label, pose_from_mtn};
use crate::formats::mtn::Mtn;
use crate::physics::{FOLLOW_MARGIN_DEG, Simulation, Stepper, reached_motion};
use crate::scene::shapes::Primitives;
use crate::scene::units::aibo_point;
use crate::scene::{Track, rig};

/// How the simulated dog is shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SimMode {
    /// Not simulated, not shown.
    #[default]
    Off,
    /// The simulated dog stands beside the commanded rig (to its right).
    Beside,
    /// The simulated dog stands over the commanded rig, translucent.
    Ghost,
}

impl SimMode {
    /// The next mode of the toggle: off → beside → ghost → off.
    pub fn next(self) -> SimMode {
        match self {
            SimMode::Off => SimMode::Beside,
            SimMode::Beside => SimMode::Ghost,
            SimMode::Ghost => SimMode::Off,
        }
    }

    /// Its name in the status and the panel.
    pub fn name(self) -> &'static str {
        match self {
            SimMode::Off => "off",
            SimMode::Beside => "beside",
            SimMode::Ghost => "ghost",
        }
    }
}

/// The ghost's colour: translucent cyan (linear RGBA).
const GHOST: [f32; 4] = [0.35, 0.85, 1.0, 0.45];
/// Space between the commanded rig and the simulated dog beside it, metres.
const BESIDE_GAP_M: f32 = 0.05;

/// A stretch of the timeline the simulation marks: a fall (`t0 == t1`) or
/// a joint that could not follow.
#[derive(Debug, Clone, PartialEq)]
pub struct SimMark {
    /// Start, seconds of the motion.
    pub t0: f64,
    /// End, seconds.
    pub t1: f64,
    /// A fall (red) rather than a joint behind its command (orange).
    pub fall: bool,
    /// The joint's label for a joint's stretch (`left_front_j1`).
    pub joint: Option<String>,
    /// What the mark says, for the pointer.
    pub text: String,
}

/// One track's simulation.
#[derive(Debug)]
enum Job {
    Running(Box<Stepper>),
    Done(Box<Done>),
    Failed(String),
}

/// A finished simulation and what the window shows of it.
#[derive(Debug)]
struct Done {
    sim: Simulation,
    /// The motion as the dog did it, posed by the library's one sampler.
    reached: Mtn,
    marks: Vec<SimMark>,
}

#[derive(Debug)]
struct TrackSim {
    /// The motion simulated (a changed one starts over).
    motion: Mtn,
    job: Job,
}

/// Every AIBO track's simulation; see the module docs.
#[derive(Debug, Default)]
pub(crate) struct Simulations {
    mode: SimMode,
    tracks: Vec<Option<TrackSim>>,
    version: u64,
}

/// One track's simulation, for scripts and tests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimTrackStatus {
    /// The track, as an index into the tracks.
    pub track: usize,
    /// `"running"`, `"done"` or `"error"`.
    pub state: &'static str,
    /// The duration of the motion simulated, seconds (tells an edited
    /// motion's simulation from the one before).
    pub duration_s: f64,
    /// Steps taken over steps in all, 0–1.
    pub progress: f64,
    /// Whether the dog falls (done only).
    pub falls: Option<bool>,
    /// When, seconds of the motion (`null` when it stands, when its first
    /// posture does not stand, or before done).
    pub fall_time_s: Option<f64>,
    /// The largest tilt from upright, degrees (done only).
    pub peak_tilt_deg: Option<f64>,
    /// The lowest height of the body's centre, metres (done only).
    pub min_body_height_m: Option<f64>,
    /// The servos that could not follow (labels), done only.
    pub could_not_follow: Vec<String>,
    /// The verdict at a glance: `simulated: stands (peak tilt 31.6°)`,
    /// `simulated: falls at 2.31 s (tilt); 2 joints could not follow`,
    /// `simulated: its first posture does not stand (tilt; peak tilt 88°)`,
    /// `simulating… 45%`, or `cannot simulate: REASON`.
    pub text: String,
}

/// The simulations, for the status.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimStatus {
    /// How the simulated dog is shown.
    pub mode: SimMode,
    /// One per AIBO track.
    pub tracks: Vec<SimTrackStatus>,
}

impl SimStatus {
    /// The status lines, one per AIBO track (`sim off` while off):
    /// `sim TRACK MODE done duration_s S falls BOOL fall_time_s T|-
    /// peak_tilt_deg D min_body_height_m H not_following N | TEXT`,
    /// `sim TRACK MODE running duration_s S | simulating` or
    /// `sim TRACK MODE error duration_s S | TEXT`. Numbers print in full (Rust's
    /// shortest round-trip form): they read back to the very f64.
    pub fn lines(&self) -> Vec<String> {
        if self.mode == SimMode::Off {
            return vec!["sim off".into()];
        }
        self.tracks
            .iter()
            .map(|t| {
                let head = format!(
                    "sim {} {} {} duration_s {}",
                    t.track,
                    self.mode.name(),
                    t.state,
                    t.duration_s
                );
                let numbers = match (t.falls, t.peak_tilt_deg, t.min_body_height_m) {
                    (Some(falls), Some(tilt), Some(height)) => format!(
                        " falls {falls} fall_time_s {} peak_tilt_deg {tilt} min_body_height_m {height} not_following {}",
                        t.fall_time_s.map_or_else(|| "-".into(), |f| f.to_string()),
                        t.could_not_follow.len()
                    ),
                    _ => String::new(),
                };
                // The progress stays out of the line: one line per state.
                let text = match t.state {
                    "running" => "simulating",
                    _ => t.text.as_str(),
                };
                format!("{head}{numbers} | {text}")
            })
            .collect()
    }
}

impl Simulations {
    /// How the simulated dog is shown.
    pub fn mode(&self) -> SimMode {
        self.mode
    }

    /// Shows the simulated dog as `mode` says; off forgets the simulations.
    pub(crate) fn set_mode(&mut self, mode: SimMode) {
        self.mode = mode;
        if mode == SimMode::Off {
            self.tracks.clear();
        }
        self.version += 1;
    }

    /// The toggle: off → beside → ghost → off.
    pub fn cycle(&mut self) {
        self.set_mode(self.mode.next());
    }

    /// Bumped whenever a simulation starts, finishes or is dropped.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Follows the tracks (while on): an AIBO track without a simulation
    /// of its motion as it is now gets one started; a track that is gone
    /// or no longer an AIBO motion loses its own.
    pub fn sync(&mut self, state: &ViewerState) {
        if self.mode == SimMode::Off {
            return;
        }
        let entries = state.tracks();
        self.tracks.resize_with(entries.len(), || None);
        for (slot, entry) in self.tracks.iter_mut().zip(entries) {
            let Track::Mtn { motion, .. } = &entry.track else {
                *slot = None;
                continue;
            };
            if slot.as_ref().is_some_and(|s| s.motion == *motion) {
                continue;
            }
            let job = match Stepper::new(motion, &entry.name()) {
                Ok(stepper) => Job::Running(Box::new(stepper)),
                Err(e) => Job::Failed(e.to_string()),
            };
            *slot = Some(TrackSim {
                motion: motion.clone(),
                job,
            });
            self.version += 1;
        }
    }

    /// True while a simulation has steps left.
    pub fn busy(&self) -> bool {
        self.tracks
            .iter()
            .flatten()
            .any(|s| matches!(s.job, Job::Running(_)))
    }

    /// Takes up to `steps` steps of the first simulation under way,
    /// finishing it when it is done. Returns true while work is left.
    pub fn advance(&mut self, steps: usize) -> bool {
        let Some(slot) = self
            .tracks
            .iter_mut()
            .flatten()
            .find(|s| matches!(s.job, Job::Running(_)))
        else {
            return false;
        };
        if let Job::Running(stepper) = &mut slot.job
            && stepper.advance(steps)
        {
            let Job::Running(stepper) =
                std::mem::replace(&mut slot.job, Job::Failed(String::new()))
            else {
                unreachable!("matched above");
            };
            slot.job = match stepper.finish() {
                Some(sim) => Job::Done(Box::new(Done {
                    reached: reached_motion(&sim, &slot.motion),
                    marks: marks(&sim),
                    sim,
                })),
                None => Job::Failed("the simulation stopped short".into()),
            };
            self.version += 1;
        }
        self.busy()
    }

    /// Track `i`'s finished simulation, if any.
    pub fn simulation(&self, i: usize) -> Option<&Simulation> {
        match &self.tracks.get(i)?.as_ref()?.job {
            Job::Done(done) => Some(&done.sim),
            _ => None,
        }
    }

    /// Track `i`'s marks (none until its simulation is done).
    pub fn marks(&self, i: usize) -> &[SimMark] {
        match self.tracks.get(i).and_then(Option::as_ref).map(|s| &s.job) {
            Some(Job::Done(done)) => &done.marks,
            _ => &[],
        }
    }

    /// Track `i`'s reached angles per simulated servo, named as the curves
    /// name the joint's channel (`left_front_j1`): the frames' times and
    /// angles, degrees (done only; none before).
    pub fn reached(&self, i: usize) -> Vec<(String, Vec<f64>, Vec<f64>)> {
        let Some(sim) = self.simulation(i) else {
            return Vec::new();
        };
        sim.servos
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let (times, values) = sim.frames.iter().map(|f| (f.t, f.reached_deg[k])).unzip();
                (joint_label(s.joint), times, values)
            })
            .collect()
    }

    /// The status (`None` while off).
    pub fn status(&self) -> Option<SimStatus> {
        if self.mode == SimMode::Off {
            return None;
        }
        let tracks = self
            .tracks
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((i, s.as_ref()?)))
            .map(|(track, s)| track_status(track, s.motion.duration_s(), &s.job))
            .collect();
        Some(SimStatus {
            mode: self.mode,
            tracks,
        })
    }

    /// The simulated dogs at `t` seconds, placed as `state`'s plan places
    /// their tracks: beside the commanded rig or over it, at the height and
    /// attitude the simulation gave the body (a fallen dog lies down).
    pub fn primitives(&self, state: &ViewerState, t: f64) -> Primitives {
        let mut all = Primitives::default();
        if self.mode == SimMode::Off {
            return all;
        }
        let placements = &state.plan().placements;
        for (i, s) in self.tracks.iter().enumerate() {
            let (
                Some(TrackSim {
                    job: Job::Done(done),
                    ..
                }),
                Some(placement),
            ) = (s, placements.get(i))
            else {
                continue;
            };
            if !state.is_shown(i) {
                continue;
            }
            let Some(position) = body_position(&done.sim, t) else {
                continue;
            };
            let (model, pose) = pose_from_mtn(&done.reached, t);
            let mut own = Primitives::default();
            let origin = aibo_point(position.map(|m| m * 1000.0));
            rig::primitives(model, &pose, origin, &mut own);
            let shift = match self.mode {
                // To the dog's right (AIBO −y is the world's +z).
                SimMode::Beside => {
                    let depth = (placement.max.z - placement.min.z) / placement.scale.max(1e-6);
                    Vec3::Z * (depth + BESIDE_GAP_M)
                }
                _ => {
                    ghostly(&mut own);
                    Vec3::ZERO
                }
            };
            let mut placed = Primitives::default();
            placed.append_placed(own, 1.0, shift);
            all.append_placed(placed, placement.scale, placement.offset);
        }
        all
    }
}

/// Paints every primitive of `p` the ghost's colour.
fn ghostly(p: &mut Primitives) {
    p.spheres.iter_mut().for_each(|s| s.colour = GHOST);
    p.capsules.iter_mut().for_each(|c| c.colour = GHOST);
    p.boxes.iter_mut().for_each(|b| b.colour = GHOST);
}

/// The body's simulated centre at `t` (metres, AIBO axes, z up from the
/// ground), linear between the recorded frames; `None` before the first.
fn body_position(sim: &Simulation, t: f64) -> Option<[f64; 3]> {
    let frames = &sim.frames;
    let first = frames.first()?;
    let b = frames.partition_point(|f| f.t < t);
    if b == 0 {
        return Some(first.position);
    }
    let Some(fb) = frames.get(b) else {
        return frames.last().map(|f| f.position);
    };
    let fa = &frames[b - 1];
    let u = if fb.t > fa.t {
        (t - fa.t) / (fb.t - fa.t)
    } else {
        1.0
    };
    Some(std::array::from_fn(|k| {
        fa.position[k] + (fb.position[k] - fa.position[k]) * u
    }))
}

fn track_status(track: usize, duration_s: f64, job: &Job) -> SimTrackStatus {
    let empty = |state, progress, text| SimTrackStatus {
        track,
        state,
        duration_s,
        progress,
        falls: None,
        fall_time_s: None,
        peak_tilt_deg: None,
        min_body_height_m: None,
        could_not_follow: Vec::new(),
        text,
    };
    match job {
        Job::Running(stepper) => {
            let (done, total) = stepper.progress();
            let progress = done as f64 / total.max(1) as f64;
            empty(
                "running",
                progress,
                format!("simulating… {:.0}%", progress * 100.0),
            )
        }
        Job::Failed(reason) => empty("error", 0.0, format!("cannot simulate: {reason}")),
        Job::Done(done) => {
            let v = &done.sim.verdict;
            let behind: Vec<String> = v
                .joints
                .iter()
                .filter(|j| j.could_not_follow())
                .map(|j| j.label.clone())
                .collect();
            let mut text = match v.fall_time_s {
                _ if !v.first_posture_stands => format!(
                    "simulated: its first posture does not stand ({}; peak tilt {:.0}°)",
                    v.fall_cause.unwrap_or("tilt"),
                    v.peak_tilt_deg
                ),
                Some(t) => format!(
                    "simulated: falls at {t:.2} s ({}; peak tilt {:.0}°)",
                    v.fall_cause.unwrap_or("tilt"),
                    v.peak_tilt_deg
                ),
                None => format!("simulated: stands (peak tilt {:.0}°)", v.peak_tilt_deg),
            };
            match behind.len() {
                0 => {}
                1 => text += &format!("; 1 joint could not follow ({})", behind[0]),
                n => text += &format!("; {n} joints could not follow"),
            }
            SimTrackStatus {
                track,
                state: "done",
                duration_s,
                progress: 1.0,
                falls: Some(v.falls),
                fall_time_s: v.fall_time_s,
                peak_tilt_deg: Some(v.peak_tilt_deg),
                min_body_height_m: Some(v.min_body_height_m),
                could_not_follow: behind,
                text,
            }
        }
    }
}

/// The fall and, per servo, each stretch of frames where the reached angle
/// stayed more than [`FOLLOW_MARGIN_DEG`] from the commanded one.
fn marks(sim: &Simulation) -> Vec<SimMark> {
    let mut marks = Vec::new();
    let v = &sim.verdict;
    if !v.first_posture_stands {
        // It fell before the motion started: marked at its start.
        marks.push(SimMark {
            t0: 0.0,
            t1: 0.0,
            fall: true,
            joint: None,
            text: format!(
                "simulated: its first posture does not stand ({})",
                v.fall_cause.unwrap_or("tilt")
            ),
        });
    }
    if let Some(t) = v.fall_time_s {
        marks.push(SimMark {
            t0: t,
            t1: t,
            fall: true,
            joint: None,
            text: format!(
                "simulated: falls at {t:.3} s ({})",
                v.fall_cause.unwrap_or("tilt")
            ),
        });
    }
    for (k, servo) in sim.servos.iter().enumerate() {
        let mut open: Option<(f64, f64, f64)> = None;
        let close = |from: f64, to: f64, worst: f64, marks: &mut Vec<SimMark>| {
            marks.push(SimMark {
                t0: from,
                t1: to,
                fall: false,
                joint: Some(servo.label.clone()),
                text: format!(
                    "simulated: {} could not follow {from:.2}–{to:.2} s (up to {worst:.1}° behind)",
                    servo.label
                ),
            });
        };
        for f in &sim.frames {
            let error = f.commanded_deg[k] - f.reached_deg[k];
            if error.abs() > FOLLOW_MARGIN_DEG {
                let o = open.get_or_insert((f.t, f.t, 0.0));
                o.1 = f.t;
                if error.abs() > o.2.abs() {
                    o.2 = error;
                }
            } else if let Some((from, to, worst)) = open.take() {
                close(from, to, worst, &mut marks);
            }
        }
        if let Some((from, to, worst)) = open.take() {
            close(from, to, worst, &mut marks);
        }
    }
    marks.sort_by(|a, b| a.t0.total_cmp(&b.t0));
    marks
}

#[cfg(test)]
mod tests;
