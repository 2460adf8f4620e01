//! Near-rigid parts: the mesh split into groups the fit finds itself
//! (`viewer memg fit --parts N|auto`), so that each group's rigid frame
//! carries what moves together and its basis only what bends.
//!
//! The split is Lloyd's k-means with a rigid transform per part, as in the
//! clustering of James and Twigg's *Skinning Mesh Animations* and Le and
//! Deng's SSDR: every part gets, at each timestep, the rotation and
//! translation that best carry its vertices from the first timestep
//! (Kabsch), and every vertex goes to the part whose transforms carry it
//! best (the smallest sum of squared distances over the timesteps), until
//! few vertices move. The parts start as the vertices nearest to seeds
//! chosen far apart in trajectory space (each vertex's positions over the
//! timesteps, so two vertices that move differently are far apart even
//! where they touch), which makes spatial patches on cloth and limbs on a
//! character. The timesteps looked at are at most [`SAMPLED_FRAMES`],
//! evenly spaced: the split is a start for the fit, whose bound is checked
//! on every timestep afterwards.

use super::frames::kabsch;
use super::{Animation, FitError, Stop};
use rayon::prelude::*;

/// Timesteps the split looks at, at most (evenly spaced, first and last
/// included).
pub const SAMPLED_FRAMES: usize = 48;

/// Lloyd rounds at most.
const ROUNDS: usize = 24;

/// The rounds stop once fewer than this fraction of the vertices changed part.
const SETTLED: f64 = 1e-3;

/// The part (0-based, below `count`) of every vertex of `anim`: `count`
/// near-rigid parts, each non-empty. `count` must be between 1 and the
/// vertices (the caller's check: [`check_count`]).
pub(crate) fn near_rigid_parts(
    anim: &Animation<'_>,
    count: usize,
    stop: Stop<'_>,
) -> Result<Vec<u32>, FitError> {
    let v = anim.vertices;
    let count = count.clamp(1, v.max(1));
    let frames = sampled_frames(anim.frames);
    // Positions at the sampled timesteps, vertex-major: trajectory[i] is
    // vertex i at every sampled timestep.
    let paths = Trajectories::sampled(anim, &frames);
    let mut labels = seeded(&paths, count, stop)?;
    for _ in 0..ROUNDS {
        if stop.now() {
            return Err(FitError::Stopped);
        }
        let motions = part_motions(&paths, &labels, count);
        let next: Vec<(u32, f64)> = (0..v)
            .into_par_iter()
            .map(|i| {
                let p = paths.of(i);
                let mut best = (labels[i], f64::INFINITY);
                for (k, m) in motions.iter().enumerate() {
                    let e = m.residual(p);
                    if e < best.1 {
                        best = (k as u32, e);
                    }
                }
                best
            })
            .collect();
        let changed = next
            .iter()
            .zip(&labels)
            .filter(|((k, _), old)| k != *old)
            .count();
        labels = next.iter().map(|&(k, _)| k).collect();
        refill_empty(&mut labels, &next, count);
        if (changed as f64) < SETTLED * v as f64 {
            break;
        }
    }
    Ok(labels)
}

/// `count` for `--parts N`: at least 1 and at most the vertices.
pub(crate) fn check_count(count: usize, vertices: usize) -> Result<usize, FitError> {
    if count == 0 || count > vertices {
        return Err(FitError::Parts { count, vertices });
    }
    Ok(count)
}

/// At most [`SAMPLED_FRAMES`] timesteps, evenly spaced, the first and the
/// last among them.
fn sampled_frames(frames: usize) -> Vec<usize> {
    if frames <= SAMPLED_FRAMES {
        return (0..frames).collect();
    }
    let last = (frames - 1) as f64;
    let mut picked: Vec<usize> = (0..SAMPLED_FRAMES)
        .map(|k| (k as f64 * last / (SAMPLED_FRAMES - 1) as f64).round() as usize)
        .collect();
    picked.dedup();
    picked
}

/// Every vertex's positions at the sampled timesteps, vertex after vertex.
struct Trajectories {
    points: Vec<[f64; 3]>,
    /// Sampled timesteps.
    steps: usize,
    vertices: usize,
}

impl Trajectories {
    fn sampled(anim: &Animation<'_>, frames: &[usize]) -> Trajectories {
        let points = (0..anim.vertices)
            .into_par_iter()
            .flat_map_iter(|i| frames.iter().map(move |&t| anim.point(t, i)))
            .collect();
        Trajectories {
            points,
            steps: frames.len(),
            vertices: anim.vertices,
        }
    }

