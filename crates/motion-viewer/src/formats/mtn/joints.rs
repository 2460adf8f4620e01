//! Design labels, robot models and the role of each joint of a motion.
//!
//! Joint order and naming follow Dogsbody's tables and `docs/formats.md` §1. ERS-110
//! joints are mapped by position, because some Sony ERS-110 files carry
//! garbled names (`cd#14`, `cd#319`, `dt#49`); every other model by PRM name.

use crate::formats::aibo::{Joint, Leg, LegJoint, Model};

use Joint::{HeadPan, HeadRoll, HeadTilt, LeftEar, Mouth, RightEar, TailPan, TailTilt};
use LegJoint::{Elevator, Knee, Rotator};

/// Which servos a motion drives, from the suffix of its design label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// No suffix: the whole body.
    Full,
    /// `_Head`: head servos (and the mouth on ERS-110, whose head group holds it).
    Head,
    /// `_Legs`: the twelve leg servos.
    Legs,
    /// `_Tail`: the tail servos.
    Tail,
    /// `_Ear`: the ears.
    Ears,
    /// `_Mouth`: the mouth.
    Mouth,
}

/// Splits a design label such as `DRX-1000_Legs` into its base label and scope;
/// `None` for an unknown suffix.
pub(crate) fn split_design(design: &str) -> (&str, Option<Scope>) {
    match design.split_once('_') {
        None => (design, Some(Scope::Full)),
        Some((base, suffix)) => {
            let scope = match suffix {
                "Head" => Some(Scope::Head),
                "Legs" => Some(Scope::Legs),
                "Tail" => Some(Scope::Tail),
                "Ear" => Some(Scope::Ears),
                "Mouth" => Some(Scope::Mouth),
                _ => None,
            };
            (base, scope)
        }
    }
}

impl Scope {
    /// The design-label suffix of the scope, e.g. `"_Legs"`; empty for the full body.
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Scope::Full => "",
            Scope::Head => "_Head",
            Scope::Legs => "_Legs",
            Scope::Tail => "_Tail",
            Scope::Ears => "_Ear",
            Scope::Mouth => "_Mouth",
        }
    }
}

/// The design label of a model's full-body motions, e.g. `"DRX-1000"` for the
/// ERS-7 (`"DRX-900"` for the ERS-220; see [`model_for`]).
pub(crate) fn design_label(model: Model) -> &'static str {
    match model {
        Model::Ers110 => "DRX-700",
        Model::Ers210 => "DRX-910",
        Model::Ers220 => "DRX-900",
        Model::Ers310 => "DRX-801",
        Model::Ers7 => "DRX-1000",
    }
}

/// The model a design label names, before looking at the joints.
///
/// `DRX-900` is the ERS-220 label; [`model_for`] refines it with the joints.
pub(crate) fn design_model(design: &str) -> Option<Model> {
    match split_design(design).0 {
        "DRX-700" => Some(Model::Ers110),
        "DRX-910" => Some(Model::Ers210),
        "DRX-900" => Some(Model::Ers220),
        "DRX-801" => Some(Model::Ers310),
        "DRX-1000" => Some(Model::Ers7),
        _ => None,
    }
}

/// The model of a motion from its design label and joint names.
///
/// Ruling on `DRX-900`: it is the ERS-220 label (Dogsbody), and Sony's own
/// ERS-210 sample motions carry it too, with 15 joints: head tilt, pan, roll
/// and the twelve leg servos, exactly the servos both robots share, so they
/// play the same on either and stay ERS-220. A `DRX-900` motion that drives a
/// servo only the ERS-210 has (mouth, ears or tail) is an ERS-210 motion.
pub(crate) fn model_for(design: &str, joints: &[String]) -> Option<Model> {
    let model = design_model(design)?;
    if model == Model::Ers220 {
        let ers210_only = joints.iter().any(|name| {
            matches!(
                ers210_role(prm_path(name)),
                Some(Joint::Mouth | Joint::LeftEar | Joint::RightEar)
                    | Some(Joint::TailPan | Joint::TailTilt)
            )
        });
        if ers210_only {
            return Some(Model::Ers210);
        }
    }
    Some(model)
}

