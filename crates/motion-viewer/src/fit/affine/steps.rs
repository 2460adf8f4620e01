//! The least squares blocks of the shared affine fit (`mod.rs`): the
//! frame at each timestep, each vertex's rows, each group's coefficients,
//! and where they start.

use crate::fit::frames;
use crate::fit::{Animation, FitGroup, Stop};
use nalgebra::{DMatrix, DVector, Matrix3, Matrix4, Matrix4x3, Vector3};
use rayon::prelude::*;

use super::factors::{Factors, Frame};

/// The rank-0 sweeps that make the framed groups' rigid frames affine
/// before any basis is fitted ([`Problem::start`]).
const SHAPE_SWEEPS: usize = 8;

/// The pull of each solve towards the values it replaces, relative to the
/// mean diagonal of its normal matrix.
const PULL: f64 = 1e-9;

/// The groups, which of them the shared frame carries (the others are in
/// world space), and their positions: the work's fixed half.
pub(super) struct Problem<'a> {
    pub(super) anim: &'a Animation<'a>,
    pub(super) groups: &'a [FitGroup],
    pub(super) framed: &'a [bool],
}

/// The frame of a group in world space.
static IDENTITY: Frame = Frame {
    a: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    c: [0.0; 3],
};

/// Per group, a value per vertex and timestep (`[g][k·n + t]`).
pub(super) type PerEntry = Vec<Vec<f64>>;

/// A symmetric positive system solved with a pull of [`PULL`] towards
/// `previous`; `previous` where it cannot be.
pub(super) fn solve_pulled(
    mut n: DMatrix<f64>,
    mut rhs: DVector<f64>,
    previous: &[f64],
) -> Vec<f64> {
    let dim = n.nrows();
    let pull = PULL * (n.trace() / dim.max(1) as f64).max(f64::MIN_POSITIVE);
    for i in 0..dim {
        n[(i, i)] += pull;
        rhs[i] += pull * previous[i];
    }
    match n.cholesky() {
        Some(c) => {
            let x = c.solve(&rhs);
            if x.iter().all(|v| v.is_finite()) {
                return x.iter().copied().collect();
            }
            previous.to_vec()
        }
        None => previous.to_vec(),
    }
}

