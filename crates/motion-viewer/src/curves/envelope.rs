//! The min/max summary behind [`Series::envelope`]: a pyramid of blocks
//! over the series' samples, 8 samples a block at the first level, 8 blocks
//! a block at each level above, every block holding its smallest and largest
//! finite value and the index of the sample holding each.
//!
//! A curve is drawn every frame, so cutting a 10⁶-sample series into a few
//! hundred pixel columns must not look at every sample each time: the
//! extremes of any run of samples come from at most 7 items at each end of
//! each level (contiguous, so a cache line or two a level) and a handful at
//! the top. The pyramid is built once, on the first call that needs it
//! (O(n), about 3.4 bytes a sample), and kept with the series.
//!
//! Each block keeps the *index* of its extremes as well as their values, so a
//! span says when they occur: `viewer plot` draws the real samples, and a
//! value read back from the picture is a value of the channel, not a bin's
//! corner.

use super::{Series, Span};

/// Items per block.
const B: usize = 8;

/// Runs of samples at most this long are scanned directly.
const SCAN: usize = 2 * B;

/// The extremes of a run: smallest and largest finite value and where
/// each occurs (the earliest on a tie); `lo > hi` when there is none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Extremes {
    lo: f64,
    hi: f64,
    ilo: usize,
    ihi: usize,
}

impl Extremes {
    const NONE: Extremes = Extremes {
        lo: f64::INFINITY,
        hi: f64::NEG_INFINITY,
        ilo: usize::MAX,
        ihi: usize::MAX,
    };

    #[inline]
    fn sample(i: usize, v: f64) -> Extremes {
        if v.is_finite() {
            Extremes {
                lo: v,
                hi: v,
                ilo: i,
                ihi: i,
            }
        } else {
            Extremes::NONE
        }
    }

    /// Both runs together; on equal values the earlier sample wins.
    #[inline]
    fn join(self, o: Extremes) -> Extremes {
        let (lo, ilo) = if o.lo < self.lo || (o.lo == self.lo && o.ilo < self.ilo) {
            (o.lo, o.ilo)
        } else {
            (self.lo, self.ilo)
        };
        let (hi, ihi) = if o.hi > self.hi || (o.hi == self.hi && o.ihi < self.ihi) {
            (o.hi, o.ihi)
        } else {
            (self.hi, self.ihi)
        };
        Extremes { lo, hi, ilo, ihi }
    }

    /// `(smallest, index, largest, index)`, if any value was finite.
    fn found(self) -> Option<(f64, usize, f64, usize)> {
        (self.ilo != usize::MAX).then_some((self.lo, self.ilo, self.hi, self.ihi))
    }
}

/// The pyramid: `levels[0]` has a block per 8 samples, `levels[k + 1]` one
/// per 8 blocks of `levels[k]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Summary {
    n: usize,
    levels: Vec<Vec<Extremes>>,
}

impl Summary {
    /// The pyramid over `values`.
    pub(crate) fn new(values: &[f64]) -> Summary {
        let mut levels: Vec<Vec<Extremes>> = Vec::new();
        let mut below: Vec<Extremes> = values
            .chunks(B)
            .enumerate()
            .map(|(c, chunk)| {
                chunk
                    .iter()
                    .enumerate()
                    .fold(Extremes::NONE, |acc, (k, &v)| {
                        acc.join(Extremes::sample(c * B + k, v))
                    })
            })
            .collect();
        while below.len() > 1 {
            let above = below
                .chunks(B)
                .map(|c| c.iter().fold(Extremes::NONE, |acc, e| acc.join(*e)))
                .collect();
            levels.push(below);
            below = above;
        }
        levels.push(below);
        Summary {
            n: values.len(),
            levels,
        }
    }

