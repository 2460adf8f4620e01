//! Small hostile files (issue 19): every class of file that once hung the
//! viewer or ate the machine, written here, and every subcommand run on it
//! as a child process under a memory limit and a timeout. Each must end in
//! time with success or one clear `viewer: …` line on stderr (warnings
//! aside), never a signal or a panic. `tests/data/hostile/README.md` says
//! what each class exercises and what the viewer says, with its time and
//! peak memory; run with `--nocapture` to see the table this test measures.
//!
//! Memory limits (address space, `RLIMIT_AS`): 1 GiB for `info` and
//! `export`, whose work is the file's data plus a few megabytes; 4 GiB for
//! `render` and `bench`, which open a GPU adapter: Mesa's lavapipe maps
//! LLVM and one thread per core with its own stack and malloc arena (on the
//! 2-core test machine a render needs about 600 MiB of address space; below
//! 512 MiB lavapipe refuses a device, below 256 MiB it crashes itself).

use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::input_animation::{
    self as ia, Curve, Hands, InputAnimation, JOINT_COUNT, Key, PoseCurves,
};
use motion_viewer::formats::memg::{self, MemgGroup, MemgMotion};
use motion_viewer::formats::mtn::{self, Keyframe, Mtn};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub(super) const GIB: u64 = 1 << 30;
/// Longest any command may take on these files in a test (debug) build:
/// "a few seconds" in a release build, with room for a slower build and a
/// busy machine (the slowest command on a normal file here takes about 3 s).
const TIMEOUT: Duration = Duration::from_secs(15);

// ---- the files -------------------------------------------------------------

pub(super) fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A one-triangle scene whose group `g` a motion can move.
pub(super) const TRIANGLE: &[u8] = b"v 0 0 0\nv 1 0 0\nv 0 1 0\ng g\nf 1 2 3\n";

