//! The [`ArraySource`] a consumer that lays the large arrays out its own way
//! (the GPU upload) reads them from, a range at a time.

use super::{MemgGroup, MemgMotion};
use std::ops::Range;

/// Where the large per-vertex arrays of a motion are read from, a range at a
/// time: a decoded [`MemgMotion`], or a [`MappedMemg`](super::MappedMemg) converting them from
/// the file on demand.
pub trait ArraySource {
    /// The motion. When the source reads the arrays from elsewhere its
    /// groups' `mean` and `basis` are empty; everything else is decoded.
    fn motion(&self) -> &MemgMotion;

    /// Writes rows `rows` of group `group`'s mean pose (row = 3 × vertex +
    /// axis) into `out`, which holds `rows.len()` values.
    fn read_mean(&self, group: usize, rows: Range<usize>, out: &mut [f32]);

    /// Writes rows `rows` of column `column` of group `group`'s basis U into
    /// `out`, which holds `rows.len()` values.
    fn read_basis(&self, group: usize, column: usize, rows: Range<usize>, out: &mut [f32]);
}

impl ArraySource for MemgMotion {
    fn motion(&self) -> &MemgMotion {
        self
    }

    fn read_mean(&self, group: usize, rows: Range<usize>, out: &mut [f32]) {
        out.copy_from_slice(&self.groups[group].mean[rows]);
    }

    fn read_basis(&self, group: usize, column: usize, rows: Range<usize>, out: &mut [f32]) {
        let g: &MemgGroup = &self.groups[group];
        let at = column * 3 * g.vertex_count();
        out.copy_from_slice(&g.basis[at + rows.start..at + rows.end]);
    }
}