    /// The extremes among samples `lo..hi`: each end scanned at the finest
    /// level up to a block boundary, the middle taken from the level above,
    /// and so on up.
    fn query(&self, values: &[f64], lo: usize, hi: usize) -> Extremes {
        let mut acc = Extremes::NONE;
        let (mut a, mut b) = (lo, hi);
        let item = |level: usize, i: usize| -> Extremes {
            if level == 0 {
                Extremes::sample(i, values[i])
            } else {
                self.levels[level - 1][i]
            }
        };
        // Level 0 is the samples; level k ≥ 1 is `levels[k - 1]`.
        for level in 0..=self.levels.len() {
            let (up_a, up_b) = (a.div_ceil(B), b / B);
            if up_a >= up_b || level == self.levels.len() {
                for i in a..b {
                    acc = acc.join(item(level, i));
                }
                return acc;
            }
            for i in a..up_a * B {
                acc = acc.join(item(level, i));
            }
            for i in up_b * B..b {
                acc = acc.join(item(level, i));
            }
            (a, b) = (up_a, up_b);
        }
        acc
    }
}

/// An index guessed from a time's place on an even grid (NaN, negative or
/// huge when the grid is no guide: then out of range, and not used).
fn guess(at: f64) -> usize {
    if at.is_finite() && at >= 0.0 && at < usize::MAX as f64 {
        at as usize
    } else {
        usize::MAX
    }
}

/// The first index at or after `from` whose time fails `before`, given that
/// every index below `from` passes: `guess` when the samples on either side
/// of it say so (one cache line read), else found by [`gallop`].
fn locate(times: &[f64], from: usize, guess: usize, before: impl Fn(f64) -> bool) -> usize {
    let n = times.len();
    if (from..=n).contains(&guess)
        && (guess == from || before(times[guess - 1]))
        && (guess == n || !before(times[guess]))
    {
        return guess;
    }
    gallop(times, from, before)
}

/// The first index at or after `from` whose time fails `before` (`times`
/// increasing): steps of 1, 2, 4… from `from`, then a bisection of the last
/// step. A column's end lies a column's worth of samples on, so this reads
/// a few nearby samples where a bisection of the whole series would miss
/// the cache some twenty times.
fn gallop(times: &[f64], from: usize, before: impl Fn(f64) -> bool) -> usize {
    let n = times.len();
    let mut step = 1;
    let mut known = from; // every index below `known` passes
    while known < n && before(times[known]) {
        known = from + step;
        step *= 2;
    }
    // The answer is in (previous probe, known]; bisect that stretch.
    let start = if step > 1 { from + step / 4 } else { from };
    let end = known.min(n);
    start + times[start..end].partition_point(|&t| before(t))
}

/// The extremes among `lo..hi` by looking at each sample.
fn scan(values: &[f64], lo: usize, hi: usize) -> Extremes {
    (lo..hi).fold(Extremes::NONE, |acc, i| {
        acc.join(Extremes::sample(i, values[i]))
    })
}

impl Series {
    /// The extremes among samples `lo..hi`: scanned when short, from the
    /// summary otherwise.
    fn extremes(&self, lo: usize, hi: usize) -> Option<(f64, usize, f64, usize)> {
        let values = &self.values;
        if hi - lo <= SCAN {
            return scan(values, lo, hi).found();
        }
        let summary = self.summary.get_or_init(|| Summary::new(values));
        if summary.n == values.len() {
            summary.query(values, lo, hi).found()
        } else {
            // Samples added after the summary was built: not summarised.
            scan(values, lo, hi).found()
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
        // Where a time falls if the samples are evenly spaced (frames are):
        // a guess, checked before it is used.
        let (first, step) = (times[0], (times[n - 1] - times[0]) / (n.max(2) - 1) as f64);
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
            let at = (b - first) / step;
            let hi = if last {
                locate(times, lo, guess(at.floor() + 1.0), |t| t <= b)
            } else {
                locate(times, lo, guess(at.ceil()), |t| t < b)
            };
            if hi > lo
                && let Some((min, i, max, j)) = self.extremes(lo, hi)
            {
                spans.push(Span {
                    t0: a,
                    t1: b,
                    min,
                    max,
                    t_min: times[i],
                    t_max: times[j],
                });
            }
            lo = hi;
        }
        spans
    }

    #[cfg_attr(not(feature = "window"), allow(dead_code))] // the window's
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
        let (min, _, max, _) = self.extremes(0, n)?;
        Some((min, max))
    }
}
