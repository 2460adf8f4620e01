//! Editing an AIBO track inside the viewer's state: which track is edited,
//! the selection following keyframe jumps, the track's motion, keyframes
//! and findings following edits, the revision and generation, the status,
//! and what a save writes.

use crate::anim::timeline::Timeline;
use crate::formats::mtn;
use crate::open::{DiskMaterials, Input};
use crate::scene::Track;
use crate::session::edit::EditStatus;
use crate::session::status::Status;
use crate::session::viewer::ViewerState;
use crate::workbench::EditError;
use std::path::Path;

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The Sony `.mtn` (track 1) between the MEMG flags and the MRTK hands.
fn three() -> ViewerState {
    let mut state = ViewerState::new(Timeline::new(0.0, 1.0 / 60.0).with_paused(true), 0.0, None);
    let inputs: Vec<Input> = [
        "flags.obj",
        "flags.bin",
        "/m/sony_stand_sit.mtn",
        "hands.mrtk",
    ]
    .iter()
    .map(|n| Input::from_bytes(n, data(Path::new(n).file_name().unwrap().to_str().unwrap())))
    .collect();
    state.open(&inputs, &DiskMaterials).unwrap();
    state
}

fn motion(state: &ViewerState, i: usize) -> &mtn::Mtn {
    match &state.tracks()[i].track {
        Track::Mtn { motion, .. } => motion,
        _ => panic!("track {i} is no .mtn"),
    }
}

const LF_J1: &str = "PRM:/r2/c1-Joint2:j1";

#[test]
fn the_edited_track_is_the_focused_aibo_one_or_the_first() {
    let mut state = three();
    assert_eq!(state.edit_track(), Some(1));
    state.set_focus(Some(0));
    assert_eq!(state.edit_track(), None, "the flags are no AIBO motion");
    assert!(matches!(
        state.edit(0, |e| e.delete_key(0)),
        Err(EditError::Refused(_))
    ));
    state.set_focus(Some(1));
    assert_eq!(state.edit_track(), Some(1));
    assert!(state.editor(0).is_none() && state.editor(2).is_none());
}

#[test]
fn keyframe_jumps_select_the_key_at_the_playhead() {
    let mut state = three();
    state.set_focus(Some(1));
    for (jumps, key) in [(1, 1), (2, 2)] {
        state.timeline.seek(0.0);
        for _ in 0..jumps {
            state.jump_keyframe(true);
        }
        state.select_key_at_playhead();
        assert_eq!(state.editor(1).unwrap().selected(), Some(key));
    }
    // Between keyframes the selection stays.
    state.timeline.seek(1.0);
    state.select_key_at_playhead();
    assert_eq!(state.editor(1).unwrap().selected(), Some(2));
}

#[test]
fn an_edit_reaches_the_track_its_findings_and_the_status() {
    let mut state = three();
    let (generation, revision) = (state.generation(), state.revision());
    let before = state.tracks()[1].findings.len();
    // Keyframe 2 one frame after keyframe 1, the knee swung by 60°: too fast
    // for its servo, so `check` finds more than before.
    let knee = "PRM:/r2/c1/c2/c3-Joint2:j3";
    let was = state.editor(1).unwrap().value_deg(1, knee).unwrap();
    state.edit(1, |e| e.set_value(2, knee, was + 60.0)).unwrap();
    state.edit(1, |e| e.move_key(2, 0.99)).unwrap();
    assert!(state.tracks()[1].findings.len() > before);
    // Keyframe 2 is now at frame 62 of 16 ms (0.99 s rounded to a frame).
    assert!((state.tracks()[1].keyframes[2] - 0.992).abs() < 1e-9);
    assert_eq!(motion(&state, 1), state.editor(1).unwrap().motion());
    // Same duration: the stage stays, the revision moves.
    assert_eq!(state.generation(), generation);
    assert_eq!(state.revision(), revision + 2);
    let status = Status::of(&state, "test", 0.0);
    assert_eq!(
        status.edit,
        Some(EditStatus {
            track: 1,
            keyframe: Some(2),
            dirty: true,
            undo_depth: 2,
            typing: false,
        })
    );
    assert_eq!(
        status.edit.unwrap().line(),
        "edit track 1 keyframe 2 dirty true undo_depth 2"
    );
    let json: serde_json::Value =
        serde_json::from_str(&Status::of(&state, "", 0.0).to_json()).unwrap();
    assert_eq!(json["edit"]["undo_depth"], 2);
    assert_eq!(json["edit"]["dirty"], true);
    assert!(state.has_unsaved_edits());
    assert!(state.undo_edit(1) && state.undo_edit(1));
    assert!(!state.undo_edit(1));
    assert_eq!(state.tracks()[1].findings.len(), before);
    assert!(!state.has_unsaved_edits());
    assert!(state.redo_edit(1));
    assert!(state.has_unsaved_edits());
}

