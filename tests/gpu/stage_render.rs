//! The stage drawn offscreen: the AIBO stick figure of every model, and whole
//! stages (ERS-210 sample, MRTK recording, MEMG + MTN + MRTK together).
//!
//! Pictures go to `$TMPDIR/stage_render/` to be looked at. Without a GPU
//! adapter the tests print a notice and pass locally, but fail when `CI` is
//! set, as in `gpu_pipeline.rs`.
use crate::app::gpu;
use crate::common;
use common::data;

use crate::common::stage as stage_common;

use glam::Vec3;
use motion_viewer::anim::aibo::{JointAngles, forward_kinematics};
use motion_viewer::formats::aibo::{Joint, Leg, LegJoint, Model};
use motion_viewer::gpu::{Capture, FrameScene, GpuContext, OrbitCamera, Renderer};
use motion_viewer::scene::Track;
use motion_viewer::scene::rig;
use motion_viewer::scene::shapes::Primitives;
use motion_viewer::stage::{DeformOn, Stage, StageOptions};
use stage_common::*;
use std::path::PathBuf;

const SIZE: [u32; 2] = [480, 320];

fn out_dir() -> PathBuf {
    let dir = std::env::temp_dir().join("stage_render");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Pixels of `image` that differ from `empty` by more than 24 in some channel.
fn changed(image: &image::RgbaImage, empty: &image::RgbaImage) -> usize {
    image
        .pixels()
        .zip(empty.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 24))
        .count()
}

/// Pixels where one channel outshines both others by more than 60.
fn dominant(image: &image::RgbaImage, channel: usize) -> usize {
    image
        .pixels()
        .filter(|p| (0..3).all(|c| c == channel || p.0[channel] > p.0[c].saturating_add(60)))
        .count()
}

#[test]
fn every_model_draws_a_stick_figure() {
    let Some(ctx) = gpu() else { return };
    let mut renderer = Renderer::new(&ctx, Capture::FORMAT);
    let mut capture = Capture::new(&ctx, SIZE);
    let dir = out_dir();
    for model in Model::ALL {
        // Front left leg reaching forward, head turned: not the neutral stance.
        let angles: JointAngles = [
            (Joint::Leg(Leg::LeftFront, LegJoint::Rotator), 40.0),
            (Joint::HeadPan, 30.0),
        ]
        .into_iter()
        .collect();
        let pose = forward_kinematics(model, &angles, [0.0; 3]);
        let mut figure = Primitives::default();
        let origin = Vec3::Y * rig::ground_lift(model, &pose);
        rig::primitives(model, &pose, origin, &mut figure);
        let (lo, hi) = figure
            .spheres
            .iter()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), s| {
                (lo.min(s.centre), hi.max(s.centre))
            });
        let mut camera = OrbitCamera::default();
        camera.frame_bounds(lo, hi);

        let empty = capture
            .render(&mut renderer, &camera, &FrameScene::default())
            .unwrap();
        let mut frame = FrameScene::default();
        frame.add_primitives(figure);
        let image = capture.render(&mut renderer, &camera, &frame).unwrap();
        let path = dir.join(format!("rig_{model}.png"));
        image.save(&path).unwrap();
        eprintln!("{}", path.display());

        let total = (SIZE[0] * SIZE[1]) as usize;
        let drawn = changed(&image, &empty);
        assert!(
            drawn > total / 20,
            "{model}: only {drawn} of {total} pixels drawn"
        );
        // Both sides' legs show: red (right, facing the camera) and blue (left).
        assert!(dominant(&image, 0) > 100, "{model}: no red right legs");
        assert!(dominant(&image, 2) > 100, "{model}: no blue left legs");
    }
}

/// Poses and draws `stage` at `t`, framed on its bounds, and saves it as `name`.
fn draw_stage(ctx: &GpuContext, tracks: &[Track], t: f64, name: &str) -> (usize, Stage) {
    let mut stage = Stage::new(ctx, tracks).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    stage.pose(&mut encoder, t);
    ctx.queue.submit([encoder.finish()]);
    let (lo, hi) = stage.bounds();
    let mut camera = OrbitCamera::default();
    camera.frame_bounds(lo, hi);
    let mut renderer = Renderer::new(ctx, Capture::FORMAT);
    let mut capture = Capture::new(ctx, [800, 450]);
    let empty = capture
        .render(&mut renderer, &camera, &FrameScene::default())
        .unwrap();
    let image = capture
        .render(&mut renderer, &camera, &stage.frame_scene(t))
        .unwrap();
    let path = out_dir().join(name);
    image.save(&path).unwrap();
    eprintln!("{}", path.display());
    (changed(&image, &empty), stage)
}

#[test]
fn the_ers210_sample_draws_mid_motion() {
    let Some(ctx) = gpu() else { return };
    let tracks: Vec<Track> = sample_tracks()
        .into_iter()
        .filter(|t| matches!(t, Track::Mtn { .. }))
        .collect();
    let (drawn, stage) = draw_stage(&ctx, &tracks, 2.0, "ers210_t2.png");
    // The grid alone changes some pixels; the dog many more.
    assert!(drawn > 800 * 450 / 20, "{drawn} pixels drawn");
    assert_eq!(stage.frame_period_s(), 0.016);
}

