//! The fit measured as the viewer plays it: the motion as decoded from the
//! bytes written, deformed by the library's own [`Deformer`] at every
//! timestep, against the input at every vertex.
//!
//! Each group is deformed alone (over its own vertices), so every
//! group's copy of a vertex that two groups share is measured — the copy the
//! viewer shows (the later group's) and the one a reduced glTF export puts in
//! the earlier group's mesh. The whole scene's figures count each vertex
//! once, as the viewer shows it.

use super::{Animation, Stop};
use crate::anim::memg::{Binding, Deformer};
use crate::formats::memg::MemgMotion;
use crate::formats::obj::{ObjGroup, ObjScene};
use rayon::prelude::*;

/// Bytes of deformed frames made at once.
const BATCH_BYTES: usize = 32 << 20;

/// Points (vertices × timesteps) below which a group's batch is measured
/// on one thread.
const PARALLEL_POINTS: usize = 4096;

/// Errors of one group, or of the whole scene, in scene units.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Errors {
    /// The largest distance between an input vertex and the fitted one, over
    /// every timestep.
    pub max: f64,
    /// The root mean square of those distances.
    pub rms: f64,
    /// Karni and Gotsman's error: `100·‖A − Ã‖ / ‖A − E(A)‖`, where `E(A)`
    /// puts every vertex of a timestep at that timestep's centroid.
    pub kg: f64,
}

/// Sums over vertices and timesteps: of squared errors, the largest
/// error, of squared distances from the timestep's centroid, and the count.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    max: f64,
    squared: f64,
    spread: f64,
    count: usize,
}

impl Sums {
    fn add(self, o: Sums) -> Sums {
        Sums {
            max: self.max.max(o.max),
            squared: self.squared + o.squared,
            spread: self.spread + o.spread,
            count: self.count + o.count,
        }
    }

    fn errors(&self) -> Errors {
        Errors {
            max: self.max,
            rms: (self.squared / self.count.max(1) as f64).sqrt(),
            kg: if self.spread > 0.0 {
                100.0 * (self.squared / self.spread).sqrt()
            } else {
                0.0
            },
        }
    }
}

/// Each group's errors (file order) and the whole scene's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Measured {
    /// One per group of the motion.
    pub groups: Vec<Errors>,
    /// Every vertex once, where the viewer shows it (a vertex two groups
    /// move: the later group's).
    pub whole: Errors,
}

/// A scene for `motion` to bind to: `positions`, and the motion's groups
/// (by name, no faces) as its groups.
pub(super) fn bare_scene(positions: Vec<[f32; 3]>, motion: &MemgMotion) -> ObjScene {
    ObjScene {
        positions,
        groups: motion
            .groups
            .iter()
            .map(|g| ObjGroup {
                name: g.name.clone(),
                ..ObjGroup::default()
            })
            .collect(),
        ..ObjScene::default()
    }
}

