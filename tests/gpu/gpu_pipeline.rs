//! GPU deformation, normals and rendering checked against the CPU reference
//! and a committed reference image, on whatever adapter wgpu finds (CI: a CPU
//! adapter, llvmpipe through `WGPU_BACKEND=gl` or lavapipe through `vulkan`).
//!
//! Without an adapter the tests print a notice and pass locally, but fail
//! when `CI` is set, so CI never skips them silently.
use crate::app::gpu;
use crate::common;
use common::data;

use glam::Vec3;
use motion_viewer::anim::memg::{Binding, bounding_box_over_time, deform_reference_f64};
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg::{self, ArraySource, MemgGroup, MemgMotion};
use motion_viewer::formats::obj::{ObjGroup, ObjScene};
use motion_viewer::gpu::{
    BasisFormat, Capture, DeformOptions, FrameScene, GpuContext, GpuDeformer, OrbitCamera, Renderer,
};
use motion_viewer::scene::shapes::Grid;
use std::path::PathBuf;

/// Positions agree within this fraction of the animation's bounding-box diagonal.
const POSITION_TOLERANCE: f64 = 1e-4;
/// Rendered pictures agree when the mean absolute error over all channels is
/// at most this (0..255)…
const MEAN_ERROR_TOLERANCE: f64 = 0.25;
/// …and 99 % of the channel values differ by at most this. llvmpipe through GL
/// and lavapipe through Vulkan produce the reference bit for bit; the margin
/// is for other LLVM/Mesa versions. Frame 60 differs from frame 20 by a mean
/// of 0.7 and a p99 of 17, so the check does see motion.
const P99_ERROR_TOLERANCE: u8 = 4;

/// The committed sample: `data/flags.obj` and `data/flags.bin`.
fn sample() -> (ObjScene, MemgMotion) {
    let options = motion_viewer::OpenOptions {
        lone_scenes: true,
        ..motion_viewer::OpenOptions::default()
    };
    let mut loaded =
        motion_viewer::open_with([data("flags.obj")], &options).expect("data/flags.obj");
    let scene = std::sync::Arc::try_unwrap(loaded.scenes.remove(0).1).expect("held once");
    let motion = memg::load(&data("flags.bin")).expect("data/flags.bin");
    (scene, motion)
}

/// A scene built here: two waving cloth groups with different basis sizes
/// (one under local frame 0, one in world space) and a static group.
fn synthetic(cols: usize, rows: usize) -> (ObjScene, MemgMotion) {
    let mut scene = ObjScene::default();
    let mut motion = MemgMotion {
        fps: 30,
        local_frames: 2,
        timesteps: 9,
        ..Default::default()
    };
    for t in 0..motion.timesteps {
        for f in 0..2 {
            let a = 0.1 * t as f64 + f as f64;
            let (s, c) = a.sin_cos();
            motion.frames.push([
                c,
                0.,
                s,
                0.2 * f as f64,
                0.,
                1.,
                0.,
                0.05 * t as f64,
                -s,
                0.,
                c,
                0.,
            ]);
        }
    }
    for (gi, (name, r, parent)) in [("cloth_a", 3usize, 0), ("cloth_b", 6, -1), ("pole", 0, 1)]
        .into_iter()
        .enumerate()
    {
        let first = scene.positions.len() as u32;
        for y in 0..rows {
            for x in 0..cols {
                scene
                    .positions
                    .push([x as f32 * 0.1 + gi as f32 * 2.0, y as f32 * 0.1, 0.0]);
            }
        }
        let start = scene.triangles.len();
        for y in 0..rows - 1 {
            for x in 0..cols - 1 {
                let i = first + (y * cols + x) as u32;
                let c = cols as u32;
                scene.triangles.push([i, i + 1, i + c]);
                scene.triangles.push([i + 1, i + c + 1, i + c]);
            }
        }
        scene.groups.push(ObjGroup {
            name: name.into(),
            triangles: start..scene.triangles.len(),
            material: None,
        });
        if name == "pole" {
            continue; // no motion: stays where the .obj puts it
        }
        let v = cols * rows;
        let mapping: Vec<u32> = (0..v as u32).map(|i| first + i + 1).collect();
        let mean: Vec<f32> = mapping
            .iter()
            .flat_map(|&m| scene.positions[m as usize - 1])
            .collect();
        let basis: Vec<f32> = (0..r * 3 * v)
            .map(|k| 0.02 * ((k % 3 * v + k / (3 * v) * 7) as f32 * 0.37).sin())
            .collect();
        let coeffs: Vec<f32> = (0..r * motion.timesteps)
            .map(|k| ((k as f32) * 0.9).cos())
            .collect();
        motion.groups.push(MemgGroup {
            name: name.into(),
            mapping,
            mean,
            parent,
            basis_len: r,
            basis,
            coeffs,
        });
    }
    (scene, motion)
}

