//! From a sampled series to what is drawn over a stretch of time: a
//! polyline of at most two points per pixel column (the smallest and the
//! largest value in it, [`Series::envelope`]) or, zoomed in, the samples
//! themselves; and the keyframe markers, at most one per few pixels.

use super::cache::ChannelKey;
use crate::curves::{Series, Unit};
use egui::Color32;
use std::sync::Arc;

/// Markers closer than this (pixels) to the last one drawn are skipped.
const MIN_MARKER_GAP_PX: f64 = 4.0;

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
    /// The polyline, plot coordinates (seconds, value).
    pub points: Arc<Vec<[f64; 2]>>,
    /// Keyframe markers: the keyframe's index and where it sits.
    pub markers: Arc<Vec<(usize, [f64; 2])>>,
    /// The smallest and largest value drawn.
    pub range: Option<(f64, f64)>,
}

/// `series` over `[t0, t1]` for a plot `columns` pixels wide, with markers
/// at `keyframes`.
pub fn draw(series: &Series, keyframes: Option<&[f64]>, t0: f64, t1: f64, columns: usize) -> Drawn {
    let points = polyline(series, t0, t1, columns);
    let range = points.iter().fold(None, |r: Option<(f64, f64)>, p| {
        Some(r.map_or((p[1], p[1]), |(lo, hi)| (lo.min(p[1]), hi.max(p[1]))))
    });
    let markers = keyframes.map_or_else(Vec::new, |k| markers(series, k, t0, t1, columns));
    Drawn {
        points: Arc::new(points),
        markers: Arc::new(markers),
        range,
    }
}

/// The samples in view (one more each side, so the line reaches the edges)
/// when there are at most two per column; else each column's minimum and
/// maximum where they occur.
pub fn polyline(series: &Series, t0: f64, t1: f64, columns: usize) -> Vec<[f64; 2]> {
    let times = &series.times;
    let first = times.partition_point(|&t| t < t0).saturating_sub(1);
    let last = (times.partition_point(|&t| t <= t1) + 1).min(times.len());
    if first >= last {
        return Vec::new();
    }
    if last - first <= 2 * columns.max(1) {
        return (first..last)
            .filter(|&i| series.values[i].is_finite())
            .map(|i| [times[i], series.values[i]])
            .collect();
    }
    let mut points: Vec<[f64; 2]> = Vec::with_capacity(2 * columns);
    for span in series.envelope(t0, t1, columns) {
        if !(span.min.is_finite() && span.max.is_finite()) {
            continue;
        }
        // Each extreme where it occurs, in time order.
        let (low, high) = ([span.t_min, span.min], [span.t_max, span.max]);
        if span.t_min == span.t_max {
            points.push(low);
        } else if span.t_min < span.t_max {
            points.extend([low, high]);
        } else {
            points.extend([high, low]);
        }
    }
    points
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
        let p = polyline(&s, 0.1, 0.2, 100);
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
        let p = polyline(&s, 0.0, 10.0, 500);
        assert!(p.len() <= 1000, "{} points", p.len());
        let lo = p.iter().map(|q| q[1]).fold(f64::INFINITY, f64::min);
        let hi = p.iter().map(|q| q[1]).fold(f64::NEG_INFINITY, f64::max);
        assert_eq!((lo, hi), (0.0, 999.0));
        assert!(p.windows(2).all(|w| w[0][0] <= w[1][0]), "in time order");
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
        // Over 100 pixels: 1.25 px apart, one in four kept (5 px ≥ 4 px).
        let few = markers(&s, &keys, 0.0, 10.0, 100);
        assert_eq!(few.len(), 21);
        assert_eq!(few[1].0, 4);
    }
}
