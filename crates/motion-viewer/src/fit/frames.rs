//! Rigid frames: per group and timestep, the rotation and translation that
//! carry the group's shape, in a frame of its own, onto its positions then.
//!
//! Generalised Procrustes analysis: each timestep's positions, centred on
//! their centroid, are turned onto a reference shape by the Kabsch rotation
//! (the SVD of their 3×3 cross-covariance, its sign fixed so the result
//! never mirrors); the reference starts as the first timestep and becomes
//! the mean of the turned shapes, [`ROUNDS`] times. A frame is a rotation
//! and a translation only, so the reduced glTF export carries it as a
//! node's rotation and translation (scale 1).

use super::{Animation, Stop};
use rayon::prelude::*;

/// Procrustes rounds: the first aligns every timestep to the first, each
/// later one to the mean of the shapes the round before aligned.
pub const ROUNDS: usize = 3;

/// A rigid transform `x = R·s + c`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rigid {
    /// `R`, row-major, a rotation (orthonormal, determinant +1).
    pub rotation: [[f64; 3]; 3],
    /// `c`.
    pub translation: [f64; 3],
}

impl Rigid {
    /// The identity: a group in world space.
    pub(crate) const IDENTITY: Rigid = Rigid {
        rotation: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        translation: [0.0; 3],
    };

    /// `Rᵀ·(x − c)`: a world position in this frame.
    pub(crate) fn to_local(self, x: [f64; 3]) -> [f64; 3] {
        let d = [
            x[0] - self.translation[0],
            x[1] - self.translation[1],
            x[2] - self.translation[2],
        ];
        let r = &self.rotation;
        std::array::from_fn(|a| r[0][a] * d[0] + r[1][a] * d[1] + r[2][a] * d[2])
    }

    /// The row-major 3×4 matrix `[R | c]` a MEMG file stores.
    pub(crate) fn matrix(&self) -> [f64; 12] {
        let (r, c) = (&self.rotation, &self.translation);
        [
            r[0][0], r[0][1], r[0][2], c[0], r[1][0], r[1][1], r[1][2], c[1], r[2][0], r[2][1],
            r[2][2], c[2],
        ]
    }
}

/// The frame of the group made of `vertices` at every timestep of `anim`.
pub(crate) fn rigid_frames(anim: &Animation<'_>, vertices: &[u32], stop: Stop<'_>) -> Vec<Rigid> {
    let centroids: Vec<[f64; 3]> = (0..anim.frames)
        .into_par_iter()
        .map(|t| centroid(anim, t, vertices))
        .collect();
    // The first timestep, centred, is the first reference.
    let mut reference: Vec<[f64; 3]> = vertices
        .iter()
        .map(|&i| sub(anim.point(0, i as usize), centroids[0]))
        .collect();
    let mut rotations = vec![Rigid::IDENTITY.rotation; anim.frames];
    for _ in 0..ROUNDS {
        rotations = (0..anim.frames)
            .into_par_iter()
            .map(|t| {
                // Stopped: the frames are thrown away.
                if stop.now() {
                    return Rigid::IDENTITY.rotation;
                }
                kabsch(&cross_covariance(
                    anim,
                    t,
                    vertices,
                    centroids[t],
                    &reference,
                ))
            })
            .collect();
        reference = mean_shape(anim, vertices, &centroids, &rotations);
    }
    rotations
        .into_iter()
        .zip(centroids)
        .map(|(rotation, translation)| Rigid {
            rotation,
            translation,
        })
        .collect()
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The mean of the group's positions at timestep `t`.
fn centroid(anim: &Animation<'_>, t: usize, vertices: &[u32]) -> [f64; 3] {
    let mut sum = [0f64; 3];
    for &i in vertices {
        let p = anim.point(t, i as usize);
        for a in 0..3 {
            sum[a] += p[a];
        }
    }
    sum.map(|s| s / vertices.len().max(1) as f64)
}

/// `H = Σ_i (x_i − c)·s_iᵀ` at timestep `t`.
fn cross_covariance(
    anim: &Animation<'_>,
    t: usize,
    vertices: &[u32],
    c: [f64; 3],
    reference: &[[f64; 3]],
) -> [[f64; 3]; 3] {
    let mut h = [[0f64; 3]; 3];
    for (&i, s) in vertices.iter().zip(reference) {
        let y = sub(anim.point(t, i as usize), c);
        for (row, &yr) in h.iter_mut().zip(&y) {
            for (x, &sc) in row.iter_mut().zip(s) {
                *x += yr * sc;
            }
        }
    }
    h
}

/// The rotation `R` maximising `tr(Rᵀ·H)`: `U·diag(1, 1, d)·Vᵀ` for the SVD
/// `H = U·Σ·Vᵀ`, with `d = ±1` the sign that keeps `det R = +1`. The
/// identity where the SVD fails (a matrix that is not finite).
pub(super) fn kabsch(h: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    // nalgebra's fixed-size SVD (on the stack, singular values largest
    // first): a small group's fit makes one per frame and round.
    if !h.iter().flatten().all(|x| x.is_finite()) {
        return Rigid::IDENTITY.rotation;
    }
    let m = nalgebra::Matrix3::from_fn(|i, j| h[i][j]);
    let Some(svd) = m.try_svd(true, true, f64::EPSILON, 1000) else {
        return Rigid::IDENTITY.rotation;
    };
    let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
        return Rigid::IDENTITY.rotation;
    };
    let v = v_t.transpose();
    let product = |d: f64| -> [[f64; 3]; 3] {
        std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                u[(i, 0)] * v[(j, 0)] + u[(i, 1)] * v[(j, 1)] + d * u[(i, 2)] * v[(j, 2)]
            })
        })
    };
    let r = product(1.0);
    if determinant(&r) < 0.0 {
        product(-1.0)
    } else {
        r
    }
}

