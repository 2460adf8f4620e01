//! AIBO robot models and joint roles: the vocabulary the `.mtn` codec maps
//! joints onto and the kinematic rig reads.
//!
//! ```
//! use motion_viewer::formats::aibo::{Joint, Leg, LegJoint, Model, max_speed_rad_s};
//!
//! // Tekkotsu's servo speed for the ERS-210's knees: 4.10° per 16 ms frame at most.
//! let knee = Joint::Leg(Leg::LeftFront, LegJoint::Knee);
//! let per_frame_deg = max_speed_rad_s(Model::Ers210, knee).unwrap().to_degrees() * 0.016;
//! assert!(per_frame_deg <= 4.10 + 1e-9 && per_frame_deg > 1.9);
//! ```

use serde::Serialize;

/// One of the five AIBO robot models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Model {
    /// ERS-110/111, design label `DRX-700`.
    #[serde(rename = "ERS-110")]
    Ers110,
    /// ERS-210, design label `DRX-910`.
    #[serde(rename = "ERS-210")]
    Ers210,
    /// ERS-220, design label `DRX-900` (also used by Sony's ERS-210 samples).
    #[serde(rename = "ERS-220")]
    Ers220,
    /// ERS-310 series, design label `DRX-801`.
    #[serde(rename = "ERS-310")]
    Ers310,
    /// ERS-7, design label `DRX-1000`.
    #[serde(rename = "ERS-7")]
    Ers7,
}

impl Model {
    /// Every model, oldest first.
    pub const ALL: [Model; 5] = [
        Model::Ers110,
        Model::Ers210,
        Model::Ers220,
        Model::Ers310,
        Model::Ers7,
    ];

    /// The model's name as Sony writes it, e.g. `"ERS-210"`.
    pub fn name(self) -> &'static str {
        match self {
            Model::Ers110 => "ERS-110",
            Model::Ers210 => "ERS-210",
            Model::Ers220 => "ERS-220",
            Model::Ers310 => "ERS-310",
            Model::Ers7 => "ERS-7",
        }
    }
}

impl std::str::FromStr for Model {
    type Err = crate::error::ParseValueError;

    /// Reads `ERS-7`, `ers7`, `ERS-210`, `220`…, and the variants Sony sold
    /// under other numbers (ERS-111, ERS-311/312, ERS-7M2/M3).
    fn from_str(text: &str) -> Result<Model, Self::Err> {
        let t = text.trim().to_ascii_uppercase().replace(['-', ' '], "");
        let number = t.strip_prefix("ERS").unwrap_or(&t);
        match number {
            "110" | "111" => Ok(Model::Ers110),
            "210" | "210A" => Ok(Model::Ers210),
            "220" | "220A" => Ok(Model::Ers220),
            "310" | "311" | "312" => Ok(Model::Ers310),
            "7" | "7M2" | "7M3" => Ok(Model::Ers7),
            _ => Err(crate::error::ParseValueError::new(
                "an AIBO model",
                text,
                "ERS-110, ERS-210, ERS-220, ERS-310 or ERS-7",
            )),
        }
    }
}

impl std::fmt::Display for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The four legs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Leg {
    /// Left front.
    LeftFront,
    /// Left hind.
    LeftHind,
    /// Right front.
    RightFront,
    /// Right hind.
    RightHind,
}

impl Leg {
    /// All four legs.
    pub const ALL: [Leg; 4] = [
        Leg::LeftFront,
        Leg::LeftHind,
        Leg::RightFront,
        Leg::RightHind,
    ];

    /// True for the front legs.
    pub(crate) fn is_front(self) -> bool {
        matches!(self, Leg::LeftFront | Leg::RightFront)
    }

    /// True for the left legs.
    pub(crate) fn is_left(self) -> bool {
        matches!(self, Leg::LeftFront | Leg::LeftHind)
    }
}

/// The three servos of a leg.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LegJoint {
    /// J1: swings the leg forward/backward.
    Rotator,
    /// J2: moves the leg away from the body.
    Elevator,
    /// J3: the knee.
    Knee,
}

/// What a joint of a motion drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Joint {
    /// Head tilt (neck pitch), + up.
    HeadTilt,
    /// Head pan, + left.
    HeadPan,
    /// Head roll (ERS-210) or second tilt / nod (ERS-7, ERS-310).
    HeadRoll,
    /// Mouth (values negative, closed ≈ -3°).
    Mouth,
    /// Left ear.
    LeftEar,
    /// Right ear.
    RightEar,
    /// A leg servo.
    Leg(Leg, LegJoint),
    /// Tail tilt (up/down).
    TailTilt,
    /// Tail pan (side to side).
    TailPan,
}