    /// Vertex `i` at every sampled timestep.
    fn of(&self, i: usize) -> &[[f64; 3]] {
        &self.points[i * self.steps..(i + 1) * self.steps]
    }
}

/// Squared distance between two trajectories.
fn distance2(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>())
        .sum()
}

/// The first parts: `count` seeds far apart in trajectory space (the first
/// the vertex farthest from vertex 0, each next the vertex farthest from
/// every seed so far), every vertex with its nearest seed.
fn seeded(paths: &Trajectories, count: usize, stop: Stop<'_>) -> Result<Vec<u32>, FitError> {
    let (v, at) = (paths.vertices, |i| paths.of(i));
    let mut nearest: Vec<(u32, f64)> = (0..v)
        .into_par_iter()
        .map(|i| (0, distance2(at(i), at(0))))
        .collect();
    let farthest = |nearest: &[(u32, f64)]| {
        (0..v).fold(0, |best, i| {
            if nearest[i].1 > nearest[best].1 {
                i
            } else {
                best
            }
        })
    };
    let mut seed = farthest(&nearest);
    for k in 0..count as u32 {
        if stop.now() {
            return Err(FitError::Stopped);
        }
        let s = at(seed);
        nearest.par_iter_mut().enumerate().for_each(|(i, n)| {
            let d = distance2(at(i), s);
            if k == 0 || d < n.1 {
                *n = (k, d);
            }
        });
        seed = farthest(&nearest);
    }
    Ok(nearest.into_iter().map(|(k, _)| k).collect())
}

/// A part's rigid motion: per sampled timestep the rotation `R_t` and the
/// centroids, so that a vertex at `p` in the first timestep is expected at
/// `R_t·(p − c_0) + c_t`.
struct PartMotion {
    rotations: Vec<[[f64; 3]; 3]>,
    centroids: Vec<[f64; 3]>,
}

impl PartMotion {
    /// Sum over the sampled timesteps of the squared distance between the
    /// trajectory `p` and where the part's motion carries `p[0]`.
    fn residual(&self, p: &[[f64; 3]]) -> f64 {
        let c0 = self.centroids[0];
        let s = [p[0][0] - c0[0], p[0][1] - c0[1], p[0][2] - c0[2]];
        let mut sum = 0.0;
        for ((r, c), x) in self.rotations.iter().zip(&self.centroids).zip(p) {
            for a in 0..3 {
                let expected = r[a][0] * s[0] + r[a][1] * s[1] + r[a][2] * s[2] + c[a];
                sum += (expected - x[a]).powi(2);
            }
        }
        sum
    }
}

/// Every part's rigid motion from its vertices' trajectories (Kabsch at each
/// sampled timestep against the first). A part with no vertex gets the
/// identity, which [`refill_empty`] replaces before it matters.
fn part_motions(paths: &Trajectories, labels: &[u32], count: usize) -> Vec<PartMotion> {
    let (s, at) = (paths.steps, |i| paths.of(i));
    let mut members = vec![0usize; count];
    for &k in labels {
        members[k as usize] += 1;
    }
    // Centroids per part and timestep; then the cross-covariances, each
    // timestep on its own thread, the vertices in order (the same sums
    // whatever the threads).
    let centroids: Vec<Vec<[f64; 3]>> = (0..s)
        .into_par_iter()
        .map(|t| {
            let mut sums = vec![[0f64; 3]; count];
            for (i, &k) in labels.iter().enumerate() {
                let p = at(i)[t];
                for a in 0..3 {
                    sums[k as usize][a] += p[a];
                }
            }
            sums.iter()
                .zip(&members)
                .map(|(sum, &n)| sum.map(|x| x / n.max(1) as f64))
                .collect()
        })
        .collect();
    let rotations: Vec<Vec<[[f64; 3]; 3]>> = (0..s)
        .into_par_iter()
        .map(|t| {
            let mut h = vec![[[0f64; 3]; 3]; count];
            for (i, &k) in labels.iter().enumerate() {
                let k = k as usize;
                let p = at(i);
                let x = p[t];
                let (c0, ct) = (centroids[0][k], centroids[t][k]);
                let y = [x[0] - ct[0], x[1] - ct[1], x[2] - ct[2]];
                let r = [p[0][0] - c0[0], p[0][1] - c0[1], p[0][2] - c0[2]];
                for a in 0..3 {
                    for b in 0..3 {
                        h[k][a][b] += y[a] * r[b];
                    }
                }
            }
            h.iter().map(kabsch).collect()
        })
        .collect();
    (0..count)
        .map(|k| PartMotion {
            rotations: rotations.iter().map(|r| r[k]).collect(),
            centroids: centroids.iter().map(|c| c[k]).collect(),
        })
        .collect()
}

