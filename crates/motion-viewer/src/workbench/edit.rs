//! Transforms of one motion, or of several joined: mirror, reverse, retime,
//! concatenate. Each keeps the model, joints and strings of its input.

use super::{Edit, EditError, finish, rename, roles, with_postures};
use crate::anim::aibo::joint_label;
use crate::anim::clock;
use crate::formats::mtn::{Keyframe, MotionName, Mtn, URAD_TO_DEG};

/// Mirrors a motion left to right with the model's table
/// ([`crate::formats::aibo::Model::mirror`]): left and right legs and ears
/// trade angles, head pan, tail pan and a rolling head change sign, and so do
/// the body roll and yaw (pitch stays).
///
/// Mirroring twice gives back the same bytes: the swap and the sign change
/// undo themselves (the sign change wraps, so even `i32::MIN`, an angle no
/// motion holds, comes back as itself).
pub fn mirror(m: &Mtn) -> Result<Edit, EditError> {
    let map = MirrorMap::new(m)?;
    let mut out = m.clone();
    for k in &mut out.keyframes {
        *k = map.keyframe(k);
    }
    finish(out, Vec::new())
}

/// The left ↔ right mapping of one motion's joints: for each joint, the
/// joint it takes its angle from and whether to negate it. Built once and
/// applied to any keyframe of that motion (by [`mirror`], and by the editor
/// to one keyframe).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MirrorMap {
    sources: Vec<(usize, bool)>,
}

impl MirrorMap {
    /// The mapping of `m`'s joints, or why it has none (an unknown model or
    /// joint, a joint whose mirror the motion does not drive).
    pub fn new(m: &Mtn) -> Result<MirrorMap, EditError> {
        let (model, roles) = roles(m)?;
        let sources = roles
            .iter()
            .map(|&role| {
                let mirrored = model.mirror(role);
                let from = roles
                    .iter()
                    .position(|&r| r == mirrored.joint)
                    .ok_or_else(|| EditError::NoMirror {
                        joint: joint_label(role),
                        mirror: joint_label(mirrored.joint),
                    })?;
                Ok((from, mirrored.negate))
            })
            .collect::<Result<Vec<_>, EditError>>()?;
        Ok(MirrorMap { sources })
    }

    /// `k` mirrored: its interpolation count kept, body roll and yaw negated
    /// (the negation wraps, so mirroring twice gives `k` back), joints swapped.
    pub fn keyframe(&self, k: &Keyframe) -> Keyframe {
        Keyframe {
            interp: k.interp,
            roll: k.roll.wrapping_neg(),
            pitch: k.pitch,
            yaw: k.yaw.wrapping_neg(),
            joints: self
                .sources
                .iter()
                .map(|&(from, negate)| {
                    let v = k.joints.get(from).copied().unwrap_or(0);
                    if negate { v.wrapping_neg() } else { v }
                })
                .collect(),
        }
    }
}

/// Plays a motion backwards: the keyframes in reverse order, each segment
/// keeping its length, so the new motion at `t` is the old one at `T − t`.
/// The postures of the name swap (`a_stand#sit_S` → `a_sit#stand_S`).
pub fn reverse(m: &Mtn) -> Result<Edit, EditError> {
    let mut out = m.clone();
    let n = m.keyframes.len();
    out.keyframes = (0..n)
        .map(|k| Keyframe {
            // Segment k of the new motion is segment n − k of the old.
            interp: if k == 0 { 0 } else { m.keyframes[n - k].interp },
            ..m.keyframes[n - 1 - k].clone()
        })
        .collect();
    if let Some(name) = m.motion_name() {
        rename(&mut out, with_postures(&m.name, &name.end, &name.start));
    }
    finish(out, Vec::new())
}

/// How [`retime`] changes a motion's timing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Retime {
    /// Play `F` times as fast (2 halves the duration): the frame period stays
    /// and each keyframe moves to the whole frame nearest its new time.
    Speed(f64),
    /// Store the motion with frames of `N` ms, keeping every keyframe as near
    /// its old time as whole frames allow (the duration stays).
    FrameMs(u16),
}

/// Changes a motion's timing ([`Retime`]). Keyframes land on whole frames, at
/// most half a frame from their exact new time, and never less than one frame
/// after the keyframe before (a warning says how many had to be pushed).
pub fn retime(m: &Mtn, how: Retime) -> Result<Edit, EditError> {
    let old_ms = f64::from(m.frame_ms());
    let (scale, frame_rate) = match how {
        Retime::Speed(f) if f.is_finite() && f > 0.0 => (1.0 / f, m.frame_rate),
        Retime::Speed(f) => {
            return Err(EditError::Timing(format!(
                "speed {f}: expected a positive factor such as 2 (twice as fast) or 0.5"
            )));
        }
        Retime::FrameMs(0) => {
            return Err(EditError::Timing(
                "a frame period of 0 ms: expected 1 to 65535".into(),
            ));
        }
        Retime::FrameMs(n) => (old_ms / f64::from(n), n),
    };
    let mut warnings = Vec::new();
    if let Retime::FrameMs(n) = how
        && m.is_ers110()
        && n != 16
    {
        warnings.push(format!(
            "the ERS-110 ignores the stored frame period and plays 16 ms frames; \
             on the robot this motion runs {:.3}× as long as here",
            16.0 / f64::from(n)
        ));
    }
    let mut out = m.clone();
    out.frame_rate = frame_rate;
    let mut previous = 0u64;
    let mut pushed = 0;
    for (k, (keyframe, old)) in out
        .keyframes
        .iter_mut()
        .zip(m.keyframe_frames())
        .enumerate()
    {
        let exact = old as f64 * scale;
        // Beyond 2^52 frames a float no longer tells whole frames apart.
        if exact >= (1u64 << 52) as f64 {
            return Err(EditError::Timing(format!(
                "keyframe {k} would move to frame {exact:.0}, beyond what a motion can hold"
            )));
        }
        let mut frame = clock::nearest(exact);
        if k > 0 && frame <= previous {
            frame = previous + 1;
            pushed += 1;
        }
        if k > 0 {
            keyframe.interp = u32::try_from(frame - previous - 1).map_err(|_| {
                EditError::Timing(format!(
                    "keyframe {k} would come {} frames after the one before; a segment holds \
                     at most {} frames",
                    frame - previous,
                    u64::from(u32::MAX) + 1
                ))
            })?;
        }
        previous = frame;
    }
    if pushed > 0 {
        warnings.push(format!(
            "{pushed} keyframe(s) would have met the one before on the same frame; each was \
             placed one frame after it"
        ));
    }
    finish(out, warnings)
}

