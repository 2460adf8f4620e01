//! A Rust user's first ten lines: a new crate outside the repository with a
//! path dependency on the library, default features, opens the bundled
//! `.mtn` through the front door, prints its duration and writes a `.glb`.
//! Its dependency tree holds no GPU, window or command-line crate.

use crate::common::{cargo, repo, root, tool_present};

/// The `main.rs` of the outside crate, as `docs/library.md` shows it.
const MAIN: &str = r#"fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (motion, out) = (args.next().ok_or("MOTION")?, args.next().ok_or("OUT.glb")?);
    let loaded = motion_viewer::open(&motion)?;
    let track = &loaded.tracks[0];
    println!("{}: {} s", track.name(), track.duration_s());
    motion_viewer::export::export(&loaded.tracks, out.as_ref(), &Default::default())?;
    println!("wrote {out}");
    Ok(())
}
"#;

/// The crate's folder (in a temporary folder) with its manifest and main.
/// Built without debug info: the test runs it once and reads its output,
/// and debug info for the library and each dependency costs only compile
/// and link time here.
fn outside_crate() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let library = repo("crates/motion-viewer");
    let manifest = format!(
        "[package]\nname = \"first-ten-lines\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
         [dependencies]\nmotion-viewer = {{ path = {:?} }}\n\n[workspace]\n\n\
         [profile.dev]\ndebug = false\n",
        library.display().to_string()
    );
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/main.rs"), MAIN).unwrap();
    // The workspace's lock: the same versions, and no registry asked.
    std::fs::copy(repo("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    dir
}

#[test]
fn a_crate_outside_the_repository_builds_on_the_lean_library() {
    if !tool_present("cargo", cargo().arg("--version").output().is_ok(), "rustup") {
        return;
    }
    let dir = outside_crate();
    let manifest = dir.path().join("Cargo.toml");
    let tree = cargo()
        .args([
            "tree",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .unwrap();
    let tree_text = String::from_utf8_lossy(&tree.stdout);
    assert!(
        tree.status.success(),
        "{}",
        String::from_utf8_lossy(&tree.stderr)
    );
    let crates: std::collections::BTreeSet<&str> = tree_text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for heavy in ["wgpu", "winit", "egui", "clap", "indicatif", "image", "gif"] {
        assert!(
            !crates.contains(heavy),
            "{heavy} is in the lean library's tree"
        );
    }
    assert!(crates.contains("motion-viewer") && crates.contains("gltf-json"));
    eprintln!("the outside crate's tree: {} crates", crates.len());

    // Built and run, into a target folder kept between runs.
    let out = dir.path().join("sit.glb");
    let run = cargo()
        .args(["run", "--offline", "-q", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", root().join("target/outside-crate"))
        .arg("--")
        .arg(repo("data/sony_stand_sit.mtn"))
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.starts_with("sony_stand_sit: 4.88 s\n"), "{stdout}");
    let glb = std::fs::read(&out).unwrap();
    assert_eq!(&glb[..4], b"glTF");
    let gltf = gltf::Gltf::from_slice(&glb).unwrap();
    assert!(gltf.animations().count() >= 1, "the motion is animated");
}

/// The page a Rust user reads first shows the very program built above.
#[test]
fn the_library_page_shows_the_first_ten_lines() {
    let page = std::fs::read_to_string(repo("docs/library.md")).unwrap();
    assert!(
        page.contains(&format!("```rust\n{MAIN}```\n")),
        "docs/library.md should show the outside crate's main.rs:\n{MAIN}"
    );
}
