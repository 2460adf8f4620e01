//! Hostile outputs and what comes out (issue 23): a case per cause this
//! module covers — the writer (1), numbers that are not finite (4), names
//! that drive a terminal (5), warnings that cascade (7) and exports that
//! moved the scene (8) — each run as a child process under the same time
//! and memory limits as the hostile files (`hostile.rs`'s runner). Run with
//! `--nocapture` for the table of what each said, its time and peak memory.

use super::hostile::{
    GIB, Outcome, TRIANGLE, camera_only, complaints, mkfifo, run, sony_stand_sit, still_memg, write,
};
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::input_animation::{self as ia, Marker};
use motion_viewer::formats::memg::{self, MemgGroup, MemgMotion};
use motion_viewer::formats::mtn;
use std::path::{Path, PathBuf};

/// Runs `viewer args…` under a 1 GiB address-space limit and the timeout;
/// prints its table row and checks it ended by itself, without a panic.
fn child(class: &str, args: &[&str], out: &Path) -> Outcome {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let o = run(&args, GIB, out);
    let said = complaints(&o.stderr);
    let summary = match o.code {
        Some(0) => "ok".to_string(),
        _ => said.first().copied().unwrap_or("").to_string(),
    };
    eprintln!(
        "| {class} | {} | {} | {:.2} | {:.0} |",
        args[0],
        summary.replace('|', "\\|"),
        o.seconds,
        o.peak_mb
    );
    assert!(!o.timed_out, "{class}: ran past the timeout");
    assert!(o.signal.is_none(), "{class}: signal {:?}", o.signal);
    assert!(!o.stderr.contains("panicked"), "{class}: {}", o.stderr);
    o
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A fresh folder with an `out/` for the runner's own files.
fn folder() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    (dir, out)
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

// ---- 1: the writer -----------------------------------------------------------

#[test]
fn writer_a_full_device_a_pipe_without_reader_and_a_failing_second_file() {
    let (dir, out) = folder();
    let mtn = write(dir.path(), "sit.mtn", &mtn::encode(&sony_stand_sit()));
    // /dev/full, through a link whose name says `.csv`: the error from
    // writing, not exit 0; the link and the device are left as they were.
    let full = dir.path().join("full.csv");
    std::os::unix::fs::symlink("/dev/full", &full).unwrap();
    let o = child(
        "--out link to /dev/full",
        &["export", s(&mtn), "--out", s(&full)],
        &out,
    );
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert!(o.stderr.contains("No space left"), "{}", o.stderr);
    assert!(full.symlink_metadata().unwrap().file_type().is_symlink());
    // A pipe no one reads: refused at once, not waited on, still a pipe.
    let fifo = dir.path().join("rows.csv");
    mkfifo(&fifo);
    let o = child(
        "--out FIFO, no reader",
        &["export", s(&mtn), "--out", s(&fifo)],
        &out,
    );
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert!(o.stderr.contains("no reader"), "{}", o.stderr);
    // Two tables, the second's name taken by a folder: neither is written,
    // and an old first table stays as it was.
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("x-1.csv"), b"old").unwrap();
    std::fs::create_dir(work.join("x-2.csv")).unwrap();
    let o = child(
        "2 tables, the 2nd a folder",
        &["export", s(&mtn), s(&mtn), "--out", s(&work.join("x.csv"))],
        &out,
    );
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert_eq!(names_in(&work), ["x-1.csv", "x-2.csv"]);
    assert_eq!(std::fs::read(work.join("x-1.csv")).unwrap(), b"old");
}

// ---- 4: numbers that are not finite ------------------------------------------

/// MEMG: one group whose parent frame moves it 10³⁹ (a finite double, past
/// f32's range) at timestep 1.
pub(super) fn memg_beyond_f32(dir: &Path) -> Vec<PathBuf> {
    let identity = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.];
    let mut far = identity;
    far[3] = 1e39;
    let motion = MemgMotion {
        fps: 30,
        local_frames: 1,
        timesteps: 2,
        frames: vec![identity, far],
        groups: vec![MemgGroup {
            name: "g".into(),
            mapping: vec![1, 2, 3],
            mean: vec![0., 0., 0., 1., 0., 0., 0., 1., 0.],
            parent: 0,
            ..MemgGroup::default()
        }],
        ..MemgMotion::default()
    };
    vec![
        write(dir, "far.obj", TRIANGLE),
        write(dir, "far.bin", &memg::encode(&motion, ByteOrder::Little)),
    ]
}

