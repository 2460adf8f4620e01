//! One group's reduced basis: the mean pose `p`, the basis `U` and the
//! coefficients `Q` of its positions in its own frame, by principal
//! component analysis (PCA), at a rank given or the smallest that holds an
//! error bound.
//!
//! With `L` the group's positions in its frames (3v rows, xyz per vertex;
//! one column per timestep), `p` their mean over time and `A = L − p`, the
//! SVD `A = U·Σ·Vᵀ` gives the best rank-r fit `U_r·Σ_r·V_rᵀ`. It is found
//! through the Gram matrix of the smaller side — `AᵀA` (n × n, built a few
//! hundred vertices at a time, so `A` is never held whole) when there are
//! fewer timesteps than rows, `AAᵀ` (3v × 3v) otherwise — and faer's
//! self-adjoint eigendecomposition of it: the cost is `3v·n·min(3v, n)`
//! multiply-adds, in faer's matrix products.
//!
//! `p`, `U` and `Q` are rounded to `f32` as they are made (a MEMG motion is
//! read back as `f32`), and the error of every rank is measured on those
//! rounded values, at every vertex and timestep, in `f64`: the largest
//! distance, not an estimate from the singular values. Under a bound the
//! ranks are tried in growing blocks (the singular values say where to
//! start), so the work is at most about twice that of the rank chosen.
//! Under a largest-error bound, a group small enough is then refitted for
//! its largest error (`minimax.rs`) at ranks below PCA's, down to the
//! lowest that still holds the bound.

use super::frames::Rigid;
use super::{Animation, Stop};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par, Side};
use rayon::prelude::*;

/// Vertices whose rows of `A` are made and used at once.
const CHUNK: usize = 256;

/// How the rank is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rank {
    /// This rank (at most the group's `min(3v, n)`).
    Fixed(usize),
    /// The smallest rank, at least the second value, whose largest error is
    /// at most the first.
    Bound(f64, usize),
    /// The smallest rank, at least the second value, whose root-mean-square
    /// error over the group's vertices and timesteps is at most the first.
    Rms(f64, usize),
}

impl Rank {
    /// This rule with `floor` as its smallest rank (a fixed rank stays).
    pub(crate) fn with_floor(self, floor: usize) -> Rank {
        match self {
            Rank::Fixed(r) => Rank::Fixed(r),
            Rank::Bound(limit, _) => Rank::Bound(limit, floor),
            Rank::Rms(limit, _) => Rank::Rms(limit, floor),
        }
    }

    /// The error bound in scene units, under a bound.
    pub(crate) fn limit(self) -> Option<f64> {
        match self {
            Rank::Fixed(_) => None,
            Rank::Bound(limit, _) | Rank::Rms(limit, _) => Some(limit),
        }
    }
}

/// Whether a fit under a largest-error bound tries the minimax refit
/// (`minimax.rs`) below PCA's rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refit {
    /// Yes: the fit written.
    Minimax,
    /// No, PCA's rank alone: a fit that only sizes a choice (which frames
    /// a group takes), cheaper by the refit's rounds.
    PcaOnly,
}

/// A group's fitted arrays, laid out as [`crate::formats::memg::MemgGroup`] holds them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GroupBasis {
    /// `p`, xyz per vertex.
    pub mean: Vec<f32>,
    /// `U`, 3v × rank, column-major.
    pub basis: Vec<f32>,
    /// `Q`, rank × n, column-major (`coeffs[t * rank + j]`).
    pub coeffs: Vec<f32>,
    /// The rank.
    pub rank: usize,
    /// The largest distance of the fit from the input at this rank, as
    /// measured here (`f64` arithmetic on the `f32` arrays).
    pub max_error: f64,
}

impl From<Unreachable> for Failed {
    fn from(u: Unreachable) -> Failed {
        Failed::Unreachable(u)
    }
}

/// Why no rank meets the bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unreachable {
    /// The largest rank there is, `min(3v, n)`.
    pub rank: usize,
    /// The largest error at that rank.
    pub max_error: f64,
}

