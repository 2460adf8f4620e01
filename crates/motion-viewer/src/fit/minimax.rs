//! A group's basis refitted for its largest error, at a lower rank than
//! PCA's.
//!
//! PCA (`basis.rs`) gives the rank-r basis with the least *summed* squared
//! error; the bound a fit holds is on the *largest*. A few vertices at a
//! few timesteps set the largest error, and a fit that weighs them more
//! can often drop a rank or more under the same bound (on Dem Bones'
//! sample, 754 vertices × 400 frames in one rigid frame: the rank-5
//! basis's largest error falls from 2.6 % of the diagonal to 1.3 %, the
//! rank-7's from 1.8 % to 1.0 %).
//!
//! Lawson's iteratively reweighted least squares, as an alternating
//! fit: starting from PCA's rank-r factors, each round weighs every vertex
//! and timestep by its error in the round before (the square root of its
//! ratio to the mean error, so the weights move gently), refits each
//! vertex's mean and basis rows, then each timestep's coefficients, by
//! weighted least squares. The round with the smallest largest error is
//! kept; the caller measures it again on the `f32` arrays it writes.
//!
//! The group's positions in its frames are held whole (`f64`), with a
//! weight and an error per vertex and timestep: only groups of at most
//! [`MAX_ENTRIES`] coordinates over time are refitted ([`refits`]), and
//! `budget::fit_bytes` counts [`bytes`] for them; and only at ranks whose
//! rounds are cheap enough ([`refits_at`]).

use super::Stop;
use super::basis::{Group, GroupBasis};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};
use nalgebra::DMatrix;
use rayon::prelude::*;

/// The most coordinates × timesteps (`3v·n`) a group may have to be
/// refitted: 1 Mi, 8 MiB of positions and 20 MiB in all ([`bytes`]).
pub(crate) const MAX_ENTRIES: u64 = 1 << 20;

/// The most multiply-adds one round may take (`v·n·(r + 1)²`, about a
/// third of a round's work): about a second on two cores. Above it the
/// refit is not tried, so a fit near the full rank of a large group keeps
/// PCA's rank rather than spending minutes for it.
pub(crate) const MAX_ROUND_WORK: u64 = 1 << 30;

/// How long a refit goes on: rounds of reweighting at most, and rounds
/// without a smaller largest error after which it stops.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rounds {
    pub most: usize,
    pub patience: usize,
}

/// A refit aimed at a bound: a few rounds, as it is tried at several ranks.
const TO_BOUND: Rounds = Rounds {
    most: 8,
    patience: 2,
};

/// The polish of a fit already within its bound ([`polish`]): once, at its
/// rank, and restarting from even weights, so longer.
const POLISHED: Rounds = Rounds {
    most: 32,
    patience: 6,
};

/// Whether a group of `vertices` over `frames` timesteps may be refitted:
/// its positions are held whole, so [`bytes`] counts for it.
pub(crate) fn refits(vertices: u64, frames: u64) -> bool {
    vertices.saturating_mul(3).saturating_mul(frames) <= MAX_ENTRIES
}

/// Whether such a group is refitted at rank `rank`: its rounds' work is
/// within [`MAX_ROUND_WORK`].
pub(crate) fn refits_at(vertices: u64, frames: u64, rank: u64) -> bool {
    let m = rank.saturating_add(1);
    refits(vertices, frames)
        && vertices
            .saturating_mul(frames)
            .saturating_mul(m.saturating_mul(m))
            <= MAX_ROUND_WORK
}

/// Bytes a refit holds at rank `rank`: the positions (`f64`), a weight and
/// an error per vertex and timestep, the factors twice (the round's and the
/// best).
pub(crate) fn bytes(vertices: u64, frames: u64, rank: u64) -> u64 {
    let vn = vertices.saturating_mul(frames);
    let factors = vertices
        .saturating_mul(3)
        .saturating_mul(rank + 1)
        .saturating_add(frames.saturating_mul(rank));
    vn.saturating_mul(24 + 16)
        .saturating_add(factors.saturating_mul(16))
}

