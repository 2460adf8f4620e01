//! A MEMG motion's numbers over time, named as every path names them: the
//! columns of `export x.csv`, the curves of `plot`, `diff` and the curves
//! panel, the fields of `export --time`'s state.
//!
//! Group `g`'s coefficient `q_j(t)` is `g{g}_q{j}`; a group with a local
//! frame adds that frame's translation, `g{g}_tx`, `g{g}_ty`, `g{g}_tz` (in
//! the `.obj`'s own length unit). Between timesteps each follows the one
//! rule of [`Between`].

use super::{Between, MemgMotion};

/// One number of a MEMG motion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemgChannel {
    /// Group `group`'s basis coefficient `j`.
    Coefficient {
        /// The group, in file order.
        group: usize,
        /// The coefficient.
        j: usize,
    },
    /// The translation of group `group`'s local frame along `axis` (0, 1, 2: x, y, z).
    Translation {
        /// The group, in file order.
        group: usize,
        /// 0, 1 or 2.
        axis: usize,
    },
}

impl MemgChannel {
    /// Its name: `g1_q0`, `g2_tz`.
    pub fn name(&self) -> String {
        match *self {
            MemgChannel::Coefficient { group, j } => format!("g{group}_q{j}"),
            MemgChannel::Translation { group, axis } => {
                format!("g{group}_t{}", ["x", "y", "z"][axis.min(2)])
            }
        }
    }

    /// Its value at `at`; NaN where the motion lacks it.
    pub fn value(&self, motion: &MemgMotion, at: &Between) -> f64 {
        match *self {
            MemgChannel::Coefficient { group, j } => motion
                .groups
                .get(group)
                .filter(|g| j < g.basis_len)
                .map_or(f64::NAN, |g| at.coefficient(g, j)),
            MemgChannel::Translation { group, axis } => motion
                .groups
                .get(group)
                .and_then(|g| at.frame(motion, g.parent))
                .map_or(f64::NAN, |f| f[4 * axis.min(2) + 3]),
        }
    }
}

/// Every channel of `motion`, in order: per group its coefficients, then
/// its frame's translation if it has a local frame (a group in world space
/// has none to follow).
pub fn channels(motion: &MemgMotion) -> Vec<MemgChannel> {
    let mut out = Vec::new();
    for (group, g) in motion.groups.iter().enumerate() {
        out.extend((0..g.basis_len).map(|j| MemgChannel::Coefficient { group, j }));
        let framed = usize::try_from(g.parent).is_ok_and(|f| f < motion.local_frames);
        if framed {
            out.extend((0..3).map(|axis| MemgChannel::Translation { group, axis }));
        }
    }
    out
}
