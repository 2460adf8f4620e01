//! The window's state for AIBO work, without a window: an ODA archive opened
//! whole (its first motion on the stage, its entries listed and searchable,
//! another entry picked in its place), archive entries reloaded by
//! `ARCHIVE:NAME`, and `check`'s findings kept with their track.

use crate::anim::timeline::Timeline;
use crate::formats::mtn::{self, Mtn, read_oda};
use crate::open::{DiskMaterials, Input};
use crate::scene::Track;
use crate::session::ViewerState;
use crate::session::viewer::Reload;
use std::path::Path;

const ARCHIVE: &str = "ers7_MOTION7.ODA";

fn archive_bytes() -> Vec<u8> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/data/oda")
        .join(ARCHIVE);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn seed_bytes() -> Vec<u8> {
    let path =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("data/sony_stand_sit.mtn");
    std::fs::read(path).unwrap()
}

fn paused_state() -> ViewerState {
    ViewerState::new(Timeline::new(0.0, 1.0 / 60.0).with_paused(true), 0.0, None)
}

fn motion_of(track: &Track) -> &Mtn {
    match track {
        Track::Mtn { motion, .. } => motion,
        other => panic!("not an AIBO track: {other:?}"),
    }
}

#[test]
fn an_archive_opened_whole_plays_its_first_motion_and_lists_every_entry() {
    let bytes = archive_bytes();
    let entries = read_oda(&bytes).unwrap();
    assert_eq!(entries.len(), 12, "SOURCES.txt: 12 ERS-7 motions");
    let decoded = |i: usize| mtn::decode(&bytes[entries[i].data.clone()]).unwrap();

    let mut state = paused_state();
    let added = state
        .open(&[Input::from_bytes(ARCHIVE, bytes.clone())], &DiskMaterials)
        .unwrap();
    assert_eq!(added, 1);
    assert_eq!(state.tracks().len(), 1);
    let first = &state.tracks()[0];
    assert_eq!(
        first.track.path(),
        Path::new(&format!("{ARCHIVE}:{}", entries[0].name))
    );
    assert_eq!(*motion_of(&first.track), decoded(0));

    let list = &state.archives()[0];
    assert_eq!(state.archives().len(), 1);
    assert_eq!(list.file_name(), ARCHIVE);
    assert_eq!(list.playing(), 0);
    let names: Vec<&str> = list.entries().iter().map(|e| e.name.as_str()).collect();
    let want: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, want);
    for (row, e) in list.entries().iter().zip(&entries) {
        assert_eq!(row.bytes, e.data.len());
        assert_eq!(row.kind, "OMTN");
        assert!(row.mtn.is_some(), "{}", e.name);
    }

    // Search: every word, ignoring case, in the name (or kind, or model).
    let search = |state: &mut ViewerState, query: &str| {
        state.archive_mut(0).unwrap().query = query.into();
        state.archives()[0].matching()
    };
    let greet: Vec<usize> = (0..entries.len())
        .filter(|&i| entries[i].name.to_lowercase().contains("greet"))
        .collect();
    assert!(!greet.is_empty());
    assert_eq!(search(&mut state, "GREET"), greet);
    assert_eq!(search(&mut state, "omtn ers-7").len(), entries.len());
    assert!(search(&mut state, "no-such-motion").is_empty());

    // Picking an entry puts it in the first one's place, from the start,
    // with the track's visibility kept.
    state.toggle_visible(0);
    let generation = state.generation();
    let pick = entries.len() - 1;
    state.play_entry(0, pick).unwrap();
    assert_eq!(state.tracks().len(), 1);
    let now = &state.tracks()[0];
    assert_eq!(
        now.track.path(),
        Path::new(&format!("{ARCHIVE}:{}", entries[pick].name))
    );
    assert_eq!(*motion_of(&now.track), decoded(pick));
    assert!(!now.visible);
    assert_eq!(state.archives()[0].playing(), pick);
    assert!(state.generation() > generation);
    assert_eq!(state.timeline.time_s(), 0.0);
    let longest = decoded(pick).duration_s();
    assert!((state.timeline.duration_s() - longest).abs() < 1e-9);

    // A bad pick changes nothing but the error.
    assert!(state.play_entry(0, entries.len()).is_err());
    assert!(state.error().is_some());
    assert_eq!(state.archives()[0].playing(), pick);
    assert_eq!(state.tracks().len(), 1);
}

#[test]
fn an_archive_entry_reloads_by_archive_and_name() {
    let bytes = archive_bytes();
    let entries = read_oda(&bytes).unwrap();
    let name = entries[1].name.clone();
    let entry_input = |b: Vec<u8>| Input::from_bytes(ARCHIVE, b).with_entry(&name);
    let mut state = paused_state();
    state
        .open(&[entry_input(bytes.clone())], &DiskMaterials)
        .unwrap();
    // One entry named: no list, and the track is known by `ARCHIVE:NAME`.
    assert!(state.archives().is_empty());
    let key = format!("{ARCHIVE}:{name}");
    assert_eq!(state.tracks()[0].sources, [Path::new(&key)]);

    assert_eq!(
        state.reload(&[entry_input(bytes.clone())], &DiskMaterials),
        Reload::Replaced(0)
    );
    // The archive cut short: the last good version stays.
    let cut = bytes[..bytes.len() / 2].to_vec();
    assert!(matches!(
        state.reload(&[entry_input(cut)], &DiskMaterials),
        Reload::Kept(0, _)
    ));
    assert_eq!(
        *motion_of(&state.tracks()[0].track),
        mtn::decode(&bytes[entries[1].data.clone()]).unwrap()
    );
    // Another entry of the same archive is another track.
    assert_eq!(
        state.reload(
            &[Input::from_bytes(ARCHIVE, bytes.clone()).with_entry(&entries[2].name)],
            &DiskMaterials
        ),
        Reload::Unknown
    );
}

#[test]
fn check_findings_stay_with_their_track() {
    let mut state = paused_state();
    // Sony's own stand-to-sit seed passes check.
    state
        .open(
            &[Input::from_bytes("seed.mtn", seed_bytes())],
            &DiskMaterials,
        )
        .unwrap();
    assert!(state.tracks()[0].findings.is_empty());

    // The left front knee (joint 8) at 160°, 13° past the ERS-210's 147°,
    // at keyframe 2: 1.792 s into the motion.
    let mut motion = mtn::decode(&seed_bytes()).unwrap();
    motion.keyframes[2].joints[8] = (160f64.to_radians() * 1e6).round() as i32;
    let crafted = mtn::encode(&motion);
    state
        .open(&[Input::from_bytes("crafted.mtn", crafted)], &DiskMaterials)
        .unwrap();
    let findings = &state.tracks()[1].findings;
    let error = findings.iter().find(|f| f.error).expect("an error");
    assert!((error.time_s - 1.792).abs() < 1e-9, "{}", error.time_s);
    assert!(
        error.text.contains("left_front_j3 is 160.00°"),
        "{}",
        error.text
    );
    assert!(state.tracks()[0].findings.is_empty());
}
