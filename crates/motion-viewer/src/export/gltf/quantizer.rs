//! How a reduced MEMG group's mesh is stored in integers
//! (`KHR_mesh_quantization`), and the error that adds, measured at every
//! vertex and timestep ([`Quantizer::error`]); `quantized.rs` chooses
//! among the ways and writes the group.
//!
//! The group's mesh (base positions, morph targets) is stored in units of
//! `unit` about `center`, both `f32`, on a node of their own under the
//! group's (translation `center`, scale `unit`), so that every stored
//! coordinate lies in [−1, 1]: positions and targets as normalized `i16`
//! (or `i8`, a target that moves vertices little), normals as normalized
//! `i8`, each vertex padded to 4 bytes as glTF asks. With its weights as
//! normalized `u16`, target j is stretched by `stretch_j = unit /
//! max|target_j| ≥ 1` to use all its bits and its weight divided by the
//! same (so weights stay in [0, 1] for Blender, which clamps shape-key
//! values there). With its weights as normalized `u8`, a weight's rounding
//! moves a vertex by up to a 510th of its stretched target: the 16-bit
//! targets are then not stretched, and an 8-bit one only as far as
//! balances its own rounding with its weight's. A reader dequantizes `i16`
//! as `max(q / 32767, −1)`, `i8` as `max(q / 127, −1)`, `u16` as `q /
//! 65535` and `u8` as `q / 255` (glTF 2.0, "Accessors").

use rayon::prelude::*;

use super::rounding::{I8, U8, U16, byte, short, unbyte, unshort};

/// How one group's mesh is quantized.
pub(super) struct Quantizer {
    /// The node's translation: the middle of the base positions' box.
    pub center: [f32; 3],
    /// The node's uniform scale: the largest half side of that box or
    /// absolute target coordinate, so every stored value is within ±1.
    pub unit: f32,
    /// Per target, the factor it is stretched by (its weight shrunk by).
    pub(super) stretch: Vec<f64>,
    /// Per target, its largest absolute coordinate (at full weight).
    largest: Vec<f64>,
    /// Per target, whether it is stored in 8 bits (else 16).
    narrow: Vec<bool>,
    /// Whether the weights are stored as normalized `u8` (else `u16`);
    /// its 16-bit targets are then not stretched.
    pub(super) weights8: bool,
}

/// The targets in order of their largest coordinate, smallest first.
fn smallest_first(largest: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..largest.len()).collect();
    order.sort_by(|&a, &b| largest[a].total_cmp(&largest[b]));
    order
}