/// The body part a joint belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyPart {
    /// Head servos (tilt, pan, roll).
    Head,
    /// The mouth.
    Mouth,
    /// The ears.
    Ears,
    /// Left front leg.
    LeftFrontLeg,
    /// Left hind leg.
    LeftHindLeg,
    /// Right front leg.
    RightFrontLeg,
    /// Right hind leg.
    RightHindLeg,
    /// The tail.
    Tail,
}

impl BodyPart {
    /// The part's name as it appears in JSON, e.g. `"left_front_leg"`.
    pub fn name(self) -> &'static str {
        match self {
            BodyPart::Head => "head",
            BodyPart::Mouth => "mouth",
            BodyPart::Ears => "ears",
            BodyPart::LeftFrontLeg => "left_front_leg",
            BodyPart::LeftHindLeg => "left_hind_leg",
            BodyPart::RightFrontLeg => "right_front_leg",
            BodyPart::RightHindLeg => "right_hind_leg",
            BodyPart::Tail => "tail",
        }
    }
}

impl Joint {
    /// The body part this joint moves.
    pub(crate) fn part(self) -> BodyPart {
        match self {
            Joint::HeadTilt | Joint::HeadPan | Joint::HeadRoll => BodyPart::Head,
            Joint::Mouth => BodyPart::Mouth,
            Joint::LeftEar | Joint::RightEar => BodyPart::Ears,
            Joint::Leg(Leg::LeftFront, _) => BodyPart::LeftFrontLeg,
            Joint::Leg(Leg::LeftHind, _) => BodyPart::LeftHindLeg,
            Joint::Leg(Leg::RightFront, _) => BodyPart::RightFrontLeg,
            Joint::Leg(Leg::RightHind, _) => BodyPart::RightHindLeg,
            Joint::TailTilt | Joint::TailPan => BodyPart::Tail,
        }
    }
}

impl Leg {
    /// The leg on the other side: left front ↔ right front, left hind ↔ right hind.
    pub(crate) fn opposite(self) -> Leg {
        match self {
            Leg::LeftFront => Leg::RightFront,
            Leg::RightFront => Leg::LeftFront,
            Leg::LeftHind => Leg::RightHind,
            Leg::RightHind => Leg::LeftHind,
        }
    }
}

/// What a joint becomes when a motion is mirrored left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mirrored {
    /// The joint on the other side; the joint itself for one on the midline.
    pub joint: Joint,
    /// True when the angle changes sign: a turn about the vertical axis (pan)
    /// or the forward axis (roll) points the other way in the mirror.
    pub negate: bool,
}

impl Model {
    /// True when the model's third head servo ([`Joint::HeadRoll`]) nods, turning
    /// about the left-right axis (ERS-7, ERS-310), rather than rolling about the
    /// forward axis (ERS-110, ERS-210, ERS-220).
    pub(crate) fn head_third_nods(self) -> bool {
        matches!(self, Model::Ers7 | Model::Ers310)
    }

    /// The left ↔ right mirror table of the model: legs and ears swap sides
    /// with their angles kept (J2 + and the ear angles mean "away from the body"
    /// on both sides, as Sony's symmetric stand and sit postures show); head
    /// pan, tail pan and a rolling third head servo change sign; tilts, a
    /// nodding third head servo and the mouth stay.
    pub fn mirror(self, joint: Joint) -> Mirrored {
        let to = |joint, negate| Mirrored { joint, negate };
        match joint {
            Joint::Leg(leg, servo) => to(Joint::Leg(leg.opposite(), servo), false),
            Joint::LeftEar => to(Joint::RightEar, false),
            Joint::RightEar => to(Joint::LeftEar, false),
            Joint::HeadPan | Joint::TailPan => to(joint, true),
            Joint::HeadRoll => to(joint, !self.head_third_nods()),
            Joint::HeadTilt | Joint::Mouth | Joint::TailTilt => to(joint, false),
        }
    }
}

/// Where a table's numbers come from, and whether they are estimates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// The source, in words.
    pub source: &'static str,
    /// True when the numbers are not published for this model.
    pub estimated: bool,
}

