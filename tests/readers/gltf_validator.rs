//! Every kind of file the glTF export writes passes the Khronos
//! glTF-Validator (npm `gltf-validator`, installed by `npm ci --prefix
//! tests/js`) with no error and no warning: the samples, reduced and baked,
//! both byte orders, `.gltf` with its `.bin`, a mixed scene, and every real
//! AIBO motion of the corpus. Without the validator the test prints a
//! notice and passes, except on CI (`CI` set), where it fails.
use crate::common;
use common::data;

use crate::common::gltf as gltf_common;

use std::path::{Path, PathBuf};

use gltf_common::{out_dir, validate};
use motion_viewer::export::gltf::{GltfOptions, write};
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg;
use motion_viewer::scene::Plan;

fn export(files: &[PathBuf], out: PathBuf, baked: bool) -> PathBuf {
    let tracks = motion_viewer::open_with(files, &motion_viewer::OpenOptions::default())
        .unwrap_or_else(|e| panic!("{files:?}: {e}"))
        .tracks;
    let plan = Plan::new(&tracks).unwrap();
    write(
        &tracks,
        &plan,
        &GltfOptions {
            baked,
            ..GltfOptions::default()
        },
        &out,
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{files:?}: {e}"));
    out
}

/// Every `.mtn` under `dir`.
fn motions(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(motions(&path));
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("mtn"))
        {
            found.push(path);
        }
    }
    found.sort();
    found
}

#[test]
fn every_export_passes_the_khronos_validator() {
    let dir = out_dir();
    let at = |name: &str| dir.path().join(name);
    let flags = vec![data("flags.obj"), data("flags.bin")];
    let mut files = vec![
        export(&flags, at("flags.glb"), false),
        export(&flags, at("flags-baked.glb"), true),
        export(&flags, at("flags.gltf"), false),
        export(
            &[data("sony_stand_sit.mtn")],
            at("sony_stand_sit.glb"),
            false,
        ),
        export(
            &[data("skitter_sleep_to_sit.mtn")],
            at("skitter.glb"),
            false,
        ),
        export(&[data("hands.mrtk")], at("hands.glb"), false),
        export(
            &[data("sony_stand_sit.mtn"), data("hands.mrtk")],
            at("both.glb"),
            false,
        ),
        export(
            &[
                flags.clone(),
                vec![data("sony_stand_sit.mtn"), data("hands.mrtk")],
            ]
            .concat(),
            at("all-baked.gltf"),
            true,
        ),
    ];
    // A big-endian copy of the sample.
    let big = dir.path().join("big");
    std::fs::create_dir(&big).unwrap();
    let motion = memg::decode(&std::fs::read(data("flags.bin")).unwrap()).unwrap();
    std::fs::write(big.join("flags.bin"), memg::encode(&motion, ByteOrder::Big)).unwrap();
    for name in ["flags.obj", "flags.mtl"] {
        std::fs::copy(data(name), big.join(name)).unwrap();
    }
    files.push(export(
        &[big.join("flags.obj"), big.join("flags.bin")],
        at("flags-big.glb"),
        false,
    ));
    let corpus = motions(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mtn"));
    assert!(corpus.len() >= 20, "the AIBO corpus");
    for (i, motion) in corpus.iter().enumerate() {
        files.push(export(
            std::slice::from_ref(motion),
            at(&format!("corpus-{i}.glb")),
            false,
        ));
    }

    let Some(reports) = validate(&files) else {
        return;
    };
    for report in &reports {
        assert!(report.get("failure").is_none(), "{report}");
        let errors = report["errors"].as_u64().unwrap();
        let warnings = report["warnings"].as_u64().unwrap();
        assert_eq!((errors, warnings), (0, 0), "{report}");
    }
    eprintln!("{} files: 0 errors, 0 warnings", reports.len());
}
