//! The shared playback timeline: every transport, speed, loop and frame rule.

use crate::anim::timeline::{LoopMode, MAX_DURATION_S, MAX_SPEED, MIN_SPEED, Timeline};

const FPS30: f64 = 1.0 / 30.0;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[track_caller]
fn assert_time(tl: &Timeline, expected: f64) {
    assert!(
        close(tl.time_s(), expected),
        "time {} != expected {expected}",
        tl.time_s()
    );
}

#[test]
fn new_starts_at_zero_playing_forward_once() {
    let tl = Timeline::new(2.0, FPS30);
    assert_eq!(tl.time_s(), 0.0);
    assert_eq!(tl.duration_s(), 2.0);
    assert_eq!(tl.frame_period_s(), FPS30);
    assert_eq!(tl.speed(), 1.0);
    assert!(tl.is_playing());
    assert_eq!(tl.loop_mode(), LoopMode::Once);
}

#[test]
fn advance_scales_by_speed() {
    let mut tl = Timeline::new(2.0, FPS30);
    tl.advance(0.25);
    assert_time(&tl, 0.25);
    tl.set_speed(2.0).unwrap();
    tl.advance(0.25);
    assert_time(&tl, 0.75);
}

#[test]
fn paused_timeline_does_not_move() {
    let mut tl = Timeline::new(2.0, FPS30).with_paused(true);
    assert!(!tl.is_playing());
    tl.advance(1.0);
    assert_eq!(tl.time_s(), 0.0);
}

#[test]
fn negative_and_non_finite_deltas_are_ignored() {
    let mut tl = Timeline::new(2.0, FPS30).with_start(1.0);
    tl.advance(-0.5);
    tl.advance(f64::NAN);
    tl.advance(f64::INFINITY);
    assert_eq!(tl.time_s(), 1.0);
}

#[test]
fn play_pause_toggle() {
    let mut tl = Timeline::new(2.0, FPS30);
    tl.pause();
    assert!(!tl.is_playing());
    tl.toggle();
    assert!(tl.is_playing());
    tl.toggle();
    assert!(!tl.is_playing());
    tl.play();
    assert!(tl.is_playing());
}

#[test]
fn once_stops_at_end_and_pauses() {
    let mut tl = Timeline::new(2.0, FPS30);
    tl.advance(2.5);
    assert_eq!(tl.time_s(), 2.0);
    assert!(!tl.is_playing());
    // Playing again from the end restarts from the start.
    tl.play();
    assert_eq!(tl.time_s(), 0.0);
    assert!(tl.is_playing());
}

#[test]
fn once_reversed_stops_at_start() {
    let mut tl = Timeline::new(2.0, FPS30).with_start(1.0);
    tl.reverse();
    assert_eq!(tl.speed(), -1.0);
    tl.advance(0.25);
    assert_time(&tl, 0.75);
    tl.advance(5.0);
    assert_eq!(tl.time_s(), 0.0);
    assert!(!tl.is_playing());
    // Reversed, "play again" rewinds to the end.
    tl.play();
    assert_eq!(tl.time_s(), 2.0);
}

#[test]
fn negative_speed_plays_in_reverse() {
    let mut tl = Timeline::new(2.0, FPS30)
        .with_speed(-0.5)
        .unwrap()
        .with_start(2.0);
    tl.advance(1.0);
    assert_time(&tl, 1.5);
}

#[test]
fn loop_wraps() {
    let mut tl = Timeline::new(2.0, FPS30).with_loop(LoopMode::Loop);
    tl.advance(2.5);
    assert_time(&tl, 0.5);
    assert!(tl.is_playing());
    assert_eq!(tl.speed(), 1.0);
}

#[test]
fn loop_wraps_in_reverse() {
    let mut tl = Timeline::new(2.0, FPS30)
        .with_loop(LoopMode::Loop)
        .with_start(0.5)
        .with_speed(-1.0)
        .unwrap();
    tl.advance(1.0);
    assert_time(&tl, 1.5);
}