fn le(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A MEMG motion of one timestep moving nothing, for scenes whose `.obj` is the point.
pub(super) fn still_memg() -> Vec<u8> {
    let motion = MemgMotion {
        fps: 30,
        timesteps: 1,
        ..MemgMotion::default()
    };
    memg::encode(&motion, ByteOrder::Little)
}

/// MEMG: 0 local frames × 2³¹−1 timesteps in 16 bytes, no groups.
fn memg_endless(dir: &Path) -> Vec<PathBuf> {
    vec![
        write(dir, "endless.obj", TRIANGLE),
        write(dir, "endless.bin", &le(&[1, 30, 0, i32::MAX])),
    ]
}

/// MEMG: the same with one group of basis 0 (its 2³¹−1 coefficient columns
/// are empty), 73 bytes: every timestep deforms a vertex.
fn memg_endless_group(dir: &Path) -> Vec<PathBuf> {
    let motion = MemgMotion {
        fps: 30,
        timesteps: i32::MAX as usize,
        groups: vec![MemgGroup {
            name: "g".into(),
            mapping: vec![1],
            mean: vec![0.5, 1.0, 2.0],
            parent: -1,
            ..MemgGroup::default()
        }],
        ..MemgMotion::default()
    };
    vec![
        write(dir, "endless_group.obj", TRIANGLE),
        write(
            dir,
            "endless_group.bin",
            &memg::encode(&motion, ByteOrder::Little),
        ),
    ]
}

/// MEMG: counts of 2³¹−1 local frames and timesteps with no bytes behind them.
fn memg_huge_counts(dir: &Path) -> Vec<PathBuf> {
    vec![
        write(dir, "huge_counts.obj", TRIANGLE),
        write(dir, "huge_counts.bin", &le(&[1, 30, i32::MAX, i32::MAX])),
    ]
}

pub(super) fn sony_stand_sit() -> Mtn {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sony_stand_sit.mtn");
    mtn::decode(&std::fs::read(path).unwrap()).unwrap()
}

/// `.mtn`: Sony's stand-to-sit whose last keyframe comes 0xFFFFFFFF frames
/// after the one before (795 days at 16 ms).
fn mtn_endless(dir: &Path) -> Vec<PathBuf> {
    let mut m = sony_stand_sit();
    m.keyframes.last_mut().unwrap().interp = u32::MAX;
    vec![write(dir, "endless.mtn", &mtn::encode(&m))]
}

/// `.mtn`: 60 000 keyframes of no joints, one frame apart (960 KB).
fn mtn_keyframe_flood(dir: &Path) -> Vec<PathBuf> {
    let mut m = Mtn {
        version: [1, 1],
        section_count: 4,
        frame_rate: 16,
        name: "a_flood#flood".into(),
        creator: "hostile".into(),
        design: "DRX-1000".into(),
        keyframes: (0..60_000)
            .map(|i| Keyframe {
                roll: i,
                ..Keyframe::default()
            })
            .collect(),
        ..Mtn::default()
    };
    m.pad_sections();
    vec![write(dir, "flood.mtn", &mtn::encode(&m))]
}

fn curve(keys: &[(f32, f32)]) -> Curve {
    Curve {
        keys: keys.iter().map(|&(t, v)| Key::linear(t, v)).collect(),
        ..Curve::default()
    }
}

pub(super) fn pose(keys: &[(f32, f32)]) -> PoseCurves {
    PoseCurves {
        position: std::array::from_fn(|_| curve(keys)),
        rotation: std::array::from_fn(|_| curve(keys)),
    }
}

/// MRTK 1.1: a camera whose curves run from 0 to `end` seconds.
pub(super) fn camera_only(end: f32) -> InputAnimation {
    InputAnimation {
        version: (1, 1),
        camera: Some(pose(&[(0.0, 0.0), (end, 1.0)])),
        ..InputAnimation::default()
    }
}

/// MRTK: one key at t = 10³⁰ s.
fn mrtk_far_key(dir: &Path) -> Vec<PathBuf> {
    let r = camera_only(1e30);
    vec![write(dir, "far_key.mrtk", &ia::encode(&r, (1, 1)).unwrap())]
}

/// MRTK: 219 bytes, a camera over 3.3·10⁵ s: 2·10⁷ rows of 8 columns at
/// 60 Hz, a 1.6 GB CSV.
fn mrtk_219_bytes(dir: &Path) -> Vec<PathBuf> {
    let bytes = ia::encode(&camera_only(3.3e5), (1, 1)).unwrap();
    assert_eq!(bytes.len(), 219);
    vec![write(dir, "long_219.mrtk", &bytes)]
}

/// MRTK: 7.9 KB, camera and both hands (390 columns), the camera's last key
/// at 10⁵ s: 6·10⁶ rows, 2.4·10⁹ values.
fn mrtk_wide(dir: &Path) -> Vec<PathBuf> {
    let still = || {
        (0..JOINT_COUNT)
            .map(|_| pose(&[(0.0, 0.0)]))
            .collect::<Vec<_>>()
    };
    let r = InputAnimation {
        version: (1, 1),
        camera: Some(pose(&[(0.0, 0.0), (1e5, 1.0)])),
        hands: Some(Hands {
            left: still(),
            right: still(),
            ..Hands::default()
        }),
        ..InputAnimation::default()
    };
    let bytes = ia::encode(&r, (1, 1)).unwrap();
    assert!((7_800..8_000).contains(&bytes.len()), "{}", bytes.len());
    vec![write(dir, "wide.mrtk", &bytes)]
}

/// `.obj`: `mtllib /dev/zero`.
fn obj_mtllib_dev_zero(dir: &Path) -> Vec<PathBuf> {
    let obj = [b"mtllib /dev/zero\n".as_slice(), TRIANGLE].concat();
    vec![
        write(dir, "dev_zero.obj", &obj),
        write(dir, "dev_zero.bin", &still_memg()),
    ]
}

pub(super) fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// `.obj`: `mtllib pipe.mtl`, a named pipe beside it no one writes to.
fn obj_mtllib_pipe(dir: &Path) -> Vec<PathBuf> {
    let sub = dir.join("pipe");
    std::fs::create_dir(&sub).unwrap();
    mkfifo(&sub.join("pipe.mtl"));
    let obj = [b"mtllib pipe.mtl\n".as_slice(), TRIANGLE].concat();
    vec![
        write(&sub, "scene.obj", &obj),
        write(&sub, "scene.bin", &still_memg()),
    ]
}

/// `.obj`: `mtllib zero.mtl`, a link beside it to `/dev/zero`.
fn obj_mtllib_link(dir: &Path) -> Vec<PathBuf> {
    let sub = dir.join("link");
    std::fs::create_dir(&sub).unwrap();
    std::os::unix::fs::symlink("/dev/zero", sub.join("zero.mtl")).unwrap();
    let obj = [b"mtllib zero.mtl\n".as_slice(), TRIANGLE].concat();
    vec![
        write(&sub, "scene.obj", &obj),
        write(&sub, "scene.bin", &still_memg()),
    ]
}

/// `.obj`: one library named 100 000 times, a megabyte of `newmtl` lines.
fn obj_mtllib_flood(dir: &Path) -> Vec<PathBuf> {
    let sub = dir.join("flood");
    std::fs::create_dir(&sub).unwrap();
    let mut mtl = Vec::new();
    let mut i = 0;
    while mtl.len() < (1 << 20) - 32 {
        mtl.extend(format!("newmtl m{i}\n").bytes());
        i += 1;
    }
    write(&sub, "flood.mtl", &mtl);
    let obj = [
        b"mtllib ".as_slice(),
        "flood.mtl ".repeat(100_000).as_bytes(),
        b"\n",
        TRIANGLE,
    ]
    .concat();
    vec![
        write(&sub, "scene.obj", &obj),
        write(&sub, "scene.bin", &still_memg()),
    ]
}

/// A motion file that is a named pipe no one writes to.
fn input_pipe(dir: &Path) -> Vec<PathBuf> {
    let path = dir.join("motion.mtn");
    mkfifo(&path);
    vec![path]
}

// ---- running the viewer ----------------------------------------------------

/// How one command ended.
#[derive(Debug)]
pub(super) struct Outcome {
    /// Exit code, or `None` when a signal (or the timeout) ended it.
    pub(super) code: Option<i32>,
    pub(super) signal: Option<i32>,
    pub(super) timed_out: bool,
    pub(super) seconds: f64,
    pub(super) peak_mb: f64,
    pub(super) stderr: String,
}

/// Limits the child's address space to `limit` bytes (the viewer, and
/// `/usr/bin/time` around it, inherit it) and puts it in a process group of
/// its own, so that a test can kill the whole group.
pub(super) fn limit_memory(cmd: &mut Command, limit: u64) {
    // SAFETY: setpgid and setrlimit are async-signal-safe; nothing else runs
    // between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let rl = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setpgid(0, 0) == 0 && libc::setrlimit(libc::RLIMIT_AS, &rl) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

/// Runs `viewer args…` with its address space limited to `limit` bytes,
/// killed after [`TIMEOUT`], under `/usr/bin/time` for its peak resident
/// memory where that is installed (measured any other way, the test
/// process's own size would count: a forked child starts as large as its
/// parent).
pub(super) fn run(args: &[String], limit: u64, out_dir: &Path) -> Outcome {
    let stdout = std::fs::File::create(out_dir.join("stdout")).unwrap();
    let stderr_path = out_dir.join("stderr");
    let stderr = std::fs::File::create(&stderr_path).unwrap();
    let time_path = out_dir.join("time");
    let _ = std::fs::remove_file(&time_path);
    let runtime = out_dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    std::fs::set_permissions(
        &runtime,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let viewer = crate::app::VIEWER;
    let timed = Path::new("/usr/bin/time").exists();
    let mut cmd = if timed {
        let mut c = Command::new("/usr/bin/time");
        c.arg("-f").arg("%M").arg("-o").arg(&time_path).arg(viewer);
        c
    } else {
        Command::new(viewer)
    };
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .env("XDG_RUNTIME_DIR", &runtime);
    if std::env::var_os("WGPU_BACKEND").is_none() {
        cmd.env("WGPU_BACKEND", "vulkan");
    }
    limit_memory(&mut cmd, limit);
    let started = Instant::now();
    let mut child = cmd.spawn().expect("the viewer starts");
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            timed_out = true;
            // SAFETY: killing our own child's process group (time and viewer).
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let seconds = started.elapsed().as_secs_f64();
    use std::os::unix::process::ExitStatusExt;
    let (mut code, mut signal) = (status.code(), status.signal());
    // GNU time exits with 128 + the signal that ended its command.
    if timed && let Some(c) = code.filter(|c| (129..=192).contains(c)) {
        (code, signal) = (None, Some(c - 128));
    }
    let peak_kb: f64 = std::fs::read_to_string(&time_path)
        .ok()
        .and_then(|t| t.lines().last()?.trim().parse().ok())
        .unwrap_or(f64::NAN);
    Outcome {
        code,
        signal,
        timed_out,
        seconds,
        peak_mb: peak_kb / 1024.0,
        stderr: std::fs::read_to_string(&stderr_path).unwrap_or_default(),
    }
}

/// The lines of stderr that are not warnings.
pub(super) fn complaints(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("viewer: ") && !l.starts_with("viewer: warning"))
        .collect()
}

/// Every subcommand on `files`, with its memory limit; the output paths in `out`.
fn commands(files: &[PathBuf], out: &Path) -> Vec<(String, Vec<String>, u64)> {
    let files: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let o = |name: &str| out.join(name).display().to_string();
    let with = |head: &[&str], tail: &[String]| -> Vec<String> {
        head.iter()
            .map(|s| s.to_string())
            .chain(files.iter().cloned())
            .chain(tail.iter().cloned())
            .collect()
    };
    let s = |x: &str| x.to_string();
    vec![
        (s("info"), with(&["info"], &[]), GIB),
        (s("info --json"), with(&["info", "--json"], &[]), GIB),
        (
            s("export .json --time 1"),
            with(
                &["export"],
                &[s("--out"), o("state.json"), s("--time"), s("1")],
            ),
            GIB,
        ),
        (
            s("export .json (table)"),
            with(&["export"], &[s("--out"), o("table.json")]),
            GIB,
        ),
        (
            s("export .csv"),
            with(&["export"], &[s("--out"), o("table.csv")]),
            GIB,
        ),
        (
            s("export .urdf"),
            with(&["export"], &[s("--out"), o("robot.urdf")]),
            GIB,
        ),
        (
            s("export .mcap"),
            with(&["export"], &[s("--out"), o("bag.mcap")]),
            GIB,
        ),
        (
            s("export .usda"),
            with(&["export"], &[s("--out"), o("stage.usda")]),
            GIB,
        ),
        (
            s("export .obj"),
            with(
                &["export"],
                &[s("--out"), o("mesh.obj"), s("--frame"), s("1")],
            ),
            GIB,
        ),
        (
            s("render"),
            with(
                &["render"],
                &[
                    s("--out"),
                    o("x.png"),
                    s("--size"),
                    s("64x48"),
                    s("--time"),
                    s("1"),
                ],
            ),
            4 * GIB,
        ),
        (
            s("bench"),
            with(&["bench"], &[s("--runs"), s("1")]),
            4 * GIB,
        ),
        (
            s("plot .svg"),
            with(
                &["plot"],
                &[s("--channels"), s("*"), s("--out"), o("plot.svg")],
            ),
            GIB,
        ),
        (
            s("plot .png"),
            with(
                &["plot"],
                &[
                    s("--channels"),
                    s("*"),
                    s("--size"),
                    s("64x48"),
                    s("--out"),
                    o("plot.png"),
                ],
            ),
            GIB,
        ),
        // The files against themselves.
        (s("diff"), with(&["diff"], &files), GIB),
    ]
}

/// Runs every subcommand on the files `make` writes, checks each ends in
/// time with success or one clear line, and returns what each said.
fn survive(class: &str, make: fn(&Path) -> Vec<PathBuf>) -> Vec<(String, Outcome)> {
    let dir = tempfile::tempdir().unwrap();
    let files = make(dir.path());
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let mut results = Vec::new();
    for (name, args, limit) in commands(&files, &out) {
        let o = run(&args, limit, &out);
        let said = complaints(&o.stderr);
        let first = said.first().copied().unwrap_or("");
        let summary = match o.code {
            Some(0) => "ok".to_string(),
            _ => first.to_string(),
        };
        eprintln!(
            "| {class} | {name} | {} | {:.2} | {:.0} |",
            summary.replace('|', "\\|"),
            o.seconds,
            o.peak_mb
        );
        assert!(!o.timed_out, "{class}: {name} ran past {TIMEOUT:?}");
        assert!(
            o.signal.is_none(),
            "{class}: {name} ended by signal {:?}: {}",
            o.signal,
            o.stderr
        );
        assert!(
            !o.stderr.contains("panicked"),
            "{class}: {name} panicked: {}",
            o.stderr
        );
        // `diff` exits 1 for a difference and 2 for an error.
        let error = if name == "diff" { Some(2) } else { Some(1) };
        match o.code {
            Some(0) => {}
            code if code == error => assert!(
                said.len() == 1,
                "{class}: {name} failed without one clear line: {}",
                o.stderr
            ),
            other => panic!("{class}: {name} exited with {other:?}: {}", o.stderr),
        }
        results.push((name, o));
    }
    results
}

fn outcome<'a>(results: &'a [(String, Outcome)], name: &str) -> &'a Outcome {
    &results.iter().find(|(n, _)| n == name).unwrap().1
}

