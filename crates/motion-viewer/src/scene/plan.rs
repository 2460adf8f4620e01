//! Where every track stands and how long they run, measured on the CPU: each
//! track's box over its whole motion in world axes (converted by the crate's `scene::units`), turned
//! into one scale and translation per track (side by side along x, a gap
//! between each). The GPU stage and the exporters place
//! tracks by the same [`Plan`].

use glam::{Mat4, Vec3};

use super::layout::{self, Footprint, Grounding, Layout};
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
    /// The translation from the track's own world coordinates (scaled by
    /// `scale`) to the stage.
    pub offset: Vec3,
    /// The uniform scale applied about the track's own origin before
    /// `offset` (1 under [`Layout::TrueScale`]).
    pub scale: f32,
    /// Lowest corner of the box it fills over its whole motion, placed.
    pub min: Vec3,
    /// Highest corner, placed.
    pub max: Vec3,
}

impl Placement {
    /// The track's own world coordinates → the stage: scale, then translate.
    pub fn transform(&self) -> Mat4 {
        Mat4::from_translation(self.offset) * Mat4::from_scale(Vec3::splat(self.scale))
    }

    /// A point of the track's own world placed on the stage.
    pub(crate) fn place(&self, p: Vec3) -> Vec3 {
        self.offset + self.scale * p
    }
}

/// The layout to use when none is asked for: [`Layout::Fit`] when tracks of
/// different formats are mixed, [`Layout::TrueScale`] otherwise.
pub fn auto_layout(tracks: &[Track]) -> Layout {
    let kinds: Vec<_> = tracks.iter().map(std::mem::discriminant).collect();
    Layout::auto(&kinds)
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
    /// How the tracks were sized.
    pub layout: Layout,
}

impl Plan {
    /// Measures and places `tracks` at their true scale.
    pub fn new(tracks: &[Track]) -> Result<Plan> {
        Plan::with_layout(tracks, Layout::TrueScale)
    }

    /// Measures `tracks` and leaves each in its own file's coordinates
    /// (no translation, scale 1): what an export writes unless asked for
    /// the viewer's layout.
    pub fn unplaced(tracks: &[Track]) -> Result<Plan> {
        let mut plan = Plan::with_layout(tracks, Layout::TrueScale)?;
        for p in &mut plan.placements {
            p.min -= p.offset;
            p.max -= p.offset;
            p.offset = Vec3::ZERO;
        }
        plan.bounds = plan
            .placements
            .iter()
            .map(|p| (p.min, p.max))
            .reduce(|(lo, hi), (min, max)| (lo.min(min), hi.max(max)))
            .unwrap_or((Vec3::ZERO, Vec3::ZERO));
        Ok(plan)
    }

    /// Measures, sizes (as `layout` says) and places `tracks`.
    pub fn with_layout(tracks: &[Track], layout: Layout) -> Result<Plan> {
        let footprints = tracks.iter().map(footprint).collect::<Result<Vec<_>>>()?;
        let scales = layout::scales(&footprints, layout);
        let scaled: Vec<Footprint> = footprints
            .iter()
            .zip(&scales)
            .map(|(f, &s)| f.scaled(s))
            .map(|f| match f.grounding {
                // A recording floating at its recorded height would float
                // `scale` times higher: set it down on the ground instead.
                Grounding::Keep if layout == Layout::Fit && f.min.y > 0.0 => Footprint {
                    grounding: Grounding::Rest,
                    ..f
                },
                _ => f,
            })
            .collect();
        let offsets = layout::place(&scaled);
        let placements: Vec<Placement> = tracks
            .iter()
            .zip(&scaled)
            .zip(scales.into_iter().zip(offsets))
            .map(|((track, f), (scale, offset))| Placement {
                name: track.name(),
                offset,
                scale,
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
            layout,
        })
    }
}

/// Binds a MEMG motion to its scene, the error naming the motion file.
pub(crate) fn bind(track: &Track, scene: &ObjScene, motion: &MemgMotion) -> Result<Binding> {
    Binding::new(scene, motion).map_err(|reason| Error::mismatch(track.path(), reason))
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