/// The locator path of a PRM name: `PRM:/r2/c1/c2-Joint2:j2` → `r2/c1/c2`.
fn prm_path(name: &str) -> &str {
    let rest = name.strip_prefix("PRM:/").unwrap_or(name);
    rest.split('-').next().unwrap_or(rest)
}

/// The leg servo of a path `rN/c1[/c2[/c3]]` on the ERS-210/220/310/7 family.
fn leg_role(path: &str) -> Option<Joint> {
    let (root, rest) = path.split_once('/')?;
    let leg = match root {
        "r2" => Leg::LeftFront,
        "r3" => Leg::LeftHind,
        "r4" => Leg::RightFront,
        "r5" => Leg::RightHind,
        _ => return None,
    };
    let servo = match rest {
        "c1" => LegJoint::Rotator,
        "c1/c2" => LegJoint::Elevator,
        "c1/c2/c3" => LegJoint::Knee,
        _ => return None,
    };
    Some(Joint::Leg(leg, servo))
}

/// ERS-210 (and ERS-220) roles: tail `r6/c1` pans, `r6/c2` tilts.
fn ers210_role(path: &str) -> Option<Joint> {
    Some(match path {
        "r1/c1" => Joint::HeadTilt,
        "r1/c1/c2" => Joint::HeadPan,
        "r1/c1/c2/c3" => Joint::HeadRoll,
        "r1/c1/c2/c3/c4" => Joint::Mouth,
        "r1/c1/c2/c3/e1" => Joint::LeftEar,
        "r1/c1/c2/c3/e2" => Joint::RightEar,
        "r6/c1" => Joint::TailPan,
        "r6/c2" => Joint::TailTilt,
        _ => return leg_role(path),
    })
}

/// ERS-7 roles: the third head servo nods, and the tail is the other way round
/// from the ERS-210: `r6/c1` tilts, `r6/c2` pans.
fn ers7_role(path: &str) -> Option<Joint> {
    Some(match path {
        "r1/c1" => Joint::HeadTilt,
        "r1/c1/c2" => Joint::HeadPan,
        "r1/c1/c2/c3" => Joint::HeadRoll,
        "r1/c1/c2/c3/c4" => Joint::Mouth,
        "r1/c1/c2/c3/e5" => Joint::LeftEar,
        "r1/c1/c2/c3/e6" => Joint::RightEar,
        "r6/c1" => Joint::TailTilt,
        "r6/c2" => Joint::TailPan,
        _ => return leg_role(path),
    })
}

/// ERS-310 roles: tilt, second tilt, then pan.
fn ers310_role(path: &str) -> Option<Joint> {
    Some(match path {
        "r1/c1" => Joint::HeadTilt,
        "r1/c1/c2" => Joint::HeadRoll,
        "r1/c1/c2/c3" => Joint::HeadPan,
        _ => return leg_role(path),
    })
}

/// The 18 ERS-110 joints in file order: head `r0` (tilt, pan, roll, mouth),
/// `r2` right front, `r3` left front, `r4` right hind, `r5` left hind
/// (rotator, elevator, knee each), tail `r1` (tilt, pan).
pub(crate) const ERS110_ORDER: [Joint; 18] = [
    Joint::HeadTilt,
    Joint::HeadPan,
    Joint::HeadRoll,
    Joint::Mouth,
    Joint::Leg(Leg::RightFront, LegJoint::Rotator),
    Joint::Leg(Leg::RightFront, LegJoint::Elevator),
    Joint::Leg(Leg::RightFront, LegJoint::Knee),
    Joint::Leg(Leg::LeftFront, LegJoint::Rotator),
    Joint::Leg(Leg::LeftFront, LegJoint::Elevator),
    Joint::Leg(Leg::LeftFront, LegJoint::Knee),
    Joint::Leg(Leg::RightHind, LegJoint::Rotator),
    Joint::Leg(Leg::RightHind, LegJoint::Elevator),
    Joint::Leg(Leg::RightHind, LegJoint::Knee),
    Joint::Leg(Leg::LeftHind, LegJoint::Rotator),
    Joint::Leg(Leg::LeftHind, LegJoint::Elevator),
    Joint::Leg(Leg::LeftHind, LegJoint::Knee),
    Joint::TailTilt,
    Joint::TailPan,
];

