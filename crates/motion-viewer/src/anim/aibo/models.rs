//! The five kinematic models as data.
//!
//! Lengths in millimetres in the body frame of [`super`]: x forward, y left,
//! z up, origin at the body centre at shoulder height. Leg offsets are given in
//! the *leg frame* of [`LegGeometry`] and mirrored onto each leg.

use super::{HeadChain, LegGeometry, Limit, RigModel};
use crate::formats::aibo::{Joint, Leg, LegJoint, Model};

use Joint::{HeadPan, HeadRoll, HeadTilt, LeftEar, Mouth, RightEar, TailPan, TailTilt};
use LegJoint::{Elevator, Knee, Rotator};

const fn limit(joint: Joint, min_deg: f64, max_deg: f64) -> Limit {
    Limit {
        joint,
        min_deg,
        max_deg,
    }
}

const fn leg(leg: Leg, servo: LegJoint) -> Joint {
    Joint::Leg(leg, servo)
}

/// The model's rig data.
pub(crate) fn rig_model(model: Model) -> &'static RigModel {
    match model {
        Model::Ers110 => &ERS110,
        Model::Ers210 => &ERS210,
        Model::Ers220 => &ERS220,
        Model::Ers310 => &ERS310,
        Model::Ers7 => &ERS7,
    }
}

/// Twelve leg limits from one front J1 range, one hind J1 range and the
/// shared J2 and J3 ranges.
macro_rules! leg_limits {
    ($front_j1:expr, $hind_j1:expr, $j2:expr, $j3:expr) => {
        [
            limit(leg(Leg::LeftFront, Rotator), $front_j1.0, $front_j1.1),
            limit(leg(Leg::RightFront, Rotator), $front_j1.0, $front_j1.1),
            limit(leg(Leg::LeftHind, Rotator), $hind_j1.0, $hind_j1.1),
            limit(leg(Leg::RightHind, Rotator), $hind_j1.0, $hind_j1.1),
            limit(leg(Leg::LeftFront, Elevator), $j2.0, $j2.1),
            limit(leg(Leg::RightFront, Elevator), $j2.0, $j2.1),
            limit(leg(Leg::LeftHind, Elevator), $j2.0, $j2.1),
            limit(leg(Leg::RightHind, Elevator), $j2.0, $j2.1),
            limit(leg(Leg::LeftFront, Knee), $j3.0, $j3.1),
            limit(leg(Leg::RightFront, Knee), $j3.0, $j3.1),
            limit(leg(Leg::LeftHind, Knee), $j3.0, $j3.1),
            limit(leg(Leg::RightHind, Knee), $j3.0, $j3.1),
        ]
    };
}

/// Twelve neutral leg angles from a front (J1, J2, J3) and a hind one.
macro_rules! leg_stance {
    ($front:expr, $hind:expr) => {
        [
            (leg(Leg::LeftFront, Rotator), $front.0),
            (leg(Leg::LeftFront, Elevator), $front.1),
            (leg(Leg::LeftFront, Knee), $front.2),
            (leg(Leg::RightFront, Rotator), $front.0),
            (leg(Leg::RightFront, Elevator), $front.1),
            (leg(Leg::RightFront, Knee), $front.2),
            (leg(Leg::LeftHind, Rotator), $hind.0),
            (leg(Leg::LeftHind, Elevator), $hind.1),
            (leg(Leg::LeftHind, Knee), $hind.2),
            (leg(Leg::RightHind, Rotator), $hind.0),
            (leg(Leg::RightHind, Elevator), $hind.1),
            (leg(Leg::RightHind, Knee), $hind.2),
        ]
    };
}

/// Concatenates two const arrays (limits or stances) into one.
const fn concat<T: Copy, const A: usize, const B: usize, const N: usize>(
    a: [T; A],
    b: [T; B],
) -> [T; N] {
    assert!(A + B == N);
    let mut out = [a[0]; N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - A];
        i += 1;
    }
    out
}

/// ERS-7 (docs/formats.md §1, from Tekkotsu's model): knee 9 mm toward J1 + of the
/// shoulder and 69.5 mm below; the foot (-5.0, 4.7, -65.2) from the knee in
/// front, and on the hind leg the same direction with the ≈ 67.8 mm length.
/// These put the four paws of Sony's stand and sit postures on one horizontal
/// plane within about 2 mm.
const ERS7: RigModel = RigModel {
    model: Model::Ers7,
    shoulder: [65.0, 62.5, 0.0],
    front: LegGeometry {
        upper: [9.0, 0.0, -69.5],
        lower: [-5.0, 4.7, -65.2],
    },
    // Same direction as the front lower leg, scaled to |(-5, 4.7, z)| = 67.8.
    hind: LegGeometry {
        upper: [9.0, 0.0, -69.5],
        lower: [-5.0, 4.7, -67.45],
    },
    neck: [67.5, 0.0, 19.5],
    head_chain: HeadChain::TiltPanNod,
    neck_length: 80.0,
    head_forward: 81.0,
    tail_base: [-102.0, 0.0, 33.0],
    // Drawing only: the ERS-7 tail is a short stub, about 60 mm.
    tail_length: 60.0,
    body_box: ([-10.0, 0.0, 10.0], [100.0, 55.0, 40.0]),
    head_box: ([0.0, 0.0, 0.0], [45.0, 40.0, 40.0]),
    limits: &ERS7_LIMITS,
    neutral: &ERS7_NEUTRAL,
};

