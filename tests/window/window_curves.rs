//! The curves panel in the real window under Xvfb: C opens it on the
//! `.mtn`'s first joints (the channels the library lists, read back from
//! the status line), and a click on the plot seeks to the time under the
//! click, read through the plot's mapping the status line gives. A
//! keyframe's diamond dragged on its curve becomes that key's new value,
//! saved with Ctrl+S.

use crate::window_xvfb::{
    START_TIMEOUT, STEP_TIMEOUT, edit_line, keyboard, parse_status, prerequisites, quit,
    saved_path, sony_copy, start_viewer, start_xvfb, tool, wait_for,
};
use motion_viewer::formats::mtn;
use motion_viewer::scene::Track;
use std::sync::mpsc::Receiver;
use std::time::Duration;

/// The plot's mapping once the axes have settled: the last one announced
/// (from `first` on, the one the caller saw) until the status lines fall
/// quiet for 3 s.
fn settled_plot(lines: &Receiver<String>, first: Option<[f64; 8]>) -> [f64; 8] {
    let mut plot = match first {
        Some(plot) => plot,
        None => wait_for(lines, STEP_TIMEOUT, "the curves panel drawn", |l| {
            parse_curves(l).and_then(|(_, plot)| plot)
        }),
    };
    while let Ok(line) = lines.recv_timeout(Duration::from_secs(3)) {
        if let Some((_, Some(later))) = parse_curves(&line) {
            plot = later;
        }
    }
    plot
}

/// The window's id, for xdotool's pointer commands.
fn window_id(display: &str) -> String {
    let found = tool(display, "xdotool", &["search", "--name", "viewer"]);
    found.lines().next().expect("window id").trim().to_string()
}

/// The curves part of a status line: the channels (`TRACK:NAME`) and the
/// plot's `t0 t1 left right top bottom v0 v1`, once drawn.
fn parse_curves(line: &str) -> Option<(Vec<String>, Option<[f64; 8]>)> {
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
            .get(p + 1..p + 9)?
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
    let (motion, bytes) = sony_copy(dir.path(), "sony_stand_sit.mtn");
    // The channels the panel opens on: the first six with joint limits, as the library lists them.
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
    key("c");
    let (names, plot) = wait_for(lines, STEP_TIMEOUT, "the curves panel drawn", |l| {
        parse_curves(l).filter(|(_, plot)| plot.is_some())
    });
    assert_eq!(names, want);
    // The axes settle their widths over the first frames: take the last
    // mapping announced.
    let plot = settled_plot(lines, plot);
    let [t0, t1, left, right, top, bottom, ..] = plot;
    // Nothing zoomed and no loop range: the whole motion, 305 frames of 16 ms.
    assert_eq!((t0, t1), (0.0, 4.88));
    assert!(left < right && top < bottom, "{plot:?}");

    // A click 37 % across the plot, near its bottom edge (below every curve).
    let x = (left + 0.37 * (right - left)).round();
    let y = (bottom - 4.0).round();
    let want_s = t0 + (x - left) / (right - left) * (t1 - t0);
    let window = window_id(&display);
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

#[test]
fn a_keyframe_dragged_on_its_curve_is_saved_with_its_new_value() {
    if !prerequisites() {
        return;
    }
    const LF_J1: &str = "PRM:/r2/c1-Joint2:j1";
    let dir = tempfile::tempdir().expect("temp dir");
    let (motion, original) = sony_copy(dir.path(), "walk.mtn");
    // Keyframe 2 of the left front leg's first joint: where it sits, worked
    // out from the file (times from the frame counts, 16 ms a frame).
    let before = mtn::decode(&original).expect("decode sample");
    let j = before
        .joints
        .iter()
        .position(|n| n == LF_J1)
        .expect("joint");
    // Keyframe k is reached interp + 1 frames after keyframe k − 1.
    let frames: u32 = before.keyframes[1..=2].iter().map(|k| k.interp + 1).sum();
    let key_s = f64::from(frames) * 0.016;
    let deg = |urad: i32| f64::from(urad) * 1e-6 * 180.0 / std::f64::consts::PI;
    let key_deg = deg(before.keyframes[2].joints[j]);
    let track = Track::Mtn {
        path: motion.clone(),
        motion: before.clone(),
        entry: None,
    };
    let (lo, hi) = motion_viewer::curves::channels(&track)
        .into_iter()
        .find(|c| c.name == LF_J1)
        .and_then(|c| c.limits)
        .expect("the joint's limits");

    let (_xvfb, display) = start_xvfb();
    let running = start_viewer(
        &display,
        std::slice::from_ref(&motion),
        &["--paused", "--size", "1000x700", "--curves", LF_J1],
    );
    let lines = &running.lines;
    let first = wait_for(lines, START_TIMEOUT, "the first frame", |l| {
        parse_status(l).map(|_| parse_curves(l).and_then(|(_, plot)| plot))
    });
    let key = keyboard(&display);
    let [t0, t1, left, right, top, bottom, v0, v1] = settled_plot(lines, first);
    let x = (left + (key_s - t0) / (t1 - t0) * (right - left)).round();
    let y = (top + (v1 - key_deg) / (v1 - v0) * (bottom - top)).round();
    // 30 pixels towards the middle of the joint's range (never past a limit).
    let dy = if key_deg < 0.5 * (lo + hi) {
        -30.0
    } else {
        30.0
    };
    let want_deg = v1 - (y + dy - top) / (bottom - top) * (v1 - v0);
    let window = window_id(&display);
    let pointer = |args: &[&str]| {
        let mut all = vec!["mousemove", "--window", &window];
        all.extend_from_slice(args);
        tool(&display, "xdotool", &all);
    };
    pointer(&[&format!("{x}"), &format!("{y}")]);
    tool(&display, "xdotool", &["mousedown", "1"]);
    for step in 1..=6 {
        std::thread::sleep(Duration::from_millis(80));
        pointer(&[
            &format!("{x}"),
            &format!("{}", y + dy * f64::from(step) / 6.0),
        ]);
    }
    std::thread::sleep(Duration::from_millis(200));
    tool(&display, "xdotool", &["mouseup", "1"]);
    edit_line(lines, "keyframe 2 dirty true undo_depth 1");

    key("ctrl+s");
    let path = saved_path(lines, "the save");
    let after = mtn::decode(&std::fs::read(&path).expect("read saved")).expect("decode saved");
    let got_deg = deg(after.keyframes[2].joints[j]);
    // Within half a pixel of where the pointer let go.
    let half_px_deg = 0.5 * (v1 - v0) / (bottom - top);
    assert!(
        (got_deg - want_deg).abs() <= half_px_deg + 1e-4,
        "key 2 at {got_deg}°, the pointer let go at {want_deg}° (±{half_px_deg}°); it was {key_deg}°"
    );
    // Nothing else changed: every other value, and the key stayed in time.
    let mut expected = before.keyframes.clone();
    expected[2].joints[j] = after.keyframes[2].joints[j];
    let interp = |m: &mtn::Mtn| m.keyframes.iter().map(|k| k.interp).collect::<Vec<_>>();
    assert_eq!(interp(&after), interp(&before), "keyframe times");
    assert_eq!(after.keyframes, expected);
    assert_eq!(
        std::fs::read(&motion).unwrap(),
        original,
        "the original untouched"
    );
    quit(running, key);
}

/// The `values` of a status line's curves part, `None` for `-`.
fn parse_values(line: &str) -> Option<Vec<Option<f64>>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "values")?;
    Some(
        words
            .get(at + 1)?
            .split(',')
            .map(|v| v.parse().ok())
            .collect(),
    )
}

