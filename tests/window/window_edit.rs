//! Editing an AIBO motion in the real window under Xvfb, from the keyboard
//! alone (xdotool): `.` twice selects keyframe 2 (the `edit …` status line
//! says so), Enter puts the keyboard in its first joint's field, `12.5`
//! Enter sets it, Ctrl+S writes `NAME-edited.mtn` beside the original (the
//! `saved PATH` line), which decodes to the original with exactly that value
//! changed; Ctrl+Z and Ctrl+S again write the original's bytes. Quitting
//! with unsaved edits asks first: Esc keeps the window, D discards and quits.
//! The original file is never touched.
//!
//! Needs what `window_xvfb` needs; without it the test says so and passes,
//! unless `CI` is set.

use super::window_xvfb::{
    START_TIMEOUT, STEP_TIMEOUT, edit_line, keyboard, parse_status, prerequisites, saved_path,
    sony_copy, start_viewer, start_xvfb, tool, wait_for,
};
use motion_viewer::formats::mtn;
use std::io::Read;
use std::time::{Duration, Instant};

/// 12.5° in micro-radians, worked out here: 12.5 · π/180 · 10⁶ = 218 166.156.
const VALUE_URAD: i32 = 218_166;

#[test]
fn an_edit_typed_in_the_window_is_saved_beside_the_original() {
    if !prerequisites() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (motion, original) = sony_copy(dir.path(), "walk.mtn");
    let (_xvfb, display) = start_xvfb();
    let running = start_viewer(
        &display,
        std::slice::from_ref(&motion),
        &["--paused", "--size", "1000x700"],
    );
    let lines = &running.lines;
    wait_for(lines, START_TIMEOUT, "the first frame", parse_status);
    edit_line(lines, "track 0 keyframe - dirty false undo_depth 0");
    let key = keyboard(&display);

    // Keyframe jumps select: 0.976 s is keyframe 1, 1.792 s keyframe 2.
    key("period");
    edit_line(lines, "keyframe 1 dirty false undo_depth 0");
    key("period");
    edit_line(lines, "keyframe 2 dirty false undo_depth 0");
    key("Return");
    // Give egui a frame to put the keyboard in the field.
    std::thread::sleep(Duration::from_millis(500));
    tool(&display, "xdotool", &["type", "--delay", "60", "12.5"]);
    key("Return");
    edit_line(lines, "keyframe 2 dirty true undo_depth 1");

    let saved = |what: &str| {
        key("ctrl+s");
        saved_path(lines, what)
    };
    let path = saved("the first save");
    assert_eq!(path, dir.path().join("walk-edited.mtn"));
    let before = mtn::decode(&original).unwrap();
    let after = mtn::decode(&std::fs::read(&path).unwrap()).unwrap();
    assert!(after.warnings.is_empty(), "{:?}", after.warnings);
    let mut expected = before.clone();
    expected.keyframes[2].joints[0] = VALUE_URAD;
    assert_eq!(after.keyframes, expected.keyframes);
    assert_eq!((&after.name, &after.joints), (&before.name, &before.joints));
    edit_line(lines, "keyframe 2 dirty false undo_depth 1");

    key("ctrl+z");
    edit_line(lines, "keyframe 2 dirty true undo_depth 0");
    assert_eq!(saved("the second save"), path);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        original,
        "undone: the original's bytes"
    );

    // Unsaved edits: Q asks, Esc keeps the window, D discards and quits.
    key("ctrl+y");
    edit_line(lines, "keyframe 2 dirty true undo_depth 1");
    key("q");
    std::thread::sleep(Duration::from_millis(1500));
    let mut viewer = running.viewer;
    assert!(
        viewer.0.try_wait().unwrap().is_none(),
        "Q with unsaved edits closed the window without asking"
    );
    key("Escape");
    std::thread::sleep(Duration::from_millis(500));
    key("Right");
    wait_for(lines, STEP_TIMEOUT, "a step after Esc", |l| {
        parse_status(l).filter(|s| s.frame > 0)
    });
    key("q");
    std::thread::sleep(Duration::from_millis(500));
    key("d");
    let deadline = Instant::now() + STEP_TIMEOUT;
    let status = loop {
        if let Some(status) = viewer.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "D did not close the window");
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut errors = String::new();
    let mut stderr = running.stderr;
    let _ = stderr.read_to_string(&mut errors);
    assert!(status.success(), "viewer exited with {status}: {errors}");
    assert_eq!(
        std::fs::read(&motion).unwrap(),
        original,
        "the original is untouched"
    );
}