const ERS7_LIMITS: [Limit; 18] = concat(
    leg_limits!(
        (-115.0, 130.0),
        (-130.0, 115.0),
        (-10.0, 88.0),
        (-25.0, 122.0)
    ),
    [
        limit(HeadTilt, -75.0, 0.0),
        limit(HeadPan, -88.0, 88.0),
        limit(HeadRoll, -15.0, 45.0),
        limit(TailTilt, 5.0, 60.0),
        limit(TailPan, -45.0, 45.0),
        limit(Mouth, -55.0, -3.0),
    ],
);

/// ERS-7 stand posture of Sony's `a_stand#…_standard` motions, head level,
/// tail at its lowest allowed tilt (5°), mouth closed.
const ERS7_NEUTRAL: [(Joint, f64); 20] = concat(
    leg_stance!((-5.0, 3.0, 30.0), (-5.0, 3.0, 30.0)),
    [
        (HeadTilt, 0.0),
        (HeadPan, 0.0),
        (HeadRoll, 0.0),
        (Mouth, -3.0),
        (LeftEar, 0.0),
        (RightEar, 0.0),
        (TailTilt, 5.0),
        (TailPan, 0.0),
    ],
);

/// ERS-210 (docs/formats.md §1, Tekkotsu): knee 12.8 mm toward J1 + and 0.5 mm out,
/// 64 mm below the shoulder; lower leg front (-18.88, 0, -66) and hind
/// (29.36, 0, -70.88) in the body frame, i.e. -29.36 toward the hind J1 +
/// (backward) direction of the leg frame.
///
/// Sony's sit (body pitch 28°) comes out level within 1.1 mm; in Sony's stand
/// (pitch 0) the hind paws land 6.9 mm below the front ones, so either the
/// real stand leans about 3° nose-down or the hind lower leg is a little
/// shorter than these numbers. They are kept as published.
const ERS210: RigModel = RigModel {
    model: Model::Ers210,
    shoulder: [59.5, 59.2, 0.0],
    front: LegGeometry {
        upper: [12.8, 0.5, -64.0],
        lower: [-18.88, 0.0, -66.0],
    },
    hind: LegGeometry {
        upper: [12.8, 0.5, -64.0],
        lower: [-29.36, 0.0, -70.88],
    },
    neck: [75.0, 0.0, 50.0],
    head_chain: HeadChain::TiltPanRoll,
    neck_length: 48.0,
    head_forward: 66.6,
    tail_base: [-76.9, 0.0, 53.0],
    // Drawing only: about the length of the ERS-210 tail.
    tail_length: 70.0,
    body_box: ([-5.0, 0.0, 15.0], [95.0, 55.0, 45.0]),
    head_box: ([10.0, 0.0, 0.0], [45.0, 40.0, 35.0]),
    limits: &ERS210_LIMITS,
    neutral: &ERS210_NEUTRAL,
};

const ERS210_LIMITS: [Limit; 18] = concat(
    leg_limits!(
        (-117.0, 117.0),
        (-117.0, 117.0),
        (-11.0, 89.0),
        (-27.0, 147.0)
    ),
    [
        limit(HeadTilt, -82.0, 43.0),
        limit(HeadPan, -89.6, 89.6),
        limit(HeadRoll, -29.0, 29.0),
        limit(TailTilt, -22.0, 22.0),
        limit(TailPan, -22.0, 22.0),
        limit(Mouth, -47.0, -3.0),
    ],
);

/// ERS-210 stand posture of Sony's `a_stand#…_standard` and
/// `a_stand#walk_sox_sdk` motions, head level, mouth closed.
const ERS210_NEUTRAL: [(Joint, f64); 20] = concat(
    leg_stance!((-10.0, 0.0, 30.0), (0.0, 0.0, 25.0)),
    [
        (HeadTilt, 0.0),
        (HeadPan, 0.0),
        (HeadRoll, 0.0),
        (Mouth, -3.0),
        (LeftEar, 0.0),
        (RightEar, 0.0),
        (TailTilt, 0.0),
        (TailPan, 0.0),
    ],
);

/// ERS-220: docs/formats.md §1 gives it the ERS-210's legs; its head and tail are taken
/// from the ERS-210 as well (no published numbers), as are all limits.
const ERS220: RigModel = RigModel {
    model: Model::Ers220,
    ..ERS210
};

