//! One set of features per dependency across CI's native builds: the test
//! build (`cargo test`), the library alone (`cargo test -p motion-viewer`)
//! and the Python extension (`-p motion-viewer-python`, through maturin).
//! Cargo resolves a dependency's features from the packages a command
//! builds; where two builds differ on one crate, every crate above it is
//! compiled again (on CI that was faer, gemm, rapier, serde and a hundred
//! more, twice). `crates/workspace-hack` asks for the union; this test keeps
//! it complete by comparing what `cargo tree` resolves for each build.
use crate::common;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// A build's dependencies and the feature lists each is resolved with.
type Resolved = BTreeMap<String, BTreeSet<String>>;

/// Every dependency of a build as `name version` → the feature lists it is
/// resolved with (a crate built for the host and for the target can have two).
fn resolved(args: &[&str]) -> Resolved {
    let out = common::cargo()
        .current_dir(common::root())
        .args([
            "tree",
            "--locked",
            "--offline",
            "--prefix",
            "none",
            "--format",
            "{p}|{f}",
        ])
        .args(args)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut crates = Resolved::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let line = line.trim_end_matches(" (*)");
        let Some((package, features)) = line.split_once('|') else {
            continue;
        };
        // `name vX.Y.Z (path)` for the workspace's own: their features differ by design.
        if package.starts_with("motion-viewer") {
            continue;
        }
        crates
            .entry(package.to_string())
            .or_default()
            .insert(features.to_string());
    }
    crates
}

/// The test build's dependencies, resolved once for both tests.
fn test_build() -> &'static Resolved {
    static TEST: OnceLock<Resolved> = OnceLock::new();
    TEST.get_or_init(|| resolved(&["-e", "normal,build,dev"]))
}

/// Fails naming each dependency that `build` (`cargo tree` arguments) shares
/// with the test build but resolves with other features.
fn assert_resolves_as_the_test_build(what: &str, build: &[&str]) {
    let test = test_build();
    let other = resolved(build);
    assert!(
        other.len() > 50 && test.len() > other.len(),
        "cargo tree listed too little"
    );
    let differ: Vec<String> = other
        .iter()
        .filter_map(|(package, features)| {
            let in_test = test.get(package)?;
            (features != in_test).then(|| {
                format!("{package}: features {features:?} here, {in_test:?} in the test build")
            })
        })
        .collect();
    assert!(
        differ.is_empty(),
        "{what} would compile these again; add their features to \
         crates/workspace-hack/Cargo.toml:\n{}",
        differ.join("\n")
    );
}

#[test]
fn the_library_alone_resolves_the_test_builds_features() {
    assert_resolves_as_the_test_build(
        "the library alone",
        &["-p", "motion-viewer", "-e", "normal,build,dev"],
    );
}

#[test]
fn the_python_extension_resolves_the_test_builds_features() {
    assert_resolves_as_the_test_build(
        "the Python extension",
        &["-p", "motion-viewer-python", "-e", "normal,build"],
    );
}
