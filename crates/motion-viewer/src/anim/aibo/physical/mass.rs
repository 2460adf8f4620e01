//! How much each link weighs: Webots' ERS-7 part masses, and the other
//! models' published weights spread over the same split. A part whose servo
//! the model lacks (the ERS-220 and ERS-310 tails) stays in its parent's
//! link ([`super::build`]).

use crate::formats::aibo::Model;

/// A model's published mass and the ERS-7 part masses scaled to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassBudget {
    /// The trunk without the tail, kg.
    pub body: f64,
    /// The tail's first (pan) link, kg.
    pub tail_pan: f64,
    /// The tail's second (tilt) link, the stub itself, kg.
    pub tail_tilt: f64,
    /// The neck-tilt link, kg.
    pub neck: f64,
    /// The link between the head's first and third servos, kg.
    pub head_mid: f64,
    /// The head without the mouth and ears, kg.
    pub head: f64,
    /// The jaw, kg.
    pub mouth: f64,
    /// One ear, kg.
    pub ear: f64,
    /// A J1 (shoulder) link, kg.
    pub shoulder: f64,
    /// A J2 (upper leg) link, kg.
    pub upper_leg: f64,
    /// A J3 (lower leg and paw) link, kg.
    pub lower_leg: f64,
}

/// Webots' ERS-7 part masses (model.txt of its Aibo ERS-7 model): body
/// 0.613, tail 0.001 + 0.005 (taken as the pan base and the stub), neck
/// 0.015, head base 0.01, head 0.19, ears 2 × 0.005, shoulder 0.05, upper
/// and lower leg 0.073 each: 1.628 kg. Webots gives the jaw no mass of its
/// own: 0.010 of the head's 0.19 is assumed to be it (docs/physics.md).
const ERS7_MASSES: MassBudget = MassBudget {
    body: 0.613,
    tail_pan: 0.001,
    tail_tilt: 0.005,
    neck: 0.015,
    head_mid: 0.010,
    head: 0.180,
    mouth: 0.010,
    ear: 0.005,
    shoulder: 0.050,
    upper_leg: 0.073,
    lower_leg: 0.073,
};

/// The whole robot's mass, kg: the ERS-7's is Webots' parts summed (Sony
/// publishes about 1.65 kg); the others are their published weights
/// (docs/physics.md).
pub fn total_mass_kg(model: Model) -> f64 {
    match model {
        Model::Ers7 => ERS7_TOTAL_KG,
        Model::Ers110 => 1.6,
        Model::Ers210 | Model::Ers220 => 1.5,
        Model::Ers310 => 1.3,
    }
}

const ERS7_TOTAL_KG: f64 = 0.619 + 0.015 + 0.010 + 0.200 + 4.0 * (0.050 + 0.073 + 0.073);

/// The part masses of `model`: the ERS-7's as Webots gives them, the
/// others' scaled by their total weight.
pub fn masses(model: Model) -> MassBudget {
    let s = total_mass_kg(model) / ERS7_TOTAL_KG;
    let m = ERS7_MASSES;
    MassBudget {
        body: m.body * s,
        tail_pan: m.tail_pan * s,
        tail_tilt: m.tail_tilt * s,
        neck: m.neck * s,
        head_mid: m.head_mid * s,
        head: m.head * s,
        mouth: m.mouth * s,
        ear: m.ear * s,
        shoulder: m.shoulder * s,
        upper_leg: m.upper_leg * s,
        lower_leg: m.lower_leg * s,
    }
}
