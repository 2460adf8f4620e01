//! The box a MEMG scene fills over its whole motion, from a bounded sample
//! of timesteps rather than every one the file declares.
//!
//! Vertices no bound group moves count at their `.obj` position. Each bound
//! group is deformed on its own, at every timestep when the scene is small
//! enough for [`BOUNDS_BUDGET`], and otherwise at chosen ones, at least 2 and
//! at most [`MAX_BOUNDS_TIMESTEPS`]:
//!
//! 1. the first and the last;
//! 2. for a few rounds, where the group's *probes* reach furthest along
//!    each axis: the probes are the vertices found at the box's faces in the
//!    timesteps sampled so far, and following only them through the motion
//!    is cheap, so where a smooth motion peaks is found without deforming the
//!    whole group at every timestep (the probes' own positions count too,
//!    so even a group too large for more than its first and last timestep
//!    gets its extreme vertices over the whole motion);
//! 3. where each entry of the parent frame's transform and each basis
//!    coefficient is least and greatest (the coefficients that move the
//!    group most first), then one more round of 2;
//! 4. evenly spaced timesteps, with what the allowance leaves.
//!
//! Every position counted is a real one, so the box lies within the true
//! one (to rounding: the probes are followed in `f64`).

use super::{Between, Binding, bounding_box, deform_group, frame_index};
use crate::formats::memg::{MemgGroup, MemgMotion};
use crate::formats::obj::ObjScene;
use std::collections::HashSet;

/// Work [`bounding_box_over_time`] may spend deforming, in multiply-adds:
/// motion vertices × (basis size + 1) per sampled timestep, summed over the
/// groups. A fraction of a second; a scene that fits it at every timestep is
/// sampled at every timestep, so its box is exact.
pub(crate) const BOUNDS_BUDGET: usize = 1 << 28;

/// Most timesteps [`bounding_box_over_time`] deforms a group at, however
/// many the motion declares or the budget would allow.
pub(crate) const MAX_BOUNDS_TIMESTEPS: usize = 1024;

/// Most vertices of one group followed through the motion.
const MAX_PROBES: usize = 128;

/// Rounds of following the probes before the coefficients' extremes.
const PROBE_ROUNDS: usize = 3;

/// Most timesteps one round follows the probes through (evenly spaced when
/// the motion has more): plenty to find where a motion peaks, and a cost
/// that does not grow with the timesteps a file declares.
const MAX_PROBE_STEPS: usize = 1 << 16;

/// A box: lowest and highest corner.
type Box3 = ([f32; 3], [f32; 3]);

/// The box holding every `.obj` vertex over the whole motion (for framing the
/// camera once), from a bounded sample of timesteps (see the module docs).
/// `None` for an empty scene.
pub fn bounding_box_over_time(
    scene: &ObjScene,
    motion: &MemgMotion,
    binding: &Binding,
) -> Option<Box3> {
    // One timestep of every bound group costs its vertices × (basis + 1).
    let cost: usize = motion
        .groups
        .iter()
        .zip(&binding.groups)
        .filter(|(_, b)| b.is_some())
        .map(|(g, _)| g.vertex_count().saturating_mul(g.basis_len + 1))
        .fold(0, usize::saturating_add);
    let timesteps = (BOUNDS_BUDGET / cost.max(1)).clamp(2, MAX_BOUNDS_TIMESTEPS);
    sampled_bounding_box(scene, motion, binding, timesteps)
}

