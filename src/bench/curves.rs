//! `.mtn` and MRTK motions: decoding, and sampling their curves.

use super::results::{CurveRow, Detail, Row};
use super::{Timer, decode_and_memcpy, mb_s};
use motion_viewer::anim;
use motion_viewer::error::{Error, Result};
use motion_viewer::formats::input_animation::{self, InputAnimation};
use motion_viewer::formats::mtn::{self, Mtn};
use std::hint::black_box;

/// Decodes and `pose_at` calls of an AIBO motion.
pub(super) fn mtn(timer: &Timer<'_>, name: String, bytes: &[u8], motion: &Mtn) -> Result<Row> {
    timer.plan(3);
    let (decode_s, memcpy_s) = decode_and_memcpy(bytes, timer, |b| {
        drop(black_box(
            mtn::decode(b).map_err(|e| Error::decode(&name, e))?,
        ));
        Ok(())
    })?;
    // Body roll, pitch and yaw, then one angle per joint.
    let channels = 3 + motion.joints.len();
    let pose_s = sample_secs(timer, motion.duration_s(), |t| {
        drop(black_box(anim::mtn::pose_at(motion, t)));
    })?;
    Ok(curve_row(
        name, "mtn", bytes, decode_s, memcpy_s, channels, pose_s,
    ))
}

/// Decodes and `state_at` calls of an MRTK recording.
pub(super) fn input_animation(
    timer: &Timer<'_>,
    name: String,
    bytes: &[u8],
    recording: &InputAnimation,
) -> Result<Row> {
    timer.plan(3);
    let (decode_s, memcpy_s) = decode_and_memcpy(bytes, timer, |b| {
        drop(black_box(
            input_animation::decode(b).map_err(|e| Error::decode(&name, e))?,
        ));
        Ok(())
    })?;
    let channels = recording.float_curves().len() + recording.bool_curves().len();
    let duration = anim::input_animation::duration_s(recording);
    let state_s = sample_secs(timer, duration, |t| {
        black_box(anim::input_animation::state_at(recording, t));
    })?;
    Ok(curve_row(
        name,
        "input-animation",
        bytes,
        decode_s,
        memcpy_s,
        channels,
        state_s,
    ))
}

/// Seconds per call of `sample`, at times walking through `0..=duration` in
/// uneven steps so calls land in every segment, not one cached spot.
fn sample_secs(timer: &Timer<'_>, duration: f64, mut sample: impl FnMut(f64)) -> Result<f64> {
    let step = duration.max(0.0) * 0.0137;
    let mut t = 0.0;
    timer.secs_per_call("sampling", || {
        t += step;
        if t > duration {
            t = 0.0;
        }
        sample(black_box(t));
        Ok(())
    })
}

fn curve_row(
    name: String,
    format: &'static str,
    bytes: &[u8],
    decode_s: f64,
    memcpy_s: f64,
    channels: usize,
    sample_s: f64,
) -> Row {
    let size = bytes.len() as u64;
    Row {
        name,
        format,
        bytes: size,
        decode_mb_s: mb_s(size, decode_s),
        memcpy_mb_s: mb_s(size, memcpy_s),
        decode_vs_memcpy: memcpy_s / decode_s,
        detail: Detail::Curves(CurveRow {
            files_s: 1.0 / decode_s,
            channels,
            samples_s: channels as f64 / sample_s,
        }),
    }
}
