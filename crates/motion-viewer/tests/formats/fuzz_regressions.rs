//! Every input a fuzz target once failed on, replayed through the same
//! checks the target runs (`fuzz/src/lib.rs`, included here by path, so the
//! stable suite needs no nightly toolchain). The inputs live in
//! `tests/data/fuzz/TARGET/`; `tests/data/fuzz/README.md` says what each one
//! found and how it was fixed.

#[path = "../../../../fuzz/src/lib.rs"]
mod checks;

use std::path::PathBuf;

/// A fuzz target's check.
type Check = fn(&[u8]);

/// Each target's directory and its check.
const TARGETS: [(&str, Check); 7] = [
    ("mtn", checks::mtn),
    ("oda", checks::oda),
    ("memg", checks::memg),
    ("obj_memg", checks::obj_memg),
    ("mrtk", checks::mrtk),
    ("probe", checks::probe),
    ("pipeline", checks::pipeline),
];

#[test]
fn every_input_that_once_failed_passes_its_target() {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/data/fuzz");
    let mut replayed = 0;
    for (target, check) in TARGETS {
        let Ok(dir) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = dir.map(|e| e.unwrap().path()).collect();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).unwrap();
            eprintln!("{target}: {}", path.display());
            check(&bytes);
            replayed += 1;
        }
    }
    // The inputs kept so far: a directory emptied by mistake fails here.
    assert!(replayed >= 5, "only {replayed} inputs replayed");
}

#[test]
fn a_motion_name_longer_than_a_pascal_string_is_not_recovered() {
    // Both files' section 1 lies about its size, and the only name length
    // that would explain the bytes is over 255: no recovery, the strict
    // reading's error stands.
    let root =
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/data/fuzz/mtn");
    for name in [
        "recovered-name-over-255-bytes-a.mtn",
        "recovered-name-over-255-bytes-b.mtn",
    ] {
        let bytes = std::fs::read(root.join(name)).unwrap();
        let e = motion_viewer::formats::mtn::decode(&bytes).unwrap_err();
        eprintln!("{name}: {e}");
        assert!(e.to_string().contains(" at byte "), "{name}: {e}");
    }
}
