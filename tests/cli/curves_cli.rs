//! `viewer plot`: the points of every curve, read back from the SVG through
//! the mapping its root carries (docs/cli.md, "Curves: plot and diff"), are the
//! values `viewer export --time T` writes at those times; the PNG is a
//! picture of the size asked for; bad requests are one line.

use crate::common::data;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

fn viewer() -> Command {
    crate::app::viewer()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One attribute of an element's text (`name="value"`), unescaped.
fn attribute<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = element.find(&key)? + key.len();
    let end = start + element[start..].find('"')?;
    Some(&element[start..end])
}

/// The root's mapping and each polyline: (channel, track, points).
struct Svg {
    t: [f64; 2],
    v: [f64; 2],
    x: [f64; 2],
    y: [f64; 2],
    curves: Vec<(String, Option<String>, Vec<[f64; 2]>)>,
}

impl Svg {
    fn read(path: &Path) -> Svg {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(text.trim_end().ends_with("</svg>"));
        let root = &text[..text.find('>').unwrap()];
        let num = |name: &str| -> f64 { attribute(root, name).unwrap().parse().unwrap() };
        let mut curves = Vec::new();
        for element in text.split("<polyline").skip(1) {
            let element = &element[..element.find("/>").unwrap()];
            let points = attribute(element, "points")
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    [x.parse().unwrap(), y.parse().unwrap()]
                })
                .collect();
            curves.push((
                attribute(element, "data-channel").unwrap().to_string(),
                attribute(element, "data-track").map(str::to_string),
                points,
            ));
        }
        Svg {
            t: [num("data-t0"), num("data-t1")],
            v: [num("data-v0"), num("data-v1")],
            x: [num("data-x0"), num("data-x1")],
            y: [num("data-y0"), num("data-y1")],
            curves,
        }
    }

    /// A point as (t, v), by docs/cli.md's mapping.
    fn value(&self, p: [f64; 2]) -> (f64, f64) {
        let t = self.t[0] + (p[0] - self.x[0]) / (self.x[1] - self.x[0]) * (self.t[1] - self.t[0]);
        let v = self.v[0] + (p[1] - self.y[0]) / (self.y[1] - self.y[0]) * (self.v[1] - self.v[0]);
        (t, v)
    }

    /// How far a read-back time and value may be off: half of the last
    /// written decimal (0.001 px) through the mapping.
    fn rounding(&self) -> (f64, f64) {
        let half = 0.0005;
        (
            half * (self.t[1] - self.t[0]) / (self.x[1] - self.x[0]).abs(),
            half * (self.v[1] - self.v[0]).abs() / (self.y[1] - self.y[0]).abs(),
        )
    }
}