/// Deforms `motion` (decoded from a file) at every timestep and measures it
/// against `anim`. Fails when the motion does not bind to a scene of
/// `anim`'s vertices and its groups' names. Once `stop` is set the groups
/// left are not measured (the caller looks at the flag).
pub fn measure(
    anim: &Animation<'_>,
    motion: &MemgMotion,
    stop: Stop<'_>,
) -> Result<Measured, crate::anim::memg::BindError> {
    let v = anim.vertices;
    let positions = (0..v).map(|i| anim.point(0, i).map(|x| x as f32)).collect();
    let scene = bare_scene(positions, motion);
    let binding = Binding::new(&scene, motion)?;
    // The group the viewer shows each vertex in: the last that moves it.
    let mut owner: Vec<Option<usize>> = vec![None; v];
    for (gi, g) in motion.groups.iter().enumerate() {
        for &m in &g.mapping {
            owner[m as usize - 1] = Some(gi);
        }
    }
    let centroids = |members: &[usize]| -> Vec<[f64; 3]> {
        let at = |t: usize| {
            let mut c = [0f64; 3];
            for &i in members {
                let p = anim.point(t, i);
                for a in 0..3 {
                    c[a] += p[a];
                }
            }
            c.map(|x| x / members.len().max(1) as f64)
        };
        if members.len() * anim.frames < PARALLEL_POINTS {
            (0..anim.frames).map(at).collect()
        } else {
            (0..anim.frames).into_par_iter().map(at).collect()
        }
    };
    let everyone: Vec<usize> = (0..v).collect();
    let whole_centroids = centroids(&everyone);
    let mut whole = Sums::default();
    let mut groups = Vec::with_capacity(motion.groups.len());
    let mut deformer = Deformer::new();
    let mut out = Vec::new();
    // Each group deformed alone, over its own vertices only: the work is
    // the groups' vertices × timesteps, however many groups there are.
    for (gi, g) in motion.groups.iter().enumerate() {
        if stop.now() {
            break;
        }
        let members: Vec<usize> = g.mapping.iter().map(|&m| m as usize - 1).collect();
        let own_centroids = centroids(&members);
        let batch = (BATCH_BYTES / (12 * members.len().max(1))).clamp(1, anim.frames.max(1));
        let mut sums = Sums::default();
        for first in (0..anim.frames).step_by(batch) {
            let times: Vec<f64> = (first..(first + batch).min(anim.frames))
                .map(|t| t as f64)
                .collect();
            out.resize(times.len() * members.len(), [0f32; 3]);
            if binding.groups[gi].is_none()
                || !deformer.deform_group_many(motion, gi, &times, &mut out)
            {
                // Not bound or no timesteps: the vertices stay at the scene's.
                for frame in out.chunks_mut(members.len().max(1)) {
                    for (p, &i) in frame.iter_mut().zip(&members) {
                        *p = scene.positions[i];
                    }
                }
            }
            let frame_sums = |k: usize, frame: &[[f32; 3]]| {
                let t = first + k;
                let (mut group, mut shown) = (Sums::default(), Sums::default());
                for (p, &i) in frame.iter().zip(&members) {
                    let x = anim.point(t, i);
                    let e = distance2(p.map(f64::from), x);
                    group = group.add(Sums {
                        max: e.sqrt(),
                        squared: e,
                        spread: distance2(x, own_centroids[t]),
                        count: 1,
                    });
                    if owner[i] == Some(gi) {
                        shown = shown.add(Sums {
                            max: e.sqrt(),
                            squared: e,
                            spread: distance2(x, whole_centroids[t]),
                            count: 1,
                        });
                    }
                }
                (group, shown)
            };
            let add = |a: (Sums, Sums), b: (Sums, Sums)| (a.0.add(b.0), a.1.add(b.1));
            let zero = (Sums::default(), Sums::default());
            let (group, shown) = if members.len() * times.len() < PARALLEL_POINTS {
                // A small group: threads would cost more than they save.
                out.chunks(members.len().max(1))
                    .enumerate()
                    .map(|(k, f)| frame_sums(k, f))
                    .fold(zero, add)
            } else {
                out.par_chunks(members.len().max(1))
                    .enumerate()
                    .map(|(k, f)| frame_sums(k, f))
                    .reduce(|| zero, add)
            };
            sums = sums.add(group);
            whole = whole.add(shown);
        }
        groups.push(sums.errors());
    }
    // Vertices no group moves stay where the scene has them: the first timestep.
    for (i, _) in owner.iter().enumerate().filter(|(_, o)| o.is_none()) {
        for (t, &centroid) in whole_centroids.iter().enumerate() {
            let x = anim.point(t, i);
            let e = distance2(anim.point(0, i), x);
            whole = whole.add(Sums {
                max: e.sqrt(),
                squared: e,
                spread: distance2(x, centroid),
                count: 1,
            });
        }
    }
    Ok(Measured {
        groups,
        whole: whole.errors(),
    })
}

fn distance2(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum()
}
