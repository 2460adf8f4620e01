//! The window's state without a window: visibility, solo and focus, the loop
//! range, keyframe jumps on each format, the fit layout's scale factors, and
//! reloading (time kept; a bad file leaves the last good version).

use crate::anim::timeline::{LoopMode, Timeline};
use crate::open::{DiskMaterials, Input};
use crate::scene::Layout;
use crate::scene::layout::{Footprint, Grounding, scales};
use crate::session::status::Status;
use crate::session::viewer::Reload;
use crate::session::viewer::ViewerState;
use crate::summary::Summary;
use std::path::Path;
use std::sync::Arc;

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn input(name: &str) -> Input {
    Input::from_bytes(name, data(name))
}

fn paused_state(layout: Option<Layout>) -> ViewerState {
    ViewerState::new(
        Timeline::new(0.0, 1.0 / 60.0).with_paused(true),
        0.0,
        layout,
    )
}

/// flags (MEMG), the Sony stand-to-sit `.mtn` and the MRTK hands, in that order.
fn three_samples() -> ViewerState {
    let mut state = paused_state(None);
    let inputs = [
        input("flags.obj"),
        input("flags.bin"),
        input("sony_stand_sit.mtn"),
        input("hands.mrtk"),
    ];
    let added = state
        .open(&inputs, &DiskMaterials)
        .expect("the samples load");
    assert_eq!(added, 3);
    state
}

#[track_caller]
fn assert_close(a: f64, b: f64, tolerance: f64) {
    assert!((a - b).abs() <= tolerance, "{a} vs {b}");
}

#[test]
fn tracks_keep_their_order_names_and_formats() {
    let state = three_samples();
    let names: Vec<String> = state.tracks().iter().map(|e| e.name()).collect();
    assert_eq!(names, ["flags.bin", "sony_stand_sit.mtn", "hands.mrtk"]);
    assert_eq!(
        state.tracks()[0].sources,
        [Path::new("flags.obj"), Path::new("flags.bin")]
    );
    assert!(matches!(state.tracks()[1].summary, Summary::Mtn(_)));
    // The longest track sets the clock: 240 timesteps at 30 fps end at 239/30 s.
    assert_close(state.timeline.duration_s(), 239.0 / 30.0, 1e-9);
    assert_eq!(
        Status::of(&state, "", 0.0).line(),
        "frame 0/240 time 0.000000 tracks 3 shown 3 focus - curves -"
    );
}

#[test]
fn visibility_solo_and_focus() {
    let mut state = three_samples();
    assert!((0..3).all(|i| state.is_shown(i)));
    state.toggle_visible(1);
    assert!(!state.is_shown(1) && state.is_shown(0) && state.is_shown(2));
    assert!(
        Status::of(&state, "", 0.0)
            .line()
            .ends_with("tracks 3 shown 2 focus - curves -")
    );

    // Solo shows one track alone, even a hidden one, and gives the rest back.
    state.toggle_solo(1);
    assert_eq!(
        (0..3).map(|i| state.is_shown(i)).collect::<Vec<_>>(),
        [false, true, false]
    );
    state.toggle_solo(1);
    assert!(!state.is_shown(1) && state.is_shown(0));
    state.toggle_visible(1);

    // Focus frames one track's box over its whole motion; none frames all.
    assert_eq!(state.focus(), None);
    assert_eq!(state.framing(), state.plan().bounds);
    state.cycle_focus(1);
    assert_eq!(state.focus(), Some(0));
    let p = &state.plan().placements[0];
    assert_eq!(state.framing(), (p.min, p.max));
    state.cycle_focus(-1);
    assert_eq!(state.focus(), Some(2), "previous wraps to the last track");
    state.cycle_focus(1);
    assert_eq!(state.focus(), Some(0));
    state.set_focus(Some(7));
    assert_eq!(state.focus(), None, "no such track");
}

