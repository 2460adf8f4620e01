//! The verdict on one simulated motion, gathered step by step from the
//! states the engine reports (engine-free: the MuJoCo comparison computes
//! the same quantities from MuJoCo's states).

use glam::{DQuat, DVec3};
use serde::Serialize;

use crate::anim::aibo::physical::{PAW_RADIUS_M, STEP_S, tilt_deg};
use crate::anim::clock;
use crate::formats::aibo::Model;

/// The body's tilt past which the dog has fallen, degrees: a sitting AIBO
/// leans back about 30°, a dog on its side is at 90°.
pub const FALL_TILT_DEG: f64 = 60.0;

/// How far the reached angle may lag the commanded one before the joint
/// "could not follow", degrees.
pub const FOLLOW_MARGIN_DEG: f64 = 10.0;

/// A shape this close to the ground (or into it) touches it, metres.
pub(crate) const CONTACT_M: f64 = 0.002;

/// The body or head on the floor is a fall where the commanded posture
/// holds them at least this far above the paws' floor, metres (a standing
/// posture: a standing AIBO's belly is 80–100 mm up; a sitting one's rear is
/// within a few centimetres of the floor, and rests on it)…
pub(crate) const EXPECTED_CLEARANCE_M: f64 = 0.06;

/// …for at least this long, seconds (a brush is not a fall).
pub(crate) const FLOOR_FALL_S: f64 = 0.05;

/// The verdict on one motion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The motion: its file, or `ARCHIVE:ENTRY`.
    pub motion: String,
    /// The model it was simulated as.
    #[serde(serialize_with = "model_name")]
    pub model: Model,
    /// True when the body tilted past [`FALL_TILT_DEG`], or the body or head
    /// lay on the floor for 0.05 s where the commanded posture
    /// holds them 0.06 m above it.
    pub falls: bool,
    /// False when the dog fell while it settled in the first keyframe's
    /// posture, before the motion starts: that posture does not stand, and
    /// the motion is never played (`falls` true, `fall_time_s` null).
    pub first_posture_stands: bool,
    /// When it fell, seconds of the motion from 0 (past the duration: in
    /// the hold after the last keyframe); `null` when it stands or when its
    /// first posture does not.
    pub fall_time_s: Option<f64>,
    /// Why: `"tilt"` or `"body on the floor"`; `null` when it stands.
    pub fall_cause: Option<&'static str>,
    /// The largest tilt of the body from upright, degrees.
    pub peak_tilt_deg: f64,
    /// When, seconds of the motion.
    pub peak_tilt_time_s: f64,
    /// The lowest height of the body's centre above the ground, metres.
    pub min_body_height_m: f64,
    /// The motion's duration, seconds.
    pub duration_s: f64,
    /// Simulated time: settling, the motion, and the hold after it, seconds.
    pub simulated_s: f64,
    /// Each paw's slip while it bears weight.
    pub paws: Vec<PawSlip>,
    /// Links other than the paws that touched the ground.
    pub ground_contacts: Vec<PartContact>,
    /// Per servo: how far the reached angle fell behind the commanded one.
    pub joints: Vec<JointFollow>,
    /// What was not played as written: each angle past a joint's limit but
    /// within its mechanical stop, in `check`'s words (the simulated servo
    /// stops at the limit).
    pub warnings: Vec<String>,
}

fn model_name<S: serde::Serializer>(model: &Model, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(model.name())
}

/// One paw's slip: how far it slid along the ground while touching it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PawSlip {
    /// `left_front`, `right_hind`…
    pub paw: &'static str,
    /// Horizontal distance slid while on the ground, metres.
    pub slip_m: f64,
    /// Time on the ground, seconds.
    pub on_ground_s: f64,
}

/// A part other than the paws that touched the ground.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartContact {
    /// The link's name (`body`, `head_roll`, `left_front_j3`…).
    pub link: String,
    /// The first touch, seconds of the motion.
    pub first_s: f64,
    /// Time on the ground, seconds.
    pub total_s: f64,
}

