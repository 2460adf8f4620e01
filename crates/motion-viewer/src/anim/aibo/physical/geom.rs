//! The dog's collision shapes and the rule that turns a shape and a mass
//! into a centre of mass and an inertia.

use glam::{DQuat, DVec3};

/// A collision shape in its link's frame, metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Geom {
    /// A box: centre and half extents along the link's axes.
    Box {
        /// Centre.
        centre: [f64; 3],
        /// Half extents.
        half: [f64; 3],
    },
    /// A capsule: a segment swept by a ball.
    Capsule {
        /// One end.
        from: [f64; 3],
        /// The other end.
        to: [f64; 3],
        /// Radius.
        radius: f64,
    },
    /// A ball.
    Sphere {
        /// Centre.
        centre: [f64; 3],
        /// Radius.
        radius: f64,
    },
}

impl Geom {
    /// The same shape moved by `by` (a link's shape carried by another
    /// link whose frame is parallel to it).
    #[cfg_attr(not(feature = "physics"), allow(dead_code))] // the simulator's
    pub(crate) fn moved(&self, by: DVec3) -> Geom {
        let m = |p: [f64; 3]| (DVec3::from_array(p) + by).to_array();
        match *self {
            Geom::Box { centre, half } => Geom::Box {
                centre: m(centre),
                half,
            },
            Geom::Capsule { from, to, radius } => Geom::Capsule {
                from: m(from),
                to: m(to),
                radius,
            },
            Geom::Sphere { centre, radius } => Geom::Sphere {
                centre: m(centre),
                radius,
            },
        }
    }

    /// The lowest height of the shape for a link at `origin` with axes `axes`.
    pub(crate) fn lowest_z(&self, origin: DVec3, axes: DQuat) -> f64 {
        let at = |p: [f64; 3]| (origin + axes * DVec3::from_array(p)).z;
        match *self {
            Geom::Sphere { centre, radius } => at(centre) - radius,
            Geom::Capsule { from, to, radius } => at(from).min(at(to)) - radius,
            Geom::Box { centre, half } => {
                let mut lowest = f64::INFINITY;
                for sx in [-1.0, 1.0] {
                    for sy in [-1.0, 1.0] {
                        for sz in [-1.0, 1.0] {
                            let corner = [
                                centre[0] + sx * half[0],
                                centre[1] + sy * half[1],
                                centre[2] + sz * half[2],
                            ];
                            lowest = lowest.min(at(corner));
                        }
                    }
                }
                lowest
            }
        }
    }
}

/// What a part of the dog is, for the verdict (a paw on the ground bears
/// weight; anything else on the ground is reported).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The trunk.
    Body,
    /// The neck and head.
    Head,
    /// A leg above the paw.
    Leg,
    /// A paw's ball.
    Paw,
}

/// One collision shape of a link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Collider {
    /// Its shape.
    pub geom: Geom,
    /// Which part of the dog it is.
    pub part: Part,
}

/// The centre and principal inertia of mass `m` spread uniformly over the
/// axis-aligned box that bounds `geom` (a box: itself; a ball: its inscribing
/// cube's inertia would overstate it, so a ball's own 2/5·m·r²). One rule for
/// every link keeps both engines on the same numbers; the shapes are rough,
/// so finer solids would add precision the masses do not have.
pub(super) fn solid(geom: &Geom, m: f64) -> ([f64; 3], [f64; 3]) {
    let box_inertia = |size: [f64; 3]| {
        let [x, y, z] = size.map(|s| s * s);
        [m * (y + z) / 12.0, m * (x + z) / 12.0, m * (x + y) / 12.0]
    };
    match *geom {
        Geom::Box { centre, half } => (centre, box_inertia(half.map(|h| 2.0 * h))),
        Geom::Sphere { centre, radius } => (centre, [0.4 * m * radius * radius; 3]),
        Geom::Capsule { from, to, radius } => {
            let (a, b) = (DVec3::from_array(from), DVec3::from_array(to));
            let size = ((b - a).abs() + DVec3::splat(2.0 * radius)).to_array();
            (((a + b) * 0.5).to_array(), box_inertia(size))
        }
    }
}
