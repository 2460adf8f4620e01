//! CPU MEMG deformation (`anim::memg::deform`) at 10k and 100k motion vertices
//! with 32 basis vectors, against a streaming read of the same basis: the
//! memory-bandwidth bound, since every frame reads U once; `cpu_deformer` keeps
//! one `Deformer` (its scratch) across frames, as a viewer does. Throughput is bytes
//! of U (as f32) per frame, so criterion's GiB/s for the two compare directly.
//!
//! `cargo bench -p motion-viewer-benches --bench deform`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use motion_viewer::anim::memg::{Binding, Deformer, deform};
use motion_viewer::formats::memg::MemgMotion;
use motion_viewer::formats::obj::ObjScene;
use motion_viewer::synthetic::{self, streaming_sum};
use std::hint::black_box;
use std::time::Duration;

const BASIS: usize = 32;
const TIMESTEPS: usize = 16;

/// A grid of `v` vertices in one group with a 32-vector basis.
fn scene(v: usize) -> (ObjScene, MemgMotion) {
    synthetic::generate(synthetic::Spec {
        vertices: v,
        basis: BASIS,
        frames: TIMESTEPS,
    })
}

fn bench_deform(c: &mut Criterion) {
    let mut group = c.benchmark_group("memg_deform");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for v in [10_000, 100_000] {
        let (scene, motion) = scene(v);
        let binding = Binding::new(&scene, &motion).expect("the strip binds");
        let basis = &motion.groups[0].basis;
        group.throughput(Throughput::Bytes((4 * basis.len()) as u64));
        let mut positions = Vec::new();
        let mut t = 0.0;
        group.bench_with_input(BenchmarkId::new("cpu", v), &v, |b, _| {
            b.iter(|| {
                // Fractional times, so each frame blends two timesteps as playback does.
                t = (t + 0.37) % (TIMESTEPS - 1) as f64;
                deform(&scene, &motion, &binding, black_box(t), &mut positions);
                black_box(&positions);
            })
        });
        let mut deformer = Deformer::new();
        group.bench_with_input(BenchmarkId::new("cpu_deformer", v), &v, |b, _| {
            b.iter(|| {
                t = (t + 0.37) % (TIMESTEPS - 1) as f64;
                deformer.deform(&scene, &motion, &binding, black_box(t), &mut positions);
                black_box(&positions);
            })
        });
        group.bench_with_input(BenchmarkId::new("read_bound", v), &v, |b, _| {
            b.iter(|| black_box(streaming_sum(black_box(basis))))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_deform);
criterion_main!(benches);
