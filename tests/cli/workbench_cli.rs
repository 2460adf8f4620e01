//! `viewer mtn …` through the binary: every verb writes a motion that reads back.
use crate::common;
use common::{data, test_data};

use crate::common::workbench as workbench_common;

use motion_viewer::anim::mtn::pose_at;
use motion_viewer::formats::mtn::{self, Mtn};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn viewer(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut c = crate::app::viewer();
    for a in args {
        c.arg(a);
    }
    c.output().unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn read(path: &Path) -> Mtn {
    mtn::decode(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn mirror_then_info_shows_a_valid_ers210_motion() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m.mtn");
    let said = ok(&viewer(&[
        &"mtn",
        &"mirror",
        &data("sony_stand_sit.mtn"),
        &"--out",
        &m,
    ]));
    assert!(
        said.starts_with(&format!("wrote {}: ERS-210 \"a_stand#sit_S\"", m.display())),
        "{said}"
    );
    let info: Value = serde_json::from_str(&ok(&viewer(&[&"info", &"--json", &m]))).unwrap();
    assert_eq!(info[0]["model"], "ERS-210");
    assert_eq!(info[0]["keyframes"], 6);
    assert_eq!(info[0]["frames"], 305);
    assert_eq!(info[0]["warnings"], serde_json::json!([]));
    // Mirrored again: the seed's bytes.
    let mm = dir.path().join("mm.mtn");
    ok(&viewer(&[&"mtn", &"mirror", &m, &"--out", &mm]));
    assert_eq!(
        std::fs::read(&mm).unwrap(),
        std::fs::read(data("sony_stand_sit.mtn")).unwrap()
    );
}

#[test]
fn an_input_is_not_overwritten_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("m.mtn");
    std::fs::copy(data("sony_stand_sit.mtn"), &m).unwrap();
    let before = std::fs::read(&m).unwrap();
    let out = viewer(&[&"mtn", &"reverse", &m, &"--out", &m]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("is one of the input files"), "{err}");
    assert_eq!(std::fs::read(&m).unwrap(), before);
    ok(&viewer(&[&"mtn", &"reverse", &m, &"--out", &m, &"--force"]));
    assert_eq!(read(&m).name, "a_sit#stand_S");
    // An archive entry's archive is an input too.
    let archive = dir.path().join("a.ODA");
    std::fs::copy(test_data("oda/ers7_MOTION7.ODA"), &archive).unwrap();
    let entry = format!("{}:a_sit#sit_so0_greet", archive.display());
    let out = viewer(&[&"mtn", &"mirror", &entry, &"--out", &archive]);
    assert!(!out.status.success());
    assert_eq!(
        std::fs::read(&archive).unwrap(),
        std::fs::read(test_data("oda/ers7_MOTION7.ODA")).unwrap()
    );
}

/// Exports `input` as `ext`, rebuilds it with from-csv and compares every
/// keyframe of the original with the rebuilt motion at the same time.
fn round_trip(input: &str, model: &str, ext: &str) -> (Mtn, Mtn) {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join(format!("t.{ext}"));
    ok(&viewer(&[&"export", &input, &"--out", &table]));
    let out = dir.path().join("back.mtn");
    let original = match motion_viewer::open_with(
        &[PathBuf::from(input)],
        &motion_viewer::OpenOptions::default(),
    )
    .unwrap()
    .tracks
    .pop()
    {
        Some(motion_viewer::scene::Track::Mtn { motion, .. }) => motion,
        _ => unreachable!(),
    };
    ok(&viewer(&[
        &"mtn",
        &"from-csv",
        &table,
        &"--model",
        &model,
        &"--name",
        &original.name,
        &"--out",
        &out,
    ]));
    let back = read(&out);
    // Half a micro-radian: the file's resolution (values exported between
    // keyframes come back rounded to whole micro-radians).
    let tolerance = workbench_common::deg(0.5) + 1e-9;
    for t in original.keyframe_times_s() {
        let (a, b) = (pose_at(&original, t), pose_at(&back, t));
        for (x, y) in a
            .body_deg
            .iter()
            .chain(&a.joints_deg)
            .zip(b.body_deg.iter().chain(&b.joints_deg))
        {
            assert!((x - y).abs() <= tolerance, "{input} at {t}: {x} vs {y}");
        }
    }
    assert_eq!(back.duration_s(), original.duration_s(), "{input}");
    assert_eq!(back.joints, original.joints, "{input}");
    (original, back)
}

#[test]
fn from_csv_of_an_exported_table_gives_back_every_keyframe() {
    let (a, b) = round_trip(
        &data("sony_stand_sit.mtn").display().to_string(),
        "ERS-210",
        "csv",
    );
    // Sony's six keyframes come back as six, on the same frames, with the same integers.
    assert_eq!(b.keyframe_frames(), a.keyframe_frames());
    assert_eq!(b.keyframes, a.keyframes);
    round_trip(
        &data("skitter_sleep_to_sit.mtn").display().to_string(),
        "ERS-210",
        "json",
    );
    let greet = format!(
        "{}:a_stand#walk_sox_standard",
        test_data("oda/ers7_MOTION7.ODA").display()
    );
    round_trip(&greet, "ERS-7", "csv");
    let cd1 = test_data("mtn/cartheur-aibo__r-code/cd#1.mtn")
        .display()
        .to_string();
    let (a, b) = round_trip(&cd1, "ERS-110", "csv");
    assert_eq!((b.frame_rate, b.design.as_str()), (a.frame_rate, "DRX-700"));
}

#[test]
fn a_bad_table_fails_in_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("bad.csv");
    std::fs::write(&csv, "time_s,tail_tilt,tail_pan\n0,10,0\n0.016,ten,0\n").unwrap();
    let out_path = dir.path().join("x.mtn");
    let out = viewer(&[
        &"mtn",
        &"from-csv",
        &csv,
        &"--model",
        &"ERS-7",
        &"--name",
        &"t_any#any_x",
        &"--out",
        &out_path,
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(
        err.trim_end(),
        format!(
            "viewer: {}: row 3, column \"tail_tilt\": \"ten\" is not a number",
            csv.display()
        )
    );
    assert!(!out_path.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn check_is_clean_on_the_seed_and_fails_on_a_crafted_motion() {
    let said = ok(&viewer(&[&"mtn", &"check", &data("sony_stand_sit.mtn")]));
    assert!(
        said.trim_end()
            .ends_with("(ERS-210, 6 keyframes, 4.880 s): nothing wrong found"),
        "{said}"
    );

    let mut m = read(&data("sony_stand_sit.mtn"));
    // Left front knee at 160°, 13° past the ERS-210's 147°.
    m.keyframes[3].joints[8] = (160.0f64.to_radians() * 1e6).round() as i32;
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.mtn");
    std::fs::write(&bad, mtn::encode(&m)).unwrap();
    let out = viewer(&[
        &"mtn",
        &"check",
        &"--json",
        &bad,
        &data("sony_stand_sit.mtn"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "viewer: 1 error(s) in 1 of 2 motion(s)\n"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    assert_eq!(v[0]["file"], bad.display().to_string());
    assert_eq!(v[0]["errors"], 1);
    let f = &v[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["severity"] == "error")
        .unwrap();
    assert_eq!(
        (f["kind"].as_str(), f["keyframe"].as_u64()),
        (Some("limit"), Some(3))
    );
    assert_eq!(v[1]["findings"], serde_json::json!([]));
    // A whole archive is checked entry by entry.
    let v: Value = serde_json::from_str(&ok(&viewer(&[
        &"mtn",
        &"check",
        &"--json",
        &test_data("oda/ers7_MOTION7.ODA"),
    ])))
    .unwrap();
    assert_eq!(v.as_array().unwrap().len(), 12);
}

#[test]
fn retime_concat_and_convert_write_what_they_say() {
    let dir = tempfile::tempdir().unwrap();
    let s = data("sony_stand_sit.mtn");
    let fast = dir.path().join("fast.mtn");
    ok(&viewer(&[
        &"mtn", &"retime", &s, &"--speed", &"2", &"--out", &fast,
    ]));
    // Frames 0, 61, 112, 153, 204, 305 halved and rounded: 0, 31, 56, 77, 102, 153.
    assert_eq!(read(&fast).keyframe_frames(), [0, 31, 56, 77, 102, 153]);
    let out = viewer(&[&"mtn", &"retime", &s, &"--out", &fast]);
    assert!(!out.status.success(), "retime needs --speed or --frame-ms");

    let both = dir.path().join("both.mtn");
    let reversed = dir.path().join("rev.mtn");
    ok(&viewer(&[&"mtn", &"reverse", &s, &"--out", &reversed]));
    let out = viewer(&[&"mtn", &"concat", &s, &reversed, &"--out", &both]);
    ok(&out);
    let m = read(&both);
    assert_eq!(m.total_frames(), 610);
    assert_eq!(m.name, "a_stand#stand_S");
    // The reversed seed starts where the seed ends: no warning.
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
    ok(&viewer(&[
        &"mtn",
        &"concat",
        &s,
        &reversed,
        &"--name",
        &"a_stand#stand_twice",
        &"--out",
        &both,
    ]));
    assert_eq!(read(&both).name, "a_stand#stand_twice");
    let out = viewer(&[
        &"mtn",
        &"concat",
        &s,
        &reversed,
        &"--name",
        &"a_stand#stand_λ",
        &"--out",
        &both,
    ]);
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("at most 255 Latin-1 characters")
    );
    assert_eq!(read(&both).name, "a_stand#stand_twice");

    let seven = dir.path().join("seven.mtn");
    let out = viewer(&[
        &"mtn", &"convert", &s, &"--model", &"ers-7", &"--out", &seven,
    ]);
    ok(&out);
    assert_eq!(read(&seven).design, "DRX-1000");
    let warned = String::from_utf8(out.stderr).unwrap();
    assert!(
        warned.contains("viewer: warning: dropped ERS-210 head_roll"),
        "{warned}"
    );
    let out = viewer(&[
        &"mtn", &"convert", &s, &"--model", &"ERS-9", &"--out", &seven,
    ]);
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("is not an AIBO model")
    );
}
