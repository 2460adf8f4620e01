//! From a sampled series to what is drawn over a stretch of time: one bar
//! per pixel column from the smallest to the largest value in it
//! ([`Series::envelope`]) or, zoomed in to at most two samples a column,
//! the samples themselves as a polyline; and the keyframe markers, at most
//! one per few pixels. Either way a curve costs a bounded number of
//! triangles whatever its length.

use super::cache::ChannelKey;
use crate::curves::{Series, Unit};
use egui::Color32;
use std::sync::Arc;

/// Markers closer than this (pixels) to the last one drawn are skipped.
const MIN_MARKER_GAP_PX: f64 = 8.0;

/// One curve the panel draws.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The channel.
    pub key: ChannelKey,
    /// Its legend entry.
    pub label: String,
    /// Its colour.
    pub color: Color32,
    /// Drawn dashed (track B when comparing).
    pub dashed: bool,
    /// Its samples.
    pub series: Arc<Series>,
    /// The model's joint limits, for bands.
    pub limits: Option<(f64, f64)>,
    /// AIBO keyframe times, for markers (the curves of the motion edited).
    pub keyframes: Option<Arc<Vec<f64>>>,
    /// The unit of its values.
    pub unit: Unit,
}

/// A curve made ready for one view.
#[derive(Debug, Clone, Default)]
pub struct Drawn {
    /// The samples in view as a polyline, plot coordinates (seconds,
    /// value); empty when `bars` are drawn instead.
    pub points: Arc<Vec<[f64; 2]>>,
    /// One bar per column, `[t0, t1, low, high]`, each reaching the next
    /// so that the curve stays joined; empty when `points` are drawn.
    pub bars: Arc<Vec<[f64; 4]>>,
    /// Keyframe markers: the keyframe's index and where it sits.
    pub markers: Arc<Vec<(usize, [f64; 2])>>,
    /// The smallest and largest value drawn.
    pub range: Option<(f64, f64)>,
}

/// `series` over `[t0, t1]` for a plot `columns` pixels wide, with markers
/// at `keyframes`.
pub fn draw(series: &Series, keyframes: Option<&[f64]>, t0: f64, t1: f64, columns: usize) -> Drawn {
    let (points, bars) = match samples(series, t0, t1, columns) {
        Some(points) => (points, Vec::new()),
        None => (Vec::new(), bars(series, t0, t1, columns)),
    };
    let values = points
        .iter()
        .map(|p| (p[1], p[1]))
        .chain(bars.iter().map(|b| (b[2], b[3])));
    let range = values.fold(None, |r: Option<(f64, f64)>, (lo, hi)| {
        Some(r.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))))
    });
    let markers = keyframes.map_or_else(Vec::new, |k| markers(series, k, t0, t1, columns));
    Drawn {
        points: Arc::new(points),
        bars: Arc::new(bars),
        markers: Arc::new(markers),
        range,
    }
}

/// The samples in view (one more each side, so the line reaches the
/// edges) when there are at most two per column; `None` when there are more.
pub fn samples(series: &Series, t0: f64, t1: f64, columns: usize) -> Option<Vec<[f64; 2]>> {
    let times = &series.times;
    let first = times.partition_point(|&t| t < t0).saturating_sub(1);
    let last = (times.partition_point(|&t| t <= t1) + 1).min(times.len());
    if last.saturating_sub(first) > 2 * columns.max(1) {
        return None;
    }
    Some(
        (first..last.max(first))
            .filter(|&i| series.values[i].is_finite())
            .map(|i| [times[i], series.values[i]])
            .collect(),
    )
}

/// Each column's smallest and largest value as a bar, stretched where
/// needed to reach the bar before it (the curve passes between them).
pub fn bars(series: &Series, t0: f64, t1: f64, columns: usize) -> Vec<[f64; 4]> {
    let mut bars: Vec<[f64; 4]> = Vec::with_capacity(columns);
    for span in series.envelope(t0, t1, columns) {
        if !(span.min.is_finite() && span.max.is_finite()) {
            continue;
        }
        let (mut lo, mut hi) = (span.min, span.max);
        if let Some(prev) = bars.last() {
            lo = lo.min(prev[3]);
            hi = hi.max(prev[2]);
        }
        bars.push([span.t0, span.t1, lo, hi]);
    }
    bars
}