#[test]
fn ping_pong_bounces_and_reverses() {
    let mut tl = Timeline::new(2.0, FPS30).with_loop(LoopMode::PingPong);
    tl.advance(2.5);
    assert_time(&tl, 1.5);
    assert!(tl.speed() < 0.0, "direction flipped at the end");
    // Keeps going backwards, then bounces off the start: 1.5 - 2.0 → 0.5 forward.
    tl.advance(2.0);
    assert_time(&tl, 0.5);
    assert!(tl.speed() > 0.0, "direction flipped at the start");
}

#[test]
fn ping_pong_keeps_speed_magnitude() {
    let mut tl = Timeline::new(2.0, FPS30)
        .with_loop(LoopMode::PingPong)
        .with_speed(2.0)
        .unwrap();
    tl.advance(1.25); // 2.5 s of timeline travel
    assert_time(&tl, 1.5);
    assert_eq!(tl.speed(), -2.0);
}

#[test]
fn huge_delta_is_constant_time() {
    // 1e12 s at 30 fps would be 3e13 iterations for a stepping loop.
    let mut tl = Timeline::new(2.0, FPS30).with_loop(LoopMode::Loop);
    tl.advance(1e12 + 0.5);
    assert!((tl.time_s() - 0.5).abs() < 1e-3, "{}", tl.time_s());

    let mut pp = Timeline::new(2.0, FPS30).with_loop(LoopMode::PingPong);
    // 1e12 is a multiple of the 4 s round trip: back at 0, then 2.5 s more.
    pp.advance(1e12 + 2.5);
    assert!((pp.time_s() - 1.5).abs() < 1e-3, "{}", pp.time_s());
    assert!(pp.speed() < 0.0);

    let mut once = Timeline::new(2.0, FPS30);
    once.advance(1e300);
    assert_eq!(once.time_s(), 2.0);
}

#[test]
fn zero_duration_never_divides_by_zero() {
    for mode in [LoopMode::Once, LoopMode::Loop, LoopMode::PingPong] {
        let mut tl = Timeline::new(0.0, FPS30).with_loop(mode);
        tl.advance(1e9);
        tl.advance(0.016);
        assert_eq!(tl.time_s(), 0.0, "{mode}");
        assert_eq!(tl.frame(), 0);
        assert_eq!(tl.frame_count(), 1);
        tl.step_frames(10);
        tl.jump_to_end();
        tl.seek(5.0);
        assert_eq!(tl.time_s(), 0.0, "{mode}");
    }
    // A once timeline of zero length is at its end immediately.
    let mut once = Timeline::new(0.0, FPS30);
    once.advance(0.1);
    assert!(!once.is_playing());
}

#[test]
fn invalid_duration_and_period_fall_back() {
    let tl = Timeline::new(f64::NAN, 0.0);
    assert_eq!(tl.duration_s(), 0.0);
    assert_eq!(tl.frame_period_s(), 1.0 / 60.0);
    assert_eq!(Timeline::new(-3.0, -1.0).duration_s(), 0.0);
}

#[test]
fn step_one_frame_when_paused() {
    let mut tl = Timeline::new(2.0, FPS30).with_paused(true);
    tl.step_frames(1);
    assert_time(&tl, 1.0 / 30.0);
    assert_eq!(tl.frame(), 1);
    tl.step_frames(10);
    assert_time(&tl, 11.0 / 30.0);
    tl.step_frames(-10);
    assert_time(&tl, 1.0 / 30.0);
    tl.step_frames(-1);
    assert_eq!(tl.time_s(), 0.0);
    assert!(!tl.is_playing(), "stepping does not start playback");
}

#[test]
fn paused_step_from_between_frames_moves_the_shown_frame_by_n() {
    // 0.04 s is frame 1.2 at 30 fps, shown as frame 1; 0.06 s is 1.8, shown as 2.
    let mut tl = Timeline::new(2.0, FPS30).with_paused(true).with_start(0.04);
    assert_eq!(tl.frame(), 1);
    tl.step_frames(1);
    assert_time(&tl, 2.0 / 30.0);
    tl.seek(0.04);
    tl.step_frames(-1);
    assert_eq!(tl.time_s(), 0.0);
    tl.seek(0.06);
    assert_eq!(tl.frame(), 2);
    tl.step_frames(1);
    assert_time(&tl, 3.0 / 30.0);
    tl.seek(0.06);
    tl.step_frames(-1);
    assert_time(&tl, 1.0 / 30.0);
    tl.seek(0.06);
    tl.step_frames(10);
    assert_time(&tl, 12.0 / 30.0);
}

