//! `viewer render --out x.gif` and `--out x.mp4`: the frames asked for, at
//! the size and rate asked for, read back with other readers (ImageMagick's
//! `identify`, ffmpeg's `ffprobe`); a video without ffmpeg fails clearly and
//! leaves nothing behind.
//!
//! Rendering needs a GPU adapter (lavapipe will do): without one, or without
//! ImageMagick, a test says so and passes, unless `CI` is set.
use crate::common;
use common::{data, on_path, tool_present};

use std::path::Path;
use std::process::{Command, Output};

/// True when `tool` is there; otherwise says why the test stops (panics on CI).
fn have(tool: &str) -> bool {
    tool_present(tool, on_path(tool), "apt-get install imagemagick ffmpeg")
}

fn viewer(args: &[&str]) -> Output {
    crate::app::viewer()
        .args(args)
        .output()
        .expect("run viewer")
}

/// The render's output, or `None` (test skipped) when no adapter could be had.
fn rendered(args: &[&str]) -> Option<Output> {
    let out = viewer(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("no GPU adapter") {
        tool_present(
            &format!("a GPU adapter ({stderr})"),
            false,
            "apt-get install mesa-vulkan-drivers",
        );
        return None;
    }
    assert!(out.status.success(), "viewer {args:?}: {stderr}");
    Some(out)
}

/// One `identify` line per frame: `WIDTH HEIGHT DELAY`.
fn identify(path: &Path) -> Vec<(u32, u32, u32)> {
    let out = Command::new("identify")
        .args(["-format", "%w %h %T\n", path.to_str().unwrap()])
        .output()
        .expect("run identify");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: Vec<u32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            (v[0], v[1], v[2])
        })
        .collect()
}

/// Frame `index` of `gif` as RGBA pixels, through ImageMagick.
fn gif_frame(gif: &Path, index: usize, dir: &Path) -> image::RgbaImage {
    let png = dir.join(format!("frame{index}.png"));
    let status = Command::new("convert")
        .arg(format!("{}[{index}]", gif.display()))
        .args(["-coalesce"])
        .arg(&png)
        .status()
        .expect("run convert");
    assert!(status.success());
    image::open(&png).expect("frame PNG").to_rgba8()
}

#[test]
fn gif_has_the_frames_size_and_rate_asked_for() {
    if !have("identify") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let gif = dir.path().join("sit.gif");
    let mtn = data("sony_stand_sit.mtn");
    let Some(_) = rendered(&[
        "render",
        mtn.to_str().unwrap(),
        "--frames",
        "0..24",
        "--fps",
        "25",
        "--size",
        "160x120",
        "--out",
        gif.to_str().unwrap(),
    ]) else {
        return;
    };
    let frames = identify(&gif);
    assert_eq!(frames.len(), 24, "{frames:?}");
    // 25 fps is 4 hundredths of a second per frame.
    assert!(frames.iter().all(|&f| f == (160, 120, 4)), "{frames:?}");
    // The dog moves: at 25 fps frame 23 is 0.92 s in, well into the sit.
    let first = gif_frame(&gif, 0, dir.path());
    let last = gif_frame(&gif, 23, dir.path());
    let moved = first
        .pixels()
        .zip(last.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 40))
        .count();
    assert!(
        moved > 50,
        "{moved} pixels changed between the first and last frame"
    );
    assert!(
        std::fs::read_dir(dir.path()).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains("partial")),
        "no temporary file left"
    );
}

#[test]
fn gif_without_frames_spans_the_timeline_at_the_motions_rate() {
    if !have("identify") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let gif = dir.path().join("skitter.gif");
    let mtn = data("skitter_sleep_to_sit.mtn");
    let Some(out) = rendered(&[
        "render",
        mtn.to_str().unwrap(),
        "--size",
        "64x48",
        "--out",
        gif.to_str().unwrap(),
    ]) else {
        return;
    };
    // 40 frames of 16 ms: frames 0..=40 cover 0..0.64 s; GIF delays round 1.6 cs up to 2.
    let frames = identify(&gif);
    assert_eq!(frames.len(), 41);
    assert!(frames.iter().all(|&f| f == (64, 48, 2)), "{frames:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("whole hundredths"), "{stderr}");
}

#[test]
fn video_without_ffmpeg_fails_naming_it_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mp4 = dir.path().join("sit.mp4");
    let empty_path = tempfile::tempdir().unwrap();
    let out = crate::app::viewer()
        .args(["render", data("sony_stand_sit.mtn").to_str().unwrap()])
        .args(["--frames", "0..10", "--out", mp4.to_str().unwrap()])
        .env("PATH", empty_path.path())
        .output()
        .expect("run viewer");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("needs ffmpeg"), "{stderr}");
    assert!(stderr.contains("sit.mp4"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn time_and_an_animation_do_not_mix() {
    let out = viewer(&[
        "render",
        data("sony_stand_sit.mtn").to_str().unwrap(),
        "--time",
        "1",
        "--out",
        "x.gif",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("--frames"), "{stderr}");
}

#[test]
fn mp4_through_ffmpeg_when_it_is_there() {
    // ffmpeg is optional (CI need not have it): without it there is nothing to check here.
    if !on_path("ffmpeg") || !on_path("ffprobe") {
        eprintln!("skipped: ffmpeg/ffprobe not on PATH");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mp4 = dir.path().join("sit.mp4");
    let Some(_) = rendered(&[
        "render",
        data("sony_stand_sit.mtn").to_str().unwrap(),
        "--frames",
        "0..30",
        "--fps",
        "30",
        "--size",
        "161x120",
        "--out",
        mp4.to_str().unwrap(),
    ]) else {
        return;
    };
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args([
            "-show_entries",
            "stream=width,height,nb_read_frames,r_frame_rate",
        ])
        .args(["-of", "csv=p=0", mp4.to_str().unwrap()])
        .output()
        .expect("run ffprobe");
    let text = String::from_utf8_lossy(&probe.stdout);
    // An odd width is padded to an even one for yuv420p.
    assert_eq!(text.trim(), "162,120,30/1,30", "{text}");
}