#[test]
fn keyframe_jumps_follow_each_format() {
    let mut state = three_samples();

    // .mtn: the Sony example's keyframes at frames 0, 61, 112, 153, 204, 305 of 16 ms.
    state.set_focus(Some(1));
    let mtn = [0.0, 0.976, 1.792, 2.448, 3.264, 4.88];
    for &t in &mtn[1..] {
        state.jump_keyframe(true);
        assert_close(state.timeline.time_s(), t, 1e-9);
    }
    state.jump_keyframe(true);
    assert_close(state.timeline.time_s(), 4.88, 1e-9); // no keyframe after the last
    state.timeline.seek(2.0);
    state.jump_keyframe(false);
    assert_close(state.timeline.time_s(), 1.792, 1e-9);

    // MEMG: every timestep is a stored sample; the flags run at 30 fps.
    state.set_focus(Some(0));
    state.timeline.seek(1.0);
    state.jump_keyframe(true);
    assert_close(state.timeline.time_s(), 31.0 / 30.0, 1e-9);
    state.jump_keyframe(false);
    state.jump_keyframe(false);
    assert_close(state.timeline.time_s(), 29.0 / 30.0, 1e-9);

    // MRTK: the sample's curves have keys at 60 Hz from 0 to 4 s.
    state.set_focus(Some(2));
    let keys = &state.tracks()[2].keyframes;
    assert_close(keys[0], 0.0, 1e-9);
    assert_close(*keys.last().unwrap(), 4.0, 1e-6);
    assert_eq!(keys.len(), 241);
    state.timeline.seek(1.0);
    state.jump_keyframe(true);
    assert_close(state.timeline.time_s(), 61.0 / 60.0, 1e-6);
    // Its markers ride along for the bar.
    let markers: Vec<(f64, &str)> = state.tracks()[2]
        .markers
        .iter()
        .map(|(t, n)| (*t, n.as_str()))
        .collect();
    assert_eq!(markers, [(1.3, "wave"), (2.6, "pinch")]);

    // Without a focus, the shown tracks' keyframes merged: from 0.98 s the
    // next is the MRTK key at 59/60 s, before the MEMG timestep at 1 s…
    state.set_focus(None);
    state.timeline.seek(0.98);
    state.jump_keyframe(true);
    assert_close(state.timeline.time_s(), 59.0 / 60.0, 1e-6);
    // …without the hands, that timestep…
    state.toggle_visible(2);
    state.timeline.seek(0.98);
    state.jump_keyframe(true);
    assert_close(state.timeline.time_s(), 1.0, 1e-9);
    // …and with the flags hidden too, the .mtn keyframe at 0.976 s.
    state.toggle_visible(0);
    state.timeline.seek(0.95);
    state.jump_keyframe(true);
    assert_close(state.timeline.time_s(), 0.976, 1e-9);
}

#[test]
fn loop_range_wraps_bounces_and_stops() {
    let mut state = three_samples();
    state.timeline.set_loop_mode(LoopMode::Loop);
    // Either order; the time moves into the range.
    state.set_loop_range(2.0, 1.0);
    assert_eq!(state.loop_range(), Some((1.0, 2.0)));
    assert_close(state.timeline.time_s(), 1.0, 0.0);
    state.toggle_play();
    state.timeline.seek(1.5);
    state.advance(0.7);
    assert_close(state.timeline.time_s(), 1.2, 1e-9);
    // A huge step costs nothing and stays inside: 1.2 + 100.25 = 101.45 → 1.45.
    state.advance(100.25);
    assert_close(state.timeline.time_s(), 1.45, 1e-9);

    state.timeline.set_loop_mode(LoopMode::PingPong);
    state.timeline.seek(1.5);
    state.advance(0.7); // to 2.0, then back 0.2
    assert_close(state.timeline.time_s(), 1.8, 1e-9);
    assert!(state.timeline.speed() < 0.0, "bounced");
    state.advance(1.0); // down to 1.0, then up 0.2
    assert_close(state.timeline.time_s(), 1.2, 1e-9);
    assert!(state.timeline.speed() > 0.0);

    state.timeline.set_loop_mode(LoopMode::Once);
    state.advance(5.0);
    assert_close(state.timeline.time_s(), 2.0, 0.0);
    assert!(
        !state.timeline.is_playing(),
        "Once stops at the range's end"
    );
    // Play again starts the range over.
    state.toggle_play();
    assert_close(state.timeline.time_s(), 1.0, 0.0);

    // Outside the timeline it is clamped; shorter than a frame it is no range.
    state.set_loop_range(7.0, 20.0);
    assert_eq!(state.loop_range(), Some((7.0, 239.0 / 30.0)));
    state.set_loop_range(3.0, 3.0 + 1e-6);
    assert_eq!(state.loop_range(), None);
    state.set_loop_range(1.0, 2.0);
    state.clear_loop_range();
    assert_eq!(state.loop_range(), None);
    state.timeline.set_loop_mode(LoopMode::Loop);
    state.timeline.seek(7.0);
    state.advance(0.5);
    assert_close(state.timeline.time_s(), 7.5, 1e-9);
}