/// [`bounding_box_over_time`] deforming each group at no more than
/// `timesteps` timesteps (at least 2), as the module docs describe (tests
/// use few to see the sampling at work on a small motion). Following the
/// probes costs at most a sixteenth of its budget (2²⁸ values) a round.
pub fn sampled_bounding_box(
    scene: &ObjScene,
    motion: &MemgMotion,
    binding: &Binding,
    timesteps: usize,
) -> Option<Box3> {
    if motion.timesteps == 0 {
        return bounding_box(&scene.positions);
    }
    // The bound group that writes each `.obj` vertex last, as the deformer
    // does: a vertex two groups move counts only where the later one puts it.
    const UNMOVED: u32 = u32::MAX;
    let slot = |m: u32| (m as usize).checked_sub(1);
    let mut writer = vec![UNMOVED; scene.positions.len()];
    let bound: Vec<(usize, &MemgGroup)> = motion
        .groups
        .iter()
        .zip(&binding.groups)
        .enumerate()
        .filter(|(_, (_, b))| b.is_some())
        .map(|(gi, (g, _))| (gi, g))
        .collect();
    for &(gi, g) in &bound {
        for &m in &g.mapping {
            if let Some(w) = slot(m).and_then(|i| writer.get_mut(i)) {
                *w = gi as u32;
            }
        }
    }
    let mut bbox = None;
    for (p, &w) in scene.positions.iter().zip(&writer) {
        if w == UNMOVED {
            grow(&mut bbox, p);
        }
    }
    let probe_budget = BOUNDS_BUDGET / 16 / bound.len().max(1);
    for &(gi, g) in &bound {
        let wins: Vec<bool> = g
            .mapping
            .iter()
            .map(|&m| slot(m).and_then(|s| writer.get(s)) == Some(&(gi as u32)))
            .collect();
        if !wins.contains(&true) {
            continue;
        }
        let mut group = GroupSampler {
            motion,
            g,
            wins,
            local: vec![[0.0; 3]; g.vertex_count()],
            sampled: HashSet::new(),
            probes: Vec::new(),
            bbox: None,
            left: timesteps.max(2),
        };
        group.run(probe_budget);
        if let Some((lo, hi)) = group.bbox {
            grow(&mut bbox, &lo);
            grow(&mut bbox, &hi);
        }
    }
    bbox
}

/// Widens `b` to hold `p`.
fn grow(b: &mut Option<Box3>, p: &[f32; 3]) {
    *b = Some(match *b {
        None => (*p, *p),
        Some((lo, hi)) => (
            std::array::from_fn(|a| lo[a].min(p[a])),
            std::array::from_fn(|a| hi[a].max(p[a])),
        ),
    });
}

/// One group's box, built up timestep by timestep.
struct GroupSampler<'a> {
    motion: &'a MemgMotion,
    g: &'a MemgGroup,
    /// Per motion vertex: no later group moves it, so it counts.
    wins: Vec<bool>,
    /// Deformed positions at the timestep last sampled.
    local: Vec<[f32; 3]>,
    sampled: HashSet<usize>,
    /// Motion vertices found at the box's faces so far.
    probes: Vec<usize>,
    bbox: Option<Box3>,
    /// Timesteps the allowance still has.
    left: usize,
}