fn determinant(r: &[[f64; 3]; 3]) -> f64 {
    r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1])
        - r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0])
        + r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0])
}

/// The mean over timesteps of each vertex turned back by `Rᵀ` about its
/// timestep's centroid: the next reference shape.
fn mean_shape(
    anim: &Animation<'_>,
    vertices: &[u32],
    centroids: &[[f64; 3]],
    rotations: &[[[f64; 3]; 3]],
) -> Vec<[f64; 3]> {
    let n = anim.frames.max(1) as f64;
    vertices
        .par_iter()
        .map(|&i| {
            let mut sum = [0f64; 3];
            for (t, (&translation, &rotation)) in centroids.iter().zip(rotations).enumerate() {
                let local = Rigid {
                    rotation,
                    translation,
                }
                .to_local(anim.point(t, i as usize));
                for a in 0..3 {
                    sum[a] += local[a];
                }
            }
            sum.map(|s| s / n)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rotation by `angle` about the unit axis `k` (Rodrigues).
    fn rotation(k: [f64; 3], angle: f64) -> [[f64; 3]; 3] {
        let (s, c) = angle.sin_cos();
        std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                let cross = match (i, j) {
                    (0, 1) => -k[2],
                    (0, 2) => k[1],
                    (1, 0) => k[2],
                    (1, 2) => -k[0],
                    (2, 0) => -k[1],
                    (2, 1) => k[0],
                    _ => 0.0,
                };
                let id = if i == j { 1.0 } else { 0.0 };
                c * id + s * cross + (1.0 - c) * k[i] * k[j]
            })
        })
    }

    #[test]
    fn a_rigidly_moving_shape_is_recovered_exactly() {
        // A lopsided tetrahedron and more, turned and carried over 5 timesteps.
        let shape = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 2.0, 0.0],
            [0.0, 0.0, 3.0],
            [0.5, 0.7, -0.2],
        ];
        let norm = (1.0f64 + 4.0 + 9.0).sqrt();
        let axis = [1.0 / norm, 2.0 / norm, 3.0 / norm];
        let mut positions = Vec::new();
        let mut truth = Vec::new();
        for t in 0..5 {
            let r = rotation(axis, 0.4 * t as f64 - 0.3);
            let c = [t as f64, -2.0 * t as f64, 0.5];
            truth.push(r);
            for p in shape {
                for row in r {
                    positions.push((row[0] * p[0] + row[1] * p[1] + row[2] * p[2]) as f32);
                }
                let n = positions.len();
                for a in 0..3 {
                    positions[n - 3 + a] += c[a] as f32;
                }
            }
        }
        let anim = Animation {
            positions: &positions,
            vertices: 5,
            frames: 5,
        };
        let frames = rigid_frames(&anim, &[0, 1, 2, 3, 4], Stop(&crate::fit::NEVER));
        // Relative to the first timestep, each frame turns by the true
        // rotation relative to the first: R_t·R_0ᵀ = T_t·T_0ᵀ.
        for t in 0..5 {
            let r = &frames[t].rotation;
            let r0 = &frames[0].rotation;
            for i in 0..3 {
                for j in 0..3 {
                    let ours: f64 = (0..3).map(|k| r[i][k] * r0[j][k]).sum();
                    let want: f64 = (0..3).map(|k| truth[t][i][k] * truth[0][j][k]).sum();
                    assert!(
                        (ours - want).abs() < 1e-6,
                        "t {t} ({i},{j}): {ours} vs {want}"
                    );
                }
            }
            assert!((determinant(r) - 1.0).abs() < 1e-12);
            // Every vertex comes back to the same local position.
            for v in 0..5 {
                let a = frames[t].to_local(anim.point(t, v));
                let b = frames[0].to_local(anim.point(0, v));
                for k in 0..3 {
                    assert!((a[k] - b[k]).abs() < 1e-5, "t {t} vertex {v}");
                }
            }
        }
    }

    #[test]
    fn a_mirror_is_never_a_frame() {
        // H = diag(1, 1, -1): the best proper rotation is the identity
        // turned by π about an axis in the plane, never the reflection.
        let r = kabsch(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]);
        assert!((determinant(&r) - 1.0).abs() < 1e-12);
        let r = kabsch(&[[f64::NAN; 3]; 3]);
        assert_eq!(r, Rigid::IDENTITY.rotation);
    }
}
