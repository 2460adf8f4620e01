//! AIBO `.mtn`: decoding the two seed files and a few corpus files, and
//! sampling a pose (`anim::mtn::pose_at`) between keyframes.
//!
//! `cargo bench -p motion-viewer-benches --bench mtn`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use motion_viewer::anim::mtn::pose_at;
use motion_viewer::formats::mtn::decode;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

/// The seeds, then corpus files of different sizes and writers.
const FILES: [&str; 6] = [
    "data/sony_stand_sit.mtn",
    "data/skitter_sleep_to_sit.mtn",
    "tests/data/mtn/Doggies-Galore__AIBOMotionWorkbench/KnownGoodERS7.mtn",
    "tests/data/mtn/cartheur-aibo__aibo-lab/h_any#any_so0_circle21.mtn",
    "tests/data/mtn/cartheur-aibo__aibo-lab/a_stand#walk_sox_standard.mtn",
    "tests/data/mtn/cartheur-aibo__aibo-lab/a_sleep#sleep_soc_eyescustom01.mtn",
];

/// The file's bytes and a short name for the report.
fn read(relative: &str) -> (String, Vec<u8>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    (name, bytes)
}

fn bench_decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("mtn_decode");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for relative in FILES {
        let (name, bytes) = read(relative);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &bytes, |b, bytes| {
            b.iter(|| decode(black_box(bytes)).expect("a valid .mtn"))
        });
    }
    group.finish();
}

fn bench_pose_at(c: &mut Criterion) {
    let mut group = c.benchmark_group("mtn_pose_at");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for relative in [FILES[0], FILES[4]] {
        let (name, bytes) = read(relative);
        let motion = decode(&bytes).expect("a valid .mtn");
        let duration = motion.duration_s();
        // One sample evaluates body roll, pitch and yaw and every joint.
        group.throughput(Throughput::Elements(3 + motion.joints.len() as u64));
        let mut t = 0.0;
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                // Uneven steps visit every segment rather than one cached spot.
                t = (t + duration * 0.0137) % duration.max(f64::MIN_POSITIVE);
                pose_at(&motion, black_box(t))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_decode, bench_pose_at);
criterion_main!(benches);
