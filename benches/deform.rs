//! CPU MEMG deformation (`anim::memg::deform`) at 10k and 100k motion vertices
//! with 32 basis vectors, against a streaming read of the same basis: the
//! memory-bandwidth bound, since every frame reads U once; `cpu_deformer` keeps
//! one `Deformer` (its scratch) across frames, as a viewer does. Throughput is bytes
//! of U (as f32) per frame, so criterion's GiB/s for the two compare directly.
//!
//! `cargo bench --bench deform`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use motion_viewer::anim::memg::{Binding, Deformer, deform};
use motion_viewer::formats::memg::{MemgGroup, MemgMotion};
use motion_viewer::formats::obj::{ObjGroup, ObjScene};
use rayon::prelude::*;
use std::hint::black_box;
use std::time::Duration;

const BASIS: usize = 32;
const TIMESTEPS: usize = 16;

/// A strip of `v` vertices in one group, with a deterministic xorshift basis.
fn scene(v: usize) -> (ObjScene, MemgMotion) {
    let positions: Vec<[f32; 3]> = (0..v).map(|i| [i as f32 * 1e-3, 0.0, 0.0]).collect();
    let triangles: Vec<[u32; 3]> = (0..v.saturating_sub(2) as u32)
        .map(|i| [i, i + 1, i + 2])
        .collect();
    let scene = ObjScene {
        groups: vec![ObjGroup {
            name: "strip".into(),
            triangles: 0..triangles.len(),
            material: None,
        }],
        positions,
        triangles,
        materials: Vec::new(),
    };
    let mut seed = 0x2545_f491_u32;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed as f32 / u32::MAX as f32 - 0.5
    };
    let motion = MemgMotion {
        fps: 30,
        local_frames: 1,
        timesteps: TIMESTEPS,
        frames: vec![[1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.]; TIMESTEPS],
        groups: vec![MemgGroup {
            name: "strip".into(),
            mapping: (1..=v as u32).collect(),
            mean: scene.positions.iter().flatten().copied().collect(),
            parent: 0,
            basis_len: BASIS,
            basis: (0..3 * v * BASIS).map(|_| random() * 0.01).collect(),
            coeffs: (0..BASIS * TIMESTEPS).map(|_| random()).collect(),
        }],
        ..MemgMotion::default()
    };
    (scene, motion)
}

/// Reads every value once with 16 independent lanes per thread, so the sum is
/// bound by memory rather than by one chain of dependent adds.
fn streaming_sum(data: &[f32]) -> f32 {
    data.par_chunks(1 << 16)
        .map(|chunk| {
            let mut lanes = [0f32; 16];
            let blocks = chunk.chunks_exact(16);
            let tail: f32 = blocks.remainder().iter().sum();
            for block in blocks {
                for (l, &x) in lanes.iter_mut().zip(block) {
                    *l += x;
                }
            }
            lanes.iter().sum::<f32>() + tail
        })
        .sum()
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