/// MRTK: a camera that loses tracking (NaN keys) from 1 s to 2 s.
pub(super) fn mrtk_tracking_loss(dir: &Path) -> PathBuf {
    let mut r = camera_only(3.0);
    let camera = r.camera.as_mut().unwrap();
    for c in &mut camera.position {
        c.keys = vec![
            ia::Key::linear(0.0, 0.5),
            ia::Key::linear(1.0, 0.5),
            ia::Key::linear(1.5, f32::NAN),
            ia::Key::linear(2.0, f32::INFINITY),
            ia::Key::linear(3.0, 0.75),
        ];
    }
    write(dir, "lost.mrtk", &ia::encode(&r, (1, 1)).unwrap())
}

#[test]
fn numbers_not_finite_are_refused_or_held_never_written() {
    let (dir, out) = folder();
    let memg = memg_beyond_f32(dir.path());
    let (obj, bin) = (s(&memg[0]), s(&memg[1]));
    for target in ["x.glb", "x.gltf", "x.pc2"] {
        let path = dir.path().join(target);
        let o = child(
            &format!("MEMG frame 1e39 → {target}"),
            &["export", obj, bin, "--out", s(&path)],
            &out,
        );
        assert_eq!(o.code, Some(1), "{}", o.stderr);
        assert!(
            o.stderr.contains("far.bin"),
            "names the track: {}",
            o.stderr
        );
        assert!(o.stderr.contains("s is "), "names the time: {}", o.stderr);
        assert!(
            o.stderr.contains("1e39 (beyond f32's range)"),
            "{}",
            o.stderr
        );
        assert!(!path.exists(), "no {target} written");
    }
    // .obj, both paths: the CPU's and the GPU's (the CPU stands in without one).
    for gpu in [false, true] {
        let path = dir.path().join("x.obj");
        let mut args = vec!["export", obj, bin, "--out", s(&path), "--frame", "1"];
        if gpu {
            args.push("--gpu");
        }
        let o = child(&format!("MEMG frame 1e39 → .obj gpu={gpu}"), &args, &out);
        assert_eq!(o.code, Some(1), "{}", o.stderr);
        assert!(
            o.stderr.contains(".obj vertex 1 x at"),
            "names the field: {}",
            o.stderr
        );
        assert!(
            o.stderr.contains("1e39 (beyond f32's range)"),
            "{}",
            o.stderr
        );
        assert!(!path.exists());
    }
    // MRTK tracking loss: held, with one warning, in every format.
    let lost = mrtk_tracking_loss(dir.path());
    for (target, extra) in [
        ("lost.glb", None),
        ("lost.csv", None),
        ("lost.json", None),
        ("state.json", Some("1.75")),
    ] {
        let path = dir.path().join(target);
        let mut args = vec!["export", s(&lost), "--out", s(&path)];
        if let Some(t) = extra {
            args.extend(["--time", t]);
        }
        let o = child(&format!("MRTK NaN/inf → {target}"), &args, &out);
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        let warnings = o.stderr.matches("viewer: warning:").count();
        assert_eq!(warnings, 1, "one warning: {}", o.stderr);
        assert!(o.stderr.contains("not finite"), "{}", o.stderr);
        let bytes = std::fs::read(&path).unwrap();
        if target.ends_with(".glb") {
            assert_glb_finite(&bytes);
        } else if target == "state.json" {
            // Parts the recording lacks are null; the camera holds 0.5.
            let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(
                v[0]["camera"]["position"],
                serde_json::json!([0.5, 0.5, 0.5])
            );
        } else {
            let text = String::from_utf8_lossy(&bytes);
            for bad in ["NaN", "inf", "null"] {
                assert!(!text.contains(bad), "{target} holds {bad}");
            }
        }
    }
    // The held value is the last finite one: 0.5 until tracking returns.
    let table = std::fs::read_to_string(dir.path().join("lost.csv")).unwrap();
    let row: Vec<f64> = table
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .map(|v| v.parse().unwrap())
                .collect::<Vec<f64>>()
        })
        .find(|r| (r[0] - 1.75).abs() < 1e-9)
        .expect("a row at 1.75 s (105 × 1/60)");
    assert_eq!(row[1..4], [0.5, 0.5, 0.5]);
}