#[test]
fn a_longer_motion_places_the_tracks_again() {
    let mut state = ViewerState::new(Timeline::new(0.0, 1.0 / 60.0).with_paused(true), 0.0, None);
    state
        .open(
            &[Input::from_bytes("a.mtn", data("sony_stand_sit.mtn"))],
            &DiskMaterials,
        )
        .unwrap();
    let generation = state.generation();
    assert!((state.timeline.duration_s() - 4.88).abs() < 1e-9);
    state.edit(0, |e| e.move_key(5, 5.2)).unwrap();
    assert_eq!(state.generation(), generation + 1);
    assert!((state.timeline.duration_s() - 5.2).abs() < 1e-9);
}

#[test]
fn a_save_writes_the_edited_bytes_beside_the_original() {
    let mut state = three();
    let original = data("sony_stand_sit.mtn");
    let request = state.save_request(1).unwrap();
    assert_eq!(request.bytes, original, "nothing edited yet");
    assert_eq!(request.suggested, Path::new("/m/sony_stand_sit-edited.mtn"));
    assert_eq!(request.original, Path::new("/m/sony_stand_sit.mtn"));
    state.edit(1, |e| e.set_value(2, LF_J1, 12.5)).unwrap();
    let edited = mtn::decode(&state.save_request(1).unwrap().bytes).unwrap();
    // 12.5° = 218 166.156 µrad.
    let j = edited.joints.iter().position(|j| j == LF_J1).unwrap();
    assert_eq!(edited.keyframes[2].joints[j], 218_166);
    state.mark_saved(1);
    assert!(!state.has_unsaved_edits());
    assert!(!state.edit_status().unwrap().dirty);
    // Undone after the save: unsaved again, and the original's bytes.
    state.undo_edit(1);
    assert!(state.has_unsaved_edits());
    assert_eq!(state.save_request(1).unwrap().bytes, original);
    assert!(state.save_request(0).is_none());
}

#[test]
fn an_archive_entry_is_saved_under_its_name() {
    use crate::session::edit::suggested_path;
    let track = Track::Mtn {
        path: "/a/ers210_MOTION.ODA:a_sit#sit_so0_greet".into(),
        motion: mtn::decode(&data("sony_stand_sit.mtn")).unwrap(),
        entry: Some("a_sit#sit_so0_greet".into()),
    };
    assert_eq!(
        suggested_path(&track),
        Path::new("/a/a_sit#sit_so0_greet-edited.mtn")
    );
}

#[test]
fn a_file_changed_on_disk_does_not_replace_unsaved_edits() {
    use crate::session::viewer::Reload;
    let mut state = three();
    state.edit(1, |e| e.set_value(2, LF_J1, 12.5)).unwrap();
    let generation = state.generation();
    // The file now holds the Skitter example (2 keyframes, 0.64 s).
    let changed = Input::from_bytes("/m/sony_stand_sit.mtn", data("skitter_sleep_to_sit.mtn"));
    let outcome = state.reload(std::slice::from_ref(&changed), &DiskMaterials);
    let Reload::Unsaved(1, message) = outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        message.contains("sony_stand_sit.mtn") && message.contains("unsaved edits"),
        "{message}"
    );
    assert_eq!(state.generation(), generation, "nothing rebuilt");
    // The edit is still there: 12.5° = 218 166 µrad on keyframe 2.
    let j = motion(&state, 1)
        .joints
        .iter()
        .position(|j| j == LF_J1)
        .unwrap();
    assert_eq!(motion(&state, 1).keyframes[2].joints[j], 218_166);
    assert!(state.has_unsaved_edits());
    // Undone, the next change on disk reloads it.
    assert!(state.undo_edit(1));
    let outcome = state.reload(&[changed], &DiskMaterials);
    assert_eq!(outcome, Reload::Replaced(1));
    assert_eq!(motion(&state, 1).keyframes.len(), 2);
}

#[test]
fn undoing_every_edit_saves_the_opened_files_bytes_even_where_they_do_not_re_encode() {
    // The two real files whose declared section sizes lie: our encoder
    // writes them corrected, so only the bytes opened give them back.
    for file in [
        "cartheur-aibo__aibo-lab/sit_lose01.mtn",
        "Doggies-Galore__AIBOMotionWorkbench/KnownGoodERS7.mtn",
    ] {
        let path =
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/mtn")).join(file);
        let bytes = std::fs::read(&path).unwrap();
        assert_ne!(mtn::encode(&mtn::decode(&bytes).unwrap()), bytes, "{file}");
        let mut state =
            ViewerState::new(Timeline::new(0.0, 1.0 / 60.0).with_paused(true), 0.0, None);
        state
            .open(&[Input::from_bytes(&path, bytes.clone())], &DiskMaterials)
            .unwrap();
        assert_eq!(
            state.save_request(0).unwrap().bytes,
            bytes,
            "{file}: unedited"
        );
        let joint = motion(&state, 0).joints[0].clone();
        state.edit(0, |e| e.set_value(0, &joint, 1.0)).unwrap();
        assert_ne!(
            state.save_request(0).unwrap().bytes,
            bytes,
            "{file}: edited"
        );
        assert!(state.undo_edit(0));
        assert_eq!(
            state.save_request(0).unwrap().bytes,
            bytes,
            "{file}: undone"
        );
    }
}
