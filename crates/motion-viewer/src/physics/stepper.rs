//! A simulation run a slice at a time: [`Stepper`] holds the world between
//! calls, so a window can play a few hundred steps a frame and stay
//! responsive (the page has no threads) while [`super::simulate`] runs the
//! same steps in one go. The result does not depend on the slicing.

use std::sync::Arc;

use glam::{DQuat, DVec3};

use super::bound::{WATCH_STEPS, Watch};
use super::verdict::{self, Tally};
use super::world::World;
use super::{
    DEFAULT_MAX_DURATION_S, SimFrame, SimServo, Simulation, check_length, check_simulable,
    step_counts,
};
use crate::anim::aibo::drive::{Drive, SETTLE_S, Targets};
use crate::anim::aibo::physical::{
    Geom, Part, PhysicalModel, STEP_S, simulated_model, start_pose, tilt_deg,
};
use crate::anim::clock;
use crate::error::Result;
use crate::formats::mtn::Mtn;

/// A simulation under way; see the module docs.
pub(crate) struct Stepper {
    /// Shared so that a slice's [`Drive`] may borrow it while the world steps.
    motion: Arc<Mtn>,
    physical: PhysicalModel,
    world: World,
    targets: Targets,
    servos: Vec<SimServo>,
    tally: Tally,
    paws: Vec<(usize, DVec3)>,
    link_names: Vec<String>,
    frame_steps: usize,
    settle: usize,
    total: usize,
    done: usize,
    frames: Vec<SimFrame>,
}

impl std::fmt::Debug for Stepper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stepper")
            .field("model", &self.physical.model)
            .field("done", &self.done)
            .field("total", &self.total)
            .finish_non_exhaustive()
    }
}

impl Stepper {
    /// The dog of `mtn`'s model settled in its first keyframe's posture,
    /// no step taken yet; refuses what [`check_simulable`] refuses and a
    /// motion longer than [`DEFAULT_MAX_DURATION_S`] ([`check_length`]).
    pub fn new(mtn: &Mtn, name: &str) -> Result<Stepper> {
        check_length(mtn, name, DEFAULT_MAX_DURATION_S)?;
        let model = check_simulable(mtn, name)?;
        Ok(Stepper::with_model(mtn, name, simulated_model(model)))
    }

    fn with_model(mtn: &Mtn, name: &str, physical: PhysicalModel) -> Stepper {
        let drive = Drive::new(mtn, &physical);
        let (first, _) = drive.commanded(0.0);
        let (position, attitude) = start_pose(&physical, &first);
        let attitude = DQuat::from_xyzw(attitude[1], attitude[2], attitude[3], attitude[0]);
        let world = World::new(&physical, DVec3::from_array(position), attitude, &first);
        let targets = Targets::new(&physical, first);
        let servos = super::servos_of(&physical);
        let duration = drive.duration_s();
        let tally = Tally::new(
            name.to_string(),
            physical.model,
            duration,
            servos.iter().map(|s| (s.name, s.label.clone())).collect(),
            super::limit_warnings(mtn),
        );
        let (settle, play, hold) = step_counts(duration);
        Stepper {
            paws: paw_links(&physical),
            link_names: physical.links.iter().map(|l| l.name.clone()).collect(),
            frame_steps: (clock::nearest_frame(mtn.frame_s(1), STEP_S) as usize).max(1),
            motion: Arc::new(mtn.clone()),
            physical,
            world,
            targets,
            servos,
            tally,
            settle,
            total: settle + play + hold,
            done: 0,
            frames: Vec::new(),
        }
    }

    /// Steps taken and steps in all (settling, the motion, the hold).
    pub fn progress(&self) -> (usize, usize) {
        (self.done, self.total)
    }

    /// True once every step is taken.
    pub(crate) fn is_done(&self) -> bool {
        self.done >= self.total
    }

    /// Takes up to `steps` more steps; returns true once every step is taken.
    pub(crate) fn advance(&mut self, steps: usize) -> bool {
        let motion = Arc::clone(&self.motion);
        let drive = Drive::new(&motion, &self.physical);
        self.advance_with(&drive, steps)
    }

    /// [`Stepper::advance`] with the motion's [`Drive`] made once by the
    /// caller (making it looks at every keyframe).
    fn advance_with(&mut self, drive: &Drive, steps: usize) -> bool {
        let end = self.done.saturating_add(steps).min(self.total);
        for k in self.done..end {
            self.step(drive, k);
        }
        self.done = end;
        self.is_done()
    }

    /// The simulation, once done (`None` before).
    pub fn finish(self) -> Option<Simulation> {
        self.is_done().then(|| Simulation {
            verdict: self.tally.finish(),
            servos: self.servos,
            frames: self.frames,
        })
    }

