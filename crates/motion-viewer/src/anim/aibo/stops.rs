//! A joint past its limit: the one rule every part of the library applies
//! (`mtn check`, `simulate`, the keyframe editor, the sampler's warnings),
//! in the same words.
//!
//! - Within the limit (to [`RESOLUTION_DEG`]): nothing to say.
//! - Past the limit but within the mechanical stop, [`STOP_MARGIN_DEG`]
//!   beyond it: a **warning**. The servo gets there; the robot's software
//!   would not send it there.
//! - Past the mechanical stop: an **error**. No servo gets there.

use super::Limit;

/// How far beyond each joint limit the servo's mechanical stop lies, degrees.
///
/// The limits are Tekkotsu's software limits (`outputRanges`, docs/formats.md
/// §1). Tekkotsu's `ERS210Info.h` also gives the mechanical limits
/// (`mechanicalLimits`), and every servo's lies 3° beyond its software limit:
/// J1 ±117° → ±120°, J2 −11..89° → −14..92°, J3 −27..147° → −30..150°, neck
/// tilt −82..43° → −85..46°, pan ±89.6° → ±92.6°, roll ±29° → ±32°, tail
/// ±22° → ±25°, mouth −47..−3° → −50..0° (`ERS220Info.h` the same for its
/// legs and neck). `ERS7Info.h` copies `outputRanges` there ("never
/// specified by Sony"), and Sony's own ERS-7 posture changes take the knees
/// 3° past the software limit, so the same 3° is used for the ERS-7, and for
/// the ERS-110 and ERS-310, whose limits are estimates.
pub(crate) const STOP_MARGIN_DEG: f64 = 3.0;

/// Angles within this many degrees of a limit (or a stop) count as on it:
/// Sony's files store angles in whole micro-radians (1 µrad ≈ 0.00006°).
pub(crate) const RESOLUTION_DEG: f64 = 0.001;

/// Where an angle lies against a joint's limit and stop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Reach {
    /// Within the limit.
    Within,
    /// Past the limit by `past_deg`, within the mechanical stop: a warning.
    PastLimit {
        /// Degrees past the limit.
        past_deg: f64,
    },
    /// Past the mechanical stop (`past_deg` past the limit): an error.
    PastStop {
        /// Degrees past the limit.
        past_deg: f64,
    },
}

impl Limit {
    /// Where `deg` lies against this limit and its mechanical stop.
    pub(crate) fn reach(&self, deg: f64) -> Reach {
        let past_deg = (self.min_deg - deg).max(deg - self.max_deg);
        if past_deg.is_nan() || past_deg > STOP_MARGIN_DEG + RESOLUTION_DEG {
            Reach::PastStop { past_deg }
        } else if past_deg > RESOLUTION_DEG {
            Reach::PastLimit { past_deg }
        } else {
            Reach::Within
        }
    }

    /// The mechanical stops: the limit widened by [`STOP_MARGIN_DEG`], degrees.
    pub(crate) fn stops(&self) -> (f64, f64) {
        (
            self.min_deg - STOP_MARGIN_DEG,
            self.max_deg + STOP_MARGIN_DEG,
        )
    }

    /// The sentence for `deg` on joint `label` when it lies past the limit
    /// (`None` within it): "left_front_j3 is 150.00°, 3.00° past its limit
    /// -27..147°, within its mechanical stop 3° beyond", or "…, and past its
    /// mechanical stop 3° beyond".
    pub(crate) fn past(&self, label: &str, deg: f64) -> Option<(Reach, String)> {
        let reach = self.reach(deg);
        let (past_deg, whether) = match reach {
            Reach::Within => return None,
            Reach::PastLimit { past_deg } => (past_deg, ", within"),
            Reach::PastStop { past_deg } => (past_deg, ", and past"),
        };
        Some((
            reach,
            format!(
                "{label} is {deg:.2}°, {past_deg:.2}° past its limit {}..{}°{whether} its \
                 mechanical stop {STOP_MARGIN_DEG}° beyond",
                self.min_deg, self.max_deg
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::aibo::{Joint, Leg, LegJoint};

    /// The ERS-210 knee: Tekkotsu's software limit −27..147°, its
    /// mechanical limit −30..150°.
    const KNEE: Limit = Limit {
        joint: Joint::Leg(Leg::LeftFront, LegJoint::Knee),
        min_deg: -27.0,
        max_deg: 147.0,
    };

    #[test]
    fn within_the_stop_is_a_warning_beyond_it_an_error() {
        assert_eq!(KNEE.stops(), (-30.0, 150.0));
        assert_eq!(KNEE.reach(147.0), Reach::Within);
        assert_eq!(KNEE.reach(147.0005), Reach::Within);
        assert!(matches!(KNEE.reach(149.0), Reach::PastLimit { past_deg } if past_deg == 2.0));
        assert!(matches!(KNEE.reach(150.0), Reach::PastLimit { .. }));
        assert!(matches!(KNEE.reach(-30.0), Reach::PastLimit { .. }));
        assert!(matches!(KNEE.reach(150.01), Reach::PastStop { .. }));
        assert!(matches!(KNEE.reach(152.0), Reach::PastStop { past_deg } if past_deg == 5.0));
        assert!(matches!(KNEE.reach(f64::NAN), Reach::PastStop { .. }));
    }

    #[test]
    fn the_sentence_says_which_side_of_the_stop() {
        assert_eq!(KNEE.past("left_front_j3", 100.0), None);
        let (_, warning) = KNEE.past("left_front_j3", 150.0).unwrap();
        assert_eq!(
            warning,
            "left_front_j3 is 150.00°, 3.00° past its limit -27..147°, within its mechanical \
             stop 3° beyond"
        );
        let (_, error) = KNEE.past("left_front_j3", -32.0).unwrap();
        assert_eq!(
            error,
            "left_front_j3 is -32.00°, 5.00° past its limit -27..147°, and past its mechanical \
             stop 3° beyond"
        );
    }
}
