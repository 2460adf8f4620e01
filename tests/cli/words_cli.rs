//! Issue 45, cause 6: every refusal in the words of what was asked for, in
//! one line. A robot description refused names the format of the output
//! (MJCF for `.xml`, URDF for `.urdf`), and a value the command line
//! cannot parse is one line naming the option and the value, as every
//! other error is, not clap's block of lines.

use crate::app::viewer;
use crate::common::data;
use std::path::Path;

/// `viewer args…`: its exit status and stderr.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let o = viewer().args(args).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_refused_robot_description_names_the_format_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let sit = data("sony_stand_sit.mtn");
    let skitter = data("skitter_sleep_to_sit.mtn");
    // The same motion carried to an ERS-7: two motions of two models.
    let ers7 = dir.path().join("ers7.mtn");
    let (code, err) = run(&[
        "mtn",
        "convert",
        s(&sit),
        "--model",
        "ERS-7",
        "--out",
        s(&ers7),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let hands = data("hands.mrtk");
    let flags = [data("flags.obj"), data("flags.bin")];
    for (ext, format, other) in [("xml", "MJCF", "URDF"), ("urdf", "URDF", "MJCF")] {
        let out = dir.path().join(format!("x.{ext}"));
        let mut cases: Vec<(&str, Vec<&Path>)> = vec![
            ("an MRTK recording", vec![&hands]),
            ("a MEMG motion", vec![&flags[0], &flags[1]]),
        ];
        // Two motions: an MJCF carries one (of one model or of two); a URDF
        // describes one robot, so two motions of two models are refused.
        if ext == "xml" {
            cases.push(("two motions of one model", vec![&sit, &skitter]));
        }
        cases.push(("two motions of two models", vec![&sit, &ers7]));
        for (what, files) in cases {
            let mut args = vec!["export"];
            args.extend(files.iter().map(|p| s(p)));
            args.extend(["--out", s(&out)]);
            let (code, err) = run(&args);
            assert_eq!(code, Some(1), "{what} to .{ext}: {err}");
            assert_eq!(err.lines().count(), 1, "{what} to .{ext}: {err}");
            assert!(err.contains(format), "{what} to .{ext}: {err}");
            assert!(!err.contains(other), "{what} to .{ext}: {err}");
            assert!(!out.exists(), "{what} to .{ext}: nothing written");
        }
        let (_, err) = run(&["export", s(&hands), "--out", s(&out)]);
        assert!(err.contains("an MRTK recording, no .mtn motion"), "{err}");
    }
}

#[test]
fn a_value_that_does_not_parse_is_one_line_naming_the_option_and_the_value() {
    let mtn = data("sony_stand_sit.mtn");
    let mtn = s(&mtn);
    for (args, option, expected) in [
        (
            vec!["render", "x", "--frames", "bogus"],
            "--frames",
            "expected A..B with A < B",
        ),
        (
            vec!["render", "x", "--size", "0x10"],
            "--size",
            "expected WxH",
        ),
        (
            vec!["render", "x", "--view", "sideways"],
            "--view",
            "expected one of three-quarter, front, side, top",
        ),
        (
            vec!["export", mtn, "--out", "x.csv", "--fps", "fast"],
            "--fps",
            "expected a number",
        ),
        (
            vec!["export", mtn, "--out", "x.json", "--frame", "1.5"],
            "--frame",
            "expected a whole number",
        ),
        (
            vec!["export", mtn, "--out", "x.glb", "--layout", "bogus"],
            "--layout",
            "fit",
        ),
        (
            vec![
                "memg", "fit", "x.obj", "x.pc2", "--out", "x", "--rank", "many",
            ],
            "--rank",
            "expected a whole number",
        ),
        (
            vec![
                "memg",
                "fit",
                "x.obj",
                "x.pc2",
                "--out",
                "x",
                "--max-error",
                "bogus",
            ],
            "--max-error",
            "bogus",
        ),
        (
            vec!["export", mtn, "--out", "x.json", "--frame", "-3"],
            "--frame",
            "expected a whole number",
        ),
        (
            vec!["diff", mtn, mtn, "--tolerance", "-1"],
            "--tolerance",
            "expected a number ≥ 0",
        ),
        (
            vec!["diff", mtn, mtn, "--tolerance", "bogus"],
            "--tolerance",
            "expected a number ≥ 0",
        ),
        (
            vec!["mtn", "retime", mtn, "--out", "y.mtn", "--frame-ms", "0"],
            "--frame-ms",
            "expected a whole number from 1 to 65535",
        ),
        (
            vec!["memg", "fit", "x.obj", "x.pc2", "--out", "x", "--fps", "0"],
            "--fps",
            "expected a whole number from 1 to 2147483647",
        ),
    ] {
        let (code, err) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        let line = err.trim_end();
        assert!(line.starts_with(&format!("viewer: {option}")), "{line}");
        assert!(line.contains(expected), "{args:?}: {line}");
        let value = args.last().unwrap();
        assert!(line.contains(&format!("\"{value}\"")), "{args:?}: {line}");
    }
    // An option given no value at all.
    let (code, err) = run(&["render", "x", "--frames"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err.trim_end(),
        "viewer: --frames needs a value (--frames <A..B>)"
    );
}

#[test]
fn help_and_a_missing_argument_keep_their_usage() {
    let o = viewer().args(["render", "--help"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(help.contains("--frames <A..B>"), "{help}");
    let (code, err) = run(&["export", "x.mtn"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--out <OUT>") && err.contains("Usage:"),
        "{err}"
    );
}

#[test]
fn a_moment_refused_by_a_whole_motion_format_names_that_format_alone() {
    let dir = tempfile::tempdir().unwrap();
    let sit = data("sony_stand_sit.mtn");
    for (ext, words, not) in [
        ("urdf", "a URDF", "MJCF"),
        ("xml", "an MJCF", "URDF"),
        ("mcap", "a bag", "USD"),
        ("usda", "a USD stage", "bag"),
        ("glb", "a glTF scene", "point cache"),
        ("gltf", "a glTF scene", "point cache"),
        ("pc2", "a point cache (.pc2)", "glTF"),
    ] {
        let out = dir.path().join(format!("x.{ext}"));
        let (code, err) = run(&["export", s(&sit), "--time", "1", "--out", s(&out)]);
        assert_eq!(code, Some(1), ".{ext}: {err}");
        assert_eq!(err.lines().count(), 1, ".{ext}: {err}");
        assert!(err.contains(words) && !err.contains(not), ".{ext}: {err}");
        assert!(!out.exists(), ".{ext}");
    }
}