/// The refit tried on a group PCA has fitted (`basis.rs`).
impl Group<'_> {
    /// `A = L − p` whole, timestep after timestep (`t·3v + row`), for the refit.
    pub(super) fn rows_by_time(&self, mean: &[f32]) -> Vec<f64> {
        let rows = 3 * self.vertices.len();
        let mut a = vec![0f64; rows * self.anim.frames];
        a.par_chunks_mut(rows.max(1))
            .enumerate()
            .for_each(|(t, out)| {
                for k in 0..self.vertices.len() {
                    let p = self.local(t, k);
                    for axis in 0..3 {
                        out[3 * k + axis] = p[axis] - f64::from(mean[3 * k + axis]);
                    }
                }
            });
        a
    }

    /// Under a largest-error bound that PCA meets at rank `r`, the lowest
    /// rank below it (at least `floor`) that the minimax refit meets, each
    /// measured on the `f32` arrays as PCA's ranks are (the ranks searched
    /// by halving, taking a refit's reach as falling with the rank); `None` where none
    /// does, the group is too large to refit or its rounds would cost too
    /// much ([`refits_at`]), or the fit was stopped. `within(r)` is the
    /// largest error allowed at rank `r`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lower_rank(
        &self,
        mean: &[f32],
        basis: &[f32],
        coeffs: &[f32],
        cols: usize,
        r: usize,
        floor: usize,
        within: impl Fn(usize) -> f64,
    ) -> Option<GroupBasis> {
        let (v, n) = (self.vertices.len(), self.anim.frames);
        if r <= floor || !refits_at(v as u64, n as u64, r as u64 - 1) {
            return None;
        }
        let a = self.rows_by_time(mean);
        let probe = |rank: usize| -> Option<Option<GroupBasis>> {
            // Aimed a little under the bound: the f32 arrays are measured again.
            let target = within(rank) * (1.0 - 1e-6);
            let refit = refit(
                &a, mean, basis, coeffs, cols, rank, target, TO_BOUND, self.stop,
            )?;
            let max_error =
                self.errors(&refit.mean, &refit.basis, &refit.coeffs, rank, Some(rank))[rank];
            if self.stop.now() {
                return None;
            }
            Some((max_error <= within(rank)).then_some(GroupBasis {
                mean: refit.mean,
                basis: refit.basis,
                coeffs: refit.coeffs,
                rank,
                max_error,
            }))
        };
        // One rank below PCA's first (where the refit gains nothing, that
        // is all it costs), then halving the ranks between the floor and
        // the lowest met so far: a fall of 35 ranks (the flag at 0.1 %)
        // costs 7 refits, not 36.
        let mut lower = probe(r - 1)??;
        let (mut lo, mut hi) = (floor, r - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match probe(mid)? {
                Some(met) => {
                    hi = mid;
                    lower = met;
                }
                None => lo = mid + 1,
            }
        }
        Some(lower)
    }
}

/// `fit`, the basis of the group of `vertices` in `frames` (one per
/// timestep), refitted at its own rank for the smallest largest error:
/// the rounds go on past the bound, as long as they gain. What the fit then
/// leaves of the bound is what a quantized glTF spends (8-bit targets,
/// 16-bit rotations, fewer keys). Kept where measured lower on the `f32`
/// arrays; `fit` as it was where the group is too large to refit, its
/// rounds would cost too much ([`refits_at`]) or the fit was stopped.
pub(crate) fn polish(
    anim: &super::Animation<'_>,
    vertices: &[u32],
    frames: &[super::frames::Rigid],
    fit: GroupBasis,
    stop: Stop<'_>,
) -> GroupBasis {
    let (v, n, r) = (vertices.len() as u64, anim.frames as u64, fit.rank);
    if !refits_at(v, n, r as u64) {
        return fit;
    }
    let group = Group {
        anim,
        vertices,
        frames,
        stop,
    };
    let a = group.rows_by_time(&fit.mean);
    let Some(polished) = refit(
        &a,
        &fit.mean,
        &fit.basis,
        &fit.coeffs,
        r,
        r,
        0.0,
        POLISHED,
        stop,
    ) else {
        return fit;
    };
    drop(a);
    let after = group.errors(
        &polished.mean,
        &polished.basis,
        &polished.coeffs,
        r,
        Some(r),
    )[r];
    // `fit.max_error` is the same measure of the fit as it came from
    // `basis::fit_group` (a disassembled one's 0 keeps it as it is).
    if after < fit.max_error && !stop.now() {
        GroupBasis {
            mean: polished.mean,
            basis: polished.basis,
            coeffs: polished.coeffs,
            rank: r,
            max_error: after,
        }
    } else {
        fit
    }
}

