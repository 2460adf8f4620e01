//! The min/max summary behind [`Series::envelope`]: a segment tree over the
//! series' samples whose nodes hold the index of the smallest and of the
//! largest finite value below them.
//!
//! A curve is drawn every frame, so cutting a 10⁶-sample series into a few
//! hundred pixel columns must not look at every sample each time: with the
//! tree, the extremes of any run of samples come from at most 2·log₂(n)
//! nodes. The tree is built once, on the first call that needs it (O(n),
//! 16 bytes a sample), and kept with the series.
//!
//! Indices rather than values are stored so that a span can say *when* its
//! extremes occur: `viewer plot` draws the real samples, and a value read back
//! from the picture is then a value of the channel, not a bin's corner.

use super::{Series, Span};

/// No finite value below this node.
const NONE: u32 = u32::MAX;

/// Runs of samples at most this long are scanned directly: cheaper than
/// climbing the tree.
const SCAN: usize = 32;

/// The segment tree (bottom-up layout: node `k` covers nodes `2k` and
/// `2k + 1`; leaf `i` is node `n + i`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Summary {
    n: usize,
    min: Vec<u32>,
    max: Vec<u32>,
}

impl Summary {
    /// The tree over `values`; `None` for a series too long for 32-bit
    /// indices (beyond anything [`super::sample`] makes; it is then scanned).
    pub(crate) fn new(values: &[f64]) -> Option<Summary> {
        let n = values.len();
        if n >= NONE as usize / 2 {
            return None;
        }
        let mut min = vec![NONE; 2 * n];
        for (i, v) in values.iter().enumerate() {
            if v.is_finite() {
                min[n + i] = i as u32;
            }
        }
        let mut max = min.clone();
        for k in (1..n).rev() {
            min[k] = lower(values, min[2 * k], min[2 * k + 1]);
            max[k] = higher(values, max[2 * k], max[2 * k + 1]);
        }
        Some(Summary { n, min, max })
    }

    /// The indices of the smallest and largest finite value among samples
    /// `lo..hi`, if any is finite.
    fn query(&self, values: &[f64], lo: usize, hi: usize) -> Option<(usize, usize)> {
        let (mut l, mut r) = (lo + self.n, hi + self.n);
        let (mut a, mut b) = (NONE, NONE);
        while l < r {
            if l & 1 == 1 {
                a = lower(values, a, self.min[l]);
                b = higher(values, b, self.max[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                a = lower(values, a, self.min[r]);
                b = higher(values, b, self.max[r]);
            }
            l >>= 1;
            r >>= 1;
        }
        (a != NONE).then_some((a as usize, b as usize))
    }
}

/// The index of the smaller value, the earlier on a tie (`i` ≤ `j` as
/// both are combined left to right or from disjoint runs).
fn lower(values: &[f64], i: u32, j: u32) -> u32 {
    match (i, j) {
        (NONE, x) | (x, NONE) => x,
        (i, j) if values[j as usize] < values[i as usize] => j,
        (i, j) if values[j as usize] == values[i as usize] => i.min(j),
        (i, _) => i,
    }
}

/// The index of the larger value, the earlier on a tie.
fn higher(values: &[f64], i: u32, j: u32) -> u32 {
    match (i, j) {
        (NONE, x) | (x, NONE) => x,
        (i, j) if values[j as usize] > values[i as usize] => j,
        (i, j) if values[j as usize] == values[i as usize] => i.min(j),
        (i, _) => i,
    }
}

/// The indices of the extremes among `lo..hi` by looking at each sample.
fn scan(values: &[f64], lo: usize, hi: usize) -> Option<(usize, usize)> {
    let mut found: Option<(usize, usize)> = None;
    for (i, &v) in values.iter().enumerate().take(hi).skip(lo) {
        if !v.is_finite() {
            continue;
        }
        found = Some(match found {
            None => (i, i),
            Some((a, b)) => (
                if v < values[a] { i } else { a },
                if v > values[b] { i } else { b },
            ),
        });
    }
    found
}

impl Series {
    /// The extremes among samples `lo..hi`: scanned when short, from the
    /// summary otherwise.
    fn extremes(&self, lo: usize, hi: usize) -> Option<(usize, usize)> {
        let values = &self.values;
        if hi - lo <= SCAN {
            return scan(values, lo, hi);
        }
        match self.summary.get_or_init(|| Summary::new(values)) {
            Some(summary) if summary.n == values.len() => summary.query(values, lo, hi),
            _ => scan(values, lo, hi),
        }
    }

    /// [`Series::envelope`]'s body.
    pub(super) fn envelope_impl(&self, t0: f64, t1: f64, columns: usize) -> Vec<Span> {
        let n = self.times.len().min(self.values.len());
        let times = &self.times[..n];
        if columns == 0 || n == 0 || !t0.is_finite() || !t1.is_finite() || t1 < t0 {
            return Vec::new();
        }
        let width = (t1 - t0) / columns as f64;
        let mut spans = Vec::with_capacity(columns.min(n));
        // The first sample at or after t0; each column starts where the last ended.
        let mut lo = times.partition_point(|&t| t < t0);
        for c in 0..columns {
            if lo >= n {
                break;
            }
            let a = t0 + c as f64 * width;
            let last = c + 1 == columns;
            let b = if last {
                t1
            } else {
                t0 + (c + 1) as f64 * width
            };
            // The last column holds its end; the others stop short of it.
            let rest = &times[lo..];
            let hi = lo
                + if last {
                    rest.partition_point(|&t| t <= b)
                } else {
                    rest.partition_point(|&t| t < b)
                };
            if hi > lo
                && let Some((i, j)) = self.extremes(lo, hi)
            {
                spans.push(Span {
                    t0: a,
                    t1: b,
                    min: self.values[i],
                    max: self.values[j],
                    t_min: times[i],
                    t_max: times[j],
                });
            }
            lo = hi;
        }
        spans
    }

    /// [`Series::value_at`]'s body.
    pub(super) fn value_at_impl(&self, t: f64) -> Option<f64> {
        let n = self.times.len().min(self.values.len());
        let (times, values) = (&self.times[..n], &self.values[..n]);
        let (&first, &last) = (times.first()?, times.last()?);
        if t.is_nan() || t < first || t > last {
            return None;
        }
        // The first sample after t; t ≥ first, so there is one before it.
        let b = times.partition_point(|&x| x <= t);
        if b == n {
            return Some(values[n - 1]);
        }
        let a = b - 1;
        let u = (t - times[a]) / (times[b] - times[a]);
        Some(values[a] + (values[b] - values[a]) * u)
    }

    /// [`Series::range`]'s body.
    pub(super) fn range_impl(&self) -> Option<(f64, f64)> {
        let n = self.values.len();
        if n == 0 {
            return None;
        }
        let (i, j) = self.extremes(0, n)?;
        Some((self.values[i], self.values[j]))
    }
}
