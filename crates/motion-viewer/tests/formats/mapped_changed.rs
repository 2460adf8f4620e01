//! A memory-mapped input changed on disk while the viewer reads it (issue
//! 34, cause 5, the viewer's own mapped paths): a MEMG motion of a few
//! megabytes (the loader maps inputs of 1 MiB or more) is opened, then cut
//! short on disk, then decoded. Before `formats::mapping` the first read
//! past the new end raised `SIGBUS` and ended the process; now each reader
//! returns an error saying the file changed.
//!
//! The reading runs in a child process (this test binary again, running
//! only [`child_reads_motions_cut_short_under_their_maps`]) under an
//! address-space limit and a timeout, so that a signal fails this test
//! instead of ending the whole test binary.

use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg::{self, MappedMemg, MemgGroup, MemgMotion};
use motion_viewer::open::Input;
use motion_viewer::{OpenOptions, open_with};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Set (to a folder) in the child's environment.
const CHILD: &str = "MOTION_VIEWER_MAPPED_CHILD";

/// One group of 40 000 vertices, basis 4, 3 timesteps: a 4.8 MB motion,
/// and a `.obj` of as many vertices for it.
fn write_scene(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let v = 40_000;
    let r = 4;
    let motion = MemgMotion {
        fps: 30,
        timesteps: 3,
        groups: vec![MemgGroup {
            name: "g".into(),
            mapping: (1..=v as u32).collect(),
            mean: (0..3 * v).map(|i| i as f32 * 1e-3).collect(),
            parent: -1,
            basis_len: r,
            basis: vec![0.25; 3 * v * r],
            coeffs: vec![1.0; r * 3],
        }],
        ..MemgMotion::default()
    };
    let bin = dir.join("cut.bin");
    std::fs::write(&bin, memg::encode(&motion, ByteOrder::Little)).unwrap();
    let mut obj = String::from("g g\n");
    for i in 0..v {
        obj.push_str(&format!("v {i} 0 0\n"));
    }
    for i in 0..v / 3 {
        obj.push_str(&format!("f {} {} {}\n", 3 * i + 1, 3 * i + 2, 3 * i + 3));
    }
    let obj_path = dir.join("cut.obj");
    std::fs::write(&obj_path, obj).unwrap();
    (obj_path, bin)
}

/// Cuts the file at `path` to `len` bytes in place.
fn cut(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

#[test]
fn child_reads_motions_cut_short_under_their_maps() {
    let Some(dir) = std::env::var_os(CHILD) else {
        return;
    };
    let dir = Path::new(&dir);
    let changed = |e: motion_viewer::Error| {
        let text = e.to_string();
        assert!(text.contains("changed on disk"), "{text}");
        assert!(
            text.starts_with(&dir.join("cut.bin").display().to_string()),
            "{text}"
        );
    };

    // The loader (the CLI, the window, the front door): mapped, then cut.
    let (obj, bin) = write_scene(dir);
    let inputs = vec![Input::read(&obj).unwrap(), Input::read(&bin).unwrap()];
    assert!(
        matches!(inputs[1].data, motion_viewer::open::InputData::Mapped(_)),
        "a motion of a megabyte or more is mapped"
    );
    cut(&bin, 4096);
    changed(open_inputs(inputs).unwrap_err());

    // The GPU upload's source and the benchmark's loader.
    let (_, bin) = write_scene(dir);
    let mapped = MappedMemg::open(&bin).unwrap();
    cut(&bin, 1 << 20);
    changed(mapped.decode().unwrap_err());

    // Cut partway through a page: the rest of it reads as zeros, no signal.
    let (obj, bin) = write_scene(dir);
    let inputs = vec![Input::read(&obj).unwrap(), Input::read(&bin).unwrap()];
    let len = std::fs::metadata(&bin).unwrap().len();
    cut(&bin, len - 1000);
    changed(open_inputs(inputs).unwrap_err());

    // Unchanged, the same files load.
    let (obj, bin) = write_scene(dir);
    let inputs = vec![Input::read(&obj).unwrap(), Input::read(&bin).unwrap()];
    let loaded = open_inputs(inputs).unwrap();
    assert_eq!(loaded.tracks.len(), 1);
}

#[test]
fn a_mapped_motion_cut_short_on_disk_is_an_error_not_a_signal() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "--exact",
        "mapped_changed::child_reads_motions_cut_short_under_their_maps",
        "--nocapture",
        "--test-threads",
        "1",
    ])
    .env(CHILD, dir.path());
    const LIMIT: u64 = 1 << 30;
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between
    // fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let rl = libc::rlimit {
                rlim_cur: LIMIT,
                rlim_max: LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &rl) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    let mut child = cmd.spawn().unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the child ran past 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), None, "the child was killed by a signal");
    assert!(status.success(), "{status}");
}

/// The front door, given files read already.
fn open_inputs(inputs: Vec<Input>) -> motion_viewer::Result<motion_viewer::Loaded> {
    open_with(inputs, &OpenOptions::default())
}