#[test]
fn fit_scales_every_track_to_the_largest() {
    let boxes = [
        (2.0, Grounding::Rest),
        (0.5, Grounding::Keep),
        (0.1, Grounding::Keep),
    ];
    let footprints: Vec<Footprint> = boxes
        .iter()
        .map(|&(side, grounding)| Footprint {
            min: glam::Vec3::ZERO,
            max: glam::Vec3::new(side, side / 2.0, side / 4.0),
            grounding,
        })
        .collect();
    let fit = scales(&footprints, Layout::Fit);
    for (s, want) in fit.iter().zip([1.0, 4.0, 20.0]) {
        assert!((s - want).abs() < 1e-5, "{fit:?}");
    }
    assert_eq!(scales(&footprints, Layout::TrueScale), [1.0; 3]);
    // Nothing drawn: no scale to infinity.
    let empty = Footprint {
        max: glam::Vec3::ZERO,
        ..footprints[0]
    };
    assert_eq!(scales(&[footprints[0], empty], Layout::Fit), [1.0, 1.0]);

    // Mixed formats default to fit: every placed box's longest side is the largest's.
    let state = three_samples();
    assert_eq!(state.layout(), Layout::Fit);
    let sides: Vec<f32> = state
        .plan()
        .placements
        .iter()
        .map(|p| (p.max - p.min).max_element())
        .collect();
    let largest = sides.iter().copied().fold(0.0, f32::max);
    for side in &sides {
        assert!((side - largest).abs() <= 1e-4 * largest, "{sides:?}");
    }
    let unit: Vec<f32> = state.plan().placements.iter().map(|p| p.scale).collect();
    assert!(unit.contains(&1.0), "the largest keeps its size: {unit:?}");
    // The floating MRTK recording is set down on the ground.
    let hands = &state.plan().placements[2];
    assert!(hands.min.y.abs() < 1e-4, "{hands:?}");

    // One format alone stays at true scale; asked for, true scale it is.
    let mut one = paused_state(None);
    one.open(
        &[
            input("sony_stand_sit.mtn"),
            input("skitter_sleep_to_sit.mtn"),
        ],
        &DiskMaterials,
    )
    .unwrap();
    assert_eq!(one.layout(), Layout::TrueScale);
    let mut asked = paused_state(Some(Layout::TrueScale));
    asked
        .open(
            &[input("sony_stand_sit.mtn"), input("hands.mrtk")],
            &DiskMaterials,
        )
        .unwrap();
    assert!(asked.plan().placements.iter().all(|p| p.scale == 1.0));
    let generation = asked.generation();
    asked.set_layout(Layout::Fit);
    assert_eq!(asked.layout(), Layout::Fit);
    assert!(asked.generation() > generation, "the stage must be rebuilt");
}

#[test]
fn reload_keeps_the_time_and_a_bad_file_keeps_the_last_good_version() {
    let mut state = paused_state(None);
    let name = "motion.mtn";
    state
        .open(
            &[Input::from_bytes(name, data("sony_stand_sit.mtn"))],
            &DiskMaterials,
        )
        .unwrap();
    state.timeline.seek(0.5);
    let generation = state.generation();

    // The file now holds the Skitter example (0.64 s long): shown, time kept.
    let skitter = data("skitter_sleep_to_sit.mtn");
    let outcome = state.reload(&[Input::from_bytes(name, skitter.clone())], &DiskMaterials);
    assert_eq!(outcome, Reload::Replaced(0));
    assert_close(state.timeline.time_s(), 0.5, 0.0);
    assert_close(state.timeline.duration_s(), 0.64, 1e-9);
    assert!(state.generation() > generation);
    let Summary::Mtn(m) = &state.tracks()[0].summary else {
        panic!("not an .mtn")
    };
    assert_eq!(m.keyframes, 2);

    // Cut short: an error naming the file, and the Skitter version stays.
    let generation = state.generation();
    let cut = skitter[..skitter.len() / 2].to_vec();
    let outcome = state.reload(&[Input::from_bytes(name, cut)], &DiskMaterials);
    let Reload::Kept(0, message) = outcome else {
        panic!("{outcome:?}")
    };
    assert!(message.contains(name), "{message}");
    assert_eq!(state.error(), Some(message.as_str()));
    assert_eq!(state.tracks()[0].error.as_deref(), Some(message.as_str()));
    assert_eq!(state.generation(), generation, "nothing to rebuild");
    assert_close(state.timeline.duration_s(), 0.64, 1e-9);
    assert_close(state.timeline.time_s(), 0.5, 0.0);

    // A good version again clears the error.
    let outcome = state.reload(
        &[Input::from_bytes(name, data("sony_stand_sit.mtn"))],
        &DiskMaterials,
    );
    assert_eq!(outcome, Reload::Replaced(0));
    assert_eq!(state.error(), None);
    assert_eq!(state.tracks()[0].error, None);

    // Files that make no track here are not a reload.
    let other = state.reload(&[input("hands.mrtk")], &DiskMaterials);
    assert_eq!(other, Reload::Unknown);
}