    /// Step `k` (0-based over settling, the motion and the hold).
    fn step(&mut self, drive: &Drive, k: usize) {
        let physical = &self.physical;
        let t = clock::time_of(k as u64 + 1, STEP_S) - SETTLE_S;
        let (commanded, _) = drive.commanded(t);
        self.targets.step(&commanded);
        self.world.step(&self.targets.angles);
        let links = self.world.link_frames();
        let reached = self.world.angles(&links);
        let (body_o, body_q) = links[0];
        let paw_states: Vec<(DVec3, DQuat, DVec3)> = self
            .paws
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
        self.tally.add(
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
            &self.link_names,
        );
        if k + 1 >= self.settle && (k + 1 - self.settle).is_multiple_of(self.frame_steps) {
            self.frames.push(SimFrame {
                t,
                position: body_o.to_array(),
                attitude: body_q.to_array(),
                tilt_deg: tilt_deg(body_q),
                reached_deg: reached.iter().map(|a| a.to_degrees()).collect(),
                commanded_deg: commanded.iter().map(|a| a.to_degrees()).collect(),
            });
        }
    }
}

/// Runs `mtn` on `physical` to the end in one go, [`WATCH_STEPS`] at a
/// time: `watch` hears of each slice and may stop the run (`None`).
pub(super) fn run(
    mtn: &Mtn,
    name: &str,
    physical: PhysicalModel,
    watch: Watch<'_>,
) -> Option<Simulation> {
    let mut stepper = Stepper::with_model(mtn, name, physical);
    let motion = Arc::clone(&stepper.motion);
    let drive = Drive::new(&motion, &stepper.physical);
    loop {
        if watch.cancelled() {
            return None;
        }
        let before = stepper.done;
        let done = stepper.advance_with(&drive, WATCH_STEPS);
        watch.took(stepper.done - before);
        if done {
            return stepper.finish();
        }
    }
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
                    (Part::Paw, Geom::Sphere { centre, .. }) => {
                        Some((i, DVec3::from_array(centre)))
                    }
                    _ => None,
                })
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};

    fn seed() -> Mtn {
        crate::formats::mtn::decode(include_bytes!("../../../../data/sony_stand_sit.mtn")).unwrap()
    }

    #[test]
    fn progress_adds_up_to_every_step_sixteen_at_a_time() {
        let mtn = seed();
        let told = Mutex::new(Vec::new());
        let progress = |n: u64| told.lock().unwrap().push(n);
        let watch = Watch {
            progress: Some(&progress),
            cancel: None,
        };
        let sim = super::super::simulate_with(&mtn, "seed", 600.0, watch).unwrap();
        assert_eq!(sim, Some(super::super::simulate(&mtn, "seed").unwrap()));
        let told = told.into_inner().unwrap();
        // 0.5 s settling, 4.88 s of motion, 1 s hold, 2 ms steps.
        assert_eq!(told.iter().sum::<u64>(), 250 + 2440 + 500);
        assert_eq!(super::super::total_steps(&mtn), 3190);
        assert!(told.iter().all(|&n| (1..=16).contains(&n)), "{told:?}");
    }

    #[test]
    fn a_cancel_flag_stops_the_run_within_a_slice() {
        let mtn = seed();
        let cancel = AtomicBool::new(false);
        let taken = Mutex::new(0u64);
        // The flag is raised once 1 000 steps are taken, as a Ctrl-C would
        // be mid-run.
        let progress = |n: u64| {
            let mut t = taken.lock().unwrap();
            *t += n;
            if *t >= 1000 {
                cancel.store(true, Ordering::Relaxed);
            }
        };
        let watch = Watch {
            progress: Some(&progress),
            cancel: Some(&cancel),
        };
        let sim = super::super::simulate_with(&mtn, "seed", 600.0, watch).unwrap();
        assert!(sim.is_none());
        let taken = *taken.lock().unwrap();
        assert!((1000..1000 + 16).contains(&taken), "{taken}");
    }

    #[test]
    fn the_window_refuses_a_motion_days_long_before_any_step() {
        let mut mtn = seed();
        mtn.keyframes.last_mut().unwrap().interp = u32::MAX;
        mtn.frame_rate = 1;
        let e = Stepper::new(&mtn, "long.mtn").unwrap_err();
        assert!(e.to_string().contains(" s, 49.7 days)"), "{e}");
    }

    #[test]
    fn slices_of_any_size_give_the_simulation_in_one_go() {
        let mtn = seed();
        let whole = super::super::simulate(&mtn, "seed").unwrap();
        let mut stepper = Stepper::new(&mtn, "seed").unwrap();
        let mut slices = 0;
        while !stepper.advance(997) {
            slices += 1;
        }
        assert_eq!(stepper.progress(), (3190, 3190));
        assert!(slices > 1);
        assert_eq!(stepper.finish().unwrap(), whole);
    }
}
