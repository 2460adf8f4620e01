//! Interactive editing of one AIBO motion, with undo and redo: what the
//! window's and the page's curves panel drive.
//!
//! Every edit makes a new [`Mtn`] that [`crate::formats::mtn::encode`] writes
//! byte-valid; [`Editor::undo`] returns exactly to the motion before it, so
//! undoing every edit and saving writes the original file's bytes again.
//! [`check`](super::check()) is re-run after each edit, so its findings follow.
//!
//! Two real files do not re-encode to their own bytes (`sit_lose01.mtn`
//! declares a wrong section 3 size, `KnownGoodERS7.mtn` a wrong section 1;
//! the encoder writes the true ones). An editor opened with
//! [`Editor::from_bytes`] keeps the bytes it was given and
//! [`Editor::encode`] returns them whenever the motion equals the original,
//! so those files too come back byte for byte after undo; once edited they
//! are written with their sizes corrected.
//!
//! Undo keeps whole keyframe vectors (a motion's keyframes are small: Sony's
//! longest has a few hundred), up to [`history::UNDO_BUDGET_VALUES`] angles in all,
//! the oldest steps dropped beyond that.

mod history;
#[cfg(test)]
mod tests;

use super::edit::MirrorMap;
use super::{EditError, Report, check};
use crate::DecodeError;
use crate::anim::aibo::{Reach, joint_label, rig_model};
use crate::anim::clock;
use crate::formats::mtn::{self, Keyframe, Mtn, URAD_TO_DEG};
use history::{History, Step};
use std::path::{Path, PathBuf};

/// What an edit did, beyond changing the motion.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Applied {
    /// The keyframe now concerned (the one inserted, moved or changed), if any.
    pub key: Option<usize>,
    /// Something the user should be told, one sentence (a value clamped to
    /// the joint's limit, say).
    pub message: Option<String>,
}

/// A body or joint channel of the motion.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Channel {
    /// Roll, pitch or yaw.
    Body(usize),
    /// A joint, by its index in the motion.
    Joint(usize),
}

/// A keyframe's pose: body attitude and joints, micro-radians.
#[derive(Debug, Clone, PartialEq)]
struct Pose {
    body: [i32; 3],
    joints: Vec<i32>,
}

/// One motion being edited: the motion as it is now, the original, the
/// selected keyframe, a copied pose, and the undo and redo stacks.
#[derive(Debug, Clone)]
pub struct Editor {
    original: Mtn,
    /// The file the original was decoded from, returned by [`Editor::encode`]
    /// while the motion equals the original.
    original_bytes: Option<Vec<u8>>,
    current: Mtn,
    selected: Option<usize>,
    copied: Option<Pose>,
    history: History,
    report: Report,
    /// The keyframes as last saved (at first, the original's).
    saved: Vec<Keyframe>,
    /// Counts changes of the motion (edits, undos, redos).
    revision: u64,
}

impl Editor {
    /// Starts editing `motion`.
    pub fn new(motion: Mtn) -> Editor {
        Editor {
            report: check(&motion),
            saved: motion.keyframes.clone(),
            revision: 0,
            current: motion.clone(),
            original: motion,
            original_bytes: None,
            selected: None,
            copied: None,
            history: History::default(),
        }
    }

    /// Starts editing the motion in `bytes`, keeping them so that saving the
    /// unedited (or fully undone) motion writes them unchanged.
    pub fn from_bytes(bytes: &[u8]) -> Result<Editor, DecodeError> {
        Ok(Editor::decoded_from(mtn::decode(bytes)?, bytes.to_vec()))
    }

    /// Starts editing `motion`, which the caller decoded from `bytes`:
    /// [`Editor::from_bytes`] without decoding them again.
    pub(crate) fn decoded_from(motion: Mtn, bytes: Vec<u8>) -> Editor {
        let mut editor = Editor::new(motion);
        editor.original_bytes = Some(bytes);
        editor
    }

    /// The motion as it is now.
    pub fn motion(&self) -> &Mtn {
        &self.current
    }

    /// The motion as it was opened.
    pub fn original(&self) -> &Mtn {
        &self.original
    }

    /// Each keyframe's time in seconds.
    pub fn keyframe_times_s(&self) -> Vec<f64> {
        self.current.keyframe_times_s()
    }

