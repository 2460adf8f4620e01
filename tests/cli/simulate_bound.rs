//! `viewer simulate` bounded in wall time (issue 45, cause 3): a motion
//! days long, or an archive whose motions add up to more than a run plays,
//! is refused in one line before any step; a long run shows its progress on
//! a terminal, sized before it starts; Ctrl-C stops it at once, writing
//! nothing.

use crate::app::{VIEWER, viewer};
use crate::common::data;
use motion_viewer::formats::mtn::{self, Mtn};
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a refusal may take on a loaded machine: the code before this
/// bound ran such motions for hours.
const REFUSAL_DEADLINE: Duration = Duration::from_secs(60);

/// Sony's seed (ERS-210, 305 frames of 16 ms) with its last keyframe
/// reached `interp` + 1 frames of `frame_ms` after the one before.
fn stretched(interp: u32, frame_ms: u16) -> Mtn {
    let mut m = mtn::decode(&std::fs::read(data("sony_stand_sit.mtn")).unwrap()).unwrap();
    m.keyframes.last_mut().unwrap().interp = interp;
    m.frame_rate = frame_ms;
    m
}

/// The seed's frames before its last keyframe.
fn frames_before_last() -> u64 {
    let m = stretched(0, 16);
    let k = &m.keyframes;
    k[1..k.len() - 1]
        .iter()
        .map(|k| u64::from(k.interp) + 1)
        .sum()
}

fn write_mtn(dir: &Path, name: &str, m: &Mtn) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, mtn::encode(m)).unwrap();
    path
}

/// An ODA archive (docs/formats.md §2) of `count` copies of `motion`.
fn archive(dir: &Path, count: usize, motion: &[u8]) -> PathBuf {
    let mut out = b"ODAR\0\0\x03\0".to_vec();
    out.extend_from_slice(&(count as u32).to_le_bytes());
    out.extend_from_slice(&144u32.to_le_bytes());
    out.resize(64, 0);
    let data_at = 64 + 144 * count;
    for i in 0..count {
        out.extend_from_slice(b"OMTN");
        let mut name = format!("m{i:04}.mtn").into_bytes();
        name.resize(128, 0);
        out.extend_from_slice(&name);
        for word in [data_at + i * motion.len(), motion.len(), 0] {
            out.extend_from_slice(&(word as u32).to_le_bytes());
        }
    }
    for _ in 0..count {
        out.extend_from_slice(motion);
    }
    let path = dir.join("MANY.ODA");
    std::fs::write(&path, out).unwrap();
    path
}