/// ERS-110 (docs/formats.md §1, "rough"): shoulders (±44.85, ±59.2, 0); upper leg
/// (13, 5.5, -61) in the leg frame; lower leg front (-9.5, 1.06, -58) and
/// hind (19, 1.06, -69) in the body frame (-19 in the hind leg frame).
///
/// The notes' shoulder spacing y = ±26.5 put the paws at ±33 mm, inside the
/// 90 mm-wide body, where every AIBO mounts its legs outside the body; the
/// ERS-110's published envelope is the ERS-210's, so its shoulders take the
/// ERS-210's ±59.2 (docs/physics.md "Rig check" gives the evidence).
///
/// With these numbers the hind paws of Sony's ERS-110 stand land 13.6 mm
/// below the front ones: rough indeed, kept as published.
///
/// Head, tail and limits are not published: the head and tail offsets are
/// scaled from the ERS-210, and the limits are the ranges Sony's own 551
/// ERS-110 motions use, rounded outward.
const ERS110: RigModel = RigModel {
    model: Model::Ers110,
    shoulder: [44.85, 59.2, 0.0],
    front: LegGeometry {
        upper: [13.0, 5.5, -61.0],
        lower: [-9.5, 1.06, -58.0],
    },
    hind: LegGeometry {
        upper: [13.0, 5.5, -61.0],
        lower: [-19.0, 1.06, -69.0],
    },
    neck: [65.0, 0.0, 45.0],
    head_chain: HeadChain::TiltPanRoll,
    neck_length: 45.0,
    head_forward: 60.0,
    tail_base: [-70.0, 0.0, 45.0],
    tail_length: 70.0,
    body_box: ([-5.0, 0.0, 15.0], [85.0, 45.0, 45.0]),
    head_box: ([10.0, 0.0, 0.0], [40.0, 35.0, 35.0]),
    limits: &ERS110_LIMITS,
    neutral: &ERS110_NEUTRAL,
};

const ERS110_LIMITS: [Limit; 18] = concat(
    leg_limits!(
        (-121.0, 121.0),
        (-121.0, 121.0),
        (-17.0, 91.0),
        (-31.0, 151.0)
    ),
    [
        limit(HeadTilt, -86.0, 55.0),
        limit(HeadPan, -85.0, 85.0),
        limit(HeadRoll, -41.0, 41.0),
        limit(Mouth, -46.0, 1.0),
        limit(TailTilt, -40.0, 80.0),
        limit(TailPan, -31.0, 31.0),
    ],
);

/// ERS-110 stand posture of Sony's `std…` system motions, head level.
const ERS110_NEUTRAL: [(Joint, f64); 18] = concat(
    leg_stance!((-10.0, 0.0, 30.0), (-10.0, 0.0, 30.0)),
    [
        (HeadTilt, 0.0),
        (HeadPan, 0.0),
        (HeadRoll, 0.0),
        (Mouth, 0.0),
        (TailTilt, 0.0),
        (TailPan, 0.0),
    ],
);

/// ERS-310 (Latte/Macaron): **no published geometry** — this one is derived,
/// not measured. The ERS-310 is about the ERS-210's length with a rounder
/// body and shorter, stubbier legs, so the ERS-210 leg frame is kept and
/// scaled: shoulders (±55, ±55, 0), upper leg 50 mm, lower legs 52 / 56 mm with
/// the ERS-210's lower-leg directions. The neck sits higher and further back
/// on its short body; the head has a tilt, a second tilt (nod) and a pan, in
/// that order. It has no tail joints; a short fixed stub is drawn.
/// Limits: legs as the ERS-210; the head ranges are plausible guesses.
const ERS310: RigModel = RigModel {
    model: Model::Ers310,
    shoulder: [55.0, 55.0, 0.0],
    front: LegGeometry {
        upper: [10.0, 0.5, -50.0],
        lower: [-14.9, 0.0, -52.0],
    },
    hind: LegGeometry {
        upper: [10.0, 0.5, -50.0],
        lower: [-23.2, 0.0, -56.0],
    },
    neck: [60.0, 0.0, 45.0],
    head_chain: HeadChain::TiltNodPan,
    neck_length: 30.0,
    head_forward: 55.0,
    tail_base: [-80.0, 0.0, 35.0],
    tail_length: 20.0,
    body_box: ([-5.0, 0.0, 10.0], [90.0, 60.0, 45.0]),
    head_box: ([5.0, 0.0, 0.0], [40.0, 40.0, 40.0]),
    limits: &ERS310_LIMITS,
    neutral: &ERS310_NEUTRAL,
};

const ERS310_LIMITS: [Limit; 15] = concat(
    leg_limits!(
        (-117.0, 117.0),
        (-117.0, 117.0),
        (-11.0, 89.0),
        (-27.0, 147.0)
    ),
    [
        limit(HeadTilt, -80.0, 30.0),
        limit(HeadRoll, -20.0, 45.0),
        limit(HeadPan, -90.0, 90.0),
    ],
);

/// ERS-310 neutral: the ERS-210 stand posture, head level.
const ERS310_NEUTRAL: [(Joint, f64); 15] = concat(
    leg_stance!((-10.0, 0.0, 30.0), (0.0, 0.0, 25.0)),
    [(HeadTilt, 0.0), (HeadRoll, 0.0), (HeadPan, 0.0)],
);