    /// The selected keyframe.
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// Selects a keyframe (or none); out-of-range indices select none.
    pub fn select(&mut self, key: Option<usize>) {
        self.selected = key.filter(|&k| k < self.current.keyframes.len());
    }

    /// The value of `channel` (a table column name: `roll_deg`, `pitch_deg`,
    /// `yaw_deg` or a joint's name) at keyframe `key`, in degrees.
    pub fn value_deg(&self, key: usize, channel: &str) -> Option<f64> {
        let k = self.current.keyframes.get(key)?;
        let urad = match self.channel(channel).ok()? {
            Channel::Body(i) => [k.roll, k.pitch, k.yaw][i],
            Channel::Joint(j) => *k.joints.get(j)?,
        };
        Some(f64::from(urad) * URAD_TO_DEG)
    }

    /// The channels a keyframe holds, as [`Editor::value_deg`] names them:
    /// `roll_deg`, `pitch_deg`, `yaw_deg`, then each joint's PRM name.
    pub fn channels(&self) -> Vec<String> {
        ["roll_deg", "pitch_deg", "yaw_deg"]
            .into_iter()
            .map(String::from)
            .chain(self.current.joint_names().into_iter().map(String::from))
            .collect()
    }

    /// Sets `channel` at keyframe `key` to `deg` degrees under the stops'
    /// rule that `check` applies: past the model's joint limit but within the
    /// servo's mechanical stop it is kept, past the stop it is set to the
    /// stop; either is said in [`Applied::message`], in `check`'s words.
    pub fn set_value(&mut self, key: usize, channel: &str, deg: f64) -> Result<Applied, EditError> {
        self.key(key)?;
        let which = self.channel(channel)?;
        if !deg.is_finite() {
            return Err(EditError::Refused(format!(
                "{channel} = {deg}: expected a finite number of degrees"
            )));
        }
        let (urad, message) = self.clamped(which, channel, deg);
        let mut keyframes = self.current.keyframes.clone();
        let k = &mut keyframes[key];
        match which {
            Channel::Body(0) => k.roll = urad,
            Channel::Body(1) => k.pitch = urad,
            Channel::Body(_) => k.yaw = urad,
            Channel::Joint(j) => k.joints[j] = urad,
        }
        Ok(self.commit(keyframes, Some(key), message))
    }

    /// Moves keyframe `key` to `time_s` (rounded to the motion's frame
    /// period), between its neighbours; the interpolation frame counts
    /// around it change to match.
    pub fn move_key(&mut self, key: usize, time_s: f64) -> Result<Applied, EditError> {
        self.key(key)?;
        if time_s.is_nan() {
            return Err(EditError::Refused(
                "a keyframe time of NaN: expected seconds".into(),
            ));
        }
        let frames = self.current.keyframe_frames();
        let wanted = self.frame_at(time_s);
        if key == 0 {
            if wanted == 0 {
                return Ok(self.commit(self.current.keyframes.clone(), Some(0), None));
            }
            return Err(EditError::Refused(
                "keyframe 0 starts the motion at 0 s; it cannot move".into(),
            ));
        }
        let low = frames[key - 1] + 1;
        let high = match frames.get(key + 1) {
            Some(&next) => next - 1,
            None => low + u64::from(u32::MAX),
        };
        let frame = wanted.clamp(low, high);
        let mut keyframes = self.current.keyframes.clone();
        // Both counts fit: `frame` lies within a segment that held u32 counts,
        // or (the last key) at most u32::MAX frames after `low`.
        keyframes[key].interp = u32::try_from(frame - low).unwrap_or(u32::MAX);
        if let Some(&next) = frames.get(key + 1) {
            keyframes[key + 1].interp = u32::try_from(next - frame - 1).unwrap_or(u32::MAX);
        }
        let message = (frame != wanted).then(|| {
            format!(
                "keyframe {key} kept between its neighbours, at {:.3} s",
                self.current.frame_s(frame)
            )
        });
        Ok(self.commit(keyframes, Some(key), message))
    }