/// Every node transform of a `.glb` and every 4-byte word of its buffer
/// (floats; the few small indices read as tiny finite floats) is finite.
fn assert_glb_finite(bytes: &[u8]) {
    let glb = gltf::Glb::from_slice(bytes).unwrap();
    let doc = gltf::Gltf::from_slice(bytes).unwrap();
    for node in doc.nodes() {
        let (t, r, s) = node.transform().decomposed();
        assert!(
            t.iter().chain(&r).chain(&s).all(|x| x.is_finite()),
            "node {:?}",
            node.name()
        );
    }
    let bin = glb.bin.expect("a buffer");
    assert!(
        bin.chunks_exact(4)
            .all(|w| f32::from_le_bytes(w.try_into().unwrap()).is_finite()),
        "a value in the buffer is not finite"
    );
}

// ---- 5: names that drive a terminal ------------------------------------------

#[test]
fn names_from_files_reach_the_terminal_escaped() {
    let (dir, out) = folder();
    let evil = "a\x1b]0;pwned\x07\x1b[2J";
    let mut m = sony_stand_sit();
    m.name = evil.into();
    let mtn = write(dir.path(), "evil.mtn", &mtn::encode(&m));
    let mut r = camera_only(1.0);
    r.markers = vec![Marker {
        time: 0.5,
        name: evil.into(),
    }];
    let mrtk = write(dir.path(), "evil.mrtk", &ia::encode(&r, (1, 1)).unwrap());
    let motion = MemgMotion {
        fps: 30,
        timesteps: 1,
        groups: vec![MemgGroup {
            name: evil.into(),
            mapping: vec![1],
            mean: vec![0., 0., 0.],
            parent: -1,
            ..MemgGroup::default()
        }],
        ..MemgMotion::default()
    };
    let obj = write(dir.path(), "evil.obj", TRIANGLE);
    let bin = write(
        dir.path(),
        "evil.bin",
        &memg::encode(&motion, ByteOrder::Little),
    );
    let oda = write(
        dir.path(),
        "evil.ODA",
        &oda_archive(&[
            (b"WAVE", evil, b"RIFF...."),
            (b"OMTN", evil, &mtn::encode(&sony_stand_sit())),
        ]),
    );
    for (class, files) in [
        (".mtn name", vec![&mtn]),
        ("MRTK marker", vec![&mrtk]),
        ("MEMG group", vec![&obj, &bin]),
        ("ODA entry names", vec![&oda]),
    ] {
        let mut args = vec!["info"];
        args.extend(files.iter().map(|p| s(p)));
        let o = child(&format!("ESC in {class}"), &args, &out);
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        let stdout = std::fs::read_to_string(out.join("stdout")).unwrap();
        for text in [&stdout, &o.stderr] {
            assert!(
                !text.contains('\x1b') && !text.contains('\x07'),
                "{class}: {text:?}"
            );
        }
        assert!(
            stdout.contains("\\x1b]0;pwned") || o.stderr.contains("\\x1b]0;pwned"),
            "{class}: shown escaped: {stdout}"
        );
    }
}