/// A rank-r fit of a group's rows: per vertex its mean offset and basis
/// rows, per timestep its coefficients.
#[derive(Clone)]
struct Factors {
    /// Per vertex `k`, per axis `a`, `r + 1` numbers at
    /// `(3k + a)·(r + 1)`: the offset of the mean, then the basis row.
    rows: Vec<f64>,
    /// Per timestep `t`, `r` coefficients at `t·r`.
    coeffs: Vec<f64>,
}

/// The refitted arrays, rounded to `f32` and laid out as `GroupBasis` holds them.
pub(crate) struct Refit {
    /// `p`, xyz per vertex.
    pub mean: Vec<f32>,
    /// `U`, 3v × r, column-major.
    pub basis: Vec<f32>,
    /// `Q`, r × n, column-major.
    pub coeffs: Vec<f32>,
}

/// Rounds after which a refit still this many times over its target gives up.
const HOPELESS: (usize, f64) = (3, 1.3);

/// The rank-`r` minimax refit of a group whose rows `a` (per timestep `t`,
/// the `3v` coordinates at `t·3v`, each less the mean `mean`) PCA fitted
/// as `basis` (3v × `cols`, column-major) and `coeffs` (`cols` × n,
/// column-major); its first `r` columns are the start. The rounds stop
/// once the largest error is at most `target` (or, after a few rounds,
/// still far over it). `None` when stopped.
#[allow(clippy::too_many_arguments)]
pub(crate) fn refit(
    a: &[f64],
    mean: &[f32],
    basis: &[f32],
    coeffs: &[f32],
    cols: usize,
    r: usize,
    target: f64,
    rounds: Rounds,
    stop: Stop<'_>,
) -> Option<Refit> {
    let rows = mean.len();
    let v = rows / 3;
    let n = a.len().checked_div(rows).unwrap_or(0);
    let mut fit = Factors {
        rows: vec![0.0; rows * (r + 1)],
        coeffs: vec![0.0; n * r],
    };
    for i in 0..rows {
        for j in 0..r {
            fit.rows[i * (r + 1) + 1 + j] = f64::from(basis[j * rows + i]);
        }
    }
    for t in 0..n {
        for j in 0..r {
            fit.coeffs[t * r + j] = f64::from(coeffs[t * cols + j]);
        }
    }
    let mut weights = vec![1.0f64; n * v];
    let mut errors = vec![0.0f64; n * v];
    let mut best = (f64::INFINITY, fit.clone());
    let mut since = 0;
    let Rounds { most, patience } = rounds;
    for round in 0..=most {
        if stop.now() {
            return None;
        }
        let worst = measure(a, &fit, r, rows, &mut errors);
        if worst < best.0 {
            best = (worst, fit.clone());
            since = 0;
        } else {
            since += 1;
        }
        let hopeless = target > 0.0 && round >= HOPELESS.0 && best.0 > HOPELESS.1 * target;
        if best.0 <= target || hopeless || round == most || since >= patience {
            break;
        }
        reweigh(&mut weights, &errors);
        fit_rows(a, &mut fit, &weights, r, rows, n, stop);
        fit_coeffs(a, &mut fit, &weights, r, rows, stop);
    }
    let fit = best.1;
    Some(Refit {
        mean: (0..rows)
            .map(|i| (f64::from(mean[i]) + fit.rows[i * (r + 1)]) as f32)
            .collect(),
        basis: (0..r)
            .flat_map(|j| (0..rows).map(move |i| (j, i)))
            .map(|(j, i)| fit.rows[i * (r + 1) + 1 + j] as f32)
            .collect(),
        coeffs: fit.coeffs.iter().map(|&q| q as f32).collect(),
    })
}

/// Each vertex's distance from its rows at each timestep, into `errors`
/// (`t·v + k`); returns the largest.
fn measure(a: &[f64], fit: &Factors, r: usize, rows: usize, errors: &mut [f64]) -> f64 {
    let v = rows / 3;
    errors
        .par_chunks_mut(v.max(1))
        .enumerate()
        .map(|(t, out)| {
            let q = &fit.coeffs[t * r..(t + 1) * r];
            let at = &a[t * rows..(t + 1) * rows];
            let mut worst = 0f64;
            for (k, e) in out.iter_mut().enumerate() {
                let mut sum = 0.0;
                for axis in 0..3 {
                    let i = 3 * k + axis;
                    let row = &fit.rows[i * (r + 1)..(i + 1) * (r + 1)];
                    let mut x = row[0];
                    for j in 0..r {
                        x += row[1 + j] * q[j];
                    }
                    let d = at[i] - x;
                    sum += d * d;
                }
                *e = sum.sqrt();
                worst = worst.max(*e);
            }
            worst
        })
        .reduce(|| 0.0, f64::max)
}