/// How well one servo followed its commands: while the motion plays (from
/// its start to its last step), and apart from that in the hold after it,
/// where the last keyframe is held and a servo may still be catching up.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JointFollow {
    /// The model's PRM name of the servo.
    pub joint: &'static str,
    /// Its short label (`left_front_j1`…).
    pub label: String,
    /// The largest commanded − reached difference while the motion plays,
    /// degrees (signed).
    pub max_error_deg: f64,
    /// When, seconds of the motion.
    pub at_s: f64,
    /// Time the difference stayed beyond [`FOLLOW_MARGIN_DEG`] while the
    /// motion plays, seconds.
    pub beyond_margin_s: f64,
    /// The largest commanded − reached difference in the hold after the
    /// motion, degrees (signed).
    pub hold_max_error_deg: f64,
    /// When, seconds of the motion (past its duration).
    pub hold_at_s: f64,
}

impl JointFollow {
    /// True when the servo could not follow: beyond the margin at some time
    /// while the motion plays.
    pub fn could_not_follow(&self) -> bool {
        self.beyond_margin_s > 0.0
    }
}

/// The verdict built up one step at a time.
#[derive(Debug, Clone)]
pub struct Tally {
    verdict: Verdict,
    /// Per paw on the ground: the material point of the ball that touched
    /// the ground at the last step, in its link's frame and in the world.
    paw_last: Vec<Option<(DVec3, DVec3)>>,
    /// Since when the body or head has lain on the floor unexpectedly.
    on_floor_since: Option<f64>,
    /// The time of the motion's last step, seconds: later steps are the hold.
    play_end_s: f64,
}

/// One step's state, as an engine reports it.
pub struct StepState<'a> {
    /// Seconds of the motion.
    pub t: f64,
    /// The step's length, seconds.
    pub dt: f64,
    /// The body's centre, world, metres.
    pub body_position: DVec3,
    /// The body's attitude.
    pub body_attitude: DQuat,
    /// The paws' lower-leg links, in [`PAW_NAMES`] order: each link's origin
    /// and attitude in the world, and the paw ball's centre in the link's
    /// frame (metres).
    pub paws: &'a [(DVec3, DQuat, DVec3)],
    /// Each link's lowest point above the ground, metres (non-paw shapes;
    /// `None` for a link without any).
    pub link_lowest_z: &'a [Option<f64>],
    /// The lowest point of the trunk and head above the ground, metres.
    pub trunk_lowest_z: f64,
    /// How far the commanded posture holds them above the paws' floor, metres.
    pub expected_clearance_m: f64,
    /// Commanded angles, radians, servo order.
    pub commanded: &'a [f64],
    /// Reached angles, radians, servo order.
    pub reached: &'a [f64],
}

/// The paws in the order [`StepState::paws`] holds them.
pub const PAW_NAMES: [&str; 4] = ["left_front", "right_front", "left_hind", "right_hind"];