/// The keyframes in `[t0, t1]` on the curve, skipping any closer than a
/// few pixels to the last one kept.
fn markers(
    series: &Series,
    keyframes: &[f64],
    t0: f64,
    t1: f64,
    columns: usize,
) -> Vec<(usize, [f64; 2])> {
    let px_per_s = columns as f64 / (t1 - t0).max(f64::MIN_POSITIVE);
    let start = keyframes.partition_point(|&t| t < t0);
    let mut kept: Vec<(usize, [f64; 2])> = Vec::new();
    for (i, &t) in keyframes.iter().enumerate().skip(start) {
        if t > t1 {
            break;
        }
        if kept
            .last()
            .is_some_and(|(_, p)| (t - p[0]) * px_per_s < MIN_MARKER_GAP_PX)
        {
            continue;
        }
        if let Some(v) = series.value_at(t).filter(|v| v.is_finite()) {
            kept.push((i, [t, v]));
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(n: usize) -> Series {
        Series::new(
            "x".into(),
            (0..n).map(|i| i as f64 * 0.01).collect(),
            (0..n).map(|i| ((i * 7919) % 1000) as f64).collect(),
        )
    }

    #[test]
    fn few_samples_are_drawn_as_they_are() {
        let s = ramp(50);
        let p = samples(&s, 0.1, 0.2, 100).unwrap();
        // Samples 10..=20 and one either side.
        assert_eq!(p.len(), 13);
        assert_eq!(p[0], [s.times[9], s.values[9]]);
        assert_eq!(p[12], [s.times[21], s.values[21]]);
    }

    #[test]
    fn many_samples_are_drawn_from_each_columns_extremes() {
        // 10^6 samples over 10 s into 500 columns.
        let n = 1_000_000;
        let s = Series::new(
            "x".into(),
            (0..n).map(|i| i as f64 * 1e-5).collect(),
            (0..n).map(|i| ((i as u64 * 7919) % 1000) as f64).collect(),
        );
        assert!(samples(&s, 0.0, 10.0, 500).is_none());
        let b = bars(&s, 0.0, 10.0, 500);
        assert!(b.len() <= 500, "{} bars", b.len());
        let lo = b.iter().map(|q| q[2]).fold(f64::INFINITY, f64::min);
        let hi = b.iter().map(|q| q[3]).fold(f64::NEG_INFINITY, f64::max);
        assert_eq!((lo, hi), (0.0, 999.0));
        assert!(
            b.windows(2).all(|w| w[0][1] <= w[1][0] + 1e-12),
            "in time order"
        );
        // Each bar reaches the one before it.
        assert!(
            b.windows(2)
                .all(|w| w[1][2] <= w[0][3] && w[1][3] >= w[0][2])
        );
    }

    #[test]
    fn keyframe_markers_thin_out_when_crowded() {
        let s = ramp(1001);
        // Exact binary fractions: 1/8 s apart.
        let keys: Vec<f64> = (0..=80).map(|i| f64::from(i) * 0.125).collect();
        // 10 s over 1000 pixels: keys 12.5 px apart, all kept.
        let all = markers(&s, &keys, 0.0, 10.0, 1000);
        assert_eq!(all.len(), 81);
        // Key 7 at 0.875 s, between samples 87 and 88.
        let want = 0.5 * (s.values[87] + s.values[88]);
        assert_eq!(all[7].0, 7);
        assert!((all[7].1[1] - want).abs() < 1e-9, "{:?} {want}", all[7]);
        // Over 100 pixels: 1.25 px apart, one in seven kept (8.75 px ≥ 8 px).
        let few = markers(&s, &keys, 0.0, 10.0, 100);
        assert_eq!(few.len(), 12);
        assert_eq!(few[1].0, 7);
    }
}
