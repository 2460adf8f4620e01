//! The safe writer through the `viewer` command (issue 23, cause 1): a pipe
//! and a device node as `--out`, links planted at every name an export may
//! use, a 250-byte file name, the mode of a new file, a `.gltf` whose `.bin`
//! cannot be written, and SIGINT / SIGTERM in the middle of a render.

use crate::app::viewer;
use crate::common::{data, tool_present};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `viewer args…`: its exit code and stderr.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = viewer().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn sit() -> PathBuf {
    data("sony_stand_sit.mtn")
}

#[test]
fn a_pipe_with_a_reader_gets_the_table_and_stays_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("rows.csv");
    crate::hostile::mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(&fifo)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            text
        })
    };
    // The reader opens its end first; until then the viewer refuses.
    let started = Instant::now();
    loop {
        let (code, err) = run(&["export", s(&sit()), "--out", s(&fifo)]);
        if code == Some(0) {
            break;
        }
        assert!(err.contains("no reader"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(20));
    }
    let text = reader.join().unwrap();
    assert!(
        text.starts_with("time_s,roll_deg,pitch_deg,yaw_deg,"),
        "{text:.80}"
    );
    assert_eq!(text.lines().count(), 1 + 306, "a header and 306 frames");
    assert!(fifo.metadata().unwrap().file_type().is_fifo());
    assert_eq!(names_in(dir.path()), ["rows.csv"]);
}

/// As root: a character device made here (the same device as /dev/null)
/// under the name an export writes is written in place, never replaced.
#[test]
fn a_device_node_named_as_the_output_stays_a_device() {
    use std::os::unix::ffi::OsStrExt;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("notice: not root; the pipe test covers a non-regular output");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("scene.glb");
    let c = std::ffi::CString::new(node.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string; the call only creates a file system node.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) };
    if made != 0 {
        eprintln!("notice: mknod refused here (no CAP_MKNOD); skipped");
        return;
    }
    let (code, err) = run(&["export", s(&sit()), "--out", s(&node)]);
    assert_eq!(code, Some(0), "{err}");
    let meta = node.symlink_metadata().unwrap();
    assert!(meta.file_type().is_char_device(), "still the device");
    assert_eq!(names_in(dir.path()), ["scene.glb"]);
}

#[test]
fn links_at_every_name_an_export_uses_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    // A .gltf and its .bin, both names links to the victim.
    let gltf = dir.path().join("scene.gltf");
    let bin = dir.path().join("scene.bin");
    symlink(&victim, &gltf).unwrap();
    symlink(&victim, &bin).unwrap();
    let (code, err) = run(&["export", s(&sit()), "--out", s(&gltf)]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    for p in [&gltf, &bin] {
        assert!(p.symlink_metadata().unwrap().file_type().is_file(), "{p:?}");
    }
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&gltf).unwrap()).unwrap();
    assert_eq!(json["buffers"][0]["uri"], "scene.bin");
    assert_eq!(names_in(dir.path()), ["scene.bin", "scene.gltf", "victim"]);
}

#[test]
fn a_gltf_whose_bin_cannot_be_written_leaves_nothing_and_keeps_old_files() {
    let dir = tempfile::tempdir().unwrap();
    let gltf = dir.path().join("scene.gltf");
    std::fs::write(&gltf, b"old").unwrap();
    // The .bin's name is a folder: the buffer cannot go there.
    std::fs::create_dir(dir.path().join("scene.bin")).unwrap();
    let (code, err) = run(&["export", s(&sit()), "--out", s(&gltf)]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("scene.bin"), "{err}");
    assert_eq!(std::fs::read(&gltf).unwrap(), b"old");
    assert_eq!(names_in(dir.path()), ["scene.bin", "scene.gltf"]);
    // A new .gltf beside it: not created either.
    let fresh = dir.path().join("fresh.gltf");
    std::fs::create_dir(dir.path().join("fresh.bin")).unwrap();
    let (code, _) = run(&["export", s(&sit()), "--out", s(&fresh)]);
    assert_eq!(code, Some(1));
    assert!(!fresh.exists());
}