/// Largest distance between GPU and reference positions over the box diagonal.
fn relative_error(gpu: &[[f32; 3]], reference: &[[f64; 3]], diagonal: f64) -> f64 {
    assert_eq!(gpu.len(), reference.len());
    gpu.iter()
        .zip(reference)
        .map(|(g, r)| {
            (0..3)
                .map(|a| (f64::from(g[a]) - r[a]).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .fold(0.0, f64::max)
        / diagonal
}

fn diagonal(scene: &ObjScene, motion: &MemgMotion, binding: &Binding) -> f64 {
    let (lo, hi) = bounding_box_over_time(scene, motion, binding).expect("non-empty scene");
    (Vec3::from(hi) - Vec3::from(lo)).length().into()
}

/// Deforms on the GPU at each time and compares with the f64 CPU reference.
fn check_positions(
    ctx: &GpuContext,
    scene: &ObjScene,
    motion: &MemgMotion,
    options: DeformOptions,
    times: &[f64],
) -> GpuDeformer {
    let binding = Binding::new(scene, motion).expect("binding");
    let diagonal = diagonal(scene, motion, &binding);
    let mut deformer = GpuDeformer::new(ctx, scene, motion, &binding, options).expect("deformer");
    for &t in times {
        deformer.update(t);
        let gpu = deformer.read_positions().expect("read-back");
        let reference = deform_reference_f64(scene, motion, &binding, t);
        let error = relative_error(&gpu, &reference, diagonal);
        assert!(
            error <= POSITION_TOLERANCE,
            "t = {t}: GPU is {error:e} of the diagonal from the CPU reference"
        );
    }
    deformer
}

/// Times to test: first, second, a fractional one, the middle, the last, and past the end.
fn times(motion: &MemgMotion) -> Vec<f64> {
    let last = motion.timesteps as f64 - 1.0;
    vec![
        0.0,
        1.0,
        2.37,
        (last * 0.5).floor(),
        last - 0.5,
        last,
        last + 3.0,
    ]
}

#[test]
fn sample_positions_match_cpu() {
    let Some(ctx) = gpu() else { return };
    let (scene, motion) = sample();
    let deformer = check_positions(
        &ctx,
        &scene,
        &motion,
        DeformOptions::default(),
        &times(&motion),
    );
    // The comparison is only meaningful if the motion moves the mesh.
    let moved = deformer.read_positions().unwrap();
    let rest_distance = moved
        .iter()
        .zip(&scene.positions)
        .map(|(a, b)| (Vec3::from(*a) - Vec3::from(*b)).length())
        .fold(0f32, f32::max);
    assert!(
        rest_distance > 1e-3,
        "the last timestep equals the rest pose"
    );
}

#[test]
fn big_endian_sample_matches_cpu() {
    let Some(ctx) = gpu() else { return };
    let (scene, motion) = sample();
    let bytes = memg::encode(&motion, ByteOrder::Big);
    let big = memg::decode(&bytes).expect("big-endian decode");
    assert_eq!(big.byte_order, ByteOrder::Big);
    check_positions(&ctx, &scene, &big, DeformOptions::default(), &times(&big));
}

#[test]
fn shuffled_mapping_matches_cpu_and_unshuffled_gpu() {
    let Some(ctx) = gpu() else { return };
    let (scene, motion) = sample();
    let n = scene.positions.len();
    // A fixed permutation of the .obj vertices: new index = perm[old].
    let perm: Vec<usize> = (0..n).map(|i| (i * 7919 + 13) % n).collect();
    assert!(
        n % 7919 != 0,
        "stride must be coprime with the vertex count"
    );
    let mut shuffled = scene.clone();
    for (old, &new) in perm.iter().enumerate() {
        shuffled.positions[new] = scene.positions[old];
    }
    for t in &mut shuffled.triangles {
        *t = t.map(|v| perm[v as usize] as u32);
    }
    let mut shuffled_motion = motion.clone();
    for g in &mut shuffled_motion.groups {
        for m in &mut g.mapping {
            *m = perm[*m as usize - 1] as u32 + 1;
        }
    }
    let t = 5.5;
    let gpu_shuffled = check_positions(
        &ctx,
        &shuffled,
        &shuffled_motion,
        DeformOptions::default(),
        &[t],
    )
    .read_positions()
    .unwrap();
    let gpu_plain = check_positions(&ctx, &scene, &motion, DeformOptions::default(), &[t])
        .read_positions()
        .unwrap();
    for (old, &new) in perm.iter().enumerate() {
        assert_eq!(gpu_shuffled[new], gpu_plain[old], "vertex {old}");
    }
}

#[test]
fn basis_split_across_bindings_matches_cpu() {
    let Some(ctx) = gpu() else { return };
    for (scene, motion) in [sample(), synthetic(23, 17)] {
        // Room for a few vertices' bases per binding: many chunks, boundaries
        // inside groups and between groups of different basis sizes. Not so
        // little that the positions and triangles, windowed by the same cap,
        // need more bindings than GL's 16 (a binding for each eighth of them).
        let largest = motion.groups.iter().map(|g| g.basis_len).max().unwrap();
        let mesh_bytes = 12 * scene.positions.len() as u64 + 12 * scene.triangles.len() as u64;
        let options = DeformOptions {
            max_binding_bytes: Some((12 * largest as u64 * 37 + 8).max(mesh_bytes / 8)),
            ..DeformOptions::default()
        };
        let deformer = check_positions(&ctx, &scene, &motion, options, &times(&motion));
        assert!(
            deformer.chunk_count() > 3,
            "{} chunks",
            deformer.chunk_count()
        );
    }
}

#[test]
fn a_vertex_two_groups_move_is_moved_by_the_last_as_on_the_cpu() {
    let Some(ctx) = gpu() else { return };
    let (cols, rows) = (23, 17);
    let (scene, mut motion) = synthetic(cols, rows);
    // cloth_b's first row moves cloth_a's last row instead of its own: a seam
    // both groups write, which cloth_b (later in the file) must win.
    let seam: Vec<u32> = motion.groups[0].mapping[(rows - 1) * cols..].to_vec();
    motion.groups[1].mapping[..cols].copy_from_slice(&seam);
    let binding = Binding::new(&scene, &motion).expect("binding");
    assert!(
        !binding.warnings.is_empty(),
        "the binding should warn of vertices moved twice"
    );
    // Whole chunks, then chunks of a few vertices (the seam's writers in
    // different dispatches).
    let mesh_bytes = 12 * scene.positions.len() as u64 + 12 * scene.triangles.len() as u64;
    for max_binding_bytes in [None, Some((12 * 6 * 37 + 8).max(mesh_bytes / 8))] {
        let options = DeformOptions {
            max_binding_bytes,
            ..DeformOptions::default()
        };
        let deformer = check_positions(&ctx, &scene, &motion, options, &times(&motion));
        // The seam is where cloth_b alone puts it, not where cloth_a would.
        let t = 2.37;
        let mut deformer = deformer;
        deformer.update(t);
        let gpu = deformer.read_positions().unwrap();
        let alone = |keep: usize| {
            let mut one = motion.clone();
            one.groups = vec![motion.groups[keep].clone()];
            deform_reference_f64(&scene, &one, &Binding::new(&scene, &one).unwrap(), t)
        };
        let (only_a, only_b) = (alone(0), alone(1));
        for &m in &seam {
            let i = m as usize - 1;
            let from = |r: &[[f64; 3]]| {
                (0..3)
                    .map(|k| (f64::from(gpu[i][k]) - r[i][k]).abs())
                    .fold(0.0, f64::max)
            };
            assert!(
                from(&only_b) < 1e-4 && from(&only_a) > 1e-3,
                "seam vertex {i}: {:?}; cloth_b alone {:?}, cloth_a alone {:?}",
                gpu[i],
                only_b[i],
                only_a[i]
            );
        }
    }
}

#[test]
fn synthetic_scene_matches_cpu() {
    let Some(ctx) = gpu() else { return };
    let (scene, motion) = synthetic(31, 9);
    let deformer = check_positions(
        &ctx,
        &scene,
        &motion,
        DeformOptions::default(),
        &times(&motion),
    );
    // One chunk per moving group: nothing here comes near a binding.
    assert_eq!(deformer.chunk_count(), 2);
    assert_eq!(deformer.mesh().position_window_count(), 1);
    assert_eq!(deformer.mesh().normals_dispatch_count(), 1);
}

/// The sample with its `.obj` vertices permuted (triangles and mapping
/// follow), so a chunk of motion vertices writes all over the positions.
fn shuffled_sample() -> (ObjScene, MemgMotion) {
    let (scene, motion) = sample();
    let n = scene.positions.len();
    let perm: Vec<usize> = (0..n).map(|i| (i * 7919 + 13) % n).collect();
    let mut shuffled = scene.clone();
    for (old, &new) in perm.iter().enumerate() {
        shuffled.positions[new] = scene.positions[old];
    }
    for t in &mut shuffled.triangles {
        *t = t.map(|v| perm[v as usize] as u32);
    }
    let mut shuffled_motion = motion;
    for g in &mut shuffled_motion.groups {
        for m in &mut g.mapping {
            *m = perm[*m as usize - 1] as u32 + 1;
        }
    }
    (shuffled, shuffled_motion)
}

/// Largest distance between GPU and f64 CPU normals.
fn normal_error(gpu: &[[f32; 3]], cpu: &[[f64; 3]]) -> f64 {
    gpu.iter()
        .zip(cpu)
        .map(|(g, c)| {
            (0..3)
                .map(|a| (f64::from(g[a]) - c[a]).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .fold(0.0, f64::max)
}

#[test]
fn every_array_split_across_bindings_matches_cpu() {
    let Some(ctx) = gpu() else { return };
    for (scene, motion) in [shuffled_sample(), synthetic(23, 17)] {
        // A binding a sixth of the positions or the triangles, whichever is
        // larger: every array is cut (basis and mean pose into chunks,
        // positions and triangles into windows, normals into dispatches)
        // while the windows stay within the bindings a pass may use.
        let largest = (12 * scene.positions.len()).max(12 * scene.triangles.len());
        let limit = (largest / 6) as u64 & !255;
        let options = DeformOptions {
            max_binding_bytes: Some(limit),
            ..DeformOptions::default()
        };
        let mut deformer = check_positions(&ctx, &scene, &motion, options, &times(&motion));
        let mesh = deformer.mesh();
        assert!(
            deformer.chunk_count() > 2 * motion.groups.len(),
            "{} chunks",
            deformer.chunk_count()
        );
        assert!(
            mesh.position_window_count() > 1,
            "{} windows",
            mesh.position_window_count()
        );
        assert!(
            mesh.normals_dispatch_count() > 1,
            "{} dispatches",
            mesh.normals_dispatch_count()
        );
        for t in [0.0, 4.5] {
            deformer.update(t);
            let positions = deformer.read_positions().unwrap();
            let worst = normal_error(
                &deformer.read_normals().unwrap(),
                &cpu_normals(&positions, &scene.triangles),
            );
            assert!(worst < 1e-4, "t = {t}: normals differ by up to {worst}");
        }
    }
}

#[test]
fn arrays_too_large_for_the_bindings_are_errors_naming_the_bytes() {
    let Some(ctx) = gpu() else { return };
    // 9 vertices with 100 basis vectors: 1200 bytes per vertex as f32, 800 as
    // f16 (3 values padded to 4 per column); the scene itself fits 1 KiB.
    let spec = motion_viewer::synthetic::Spec::parse("9x100x2").unwrap();
    let (scene, motion) = motion_viewer::synthetic::generate(spec);
    let binding = Binding::new(&scene, &motion).unwrap();
    let mut options = DeformOptions {
        max_binding_bytes: Some(1024),
        ..DeformOptions::default()
    };
    let e = GpuDeformer::new(&ctx, &scene, &motion, &binding, options).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("100 basis vectors need 1200 bytes as f32") && text.contains("(1024)"),
        "{text}"
    );
    options.basis = BasisFormat::F16;
    let deformer = GpuDeformer::new(&ctx, &scene, &motion, &binding, options).unwrap();
    assert_eq!(deformer.chunk_count(), 9);

    // The flags' positions and triangles in 256-byte windows need more
    // bindings than a pass may have.
    let (scene, motion) = sample();
    let binding = Binding::new(&scene, &motion).unwrap();
    options.max_binding_bytes = Some(256);
    let text = GpuDeformer::new(&ctx, &scene, &motion, &binding, options)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("positions (0.0 MB (37392 bytes)) and triangles (0.1 MB (67872 bytes))"),
        "{text}"
    );
}

/// Worst GPU error against the f64 reference over `times`, as a fraction of
/// the box diagonal, with the basis stored as `basis`.
fn worst_error(
    ctx: &GpuContext,
    scene: &ObjScene,
    motion: &MemgMotion,
    options: DeformOptions,
    times: &[f64],
) -> (f64, GpuDeformer) {
    let binding = Binding::new(scene, motion).unwrap();
    let diagonal = diagonal(scene, motion, &binding);
    let mut deformer = GpuDeformer::new(ctx, scene, motion, &binding, options).unwrap();
    let mut worst = 0f64;
    for &t in times {
        deformer.update(t);
        let gpu = deformer.read_positions().unwrap();
        let reference = deform_reference_f64(scene, motion, &binding, t);
        worst = worst.max(relative_error(&gpu, &reference, diagonal));
    }
    (worst, deformer)
}

/// The f16 basis's worst error against the f64 reference, measured on
/// lavapipe over every test time, split or not: 9.7e-6 of the diagonal on the
/// flags and 1.3e-6 on the synthetic cloth (f32: 1.7e-7 and 6.2e-8). The bound
/// leaves a 3× margin for other GPUs' rounding; see BENCHMARKS.md.
const F16_TOLERANCE: f64 = 3e-5;

#[test]
fn f16_basis_halves_the_bytes_within_its_error_bound() {
    let Some(ctx) = gpu() else { return };
    for (scene, motion) in [sample(), synthetic(31, 9)] {
        let times = times(&motion);
        let (f32_error, f32_deformer) =
            worst_error(&ctx, &scene, &motion, DeformOptions::default(), &times);
        for limit in [None, Some(12 * 32 * 37 + 8)] {
            let options = DeformOptions {
                basis: BasisFormat::F16,
                max_binding_bytes: limit,
                ..DeformOptions::default()
            };
            let (f16_error, f16_deformer) = worst_error(&ctx, &scene, &motion, options, &times);
            eprintln!(
                "worst error over the diagonal: f32 {f32_error:e}, f16 {f16_error:e} (binding {limit:?})"
            );
            assert!(f16_error <= F16_TOLERANCE, "f16 error {f16_error:e}");
            // The f16 path really rounds to 11 bits: coarser than f32.
            assert!(
                f16_error > 4.0 * f32_error,
                "f16 {f16_error:e} vs f32 {f32_error:e}"
            );
            // Half the bytes, give or take a padding value per column.
            let (half, full) = (f16_deformer.basis_bytes(), f32_deformer.basis_bytes());
            assert!(
                2 * half >= full && 2 * half <= full + 4 * 64 * 32,
                "{half} of {full}"
            );
        }
    }
}

#[test]
fn basis_read_from_the_mapped_file_equals_the_decoded_one() {
    let Some(ctx) = gpu() else { return };
    let (scene, motion) = synthetic(23, 17);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("motion.bin");
    std::fs::write(&path, memg::encode(&motion, ByteOrder::Big)).unwrap();
    let mapped = memg::MappedMemg::open(&path).unwrap();
    assert!(
        mapped
            .motion()
            .groups
            .iter()
            .all(|g| g.basis.is_empty() && g.mean.is_empty())
    );
    let binding = Binding::new(&scene, &motion).unwrap();
    for basis in [BasisFormat::F32, BasisFormat::F16] {
        let options = DeformOptions {
            basis,
            max_binding_bytes: Some(4096),
            ..DeformOptions::default()
        };
        let mut decoded = GpuDeformer::new(&ctx, &scene, &motion, &binding, options).unwrap();
        let mut streamed =
            GpuDeformer::from_source(&ctx, &scene, &mapped, &binding, options).unwrap();
        decoded.update(3.25);
        streamed.update(3.25);
        assert_eq!(
            decoded.read_positions().unwrap(),
            streamed.read_positions().unwrap()
        );
    }
}

/// Area-weighted vertex normals, written independently of the shader.
fn cpu_normals(positions: &[[f32; 3]], triangles: &[[u32; 3]]) -> Vec<[f64; 3]> {
    let mut sums = vec![[0f64; 3]; positions.len()];
    let p = |i: u32| positions[i as usize].map(f64::from);
    for t in triangles {
        let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
        let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        // |e1 × e2| is twice the area: the weight comes for free.
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        for &v in t {
            for a in 0..3 {
                sums[v as usize][a] += n[a];
            }
        }
    }
    sums.into_iter()
        .map(|s| {
            let len = (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt();
            if len > 0.0 {
                s.map(|x| x / len)
            } else {
                [0.0, 1.0, 0.0]
            }
        })
        .collect()
}

#[test]
fn normals_match_cpu_area_weighted() {
    let Some(ctx) = gpu() else { return };
    let (scene, motion) = sample();
    let binding = Binding::new(&scene, &motion).unwrap();
    let mut deformer =
        GpuDeformer::new(&ctx, &scene, &motion, &binding, DeformOptions::default()).unwrap();
    for t in [0.0, 7.5] {
        deformer.update(t);
        let positions = deformer.read_positions().unwrap();
        let gpu = deformer.read_normals().unwrap();
        let cpu = cpu_normals(&positions, &scene.triangles);
        let mut worst = 0f64;
        for (g, c) in gpu.iter().zip(&cpu) {
            let d = (0..3)
                .map(|a| (f64::from(g[a]) - c[a]).powi(2))
                .sum::<f64>()
                .sqrt();
            worst = worst.max(d);
        }
        assert!(worst < 1e-4, "t = {t}: normals differ by up to {worst}");
    }
}

/// Renders the sample at `frame` (in timesteps) at 320×240, framing the
/// moving vertices as they are at timestep 20 (the flags, not the whole ground,
/// so their motion shows).
fn render_sample(ctx: &GpuContext, frame: f64) -> image::RgbaImage {
    let (scene, motion) = sample();
    let binding = Binding::new(&scene, &motion).unwrap();
    let posed = deform_reference_f64(&scene, &motion, &binding, 20.0);
    let moving = motion
        .groups
        .iter()
        .flat_map(|g| &g.mapping)
        .map(|&m| Vec3::from(posed[m as usize - 1].map(|x| x as f32)));
    let (lo, hi) = moving.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
        (lo.min(p), hi.max(p))
    });
    let mut deformer =
        GpuDeformer::new(ctx, &scene, &motion, &binding, DeformOptions::default()).unwrap();
    deformer.update(frame);
    let mut camera = OrbitCamera::default();
    camera.frame_bounds(lo, hi);
    let mut renderer = Renderer::new(ctx, Capture::FORMAT);
    let mut capture = Capture::new(ctx, [320, 240]);
    let scene = FrameScene {
        meshes: vec![deformer.mesh()],
        grid: Some(Grid::under_bounds(lo, hi)),
        ..FrameScene::default()
    };
    capture.render(&mut renderer, &camera, &scene).unwrap()
}

/// Mean absolute error and 99th-percentile error over all channels (0..255).
fn image_error(a: &image::RgbaImage, b: &image::RgbaImage) -> (f64, u8) {
    assert_eq!(a.dimensions(), b.dimensions());
    let mut diffs: Vec<u8> = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| x.abs_diff(*y))
        .collect();
    let mean = diffs.iter().map(|&d| f64::from(d)).sum::<f64>() / diffs.len() as f64;
    diffs.sort_unstable();
    (mean, diffs[diffs.len() * 99 / 100])
}

#[test]
fn rendered_frame_matches_reference_image() {
    let Some(ctx) = gpu() else { return };
    let reference_path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/reference/flags_frame20_320x240.png");
    let picture = render_sample(&ctx, 20.0);
    if std::env::var_os("UPDATE_REFERENCE_IMAGES").is_some() {
        picture.save(&reference_path).unwrap();
    }
    let reference = image::open(&reference_path)
        .expect("reference image (regenerate with UPDATE_REFERENCE_IMAGES=1)")
        .to_rgba8();
    let (mean, p99) = image_error(&picture, &reference);
    eprintln!("frame 20 against the reference: mean {mean:.3}, p99 {p99}");
    if mean > MEAN_ERROR_TOLERANCE || p99 > P99_ERROR_TOLERANCE {
        let failed = std::env::temp_dir().join("flags_frame20_failed.png");
        picture.save(&failed).unwrap();
        panic!(
            "frame 20 differs from the reference: mean {mean:.2}, p99 {p99} (saved {})",
            failed.display()
        );
    }
    // The tolerance must not hide motion: a later frame has to fail it.
    let later = render_sample(&ctx, 60.0);
    let (mean, p99) = image_error(&later, &reference);
    eprintln!("frame 60 against the reference: mean {mean:.3}, p99 {p99}");
    assert!(
        mean > MEAN_ERROR_TOLERANCE || p99 > P99_ERROR_TOLERANCE,
        "frame 60 passes as frame 20 (mean {mean:.2}, p99 {p99})"
    );
}

#[test]
fn framed_bounds_project_inside_the_picture() {
    let (lo, hi) = (Vec3::new(-3.0, 0.5, 2.0), Vec3::new(5.0, 4.0, 2.5));
    for preset in [
        motion_viewer::scene::camera::Preset::Front,
        motion_viewer::scene::camera::Preset::Side,
        motion_viewer::scene::camera::Preset::Top,
        motion_viewer::scene::camera::Preset::ThreeQuarter,
    ] {
        let mut camera = OrbitCamera::default();
        camera.set_preset(preset);
        camera.frame_bounds(lo, hi);
        let square = camera.view_projection(4.0 / 3.0);
        camera.frame_bounds_aspect(lo, hi, 16.0 / 9.0);
        let wide = camera.view_projection(16.0 / 9.0);
        for (m, i) in [square, wide]
            .into_iter()
            .flat_map(|m| (0..8).map(move |i| (m, i)))
        {
            let corner = Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            );
            let p = m.project_point3(corner);
            assert!(
                p.x.abs() <= 1.0 && p.y.abs() <= 1.0 && (0.0..=1.0).contains(&p.z),
                "{preset:?}: corner {corner} lands at {p}"
            );
        }
    }
}