/// Gives every part left without a vertex the vertex its own part explains
/// worst (`fitted[i].1`, its residual), taken from a part of two or more.
fn refill_empty(labels: &mut [u32], fitted: &[(u32, f64)], count: usize) {
    let mut members = vec![0usize; count];
    for &k in labels.iter() {
        members[k as usize] += 1;
    }
    let mut order: Vec<usize> = (0..labels.len()).collect();
    // Worst explained first; ties by index, so the result is the same every run.
    order.sort_by(|&a, &b| fitted[b].1.total_cmp(&fitted[a].1).then(a.cmp(&b)));
    let mut next = order.into_iter();
    for k in 0..count {
        if members[k] > 0 {
            continue;
        }
        for i in next.by_ref() {
            let from = labels[i] as usize;
            if members[from] > 1 {
                members[from] -= 1;
                labels[i] = k as u32;
                members[k] = 1;
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::NEVER;

    /// Three blobs of 20 points, each moved by its own rotation and
    /// translation over 40 timesteps (the first and third touch at the
    /// start): the parts are the blobs, whatever they are numbered.
    fn three_bodies() -> (Vec<f32>, usize, usize, Vec<usize>) {
        let (per, frames) = (20, 40);
        let mut rest = Vec::new();
        let mut truth = Vec::new();
        for body in 0..3 {
            for k in 0..per {
                let a = k as f64 * 2.399; // golden angle: points spread over a disc
                let r = 0.2 + 0.3 * (k as f64 / per as f64);
                let centre = [body as f64 * 0.6, 0.0, 0.0];
                rest.push([
                    centre[0] + r * a.cos(),
                    centre[1] + r * a.sin(),
                    0.1 * (k % 3) as f64,
                ]);
                truth.push(body);
            }
        }
        let mut positions = Vec::new();
        for t in 0..frames {
            let s = t as f64 / frames as f64;
            for (p, &body) in rest.iter().zip(&truth) {
                // Body 0 still, body 1 turns about z, body 2 about x and drifts.
                let angle = [0.0, 1.5 * s, -s][body];
                let (sin, cos) = angle.sin_cos();
                let q = match body {
                    1 => [cos * p[0] - sin * p[1], sin * p[0] + cos * p[1], p[2]],
                    2 => [
                        p[0] + 0.5 * s,
                        cos * p[1] - sin * p[2],
                        sin * p[1] + cos * p[2],
                    ],
                    _ => *p,
                };
                positions.extend(q.map(|x| x as f32));
            }
        }
        (positions, 3 * per, frames, truth)
    }

    #[test]
    fn rigid_bodies_are_found_as_the_parts() {
        let (positions, v, frames, truth) = three_bodies();
        let anim = Animation::new(&positions, v, frames).unwrap();
        let labels = near_rigid_parts(&anim, 3, Stop(&NEVER)).unwrap();
        // The same partition: each body one label, three labels in all.
        for body in 0..3 {
            let of: Vec<u32> = (0..v)
                .filter(|&i| truth[i] == body)
                .map(|i| labels[i])
                .collect();
            assert!(of.iter().all(|&l| l == of[0]), "body {body}: {of:?}");
        }
        let mut distinct = labels.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct, [0, 1, 2]);
        // The same every run.
        assert_eq!(near_rigid_parts(&anim, 3, Stop(&NEVER)).unwrap(), labels);
    }

    #[test]
    fn every_part_gets_a_vertex_up_to_one_each() {
        let (positions, v, frames, _) = three_bodies();
        let anim = Animation::new(&positions, v, frames).unwrap();
        for count in [1, 7, v] {
            let labels = near_rigid_parts(&anim, count, Stop(&NEVER)).unwrap();
            let mut members = vec![0; count];
            for &l in &labels {
                members[l as usize] += 1;
            }
            assert!(members.iter().all(|&m| m > 0), "{count}: {members:?}");
        }
    }

    #[test]
    fn counts_outside_one_to_the_vertices_are_refused() {
        assert_eq!(check_count(3, 3), Ok(3));
        for count in [0, 4] {
            assert_eq!(
                check_count(count, 3),
                Err(FitError::Parts { count, vertices: 3 })
            );
        }
    }

    #[test]
    fn many_timesteps_are_sampled_evenly_ends_included() {
        assert_eq!(sampled_frames(5), [0, 1, 2, 3, 4]);
        let picked = sampled_frames(1000);
        assert_eq!(picked.len(), SAMPLED_FRAMES);
        assert_eq!((picked[0], picked[SAMPLED_FRAMES - 1]), (0, 999));
        assert!(picked.windows(2).all(|w| w[1] > w[0]));
    }
}