/// `viewer export FILES --time T --out s.json`, the first track's state.
fn state(files: &[String], t: f64, dir: &Path) -> Value {
    let out = dir.join(format!("state-{t}.json"));
    let run = viewer()
        .arg("export")
        .args(files)
        .args(["--time", &t.to_string(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    ok(&run);
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    v[0].clone()
}

/// Plots `channels` of `files` into an SVG, reads every point back, snaps
/// its time onto the track's frame grid (`period`), and checks the value
/// against `export --time` through `lookup` at up to `times` of those frames.
fn round_trip(
    files: &[&str],
    channels: &[&str],
    size: &str,
    period: f64,
    lookup: impl Fn(&Value, &str) -> f64,
    expect_curves: usize,
) {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<String> = files
        .iter()
        .map(|f| data(f).display().to_string())
        .collect();
    let svg = dir.path().join("plot.svg");
    let run = viewer()
        .arg("plot")
        .args(&files)
        .arg("--channels")
        .args(channels)
        .args(["--size", size, "--out"])
        .arg(&svg)
        .output()
        .unwrap();
    ok(&run);
    let plot = Svg::read(&svg);
    assert_eq!(plot.curves.len(), expect_curves);
    let (dt, dv) = plot.rounding();
    assert!(
        dt < period / 100.0,
        "the time rounding {dt} s is far below a frame"
    );
    // Every point, by frame: channel → value read back.
    let mut frames: BTreeMap<u64, Vec<(&str, f64)>> = BTreeMap::new();
    for (channel, _, points) in &plot.curves {
        assert!(!points.is_empty(), "{channel}");
        for &p in points {
            let (t, v) = plot.value(p);
            let k = (t / period).round();
            assert!(
                (t - k * period).abs() <= dt + 1e-12,
                "{channel}: a point at {t} s is no frame's time"
            );
            frames.entry(k as u64).or_default().push((channel, v));
        }
    }
    // Up to a dozen frames spread over the motion, the first and last included.
    let keys: Vec<u64> = frames.keys().copied().collect();
    let picked: Vec<u64> = (0..12).map(|i| keys[i * (keys.len() - 1) / 11]).collect();
    let mut checked = 0;
    for k in picked {
        let state = state(&files, k as f64 * period, dir.path());
        for &(channel, v) in &frames[&k] {
            let expected = lookup(&state, channel);
            assert!(
                (v - expected).abs() <= dv + 1e-7 * expected.abs().max(1.0),
                "{channel} at frame {k}: read back {v}, export --time says {expected} (rounding {dv})"
            );
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked}");
}

#[test]
fn aibo_joints_read_back_from_the_svg_equal_export_time() {
    let lookup = |s: &Value, channel: &str| -> f64 {
        if let Some(v) = s["body"][channel].as_f64() {
            return v;
        }
        let joints = s["joints"].as_array().unwrap();
        let joint = joints.iter().find(|j| j["name"] == channel).unwrap();
        joint["deg"].as_f64().unwrap()
    };
    // 306 frames on ~900 columns: every frame drawn.
    round_trip(
        &["sony_stand_sit.mtn"],
        &["*"],
        "1280x720",
        0.016,
        lookup,
        23,
    );
    // On 96 columns the curves go through each column's extremes: still frames.
    round_trip(
        &["sony_stand_sit.mtn"],
        &["PRM:/r2/*", "pitch_deg"],
        "220x300",
        0.016,
        lookup,
        4,
    );
}

/// An MRTK channel's value in the state JSON: `{side}_{joint}_{c}` or
/// `{side}_tracked`/`_pinching`.
fn mrtk_lookup(s: &Value, channel: &str) -> f64 {
    let (side, rest) = channel.split_once('_').unwrap();
    let hand = &s["hands"][side];
    if let Some(b) = hand[rest].as_bool() {
        return f64::from(u8::from(b));
    }
    let (joint, c) = rest.rsplit_once('_').unwrap();
    let joint = hand["joints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["name"] == joint)
        .unwrap();
    let k = ["px", "py", "pz", "rx", "ry", "rz", "rw"]
        .iter()
        .position(|x| *x == c)
        .unwrap();
    if k < 3 {
        joint["position"][k].as_f64().unwrap()
    } else {
        joint["rotation"][k - 3].as_f64().unwrap()
    }
}

#[test]
fn mrtk_joints_read_back_from_the_svg_equal_export_time() {
    round_trip(
        &["hands.mrtk"],
        &[
            "right_IndexTip_p?",
            "left_Wrist_py",
            "right_pinching",
            "left_tracked",
        ],
        "1000x600",
        1.0 / 60.0,
        mrtk_lookup,
        6,
    );
    // Narrow: 240 frames on 40 columns, drawn through the envelope.
    round_trip(
        &["hands.mrtk"],
        &["right_ThumbTip_pz", "right_IndexTip_rw"],
        "200x400",
        1.0 / 60.0,
        mrtk_lookup,
        2,
    );
}

#[test]
fn memg_coefficients_read_back_from_the_svg_equal_export_time() {
    let lookup = |s: &Value, channel: &str| -> f64 {
        let (g, field) = channel[1..].split_once('_').unwrap();
        let group = &s["groups"][g.parse::<usize>().unwrap()];
        match field.strip_prefix('q') {
            Some(i) => group["q"][i.parse::<usize>().unwrap()].as_f64().unwrap(),
            None => group["translation"][usize::from(field.as_bytes()[1] - b'x')]
                .as_f64()
                .unwrap(),
        }
    };
    round_trip(
        &["flags.obj", "flags.bin"],
        &["g1_q0", "g1_q1", "g1_q2", "g0_q0", "g1_tx"],
        "1280x720",
        1.0 / 30.0,
        lookup,
        5,
    );
}

#[test]
fn several_files_carry_their_track_and_a_window_narrows_the_time_axis() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("two.svg");
    let run = viewer()
        .arg("plot")
        .arg(data("sony_stand_sit.mtn"))
        .arg(data("skitter_sleep_to_sit.mtn"))
        .args(["--channels", "pitch_deg", "--frames", "10..60", "--out"])
        .arg(&svg)
        .output()
        .unwrap();
    ok(&run);
    let plot = Svg::read(&svg);
    assert_eq!((plot.t[0], plot.t[1]), (0.16, 59.0 * 0.016));
    let tracks: Vec<_> = plot.curves.iter().map(|c| c.1.clone().unwrap()).collect();
    assert_eq!(tracks, ["sony_stand_sit", "skitter_sleep_to_sit"]);
    for (_, _, points) in &plot.curves {
        let (t_first, _) = plot.value(points[0]);
        let (t_last, _) = plot.value(*points.last().unwrap());
        assert!(
            t_first >= 0.16 - 1e-6 && t_last <= 0.944 + 1e-6,
            "{t_first}..{t_last}"
        );
    }
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("time (s)") && text.contains("value (°)"));
}

#[test]
fn a_png_plot_is_a_picture_of_the_size_asked() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("plot.png");
    let run = viewer()
        .arg("plot")
        .arg(data("hands.mrtk"))
        .args(["--channels", "right_pinching", "--size", "640x360", "--out"])
        .arg(&png)
        .output()
        .unwrap();
    ok(&run);
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let image = image::load_from_memory(&bytes).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (640, 360));
    // The one curve is drawn in the first colour of the palette (#1f77b4).
    let blue = image
        .pixels()
        .filter(|p| p.0 == [31, 119, 180, 255])
        .count();
    assert!(blue > 300, "{blue} pixels of the curve's colour");
    // Text and axes are set in grey ink: pixels of equal red, green and
    // blue, well darker than the grid.
    let ink = image
        .pixels()
        .filter(|p| p.0[0] == p.0[1] && p.0[1] == p.0[2] && p.0[0] < 160)
        .count();
    assert!(ink > 1500, "{ink}");
}

#[test]
fn bad_plot_requests_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.svg");
    let run = |args: &[&str]| {
        let o = viewer().args(args).output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let mtn = data("sony_stand_sit.mtn").display().to_string();
    let out_s = out.display().to_string();
    let (code, err) = run(&["plot", &mtn, "--channels", "elbow*", "--out", &out_s]);
    assert_eq!(code, Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no channel matches \"elbow*\""), "{err}");
    assert!(err.contains("23 channels: roll_deg, pitch_deg"), "{err}");
    let (code, err) = run(&["plot", &mtn, "--channels", "*", "--out", "x.txt"]);
    assert_eq!(code, Some(1));
    assert!(err.contains(".svg or .png"), "{err}");
    for bad in [
        vec!["--frames", "9..3"],
        vec!["--time-range", "2..1"],
        vec!["--size", "0x10"],
    ] {
        let mut args = vec!["plot", &mtn, "--channels", "*", "--out", &out_s];
        args.extend(bad);
        let (code, err) = run(&args);
        assert_eq!(code, Some(2), "{err}");
    }
    let (code, err) = run(&[
        "plot",
        &mtn,
        "--channels",
        "*",
        "--time-range",
        "10..20",
        "--out",
        &out_s,
    ]);
    assert_eq!(code, Some(1));
    assert!(err.contains("holds none of the motion"), "{err}");
    assert!(!out.exists());
    // An input named like a picture is never written over.
    let input = dir.path().join("motion.svg");
    std::fs::copy(&mtn, &input).unwrap();
    let input = input.display().to_string();
    let (code, err) = run(&["plot", &input, "--channels", "*", "--out", &input]);
    assert_eq!(code, Some(1));
    assert!(err.contains("is one of the input files"), "{err}");
    assert_eq!(std::fs::read(&input).unwrap(), std::fs::read(&mtn).unwrap());
    let (_, err) = run(&[
        "plot",
        &mtn,
        "--channels",
        "*",
        "--size",
        "16000x16000",
        "--out",
        "big.png",
    ]);
    assert!(err.contains("more than the 40000000"), "{err}");
}

