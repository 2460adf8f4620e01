//! The curves panel in the real window under Xvfb: C opens it on the
//! `.mtn`'s first joints (the channels the library lists, read back from
//! the status line), and a click on the plot seeks to the time under the
//! click, read through the plot's mapping the status line gives.

use crate::window_xvfb::{
    START_TIMEOUT, STEP_TIMEOUT, keyboard, parse_status, prerequisites, quit, start_viewer,
    start_xvfb, tool, wait_for,
};
use motion_viewer::scene::Track;
use std::path::Path;

/// The curves part of a status line: the channels (`TRACK:NAME`) and the
/// plot's `t0 t1 left right top bottom`, once drawn.
fn parse_curves(line: &str) -> Option<(Vec<String>, Option<[f64; 6]>)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "curves")?;
    if words.get(at + 1) == Some(&"-") {
        return Some((Vec::new(), None));
    }
    let count: usize = words.get(at + 1)?.parse().ok()?;
    let names = match count {
        0 => Vec::new(),
        _ => words.get(at + 2)?.split(',').map(str::to_owned).collect(),
    };
    let plot = words.iter().position(|w| *w == "plot").and_then(|p| {
        let v: Vec<f64> = words
            .get(p + 1..p + 7)?
            .iter()
            .filter_map(|w| w.parse().ok())
            .collect();
        v.try_into().ok()
    });
    Some((names, plot))
}

#[test]
fn c_opens_the_curves_and_a_click_seeks() {
    if !prerequisites() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let motion = dir.path().join("sony_stand_sit.mtn");
    std::fs::copy(data.join("sony_stand_sit.mtn"), &motion).expect("copy sample");
    // The channels the panel opens on: the first six with joint limits, as the library lists them.
    let bytes = std::fs::read(&motion).expect("read sample");
    let track = Track::Mtn {
        path: motion.clone(),
        motion: motion_viewer::formats::mtn::decode(&bytes).expect("decode sample"),
        entry: None,
    };
    let want: Vec<String> = motion_viewer::curves::channels(&track)
        .into_iter()
        .filter(|c| c.limits.is_some())
        .take(6)
        .map(|c| format!("0:{}", c.name))
        .collect();
    assert_eq!(want.len(), 6, "the ERS-210 motion has joints with limits");

    let (_xvfb, display) = start_xvfb();
    let running = start_viewer(
        &display,
        std::slice::from_ref(&motion),
        &["--paused", "--size", "1000x700"],
    );
    let lines = &running.lines;
    let first = wait_for(lines, START_TIMEOUT, "the first frame", |l| {
        parse_status(l).zip(parse_curves(l))
    });
    assert_eq!(first.1, (Vec::new(), None), "the panel starts closed");
    let key = keyboard(&display);
    // Let the first frames settle before the key (as the other window tests do).
    std::thread::sleep(std::time::Duration::from_millis(1500));
    key("c");
    let (names, plot) = wait_for(lines, STEP_TIMEOUT, "the curves panel drawn", |l| {
        parse_curves(l).filter(|(_, plot)| plot.is_some())
    });
    assert_eq!(names, want);
    // The axes settle their widths over the first frames: take the last
    // mapping announced.
    let mut plot = plot.unwrap();
    while let Ok(line) = lines.recv_timeout(std::time::Duration::from_secs(3)) {
        if let Some((_, Some(later))) = parse_curves(&line) {
            plot = later;
        }
    }
    let [t0, t1, left, right, top, bottom] = plot;
    // Nothing zoomed and no loop range: the whole motion, 305 frames of 16 ms.
    assert_eq!((t0, t1), (0.0, 4.88));
    assert!(left < right && top < bottom, "{plot:?}");

    // A click 37 % across the plot, near its bottom edge (below every curve).
    let x = (left + 0.37 * (right - left)).round();
    let y = (bottom - 4.0).round();
    let want_s = t0 + (x - left) / (right - left) * (t1 - t0);
    let window = tool(&display, "xdotool", &["search", "--name", "viewer"]);
    let window = window.lines().next().expect("window id").trim().to_string();
    tool(
        &display,
        "xdotool",
        &[
            "mousemove",
            "--window",
            &window,
            &format!("{x}"),
            &format!("{y}"),
            "click",
            "1",
        ],
    );
    let seeked = wait_for(lines, STEP_TIMEOUT, "the time the click seeks to", |l| {
        parse_status(l).filter(|s| s.time > 0.0)
    });
    assert!(
        (seeked.time - want_s).abs() <= 0.016,
        "clicked at {want_s} s, the timeline is at {} s",
        seeked.time
    );
    quit(running, key);
}