/// ERS-110 roles by name, for a partial motion whose joint count does not
/// match its scope (so position says nothing).
fn ers110_role(path: &str) -> Option<Joint> {
    let i = match path {
        "r0/c0" => 0,
        "r0/c0/c1" => 1,
        "r0/c0/c1/c2" => 2,
        "r0/c0/c1/c2/c3" => 3,
        "r1/c0" => 16,
        "r1/c1" => 17,
        _ => {
            let (root, rest) = path.split_once('/')?;
            let leg = match root {
                "r2" => 4,
                "r3" => 7,
                "r4" => 10,
                "r5" => 13,
                _ => return None,
            };
            let servo = match rest {
                "c0" => 0,
                "c0/c1" => 1,
                "c0/c1/c2" => 2,
                _ => return None,
            };
            leg + servo
        }
    };
    Some(ERS110_ORDER[i])
}

/// The role of every joint of a motion of `model` with design `design`.
pub fn roles(model: Option<Model>, design: &str, joints: &[String]) -> Vec<Option<Joint>> {
    let by_name = |f: fn(&str) -> Option<Joint>| -> Vec<Option<Joint>> {
        joints.iter().map(|n| f(prm_path(n))).collect()
    };
    match model {
        None => vec![None; joints.len()],
        Some(Model::Ers110) => {
            let slice = match split_design(design).1 {
                Some(Scope::Full) => Some(&ERS110_ORDER[..]),
                Some(Scope::Head) => Some(&ERS110_ORDER[0..4]),
                Some(Scope::Legs) => Some(&ERS110_ORDER[4..16]),
                Some(Scope::Tail) => Some(&ERS110_ORDER[16..18]),
                _ => None,
            };
            match slice {
                Some(s) if s.len() == joints.len() => s.iter().copied().map(Some).collect(),
                _ => by_name(ers110_role),
            }
        }
        Some(Model::Ers210 | Model::Ers220) => by_name(ers210_role),
        Some(Model::Ers310) => by_name(ers310_role),
        Some(Model::Ers7) => by_name(ers7_role),
    }
}

/// Every joint a model's full-body motions carry, in the order and with the
/// PRM names Sony writes them (Dogsbody's tables, checked against Sony's own
/// files): head, mouth, ears, the legs `r2`…`r5`, tail.
pub fn prm_names(model: Model) -> &'static [(Joint, &'static str)] {
    match model {
        Model::Ers110 => &ERS110_PRM,
        Model::Ers210 => &ERS210_PRM,
        // The ERS-220 has no mouth, ears or tail: Sony's motions for it carry
        // the first three head servos and the legs, under ERS-210 names.
        Model::Ers220 => &ERS220_PRM,
        Model::Ers310 => &ERS310_PRM,
        Model::Ers7 => &ERS7_PRM,
    }
}

const fn leg(leg: Leg, servo: LegJoint, name: &'static str) -> (Joint, &'static str) {
    (Joint::Leg(leg, servo), name)
}