#[test]
fn a_bad_file_opened_changes_nothing_but_the_error() {
    let mut state = three_samples();
    state.timeline.seek(1.0);
    let e = state
        .open(
            &[Input::from_bytes(
                "junk.bin",
                b"not a motion at all".to_vec(),
            )],
            &DiskMaterials,
        )
        .unwrap_err();
    assert!(e.to_string().contains("junk.bin"), "{e}");
    assert_eq!(state.tracks().len(), 3);
    assert_close(state.timeline.time_s(), 1.0, 0.0);
    assert!(state.error().unwrap().contains("junk.bin"));
    // A lone motion without its scene is refused the same way.
    let e = state
        .open(&[input("flags.bin")], &DiskMaterials)
        .unwrap_err();
    assert!(e.to_string().contains("needs its .obj"), "{e}");
    // Opening the same files again replaces the track rather than adding one.
    state.toggle_visible(1);
    assert_eq!(
        state
            .open(&[input("sony_stand_sit.mtn")], &DiskMaterials)
            .unwrap(),
        1
    );
    assert_eq!(state.tracks().len(), 3);
    assert!(!state.tracks()[1].visible, "its visibility is kept");
}

#[test]
fn start_time_applies_once_the_first_tracks_arrive() {
    let mut state = ViewerState::new(Timeline::new(0.0, 1.0 / 60.0).with_paused(true), 2.5, None);
    assert_eq!(state.timeline.time_s(), 0.0);
    state
        .open(&[input("sony_stand_sit.mtn")], &DiskMaterials)
        .unwrap();
    assert_close(state.timeline.time_s(), 2.5, 0.0);
}

/// The MEMG scene and motion and the MRTK recording behind a track.
fn shared_parts(state: &ViewerState) -> (*const u8, *const u8, *const u8) {
    use crate::Track;
    let tracks = state.tracks();
    let Track::Memg { scene, motion, .. } = &tracks[0].track else {
        panic!("flags first");
    };
    let Track::InputAnimation { recording, .. } = &tracks[2].track else {
        panic!("hands third");
    };
    (
        Arc::as_ptr(scene).cast(),
        Arc::as_ptr(motion).cast(),
        Arc::as_ptr(recording).cast(),
    )
}

#[test]
fn layout_switches_edits_and_the_stage_share_one_copy_of_each_motion() {
    let mut state = three_samples();
    let opened = shared_parts(&state);
    let generation = state.generation();
    state.set_layout(Layout::Fit);
    state.set_layout(Layout::TrueScale);
    // Deleting the first keyframe shortens the AIBO motion: every track is placed again.
    state.edit(1, |e| e.delete_key(0)).unwrap();
    assert_eq!(state.generation(), generation + 3);
    assert_eq!(
        shared_parts(&state),
        opened,
        "a basis or recording was copied"
    );
    // What the stage is built from is the same data, not a copy of it.
    let decoded = state.decoded();
    let crate::Track::Memg { motion, .. } = &decoded[0] else {
        panic!("flags first");
    };
    assert_eq!(Arc::as_ptr(motion).cast(), opened.1);
    // The plan the stage is given is the one placed for these tracks.
    assert_eq!(
        *state.plan(),
        crate::scene::Plan::with_layout(&decoded, Layout::TrueScale).unwrap()
    );
}
