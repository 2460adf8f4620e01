//! A bag of several files keeps one frame tree per track: the robot each
//! `/trackN/robot_description` describes names its links as that track's
//! `/trackN/tf` and `/trackN/tf_static` name their frames (`trackN/base_link`…),
//! so a reader that builds each robot from its description and moves it by
//! the transforms shows every robot moving. Read by the ROS 2 readers
//! (`mcap` + `mcap-ros2-support`: every link reaches `world` through its
//! own track's transforms, and the rig points land where each file's own
//! `export --time` puts them) and by Rerun (`rerun mcap convert`, the
//! recording read back: each robot's geometry hangs on frames its own
//! track's transforms move).

use crate::common::{data, python, repo, test_data};
use crate::urdf::export;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Two AIBO motions of different models and an MRTK recording.
fn files() -> [PathBuf; 3] {
    [
        data("sony_stand_sit.mtn"),
        test_data("mtn/cartheur-aibo__aibo-lab/a_sit#sit_so0_greet.mtn"),
        data("hands.mrtk"),
    ]
}

/// The bag of the three files, and each AIBO file's state at a few frame
/// times (its own `export --time`, exported alone).
fn bag_and_states(dir: &Path) -> (PathBuf, Vec<(usize, PathBuf)>) {
    let bag = dir.join("three.mcap");
    let files = files();
    let mut args: Vec<&OsStr> = files.iter().map(|f| f.as_os_str()).collect();
    args.extend([OsStr::new("--out"), bag.as_os_str()]);
    export(&args);
    let mut states = Vec::new();
    for (track, file) in files.iter().enumerate().take(2) {
        for frame in [0u32, 40, 150] {
            let out = dir.join(format!("t{track}-{frame}.json"));
            let t = format!("{}", f64::from(frame) * 0.016);
            export(&[
                file.as_os_str(),
                OsStr::new("--time"),
                OsStr::new(&t),
                OsStr::new("--out"),
                out.as_os_str(),
            ]);
            states.push((track + 1, out));
        }
    }
    (bag, states)
}

const ROS2: &str = r#"
import sys, json, math
import xml.etree.ElementTree as ET
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory

bag = sys.argv[1]
with open(bag, "rb") as f:
    reader = make_reader(f, decoder_factories=[DecoderFactory()])
    msgs = [(c.topic, m.log_time, d) for s, c, m, d in reader.iter_decoded_messages()]

def rotate(q, v):
    x, y, z, w = q
    cx = y * v[2] - z * v[1]; cy = z * v[0] - x * v[2]; cz = x * v[1] - y * v[0]
    dx = y * cz - z * cy; dy = z * cx - x * cz; dz = x * cy - y * cx
    return [v[0] + 2 * (w * cx + dx), v[1] + 2 * (w * cy + dy), v[2] + 2 * (w * cz + dz)]

def entry(t):
    r, p = t.transform.rotation, t.transform.translation
    return (t.header.frame_id, [p.x, p.y, p.z], [r.x, r.y, r.z, r.w])

def in_world(frames, name):
    p = [0.0, 0.0, 0.0]
    seen = 0
    while name != "world":
        parent, t, q = frames[name]
        p = rotate(q, p)
        p = [p[0] + t[0], p[1] + t[1], p[2] + t[2]]
        name = parent
        seen += 1
        assert seen < 100, "a loop in the frame tree"
    return p

robots = 0
worst = 0.0
for n in (1, 2):
    ns = f"/track{n}"
    [desc] = [d for t, _, d in msgs if t == ns + "/robot_description"]
    links = [l.get("name") for l in ET.fromstring(desc.data).findall("link")]
    assert links and all(l.startswith(f"track{n}/") for l in links), links
    [static] = [d for t, _, d in msgs if t == ns + "/tf_static"]
    moving = [(when, d) for t, when, d in msgs if t == ns + "/tf"]
    assert len(moving) > 100, len(moving)
    frames = {t.child_frame_id: entry(t) for t in static.transforms}
    for t in moving[0][1].transforms:
        frames[t.child_frame_id] = entry(t)
    # Every link of the description hangs on this track's transforms, and
    # every frame they name is this track's.
    for l in links:
        in_world(frames, l)
    assert all(f.startswith(f"track{n}/") for f in frames), sorted(frames)
    # The rig points where the file's own state puts them.
    for track, path in zip(sys.argv[2::2], sys.argv[3::2]):
        if int(track) != n:
            continue
        [state] = json.load(open(path))
        when = round(state["time_s"] * 1e9)
        [(_, msg)] = [(w, d) for w, d in moving if abs(w - when) < 1000]
        here = dict(frames)
        for t in msg.transforms:
            here[t.child_frame_id] = entry(t)
        for point, p in state["world"].items():
            got = in_world(here, f"track{n}/{point}")
            worst = max(worst, math.dist(got, [x / 1000.0 for x in p]))
    robots += 1
