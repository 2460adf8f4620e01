//! Tracks shared by the stage tests: the committed samples, and an MRTK
//! recording built here (no sample recording is committed).

#![allow(dead_code)] // Each test binary uses its own subset.

use crate::common::data;
use motion_viewer::formats::input_animation::{
    BoolCurve, BoolKey, Curve, Hands, InputAnimation, JOINT_COUNT, Key, PoseCurves, RayCurves,
};
use motion_viewer::scene::Track;
use std::path::PathBuf;

/// The committed samples that exist, loaded: the MEMG flags, the ERS-210 stand-to-sit.
pub fn sample_tracks() -> Vec<Track> {
    let mut paths = Vec::new();
    if data("flags.obj").exists() && data("flags.bin").exists() {
        paths.push(data("flags.obj"));
        paths.push(data("flags.bin"));
    }
    paths.push(data("sony_stand_sit.mtn"));
    motion_viewer::open_with(&paths, &motion_viewer::OpenOptions::default())
        .expect("samples load")
        .tracks
}

/// A curve from `a` at 0 s to `b` at `RECORDING_S`.
pub fn ramp(a: f32, b: f32) -> Curve {
    Curve {
        keys: vec![Key::linear(0.0, a), Key::linear(RECORDING_S, b)],
        ..Curve::default()
    }
}

/// A constant curve.
pub fn constant(v: f32) -> Curve {
    Curve {
        keys: vec![Key::linear(0.0, v)],
        ..Curve::default()
    }
}

/// An on/off curve with the given (time, on) keys.
pub fn switch(keys: &[(f32, bool)]) -> BoolCurve {
    BoolCurve {
        keys: keys
            .iter()
            .map(|&(time, on)| BoolKey {
                time,
                value: if on { 1.0 } else { 0.0 },
            })
            .collect(),
        ..BoolCurve::default()
    }
}

pub const RECORDING_S: f32 = 2.0;
/// Wrist height of both synthetic hands at 0 s; they rise by `HAND_RISE` by the end.
pub const WRIST_Y: f32 = 1.3;
pub const HAND_RISE: f32 = 0.1;
/// Unity position of the head camera.
pub const HEAD: [f32; 3] = [0.0, 1.6, 0.0];

/// A joint's offset from the wrist of a right hand, palm down, fingers along
/// Unity +z (forward), thumb toward −x (inward); the left hand mirrors x.
/// Every offset has y = 0, so the wrist height is the hand's lowest point.
pub fn joint_offset(joint: usize) -> [f32; 3] {
    match joint {
        0 | 1 => [0.0, 0.0, 0.0],
        2 => [0.0, 0.0, 0.04],
        3..=6 => {
            let k = (joint - 2) as f32;
            [-0.015 * k, 0.0, 0.02 * k]
        }
        _ => {
            let finger = ((joint - 7) / 5) as f32;
            let step = (joint - 7) % 5;
            let x = -0.02 + 0.013 * finger;
            let z = [0.02, 0.08, 0.115, 0.14, 0.16][step];
            [if step == 0 { x * 0.5 } else { x }, 0.0, z]
        }
    }
}

fn hand(wrist_x: f32, mirror: f32) -> Vec<PoseCurves> {
    (0..JOINT_COUNT)
        .map(|j| {
            let o = joint_offset(j);
            PoseCurves {
                position: [
                    constant(wrist_x + mirror * o[0]),
                    ramp(WRIST_Y + o[1], WRIST_Y + HAND_RISE + o[1]),
                    constant(0.35 + o[2]),
                ],
                rotation: [constant(0.0), constant(0.0), constant(0.0), constant(1.0)],
            }
        })
        .collect()
}

/// Two hands in front of a head camera looking forward, a gaze ray slightly
/// down; the left hand tracked throughout, the right one from 0.5 s and
/// pinching from 1 s.
pub fn recording() -> InputAnimation {
    InputAnimation {
        version: (1, 1),
        camera: Some(PoseCurves {
            position: HEAD.map(constant),
            rotation: [constant(0.0), constant(0.0), constant(0.0), constant(1.0)],
        }),
        hands: Some(Hands {
            tracked_left: switch(&[(0.0, true)]),
            tracked_right: switch(&[(0.0, false), (0.5, true)]),
            pinch_left: switch(&[(0.0, false)]),
            pinch_right: switch(&[(0.0, false), (1.0, true)]),
            left: hand(-0.15, -1.0),
            right: hand(0.15, 1.0),
        }),
        eye_gaze: Some(RayCurves {
            origin: HEAD.map(constant),
            direction: [constant(0.0), constant(-0.2), constant(1.0)],
        }),
        ..InputAnimation::default()
    }
}

pub fn recording_track() -> Track {
    Track::InputAnimation {
        path: PathBuf::from("synthetic.mrtk"),
        recording: std::sync::Arc::new(recording()),
    }
}