/// Why a group was not fitted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Failed {
    /// No rank meets the bound.
    Unreachable(Unreachable),
    /// The stop flag was set.
    Stopped,
}

/// The group of `vertices` in `frames` (one per timestep), fitted at `rank`.
pub(crate) fn fit_group(
    anim: &Animation<'_>,
    vertices: &[u32],
    frames: &[Rigid],
    rank: Rank,
    refit: Refit,
    stop: Stop<'_>,
) -> Result<GroupBasis, Failed> {
    let group = Group {
        anim,
        vertices,
        frames,
        stop,
    };
    // Each step below skips its work once stopped; what it made is not used.
    let stopped = || {
        if stop.now() {
            Err(Failed::Stopped)
        } else {
            Ok(())
        }
    };
    let n = anim.frames;
    let rows = 3 * vertices.len();
    let mean = group.mean();
    let magnitude = group.magnitude();
    let largest = rows.min(n);
    stopped()?;
    let eigen = group.eigen(&mean);
    stopped()?;
    if let Rank::Rms(bound, floor) = rank {
        // The squared distances the first `r` components leave are the sum
        // of the eigenvalues past them: the smallest such rank, measured on
        // the `f32` arrays afterwards (the check refits one higher if the
        // rounding tips it over).
        let count = (vertices.len() * n).max(1) as f64;
        let mut tail: f64 = eigen.values.iter().sum();
        let mut r = 0;
        while r < largest
            && (r < floor || (tail.max(0.0) / count).sqrt() > bound - headroom(r, magnitude))
        {
            tail -= eigen.values.get(r).copied().unwrap_or(0.0);
            r += 1;
        }
        let (basis, coeffs) = group.factors(&eigen, &mean, r);
        stopped()?;
        let max_error = group.errors(&mean, &basis, &coeffs, r, Some(r))[r];
        return Ok(GroupBasis {
            basis,
            coeffs,
            mean,
            rank: r,
            max_error,
        });
    }
    let cols = match rank {
        Rank::Fixed(r) => r.min(largest),
        Rank::Rms(..) => unreachable!("fitted above"),
        Rank::Bound(bound, floor) => {
            // The root mean square of the error is at most the largest, so
            // no rank whose RMS (from the singular values) is over the
            // bound can do: start past them.
            let count = (vertices.len() * n).max(1) as f64;
            let mut tail: f64 = eigen.values.iter().sum();
            let mut at = 0;
            for &lambda in &eigen.values {
                if (tail / count).sqrt() <= bound {
                    break;
                }
                tail -= lambda;
                at += 1;
            }
            (2 * at).max(at + 4).max(floor).min(largest)
        }
    };
    let mut cols = cols;
    loop {
        let (basis, coeffs) = group.factors(&eigen, &mean, cols);
        stopped()?;
        let (r, worst) = match rank {
            Rank::Fixed(_) | Rank::Rms(..) => (
                cols,
                group.errors(&mean, &basis, &coeffs, cols, Some(cols))[cols],
            ),
            Rank::Bound(bound, floor) => {
                let errors = group.errors(&mean, &basis, &coeffs, cols, None);
                let within = |r: usize| errors[r] <= bound - headroom(r, magnitude);
                match (floor.min(cols)..=cols).find(|&r| within(r)) {
                    Some(r) => (r, errors[r]),
                    None if cols == largest => {
                        return Err(Unreachable {
                            rank: largest,
                            max_error: errors[cols],
                        }
                        .into());
                    }
                    None => {
                        cols = (2 * cols).max(cols + 8).min(largest);
                        continue;
                    }
                }
            }
        };
        stopped()?;
        if let (Rank::Bound(bound, floor), Refit::Minimax) = (rank, refit) {
            drop(eigen);
            if let Some(lower) = group.lower_rank(&mean, &basis, &coeffs, cols, r, floor, |r| {
                bound - headroom(r, magnitude)
            }) {
                return Ok(lower);
            }
            stopped()?;
        }
        return Ok(GroupBasis {
            basis: basis[..rows * r].to_vec(),
            coeffs: (0..n)
                .flat_map(|t| coeffs[t * cols..t * cols + r].iter().copied())
                .collect(),
            mean,
            rank: r,
            max_error: worst,
        });
    }
}

