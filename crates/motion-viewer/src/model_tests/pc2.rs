//! `.pc2` point caches read back by hand (Blender's layout) against the f64
//! MEMG reference, for both byte orders of the motion.
use crate::common;
use common::data;

use std::path::{Path, PathBuf};

use glam::{DVec3, Vec3};
use motion_viewer::anim::memg::{Binding, bounding_box_over_time, deform_reference_f64};
use motion_viewer::export::pc2;
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg;
use motion_viewer::scene::Track;

/// A point cache as Blender reads it.
struct Cache {
    version: i32,
    points: usize,
    start: f32,
    sampling: f32,
    frames: Vec<Vec<[f32; 3]>>,
}

fn read(path: &Path) -> Cache {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..12], b"POINTCACHE2\0");
    let i32_at = |o: usize| i32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let f32_at = |o: usize| f32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let points = i32_at(16) as usize;
    let count = i32_at(28) as usize;
    assert_eq!(
        bytes.len(),
        32 + 12 * points * count,
        "header and body sizes agree"
    );
    let frames = (0..count)
        .map(|f| {
            (0..points)
                .map(|p| {
                    let o = 32 + 12 * (f * points + p);
                    [f32_at(o), f32_at(o + 4), f32_at(o + 8)]
                })
                .collect()
        })
        .collect();
    Cache {
        version: i32_at(12),
        points,
        start: f32_at(20),
        sampling: f32_at(24),
        frames,
    }
}

fn check(files: &[PathBuf], out: &Path) {
    let tracks = motion_viewer::open_with(files, &motion_viewer::OpenOptions::default())
        .unwrap()
        .tracks;
    let mut last = 0.0;
    let report = pc2::write(&tracks, out, None, None, None, &mut |f| last = f).unwrap();
    assert_eq!(last, 1.0);
    let Track::Memg { scene, motion, .. } = &tracks[0] else {
        panic!()
    };
    let cache = read(out);
    assert_eq!(report.file.1, std::fs::metadata(out).unwrap().len());
    assert_eq!((cache.version, cache.start, cache.sampling), (1, 0.0, 1.0));
    assert_eq!(cache.points, scene.positions.len());
    assert_eq!(cache.frames.len(), motion.timesteps);
    let binding = Binding::new(scene, motion).unwrap();
    let (lo, hi) = bounding_box_over_time(scene, motion, &binding).unwrap();
    let diagonal = f64::from(Vec3::from(hi).distance(Vec3::from(lo)));
    let mut worst = 0f64;
    for (t, frame) in cache.frames.iter().enumerate() {
        let reference = deform_reference_f64(scene, motion, &binding, t as f64);
        for (p, r) in frame.iter().zip(&reference) {
            let found = DVec3::from_array(p.map(f64::from));
            worst = worst.max(found.distance(DVec3::from_array(*r)) / diagonal);
        }
    }
    eprintln!("{}: worst {worst:.2e} of the diagonal", out.display());
    assert!(worst < 1e-5, "{worst:e}");
}

#[test]
fn pc2_holds_every_vertex_at_every_timestep() {
    let dir = tempfile::tempdir().unwrap();
    check(
        &[data("flags.obj"), data("flags.bin")],
        &dir.path().join("flags.pc2"),
    );
    let motion = memg::decode(&std::fs::read(data("flags.bin")).unwrap()).unwrap();
    for name in ["flags.obj", "flags.mtl"] {
        std::fs::copy(data(name), dir.path().join(name)).unwrap();
    }
    let big = dir.path().join("flags.bin");
    std::fs::write(&big, memg::encode(&motion, ByteOrder::Big)).unwrap();
    check(
        &[dir.path().join("flags.obj"), big],
        &dir.path().join("big.pc2"),
    );
    assert_eq!(
        std::fs::read(dir.path().join("flags.pc2")).unwrap(),
        std::fs::read(dir.path().join("big.pc2")).unwrap()
    );
}

#[test]
fn pc2_needs_exactly_one_memg_scene() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.pc2");
    let none = motion_viewer::open_with(
        &[data("sony_stand_sit.mtn")],
        &motion_viewer::OpenOptions::default(),
    )
    .unwrap()
    .tracks;
    let e = pc2::write(&none, &out, None, None, None, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("0 MEMG motions"), "{e}");
    let two = motion_viewer::open_with(
        &[
            data("flags.obj"),
            data("flags.bin"),
            data("flags.obj"),
            data("flags.bin"),
        ],
        &motion_viewer::OpenOptions::default(),
    )
    .unwrap()
    .tracks;
    let e = pc2::write(&two, &out, None, None, None, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("2 MEMG motions"), "{e}");
    assert!(!out.exists());
}
