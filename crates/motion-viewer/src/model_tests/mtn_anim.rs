//! Poses between keyframes: linear in time, clamped outside the motion.

use motion_viewer::anim::mtn::pose_at;
use motion_viewer::formats::mtn;

fn deg(urad: f64) -> f64 {
    urad * 180.0 / (1_000_000.0 * std::f64::consts::PI)
}

fn sony() -> mtn::Mtn {
    let bytes = std::fs::read(format!(
        "{}/data/sony_stand_sit.mtn",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    ))
    .unwrap();
    mtn::decode(&bytes).unwrap()
}

#[test]
fn halfway_between_keyframes_0_and_1() {
    let m = sony();
    // Keyframe 1 is 61 frames × 16 ms = 0.976 s in; halfway is 0.488 s.
    let p = pose_at(&m, 0.488);
    // Pitch 0x885A = 34906 to 0xFFFE66F0 = -104720: mean -34907 µrad.
    assert!((p.body_deg[1] - deg(-34907.0)).abs() < 1e-9);
    assert!(p.body_deg[0].abs() < 1e-12 && p.body_deg[2].abs() < 1e-12);
    // Head tilt 0 to 0xFFF73628 = -575960: mean -287980 µrad.
    assert!((p.joints_deg[0] - deg(-287980.0)).abs() < 1e-9);
    // Mouth stays at 0xFFFF3378 = -52360 in both.
    assert!((p.joints_deg[3] - deg(-52360.0)).abs() < 1e-9);
    assert_eq!(p.joints_deg.len(), 20);
}

#[test]
fn keyframe_times_give_keyframe_values_and_ends_clamp() {
    let m = sony();
    let first = pose_at(&m, 0.0);
    assert!((first.body_deg[1] - deg(34906.0)).abs() < 1e-9);
    let before = pose_at(&m, -3.0);
    assert_eq!(before, first);
    let last = pose_at(&m, 4.880);
    assert!((last.body_deg[1] - deg(558506.0)).abs() < 1e-9);
    let after = pose_at(&m, 100.0);
    assert_eq!(after.joints_deg, last.joints_deg);
    assert!((after.time_s - 4.880).abs() < 1e-12);
    // Keyframe 2 at frame 112 = 1.792 s: exactly its pitch 0x03FEA8 = 261800.
    let k2 = pose_at(&m, 1.792);
    assert!((k2.body_deg[1] - deg(261800.0)).abs() < 1e-6);
    assert_eq!(pose_at(&m, f64::NAN), first);
}

#[test]
fn a_motion_without_keyframes_gives_zeros() {
    let mut m = sony();
    m.keyframes.clear();
    let p = pose_at(&m, 1.0);
    assert_eq!(p.joints_deg, vec![0.0; 20]);
    assert_eq!(p.time_s, 0.0);
}