/// Lawson's step, damped: each weight times the square root of its error's
/// ratio to the mean (a little added, so no weight reaches 0), then all
/// scaled to a mean of 1.
fn reweigh(weights: &mut [f64], errors: &[f64]) {
    let count = errors.len().max(1) as f64;
    let mean = errors.iter().sum::<f64>() / count;
    if mean <= 0.0 {
        return;
    }
    for (w, e) in weights.iter_mut().zip(errors) {
        *w *= (e / mean + 1e-3).sqrt();
    }
    let scale = count / weights.iter().sum::<f64>();
    for w in weights.iter_mut() {
        *w *= scale;
    }
}

/// Each vertex's mean offset and basis rows by weighted least squares on
/// the coefficients `[1, q_t]`: per vertex, with `S` the coefficients
/// scaled by the square roots of its weights, `SᵀS·x = Sᵀ·(√w ⊙ a)` (faer's
/// products). Stopped, the rows are left half done: the refit is thrown
/// away.
#[allow(clippy::too_many_arguments)]
fn fit_rows(
    a: &[f64],
    fit: &mut Factors,
    weights: &[f64],
    r: usize,
    rows: usize,
    n: usize,
    stop: Stop<'_>,
) {
    let v = rows / 3;
    let m = r + 1;
    let coeffs = &fit.coeffs;
    fit.rows
        .par_chunks_mut(3 * m)
        .enumerate()
        .for_each(|(k, out)| {
            if stop.now() {
                return;
            }
            let root: Vec<f64> = (0..n).map(|t| weights[t * v + k].sqrt()).collect();
            let s = Mat::from_fn(n, m, |t, j| {
                if j == 0 {
                    root[t]
                } else {
                    root[t] * coeffs[t * r + j - 1]
                }
            });
            let y = Mat::from_fn(n, 3, |t, axis| root[t] * a[t * rows + 3 * k + axis]);
            if let Some(x) = least_squares(&s, &y) {
                out.copy_from_slice(&x);
            }
        });
}

/// Each timestep's coefficients by weighted least squares on the basis
/// rows, the mean offset taken away (stopped: as [`fit_rows`]): per
/// timestep, with `S` the basis rows scaled by the square roots of its
/// weights, `SᵀS·q = Sᵀ·(√w ⊙ (a − p))`.
fn fit_coeffs(
    a: &[f64],
    fit: &mut Factors,
    weights: &[f64],
    r: usize,
    rows: usize,
    stop: Stop<'_>,
) {
    if r == 0 {
        return;
    }
    let v = rows / 3;
    let basis = &fit.rows;
    fit.coeffs
        .par_chunks_mut(r)
        .enumerate()
        .for_each(|(t, out)| {
            if stop.now() {
                return;
            }
            let w = &weights[t * v..(t + 1) * v];
            let root: Vec<f64> = w.iter().map(|w| w.sqrt()).collect();
            let s = Mat::from_fn(rows, r, |i, j| root[i / 3] * basis[i * (r + 1) + 1 + j]);
            let y = Mat::from_fn(rows, 1, |i, _| {
                root[i / 3] * (a[t * rows + i] - basis[i * (r + 1)])
            });
            if let Some(x) = least_squares(&s, &y) {
                out.copy_from_slice(&x);
            }
        });
}

