//! Where every track stands and how long they run, measured on the CPU: each
//! track's box over its whole motion in world axes ([`super::units`]), turned
//! into one translation per track by [`super::layout::place`]. The GPU stage
//! and the exporters place tracks by the same [`Plan`].

use glam::Vec3;

use super::layout::{self, Footprint, Grounding};
use super::{Track, hands, rig};
use crate::anim::input_animation;
use crate::anim::memg::{Binding, bounding_box_over_time};
use crate::error::{Error, Result};
use crate::formats::memg::MemgMotion;
use crate::formats::obj::ObjScene;

/// Where a track stands on the stage.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// The track's name ([`Track::name`]).
    pub name: String,
    /// The translation from the track's own world coordinates to the stage.
    pub offset: Vec3,
    /// Lowest corner of the box it fills over its whole motion, placed.
    pub min: Vec3,
    /// Highest corner, placed.
    pub max: Vec3,
}

/// The CPU half of the stage: where every track goes and how long they run.
/// The GPU stage (`stage::Stage`) builds one; it needs no GPU, so tests,
/// exporters and tools can use it alone.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// One per track, in track order.
    pub placements: Vec<Placement>,
    /// The box around every placed track over its whole motion.
    pub bounds: (Vec3, Vec3),
    /// The longest track's duration, seconds.
    pub duration_s: f64,
    /// The first track's frame period, seconds (1/60 s without tracks).
    pub frame_period_s: f64,
}

impl Plan {
    /// Measures and places `tracks`.
    pub fn new(tracks: &[Track]) -> Result<Plan> {
        let footprints = tracks.iter().map(footprint).collect::<Result<Vec<_>>>()?;
        let offsets = layout::place(&footprints);
        let placements: Vec<Placement> = tracks
            .iter()
            .zip(&footprints)
            .zip(offsets)
            .map(|((track, f), offset)| Placement {
                name: track.name(),
                offset,
                min: f.min + offset,
                max: f.max + offset,
            })
            .collect();
        let bounds = placements
            .iter()
            .map(|p| (p.min, p.max))
            .reduce(|(lo, hi), (min, max)| (lo.min(min), hi.max(max)))
            .unwrap_or((Vec3::ZERO, Vec3::ZERO));
        Ok(Plan {
            placements,
            bounds,
            duration_s: tracks.iter().map(Track::duration_s).fold(0.0, f64::max),
            frame_period_s: tracks
                .first()
                .map_or(input_animation::FRAME_PERIOD_S, Track::frame_period_s),
        })
    }
}

/// Binds a MEMG motion to its scene, the error naming the motion file.
pub fn bind(track: &Track, scene: &ObjScene, motion: &MemgMotion) -> Result<Binding> {
    Binding::new(scene, motion).map_err(|message| Error::Invalid {
        file: track.path().display().to_string(),
        message,
    })
}

/// A track's box over its whole motion in world axes, before placement.
fn footprint(track: &Track) -> Result<Footprint> {
    let (min, max, grounding) = match track {
        Track::Memg { scene, motion, .. } => {
            let (lo, hi) = bounding_box_over_time(scene, motion, &bind(track, scene, motion)?)
                .unwrap_or(([0.0; 3], [0.0; 3]));
            (lo.into(), hi.into(), Grounding::Rest)
        }
        Track::Mtn { motion, .. } => {
            let (lo, hi) = rig::bounds_over_time(motion);
            (lo, hi, Grounding::Keep)
        }
        Track::InputAnimation { recording, .. } => {
            let (lo, hi) = hands::bounds_over_time(recording).unwrap_or((Vec3::ZERO, Vec3::ZERO));
            (lo, hi, Grounding::Keep)
        }
    };
    Ok(Footprint {
        min,
        max,
        grounding,
    })
}