const ERS110_PRM: [(Joint, &str); 18] = [
    (HeadTilt, "PRM:/r0/c0-Joint:j0"),
    (HeadPan, "PRM:/r0/c0/c1-Joint:j1"),
    (HeadRoll, "PRM:/r0/c0/c1/c2-Joint:j2"),
    (Mouth, "PRM:/r0/c0/c1/c2/c3-Joint:j3"),
    leg(Leg::RightFront, Rotator, "PRM:/r2/c0-Joint:j0"),
    leg(Leg::RightFront, Elevator, "PRM:/r2/c0/c1-Joint:j1"),
    leg(Leg::RightFront, Knee, "PRM:/r2/c0/c1/c2-Joint:j2"),
    leg(Leg::LeftFront, Rotator, "PRM:/r3/c0-Joint:j0"),
    leg(Leg::LeftFront, Elevator, "PRM:/r3/c0/c1-Joint:j1"),
    leg(Leg::LeftFront, Knee, "PRM:/r3/c0/c1/c2-Joint:j2"),
    leg(Leg::RightHind, Rotator, "PRM:/r4/c0-Joint:j0"),
    leg(Leg::RightHind, Elevator, "PRM:/r4/c0/c1-Joint:j1"),
    leg(Leg::RightHind, Knee, "PRM:/r4/c0/c1/c2-Joint:j2"),
    leg(Leg::LeftHind, Rotator, "PRM:/r5/c0-Joint:j0"),
    leg(Leg::LeftHind, Elevator, "PRM:/r5/c0/c1-Joint:j1"),
    leg(Leg::LeftHind, Knee, "PRM:/r5/c0/c1/c2-Joint:j2"),
    (TailTilt, "PRM:/r1/c0-Joint:j0"),
    (TailPan, "PRM:/r1/c1-Joint:j1"),
];

const ERS210_PRM: [(Joint, &str); 20] = [
    (HeadTilt, "PRM:/r1/c1-Joint2:j1"),
    (HeadPan, "PRM:/r1/c1/c2-Joint2:j2"),
    (HeadRoll, "PRM:/r1/c1/c2/c3-Joint2:j3"),
    (Mouth, "PRM:/r1/c1/c2/c3/c4-Joint2:j4"),
    (LeftEar, "PRM:/r1/c1/c2/c3/e1-Joint3:j5"),
    (RightEar, "PRM:/r1/c1/c2/c3/e2-Joint3:j6"),
    leg(Leg::LeftFront, Rotator, "PRM:/r2/c1-Joint2:j1"),
    leg(Leg::LeftFront, Elevator, "PRM:/r2/c1/c2-Joint2:j2"),
    leg(Leg::LeftFront, Knee, "PRM:/r2/c1/c2/c3-Joint2:j3"),
    leg(Leg::LeftHind, Rotator, "PRM:/r3/c1-Joint2:j1"),
    leg(Leg::LeftHind, Elevator, "PRM:/r3/c1/c2-Joint2:j2"),
    leg(Leg::LeftHind, Knee, "PRM:/r3/c1/c2/c3-Joint2:j3"),
    leg(Leg::RightFront, Rotator, "PRM:/r4/c1-Joint2:j1"),
    leg(Leg::RightFront, Elevator, "PRM:/r4/c1/c2-Joint2:j2"),
    leg(Leg::RightFront, Knee, "PRM:/r4/c1/c2/c3-Joint2:j3"),
    leg(Leg::RightHind, Rotator, "PRM:/r5/c1-Joint2:j1"),
    leg(Leg::RightHind, Elevator, "PRM:/r5/c1/c2-Joint2:j2"),
    leg(Leg::RightHind, Knee, "PRM:/r5/c1/c2/c3-Joint2:j3"),
    (TailPan, "PRM:/r6/c1-Joint2:j1"),
    (TailTilt, "PRM:/r6/c2-Joint2:j2"),
];