/// Timesteps per block where the columns of `A` are split among threads.
const COLUMN_BLOCK: usize = 512;

/// The column ranges of `n` timesteps in blocks of [`COLUMN_BLOCK`].
fn column_blocks(n: usize) -> Vec<(usize, usize)> {
    (0..n.div_ceil(COLUMN_BLOCK))
        .map(|b| (b * COLUMN_BLOCK, ((b + 1) * COLUMN_BLOCK).min(n)))
        .collect()
}

/// How far below the bound a rank-`r` fit aims: the rounding a reader
/// computing in `f32` adds (the viewer's deformer, a glTF's morph targets
/// in three.js or Blender), about an ulp of the coordinates per term
/// summed, so that they too stay within the bound. `magnitude` is the
/// largest absolute coordinate, world or local.
pub(crate) fn headroom(r: usize, magnitude: f64) -> f64 {
    (r as f64 + 16.0) * magnitude * f64::from(f32::EPSILON)
}

/// The eigendecomposition of the smaller Gram matrix, largest first.
struct Eigen {
    /// `AᵀA` (n × n) or `AAᵀ` (3v × 3v).
    side: GramSide,
    /// Eigenvalues `σ_j²`, non-increasing, none below 0.
    values: Vec<f64>,
    /// Eigenvectors, one column each, in the same order: `V` for `AᵀA`, `U` for `AAᵀ`.
    vectors: Mat<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum GramSide {
    /// `AᵀA`: fewer timesteps than rows.
    Timesteps,
    /// `AAᵀ`: fewer rows than timesteps.
    Rows,
}

/// A group of an animation in its frames.
pub(super) struct Group<'a> {
    pub(super) anim: &'a Animation<'a>,
    pub(super) vertices: &'a [u32],
    pub(super) frames: &'a [Rigid],
    pub(super) stop: Stop<'a>,
}