#[test]
fn names_from_files_are_escaped_in_the_svg() {
    let dir = tempfile::tempdir().unwrap();
    let weird = ["a<b & \"c\"", "d'e>\u{7}f"];
    let mut files = Vec::new();
    for name in weird {
        let path = dir.path().join(format!("{name}.mtn"));
        std::fs::copy(data("sony_stand_sit.mtn"), &path).unwrap();
        files.push(path);
    }
    let svg = dir.path().join("weird.svg");
    let run = viewer()
        .arg("plot")
        .args(&files)
        .args(["--channels", "yaw_deg", "--out"])
        .arg(&svg)
        .output()
        .unwrap();
    ok(&run);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains(r#"data-track="a&lt;b &amp; &quot;c&quot;""#),
        "{text}"
    );
    assert!(text.contains(r#"data-track="d&apos;e&gt;\x07f""#), "{text}");
    assert!(!text.contains('\u{7}'));
    // An XML reader takes it whole and gives the names back.
    if crate::common::on_path("python3") {
        let script = "import sys, xml.etree.ElementTree as E\n\
                      r = E.parse(sys.argv[1]).getroot()\n\
                      print('|'.join(p.get('data-track') for p in r.iter('{http://www.w3.org/2000/svg}polyline')))";
        let out = Command::new("python3")
            .args(["-c", script])
            .arg(&svg)
            .output()
            .unwrap();
        ok(&out);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "a<b & \"c\"|d'e>\\x07f"
        );
    }
}
