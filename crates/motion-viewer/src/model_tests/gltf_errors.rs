//! glTF and PC2 exports refuse what they can't write, clearly, and leave no
//! file behind.
use crate::common;
use common::data;

use crate::common::gltf as gltf_common;

use std::path::{Path, PathBuf};

use gltf_common::out_dir;
use motion_viewer::export::gltf::{GltfOptions, write};
use motion_viewer::export::pc2;
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg::{self, MemgGroup, MemgMotion};
use motion_viewer::scene::Plan;

fn try_export(files: &[PathBuf], out: &Path, baked: bool) -> motion_viewer::Result<()> {
    let tracks = motion_viewer::open_with(files, &motion_viewer::OpenOptions::default())
        .unwrap()
        .tracks;
    let plan = Plan::new(&tracks).unwrap();
    write(
        &tracks,
        &plan,
        &GltfOptions {
            baked,
            ..GltfOptions::default()
        },
        out,
        &mut |_| {},
    )
    .map(|_| ())
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `flags.obj`, `flags.mtl` and `motion` as `flags.bin` in `dir`.
fn flags_with(dir: &Path, motion: &MemgMotion) -> Vec<PathBuf> {
    for name in ["flags.obj", "flags.mtl"] {
        std::fs::copy(data(name), dir.join(name)).unwrap();
    }
    std::fs::write(
        dir.join("flags.bin"),
        memg::encode(motion, ByteOrder::Little),
    )
    .unwrap();
    vec![dir.join("flags.obj"), dir.join("flags.bin")]
}

fn sample_motion() -> MemgMotion {
    memg::decode(&std::fs::read(data("flags.bin")).unwrap()).unwrap()
}

#[test]
fn a_frame_that_shears_is_refused_with_a_hint() {
    let dir = out_dir();
    let mut motion = sample_motion();
    let pole = motion
        .groups
        .iter()
        .find(|g| g.name == "pole2")
        .unwrap()
        .parent;
    // Timestep 5 of that frame: its x axis leans into y (a shear).
    motion.frames[5 * motion.local_frames + pole as usize][4] += 0.05;
    let files = flags_with(dir.path(), &motion);
    let before = listing(dir.path());
    let out = dir.path().join("out.glb");
    let e = try_export(&files, &out, false).unwrap_err().to_string();
    assert!(e.contains("flags.bin"), "{e}");
    assert!(
        e.contains("timestep 5") && e.contains("shears") && e.contains("--baked"),
        "{e}"
    );
    assert!(
        e.contains("group 'flag2'") || e.contains("group 'pole2'"),
        "{e}"
    );
    assert_eq!(listing(dir.path()), before, "nothing written");
    // Baked, the same motion writes.
    try_export(&files, &out, true).unwrap();
}

#[test]
fn a_frame_that_mirrors_or_is_not_finite_is_refused() {
    let dir = out_dir();
    let out = dir.path().join("o.glb");
    // Frame 0 at timestep 0 mirrored in z.
    let mut mirrored = sample_motion();
    for x in &mut mirrored.frames[0][8..11] {
        *x = -*x;
    }
    let files = flags_with(dir.path(), &mirrored);
    let e = try_export(&files, &out, false).unwrap_err().to_string();
    assert!(
        e.contains("timestep 0") && e.contains("mirrors") && e.contains("--baked"),
        "{e}"
    );
    // Frame 1 at timestep 3 not finite.
    let mut broken = sample_motion();
    let k = broken.local_frames;
    broken.frames[3 * k + 1][3] = f64::NAN;
    let files = flags_with(dir.path(), &broken);
    let e = try_export(&files, &out, false).unwrap_err().to_string();
    assert!(
        e.contains("timestep 3") && e.contains("not a finite number"),
        "{e}"
    );
    assert!(!out.exists());
}

#[test]
fn a_triangle_between_two_groups_is_refused_unless_baked() {
    let dir = out_dir();
    let obj = dir.path().join("two.obj");
    std::fs::write(
        &obj,
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\ng a\nf 1 2 3\nf 2 4 3\n",
    )
    .unwrap();
    let motion = MemgMotion {
        fps: 30,
        timesteps: 2,
        groups: vec![MemgGroup {
            name: "a".into(),
            mapping: vec![1, 2, 3],
            mean: vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            parent: -1,
            basis_len: 1,
            basis: vec![0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
            coeffs: vec![0.0, 0.5],
        }],
        ..Default::default()
    };
    let bin = dir.path().join("two.bin");
    std::fs::write(&bin, memg::encode(&motion, ByteOrder::Little)).unwrap();
    let out = dir.path().join("two.glb");
    let e = try_export(&[obj.clone(), bin.clone()], &out, false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("triangle 1") && e.contains("group 'a'") && e.contains("--baked"),
        "{e}"
    );
    assert!(!out.exists());
    try_export(&[obj, bin], &out, true).unwrap();
}

#[test]
fn an_unwritable_output_is_named_and_leaves_nothing() {
    let dir = out_dir();
    let blocker = dir.path().join("file.txt");
    std::fs::write(&blocker, b"not a folder").unwrap();
    for name in ["x.glb", "x.gltf"] {
        let out = blocker.join(name);
        let e = try_export(&[data("sony_stand_sit.mtn")], &out, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&out.display().to_string()), "{e}");
    }
    let tracks = motion_viewer::open_with(
        &[data("flags.obj"), data("flags.bin")],
        &motion_viewer::OpenOptions::default(),
    )
    .unwrap()
    .tracks;
    let out = blocker.join("x.pc2");
    let e = pc2::write(&tracks, &out, None, None, None, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains(&out.display().to_string()), "{e}");
    assert_eq!(listing(dir.path()), ["file.txt"]);
}

#[test]
fn a_gltf_buffer_never_replaces_an_input() {
    let dir = out_dir();
    let files = flags_with(dir.path(), &sample_motion());
    let bin_before = std::fs::read(dir.path().join("flags.bin")).unwrap();
    let e = try_export(&files, &dir.path().join("flags.gltf"), false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("flags.bin") && e.contains("input"), "{e}");
    assert_eq!(
        std::fs::read(dir.path().join("flags.bin")).unwrap(),
        bin_before
    );
    assert!(!dir.path().join("flags.gltf").exists());
}

#[test]
fn other_extensions_and_track_counts_are_refused() {
    let dir = out_dir();
    let e = try_export(&[data("hands.mrtk")], &dir.path().join("x.obj"), false).unwrap_err();
    assert!(e.to_string().contains(".glb or .gltf"), "{e}");
    let tracks = motion_viewer::open_with(
        &[data("hands.mrtk")],
        &motion_viewer::OpenOptions::default(),
    )
    .unwrap()
    .tracks;
    let e = pc2::write(
        &tracks,
        &dir.path().join("x.pc2"),
        None,
        None,
        None,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("one MEMG scene"), "{e}");
    assert!(listing(dir.path()).is_empty());
}