    /// Inserts a keyframe at `time_s` (rounded to a frame) holding the
    /// interpolated pose there; the motion plays as before.
    pub fn insert_key(&mut self, time_s: f64) -> Result<Applied, EditError> {
        if !time_s.is_finite() || time_s < 0.0 {
            return Err(EditError::Refused(format!(
                "a keyframe at {time_s} s: expected a time from 0 s"
            )));
        }
        let frames = self.current.keyframe_frames();
        let frame = self.frame_at(time_s);
        // The first keyframe at or after `frame`.
        let b = frames.partition_point(|&f| f < frame);
        if frames.get(b) == Some(&frame) {
            return Err(EditError::Refused(format!(
                "keyframe {b} is already at {:.3} s",
                self.current.frame_s(frame)
            )));
        }
        if frames.len() >= usize::from(u16::MAX) {
            return Err(EditError::Timing(format!(
                "{} keyframes: a motion file holds at most {}",
                frames.len(),
                u16::MAX
            )));
        }
        let mut keyframes = self.current.keyframes.clone();
        let Some(&fa) = b.checked_sub(1).and_then(|a| frames.get(a)) else {
            // Only with no keyframes at all, which a decoded motion never has.
            return Err(EditError::Refused("the motion has no keyframes".into()));
        };
        let new = match frames.get(b) {
            Some(&fb) => {
                let mut k = interpolated(&keyframes[b - 1], &keyframes[b], fa, fb, frame);
                keyframes[b].interp = u32::try_from(fb - frame - 1).unwrap_or(u32::MAX);
                k.interp = u32::try_from(frame - fa - 1).unwrap_or(u32::MAX);
                k
            }
            None => {
                // Past the end the motion holds its last pose: so does the key.
                let interp = u32::try_from(frame - fa - 1).map_err(|_| {
                    EditError::Timing(format!(
                        "a keyframe at {time_s} s: a segment holds at most {} frames",
                        u64::from(u32::MAX) + 1
                    ))
                })?;
                Keyframe {
                    interp,
                    ..keyframes[b - 1].clone()
                }
            }
        };
        keyframes.insert(b, new);
        let mut probe = self.current.clone();
        probe.keyframes = keyframes;
        fits(&probe)?;
        Ok(self.commit(probe.keyframes, Some(b), None))
    }

    /// Deletes keyframe `key` (never the last one left).
    pub fn delete_key(&mut self, key: usize) -> Result<Applied, EditError> {
        self.key(key)?;
        let n = self.current.keyframes.len();
        if n == 1 {
            return Err(EditError::Refused(
                "keyframe 0 is the only one; a motion keeps at least one".into(),
            ));
        }
        let mut keyframes = self.current.keyframes.clone();
        let gone = keyframes.remove(key);
        if key == 0 {
            // The next keyframe starts the motion.
            keyframes[0].interp = 0;
        } else if let Some(next) = keyframes.get_mut(key) {
            // The segments before and after the key become one.
            next.interp = next
                .interp
                .checked_add(gone.interp)
                .and_then(|i| i.checked_add(1))
                .ok_or_else(|| {
                    EditError::Timing(format!(
                        "deleting keyframe {key} would make a segment longer than {} frames",
                        u64::from(u32::MAX) + 1
                    ))
                })?;
        }
        let concerned = key.min(keyframes.len() - 1);
        Ok(self.commit(keyframes, Some(concerned), None))
    }

    /// Copies keyframe `key`'s pose (body and joints).
    pub fn copy_pose(&mut self, key: usize) -> Result<(), EditError> {
        let k = self.key(key)?;
        self.copied = Some(Pose {
            body: [k.roll, k.pitch, k.yaw],
            joints: k.joints.clone(),
        });
        Ok(())
    }

    /// True when a pose has been copied.
    pub fn has_copy(&self) -> bool {
        self.copied.is_some()
    }

    /// Pastes the copied pose onto keyframe `key`.
    pub fn paste_pose(&mut self, key: usize) -> Result<Applied, EditError> {
        self.key(key)?;
        let Some(pose) = self.copied.clone() else {
            return Err(EditError::Refused(
                "no pose copied: copy a keyframe's pose first".into(),
            ));
        };
        let mut keyframes = self.current.keyframes.clone();
        let k = &mut keyframes[key];
        [k.roll, k.pitch, k.yaw] = pose.body;
        k.joints = pose.joints;
        Ok(self.commit(keyframes, Some(key), None))
    }