/// An ODA archive (docs/formats.md §2) of `(kind, name, bytes)` entries.
fn oda_archive(entries: &[(&[u8; 4], &str, &[u8])]) -> Vec<u8> {
    let mut out = b"ODAR\0\0\x03\0".to_vec();
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&144u32.to_le_bytes());
    out.resize(64, 0);
    let mut offset = 64 + 144 * entries.len();
    for (kind, name, data) in entries {
        out.extend_from_slice(*kind);
        let mut field = name.as_bytes().to_vec();
        field.resize(128, 0);
        out.extend_from_slice(&field);
        for word in [offset, data.len(), 0] {
            out.extend_from_slice(&(word as u32).to_le_bytes());
        }
        offset += data.len();
    }
    for (_, _, data) in entries {
        out.extend_from_slice(data);
    }
    out
}

// ---- 7: warnings that cascade ------------------------------------------------

#[test]
fn a_library_not_read_is_one_warning_not_one_per_group() {
    let (dir, out) = folder();
    let mut obj = b"mtllib missing.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\n".to_vec();
    for g in 0..6 {
        obj.extend(format!("g g{g}\nusemtl m{g}\nf 1 2 3\n").bytes());
    }
    let obj = write(dir.path(), "scene.obj", &obj);
    let bin = write(dir.path(), "scene.bin", &still_memg());
    let o = child(
        "mtllib missing, 6 groups",
        &["info", s(&obj), s(&bin)],
        &out,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let stdout = std::fs::read_to_string(out.join("stdout")).unwrap();
    let all = format!("{}{stdout}", o.stderr);
    let lines = |text: &str, what: &str| text.lines().filter(|l| l.contains(what)).count();
    assert_eq!(lines(&all, "missing.mtl"), 1, "{all}");
    assert!(!all.contains("unknown material"), "{all}");

    // A library that is read but lacks the groups' materials: one warning.
    std::fs::write(dir.path().join("missing.mtl"), b"newmtl other\nKd 1 0 0\n").unwrap();
    let o = child("6 unknown materials", &["info", s(&obj), s(&bin)], &out);
    let stdout = std::fs::read_to_string(out.join("stdout")).unwrap();
    let all = format!("{}{stdout}", o.stderr);
    assert_eq!(lines(&all, "unknown material"), 1, "{all}");
    assert!(all.contains("and 5 more groups"), "{all}");
}

// ---- 8: exports that moved the scene -----------------------------------------

/// The translation of the glTF root node named `name`.
fn root_translation(glb: &Path, name: &str) -> [f32; 3] {
    let doc = gltf::Gltf::open(glb).unwrap();
    let node = doc
        .nodes()
        .find(|n| n.name() == Some(name))
        .unwrap_or_else(|| panic!("a node {name}"));
    node.transform().decomposed().0
}

#[test]
fn exports_keep_each_file_s_own_coordinates_unless_asked() {
    let (dir, out) = folder();
    // A triangle far from the origin and above the ground: the stage would
    // centre it and set it down.
    let obj = write(
        dir.path(),
        "far.obj",
        b"v 10 5 -3\nv 11 5 -3\nv 10 6 -3\ng g\nf 1 2 3\n",
    );
    let bin = write(dir.path(), "far.bin", &still_memg());
    let own = dir.path().join("own.glb");
    let o = child(
        "MEMG .glb, own coordinates",
        &["export", s(&obj), s(&bin), "--out", s(&own)],
        &out,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(root_translation(&own, "far"), [0.0; 3]);
    let placed = dir.path().join("placed.glb");
    let o = child(
        "MEMG .glb --layout true-scale",
        &[
            "export",
            s(&obj),
            s(&bin),
            "--out",
            s(&placed),
            "--layout",
            "true-scale",
        ],
        &out,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let t = root_translation(&placed, "far");
    assert!(t[1] < -4.0, "set down on the ground: {t:?}");
    // The point cache of the same motion keeps the .obj's coordinates too.
    let pc2 = dir.path().join("own.pc2");
    let o = child(
        "MEMG .pc2, own coordinates",
        &["export", s(&obj), s(&bin), "--out", s(&pc2)],
        &out,
    );
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let bytes = std::fs::read(&pc2).unwrap();
    let first: Vec<f32> = bytes[32..44]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(first, [10.0, 5.0, -3.0], ".obj vertex 1 as the .obj has it");
}
