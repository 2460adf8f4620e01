//! GPU deformation (dispatch + wait) against the CPU fast path, at 10k, 100k
//! and 1M motion vertices with 32 basis vectors.
//!
//! `cargo run --release --example gpu_deform_bench [-- VERTICES...]`

use motion_viewer::anim::memg::{Binding, deform};
use motion_viewer::formats::memg::{MemgGroup, MemgMotion};
use motion_viewer::formats::obj::{ObjGroup, ObjScene};
use motion_viewer::gpu::{DeformOptions, GpuContext, GpuDeformer};
use std::time::Instant;

const BASIS: usize = 32;
const TIMESTEPS: usize = 16;

/// A strip of `v` vertices in one group with a pseudo-random basis.
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
        ..Default::default()
    };
    (scene, motion)
}

/// Median of `runs` timings of `f`, in milliseconds.
fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

fn main() -> motion_viewer::Result<()> {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("vertex count"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 100_000, 1_000_000]
    } else {
        sizes
    };
    let ctx = GpuContext::new()?;
    println!("adapter: {}", ctx.adapter_name());
    println!(
        "{:>10} {:>6} {:>12} {:>10} {:>12} {:>10} {:>8}",
        "vertices", "chunks", "gpu ms", "gpu fps", "cpu ms", "cpu fps", "threads"
    );
    for v in sizes {
        let (scene, motion) = scene(v);
        let binding = Binding::new(&scene, &motion).map_err(motion_viewer::Error::Gpu)?;
        let mut gpu = GpuDeformer::new(&ctx, &scene, &motion, &binding, DeformOptions::default())?;
        let runs = if v >= 1_000_000 { 5 } else { 15 };
        let mut t = 0.0;
        let gpu_ms = median_ms(runs, || {
            t = (t + 0.7) % (TIMESTEPS as f64 - 1.0);
            gpu.update(t);
            ctx.wait().expect("GPU wait");
        });
        let mut out = Vec::new();
        let cpu_ms = median_ms(runs, || {
            t = (t + 0.7) % (TIMESTEPS as f64 - 1.0);
            deform(&scene, &motion, &binding, t, &mut out);
        });
        println!(
            "{v:>10} {:>6} {gpu_ms:>12.2} {:>10.1} {cpu_ms:>12.2} {:>10.1} {:>8}",
            gpu.chunk_count(),
            1e3 / gpu_ms,
            1e3 / cpu_ms,
            rayon::current_num_threads()
        );
    }
    Ok(())
}