#[test]
fn the_recording_draws_hands_camera_and_gaze() {
    let Some(ctx) = gpu() else { return };
    let (drawn, stage) = draw_stage(&ctx, &[recording_track()], 1.5, "mrtk_t1.5.png");
    // Thin lines and two hands of 1 cm balls: a small share of the picture.
    assert!(drawn > 1500, "{drawn} pixels drawn");
    let image = image::open(out_dir().join("mrtk_t1.5.png"))
        .unwrap()
        .to_rgba8();
    let count = |f: &dyn Fn([u8; 3]) -> bool| {
        image
            .pixels()
            .filter(|p| f([p.0[0], p.0[1], p.0[2]]))
            .count()
    };
    // The left hand is cyan, the pinching right hand orange.
    let cyan = count(&|[r, g, b]| g > r.saturating_add(60) && b > r.saturating_add(60));
    let orange = count(&|[r, g, b]| r > b.saturating_add(100) && g > b.saturating_add(30));
    assert!(cyan > 100 && orange > 100, "cyan {cyan}, orange {orange}");
    let scene = stage.frame_scene(1.5);
    // Both hands tracked at 1.5 s: 2 × 26 balls; camera pyramid 10 lines + gaze ray.
    assert_eq!(scene.spheres.len(), 52);
    assert_eq!(scene.lines.len(), 11);
    // Framed on the recording, not the floor 1.3 m below: the grid lies at y = 0 still.
    assert!(stage.bounds().0.y > 1.0);
    assert_eq!(scene.grid.unwrap().centre.y, 0.0);
}

#[test]
fn two_memg_scenes_stand_side_by_side() {
    let Some(ctx) = gpu() else { return };
    if !data("flags.obj").exists() {
        eprintln!("no data/flags.obj; skipped");
        return;
    }
    let paths = [data("flags.obj"), data("flags.bin")];
    let tracks = motion_viewer::open_with(
        [paths.clone(), paths].concat(),
        &motion_viewer::OpenOptions::default(),
    )
    .unwrap()
    .tracks;
    let (drawn, stage) = draw_stage(&ctx, &tracks, 1.0, "two_memg_t1.png");
    assert!(drawn > 800 * 450 / 20, "{drawn} pixels drawn");
    let [a, b] = stage.placements() else {
        panic!("two placements")
    };
    // The same scene twice: the second stands one width and a 20 % gap further along x.
    let width = a.max.x - a.min.x;
    assert!((b.offset.x - a.offset.x - 1.2 * width).abs() < 1e-3 * width);
    let mut scene = stage.frame_scene(1.0);
    // The edges follow their placed meshes too: written out to be looked at.
    scene.wireframe = true;
    let mut renderer = Renderer::new(&ctx, Capture::FORMAT);
    let mut capture = Capture::new(&ctx, [800, 450]);
    let mut camera = OrbitCamera::default();
    let (lo, hi) = stage.bounds();
    camera.frame_bounds(lo, hi);
    let image = capture.render(&mut renderer, &camera, &scene).unwrap();
    image.save(out_dir().join("two_memg_wire_t1.png")).unwrap();
    assert_eq!(
        scene.mesh_transforms,
        vec![
            glam::Mat4::from_translation(a.offset),
            glam::Mat4::from_translation(b.offset)
        ]
    );
}

#[test]
fn memg_mtn_and_mrtk_share_one_stage() {
    let Some(ctx) = gpu() else { return };
    let mut tracks = sample_tracks();
    tracks.push(recording_track());
    let (drawn, stage) = draw_stage(&ctx, &tracks, 2.0, "together_t2.png");
    assert!(drawn > 800 * 450 / 20, "{drawn} pixels drawn");
    let memg = tracks
        .iter()
        .filter(|t| matches!(t, Track::Memg { .. }))
        .count();
    let scene = stage.frame_scene(2.0);
    assert_eq!(scene.meshes.len(), memg);
    assert_eq!(scene.mesh_transforms.len(), memg);
    assert!(stage.duration_s() >= 4.88);
}

/// Poses `stage` at `t` and reads its first mesh's positions back.
fn posed_positions(ctx: &GpuContext, stage: &mut Stage, t: f64) -> Vec<[f32; 3]> {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    stage.pose(&mut encoder, t);
    ctx.queue.submit([encoder.finish()]);
    stage.frame_scene(t).meshes[0].read_positions(ctx).unwrap()
}

