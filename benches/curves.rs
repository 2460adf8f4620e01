//! Unity curve evaluation (`anim::curve::evaluate`) for the three kinds of
//! segment MRTK input animations hold: version 1.1 linear keys, Hermite
//! tangents and weighted Bezier; then a whole MRTK state (`state_at`) on
//! `data/hands.mrtk`.
//!
//! Then the curves panel's decimation: `Series::envelope` of 20 channels of
//! 10⁵ samples over a view that moves every frame (nothing kept from the
//! frame before), and of one 10⁶-sample channel on 1920 columns.
//!
//! `cargo bench -p motion-viewer-benches --bench curves`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use motion_viewer::anim::curve::evaluate;
use motion_viewer::anim::input_animation::{duration_s, state_at};
use motion_viewer::formats::input_animation::{Curve, Key, WeightedMode, decode};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

/// Keys per curve: a 4 s recording at 60 keys per second, like `data/hands.mrtk`.
const KEYS: usize = 240;
/// Evaluations per benchmark iteration, at times spread over the whole curve.
const SAMPLES: usize = 1000;

/// A curve of `KEYS` keys a 60th of a second apart; `key` shapes each one.
fn curve(key: impl Fn(f32, f32) -> Key) -> Curve {
    Curve {
        keys: (0..KEYS)
            .map(|i| {
                let time = i as f32 / 60.0;
                key(time, (time * 3.0).sin())
            })
            .collect(),
        ..Curve::default()
    }
}

fn bench_evaluate(c: &mut Criterion) {
    let hermite = |time: f32, value: f32| Key {
        in_tangent: 3.0 * (time * 3.0).cos(),
        out_tangent: 3.0 * (time * 3.0).cos(),
        ..Key::linear(time, value)
    };
    let curves = [
        ("linear_v1.1", curve(Key::linear)),
        (
            "hermite",
            curve(|t, v| Key {
                weighted_mode: WeightedMode::None,
                ..hermite(t, v)
            }),
        ),
        (
            "weighted_bezier",
            curve(|t, v| Key {
                in_weight: 0.2,
                out_weight: 0.45,
                weighted_mode: WeightedMode::Both,
                ..hermite(t, v)
            }),
        ),
    ];
    let end = f64::from(curves[0].1.keys[KEYS - 1].time);
    let times: Vec<f64> = (0..SAMPLES)
        .map(|i| end * i as f64 / SAMPLES as f64)
        .collect();
    let mut group = c.benchmark_group("curve_evaluate");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Elements(SAMPLES as u64));
    for (name, curve) in &curves {
        group.bench_with_input(BenchmarkId::from_parameter(name), curve, |b, curve| {
            b.iter(|| {
                times
                    .iter()
                    .map(|&t| evaluate(curve, black_box(t)))
                    .sum::<f64>()
            })
        });
    }
    group.finish();
}

fn bench_state_at(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("data/hands.mrtk");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!(
            "skipping mrtk_state_at: {} is missing; make it with \
             `cargo run --no-default-features --example make_input_animation -- data/hands.mrtk`",
            path.display()
        );
        return;
    };
    let anim = decode(&bytes).expect("a valid input animation");
    let duration = duration_s(&anim);
    let mut group = c.benchmark_group("mrtk_state_at");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        // One state evaluates every float and boolean curve.
        .throughput(Throughput::Elements(
            (anim.float_curves().len() + anim.bool_curves().len()) as u64,
        ));
    let mut t = 0.0;
    group.bench_function("hands", |b| {
        b.iter(|| {
            // Uneven steps visit every segment rather than one cached spot.
            t = (t + duration * 0.0137) % duration.max(f64::MIN_POSITIVE);
            state_at(&anim, black_box(t))
        })
    });
    group.finish();
}

fn bench_envelope(c: &mut Criterion) {
    use motion_viewer::curves::Series;
    let series = |n: usize, k: usize| {
        let times: Vec<f64> = (0..n).map(|i| i as f64 * 1e-3).collect();
        let values = times.iter().map(|t| (t * (0.5 + k as f64)).sin()).collect();
        Series::new(format!("c{k}"), times, values)
    };
    let mut group = c.benchmark_group("envelope");
    group.measurement_time(Duration::from_secs(3));
    let twenty: Vec<Series> = (0..20).map(|k| series(100_000, k)).collect();
    let mut shift = 0.0;
    group.bench_function("20x1e5_samples_1000_columns_moving_view", |b| {
        b.iter(|| {
            // A new view each time: nothing is reused from the last.
            shift = (shift + 0.001) % 1.0;
            for s in &twenty {
                black_box(s.envelope(shift, 99.0 + shift, 1000));
            }
        })
    });
    let million = series(1_000_000, 3);
    group.bench_function("1e6_samples_1920_columns_moving_view", |b| {
        b.iter(|| {
            shift = (shift + 0.001) % 1.0;
            black_box(million.envelope(shift, 998.0 + shift, 1920))
        })
    });
    group.finish();
}

criterion_group!(benches, bench_evaluate, bench_state_at, bench_envelope);
criterion_main!(benches);
