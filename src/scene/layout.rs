//! Side-by-side placement: each track's box over its whole motion is shifted
//! so that the tracks stand in a row along world x, a gap apart, centred on
//! x = 0 and z = 0, never overlapping at any time.

use glam::Vec3;

/// The gap between neighbours, as a fraction of the widest track's width.
pub const GAP_FRACTION: f32 = 0.2;

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

/// The translation of each footprint, in order: along x one after another
/// with [`GAP_FRACTION`] of the widest width between them, the row centred
/// on x = 0, each centred on z = 0, and in y as its [`Grounding`] says.
pub fn place(footprints: &[Footprint]) -> Vec<Vec3> {
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
