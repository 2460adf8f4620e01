//! [`Deformer::deform_many`] against [`Deformer::deform_into`], time by
//! time, bit for bit: on the flags sample, and with groups mapped out of
//! order and onto vertices another group moves; and against the `f64`
//! reference.

use super::{Binding, Deformer, deform_reference_f64};
use crate::formats::memg::{self, MemgMotion};
use crate::formats::obj::{self, ObjScene};

fn flags() -> (ObjScene, MemgMotion) {
    let read = |name: &str| {
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/").to_owned() + name)
            .unwrap()
    };
    let scene = obj::decode(&read("flags.obj")).unwrap();
    (scene, memg::decode(&read("flags.bin")).unwrap())
}

/// Times in timesteps: whole, between two, before the first, past the
/// last, and NaN (sampled as 0).
const TIMES: [f64; 7] = [0.0, 0.5, 17.3, 239.0, -3.0, 1e9, f64::NAN];

fn assert_same_as_one_at_a_time(scene: &ObjScene, motion: &MemgMotion) {
    let binding = Binding::new(scene, motion).unwrap();
    let count = scene.positions.len();
    let mut many = vec![[f32::NAN; 3]; TIMES.len() * count];
    Deformer::new().deform_many(scene, motion, &binding, &TIMES, &mut many);
    let mut one = vec![[0.0; 3]; count];
    let mut deformer = Deformer::new();
    for (k, &t) in TIMES.iter().enumerate() {
        deformer.deform_into(scene, motion, &binding, t, &mut one);
        let frame = &many[k * count..(k + 1) * count];
        let bits =
            |p: &[[f32; 3]]| -> Vec<u32> { p.as_flattened().iter().map(|x| x.to_bits()).collect() };
        assert_eq!(bits(frame), bits(&one), "time {t}");
        // And near the independent reference (NaN samples as 0).
        let reference = deform_reference_f64(scene, motion, &binding, t);
        for (p, q) in frame.iter().zip(&reference) {
            for (a, b) in p.iter().zip(q) {
                assert!(
                    (f64::from(*a) - b).abs() <= 1e-4 * (1.0 + b.abs()),
                    "{a} vs {b} at {t}"
                );
            }
        }
    }
}

#[test]
fn every_time_at_once_equals_one_at_a_time() {
    let (scene, motion) = flags();
    // The flags move: frames differ, so the comparison is not of one pose.
    assert!(motion.groups.len() > 1 && motion.timesteps > 200);
    assert_same_as_one_at_a_time(&scene, &motion);
}

#[test]
fn groups_out_of_order_and_overlapping_equal_one_at_a_time() {
    let (scene, mut motion) = flags();
    // Group 0 mapped backwards (scattered, not one run), and the last group
    // moved onto group 0's first vertices (a later group wins them).
    motion.groups[0].mapping.reverse();
    let first: Vec<u32> = motion.groups[0].mapping.clone();
    let last = motion.groups.last_mut().unwrap();
    for (i, m) in last.mapping.iter_mut().enumerate() {
        *m = first[i % first.len()];
    }
    let binding = Binding::new(&scene, &motion).unwrap();
    assert!(
        binding
            .warnings
            .iter()
            .any(|w| w.contains("another group already moves"))
    );
    assert_same_as_one_at_a_time(&scene, &motion);
}

#[test]
fn a_motion_without_timesteps_leaves_every_frame_at_rest() {
    let (scene, mut motion) = flags();
    motion.timesteps = 0;
    motion.frames.clear();
    for g in &mut motion.groups {
        g.coeffs.clear();
    }
    let binding = Binding::new(&scene, &motion).unwrap();
    let count = scene.positions.len();
    let mut many = vec![[f32::NAN; 3]; 2 * count];
    Deformer::new().deform_many(&scene, &motion, &binding, &[0.0, 5.0], &mut many);
    assert_eq!(&many[..count], scene.positions.as_slice());
    assert_eq!(&many[count..], scene.positions.as_slice());
}
