//! The ROS 2 bag export read by `mcap` with `mcap-ros2-support` (the
//! readers of Foxglove's own tools): every message decodes against its
//! `ros2msg` schema; `/joint_states` carries the URDF's joints and the CSV
//! export's angles in radians frame by frame; `/tf` (with `/tf_static`)
//! puts every rig point where `export --time` puts it in the world; an MRTK
//! recording's hand joints and camera are the state export's, turned into
//! REP 103's axes.

use crate::common::memg::RawFile;
use crate::common::{data, python};
use crate::urdf::export;
use std::ffi::OsStr;
use std::path::PathBuf;

fn os(s: &str) -> &OsStr {
    s.as_ref()
}

/// Shared by both scripts: the bag's messages, decoded, and a transform
/// chain walker.
const READ: &str = r#"
import sys, math, json, csv
import xml.etree.ElementTree as ET
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory

def read(bag):
    with open(bag, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        assert reader.get_header().profile == "ros2"
        total = reader.get_summary().statistics.message_count
        msgs = [(c.topic, m.log_time, d, c.metadata, s.name, s.encoding, c.message_encoding)
                for s, c, m, d in reader.iter_decoded_messages()]
    assert len(msgs) == total, (len(msgs), total)
    for _, _, _, _, _, enc, menc in msgs:
        assert enc == "ros2msg" and menc == "cdr"
    return msgs

def stamp(h):
    return h.stamp.sec * 1_000_000_000 + h.stamp.nanosec

def rotate(q, v):
    x, y, z, w = q
    # v + 2 w (u × v) + 2 u × (u × v), u = (x, y, z)
    ux, uy, uz = x, y, z
    cx = uy * v[2] - uz * v[1]; cy = uz * v[0] - ux * v[2]; cz = ux * v[1] - uy * v[0]
    dx = uy * cz - uz * cy; dy = uz * cx - ux * cz; dz = ux * cy - uy * cx
    return [v[0] + 2 * (w * cx + dx), v[1] + 2 * (w * cy + dy), v[2] + 2 * (w * cz + dz)]

def in_world(frames, name):
    p = [0.0, 0.0, 0.0]
    while name != "world":
        parent, t, q = frames[name]
        p = rotate(q, p)
        p = [p[0] + t[0], p[1] + t[1], p[2] + t[2]]
        name = parent
    return p

def tf_at(msgs, topic, when):
    best = min((m for m in msgs if m[0] == topic), key=lambda m: abs(m[1] - when))
    assert abs(best[1] - when) < 1000, (best[1], when)
    return best
"#;

const AIBO: &str = r#"
bag, urdf, table, start = sys.argv[1:5]
start = int(start)
msgs = read(bag)
joints = [j.get("name") for j in ET.parse(urdf).getroot().findall("joint") if j.get("type") != "fixed"]
rows = list(csv.DictReader(open(table)))
states = [m for m in msgs if m[0] == "/joint_states"]
assert len(states) == len(rows), (len(states), len(rows))
worst_angle = 0.0
for (topic, log_time, d, meta, schema, _, _), row in zip(states, rows):
    assert schema == "sensor_msgs/msg/JointState"
    assert list(d.name) == joints, (list(d.name), joints)
    when = start + round(float(row["time_s"]) * 1e9)
    assert stamp(d.header) == when == log_time, (stamp(d.header), when, log_time)
    for name, rad in zip(d.name, d.position):
        worst_angle = max(worst_angle, abs(rad - math.radians(float(row[name]))))
[desc] = [m for m in msgs if m[0] == "/robot_description"]
assert desc[2].data == open(urdf).read()
assert "durability: 1" in desc[3]["offered_qos_profiles"]
[static] = [m for m in msgs if m[0] == "/tf_static"]
assert "durability: 1" in static[3]["offered_qos_profiles"]
static_frames = {t.child_frame_id: (t.header.frame_id, [t.transform.translation.x, t.transform.translation.y, t.transform.translation.z],
                 [t.transform.rotation.x, t.transform.rotation.y, t.transform.rotation.z, t.transform.rotation.w]) for t in static[2].transforms}
worst_point = 0.0
for state_path in sys.argv[5:]:
    [state] = json.load(open(state_path))
    msg = tf_at(msgs, "/tf", start + round(state["time_s"] * 1e9))
    frames = dict(static_frames)
    for t in msg[2].transforms:
        assert stamp(t.header) == msg[1]
        frames[t.child_frame_id] = (t.header.frame_id, [t.transform.translation.x, t.transform.translation.y, t.transform.translation.z],
                                    [t.transform.rotation.x, t.transform.rotation.y, t.transform.rotation.z, t.transform.rotation.w])
    for name, p in state["world"].items():
        worst_point = max(worst_point, math.dist(in_world(frames, name), [x / 1000.0 for x in p]))
print(len(msgs), len(states), worst_angle)
print(worst_point)
"#;

#[test]
fn an_aibo_bag_decodes_and_matches_the_csv_and_export_time() {
    let Some(py) = python::readers() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let motion = data("sony_stand_sit.mtn");
    let at = |name: &str| dir.path().join(name);
    let (bag, urdf, table) = (at("run.mcap"), at("dog.urdf"), at("rows.csv"));
    // 2023-11-14T22:13:20.25Z: an epoch with nanoseconds.
    export(&[
        motion.as_os_str(),
        os("--out"),
        bag.as_os_str(),
        os("--start-time"),
        os("1700000000.25"),
    ]);
    export(&[motion.as_os_str(), os("--out"), urdf.as_os_str()]);
    export(&[motion.as_os_str(), os("--out"), table.as_os_str()]);
    let mut args: Vec<PathBuf> = vec![bag, urdf, table, PathBuf::from("1700000000250000000")];
    // Frame times of the motion's 16 ms frames.
    for (k, frame) in [0u32, 17, 60, 150, 304].iter().enumerate() {
        let state = at(&format!("s{k}.json"));
        let t = format!("{}", f64::from(*frame) * 0.016);
        export(&[
            motion.as_os_str(),
            os("--time"),
            os(&t),
            os("--out"),
            state.as_os_str(),
        ]);
        args.push(state);
    }
    let script = format!("{READ}{AIBO}");
    let argv: Vec<&OsStr> = args.iter().map(|p| p.as_os_str()).collect();
    let text = python::run(&py, &script, &argv);
    let mut lines = text.lines();
    let head: Vec<f64> = lines
        .next()
        .unwrap()
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    let point: f64 = lines.next().unwrap().parse().unwrap();
    eprintln!(
        "mcap: {} messages, {} joint states; worst angle vs CSV {:.3e} rad, worst /tf point vs export --time {point:.3e} m",
        head[0], head[1], head[2]
    );
    // 4.880 s of 16 ms frames: 306 rows.
    assert_eq!(head[1], 306.0, "{text}");
    // The CSV holds degrees with full precision: radians differ by rounding only.
    assert!(head[2] < 1e-12, "{text}");
    assert!(point < 1e-6, "{text}");
}

const MRTK: &str = r#"
bag, start = sys.argv[1:3]
start = int(start)
msgs = read(bag)
import struct
def f32(x):
    # The state export writes f32 values in their shortest form: read them back as the f32s they are.
    return struct.unpack("f", struct.pack("f", x))[0]
def p_ros(p):
    p = [f32(x) for x in p]
    return [p[2], -p[0], p[1]]
def matrix(q):
    x, y, z, w = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
# Unity → REP 103 as a matrix: rows map (x, y, z) to (z, -x, y).
P = [[0, 0, 1], [-1, 0, 0], [0, 1, 0]]
def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
def transpose(a):
    return [list(r) for r in zip(*a)]
worst_p = worst_r = 0.0
checked = 0
for state_path in sys.argv[3:]:
    [state] = json.load(open(state_path))
    when = start + round(state["time_s"] * 1e9)
    msg = tf_at(msgs, "/tf", when)
    frames = {t.child_frame_id: t for t in msg[2].transforms}
    poses = [("camera", state["camera"])]
    for side in ("left", "right"):
        hand = state["hands"][side]
        poses += [(f"{side}_hand/{j['name']}", j) for j in hand["joints"]]
        for what in ("tracked", "pinching"):
            b = tf_at(msgs, f"/{side}_hand/{what}", when)
            assert b[2].data == hand[what], (side, what)
    for name, pose in poses:
        t = frames[name]
        assert t.header.frame_id == "world"
        got_p = [t.transform.translation.x, t.transform.translation.y, t.transform.translation.z]
        worst_p = max(worst_p, math.dist(got_p, p_ros(pose["position"])))
        r = t.transform.rotation
        got = matrix([r.x, r.y, r.z, r.w])
        want = mul(mul(P, matrix([f32(x) for x in pose["rotation"]])), transpose(P))
        worst_r = max(worst_r, max(abs(got[i][j] - want[i][j]) for i in range(3) for j in range(3)))
        checked += 1
print(checked, worst_p, worst_r)
"#;

#[test]
fn an_mrtk_bag_holds_the_state_exports_hand_joints() {
    let Some(py) = python::readers() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let rec = data("hands.mrtk");
    let bag = dir.path().join("hands.mcap");
    export(&[rec.as_os_str(), os("--out"), bag.as_os_str()]);
    let mut args: Vec<PathBuf> = vec![bag, PathBuf::from("0")];
    for (k, frame) in [0u32, 45, 100, 200].iter().enumerate() {
        let state = dir.path().join(format!("h{k}.json"));
        let t = format!("{}", f64::from(*frame) / 60.0);
        export(&[
            rec.as_os_str(),
            os("--time"),
            os(&t),
            os("--out"),
            state.as_os_str(),
        ]);
        args.push(state);
    }
    let script = format!("{READ}{MRTK}");
    let argv: Vec<&OsStr> = args.iter().map(|p| p.as_os_str()).collect();
    let text = python::run(&py, &script, &argv);
    let v: Vec<f64> = text.trim().split(' ').map(|x| x.parse().unwrap()).collect();
    eprintln!(
        "mcap MRTK: {} poses at 4 times; worst position {:.3e} m, worst rotation matrix element {:.3e}",
        v[0], v[1], v[2]
    );
    // Camera and 2 × 27 joints at 4 times.
    assert_eq!(v[0], 4.0 * 55.0, "{text}");
    assert!(v[1] < 1e-12 && v[2] < 1e-12, "{text}");
}

#[test]
fn a_memg_bags_local_frames_are_the_files() {
    let Some(py) = python::readers() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("flags.mcap");
    let bin = data("flags.bin");
    export(&[
        data("flags.obj").as_os_str(),
        bin.as_os_str(),
        os("--out"),
        bag.as_os_str(),
    ]);
    // Every local frame at every timestep: translation and rotation matrix.
    let script = format!(
        "{READ}{}",
        r#"
msgs = read(sys.argv[1])
assert {m[0] for m in msgs} == {"/tf"}
def matrix(q):
    x, y, z, w = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
for step, m in enumerate(msgs):
    for t in m[2].transforms:
        k = int(t.child_frame_id.rsplit("_", 1)[1])
        tr, r = t.transform.translation, t.transform.rotation
        rows = matrix([r.x, r.y, r.z, r.w])
        print(step, k, tr.x, tr.y, tr.z, *[x for row in rows for x in row])
"#
    );
    let text = python::run(&py, &script, &[bag.as_os_str()]);
    let raw = RawFile::parse(&std::fs::read(&bin).unwrap());
    let (mut worst_t, mut worst_r, mut count) = (0f64, 0f64, 0);
    for line in text.lines() {
        let v: Vec<f64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        let (step, k) = (v[0] as usize, v[1] as usize);
        let m = raw.frames[step * raw.k as usize + k];
        for (a, i) in [3, 7, 11].iter().enumerate() {
            worst_t = worst_t.max((v[2 + a] - m[*i]).abs());
        }
        for r in 0..3 {
            for c in 0..3 {
                worst_r = worst_r.max((v[5 + 3 * r + c] - m[4 * r + c]).abs());
            }
        }
        count += 1;
    }
    eprintln!(
        "mcap MEMG: {count} frame poses; worst translation {worst_t:.3e}, worst rotation element {worst_r:.3e}"
    );
    assert_eq!(count, raw.n as usize * raw.k as usize);
    assert!(worst_t == 0.0 && worst_r < 1e-6, "{worst_t} {worst_r}");
}
