//! One name per servo, one table per motion, on the whole real corpus (the
//! 588 motions of the four Sony ODA archives, the 27 loose files and the two
//! seeds): every table `export` writes (CSV and JSON) is read back by `mtn
//! from-csv` into a motion that exports to the very same table, and a motion's state, its
//! URDF and its bag's `/joint_states` name one set of servos, `info`'s among
//! them.

use crate::common::workbench::corpus;
use motion_viewer::export::{Options, export};
use motion_viewer::formats::mtn;
use motion_viewer::pose::{At, State, state_at};
use motion_viewer::summary::{Summary, summarize};
use motion_viewer::workbench::{FromTable, from_csv, from_json};
use std::collections::BTreeSet;
use std::path::Path;

/// The one track of a `.mtn` held in memory.
fn track(label: &str, bytes: &[u8]) -> motion_viewer::Track {
    let name = format!("{}.mtn", label.replace(['/', ':', '#'], "_"));
    let mut loaded = motion_viewer::open_bytes(name, bytes.to_vec()).unwrap();
    loaded.tracks.remove(0)
}

/// `mtn from-csv`'s readers of a CSV and a JSON table.
type Reader = fn(
    &[u8],
    &FromTable,
) -> Result<motion_viewer::workbench::Edit, motion_viewer::workbench::CsvError>;

/// The table `export` writes of `track` (CSV or JSON by `out`'s extension).
fn table_of(track: &motion_viewer::Track, out: &Path) -> Vec<u8> {
    export(std::slice::from_ref(track), out, &Options::default()).unwrap();
    std::fs::read(out).unwrap()
}

#[test]
fn every_real_motion_round_trips_through_its_own_table() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (label, bytes) in corpus() {
        let original = track(&label, &bytes);
        let motion_viewer::Track::Mtn { motion, .. } = &original else {
            unreachable!("a .mtn");
        };
        let options = FromTable {
            model: motion
                .model()
                .unwrap_or_else(|| panic!("{label}: a known model")),
            name: motion.name.clone(),
            creator: motion.creator.clone(),
            frame_ms: u16::try_from(motion.frame_ms()).unwrap(),
            every_row: false,
        };
        for (ext, read) in [("csv", from_csv as Reader), ("json", from_json)] {
            let table = table_of(&original, &dir.path().join(format!("a.{ext}")));
            let made = read(&table, &options).unwrap_or_else(|e| panic!("{label}: {e}"));
            let rebuilt = track(&label, &mtn::encode(&made.motion));
            let again = table_of(&rebuilt, &dir.path().join(format!("b.{ext}")));
            assert!(
                table == again,
                "{label}: the rebuilt motion's .{ext} table differs from the original's"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 588 + 27 + 2);
}

/// The names of the moving joints of a URDF (revolute, or continuous where
/// no limit is known), read as XML text.
fn urdf_servos(text: &str) -> BTreeSet<String> {
    text.split("<joint ")
        .skip(1)
        .filter(|j| !j[..j.find('>').unwrap()].contains("type=\"fixed\""))
        .map(|j| {
            let start = j.find("name=\"").unwrap() + 6;
            let end = start + j[start..].find('"').unwrap();
            j[start..end].replace("&quot;", "\"").replace("&amp;", "&")
        })
        .collect()
}

/// The names in the first `/joint_states` message of a bag: CDR
/// (little-endian, 4-byte encapsulation header), `std_msgs/Header` (stamp
/// sec i32, nanosec u32, frame_id string), then `string[] name`.
fn joint_state_names(bag: &[u8]) -> BTreeSet<String> {
    let stream = mcap::MessageStream::new(bag).unwrap();
    for message in stream {
        let message = message.unwrap();
        if message.channel.topic != "/joint_states" {
            continue;
        }
        let d = &message.data[4..];
        let mut at = 0;
        let u32_at = |at: &mut usize| {
            *at = at.next_multiple_of(4);
            let v = u32::from_le_bytes(d[*at..*at + 4].try_into().unwrap());
            *at += 4;
            v
        };
        let string = |at: &mut usize| {
            let len = u32_at(at) as usize;
            let s = String::from_utf8(d[*at..*at + len - 1].to_vec()).unwrap();
            *at += len;
            s
        };
        u32_at(&mut at);
        u32_at(&mut at);
        string(&mut at);
        let count = u32_at(&mut at);
        return (0..count).map(|_| string(&mut at)).collect();
    }
    panic!("no /joint_states message");
}

#[test]
fn every_real_motion_names_one_set_of_servos() {
    let dir = tempfile::tempdir().unwrap();
    let (urdf, bag) = (dir.path().join("m.urdf"), dir.path().join("m.mcap"));
    let one_frame = Options {
        frames: Some((0, 1)),
        ..Options::default()
    };
    let mut misnamed = 0;
    for (label, bytes) in corpus() {
        let track = track(&label, &bytes);
        let State::Mtn(state) = state_at(&track, At::Time(0.0)).unwrap() else {
            unreachable!("a .mtn");
        };
        let posed: BTreeSet<String> = state.joints.iter().map(|j| j.name.clone()).collect();
        assert_eq!(posed.len(), state.joints.len(), "{label}: a name twice");
        export(std::slice::from_ref(&track), &urdf, &Options::default()).unwrap();
        let described = urdf_servos(&std::fs::read_to_string(&urdf).unwrap());
        assert_eq!(posed, described, "{label}: state against URDF");
        export(std::slice::from_ref(&track), &bag, &one_frame).unwrap();
        let stated = joint_state_names(&std::fs::read(&bag).unwrap());
        assert_eq!(posed, stated, "{label}: state against /joint_states");
        let Summary::Mtn(info) = summarize(&track) else {
            unreachable!("a .mtn");
        };
        for joint in &info.joints {
            assert!(
                posed.contains(&joint.name),
                "{label}: info's {}",
                joint.name
            );
            misnamed += usize::from(joint.file_name.is_some());
        }
        // The neutral ones are the model's other servos, and only those.
        let driven = state.joints.iter().filter(|j| !j.neutral).count();
        assert_eq!(driven, info.joints.len(), "{label}");
    }
    // The ERS-110 files that name a servo otherwise than the one it drives
    // (docs/formats.md §1): 15 name the left hind elevator
    // `PRM:/r5/c0/c1/c2-Joint` and the tail pan `PRM:/r1/c0-Joint:j1`, 4 the
    // elevator `PRM:/r5/c0/c2-Joint:j1`.
    assert_eq!(misnamed, 15 * 2 + 4);
}