#[test]
fn paused_step_treats_near_boundary_as_boundary() {
    // Ten accumulated steps of 1/30 are not exactly 1/3; +1 must still give 11/30.
    let mut tl = Timeline::new(2.0, FPS30).with_paused(true);
    let mut t = 0.0;
    for _ in 0..10 {
        t += FPS30;
    }
    tl.seek(t);
    tl.step_frames(1);
    assert_time(&tl, 11.0 / 30.0);
    tl.seek(t);
    tl.step_frames(-1);
    assert_time(&tl, 9.0 / 30.0);
}

#[test]
fn step_is_clamped_to_the_timeline() {
    let mut tl = Timeline::new(2.0, FPS30).with_paused(true).with_start(1.99);
    tl.step_frames(10);
    assert_eq!(tl.time_s(), 2.0);
    tl.jump_to_start();
    tl.step_frames(-1);
    assert_eq!(tl.time_s(), 0.0);
}

#[test]
fn step_while_playing_nudges_without_snapping() {
    let mut tl = Timeline::new(2.0, FPS30).with_start(0.05);
    tl.step_frames(1);
    assert_time(&tl, 0.05 + 1.0 / 30.0);
    tl.step_frames(-10);
    assert_eq!(tl.time_s(), 0.0, "clamped at the start");
    tl.seek(1.0);
    tl.step_frames(-10);
    assert_time(&tl, 1.0 - 10.0 / 30.0);
    assert!(tl.is_playing());
}

#[test]
fn jumps_and_seek() {
    let mut tl = Timeline::new(2.0, FPS30);
    tl.jump_to_end();
    assert_eq!(tl.time_s(), 2.0);
    tl.jump_to_start();
    assert_eq!(tl.time_s(), 0.0);
    tl.seek(1.25);
    assert_eq!(tl.time_s(), 1.25);
    tl.seek(7.0);
    assert_eq!(tl.time_s(), 2.0);
    tl.seek(-1.0);
    assert_eq!(tl.time_s(), 0.0);
    tl.seek(f64::NAN);
    assert_eq!(tl.time_s(), 0.0);
}

#[test]
fn with_start_is_clamped() {
    assert_eq!(Timeline::new(2.0, FPS30).with_start(9.0).time_s(), 2.0);
    assert_eq!(Timeline::new(2.0, FPS30).with_start(-9.0).time_s(), 0.0);
    assert_eq!(Timeline::new(2.0, FPS30).with_start(0.5).time_s(), 0.5);
}

#[test]
fn speed_doubling_and_halving_are_bounded() {
    let mut tl = Timeline::new(2.0, FPS30);
    tl.double_speed();
    assert_eq!(tl.speed(), 2.0);
    tl.double_speed();
    assert_eq!(tl.speed(), 4.0);
    tl.advance(0.25);
    assert_time(&tl, 1.0);
    for _ in 0..20 {
        tl.double_speed();
    }
    assert_eq!(tl.speed(), MAX_SPEED);
    for _ in 0..40 {
        tl.halve_speed();
    }
    assert_eq!(tl.speed(), MIN_SPEED);
    assert_eq!(MIN_SPEED, 1.0 / 64.0);
    assert_eq!(MAX_SPEED, 64.0);
}

#[test]
fn speed_changes_keep_direction() {
    let mut tl = Timeline::new(2.0, FPS30).with_speed(-1.0).unwrap();
    tl.double_speed();
    assert_eq!(tl.speed(), -2.0);
    tl.halve_speed();
    tl.halve_speed();
    assert_eq!(tl.speed(), -0.5);
    tl.reverse();
    assert_eq!(tl.speed(), 0.5);
}