impl Group<'_> {
    /// Vertex `k` of the group at timestep `t`, in its frame.
    pub(super) fn local(&self, t: usize, k: usize) -> [f64; 3] {
        self.frames[t].to_local(self.anim.point(t, self.vertices[k] as usize))
    }

    /// The largest absolute coordinate of the group, in the world or in its frames.
    fn magnitude(&self) -> f64 {
        (0..self.anim.frames)
            .into_par_iter()
            .map(|t| {
                let mut m = 0f64;
                if self.stop.now() {
                    return m;
                }
                for k in 0..self.vertices.len() {
                    let world = self.anim.point(t, self.vertices[k] as usize);
                    let local = self.frames[t].to_local(world);
                    for a in 0..3 {
                        m = m.max(world[a].abs()).max(local[a].abs());
                    }
                }
                m
            })
            .reduce(|| 0.0, f64::max)
    }

    /// `p`: each row's mean over the timesteps, rounded to `f32`.
    fn mean(&self) -> Vec<f32> {
        let n = self.anim.frames.max(1) as f64;
        let mut mean = vec![0f32; 3 * self.vertices.len()];
        mean.par_chunks_mut(3).enumerate().for_each(|(k, out)| {
            if self.stop.now() {
                return;
            }
            let mut sum = [0f64; 3];
            for t in 0..self.anim.frames {
                let p = self.local(t, k);
                for a in 0..3 {
                    sum[a] += p[a];
                }
            }
            for a in 0..3 {
                out[a] = (sum[a] / n) as f32;
            }
        });
        mean
    }

    /// Rows `3·lo .. 3·hi` of `A = L − p` (p as rounded), one column per timestep.
    fn rows(&self, mean: &[f32], lo: usize, hi: usize) -> Mat<f64> {
        let n = self.anim.frames;
        let mut a = Mat::<f64>::zeros(3 * (hi - lo), n);
        for t in 0..n {
            let mut col = a.col_mut(t);
            for k in lo..hi {
                let p = self.local(t, k);
                for axis in 0..3 {
                    col[3 * (k - lo) + axis] = p[axis] - f64::from(mean[3 * k + axis]);
                }
            }
        }
        a
    }

    /// The vertex ranges `A` is made in.
    fn chunks(&self) -> Vec<(usize, usize)> {
        let v = self.vertices.len();
        (0..v.div_ceil(CHUNK))
            .map(|c| (c * CHUNK, ((c + 1) * CHUNK).min(v)))
            .collect()
    }

    /// The Gram matrix of the smaller side and its eigendecomposition.
    fn eigen(&self, mean: &[f32]) -> Eigen {
        let n = self.anim.frames;
        let rows = 3 * self.vertices.len();
        let (side, gram) = if n <= rows {
            // AᵀA, summed over chunks of rows, each thread its own sum.
            let gram = self
                .chunks()
                .into_par_iter()
                .fold(
                    || Mat::<f64>::zeros(n, n),
                    |mut g, (lo, hi)| {
                        if !self.stop.now() {
                            let a = self.rows(mean, lo, hi);
                            matmul(&mut g, Accum::Add, a.transpose(), &a, 1.0, Par::Seq);
                        }
                        g
                    },
                )
                .reduce(|| Mat::<f64>::zeros(n, n), |a, b| a + b);
            (GramSide::Timesteps, gram)
        } else {
            // A is no larger than AAᵀ here: made whole, its columns summed
            // in blocks, each thread its own sum.
            let a = self.rows(mean, 0, self.vertices.len());
            let gram = column_blocks(n)
                .into_par_iter()
                .fold(
                    || Mat::<f64>::zeros(rows, rows),
                    |mut g, (lo, hi)| {
                        if !self.stop.now() {
                            let block = a.as_ref().subcols(lo, hi - lo);
                            matmul(&mut g, Accum::Add, block, block.transpose(), 1.0, Par::Seq);
                        }
                        g
                    },
                )
                .reduce(|| Mat::<f64>::zeros(rows, rows), |a, b| a + b);
            (GramSide::Rows, gram)
        };
        let m = gram.nrows();
        let Ok(evd) = gram.self_adjoint_eigen(Side::Lower) else {
            // Only a matrix that is not finite fails, and the input is
            // checked finite: no basis (rank 0) is the fallback.
            return Eigen {
                side,
                values: vec![0.0; m],
                vectors: Mat::zeros(m, m),
            };
        };
        let s = evd.S().column_vector();
        let u = evd.U();
        // faer sorts them non-decreasing: largest first here.
        let order: Vec<usize> = (0..m).rev().collect();
        Eigen {
            side,
            values: order.iter().map(|&j| s[j].max(0.0)).collect(),
            vectors: Mat::from_fn(m, m, |i, j| u[(i, order[j])]),
        }
    }

    /// `U` (3v × cols, column-major) and `Q` (cols × n, column-major) of the
    /// first `cols` components, rounded to `f32`.
    fn factors(&self, eigen: &Eigen, mean: &[f32], cols: usize) -> (Vec<f32>, Vec<f32>) {
        let n = self.anim.frames;
        let rows = 3 * self.vertices.len();
        let mut basis = vec![0f32; rows * cols];
        let mut coeffs = vec![0f32; cols * n];
        // Components whose singular value is lost in rounding carry nothing.
        let largest = eigen.values.first().copied().unwrap_or(0.0);
        let kept = |j: usize| eigen.values[j] > largest * 1e-24 && eigen.values[j] > 0.0;
        match eigen.side {
            GramSide::Timesteps => {
                // U_j = A·v_j / σ_j, chunk by chunk; Q_j = σ_j·v_jᵀ.
                let w = Mat::from_fn(n, cols, |t, j| {
                    if kept(j) {
                        eigen.vectors[(t, j)] / eigen.values[j].sqrt()
                    } else {
                        0.0
                    }
                });
                let parts: Vec<((usize, usize), Mat<f64>)> = self
                    .chunks()
                    .into_par_iter()
                    .map(|(lo, hi)| {
                        let mut u = Mat::<f64>::zeros(3 * (hi - lo), cols);
                        if !self.stop.now() {
                            let a = self.rows(mean, lo, hi);
                            matmul(&mut u, Accum::Replace, &a, &w, 1.0, Par::Seq);
                        }
                        ((lo, hi), u)
                    })
                    .collect();
                for ((lo, _), u) in parts {
                    for j in 0..cols {
                        for r in 0..u.nrows() {
                            basis[j * rows + 3 * lo + r] = u[(r, j)] as f32;
                        }
                    }
                }
                for t in 0..n {
                    for j in 0..cols {
                        if kept(j) {
                            coeffs[t * cols + j] =
                                (eigen.values[j].sqrt() * eigen.vectors[(t, j)]) as f32;
                        }
                    }
                }
            }
            GramSide::Rows => {
                // U = the eigenvectors; Q = U32ᵀ·A, from U as rounded.
                for j in 0..cols {
                    if kept(j) {
                        for r in 0..rows {
                            basis[j * rows + r] = eigen.vectors[(r, j)] as f32;
                        }
                    }
                }
                let u = Mat::from_fn(rows, cols, |r, j| f64::from(basis[j * rows + r]));
                let a = self.rows(mean, 0, self.vertices.len());
                let blocks: Vec<((usize, usize), Mat<f64>)> = column_blocks(n)
                    .into_par_iter()
                    .map(|(lo, hi)| {
                        let mut q = Mat::<f64>::zeros(cols, hi - lo);
                        let block = a.as_ref().subcols(lo, hi - lo);
                        matmul(&mut q, Accum::Replace, u.transpose(), block, 1.0, Par::Seq);
                        ((lo, hi), q)
                    })
                    .collect();
                for ((lo, hi), q) in blocks {
                    for t in lo..hi {
                        for j in 0..cols {
                            coeffs[t * cols + j] = q[(j, t - lo)] as f32;
                        }
                    }
                }
            }
        }
        (basis, coeffs)
    }

    /// The largest error (distance from the input, any vertex, any
    /// timestep) of ranks 0 ..= `cols`, or of rank `only` alone (the other
    /// entries 0): `f64` arithmetic on the rounded arrays.
    pub(super) fn errors(
        &self,
        mean: &[f32],
        basis: &[f32],
        coeffs: &[f32],
        cols: usize,
        only: Option<usize>,
    ) -> Vec<f64> {
        let n = self.anim.frames;
        let rows = 3 * self.vertices.len();
        self.chunks()
            .into_par_iter()
            .map(|(lo, hi)| {
                let mut worst = vec![0f64; cols + 1];
                if self.stop.now() {
                    return worst;
                }
                let mut residual = self.rows(mean, lo, hi);
                let count = residual.nrows();
                let upto = only.unwrap_or(cols);
                for r in 0..=upto {
                    if self.stop.now() {
                        break;
                    }
                    if only.is_none_or(|o| o == r) {
                        let mut w = 0f64;
                        for t in 0..n {
                            let col = residual.col(t);
                            for k in 0..count / 3 {
                                let (x, y, z) = (col[3 * k], col[3 * k + 1], col[3 * k + 2]);
                                w = w.max(x * x + y * y + z * z);
                            }
                        }
                        worst[r] = w.sqrt();
                    }
                    if r == upto {
                        break;
                    }
                    // Take component r away: residual −= U_r ⊗ Q_r.
                    let u = &basis[r * rows + 3 * lo..r * rows + 3 * hi];
                    for t in 0..n {
                        let q = f64::from(coeffs[t * cols + r]);
                        if q == 0.0 {
                            continue;
                        }
                        let mut col = residual.col_mut(t);
                        for (i, &ui) in u.iter().enumerate() {
                            col[i] -= f64::from(ui) * q;
                        }
                    }
                }
                worst
            })
            .reduce(
                || vec![0f64; cols + 1],
                |a, b| a.iter().zip(&b).map(|(x, y)| x.max(*y)).collect(),
            )
    }
}