fn said<'a>(results: &'a [(String, Outcome)], name: &str) -> &'a str {
    &outcome(results, name).stderr
}

// ---- the classes -----------------------------------------------------------

#[test]
fn memg_of_two_billion_empty_timesteps() {
    let r = survive("MEMG 0 frames × 2³¹−1 timesteps", memg_endless);
    assert_eq!(outcome(&r, "info").code, Some(0));
    assert!(said(&r, "info").contains("only its first 86400 s (24 h) play"));
    let r = survive("MEMG 2³¹−1 timesteps, one group", memg_endless_group);
    assert_eq!(outcome(&r, "info --json").code, Some(0));
}

#[test]
fn memg_counts_with_nothing_behind_them() {
    let r = survive("MEMG 2³¹−1 × 2³¹−1 declared", memg_huge_counts);
    assert!(
        said(&r, "info").contains("local frames × timesteps"),
        "{}",
        said(&r, "info")
    );
}

#[test]
fn mtn_keyframe_four_billion_frames_on() {
    let r = survive(".mtn keyframe 0xFFFFFFFF frames on", mtn_endless);
    assert_eq!(outcome(&r, "info").code, Some(0));
    assert!(said(&r, "info").contains("only its first 86400 s"));
}

#[test]
fn mtn_of_sixty_thousand_keyframes() {
    survive(".mtn 60 000 keyframes", mtn_keyframe_flood);
}