#[test]
fn cpu_and_gpu_deformation_pose_the_same_mesh() {
    let Some(ctx) = gpu() else { return };
    let tracks = motion_viewer::open_with(
        &[data("flags.obj"), data("flags.bin")],
        &motion_viewer::OpenOptions::default(),
    )
    .unwrap()
    .tracks;
    let Track::Memg { scene, motion, .. } = &tracks[0] else {
        panic!("a MEMG track")
    };
    let binding = motion_viewer::anim::memg::Binding::new(scene, motion).unwrap();
    let reference = motion_viewer::anim::memg::deform_reference_f64(scene, motion, &binding, 52.5);
    let stage_with = |deform_on| {
        let options = StageOptions {
            deform_on,
            ..StageOptions::default()
        };
        Stage::from_tracks(&ctx, tracks.clone(), &options).unwrap()
    };
    let mut on_gpu = stage_with(DeformOn::Gpu);
    let mut on_cpu = stage_with(DeformOn::Cpu);
    let auto = stage_with(DeformOn::Auto);
    assert_eq!(
        (on_gpu.cpu_deformed_count(), on_cpu.cpu_deformed_count()),
        (0, 1)
    );
    // Auto deforms on the CPU exactly when the adapter is the CPU.
    let cpu_adapter = ctx.adapter.get_info().device_type == wgpu::DeviceType::Cpu;
    assert_eq!(auto.cpu_deformed_count(), usize::from(cpu_adapter));
    // 1.75 s at 30 fps is timestep 52.5: both ways blend the same two timesteps.
    for stage in [&mut on_gpu, &mut on_cpu] {
        let posed = posed_positions(&ctx, stage, 1.75);
        let worst = posed
            .iter()
            .zip(&reference)
            .map(|(p, r)| {
                (0..3)
                    .map(|a| (f64::from(p[a]) - r[a]).abs())
                    .fold(0.0, f64::max)
            })
            .fold(0.0, f64::max);
        assert!(worst < 1e-4, "worst {worst}");
        assert!(posed != scene.positions, "the mesh moved");
    }
}

/// A colour target without an sRGB format (a WebGL2 canvas) shows the
/// colours an sRGB one does: the shader encodes what the format does not.
/// Without that encoding the background alone is off by about 70 levels.
#[test]
fn a_plain_target_shows_the_colours_of_an_srgb_one() {
    let Some(ctx) = gpu() else { return };
    let mut tracks = sample_tracks();
    tracks.push(recording_track());
    let mut stage = Stage::new(&ctx, &tracks).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    stage.pose(&mut encoder, 2.0);
    ctx.queue.submit([encoder.finish()]);
    let (lo, hi) = stage.bounds();
    let mut camera = OrbitCamera::default();
    camera.frame_bounds(lo, hi);
    // One sample each, and no grid: a multisample resolve, and the grid's
    // translucent lines, blend in a different space on each format, which
    // is not what is compared here.
    let mut scene = stage.frame_scene(2.0);
    scene.grid = None;
    let picture = |format| {
        let mut renderer = Renderer::with_samples(&ctx, format, 1);
        let mut capture = Capture::with_format(&ctx, [400, 225], format);
        capture.render(&mut renderer, &camera, &scene).unwrap()
    };
    let srgb = picture(wgpu::TextureFormat::Rgba8UnormSrgb);
    let plain = picture(wgpu::TextureFormat::Rgba8Unorm);
    let mut errors: Vec<u8> = srgb
        .as_raw()
        .iter()
        .zip(plain.as_raw())
        .map(|(a, b)| a.abs_diff(*b))
        .collect();
    errors.sort_unstable();
    let mean = errors.iter().map(|&e| f64::from(e)).sum::<f64>() / errors.len() as f64;
    let p99 = errors[errors.len() * 99 / 100];
    eprintln!(
        "sRGB vs plain target: mean {mean:.3}, p99 {p99}, max {}",
        errors.last().unwrap()
    );
    // Rounding: the shader's encoding and the format's differ by at most a
    // level; blended edges (alpha over the background) blend in different
    // spaces, which the 99th percentile leaves out.
    assert!(mean <= 0.25, "mean difference {mean}");
    assert!(p99 <= 1, "99th percentile difference {p99}");
}

#[test]
fn an_edited_motion_is_swapped_into_the_stage() {
    let Some(ctx) = gpu() else { return };
    let bytes = std::fs::read(data("sony_stand_sit.mtn")).unwrap();
    let motion = motion_viewer::formats::mtn::decode(&bytes).unwrap();
    let track = Track::Mtn {
        path: "m.mtn".into(),
        motion: motion.clone(),
        entry: None,
    };
    let mut stage = Stage::new(&ctx, &[track]).unwrap();
    let t = motion.keyframe_times_s()[2];
    let spheres = |s: &Stage| format!("{:?}", s.frame_scene(t).spheres);
    let before = spheres(&stage);
    // The left front shoulder (PRM:/r2/c1-Joint2:j1) turned by 0.5 rad.
    let mut edited = motion.clone();
    let j = motion
        .joints
        .iter()
        .position(|j| j == "PRM:/r2/c1-Joint2:j1")
        .unwrap();
    edited.keyframes[2].joints[j] += 500_000;
    stage.set_motion(0, &edited);
    assert_ne!(spheres(&stage), before, "the joints moved with the edit");
    stage.set_motion(0, &motion);
    assert_eq!(spheres(&stage), before);
}