#[test]
fn speed_outside_the_step_bounds_is_kept_until_stepped_inward() {
    // An explicit --speed 100 is honoured; doubling must not slow it down.
    let mut tl = Timeline::new(2.0, FPS30).with_speed(100.0).unwrap();
    tl.double_speed();
    assert_eq!(tl.speed(), 100.0);
    tl.halve_speed();
    assert_eq!(tl.speed(), 50.0);
}

#[test]
fn zero_and_non_finite_speeds_are_refused() {
    assert!(Timeline::new(2.0, FPS30).with_speed(0.0).is_err());
    assert!(Timeline::new(2.0, FPS30).with_speed(f64::NAN).is_err());
    let mut tl = Timeline::new(2.0, FPS30);
    assert!(tl.set_speed(f64::INFINITY).is_err());
    assert_eq!(tl.speed(), 1.0, "a refused speed leaves the old one");
    assert!(tl.set_speed(-3.0).is_ok());
    assert_eq!(tl.speed(), -3.0);
}

#[test]
fn loop_mode_cycles() {
    let mut tl = Timeline::new(2.0, FPS30);
    assert_eq!(tl.cycle_loop_mode(), LoopMode::Loop);
    assert_eq!(tl.cycle_loop_mode(), LoopMode::PingPong);
    assert_eq!(tl.cycle_loop_mode(), LoopMode::Once);
    assert_eq!(tl.loop_mode(), LoopMode::Once);
    tl.set_loop_mode(LoopMode::PingPong);
    assert_eq!(tl.loop_mode(), LoopMode::PingPong);
}

#[test]
fn loop_mode_parses_and_displays() {
    assert_eq!("once".parse::<LoopMode>(), Ok(LoopMode::Once));
    assert_eq!("loop".parse::<LoopMode>(), Ok(LoopMode::Loop));
    assert_eq!("pingpong".parse::<LoopMode>(), Ok(LoopMode::PingPong));
    assert_eq!("Ping-Pong".parse::<LoopMode>(), Ok(LoopMode::PingPong));
    assert!("bounce".parse::<LoopMode>().is_err());
    let err = "bounce".parse::<LoopMode>().unwrap_err().to_string();
    assert!(err.contains("bounce"), "{err}");
    for mode in [LoopMode::Once, LoopMode::Loop, LoopMode::PingPong] {
        assert_eq!(mode.to_string().parse::<LoopMode>(), Ok(mode));
    }
    assert_eq!(LoopMode::PingPong.to_string(), "pingpong");
}

#[test]
fn frame_rounds_to_nearest() {
    let mut tl = Timeline::new(2.0, FPS30).with_paused(true);
    // Ten accumulated periods fall a hair short of 1/3 in floating point.
    let mut t = 0.0;
    for _ in 0..10 {
        t += FPS30;
    }
    tl.seek(t);
    assert_eq!(tl.frame(), 10);
    tl.seek(10.0 * FPS30);
    assert_eq!(tl.frame(), 10);
    tl.seek(10.4 * FPS30);
    assert_eq!(tl.frame(), 10);
    tl.seek(10.6 * FPS30);
    assert_eq!(tl.frame(), 11);
    tl.jump_to_end();
    assert_eq!(tl.frame(), 60);
}

#[test]
fn frame_count_covers_both_ends() {
    // 2 s at 30 fps: frames 0..=60.
    assert_eq!(Timeline::new(2.0, FPS30).frame_count(), 61);
    // sony_stand_sit.mtn: 305 frames of 16 ms = 4.880 s → indices 0..=305.
    assert_eq!(Timeline::new(4.88, 0.016).frame_count(), 306);
}

#[test]
fn timeline_stops_at_24_hours() {
    assert_eq!(MAX_DURATION_S, 86_400.0);
    let timeline = Timeline::new(1e30, 1.0 / 60.0);
    assert_eq!(timeline.duration_s(), MAX_DURATION_S);
    assert_eq!(timeline.frame_count(), 86_400 * 60 + 1);
    assert_eq!(Timeline::new(4.88, 0.016).duration_s(), 4.88);
}