#[test]
fn a_name_of_250_bytes_is_written_with_a_plain_create_s_mode() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{}.csv", "n".repeat(246));
    let out = dir.path().join(&name);
    let (code, err) = run(&["export", s(&sit()), "--out", s(&out)]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(names_in(dir.path()), [name]);
    // The mode a plain create gives under this umask (the viewer inherits it).
    let plain = dir.path().join("plain");
    std::fs::File::create(&plain).unwrap();
    let mode = |p: &Path| p.metadata().unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&out), mode(&plain));
}

/// Starts `viewer render … --out out` of many frames, waits for its partial
/// file, sends `signal`, and checks that it ends with 130 leaving nothing.
/// Returns false (after a notice) where no GPU adapter can be had.
fn interrupt_render(dir: &Path, out: &Path, signal: libc::c_int) -> bool {
    let mut child = Command::new(crate::app::VIEWER)
        .current_dir(dir)
        .args([
            "render",
            s(&sit()),
            "--out",
            s(out),
            "--frames",
            "0..20000",
            "--size",
            "64x48",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let partial = |d: &Path| names_in(d).iter().any(|n| n.ends_with(".partial"));
    let folder = out.parent().unwrap();
    while !partial(folder) {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return !tool_present(
                &format!("a GPU adapter for render ({status}: {err})"),
                false,
                "apt-get install mesa-vulkan-drivers, WGPU_BACKEND=vulkan",
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no partial file"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Some frames in, mid-output.
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status}");
    assert!(!partial(folder), "left: {:?}", names_in(folder));
    assert!(!out.exists());
    true
}

#[test]
fn sigint_or_sigterm_in_the_middle_of_a_render_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    if !interrupt_render(dir.path(), &dir.path().join("x.gif"), libc::SIGINT) {
        return;
    }
    assert!(names_in(dir.path()).is_empty());
    // A PNG sequence: every picture drawn so far goes too.
    let frames = dir.path().join("frames");
    std::fs::create_dir(&frames).unwrap();
    interrupt_render(dir.path(), &frames.join("f_{:06}.png"), libc::SIGTERM);
    assert!(names_in(&frames).is_empty(), "{:?}", names_in(&frames));
}

#[test]
fn the_new_outputs_never_write_over_their_inputs() {
    // Round 3's rule for `memg fit --out` and `simulate --out` (issue 45):
    // an output that names an input is refused in one line and the input
    // keeps its bytes; a link to an input counts as the input.
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("tri.obj");
    std::fs::write(&scene, "v 0 0 0\nv 1 0 0\nv 0 1 0\ng t\nf 1 2 3\n").unwrap();
    let cache = dir.path().join("tri.pc2");
    let mut pc2 = b"POINTCACHE2\0".to_vec();
    for v in [1i32, 3] {
        pc2.extend(v.to_le_bytes());
    }
    pc2.extend(0f32.to_le_bytes());
    pc2.extend(1f32.to_le_bytes());
    pc2.extend(2i32.to_le_bytes());
    for t in 0..2 {
        for c in [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, t as f32] {
            pc2.extend(c.to_le_bytes());
        }
    }
    std::fs::write(&cache, &pc2).unwrap();
    let motion = dir.path().join("sit.mtn");
    std::fs::copy(sit(), &motion).unwrap();
    symlink(&motion, dir.path().join("link.mtn")).unwrap();
    let before: Vec<Vec<u8>> = [&scene, &cache, &motion]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let fit = |out: &Path| run(&["memg", "fit", s(&scene), s(&cache), "--out", s(out)]);
    for out in [&cache, &scene] {
        let (code, err) = fit(out);
        assert_ne!(code, Some(0), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains("input"), "{err}");
    }
    for out in [motion.clone(), dir.path().join("link.mtn")] {
        let (code, err) = run(&["simulate", s(&motion), "--out", s(&out)]);
        assert_ne!(code, Some(0), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains("input"), "{err}");
    }
    let after: Vec<Vec<u8>> = [&scene, &cache, &motion]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert!(before == after, "an input changed");
    assert_eq!(
        names_in(dir.path()),
        ["link.mtn", "sit.mtn", "tri.obj", "tri.pc2"]
    );
}
