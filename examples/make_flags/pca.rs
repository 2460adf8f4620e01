//! Compressing a group's frames the way MEMG stores them: mean + PCA basis
//! and coefficients, and the error of the stored reconstruction.

use super::cloth::{V3, norm, sub};
use motion_viewer::formats::memg::MemgGroup;

/// Symmetric eigen-decomposition by cyclic Jacobi rotations: returns the
/// eigenvalues (descending) and eigenvectors as columns `vecs[row * n + col]`.
pub fn jacobi_eigen(mut a: Vec<f64>, n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut vecs = vec![0.0; n * n];
    for i in 0..n {
        vecs[i * n + i] = 1.0;
    }
    let total: f64 = a.iter().map(|x| x * x).sum::<f64>().max(f64::MIN_POSITIVE);
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i * n + j] * a[i * n + j])
            .sum();
        if off <= 1e-24 * total {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq.abs() < 1e-300 {
                    continue;
                }
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                let sign = if theta >= 0.0 { 1.0 } else { -1.0 };
                // The smaller rotation angle's tangent, for stability.
                let t = sign / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let akp = a[k * n + p];
                    let akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let apk = a[p * n + k];
                    let aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let vkp = vecs[k * n + p];
                    let vkq = vecs[k * n + q];
                    vecs[k * n + p] = c * vkp - s * vkq;
                    vecs[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| a[j * n + j].total_cmp(&a[i * n + i]));
    let values = order.iter().map(|&i| a[i * n + i]).collect();
    let mut sorted = vec![0.0; n * n];
    for (col, &src) in order.iter().enumerate() {
        for row in 0..n {
            sorted[row * n + col] = vecs[row * n + src];
        }
    }
    (values, sorted)
}

/// A group's frames reduced to mean + basis.
pub struct Reduced {
    pub mean: Vec<f64>,
    /// Column-major 3v × r.
    pub basis: Vec<f64>,
    /// Column-major r × n.
    pub coeffs: Vec<f64>,
    pub r: usize,
    pub energy: f64,
}

/// PCA of `frames` (n × 3v): the SVD of the centred frames from the
/// eigen-decomposition of their n × n Gram matrix (n ≪ 3v, so it is small).
pub fn reduce(frames: &[Vec<V3>], keep_energy: f64, cap: usize) -> Reduced {
    let n = frames.len();
    let dim = 3 * frames[0].len();
    let flat: Vec<Vec<f64>> = frames
        .iter()
        .map(|f| f.iter().flatten().copied().collect())
        .collect();
    let mut mean = vec![0.0; dim];
    for f in &flat {
        for (m, x) in mean.iter_mut().zip(f) {
            *m += x / n as f64;
        }
    }
    let centred: Vec<Vec<f64>> = flat
        .iter()
        .map(|f| f.iter().zip(&mean).map(|(x, m)| x - m).collect())
        .collect();
    let mut gram = vec![0.0; n * n];
    for a in 0..n {
        for b in a..n {
            let g: f64 = centred[a].iter().zip(&centred[b]).map(|(x, y)| x * y).sum();
            gram[a * n + b] = g;
            gram[b * n + a] = g;
        }
    }
    let (values, vecs) = jacobi_eigen(gram, n);
    let total: f64 = values
        .iter()
        .map(|v| v.max(0.0))
        .sum::<f64>()
        .max(f64::MIN_POSITIVE);
    let mut r = 0;
    let mut kept = 0.0;
    while r < cap.min(n) && kept / total < keep_energy && values[r] > 1e-12 * total {
        kept += values[r];
        r += 1;
    }
    let mut basis = vec![0.0; dim * r];
    let mut coeffs = vec![0.0; r * n];
    for j in 0..r {
        let sigma = values[j].sqrt();
        // u_j = Dᵀ e_j / σ_j: a unit vector in vertex space.
        for (t, c) in centred.iter().enumerate() {
            let e = vecs[t * n + j] / sigma;
            for (row, x) in c.iter().enumerate() {
                basis[j * dim + row] += x * e;
            }
        }
        for t in 0..n {
            coeffs[t * r + j] = sigma * vecs[t * n + j];
        }
    }
    Reduced {
        mean,
        basis,
        coeffs,
        r,
        energy: kept / total,
    }
}

/// Largest and RMS distance between the frames and their stored reconstruction
/// (in `f32`, as decoders see it).
pub fn reconstruction_error(
    frames: &[Vec<V3>],
    g: &MemgGroup,
    shuffled_from: &[usize],
) -> (f64, f64) {
    let v = g.vertex_count();
    let r = g.basis_len;
    let (mut max, mut sum) = (0.0f64, 0.0);
    for (t, frame) in frames.iter().enumerate() {
        for i in 0..v {
            let mut p = [0.0; 3];
            for (a, x) in p.iter_mut().enumerate() {
                let row = 3 * i + a;
                *x = f64::from(g.mean[row])
                    + (0..r)
                        .map(|j| {
                            f64::from(g.basis[j * 3 * v + row]) * f64::from(g.coeffs[t * r + j])
                        })
                        .sum::<f64>();
            }
            let e = norm(sub(p, frame[shuffled_from[i]]));
            max = max.max(e);
            sum += e * e;
        }
    }
    (max, (sum / (frames.len() * v) as f64).sqrt())
}