impl GroupSampler<'_> {
    /// Samples the group in the order the module docs give.
    fn run(&mut self, probe_budget: usize) {
        let n = self.motion.timesteps;
        if self.left >= n {
            (0..n).for_each(|t| self.sample(t));
            return;
        }
        let last = n - 1;
        self.sample(0);
        self.sample(last);
        for _ in 0..PROBE_ROUNDS {
            let before = self.sampled.len();
            for t in self.probe_peaks(probe_budget) {
                self.sample(t);
            }
            if self.sampled.len() == before {
                break;
            }
        }
        for t in self.extremes() {
            self.sample(t);
        }
        for t in self.probe_peaks(probe_budget) {
            self.sample(t);
        }
        let room = self.left;
        for i in 1..=room {
            self.sample((i as u128 * last as u128 / (room as u128 + 1)) as usize);
        }
    }

    /// Deforms the group at timestep `t` (once, while the allowance lasts),
    /// grows the box, and takes the vertices at its faces as probes.
    fn sample(&mut self, t: usize) {
        if self.left == 0 || !self.sampled.insert(t) {
            return;
        }
        self.left -= 1;
        let (g, r) = (self.g, self.g.basis_len);
        let q = &g.coeffs[t * r..(t + 1) * r];
        deform_group(
            g,
            q,
            &Between::on(t).transform(self.motion, g.parent),
            &mut self.local,
        );
        // Per axis: the least and the greatest coordinate, and whose.
        let mut least = [(f32::INFINITY, usize::MAX); 3];
        let mut most = [(f32::NEG_INFINITY, usize::MAX); 3];
        for (i, p) in self.local.iter().enumerate() {
            if !self.wins[i] {
                continue;
            }
            grow(&mut self.bbox, p);
            for a in 0..3 {
                if p[a] < least[a].0 {
                    least[a] = (p[a], i);
                }
                if p[a] > most[a].0 {
                    most[a] = (p[a], i);
                }
            }
        }
        for (_, i) in least.into_iter().chain(most) {
            if i != usize::MAX && self.probes.len() < MAX_PROBES && !self.probes.contains(&i) {
                self.probes.push(i);
            }
        }
    }

    /// The timesteps where the probes reach furthest along each axis, each
    /// way: every timestep followed, or as many evenly spaced ones as
    /// `probe_budget` multiply-adds and [`MAX_PROBE_STEPS`] allow. The box
    /// grows by every probe position followed.
    fn probe_peaks(&mut self, probe_budget: usize) -> Vec<usize> {
        let (g, n) = (self.g, self.motion.timesteps);
        let (v, r) = (g.vertex_count(), g.basis_len);
        if self.probes.is_empty() {
            return Vec::new();
        }
        // Each probe's mean and basis rows side by side: [probe][axis][j].
        let mean: Vec<f64> = self
            .probes
            .iter()
            .flat_map(|&i| (0..3).map(move |a| f64::from(g.mean[3 * i + a])))
            .collect();
        let rows: Vec<f64> = self
            .probes
            .iter()
            .flat_map(|&i| (0..3).flat_map(move |a| (0..r).map(move |j| (i, a, j))))
            .map(|(i, a, j)| f64::from(g.basis[j * 3 * v + 3 * i + a]))
            .collect();
        let steps = (probe_budget / (self.probes.len() * (r + 1)))
            .clamp(2, MAX_PROBE_STEPS)
            .min(n);
        let mut least = [(f64::INFINITY, usize::MAX); 3];
        let mut most = [(f64::NEG_INFINITY, usize::MAX); 3];
        let mut local = [0.0; 3];
        for s in 0..steps {
            let t = if steps == n {
                s
            } else {
                (s as u128 * (n - 1) as u128 / (steps - 1) as u128) as usize
            };
            let q = &g.coeffs[t * r..(t + 1) * r];
            let m = Between::on(t).transform(self.motion, g.parent);
            for k in 0..self.probes.len() {
                for (a, x) in local.iter_mut().enumerate() {
                    let row = 3 * k + a;
                    let u = &rows[row * r..(row + 1) * r];
                    *x = mean[row]
                        + u.iter()
                            .zip(q)
                            .map(|(&u, &q)| u * f64::from(q))
                            .sum::<f64>();
                }
                let w = super::apply(&m, local);
                // Each is a real position of the group: it counts too, so
                // even a group deformed at only its first and last timestep
                // gets the probes' extremes over the whole motion.
                grow(&mut self.bbox, &w.map(|x| x as f32));
                for a in 0..3 {
                    if w[a] < least[a].0 {
                        least[a] = (w[a], t);
                    }
                    if w[a] > most[a].0 {
                        most[a] = (w[a], t);
                    }
                }
            }
        }
        least
            .into_iter()
            .chain(most)
            .map(|(_, t)| t)
            .filter(|&t| t != usize::MAX)
            .collect()
    }

    /// The timesteps where each entry of the parent transform and each basis
    /// coefficient is least and greatest, the coefficients whose range moves
    /// the group most first. Reads each value the file holds once.
    fn extremes(&self) -> Vec<usize> {
        let (g, motion, n) = (self.g, self.motion, self.motion.timesteps);
        let (v, r) = (g.vertex_count(), g.basis_len);
        let span = |value: &dyn Fn(usize) -> f64| {
            let (mut lo, mut hi) = ((f64::INFINITY, 0), (f64::NEG_INFINITY, 0));
            for t in 0..n {
                let x = value(t);
                if x < lo.0 {
                    lo = (x, t);
                }
                if x > hi.0 {
                    hi = (x, t);
                }
            }
            (hi.0 - lo.0, lo.1, hi.1)
        };
        let mut picks = Vec::new();
        if let Some(f) = frame_index(motion, g) {
            let k = motion.local_frames;
            for e in 0..12 {
                let (_, a, b) = span(&|t| motion.frames[t * k + f][e]);
                picks.extend([a, b]);
            }
        }
        let mut coefficients: Vec<(f64, usize, usize)> = (0..r)
            .map(|j| {
                let (range, a, b) = span(&|t| f64::from(g.coeffs[t * r + j]));
                let column = &g.basis[j * 3 * v..(j + 1) * 3 * v];
                let norm = column
                    .iter()
                    .map(|&u| f64::from(u).powi(2))
                    .sum::<f64>()
                    .sqrt();
                (range * norm, a, b)
            })
            .collect();
        coefficients.sort_by(|x, y| y.0.total_cmp(&x.0));
        picks.extend(coefficients.iter().flat_map(|&(_, a, b)| [a, b]));
        picks
    }
}
