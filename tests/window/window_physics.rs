//! The simulated dog in the real window under Xvfb (X): with a motion
//! built to fall (an ERS-7 `mtn from-csv` table that lifts three legs) and
//! the seed's stand–sit open, X shows each simulated dog and prints its
//! verdict as a `sim TRACK MODE done falls … | simulated: …` status line,
//! the very numbers `viewer simulate --json` gives (fall time, peak tilt,
//! lowest body height, to the last digit). Deleting the two keyframes that
//! lift the legs re-runs that track's simulation: it stands; undoing both
//! makes it fall again.
//!
//! Needs what `window_xvfb` needs; without it the test says so and passes,
//! unless `CI` is set.

use super::window_xvfb::{
    START_TIMEOUT, STEP_TIMEOUT, edit_line, keyboard, parse_status, prerequisites, sony_copy,
    start_viewer, start_xvfb, wait_for,
};
use motion_viewer::formats::mtn;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// A debug build simulates a motion at a few times real time.
const SIM_TIMEOUT: Duration = Duration::from_secs(180);

/// A `sim TRACK MODE done …` line's numbers.
#[derive(Debug, PartialEq)]
struct Verdict {
    duration_s: f64,
    falls: bool,
    fall_time_s: Option<f64>,
    peak_tilt_deg: f64,
    min_body_height_m: f64,
    text: String,
}

fn parse_done(line: &str, track: usize) -> Option<Verdict> {
    let (words, text) = line.split_once(" | ")?;
    let w: Vec<&str> = words.split_whitespace().collect();
    let [
        "sim",
        t,
        _mode,
        "done",
        "duration_s",
        duration,
        "falls",
        falls,
        "fall_time_s",
        fall,
        "peak_tilt_deg",
        tilt,
        "min_body_height_m",
        height,
        "not_following",
        _,
    ] = w[..]
    else {
        return None;
    };
    (t.parse::<usize>().ok()? == track).then_some(())?;
    Some(Verdict {
        duration_s: duration.parse().ok()?,
        falls: falls.parse().ok()?,
        fall_time_s: match fall {
            "-" => None,
            f => Some(f.parse().ok()?),
        },
        peak_tilt_deg: tilt.parse().ok()?,
        min_body_height_m: height.parse().ok()?,
        text: text.to_string(),
    })
}

/// Waits for track `track`'s verdict on its motion of `duration_s`.
fn wait_done(lines: &Receiver<String>, track: usize, duration_s: f64, what: &str) -> Verdict {
    wait_for(lines, SIM_TIMEOUT, what, |l| {
        parse_done(l, track).filter(|v| v.duration_s == duration_s)
    })
}

/// True once a `sim 0 …` line arrives within `timeout`.
fn sim_started(lines: &Receiver<String>, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while let Ok(line) = lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        if line.starts_with("sim 0 ") {
            return true;
        }
    }
    false
}

/// The window's verdict is the CLI's, number for number.
fn assert_same(window: &Verdict, cli: &serde_json::Value) {
    assert_eq!(window.falls, cli["falls"].as_bool().unwrap(), "{cli}");
    assert_eq!(window.fall_time_s, cli["fall_time_s"].as_f64(), "{cli}");
    assert_eq!(
        window.peak_tilt_deg,
        cli["peak_tilt_deg"].as_f64().unwrap(),
        "{cli}"
    );
    assert_eq!(
        window.min_body_height_m,
        cli["min_body_height_m"].as_f64().unwrap(),
        "{cli}"
    );
}

#[test]
fn the_simulated_dog_says_whether_it_falls_and_an_edit_reruns_it() {
    if !prerequisites() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let fall = crate::app::built_to_fall(dir.path());
    let (seed, _) = sony_copy(dir.path(), "stand_sit.mtn");
    let (cli_fall, cli_seed) = (
        crate::app::simulate_json(&fall),
        crate::app::simulate_json(&seed),
    );
    assert_eq!(cli_fall["falls"], true, "the table is built to fall");
    assert_eq!(cli_seed["falls"], false);

    let (_xvfb, display) = start_xvfb();
    let running = start_viewer(
        &display,
        &[fall.clone(), seed.clone()],
        &["--paused", "--size", "1000x700"],
    );
    let lines = &running.lines;
    wait_for(lines, START_TIMEOUT, "the first frame", parse_status);
    let key = keyboard(&display);
    key("x");
    // X until the simulation starts: a key sent before the window listens
    // is lost (a second X, had the first been taken late, shows the ghost:
    // the verdicts are the same).
    let mut tries = 0;
    while !sim_started(lines, STEP_TIMEOUT) {
        tries += 1;
        assert!(tries < 3, "X started no simulation");
        key("x");
    }
    let whole_s = mtn::decode(&std::fs::read(&fall).unwrap())
        .unwrap()
        .duration_s();
    let falls = wait_done(lines, 0, whole_s, "the fall table's verdict");
    assert_same(&falls, &cli_fall);
    assert!(
        falls.text.starts_with("simulated: falls at "),
        "{}",
        falls.text
    );
    let seed_s = mtn::decode(&std::fs::read(&seed).unwrap())
        .unwrap()
        .duration_s();
    let stands = wait_done(lines, 1, seed_s, "the stand-sit's verdict");
    assert_same(&stands, &cli_seed);
    assert!(
        stands.text.starts_with("simulated: stands (peak tilt "),
        "{}",
        stands.text
    );

    // Keyframes 3 (2.0 s) and 2 (1.5 s) lift the legs: delete both, and
    // the dog, simulated again, stands. The fall table focused, the
    // keyframe jumps are its own.
    key("bracketright");
    for _ in 0..3 {
        key("period");
    }
    edit_line(lines, "track 0 keyframe 3 dirty false undo_depth 0");
    // Deleting the last keyframe selects the one before it.
    key("Delete");
    edit_line(lines, "keyframe 2 dirty true undo_depth 1");
    key("Delete");
    edit_line(lines, "dirty true undo_depth 2");
    // The motion now ends at keyframe 1 (0.5 s in the table, on the
    // motion's frame grid in the file).
    let mut two_keys = mtn::decode(&std::fs::read(&fall).unwrap()).unwrap();
    two_keys.keyframes.truncate(2);
    let edited = wait_done(
        lines,
        0,
        two_keys.duration_s(),
        "the edited motion's verdict",
    );
    assert!(!edited.falls, "{edited:?}");
    assert!(
        edited.text.starts_with("simulated: stands"),
        "{}",
        edited.text
    );
    // Undone: it falls again, as before, to the digit.
    key("ctrl+z");
    key("ctrl+z");
    edit_line(lines, "undo_depth 0");
    let again = wait_done(lines, 0, whole_s, "the restored motion's verdict");
    assert_same(&again, &cli_fall);
}
