//! Issue 45, cause 7: an MRTK marker at 10³⁰ s, a time no stamp of a ROS 2
//! bag holds. The MCAP export leaves that one marker out with one warning
//! and writes the rest (read back by the `mcap` crate); the other exports
//! of the same recording are not upset by it.

use crate::app::viewer;
use crate::common::data;
use motion_viewer::formats::input_animation::{self as ia, InputAnimation, Marker};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `data/hands.mrtk` (markers "wave" and "pinch") decoded, a copy of it at
/// `dir/plain/hands.mrtk`, and the same recording with a third marker,
/// "far", at 10³⁰ s at `dir/far/hands.mrtk` (one name: the exports name
/// their prims and rows after the file).
fn recordings(dir: &Path) -> (InputAnimation, PathBuf, PathBuf) {
    let bytes = std::fs::read(data("hands.mrtk")).unwrap();
    let recording = ia::decode(&bytes).unwrap();
    let mut far = recording.clone();
    far.markers.push(Marker {
        time: 1e30,
        name: "far".into(),
    });
    let at = |sub: &str, bytes: &[u8]| {
        std::fs::create_dir(dir.join(sub)).unwrap();
        let path = dir.join(sub).join("hands.mrtk");
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let plain = at("plain", &bytes);
    let far = at("far", &ia::encode(&far, (1, 1)).unwrap());
    (recording, plain, far)
}

/// `viewer export input --out out`: its exit status and stderr.
fn export(input: &Path, out: &Path, more: &[&str]) -> (Option<i32>, String) {
    let o = viewer()
        .arg("export")
        .arg(input)
        .arg("--out")
        .arg(out)
        .args(more)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Every message of the bag at `path`, read by the `mcap` crate, by topic:
/// log time and payload.
fn messages(path: &Path) -> BTreeMap<String, Vec<(u64, Vec<u8>)>> {
    let bytes = std::fs::read(path).unwrap();
    let mut topics: BTreeMap<String, Vec<(u64, Vec<u8>)>> = BTreeMap::new();
    for message in mcap::MessageStream::new(&bytes).unwrap() {
        let message = message.unwrap();
        topics
            .entry(message.channel.topic.clone())
            .or_default()
            .push((message.log_time, message.data.into_owned()));
    }
    topics
}

/// The text of a `std_msgs/msg/String` in CDR: a 4-byte encapsulation
/// header, the length (with the NUL) as a little-endian `u32`, the bytes.
fn cdr_string(data: &[u8]) -> String {
    let len = u32::from_le_bytes(data[4..8].try_into().unwrap()) as usize;
    String::from_utf8(data[8..8 + len - 1].to_vec()).unwrap()
}

#[test]
fn a_marker_no_stamp_holds_is_left_out_of_the_bag_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (recording, plain, far) = recordings(dir.path());
    let bag = dir.path().join("far.mcap");
    let (code, err) = export(&far, &bag, &[]);
    assert_eq!(code, Some(0), "{err}");
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("viewer: warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{err}");
    let w = warnings[0];
    assert!(w.starts_with("viewer: warning: "), "{w}");
    assert!(
        w.contains("hands.mrtk: the marker \"far\" at 1e30 s"),
        "{w}"
    );
    assert!(w.contains("left out of the bag"), "{w}");

    let topics = messages(&bag);
    // The markers kept, each at its own time: log time = t × 10⁹ ns.
    let markers: Vec<(u64, String)> = topics["/markers"]
        .iter()
        .map(|(t, d)| (*t, cdr_string(d)))
        .collect();
    let want: Vec<(u64, String)> = recording
        .markers
        .iter()
        .map(|m| ((f64::from(m.time) * 1e9).round() as u64, m.name.clone()))
        .collect();
    assert_eq!(want.len(), 2);
    assert_eq!(markers, want);
    // Every other message is the one the recording without "far" gives.
    let reference = dir.path().join("plain.mcap");
    let (code, err) = export(&plain, &reference, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(topics, messages(&reference));
}

#[test]
fn the_other_exports_are_not_upset_by_a_marker_at_1e30_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let (_, plain, far) = recordings(dir.path());
    // No marker in these: the same bytes as without it, and no warning.
    for (name, more) in [
        ("x.json", vec!["--time", "1"]),
        ("x.json", vec![]),
        ("x.csv", vec![]),
        ("x.usda", vec![]),
    ] {
        let out = |sub: &str| dir.path().join(sub).join(name);
        let (code, err) = export(&far, &out("far"), &more);
        assert_eq!(code, Some(0), "{name} {more:?}: {err}");
        assert!(!err.contains("warning"), "{name} {more:?}: {err}");
        let (code, err) = export(&plain, &out("plain"), &more);
        assert_eq!(code, Some(0), "{name} {more:?}: {err}");
        let far_text = std::fs::read_to_string(out("far")).unwrap();
        let plain_text = std::fs::read_to_string(out("plain")).unwrap();
        // Paths named in the output differ in their folder only.
        let far_text = far_text.replace("/far/", "/plain/");
        assert!(far_text == plain_text, "{name} {more:?}: not the same");
    }
    // glTF keeps the markers in the node's extras, the far one too (JSON
    // holds 1e30); its animation still ends with the recording, at 4 s.
    let out = dir.path().join("far.gltf");
    let (code, err) = export(&far, &out, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("warning"), "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let extras = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|n| n["extras"]["markers"].as_array())
        .expect("the markers in a node's extras");
    let times: Vec<(f64, &str)> = extras
        .iter()
        .map(|m| (m["time"].as_f64().unwrap(), m["name"].as_str().unwrap()))
        .collect();
    assert_eq!(times.len(), 3);
    assert_eq!(times[2].1, "far");
    assert_eq!(times[2].0 as f32, 1e30);
    let latest = doc["animations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| a["samplers"].as_array().unwrap())
        .map(|s| {
            doc["accessors"][s["input"].as_u64().unwrap() as usize]["max"][0]
                .as_f64()
                .unwrap()
        })
        .fold(0.0, f64::max);
    assert!((latest - 4.0).abs() < 0.02, "{latest}");
}