/// Joins motions end to end: the same model, joints and frame period; the
/// first keyframe of each later motion is the last of the one before it (so
/// the duration is the sum), and the name takes the first motion's start
/// posture and the last one's end posture.
///
/// Warns where a motion does not start where the one before ends: in posture
/// words, or in angles (the robot then moves to the next motion's second
/// keyframe from where the previous one stopped).
pub fn concat(parts: &[Mtn]) -> Result<Edit, EditError> {
    let Some(first) = parts.first() else {
        return Err(EditError::Mismatch("no motion to join".into()));
    };
    let mut out = first.clone();
    let mut warnings = Vec::new();
    for (i, part) in parts.iter().enumerate().skip(1) {
        let which = |n: usize, m: &Mtn| format!("motion {} ({})", n + 1, m.name);
        if part.model() != first.model() {
            return Err(EditError::Mismatch(format!(
                "{} is an {} motion, {} an {} one",
                which(i, part),
                model_name(part),
                which(0, first),
                model_name(first)
            )));
        }
        if part.joints != first.joints {
            return Err(EditError::Mismatch(format!(
                "{} drives other joints than {} ({} against {}); convert or cut them first",
                which(i, part),
                which(0, first),
                part.joints.len(),
                first.joints.len()
            )));
        }
        if part.frame_ms() != first.frame_ms() {
            return Err(EditError::Mismatch(format!(
                "{} has {} ms frames, {} has {} ms; retime one with --frame-ms first",
                which(i, part),
                part.frame_ms(),
                which(0, first),
                first.frame_ms()
            )));
        }
        let before = &parts[i - 1];
        if let (Some(a), Some(b)) = (before.motion_name(), part.motion_name())
            && a.end != b.start
        {
            warnings.push(format!(
                "{} ends in {:?} but {} starts in {:?}",
                which(i - 1, before),
                a.end,
                which(i, part),
                b.start
            ));
        }
        let end = out.keyframes.last().cloned().unwrap_or_default();
        let start = part.keyframes.first().cloned().unwrap_or_default();
        if let Some((label, gap)) = widest_gap(part, &end, &start)
            && gap > 0.01
        {
            warnings.push(format!(
                "{} starts {gap:.2}° from where the motion before it ends ({label}); the robot \
                 moves from there to its second keyframe",
                which(i, part)
            ));
        }
        out.keyframes.extend(part.keyframes.iter().skip(1).cloned());
    }
    let last = parts.last().unwrap_or(first);
    if let (Some(a), Some(z)) = (first.motion_name(), last.motion_name()) {
        rename(&mut out, with_postures(&first.name, &a.start, &z.end));
    } else if MotionName::parse(&first.name).is_none() {
        warnings.push(format!(
            "the name {:?} has no start#end postures to update; kept as it is",
            first.name
        ));
    }
    finish(out, warnings)
}

/// The motion under another name (its postures are what the robot reads:
/// see [`super::check()`]).
pub fn with_name(m: &Mtn, name: &str) -> Result<Edit, EditError> {
    let mut out = m.clone();
    rename(&mut out, name.to_string());
    finish(out, Vec::new())
}

fn model_name(m: &Mtn) -> String {
    m.model()
        .map_or_else(|| format!("unknown ({})", m.design), |x| x.to_string())
}

/// The channel where two keyframes differ most, and by how many degrees.
fn widest_gap(m: &Mtn, a: &Keyframe, b: &Keyframe) -> Option<(String, f64)> {
    let body = [
        ("body roll", a.roll, b.roll),
        ("body pitch", a.pitch, b.pitch),
    ];
    let body = body
        .into_iter()
        .chain([("body yaw", a.yaw, b.yaw)])
        .map(|(l, x, y)| (l.to_string(), x, y));
    let roles = m.joint_roles();
    let joints = a
        .joints
        .iter()
        .zip(&b.joints)
        .enumerate()
        .map(|(j, (&x, &y))| {
            let label = roles
                .get(j)
                .copied()
                .flatten()
                .map_or_else(|| m.joints[j].clone(), joint_label);
            (label, x, y)
        });
    body.chain(joints)
        .map(|(label, x, y)| {
            let gap = (f64::from(x) - f64::from(y)).abs() * URAD_TO_DEG;
            (label, gap)
        })
        .max_by(|p, q| p.1.total_cmp(&q.1))
}
