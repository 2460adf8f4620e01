//! AIBO robot models and joint roles: the vocabulary the `.mtn` codec maps
//! joints onto and the kinematic rig reads.

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
    pub fn is_front(self) -> bool {
        matches!(self, Leg::LeftFront | Leg::RightFront)
    }

    /// True for the left legs.
    pub fn is_left(self) -> bool {
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
    pub fn part(self) -> BodyPart {
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
