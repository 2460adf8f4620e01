//! The window's and the page's simulation: its status, marks and steps.

use super::*;
use crate::anim::timeline::Timeline;
use crate::open::Input;

fn seed_state() -> ViewerState {
    let path = format!(
        "{}/../../data/sony_stand_sit.mtn",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap();
    let mut state = ViewerState::new(Timeline::new(0.0, 1.0 / 60.0), 0.0, None);
    state
        .open(
            &[Input::from_bytes(&path, bytes)],
            &crate::open::DiskMaterials,
        )
        .unwrap();
    state
}

#[test]
fn the_toggle_simulates_the_seed_in_slices_and_says_it_stands() {
    let state = seed_state();
    let mut sims = Simulations::default();
    assert_eq!(sims.status(), None);
    sims.cycle();
    sims.sync(&state);
    assert!(sims.busy());
    let running = sims.status().unwrap();
    assert_eq!(running.tracks[0].state, "running");
    let mut slices = 0;
    while sims.advance(500) {
        slices += 1;
    }
    assert!(slices >= 5, "{slices}");
    let status = sims.status().unwrap();
    let t = &status.tracks[0];
    let Track::Mtn { motion, .. } = &state.tracks()[0].track else {
        unreachable!()
    };
    let whole = crate::physics::simulate(motion, "seed").unwrap();
    assert_eq!(t.state, "done");
    assert_eq!(t.falls, Some(false));
    assert_eq!(t.peak_tilt_deg, Some(whole.verdict.peak_tilt_deg));
    assert_eq!(t.min_body_height_m, Some(whole.verdict.min_body_height_m));
    assert!(
        t.text.starts_with("simulated: stands (peak tilt "),
        "{}",
        t.text
    );
    let lines = status.lines();
    assert!(
        lines[0].starts_with(
            "sim 0 beside done duration_s 4.88 falls false fall_time_s - peak_tilt_deg "
        ),
        "{}",
        lines[0]
    );
    // The dog is drawn: a body box, a head box, its joints.
    let p = sims.primitives(&state, 1.0);
    assert!(p.boxes.len() >= 2 && !p.spheres.is_empty());
    // Unchanged tracks keep their simulation.
    let version = sims.version();
    sims.sync(&state);
    assert_eq!(sims.version(), version);
    assert!(!sims.busy());
}

#[test]
fn a_first_posture_that_does_not_stand_is_said_so_and_marked_at_the_start() {
    // Sony's ERS-110 `ct#741` tips over while it settles, before 0 s.
    let archive = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/oda/ers110_Motion.ODA"
    ))
    .unwrap();
    let entry = crate::formats::mtn::read_oda(&archive)
        .unwrap()
        .into_iter()
        .find(|e| e.name == "ct#741")
        .unwrap();
    let motion = crate::formats::mtn::decode(&archive[entry.data]).unwrap();
    let sim = crate::physics::simulate(&motion, "ct#741").unwrap();
    let marks = marks(&sim);
    let done = Job::Done(Box::new(Done {
        reached: crate::physics::reached_motion(&sim, &motion),
        marks: marks.clone(),
        sim,
    }));
    let status = track_status(0, motion.duration_s(), &done);
    assert_eq!((status.falls, status.fall_time_s), (Some(true), None));
    assert!(
        status
            .text
            .starts_with("simulated: its first posture does not stand (tilt; peak tilt "),
        "{}",
        status.text
    );
    let fall: Vec<_> = marks.iter().filter(|m| m.fall).collect();
    assert_eq!(fall.len(), 1, "{fall:?}");
    assert_eq!((fall[0].t0, fall[0].t1), (0.0, 0.0));
    assert!(fall[0].text.contains("first posture does not stand"));
}

#[test]
fn a_motion_that_cannot_be_simulated_says_why_in_one_line() {
    let state = seed_state();
    let Track::Mtn { motion, .. } = &state.tracks()[0].track else {
        unreachable!()
    };
    let mut short = motion.clone();
    short.keyframes.truncate(1);
    let job = match Stepper::new(&short, "short.mtn") {
        Ok(_) => panic!("a zero-length motion simulated"),
        Err(e) => Job::Failed(e.to_string()),
    };
    let status = track_status(0, 0.0, &job);
    assert_eq!(status.state, "error");
    assert!(
        status.text.starts_with("cannot simulate: "),
        "{}",
        status.text
    );
    assert!(status.text.contains("zero-length"), "{}", status.text);
    assert!(!status.text.contains('\n'));
}