    /// Mirrors keyframe `key`'s pose left ↔ right.
    pub fn mirror_key(&mut self, key: usize) -> Result<Applied, EditError> {
        self.key(key)?;
        let map = MirrorMap::new(&self.current)?;
        let mut keyframes = self.current.keyframes.clone();
        keyframes[key] = map.keyframe(&keyframes[key]);
        Ok(self.commit(keyframes, Some(key), None))
    }

    /// Opens a gesture (a drag): the edits until [`Editor::end_gesture`]
    /// make one undo step.
    pub fn begin_gesture(&mut self) {
        self.history.begin_gesture();
    }

    /// Closes the gesture [`Editor::begin_gesture`] opened; a gesture that
    /// changed nothing leaves no undo step.
    pub fn end_gesture(&mut self) {
        self.history.end_gesture(&self.current.keyframes);
    }

    /// True while a gesture is open.
    pub fn in_gesture(&self) -> bool {
        self.history.in_gesture()
    }

    /// Undoes the last edit; false when there is none.
    pub fn undo(&mut self) -> bool {
        let Some(step) = self.history.take_undo() else {
            return false;
        };
        let now = self.restore(step);
        self.history.push_redo(now);
        true
    }

    /// Redoes the last undone edit; false when there is none.
    pub fn redo(&mut self) -> bool {
        let Some(step) = self.history.take_redo() else {
            return false;
        };
        let now = self.restore(step);
        self.history.push_undo(now);
        true
    }

    /// Edits that [`Editor::undo`] can take back.
    pub fn undo_depth(&self) -> usize {
        self.history.undo_depth()
    }

    /// Edits that [`Editor::redo`] can bring back.
    pub fn redo_depth(&self) -> usize {
        self.history.redo_depth()
    }

    /// True when the motion differs from the original.
    pub fn is_dirty(&self) -> bool {
        self.current.keyframes != self.original.keyframes
    }

    /// True when the motion differs from what was last saved
    /// ([`Editor::mark_saved`]; at first, from the original).
    pub(crate) fn is_unsaved(&self) -> bool {
        self.current.keyframes != self.saved
    }

    /// Records that the motion as it is now was saved.
    pub fn mark_saved(&mut self) {
        self.saved = self.current.keyframes.clone();
    }

    /// Counts the changes of the motion so far (edits, undos and redos), so
    /// that a view can tell when to redraw it.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// `check`'s report on the motion as it is now.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The motion as it is now, as `.mtn` bytes.
    pub fn encode(&self) -> Vec<u8> {
        match &self.original_bytes {
            Some(bytes) if !self.is_dirty() => bytes.clone(),
            _ => mtn::encode(&self.current),
        }
    }

    /// Keyframe `key`, or the error naming the valid range.
    fn key(&self, key: usize) -> Result<&Keyframe, EditError> {
        self.current
            .keyframes
            .get(key)
            .ok_or(EditError::NoKeyframe {
                key,
                count: self.current.keyframes.len(),
            })
    }

    /// The channel `name` names: a body column, a joint's PRM name or its
    /// short label (`left_front_j1`).
    fn channel(&self, name: &str) -> Result<Channel, EditError> {
        if let Some(i) = ["roll_deg", "pitch_deg", "yaw_deg"]
            .iter()
            .position(|&c| c == name)
        {
            return Ok(Channel::Body(i));
        }
        if let Some(j) = self.current.joint_names().iter().position(|&j| j == name) {
            return Ok(Channel::Joint(j));
        }
        self.current
            .joint_roles()
            .iter()
            .position(|r| r.is_some_and(|r| joint_label(r) == name))
            .map(Channel::Joint)
            .ok_or_else(|| EditError::NoChannel(name.to_string()))
    }