const ERS220_PRM: [(Joint, &str); 15] = [
    ERS210_PRM[0],
    ERS210_PRM[1],
    ERS210_PRM[2],
    ERS210_PRM[6],
    ERS210_PRM[7],
    ERS210_PRM[8],
    ERS210_PRM[9],
    ERS210_PRM[10],
    ERS210_PRM[11],
    ERS210_PRM[12],
    ERS210_PRM[13],
    ERS210_PRM[14],
    ERS210_PRM[15],
    ERS210_PRM[16],
    ERS210_PRM[17],
];

const ERS310_PRM: [(Joint, &str); 15] = [
    (HeadTilt, "PRM:/r1/c1-Joint2:11"),
    (HeadRoll, "PRM:/r1/c1/c2-Joint2:12"),
    (HeadPan, "PRM:/r1/c1/c2/c3-Joint2:13"),
    leg(Leg::LeftFront, Rotator, "PRM:/r2/c1-Joint2:21"),
    leg(Leg::LeftFront, Elevator, "PRM:/r2/c1/c2-Joint2:22"),
    leg(Leg::LeftFront, Knee, "PRM:/r2/c1/c2/c3-Joint2:23"),
    leg(Leg::LeftHind, Rotator, "PRM:/r3/c1-Joint2:31"),
    leg(Leg::LeftHind, Elevator, "PRM:/r3/c1/c2-Joint2:32"),
    leg(Leg::LeftHind, Knee, "PRM:/r3/c1/c2/c3-Joint2:33"),
    leg(Leg::RightFront, Rotator, "PRM:/r4/c1-Joint2:41"),
    leg(Leg::RightFront, Elevator, "PRM:/r4/c1/c2-Joint2:42"),
    leg(Leg::RightFront, Knee, "PRM:/r4/c1/c2/c3-Joint2:43"),
    leg(Leg::RightHind, Rotator, "PRM:/r5/c1-Joint2:51"),
    leg(Leg::RightHind, Elevator, "PRM:/r5/c1/c2-Joint2:52"),
    leg(Leg::RightHind, Knee, "PRM:/r5/c1/c2/c3-Joint2:53"),
];

const ERS7_PRM: [(Joint, &str); 20] = [
    (HeadTilt, "PRM:/r1/c1-Joint2:11"),
    (HeadPan, "PRM:/r1/c1/c2-Joint2:12"),
    (HeadRoll, "PRM:/r1/c1/c2/c3-Joint2:13"),
    (Mouth, "PRM:/r1/c1/c2/c3/c4-Joint2:14"),
    (LeftEar, "PRM:/r1/c1/c2/c3/e5-Joint4:15"),
    (RightEar, "PRM:/r1/c1/c2/c3/e6-Joint4:16"),
    leg(Leg::LeftFront, Rotator, "PRM:/r2/c1-Joint2:21"),
    leg(Leg::LeftFront, Elevator, "PRM:/r2/c1/c2-Joint2:22"),
    leg(Leg::LeftFront, Knee, "PRM:/r2/c1/c2/c3-Joint2:23"),
    leg(Leg::LeftHind, Rotator, "PRM:/r3/c1-Joint2:31"),
    leg(Leg::LeftHind, Elevator, "PRM:/r3/c1/c2-Joint2:32"),
    leg(Leg::LeftHind, Knee, "PRM:/r3/c1/c2/c3-Joint2:33"),
    leg(Leg::RightFront, Rotator, "PRM:/r4/c1-Joint2:41"),
    leg(Leg::RightFront, Elevator, "PRM:/r4/c1/c2-Joint2:42"),
    leg(Leg::RightFront, Knee, "PRM:/r4/c1/c2/c3-Joint2:43"),
    leg(Leg::RightHind, Rotator, "PRM:/r5/c1-Joint2:51"),
    leg(Leg::RightHind, Elevator, "PRM:/r5/c1/c2-Joint2:52"),
    leg(Leg::RightHind, Knee, "PRM:/r5/c1/c2/c3-Joint2:53"),
    (TailTilt, "PRM:/r6/c1-Joint2:61"),
    (TailPan, "PRM:/r6/c2-Joint2:62"),
];