/// The `X` that minimises `|S·X − Y|` column by column, by the normal
/// equations `SᵀS·X = Sᵀ·Y` (faer's products); the answers, column after
/// column. Cholesky (nalgebra's) with a relative ridge, so a vertex or
/// timestep the basis barely reaches keeps a finite answer; `None` where
/// even that fails.
fn least_squares(s: &Mat<f64>, y: &Mat<f64>) -> Option<Vec<f64>> {
    let (m, cols) = (s.ncols(), y.ncols());
    let mut gram = Mat::<f64>::zeros(m, m);
    let mut rhs = Mat::<f64>::zeros(m, cols);
    matmul(&mut gram, Accum::Replace, s.transpose(), s, 1.0, Par::Seq);
    matmul(&mut rhs, Accum::Replace, s.transpose(), y, 1.0, Par::Seq);
    let trace: f64 = (0..m).map(|i| gram[(i, i)]).sum();
    let ridge = 1e-12 * (trace / m.max(1) as f64).max(f64::MIN_POSITIVE);
    let g = DMatrix::from_fn(m, m, |i, j| gram[(i, j)] + if i == j { ridge } else { 0.0 });
    let b = DMatrix::from_fn(m, cols, |i, j| rhs[(i, j)]);
    let x = g.cholesky()?.solve(&b);
    x.iter()
        .all(|x| x.is_finite())
        .then(|| x.as_slice().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::NEVER;

    /// The largest distance of `mean + basis·coeffs` from `a`, in `f64`.
    fn largest(a: &[f64], mean: &[f32], basis: &[f32], coeffs: &[f32], r: usize) -> f64 {
        let rows = mean.len();
        let mut worst = 0f64;
        for t in 0..a.len() / rows {
            for k in 0..rows / 3 {
                let d: f64 = (0..3)
                    .map(|axis| {
                        let i = 3 * k + axis;
                        let x = f64::from(mean[i])
                            + (0..r)
                                .map(|j| {
                                    f64::from(basis[j * rows + i]) * f64::from(coeffs[t * r + j])
                                })
                                .sum::<f64>();
                        (a[t * rows + i] - x).powi(2)
                    })
                    .sum();
                worst = worst.max(d.sqrt());
            }
        }
        worst
    }

    /// One coordinate over ten timesteps, 0 nine times and 1 once: its mean
    /// (PCA's rank 0) is 0.1 and misses by 0.9; the constant with the
    /// smallest largest error is the midrange, 0.5, missing by 0.5 either
    /// way. The refit, aimed at that, gets within 1 % of it.
    #[test]
    fn rank_zero_tends_to_the_midrange() {
        let n = 10;
        let mut a = vec![0.0; 3 * n];
        a[3 * (n - 1)] = 0.9;
        for t in 0..n - 1 {
            a[3 * t] = -0.1;
        }
        let mean = [0.1f32, 0.0, 0.0];
        let refit = refit(&a, &[0.0; 3], &[], &[], 0, 0, 0.5, TO_BOUND, Stop(&NEVER)).unwrap();
        let offset = f64::from(refit.mean[0]);
        let worst = largest(&a, &refit.mean, &refit.basis, &refit.coeffs, 0);
        assert!(worst <= 0.505, "largest error {worst}, offset {offset}");
        assert!(
            (offset + f64::from(mean[0]) - 0.5).abs() <= 0.005,
            "offset {offset}"
        );
    }

    /// Rows a rank explains but for one vertex that strays at one timestep:
    /// PCA spreads the stray over its least squares; the refit, from PCA's
    /// rank-1 start, brings the largest error below 90 % of PCA's.
    #[test]
    fn a_straying_vertex_is_weighed_until_its_error_falls() {
        let (v, n) = (6usize, 40usize);
        let rows = 3 * v;
        let mut a = vec![0.0; rows * n];
        for t in 0..n {
            let s = (t as f64 * 0.3).sin();
            for i in 0..rows {
                a[t * rows + i] = s * (i as f64 + 1.0) * 0.1;
            }
        }
        a[17 * rows + 4] += 0.5;
        let mean = vec![0f32; rows];
        // The start: the sine's column, its coefficients by least squares.
        let norm = (0..rows)
            .map(|i| ((i as f64 + 1.0) * 0.1).powi(2))
            .sum::<f64>()
            .sqrt();
        let basis: Vec<f32> = (0..rows)
            .map(|i| ((i as f64 + 1.0) * 0.1 / norm) as f32)
            .collect();
        let coeffs: Vec<f32> = (0..n)
            .map(|t| {
                (0..rows)
                    .map(|i| a[t * rows + i] * f64::from(basis[i]))
                    .sum::<f64>() as f32
            })
            .collect();
        let before = largest(&a, &mean, &basis, &coeffs, 1);
        let refit = refit(
            &a,
            &mean,
            &basis,
            &coeffs,
            1,
            1,
            0.0,
            TO_BOUND,
            Stop(&NEVER),
        )
        .unwrap();
        let after = largest(&a, &refit.mean, &refit.basis, &refit.coeffs, 1);
        assert!(
            after < 0.9 * before,
            "largest error {after} against {before}"
        );
    }
}