impl Problem<'_> {
    /// Group `g`'s frame at timestep `t`: the shared one, or the identity.
    fn frame<'f>(&self, frames: &'f [Frame], g: usize, t: usize) -> &'f Frame {
        if self.framed[g] {
            &frames[t]
        } else {
            &IDENTITY
        }
    }

    /// Where the sweeps start: the rigid frames of the framed groups'
    /// vertices together, or those frames made affine by [`SHAPE_SWEEPS`]
    /// rank-0 sweeps (the frames that carry one mean shape per group best:
    /// an affine Procrustes analysis), each with every group's PCA, at its
    /// rank, of what its mean shape leaves in them: whichever leaves the
    /// smaller summed squared error.
    pub(super) fn start(
        &self,
        ranks: &[usize],
        stop: Stop<'_>,
    ) -> Option<(Vec<Frame>, Vec<Factors>)> {
        let mut all: Vec<u32> = self
            .groups
            .iter()
            .zip(self.framed)
            .filter(|(_, framed)| **framed)
            .flat_map(|(g, _)| g.vertices.iter().copied())
            .collect();
        all.sort_unstable();
        all.dedup();
        let mut frames: Vec<Frame> = frames::rigid_frames(self.anim, &all, stop)
            .iter()
            .map(|f| Frame {
                a: f.rotation,
                c: f.translation,
            })
            .collect();
        let mut shapes: Vec<Factors> = self
            .groups
            .iter()
            .map(|g| Factors {
                rank: 0,
                rows: vec![0.0; 3 * g.vertices.len()],
                coeffs: Vec::new(),
            })
            .collect();
        shapes = self.row_step(&frames, &shapes, None);
        let with_pca = |frames: Vec<Frame>, shapes: &[Factors]| {
            let factors: Vec<Factors> = self
                .groups
                .iter()
                .zip(shapes)
                .zip(ranks)
                .enumerate()
                .map(|(gi, ((g, shape), &r))| self.pca(&frames, gi, g, shape, r))
                .collect();
            let mut errors: PerEntry = self
                .groups
                .iter()
                .map(|g| vec![0.0; g.vertices.len() * self.anim.frames])
                .collect();
            let sum = self.errors(&frames, &factors, &mut errors).1;
            (sum, frames, factors)
        };
        let rigid = with_pca(frames.clone(), &shapes);
        for _ in 0..SHAPE_SWEEPS {
            if stop.now() {
                return None;
            }
            frames = self.frame_step(&frames, &shapes, None);
            shapes = self.row_step(&frames, &shapes, None);
        }
        let affine = with_pca(frames, &shapes);
        // The start that leaves less: the affine one where the body
        // stretches as a whole, the rigid one where its parts turn each
        // their own way (and an affine frame fitted to them all bends the
        // parts it fits worst).
        let (_, frames, factors) = if affine.0 < rigid.0 { affine } else { rigid };
        Some((frames, factors))
    }

    /// Group `g`'s PCA at rank `rank` (at most its `min(3v, n)`) of its
    /// local positions in `frames` less its mean `shape`: the basis from
    /// the eigenvectors of the smaller Gram matrix of those residuals.
    fn pca(
        &self,
        frames: &[Frame],
        gi: usize,
        g: &FitGroup,
        shape: &Factors,
        rank: usize,
    ) -> Factors {
        let n = frames.len();
        let rows = 3 * g.vertices.len();
        let r = rank.min(rows).min(n);
        let mut y = DMatrix::<f64>::zeros(rows, n);
        for t in 0..n {
            let f = self.frame(frames, gi, t);
            // A frame that cannot be inverted leaves its timestep's residuals 0.
            let Some(inverse) = Matrix3::from_fn(|i, j| f.a[i][j]).try_inverse() else {
                continue;
            };
            for (k, &v) in g.vertices.iter().enumerate() {
                let x = self.anim.point(t, v as usize);
                let d = Vector3::from_fn(|i, _| x[i] - f.c[i]);
                let local = inverse * d;
                for a in 0..3 {
                    y[(3 * k + a, t)] = local[a] - shape.rows[3 * k + a];
                }
            }
        }
        // `Y ≈ U·Q`: from the eigenvectors of `YᵀY` (`U = Y·V`, `Q = Vᵀ`)
        // or of `Y·Yᵀ` (`U = W`, `Q = Wᵀ·Y`), whichever is smaller.
        let by_time = n <= rows;
        let gram = if by_time {
            y.transpose() * &y
        } else {
            &y * y.transpose()
        };
        let eigen = gram.symmetric_eigen();
        let mut order: Vec<usize> = (0..eigen.eigenvalues.len()).collect();
        order.sort_by(|&a, &b| eigen.eigenvalues[b].total_cmp(&eigen.eigenvalues[a]));
        let vectors = DMatrix::from_fn(eigen.eigenvectors.nrows(), r, |i, j| {
            eigen.eigenvectors[(i, order[j])]
        });
        let (u, q) = if by_time {
            (&y * &vectors, vectors.transpose())
        } else {
            let q = vectors.transpose() * &y;
            (vectors, q)
        };
        let m = r + 1;
        let mut out = vec![0.0; rows * m];
        for i in 0..rows {
            out[i * m] = shape.rows[i];
            for j in 0..r {
                out[i * m + 1 + j] = u[(i, j)];
            }
        }
        Factors {
            rank: r,
            rows: out,
            coeffs: (0..n)
                .flat_map(|t| (0..r).map(move |j| (t, j)))
                .map(|(t, j)| q[(j, t)])
                .collect(),
        }
    }

    /// Each error (world distance) written to `out`; the largest and the
    /// sum of their squares.
    pub(super) fn errors(
        &self,
        frames: &[Frame],
        factors: &[Factors],
        out: &mut PerEntry,
    ) -> (f64, f64) {
        let n = self.anim.frames;
        let mut largest = 0f64;
        let mut sum = 0f64;
        for (gi, ((g, f), out)) in self
            .groups
            .iter()
            .zip(factors)
            .zip(out.iter_mut())
            .enumerate()
        {
            let (l, s) = out
                .par_chunks_mut(n.max(1))
                .zip(g.vertices.par_iter())
                .enumerate()
                .map(|(k, (out, &v))| {
                    let (mut l, mut s) = (0f64, 0f64);
                    for (t, e) in out.iter_mut().enumerate() {
                        let x = self.frame(frames, gi, t).apply(f.local(k, t));
                        let p = self.anim.point(t, v as usize);
                        let d2: f64 = (0..3).map(|a| (x[a] - p[a]).powi(2)).sum();
                        *e = d2.sqrt();
                        l = l.max(*e);
                        s += d2;
                    }
                    (l, s)
                })
                .collect::<Vec<_>>()
                .into_iter()
                // Summed in order, so that every run compares the same sums.
                .fold((0f64, 0f64), |a, b| (a.0.max(b.0), a.1 + b.1));
            largest = largest.max(l);
            sum += s;
        }
        (largest, sum)
    }

    /// Each timestep's frame by weighted least squares over every vertex.
    pub(super) fn frame_step(
        &self,
        frames: &[Frame],
        factors: &[Factors],
        weights: Option<&PerEntry>,
    ) -> Vec<Frame> {
        let n = self.anim.frames;
        (0..n)
            .into_par_iter()
            .map(|t| {
                let mut mm = [[0f64; 4]; 4];
                let mut rr = [[0f64; 3]; 4];
                for (gi, (g, f)) in self.groups.iter().zip(factors).enumerate() {
                    if !self.framed[gi] {
                        continue;
                    }
                    for (k, &v) in g.vertices.iter().enumerate() {
                        let w = weights.map_or(1.0, |w| w[gi][k * n + t]);
                        let y = f.local(k, t);
                        let h = [y[0], y[1], y[2], 1.0];
                        let x = self.anim.point(t, v as usize);
                        for i in 0..4 {
                            let wh = w * h[i];
                            for j in i..4 {
                                mm[i][j] += wh * h[j];
                            }
                            for j in 0..3 {
                                rr[i][j] += wh * x[j];
                            }
                        }
                    }
                }
                let mut m = Matrix4::from_fn(|i, j| mm[i.min(j)][i.max(j)]);
                let mut r = Matrix4x3::from_fn(|i, j| rr[i][j]);
                // The unknown `B` (4×3) with `x = Bᵀ·[y; 1]`: `B[j][i] = A[i][j]`, `B[3][i] = c[i]`.
                let old = frames[t];
                let pull = PULL * (m.trace() / 4.0).max(f64::MIN_POSITIVE);
                for i in 0..4 {
                    m[(i, i)] += pull;
                    for j in 0..3 {
                        let prev = if i < 3 { old.a[j][i] } else { old.c[j] };
                        r[(i, j)] += pull * prev;
                    }
                }
                match m.cholesky() {
                    Some(c) => {
                        let b = c.solve(&r);
                        if b.iter().all(|x| x.is_finite()) {
                            Frame {
                                a: std::array::from_fn(|i| std::array::from_fn(|j| b[(j, i)])),
                                c: std::array::from_fn(|i| b[(3, i)]),
                            }
                        } else {
                            old
                        }
                    }
                    None => old,
                }
            })
            .collect()
    }

    /// Each vertex's rows `[p | U]` by weighted least squares over every
    /// timestep: `x − c_t = A_t·W·z_t`, `z_t = [1; q_t]`.
    pub(super) fn row_step(
        &self,
        frames: &[Frame],
        factors: &[Factors],
        weights: Option<&PerEntry>,
    ) -> Vec<Factors> {
        let n = self.anim.frames;
        // `AᵀA` per timestep.
        let gram: Vec<[[f64; 3]; 3]> = frames.iter().map(Frame::gram).collect();
        self.groups
            .iter()
            .zip(factors)
            .enumerate()
            .map(|(gi, (g, f))| {
                let m = f.rank + 1;
                let dim = 3 * m;
                const UNIT: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
                let gram = |t: usize| if self.framed[gi] { &gram[t] } else { &UNIT };
                // `z_t = [1; q_t]`, timestep after timestep.
                let zs: Vec<f64> = (0..n)
                    .flat_map(|t| {
                        std::iter::once(1.0)
                            .chain(f.coeffs[t * f.rank..(t + 1) * f.rank].iter().copied())
                    })
                    .collect();
                // `Σ_t w_t·(AᵀA)_t ⊗ z_t·z_tᵀ`, from its six distinct 3×3
                // entries' upper triangles.
                let normal = |w: &dyn Fn(usize) -> f64| {
                    let mut nm = DMatrix::<f64>::zeros(dim, dim);
                    for t in 0..n {
                        let (w, z) = (w(t), &zs[t * m..(t + 1) * m]);
                        for a in 0..3 {
                            for b in a..3 {
                                let gab = w * gram(t)[a][b];
                                for j in 0..m {
                                    let gz = gab * z[j];
                                    let lo = if a == b { j } else { 0 };
                                    for l in lo..m {
                                        nm[(a * m + j, b * m + l)] += gz * z[l];
                                    }
                                }
                            }
                        }
                    }
                    nm.fill_lower_triangle_with_upper_triangle();
                    nm
                };
                // Unweighted, every vertex of the group shares one normal matrix.
                let shared = weights.is_none().then(|| normal(&|_| 1.0));
                let rows: Vec<f64> = g
                    .vertices
                    .par_iter()
                    .enumerate()
                    .flat_map_iter(|(k, &v)| {
                        let mut rhs = DVector::<f64>::zeros(dim);
                        for t in 0..n {
                            let w = weights.map_or(1.0, |w| w[gi][k * n + t]);
                            let x = self.anim.point(t, v as usize);
                            let fr = self.frame(frames, gi, t);
                            let d: [f64; 3] = std::array::from_fn(|a| {
                                (0..3).map(|i| fr.a[i][a] * (x[i] - fr.c[i])).sum()
                            });
                            let z = &zs[t * m..(t + 1) * m];
                            for a in 0..3 {
                                let wd = w * d[a];
                                for j in 0..m {
                                    rhs[a * m + j] += wd * z[j];
                                }
                            }
                        }
                        let nm = match &shared {
                            Some(s) => s.clone(),
                            None => normal(&|t| weights.map_or(1.0, |w| w[gi][k * n + t])),
                        };
                        solve_pulled(nm, rhs, &f.rows[k * dim..(k + 1) * dim])
                    })
                    .collect();
                Factors {
                    rank: f.rank,
                    rows,
                    coeffs: f.coeffs.clone(),
                }
            })
            .collect()
    }

    /// Each group's coefficients at each timestep by weighted least
    /// squares over its vertices: `x − c_t − A_t·p = A_t·U·q_t`.
    pub(super) fn coeff_step(
        &self,
        frames: &[Frame],
        factors: &[Factors],
        weights: Option<&PerEntry>,
    ) -> Vec<Factors> {
        let n = self.anim.frames;
        self.groups
            .iter()
            .zip(factors)
            .enumerate()
            .map(|(gi, (g, f))| {
                let (r, m) = (f.rank, f.rank + 1);
                if r == 0 {
                    return f.clone();
                }
                // Vertex k's basis row for axis a: `U_k[a, ·]`.
                let u = |k: usize, a: usize| &f.rows[(k * 3 + a) * m + 1..(k * 3 + a + 1) * m];
                // Unweighted, `Σ_k U_kᵀ·G·U_k = Σ_ab G_ab·M_ab` with
                // `M_ab = Σ_k U_k[a, ·]ᵀ·U_k[b, ·]`, the same every timestep.
                let blocks: Option<Vec<f64>> = weights.is_none().then(|| {
                    let mut mab = vec![0.0; 9 * r * r];
                    for k in 0..g.vertices.len() {
                        for a in 0..3 {
                            for b in 0..3 {
                                let (ua, ub) = (u(k, a), u(k, b));
                                let out = &mut mab[(a * 3 + b) * r * r..(a * 3 + b + 1) * r * r];
                                for j in 0..r {
                                    for l in 0..r {
                                        out[j * r + l] += ua[j] * ub[l];
                                    }
                                }
                            }
                        }
                    }
                    mab
                });
                let coeffs: Vec<f64> = (0..n)
                    .into_par_iter()
                    .flat_map_iter(|t| {
                        let fr = self.frame(frames, gi, t);
                        let gram = fr.gram();
                        let mut nm = vec![0.0; r * r];
                        let mut rhs = vec![0.0; r];
                        let mut h = vec![0.0; 3 * r];
                        if let Some(mab) = &blocks {
                            for a in 0..3 {
                                for b in 0..3 {
                                    let block = &mab[(a * 3 + b) * r * r..(a * 3 + b + 1) * r * r];
                                    for (n, x) in nm.iter_mut().zip(block) {
                                        *n += gram[a][b] * x;
                                    }
                                }
                            }
                        }
                        for (k, &v) in g.vertices.iter().enumerate() {
                            let w = weights.map_or(1.0, |w| w[gi][k * n + t]);
                            let x = self.anim.point(t, v as usize);
                            let p = [0, 1, 2].map(|a| f.rows[(k * 3 + a) * m]);
                            // `Aᵀ·(x − c) − G·p`.
                            let e: [f64; 3] = std::array::from_fn(|a| {
                                (0..3)
                                    .map(|i| fr.a[i][a] * (x[i] - fr.c[i]) - gram[a][i] * p[i])
                                    .sum()
                            });
                            for (a, ea) in e.iter().enumerate() {
                                for (rh, uj) in rhs.iter_mut().zip(u(k, a)) {
                                    *rh += w * ea * uj;
                                }
                            }
                            if blocks.is_none() {
                                // `h_a = Σ_b G_ab·U_k[b, ·]`, then `U_kᵀ·h`.
                                for a in 0..3 {
                                    for l in 0..r {
                                        h[a * r + l] =
                                            (0..3).map(|b| gram[a][b] * u(k, b)[l]).sum();
                                    }
                                }
                                for a in 0..3 {
                                    let ua = u(k, a);
                                    for j in 0..r {
                                        let wu = w * ua[j];
                                        for l in j..r {
                                            nm[j * r + l] += wu * h[a * r + l];
                                        }
                                    }
                                }
                            }
                        }
                        let mut nm = DMatrix::from_row_slice(r, r, &nm);
                        if blocks.is_none() {
                            nm.fill_lower_triangle_with_upper_triangle();
                        }
                        solve_pulled(nm, DVector::from_vec(rhs), &f.coeffs[t * r..(t + 1) * r])
                    })
                    .collect();
                Factors {
                    rank: r,
                    rows: f.rows.clone(),
                    coeffs,
                }
            })
            .collect()
    }
}