#[test]
fn mrtk_key_at_1e30_seconds() {
    let r = survive("MRTK key at 1e30 s", mrtk_far_key);
    assert_eq!(outcome(&r, "info").code, Some(0));
}

#[test]
fn mrtk_219_bytes_asking_for_a_1_6_gb_csv() {
    let r = survive("MRTK 219 B, 3.3e5 s", mrtk_219_bytes);
    assert_eq!(outcome(&r, "export .csv").code, Some(1));
    assert!(
        said(&r, "export .csv").contains("--fps"),
        "{}",
        said(&r, "export .csv")
    );
}

#[test]
fn mrtk_7_9_kb_asking_for_billions_of_values() {
    let r = survive("MRTK 7.9 KB, 390 columns", mrtk_wide);
    assert_eq!(outcome(&r, "export .csv").code, Some(1));
}

#[test]
fn obj_naming_dev_zero_as_its_library() {
    let r = survive(".obj mtllib /dev/zero", obj_mtllib_dev_zero);
    assert_eq!(outcome(&r, "info").code, Some(0));
    assert!(said(&r, "info").contains("only a path relative to the .obj's folder"));
}

#[test]
fn obj_mtllib_named_pipe() {
    let r = survive(".obj mtllib a named pipe", obj_mtllib_pipe);
    assert_eq!(outcome(&r, "info").code, Some(0));
    assert!(said(&r, "info").contains("a named pipe, not a regular file"));
}

#[test]
fn obj_mtllib_link_to_dev_zero() {
    let r = survive(".obj mtllib link to /dev/zero", obj_mtllib_link);
    assert!(said(&r, "info").contains("leads out of the .obj's folder"));
}

#[test]
fn obj_naming_one_megabyte_library_100_000_times() {
    survive(".obj mtllib ×100 000, 1 MiB .mtl", obj_mtllib_flood);
}

#[test]
fn a_named_pipe_given_as_a_motion() {
    let r = survive("motion file is a named pipe", input_pipe);
    assert!(said(&r, "info").contains("a named pipe, not a regular file; not read"));
}