/// The fastest a joint's servo should be driven, in rad/s: Sony's recommended
/// maximum joint velocities as the Tekkotsu framework publishes them
/// (`ERS210Info.h`, `ERS220Info.h`, `ERS7Info.h`, `MaxOutputSpeed`, "obtained
/// from the administrators of the Sony OPEN-R BBS"). At 16 ms a frame the
/// ERS-210 figures are 1.93°/frame (head tilt) to 4.10°/frame (tail).
///
/// `None` for the ears, which are binary on every model (no speed to keep).
/// The ERS-110 and ERS-310 have no published figures: they get the ERS-210's
/// (`check`'s report says so: its `speeds`, [`crate::workbench::Report::speeds`]).
pub fn max_speed_rad_s(model: Model, joint: Joint) -> Option<f64> {
    let ers7 = model == Model::Ers7;
    Some(match joint {
        Joint::Leg(_, LegJoint::Rotator) if ers7 => 4.865_105_29,
        Joint::Leg(_, LegJoint::Elevator | LegJoint::Knee) if ers7 => 5.279_620_99,
        Joint::HeadTilt if ers7 => 3.185_225_88,
        Joint::HeadPan if ers7 => 10.057_459_8,
        Joint::HeadRoll if ers7 => 5.781_403_15,
        Joint::TailTilt | Joint::TailPan if ers7 => 15.162_547_9,
        Joint::Mouth if ers7 => 10.144_726_3,
        Joint::Leg(_, LegJoint::Rotator) => 2.814_343_4,
        Joint::Leg(_, LegJoint::Elevator) => 2.498_002_5,
        Joint::Leg(_, LegJoint::Knee) => 2.836_160_0,
        Joint::HeadTilt => 2.105_303_4,
        Joint::HeadPan | Joint::HeadRoll => 3.010_693_0,
        Joint::TailTilt | Joint::TailPan => 4.472_406_2,
        Joint::Mouth => 4.374_231_4,
        Joint::LeftEar | Joint::RightEar => return None,
    })
}

/// Where [`max_speed_rad_s`]'s figures for `model` come from.
pub(crate) fn speed_provenance(model: Model) -> Provenance {
    match model {
        Model::Ers7 => Provenance {
            source: "Sony's recommended maximum joint speeds, from Tekkotsu's ERS7Info.h",
            estimated: false,
        },
        Model::Ers210 | Model::Ers220 => Provenance {
            source: "Sony's recommended maximum joint speeds, from Tekkotsu's ERS210Info.h \
                     and ERS220Info.h",
            estimated: false,
        },
        Model::Ers110 | Model::Ers310 => Provenance {
            source: "none published for this model: the ERS-210's figures (Tekkotsu's \
                     ERS210Info.h) stand in",
            estimated: true,
        },
    }
}

/// The posture words motion names use (`a_sit#stand_…`): the three every
/// model knows (Dogsbody: "at a minimum sleep, sit and stand"), and the
/// others Sony's own ERS-210/220 and ERS-7 motions and Skitter use.
pub(crate) const POSTURES: [&str; 8] = [
    "sleep", "sit", "stand", "walk", "station", "sitb", "situp", "any",
];

/// How far, in degrees, a leg joint of a motion's first or last keyframe may
/// lie from its named standard posture. Sony's own motions stay within 5°
/// (the ERS-7 `a_stand#walk_sox_standard` starts 5° from the ERS-7 stand, and
/// Skitter's sleep is 5° from Sony's).
pub(crate) const POSE_TOLERANCE_DEG: f64 = 6.0;

/// The leg angles of a standard posture in degrees: `[J1, J2, J3]` of the left
/// front, left hind, right front and right hind legs ([`Leg::ALL`] order).
///
/// Taken from the first and last keyframes of Sony's own posture transitions
/// (`a_sit#stand_standard`, `a_stand#sleep_standard`, …: `ers210_MOTION.ODA`
/// for the ERS-210/220, `ers7_MOTION7.ODA` and `a_sitb#sitb_soc_special07`
/// for the ERS-7), where every motion that starts or ends in a posture agrees
/// within 1°. `None` for postures without one fixed pose (`walk`, `any`, …)
/// and for the ERS-110 and ERS-310, whose motions are not named by posture.
pub(crate) fn standard_pose(model: Model, posture: &str) -> Option<[[f64; 3]; 4]> {
    let pair = |front: [f64; 3], hind: [f64; 3]| Some([front, hind, front, hind]);
    match (model, posture) {
        (Model::Ers210 | Model::Ers220, "stand") => pair([-10.0, 0.0, 30.0], [0.0, 0.0, 25.0]),
        (Model::Ers210 | Model::Ers220, "sit") => pair([0.0, 0.0, 10.0], [-90.0, 0.0, 135.0]),
        (Model::Ers210 | Model::Ers220, "sleep") => pair([60.0, 0.0, 30.0], [-117.0, 5.0, 147.0]),
        (Model::Ers7, "stand") => pair([-5.0, 3.0, 30.0], [-5.0, 3.0, 30.0]),
        (Model::Ers7, "sit") => pair([-25.0, -4.0, 20.0], [-78.0, 20.0, 110.0]),
        (Model::Ers7, "sleep") => pair([59.0, 0.0, 30.0], [-119.0, 4.0, 122.0]),
        (Model::Ers7, "sitb") => pair([-25.0, -7.0, -25.0], [-50.0, 25.0, 120.0]),
        _ => None,
    }
}