impl Quantizer {
    /// The quantizer of group `g`'s vertices `rows` (`3 ×` its index of
    /// each), whose base is `base(row)` and target j `target(j, row)`, its
    /// smaller targets in 8 bits within `tolerance` (none if `None`), its
    /// weights in 8 bits if `weights8` (its targets then not stretched).
    pub(super) fn new(
        rows: &[usize],
        targets: usize,
        base: impl Fn(usize) -> [f64; 3],
        target: impl Fn(usize, usize) -> [f64; 3],
        tolerance: Option<f64>,
        weights8: bool,
    ) -> Quantizer {
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for &row in rows {
            let p = base(row);
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        let center: [f32; 3] = std::array::from_fn(|a| {
            if rows.is_empty() {
                0.0
            } else {
                (0.5 * (lo[a] + hi[a])) as f32
            }
        });
        // The half side about the f32 center actually written.
        let mut unit = (0..3)
            .filter(|_| !rows.is_empty())
            .map(|a| {
                let c = f64::from(center[a]);
                (hi[a] - c).max(c - lo[a])
            })
            .fold(0f64, f64::max);
        let largest: Vec<f64> = (0..targets)
            .map(|j| {
                rows.iter()
                    .flat_map(|&row| target(j, row))
                    .fold(0f64, |m, x| m.max(x.abs()))
            })
            .collect();
        unit = largest.iter().copied().fold(unit, f64::max);
        // Rounded up to an f32 no smaller, and never zero.
        let mut unit32 = unit as f32;
        if f64::from(unit32) < unit {
            unit32 = unit32.next_up();
        }
        if unit32 <= 0.0 || !unit32.is_finite() {
            unit32 = 1.0;
        }
        let mut q = Quantizer {
            center,
            unit: unit32,
            stretch: vec![1.0; targets],
            narrow: vec![false; targets],
            largest,
            weights8,
        };
        // 8 bits for the smallest targets while the most their rounding
        // could move a vertex, summed, is within half the tolerance.
        let count = match tolerance {
            Some(tolerance) => {
                let mut spent = 0.0;
                smallest_first(&q.largest)
                    .iter()
                    .take_while(|&&j| {
                        spent += q.rounding8(j);
                        spent <= 0.5 * tolerance
                    })
                    .count()
            }
            None => 0,
        };
        q.narrow_smallest(count);
        q
    }

    /// The factor target `j` is stretched by, stored in 8 bits or not.
    /// With 16-bit weights, as far as its coordinates go (to ±1): the
    /// weight's rounding is then negligible. With 8-bit weights, a weight's
    /// rounding moves a vertex by up to a 510th of the stored target, so a
    /// 16-bit target is not stretched, and an 8-bit one as far as balances
    /// the two roundings (`k² = 255·unit / (127·largest)`).
    fn stretch_of(&self, j: usize, narrow: bool) -> f64 {
        let (m, u) = (self.largest[j], f64::from(self.unit));
        if m <= 0.0 {
            return 1.0;
        }
        match (self.weights8, narrow) {
            (false, _) => u / m,
            (true, false) => 1.0,
            (true, true) => ((U8 * u) / (I8 * m)).sqrt().clamp(1.0, u / m),
        }
    }

    /// The most target `j` stored in 8 bits could move a vertex: half a
    /// step of each of its three coordinates (`1 / stretch` of the stored
    /// target, at full weight), and with 8-bit weights half a step of its
    /// weight times the stretched target.
    fn rounding8(&self, j: usize) -> f64 {
        let (m, u) = (self.largest[j], f64::from(self.unit));
        if m <= 0.0 {
            return 0.0;
        }
        let k = self.stretch_of(j, true);
        let weight = if self.weights8 { m * k * 0.5 / U8 } else { 0.0 };
        (u / k * 0.5 / I8 + weight) * 3f64.sqrt()
    }

    /// How many targets are stored in 8 bits.
    pub(super) fn narrowed(&self) -> usize {
        self.narrow.iter().filter(|&&n| n).count()
    }

    /// The `count` targets that move vertices least in 8 bits, the others
    /// in 16.
    pub(super) fn narrow_smallest(&mut self, count: usize) {
        self.narrow.iter_mut().for_each(|n| *n = false);
        for &j in smallest_first(&self.largest).iter().take(count) {
            self.narrow[j] = true;
        }
        self.stretch = (0..self.narrow.len())
            .map(|j| self.stretch_of(j, self.narrow[j]))
            .collect();
    }

    /// Every target back in 16 bits.
    pub(super) fn widen(&mut self) {
        self.narrow_smallest(0);
    }

    /// Whether target `j` is stored in 8 bits (else 16).
    pub(super) fn narrow(&self, j: usize) -> bool {
        self.narrow[j]
    }

    /// A base position, stored.
    pub(super) fn position(&self, p: [f64; 3]) -> [i16; 3] {
        let u = f64::from(self.unit);
        std::array::from_fn(|a| short((p[a] - f64::from(self.center[a])) / u))
    }

    /// Target `j`'s vertex, stored in 16 bits.
    pub(super) fn target(&self, j: usize, d: [f64; 3]) -> [i16; 3] {
        let scale = self.stretch[j] / f64::from(self.unit);
        d.map(|x| short(x * scale))
    }

    /// Target `j`'s vertex, stored in 8 bits.
    pub(super) fn target8(&self, j: usize, d: [f64; 3]) -> [i8; 3] {
        let scale = self.stretch[j] / f64::from(self.unit);
        d.map(|x| byte(x * scale))
    }

    /// Target `j`'s vertex as a reader reads it back, in the group's units.
    fn read_target(&self, j: usize, d: [f64; 3]) -> [f64; 3] {
        let u = f64::from(self.unit);
        match self.narrow[j] {
            true => self.target8(j, d).map(|q| u * unbyte(q)),
            false => self.target(j, d).map(|q| u * unshort(q)),
        }
    }

    /// The steps a stored weight takes over [0, 1]: 255 for `u8`, 65535
    /// for `u16`.
    pub(super) fn levels(&self) -> f64 {
        if self.weights8 { U8 } else { U16 }
    }

    /// The bytes the targets take over `rows` vertices (each vertex
    /// padded to 4 bytes).
    pub(super) fn target_bytes(&self, rows: usize) -> usize {
        let targets: usize = self.narrow.iter().map(|&n| if n { 4 } else { 8 }).sum();
        rows * targets
    }

    /// The bytes of one weight.
    pub(super) fn weight_bytes(&self) -> usize {
        if self.weights8 { 1 } else { 2 }
    }

    /// Weight `w` (in [0, 1]) of target `j`, stored (below 256 in 8 bits).
    pub(super) fn weight(&self, j: usize, w: f64) -> u16 {
        let levels = self.levels();
        ((w / self.stretch[j]) * levels).round().clamp(0.0, levels) as u16
    }

    /// The largest distance, any of `rows` at any of `timesteps`, between
    /// the mesh a reader dequantizes and the exact `base + Σ_j w_j(t)·target_j`
    /// (`weight(t, j)` the exact weight in [0, 1]); and at each timestep the
    /// largest distance of an exact vertex from the group's origin.
    pub(super) fn error(
        &self,
        rows: &[usize],
        timesteps: usize,
        targets: usize,
        base: impl Fn(usize) -> [f64; 3] + Sync,
        target: impl Fn(usize, usize) -> [f64; 3] + Sync,
        weight: impl Fn(usize, usize) -> f64 + Sync,
    ) -> (f64, Vec<f64>) {
        let u = f64::from(self.unit);
        // Each vertex's stored and exact base and targets, once.
        let vertex = |row: usize| {
            let p = base(row);
            let qp = self.position(p);
            let stored: Vec<[f64; 3]> = (0..targets)
                .map(|j| self.read_target(j, target(j, row)))
                .collect();
            let exact: Vec<[f64; 3]> = (0..targets).map(|j| target(j, row)).collect();
            let read = std::array::from_fn::<f64, 3, _>(|a| {
                f64::from(self.center[a]) + u * unshort(qp[a])
            });
            (p, read, exact, stored)
        };
        let weights: Vec<(Vec<f64>, Vec<f64>)> = (0..timesteps)
            .map(|t| {
                let exact: Vec<f64> = (0..targets).map(|j| weight(t, j)).collect();
                let read = exact
                    .iter()
                    .enumerate()
                    .map(|(j, &w)| f64::from(self.weight(j, w)) / self.levels())
                    .collect();
                (exact, read)
            })
            .collect();
        let length = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        rows.par_iter()
            .fold(
                || (0f64, vec![0f64; timesteps]),
                |(mut worst, mut radius), &row| {
                    let (p, read, exact, stored) = vertex(row);
                    for (t, (w, wq)) in weights.iter().enumerate() {
                        let (mut x, mut y) = (p, read);
                        for a in 0..3 {
                            for j in 0..targets {
                                x[a] += w[j] * exact[j][a];
                                y[a] += wq[j] * stored[j][a];
                            }
                        }
                        worst = worst.max(length([y[0] - x[0], y[1] - x[1], y[2] - x[2]]));
                        radius[t] = radius[t].max(length(x));
                    }
                    (worst, radius)
                },
            )
            .reduce(
                || (0f64, vec![0f64; timesteps]),
                |(a, ra), (b, rb)| {
                    let radius = ra.iter().zip(&rb).map(|(x, y)| x.max(*y)).collect();
                    (a.max(b), radius)
                },
            )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two vertices (rows 0 and 3)…
    const ROWS: [usize; 2] = [0, 3];

    /// …at (1, 2, 3) and (3, 2, 3)…
    fn base(row: usize) -> [f64; 3] {
        if row == 0 {
            [1.0, 2.0, 3.0]
        } else {
            [3.0, 2.0, 3.0]
        }
    }

    /// …one target moving the second by up to 0.5 along x.
    fn target(_j: usize, row: usize) -> [f64; 3] {
        if row == 0 { [0.0; 3] } else { [0.5, 0.0, 0.0] }
    }

    #[test]
    fn every_stored_value_is_within_one_unit_of_the_center() {
        let q = Quantizer::new(&ROWS, 1, base, target, None, false);
        assert_eq!(q.center, [2.0, 2.0, 3.0]);
        assert_eq!(q.unit, 1.0);
        // The ends of the box at ±1, the target stretched to fill 16 bits.
        assert_eq!(q.position(base(0)), [-32767, 0, 0]);
        assert_eq!(q.position(base(3)), [32767, 0, 0]);
        assert_eq!(q.target(0, target(0, 3)), [32767, 0, 0]);
        // Its weight halved: 0.5 of the stretched target is the whole move.
        assert_eq!(q.weight(0, 1.0), 32768);
    }

    #[test]
    fn the_error_is_the_largest_distance_the_rounding_makes() {
        let q = Quantizer::new(&ROWS, 1, base, target, None, false);
        // w = 1/3: the read weight round(65535/6)/65535 times the stretched
        // target (1.0) against the exact 1/3 · 0.5.
        let (e, radius) = q.error(&ROWS, 1, 1, base, target, |_, _| 1.0 / 3.0);
        // The second vertex at (3 + 0.5/3, 2, 3).
        assert!((radius[0] - (3.0f64 + 0.5 / 3.0).hypot(2.0).hypot(3.0)).abs() < 1e-12);
        let read = (65535.0f64 / 6.0).round() / 65535.0;
        assert!((e - (read - 0.5 / 3.0).abs()).abs() < 1e-12, "{e}");
        assert!(e > 0.0 && e < 1e-5);
    }

    #[test]
    fn the_smaller_targets_go_to_8_bits_within_half_the_tolerance() {
        // Target 0 moves the second vertex by 0.5, target 1 the first by
        // 0.003 and the second by 0.01.
        let two = |j: usize, row: usize| match (j, row) {
            (0, 0) => [0.0; 3],
            (0, _) => [0.5, 0.0, 0.0],
            (_, 0) => [0.0, 0.003, 0.0],
            _ => [0.0, 0.01, 0.0],
        };
        // Half a step of 8 bits of each coordinate: 0.01 · 0.5/127 · √3
        // for target 1, 0.5 · 0.5/127 · √3 for target 0.
        let small = 0.01 * 0.5 / 127.0 * 3f64.sqrt();
        let big = 0.5 * 0.5 / 127.0 * 3f64.sqrt();
        let narrow = |tolerance: Option<f64>| {
            let q = Quantizer::new(&ROWS, 2, base, two, tolerance, false);
            [q.narrow(0), q.narrow(1)]
        };
        assert_eq!(narrow(None), [false, false]);
        assert_eq!(narrow(Some(1.9 * small)), [false, false]);
        assert_eq!(narrow(Some(2.1 * small)), [false, true]);
        assert_eq!(narrow(Some(2.1 * (small + big))), [true, true]);
        // In 8 bits, target 1 is read back within half an 8-bit step of it.
        let q = Quantizer::new(&ROWS, 2, base, two, Some(2.1 * small), false);
        let (e, _) = q.error(&ROWS, 1, 2, base, two, |_, _| 1.0);
        assert!(e > 1e-6 && e <= small, "{e}");
    }

    #[test]
    fn weights_in_8_bits_leave_16_bit_targets_unstretched_and_balance_8_bit_ones() {
        let q = Quantizer::new(&ROWS, 1, base, target, None, true);
        // The target keeps its size (0.5 of the unit), its weight all of
        // [0, 1] in 255 steps.
        assert_eq!(q.stretch, [1.0]);
        assert_eq!(q.target(0, target(0, 3)), [16384, 0, 0]);
        assert_eq!(
            (q.levels(), q.weight(0, 1.0), q.weight(0, 0.3)),
            (255.0, 255, 77)
        );
        // Read back: 77/255 of the stored target against 0.3 of the exact.
        let (e, _) = q.error(&ROWS, 1, 1, base, target, |_, _| 0.3);
        let read = 77.0 / 255.0 * (16384.0 / 32767.0);
        assert!((e - (read - 0.3 * 0.5f64)).abs() < 1e-12, "{e}");
        // An 8-bit target of 0.01 is stretched by √(255·1 / (127·0.01)),
        // where its rounding and its weight's are equal; one of 0.5 no
        // further than its coordinates go (2).
        let small = |_: usize, row: usize| if row == 0 { [0.0; 3] } else { [0.01, 0.0, 0.0] };
        let mut q = Quantizer::new(&ROWS, 1, base, small, None, true);
        q.narrow_smallest(1);
        let k = (255.0f64 / 1.27).sqrt();
        assert!((q.stretch[0] - k).abs() < 1e-9, "{}", q.stretch[0]);
        let weight = 0.01 * k * 0.5 / 255.0;
        let coordinates = 1.0 / k * 0.5 / 127.0;
        assert!((weight - coordinates).abs() < 1e-15);
        assert!((q.rounding8(0) - (weight + coordinates) * 3f64.sqrt()).abs() < 1e-15);
        let mut q = Quantizer::new(&ROWS, 1, base, target, None, true);
        q.narrow_smallest(1);
        assert_eq!(q.stretch, [2.0]);
    }
}