/// The value `export --time` gives channel `name` of a state.
fn state_value(state: &serde_json::Value, name: &str) -> f64 {
    let number = |v: &serde_json::Value| v.as_f64().unwrap_or_else(|| panic!("{name}: {v}"));
    match state["format"].as_str() {
        Some("mtn") => match name {
            "pitch_deg" => number(&state["body"]["pitch_deg"]),
            joint => number(
                &state["joints"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|j| j["name"] == joint)
                    .unwrap()["deg"],
            ),
        },
        Some("memg") => {
            let (group, field) = name[1..].split_once('_').unwrap();
            let g = &state["groups"][group.parse::<usize>().unwrap()];
            match field.strip_prefix('q') {
                Some(i) => number(&g["q"][i.parse::<usize>().unwrap()]),
                None => number(&g["translation"][usize::from(field.as_bytes()[1] - b'x')]),
            }
        }
        Some("input-animation") => {
            let axis = usize::from(name.as_bytes()[name.len() - 1] - b'x');
            number(&state["camera"]["position"][axis])
        }
        other => panic!("a state of {other:?}"),
    }
}

#[test]
fn the_status_line_gives_each_curve_at_a_seeked_time_as_export_time_does() {
    if !prerequisites() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let files: Vec<std::path::PathBuf> =
        ["flags.obj", "flags.bin", "sony_stand_sit.mtn", "hands.mrtk"]
            .iter()
            .map(|f| crate::common::data(f))
            .collect();
    // 2/7 s: between two MEMG timesteps (8.57 at 30 fps), between two
    // 16 ms .mtn frames and between two MRTK keys.
    let t = 2.0 / 7.0;
    let channels = "g1_q0,g1_tx,pitch_deg,PRM:/r2/c1-Joint2:j1,camera_px";
    let (_xvfb, display) = start_xvfb();
    let running = start_viewer(
        &display,
        &files,
        &[
            "--paused",
            "--start",
            &t.to_string(),
            "--curves",
            channels,
            "--size",
            "1000x700",
        ],
    );
    let lines = &running.lines;
    let (names, values) = wait_for(lines, START_TIMEOUT, "the curves with their values", |l| {
        let (names, _) = parse_curves(l)?;
        let values = parse_values(l)?;
        (parse_status(l)?.time > 0.0 && names.len() == 5).then_some((names, values))
    });
    // Each track's state at the same time, written by `export --time`.
    let states: Vec<serde_json::Value> = [&files[..2], &files[2..3], &files[3..]]
        .iter()
        .enumerate()
        .map(|(i, inputs)| {
            let out = dir.path().join(format!("s{i}.json"));
            let status = crate::app::viewer()
                .arg("export")
                .args(*inputs)
                .args(["--time", &t.to_string(), "--out"])
                .arg(&out)
                .output()
                .expect("viewer export");
            assert!(status.status.success(), "{status:?}");
            let text = std::fs::read_to_string(&out).unwrap();
            let mut all: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
            all.remove(0)
        })
        .collect();
    for (name, value) in names.iter().zip(&values) {
        let (track, channel) = name.split_once(':').unwrap();
        let want = state_value(&states[track.parse::<usize>().unwrap()], channel);
        let got = value.unwrap_or_else(|| panic!("{name} has no value"));
        if channel == "camera_px" {
            // The state writes MRTK values as the f32s they are.
            assert_eq!(got as f32, want as f32, "{name} at {t} s");
        } else {
            assert_eq!(
                got, want,
                "{name} at {t} s: the window against export --time"
            );
        }
    }
    let key = keyboard(&display);
    quit(running, key);
}