    /// `deg` as micro-radians under the stops' rule (`anim::aibo::stops`):
    /// past the joint's limit but within its mechanical stop as given, past
    /// the stop at the stop (rounded inward, so the value stored lies within
    /// it), each with `check`'s sentence; and within the i32 range.
    fn clamped(&self, which: Channel, name: &str, deg: f64) -> (i32, Option<String>) {
        let limit = match which {
            Channel::Joint(j) => self
                .current
                .model()
                .zip(self.current.joint_roles().get(j).copied().flatten())
                .and_then(|(model, role)| rig_model(model).limit(role).copied()),
            Channel::Body(_) => None,
        };
        let to_urad = |d: f64| d / URAD_TO_DEG;
        let (mut urad, mut message) = (to_urad(deg).round(), None);
        if let Some(l) = limit
            && let Some((reach, words)) = l.past(&joint_label(l.joint), deg)
        {
            message = Some(words);
            if let Reach::PastStop { .. } = reach {
                let (low, high) = l.stops();
                let (edge, urad_edge) = if deg > high {
                    (high, to_urad(high).floor())
                } else {
                    (low, to_urad(low).ceil())
                };
                urad = urad_edge;
                message = message.map(|m| format!("{m}: set to the stop, {edge:.2}°"));
            }
        }
        let most = f64::from(i32::MAX);
        if urad.abs() > most {
            urad = urad.clamp(-most, most);
            message = Some(format!(
                "{name} {deg:.2}° is beyond what a motion file holds: set to {:.2}°",
                urad * URAD_TO_DEG
            ));
        }
        (urad as i32, message)
    }

    /// The whole frame nearest `time_s` (negative times at 0, huge ones
    /// saturating).
    fn frame_at(&self, time_s: f64) -> u64 {
        clock::nearest_frame(time_s, self.current.frame_s(1))
    }

    /// Makes `keyframes` the motion, as one undo step unless nothing
    /// changed, re-checks it and selects `key`.
    fn commit(
        &mut self,
        keyframes: Vec<Keyframe>,
        key: Option<usize>,
        message: Option<String>,
    ) -> Applied {
        if keyframes != self.current.keyframes {
            let before = Step {
                keyframes: std::mem::replace(&mut self.current.keyframes, keyframes),
                selected: self.selected,
            };
            self.history.record(before);
            self.report = check(&self.current);
            self.revision += 1;
        }
        self.select(key);
        Applied { key, message }
    }

    /// Puts `step` back and returns what it replaced.
    fn restore(&mut self, step: Step) -> Step {
        let now = Step {
            keyframes: std::mem::replace(&mut self.current.keyframes, step.keyframes),
            selected: self.selected,
        };
        self.select(step.selected);
        self.report = check(&self.current);
        self.revision += 1;
        now
    }
}

/// The keyframe at `frame` on the straight line from `a` (at frame `fa`) to
/// `b` (at `fb`), each angle rounded to the nearest micro-radian.
fn interpolated(a: &Keyframe, b: &Keyframe, fa: u64, fb: u64, frame: u64) -> Keyframe {
    let u = (frame - fa) as f64 / (fb - fa) as f64;
    let lerp = |x: i32, y: i32| {
        let v = (f64::from(x) + (f64::from(y) - f64::from(x)) * u).round();
        v.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
    };
    Keyframe {
        interp: 0,
        roll: lerp(a.roll, b.roll),
        pitch: lerp(a.pitch, b.pitch),
        yaw: lerp(a.yaw, b.yaw),
        joints: a
            .joints
            .iter()
            .zip(&b.joints)
            .map(|(&x, &y)| lerp(x, y))
            .collect(),
    }
}

/// Refuses a motion the format cannot hold (an ERS-110 section 3 beyond its
/// 16-bit size, say): it must read back as written.
fn fits(m: &Mtn) -> Result<(), EditError> {
    let mut probe = m.clone();
    probe.warnings.clear();
    match mtn::decode(&mtn::encode(&probe)) {
        Ok(back) if back.warnings.is_empty() && back.keyframes == m.keyframes => Ok(()),
        Ok(back) => Err(EditError::Timing(format!(
            "{} keyframes do not fit the file: {}",
            m.keyframes.len(),
            back.warnings
                .first()
                .map_or("they read back differently", String::as_str)
        ))),
        Err(e) => Err(EditError::Timing(format!(
            "{} keyframes do not fit the file: {e}",
            m.keyframes.len()
        ))),
    }
}

/// Where an edited motion is saved by default: `NAME-edited.mtn` beside
/// `original`.
pub fn edited_path(original: &Path) -> PathBuf {
    let stem = original
        .file_stem()
        .map_or_else(|| "motion".into(), |s| s.to_string_lossy().into_owned());
    original.with_file_name(format!("{stem}-edited.mtn"))
}