/// Runs `viewer simulate args…`, failing the test if it is still running
/// after [`REFUSAL_DEADLINE`].
fn simulate_quickly(args: &[&str]) -> Output {
    let mut child = viewer()
        .arg("simulate")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > REFUSAL_DEADLINE {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("simulate {args:?} still running after {REFUSAL_DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The one line of a refusal (exit 2).
fn one_line_refusal(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(o.stdout.is_empty());
    err
}

#[test]
fn a_motion_days_long_is_refused_in_one_line_before_any_step() {
    let dir = tempfile::tempdir().unwrap();
    // 2³² − 1 interpolated frames of 1 ms: 49.7 days; of 65.535 s: 8 900
    // years (the two motions).
    let days = write_mtn(dir.path(), "days.mtn", &stretched(u32::MAX, 1));
    let frames = frames_before_last() + u64::from(u32::MAX) + 1;
    let err = one_line_refusal(&simulate_quickly(&[days.to_str().unwrap()]));
    let seconds = frames as f64 / 1000.0;
    let what = format!("days.mtn: a motion of {frames} frames of 1 ms ({seconds:.1} s, 49.7 days)");
    assert!(err.contains(&what), "{err}");
    assert!(
        err.contains("600 s of motion") && err.contains("--max-duration"),
        "{err}"
    );
    let years = write_mtn(dir.path(), "years.mtn", &stretched(u32::MAX, 65_535));
    let err = one_line_refusal(&simulate_quickly(&[
        years.to_str().unwrap(),
        "--max-duration",
        "3600",
    ]));
    assert!(err.contains(" years)") && err.contains("3600 s"), "{err}");
    // The flag itself is bounded.
    for bad in ["1e9", "0", "-5", "NaN", "inf"] {
        let err = one_line_refusal(&simulate_quickly(&[
            days.to_str().unwrap(),
            &format!("--max-duration={bad}"),
        ]));
        assert!(
            err.starts_with(&format!(
                "viewer: --max-duration {}",
                bad.parse::<f64>().unwrap()
            )) && err.contains("at most 3600"),
            "{err}"
        );
    }
}

#[test]
fn an_archive_adding_up_past_a_run_is_refused_in_one_line_before_any_step() {
    let dir = tempfile::tempdir().unwrap();
    // 30 motions of 37 500 frames of 16 ms, each at the 600 s cap: with
    // 0.5 s of settling and 1 s of hold, 30 × 601.5 = 18 045 simulated
    // seconds, past the 14 400 s (4 h) a run plays.
    let interp = 37_500 - frames_before_last() - 1;
    let motion = mtn::encode(&stretched(interp as u32, 16));
    let oda = archive(dir.path(), 30, &motion);
    let err = one_line_refusal(&simulate_quickly(&[oda.to_str().unwrap()]));
    assert!(
        err.contains("30 motions make 18045 simulated seconds"),
        "{err}"
    );
    assert!(err.contains("14400 s"), "{err}");
}

/// What a child wrote on its terminal so far.
type Screen = Arc<Mutex<String>>;

/// `viewer simulate args…` with a pseudo-terminal as its stderr (so that
/// it draws its progress bar), stdout to `stdout`; a thread reads the
/// terminal into the returned screen.
fn on_a_terminal(args: &[&str], stdout: Stdio) -> (Child, Screen, std::thread::JoinHandle<()>) {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: 24,
        ws_col: 100,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes the two descriptors it opens; no name is asked for.
    let ok = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(ok, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned here alone.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let child = Command::new(VIEWER)
        .current_dir(crate::common::root())
        .env("TERM", "xterm")
        .arg("simulate")
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::from(slave))
        .spawn()
        .unwrap();
    let screen = Screen::default();
    let reader = {
        let screen = Arc::clone(&screen);
        let mut master = std::fs::File::from(master);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // Reading ends with EIO once the child's side is closed.
            while let Ok(n @ 1..) = master.read(&mut buf) {
                screen
                    .lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    };
    (child, screen, reader)
}

/// Waits until `screen` shows `text` (the child still running), and
/// returns what it shows.
fn wait_for(child: &mut Child, screen: &Screen, text: &str) -> String {
    let started = Instant::now();
    loop {
        let shown = screen.lock().unwrap().clone();
        if shown.contains(text) {
            return shown;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("ended ({status}) before showing {text:?}: {shown}");
        }
        if started.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("no {text:?} on the terminal after 120 s: {shown}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends SIGINT to `child` and returns its exit status code.
fn interrupt(mut child: Child) -> Option<i32> {
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    child.wait().unwrap().code()
}

#[test]
fn an_archive_shows_its_progress_sized_before_it_starts_and_ctrl_c_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    // 40 copies of the seed: 40 × (0.5 + 4.88 + 1.0) = 255.2 simulated s.
    let oda = archive(
        dir.path(),
        40,
        &std::fs::read(data("sony_stand_sit.mtn")).unwrap(),
    );
    let (mut child, screen, reader) = on_a_terminal(&[oda.to_str().unwrap()], Stdio::piped());
    wait_for(&mut child, &screen, "% of 255 simulated s");
    let mut stdout = child.stdout.take().unwrap();
    assert_eq!(interrupt(child), Some(130));
    reader.join().unwrap();
    let mut printed = String::new();
    stdout.read_to_string(&mut printed).unwrap();
    assert_eq!(printed, "", "no verdict of an interrupted run");
}

#[test]
fn ctrl_c_mid_simulate_leaves_no_out_file_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    // The seed stretched to about 300 s: minutes of simulation.
    let long = write_mtn(dir.path(), "long.mtn", &stretched(18_000, 16));
    let out = dir.path().join("sim.csv");
    let args = [long.to_str().unwrap(), "--out", out.to_str().unwrap()];
    let (mut child, screen, reader) = on_a_terminal(&args, Stdio::null());
    wait_for(&mut child, &screen, "simulated s");
    assert_eq!(interrupt(child), Some(130));
    reader.join().unwrap();
    let mut left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    left.sort();
    assert_eq!(left, ["long.mtn"], "nothing written beside the input");
}
