//! Side-by-side placement: each track's box over its whole motion is shifted
//! so that the tracks stand in a row along world x, a gap apart, centred on
//! x = 0 and z = 0, never overlapping at any time.
//!
//! Tracks of different kinds differ in size by orders of magnitude (a flag
//! scene of metres, an AIBO dog of 30 cm, a pair of hands): under
//! [`Layout::Fit`] each is first scaled so that its box's longest side matches
//! the longest side of the largest track, which keeps that track at true scale
//! and brings the others up to a size one can see beside it.

use glam::Vec3;
use std::fmt;
use std::str::FromStr;

/// How tracks are sized before they are placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// Every track scaled to the size of the largest; a
    /// recording floating above the ground is set down on it
    /// ([`super::plan::Plan::with_layout`]).
    Fit,
    /// Every track at its recorded size.
    #[default]
    TrueScale,
}

impl Layout {
    /// The layout to use when none is asked for: [`Layout::Fit`] when tracks
    /// of different kinds are mixed (`kinds` names each track's kind, in any
    /// form that compares), [`Layout::TrueScale`] otherwise.
    pub(crate) fn auto<K: PartialEq>(kinds: &[K]) -> Layout {
        match kinds.split_first() {
            Some((first, rest)) if rest.iter().any(|k| k != first) => Layout::Fit,
            _ => Layout::TrueScale,
        }
    }

    #[cfg_attr(not(feature = "window"), allow(dead_code))] // the window's
    /// The other layout.
    pub(crate) fn toggled(self) -> Layout {
        match self {
            Layout::Fit => Layout::TrueScale,
            Layout::TrueScale => Layout::Fit,
        }
    }

    /// The name the command line uses: `fit` or `true-scale`.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Fit => "fit",
            Layout::TrueScale => "true-scale",
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Layout {
    type Err = crate::error::ParseValueError;

    /// `fit` or `true-scale` (also `true_scale`, `truescale`), any case.
    fn from_str(s: &str) -> Result<Layout, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fit" => Ok(Layout::Fit),
            "true-scale" | "true_scale" | "truescale" => Ok(Layout::TrueScale),
            _ => Err(crate::error::ParseValueError::new(
                "a layout",
                s,
                "fit or true-scale",
            )),
        }
    }
}

/// The gap between neighbours, as a fraction of the widest track's width.
pub(crate) const GAP_FRACTION: f32 = 0.2;

/// How a track meets the ground.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grounding {
    /// Raise or lower it so its lowest point rests on y = 0.
    Rest,
    /// Keep its heights: its y = 0 already is the floor (MRTK recordings,
    /// AIBO rigs grounded frame by frame).
    Keep,
}

/// A track's box over its whole motion, before placement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Footprint {
    /// Lowest corner.
    pub min: Vec3,
    /// Highest corner.
    pub max: Vec3,
    /// How it meets the ground.
    pub grounding: Grounding,
}

impl Footprint {
    /// The length of the box's longest side.
    pub fn size(&self) -> f32 {
        (self.max - self.min).max_element().max(0.0)
    }

    /// The box scaled by `scale` about the track's own origin.
    pub(crate) fn scaled(&self, scale: f32) -> Footprint {
        Footprint {
            min: self.min * scale,
            max: self.max * scale,
            grounding: self.grounding,
        }
    }
}

/// The scale of each footprint under `layout`: 1 for [`Layout::TrueScale`];
/// for [`Layout::Fit`], the largest footprint's longest side over this one's
/// (so the largest keeps scale 1). An empty or degenerate box (nothing drawn,
/// a single point) keeps scale 1 rather than blowing up.
pub(crate) fn scales(footprints: &[Footprint], layout: Layout) -> Vec<f32> {
    let largest = footprints.iter().map(Footprint::size).fold(0.0, f32::max);
    footprints
        .iter()
        .map(|f| {
            let size = f.size();
            match layout {
                Layout::Fit if size.is_finite() && size > largest * 1e-6 && size > 0.0 => {
                    largest / size
                }
                _ => 1.0,
            }
        })
        .collect()
}

/// The translation of each footprint, in order: along x one after another
/// with [`GAP_FRACTION`] of the widest width between them, the row centred
/// on x = 0, each centred on z = 0, and in y as its [`Grounding`] says.
pub(crate) fn place(footprints: &[Footprint]) -> Vec<Vec3> {
    let widest = footprints
        .iter()
        .map(|f| f.max.x - f.min.x)
        .fold(0.0, f32::max);
    let gap = GAP_FRACTION * widest;
    let mut cursor = 0.0;
    let mut offsets: Vec<Vec3> = footprints
        .iter()
        .map(|f| {
            let y = match f.grounding {
                Grounding::Rest => -f.min.y,
                Grounding::Keep => 0.0,
            };
            let offset = Vec3::new(cursor - f.min.x, y, -(f.min.z + f.max.z) * 0.5);
            cursor += f.max.x - f.min.x + gap;
            offset
        })
        .collect();
    // The row spans 0..cursor − gap; centre it.
    let centre = (cursor - gap).max(0.0) * 0.5;
    for o in &mut offsets {
        o.x -= centre;
    }
    offsets
}