# The MRTK track's frames are its own too.
[hands] = [d for t, _, d in msgs if t == "/track3/tf"][:1]
assert {t.child_frame_id for t in hands.transforms} >= {"track3/camera", "track3/left_hand/IndexTip"}
print(robots, worst)
"#;

#[test]
fn a_bag_of_three_files_keeps_one_frame_tree_per_track_for_the_ros2_readers() {
    let Some(py) = python::readers() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (bag, states) = bag_and_states(dir.path());
    let mut args: Vec<PathBuf> = vec![bag];
    for (track, path) in states {
        args.push(PathBuf::from(track.to_string()));
        args.push(path);
    }
    let argv: Vec<&OsStr> = args.iter().map(|p| p.as_os_str()).collect();
    let text = python::run(&py, ROS2, &argv);
    let mut words = text.split_whitespace();
    assert_eq!(words.next(), Some("2"), "{text}");
    let worst: f64 = words.next().unwrap().parse().unwrap();
    eprintln!("bag of three: worst rig point against each file's export --time {worst:.3e} m");
    assert!(worst < 1e-6, "{text}");
}

/// Reads a Rerun recording back: per robot (the entity the URDF loader
/// makes, `/…aibo_ers…`), the coordinate frames its geometry hangs on; per
/// track's transform topics, the child frames they move, and how many
/// orientations each takes over the motion.
const RERUN: &str = r#"
import sys, collections
import rerun.chunk as rc

robots = collections.defaultdict(set)
children = collections.defaultdict(set)
poses = collections.defaultdict(set)
for chunk in rc.RrdReader(sys.argv[1]).stream():
    path = chunk.entity_path
    batch = chunk.to_record_batch()
    names = batch.schema.names
    if "CoordinateFrame:frame" in names and "aibo_ers" in path.split("/")[1]:
        for row in batch.column("CoordinateFrame:frame").to_pylist():
            robots[path.split("/")[1]].update(row or [])
    if "Transform3D:child_frame" in names:
        track = path.split("/")[1]
        column = lambda c: batch.column(c).to_pylist() if c in names else [None] * batch.num_rows
        for kids, q in zip(column("Transform3D:child_frame"), column("Transform3D:quaternion")):
            for i, frame in enumerate(kids or []):
                children[track].add(frame)
                poses[frame].add(repr(q[i] if q and i < len(q) else q))
for robot in sorted(robots):
    frames = robots[robot]
    tracks = {f.split("/")[0] for f in frames}
    assert len(tracks) == 1, (robot, sorted(frames))
    [track] = tracks
    missing = frames - children[track]
    assert not missing, (robot, sorted(missing))
    # The most orientations one of its frames takes over the motion.
    print(robot, track, len(frames), max(len(poses[f]) for f in frames))
"#;

#[test]
fn a_bag_of_three_files_shows_each_robot_moved_by_its_own_track_in_rerun() {
    let Some(py) = python::readers() else {
        return;
    };
    let rerun = repo(".venv-readers/bin/rerun");
    let dir = tempfile::tempdir().unwrap();
    let (bag, _) = bag_and_states(dir.path());
    let rrd = dir.path().join("three.rrd");
    let out = std::process::Command::new(&rerun)
        .args(["mcap", "convert"])
        .arg(&bag)
        .arg("-o")
        .arg(&rrd)
        .output()
        .expect("run rerun mcap convert (rerun-sdk in tests/requirements.txt)");
    assert!(
        out.status.success(),
        "rerun mcap convert: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = python::run(&py, RERUN, &[rrd.as_os_str()]);
    eprintln!("rerun: {text}");
    let robots: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(robots.len(), 2, "two robots: {text}");
    let mut tracks: Vec<&str> = robots.iter().map(|r| r[1]).collect();
    tracks.sort();
    assert_eq!(tracks, ["track1", "track2"], "{text}");
    for r in &robots {
        let frames: usize = r[2].parse().unwrap();
        let poses: usize = r[3].parse().unwrap();
        // Every link of the rig, and links that turn over the motion.
        assert!(frames > 20, "{text}");
        assert!(poses > 10, "{text}");
    }
}