impl Tally {
    /// An empty tally for `motion` of `model`; `servos` are the PRM names and
    /// labels, `warnings` what the verdict is to say (see [`Verdict::warnings`]).
    pub fn new(
        motion: String,
        model: Model,
        duration_s: f64,
        servos: Vec<(&'static str, String)>,
        warnings: Vec<String>,
    ) -> Tally {
        let play_end_s = clock::time_of(super::step_counts(duration_s).1 as u64, STEP_S);
        Tally {
            verdict: Verdict {
                motion,
                model,
                falls: false,
                first_posture_stands: true,
                fall_time_s: None,
                fall_cause: None,
                peak_tilt_deg: 0.0,
                peak_tilt_time_s: 0.0,
                min_body_height_m: f64::INFINITY,
                duration_s,
                simulated_s: 0.0,
                paws: PAW_NAMES
                    .iter()
                    .map(|&paw| PawSlip {
                        paw,
                        slip_m: 0.0,
                        on_ground_s: 0.0,
                    })
                    .collect(),
                ground_contacts: Vec::new(),
                joints: servos
                    .into_iter()
                    .map(|(joint, label)| JointFollow {
                        joint,
                        label,
                        max_error_deg: 0.0,
                        at_s: 0.0,
                        beyond_margin_s: 0.0,
                        hold_max_error_deg: 0.0,
                        hold_at_s: play_end_s,
                    })
                    .collect(),
                warnings,
            },
            paw_last: vec![None; PAW_NAMES.len()],
            on_floor_since: None,
            play_end_s,
        }
    }

    /// Adds one step; `links` names the links of `s.link_lowest_z`. Only
    /// the motion and the hold after it count for the joints (while
    /// settling the servos are told to hold still).
    pub fn add(&mut self, s: &StepState, links: &[String]) {
        let v = &mut self.verdict;
        v.simulated_s += s.dt;
        let tilt = tilt_deg(s.body_attitude);
        if tilt > v.peak_tilt_deg {
            v.peak_tilt_deg = tilt;
            v.peak_tilt_time_s = s.t;
        }
        if tilt > FALL_TILT_DEG && !v.falls {
            fell(v, s.t, "tilt");
        }
        let unexpected =
            s.trunk_lowest_z <= CONTACT_M && s.expected_clearance_m >= EXPECTED_CLEARANCE_M;
        if !unexpected {
            self.on_floor_since = None;
        } else {
            let since = *self.on_floor_since.get_or_insert(s.t);
            if s.t - since + s.dt >= FLOOR_FALL_S - 1e-9 && !v.falls {
                fell(v, since, "body on the floor");
            }
        }
        v.min_body_height_m = v.min_body_height_m.min(s.body_position.z);
        // Slip is the sliding of the ball's touching point, not its centre:
        // a ball that rolls as the leg turns over it does not slip.
        for ((&(origin, attitude, centre), slip), last) in
            s.paws.iter().zip(&mut v.paws).zip(&mut self.paw_last)
        {
            let world = |local: DVec3| origin + attitude * local;
            let on_ground = world(centre).z - PAW_RADIUS_M <= CONTACT_M;
            if on_ground {
                slip.on_ground_s += s.dt;
                if let Some((local, before)) = *last {
                    let d = world(local) - before;
                    slip.slip_m += d.x.hypot(d.y);
                }
                let touching = centre + attitude.inverse() * DVec3::new(0.0, 0.0, -PAW_RADIUS_M);
                *last = Some((touching, world(touching)));
            } else {
                *last = None;
            }
        }
        for (name, z) in links.iter().zip(s.link_lowest_z) {
            if !z.is_some_and(|z| z <= CONTACT_M) {
                continue;
            }
            match v.ground_contacts.iter_mut().find(|c| &c.link == name) {
                Some(c) => c.total_s += s.dt,
                None => v.ground_contacts.push(PartContact {
                    link: name.clone(),
                    first_s: s.t,
                    total_s: s.dt,
                }),
            }
        }
        if s.t < 0.0 {
            return;
        }
        // A step is the hold's once past the motion's last step (to a
        // nanosecond: the step times are sums of 2 ms).
        let hold = s.t > self.play_end_s + 1e-9;
        for ((j, &cmd), &got) in v.joints.iter_mut().zip(s.commanded).zip(s.reached) {
            let error = (cmd - got).to_degrees();
            if hold {
                if error.abs() > j.hold_max_error_deg.abs() {
                    j.hold_max_error_deg = error;
                    j.hold_at_s = s.t;
                }
                continue;
            }
            if error.abs() > j.max_error_deg.abs() {
                j.max_error_deg = error;
                j.at_s = s.t;
            }
            if error.abs() > FOLLOW_MARGIN_DEG {
                j.beyond_margin_s += s.dt;
            }
        }
    }

    /// The verdict.
    pub fn finish(self) -> Verdict {
        self.verdict
    }
}

/// Records the fall that began at `since` seconds of the motion: before 0,
/// while settling in the first keyframe's posture, it is that posture that
/// does not stand, and the fall has no time in the motion.
fn fell(v: &mut Verdict, since: f64, cause: &'static str) {
    v.falls = true;
    v.fall_cause = Some(cause);
    if since < 0.0 {
        v.first_posture_stands = false;
    } else {
        v.fall_time_s = Some(since);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One step at `t` of a dog tilted `tilt` degrees about x, its paws and
    /// trunk well clear of the floor, one servo commanded 0 and at
    /// `behind_deg` below it.
    fn step(tally: &mut Tally, t: f64, tilt: f64, behind_deg: f64) {
        let paws = [(DVec3::Z, DQuat::IDENTITY, DVec3::ZERO); 4];
        tally.add(
            &StepState {
                t,
                dt: STEP_S,
                body_position: DVec3::new(0.0, 0.0, 0.2),
                body_attitude: DQuat::from_rotation_x(tilt.to_radians()),
                paws: &paws,
                link_lowest_z: &[],
                trunk_lowest_z: 0.1,
                expected_clearance_m: 0.0,
                commanded: &[0.0],
                reached: &[-behind_deg.to_radians()],
            },
            &[],
        );
    }

    /// A tally of a 10 ms motion (five 2 ms steps, then the hold) of one servo.
    fn tally() -> Tally {
        Tally::new(
            "m".into(),
            Model::Ers7,
            0.010,
            vec![("PRM:/r2/c1-Joint2:21", "left_front_j1".into())],
            vec![],
        )
    }

    #[test]
    fn the_largest_difference_is_the_motions_and_the_holds_is_apart() {
        let mut t = tally();
        // Settling (not counted), the motion (3° at its last step), then
        // the hold with 12° at its second step: 0.012 s is the hold's first.
        step(&mut t, -0.002, 0.0, 20.0);
        for (k, behind) in [1.0, 2.0, 2.5, 1.5, 3.0].into_iter().enumerate() {
            step(&mut t, 0.002 * (k + 1) as f64, 0.0, behind);
        }
        step(&mut t, 0.012, 0.0, 4.0);
        step(&mut t, 0.014, 0.0, 12.0);
        step(&mut t, 0.016, 0.0, 6.0);
        let v = t.finish();
        let j = &v.joints[0];
        assert!((j.max_error_deg - 3.0).abs() < 1e-12, "{j:?}");
        assert!((j.at_s - 0.010).abs() < 1e-12, "{j:?}");
        assert!((j.hold_max_error_deg - 12.0).abs() < 1e-12, "{j:?}");
        assert!((j.hold_at_s - 0.014).abs() < 1e-12, "{j:?}");
        // 12° in the hold is past the 10° margin, but not while it played.
        assert_eq!(j.beyond_margin_s, 0.0);
        assert!(!j.could_not_follow());
    }

    #[test]
    fn a_fall_while_settling_is_the_first_posture_not_standing() {
        let mut t = tally();
        step(&mut t, -0.498, 61.0, 0.0);
        step(&mut t, 0.002, 80.0, 0.0);
        let v = t.finish();
        assert!(v.falls && !v.first_posture_stands, "{v:?}");
        assert_eq!((v.fall_time_s, v.fall_cause), (None, Some("tilt")));
        // A fall once the motion plays has its time.
        let mut t = tally();
        step(&mut t, -0.002, 10.0, 0.0);
        step(&mut t, 0.004, 61.0, 0.0);
        let v = t.finish();
        assert!(v.falls && v.first_posture_stands, "{v:?}");
        assert_eq!(v.fall_time_s, Some(0.004));
    }
}
