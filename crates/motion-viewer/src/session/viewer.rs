//! What the window shows, as plain data: the tracks with their visibility,
//! solo and focus, the shared timeline with its loop range, the layout, and
//! the errors of the last load. No window, GPU, file or clock here: the host
//! hands files in as [`Input`]s and wall-clock time as seconds, so the logic
//! is tested without a display and runs unchanged in a browser.
//!
//! The window draws from a [`ViewerState`]: it rebuilds its GPU stage
//! whenever [`ViewerState::generation`] changes (tracks added or reloaded,
//! layout switched) and asks [`ViewerState::is_shown`] for each track every
//! frame.
//!
//! An ODA archive opened whole plays its first motion and keeps an
//! [`ArchiveList`] of its entries; [`ViewerState::play_entry`] puts another
//! in that motion's place.

use super::archive::ArchiveList;
pub use super::entry::TrackEntry;
use super::mtn::finding_marks;
use super::playback::{self, LoopRange};
use crate::anim::timeline::Timeline;
use crate::error::{Error, Result};
use crate::formats::{Kind, probe};
use crate::open::archive::entry_path;
use crate::open::{Archives, Input, Loaded, Materials, OpenOptions, open_held};
use crate::scene::{Layout, Plan, Track, auto_layout};
use crate::summary::summarize;
use glam::Vec3;
use std::path::{Path, PathBuf};

/// What a reload did.
#[derive(Debug, Clone, PartialEq)]
pub enum Reload {
    /// The track at this index now shows the new version.
    Replaced(usize),
    /// The new version failed; the track at this index keeps the old one.
    Kept(usize, String),
    /// The track at this index has unsaved edits: it keeps them, and the
    /// file's new version is not shown (the message says so).
    Unsaved(usize, String),
    /// No track is made from exactly these files.
    Unknown,
}

/// The window's state; see the module docs.
#[derive(Debug)]
pub struct ViewerState {
    tracks: Vec<TrackEntry>,
    /// The shared clock.
    pub timeline: Timeline,
    loop_range: Option<LoopRange>,
    solo: Option<usize>,
    focus: Option<usize>,
    /// The layout asked for on the command line; `None` picks one by the tracks.
    layout_asked: Option<Layout>,
    /// Where to start once the first tracks arrive (an empty timeline holds only 0).
    start_s: Option<f64>,
    plan: Plan,
    generation: u64,
    revision: u64,
    /// What the last edit has to say ([`super::EditStatus`]).
    pub(super) edit_message: Option<String>,
    error: Option<String>,
    warnings: Vec<String>,
    archives: Vec<ArchiveList>,
}

impl ViewerState {
    /// No tracks yet, with `timeline`'s speed, loop mode and pause state
    /// kept as tracks arrive, starting at `start_s` once the first do;
    /// `layout` as asked (`None`: automatic).
    pub fn new(timeline: Timeline, start_s: f64, layout: Option<Layout>) -> ViewerState {
        ViewerState {
            start_s: Some(start_s),
            tracks: Vec::new(),
            timeline,
            loop_range: None,
            solo: None,
            focus: None,
            layout_asked: layout,
            plan: Plan::new(&[]).expect("an empty plan always builds"),
            generation: 0,
            revision: 0,
            edit_message: None,
            error: None,
            warnings: Vec::new(),
            archives: Vec::new(),
        }
    }

    /// The tracks, in the order they were opened.
    pub fn tracks(&self) -> &[TrackEntry] {
        &self.tracks
    }

    /// The decoded tracks, in order (what the stage is built from): clones
    /// that share every MEMG scene and motion and MRTK recording with the
    /// session's ([`Track`]).
    pub fn decoded(&self) -> Vec<Track> {
        self.tracks.iter().map(|e| e.track.clone()).collect()
    }

    /// Where each track stands and its scale factor.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The layout in use.
    pub fn layout(&self) -> Layout {
        self.plan.layout
    }

    /// Bumped whenever the tracks or their layout change: the stage must be rebuilt.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Bumped whenever what any track holds changes: with every
    /// [`ViewerState::generation`], and with every edit of a motion
    /// ([`super::EditStatus`]), which keeps the stage and only swaps the motion.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The last load error (an unknown or broken file, a reload that failed).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Warnings of the last load (materials that could not be read…).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Forgets the last load error.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn clear_error(&mut self) {
        self.error = None;
    }

    /// The entry lists of the ODA archives opened whole, in the order opened.
    pub fn archives(&self) -> &[ArchiveList] {
        &self.archives
    }

    /// An archive's entry list, to edit its search text.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn archive_mut(&mut self, i: usize) -> Option<&mut ArchiveList> {
        self.archives.get_mut(i)
    }

    /// Decodes `inputs` and adds their tracks (files that make a track
    /// already loaded replace it, time kept). `.mtl` libraries come from
    /// among the inputs first, then from `materials`. An ODA archive without
    /// an entry named adds its first motion and lists its entries
    /// ([`ViewerState::archives`]). On failure nothing changes but
    /// [`ViewerState::error`]. Returns how many tracks were added or replaced.
    pub fn open(&mut self, inputs: &[Input], materials: &dyn Materials) -> Result<usize> {
        let result = self.try_open(inputs, materials);
        if let Err(e) = &result {
            self.error = Some(e.to_string());
        }
        result
    }

    fn try_open(&mut self, inputs: &[Input], materials: &dyn Materials) -> Result<usize> {
        let options = OpenOptions {
            archives: Archives::FirstMotion,
            materials: Some(materials),
            ..OpenOptions::default()
        };
        let Loaded {
            tracks: loaded,
            warnings,
            ..
        } = open_held(inputs, &options)?;
        let lists = inputs
            .iter()
            .filter(|i| i.entry.is_none() && probe(&i.data) == Some(Kind::Oda))
            .map(|i| ArchiveList::new(&i.path, i.data.to_vec()))
            .collect::<Result<Vec<_>>>()?;
        // A mapped archive copied for its list: unchanged while read.
        for input in inputs {
            input.data.check()?;
        }
        if loaded.is_empty() {
            return Err(Error::mismatch(
                inputs.first().map_or_else(PathBuf::new, |i| i.path.clone()),
                "no motion among the files given",
            ));
        }
        let count = loaded.len();
        let mut tracks = self.tracks.clone();
        for track in loaded {
            let entry = TrackEntry::with_inputs(track, inputs);
            let paths: Vec<&Path> = entry.sources.iter().map(PathBuf::as_path).collect();
            match tracks.iter().position(|e| e.same_sources(&paths)) {
                Some(i) => {
                    tracks[i] = TrackEntry {
                        visible: tracks[i].visible,
                        ..entry
                    }
                }
                None => tracks.push(entry),
            }
        }
        self.commit(tracks)?;
        for list in lists {
            // The same archive opened again starts its list over.
            self.archives.retain(|l| l.path() != list.path());
            self.archives.push(list);
        }
        self.warnings = warnings;
        self.error = None;
        Ok(count)
    }

    /// Puts entry `entry` of archive list `list` on the stage in place of
    /// the entry playing there (visibility kept), from the start of the
    /// timeline. On failure nothing changes but [`ViewerState::error`].
    pub fn play_entry(&mut self, list: usize, entry: usize) -> Result<()> {
        let result = self.try_play_entry(list, entry);
        if let Err(e) = &result {
            self.error = Some(e.to_string());
        }
        result
    }

    fn try_play_entry(&mut self, list: usize, entry: usize) -> Result<()> {
        let Some(archive) = self.archives.get(list) else {
            return Ok(());
        };
        let track = archive.load(entry)?;
        let playing = archive.playing_path();
        let mut tracks = self.tracks.clone();
        let new = TrackEntry::new(track);
        match tracks.iter().position(|e| e.track.path() == playing) {
            Some(i) => {
                tracks[i] = TrackEntry {
                    visible: tracks[i].visible,
                    ..new
                }
            }
            None => tracks.push(new),
        }
        self.commit(tracks)?;
        self.archives[list].set_playing(entry);
        self.timeline.seek(0.0);
        self.error = None;
        Ok(())
    }

    /// The new content of the files of one track (`inputs` names exactly
    /// its [`TrackEntry::sources`]): decodes it and, if it loads, shows it in
    /// place of the old version with the time kept; if not, keeps the old
    /// version on screen and records the error on the track and in
    /// [`ViewerState::error`]. A track with unsaved edits keeps them and is
    /// not reloaded ([`Reload::Unsaved`]).
    pub fn reload(&mut self, inputs: &[Input], materials: &dyn Materials) -> Reload {
        let names: Vec<PathBuf> = inputs.iter().map(input_name).collect();
        let paths: Vec<&Path> = names.iter().map(PathBuf::as_path).collect();
        let Some(index) = self.tracks.iter().position(|e| e.same_sources(&paths)) else {
            return Reload::Unknown;
        };
        // Replacing the track would drop the user's edits without asking.
        if self.tracks[index]
            .editor
            .as_ref()
            .is_some_and(|e| e.is_dirty())
        {
            let message = format!(
                "{} changed on disk: not reloaded, it has unsaved edits \
                 (save or undo them; the next change on disk reloads it)",
                self.tracks[index].name()
            );
            self.edit_message = Some(message.clone());
            return Reload::Unsaved(index, message);
        }
        let options = OpenOptions {
            archives: Archives::Ask,
            materials: Some(materials),
            ..OpenOptions::default()
        };
        let loaded = open_held(inputs, &options).and_then(|loaded| {
            let Loaded {
                mut tracks,
                warnings,
                ..
            } = loaded;
            match (tracks.pop(), tracks.is_empty()) {
                (Some(track), true) => Ok((track, warnings)),
                _ => Err(Error::mismatch(
                    self.tracks[index].name(),
                    "the files no longer make exactly one track",
                )),
            }
        });
        let outcome = loaded.and_then(|(track, warnings)| {
            let mut tracks = self.tracks.clone();
            tracks[index] = TrackEntry {
                visible: tracks[index].visible,
                ..TrackEntry::with_inputs(track, inputs)
            };
            self.commit(tracks)?;
            self.warnings = warnings;
            Ok(())
        });
        match outcome {
            Ok(()) => {
                // An archive whose entry reloaded lists its new content.
                for input in inputs.iter().filter(|i| i.entry.is_some()) {
                    if let Some(list) = self.archives.iter_mut().find(|l| l.path() == input.path)
                        && let Ok(new) = list.refreshed(input.data.to_vec())
                    {
                        *list = new;
                    }
                }
                self.error = None;
                Reload::Replaced(index)
            }
            Err(e) => {
                let message = e.to_string();
                self.tracks[index].error = Some(message.clone());
                self.error = Some(message.clone());
                Reload::Kept(index, message)
            }
        }
    }

    /// Places `tracks` and makes them current, keeping the clock's time,
    /// speed, direction, loop mode and play state.
    fn commit(&mut self, tracks: Vec<TrackEntry>) -> Result<()> {
        let decoded: Vec<Track> = tracks.iter().map(|e| e.track.clone()).collect();
        let layout = self.layout_asked.unwrap_or_else(|| auto_layout(&decoded));
        let plan = Plan::with_layout(&decoded, layout)?;
        let old = &self.timeline;
        let start = match tracks.is_empty() {
            true => old.time_s(),
            false => self.start_s.take().unwrap_or(old.time_s()),
        };
        let mut timeline = Timeline::new(plan.duration_s, plan.frame_period_s)
            .with_loop(old.loop_mode())
            .with_start(start)
            .with_paused(!old.is_playing());
        // The old speed was accepted once, so it is finite and non-zero.
        let _ = timeline.set_speed(old.speed());
        self.timeline = timeline;
        self.tracks = tracks;
        self.plan = plan;
        self.loop_range = self
            .loop_range
            .and_then(|r| r.clamped(self.timeline.duration_s()));
        self.generation += 1;
        self.revision += 1;
        Ok(())
    }

    /// Switches between [`Layout::Fit`] and [`Layout::TrueScale`].
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn set_layout(&mut self, layout: Layout) {
        let previous = self.layout_asked.replace(layout);
        let tracks = self.tracks.clone();
        if let Err(e) = self.commit(tracks) {
            // Every track placed before, so this cannot fail; keep the old one if it does.
            self.layout_asked = previous;
            self.error = Some(e.to_string());
        }
    }

    /// Whether track `i` is drawn: the solo track alone while one is soloed,
    /// else every track whose visibility is on.
    pub fn is_shown(&self, i: usize) -> bool {
        match self.solo {
            Some(s) => s == i,
            None => self.tracks.get(i).is_some_and(|e| e.visible),
        }
    }

    /// Flips track `i`'s visibility (ignored out of range).
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn toggle_visible(&mut self, i: usize) {
        if let Some(e) = self.tracks.get_mut(i) {
            e.visible = !e.visible;
        }
    }

    /// The soloed track, if any.
    pub fn solo(&self) -> Option<usize> {
        self.solo
    }

    /// Solos track `i`, or ends the solo if it is the soloed one.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn toggle_solo(&mut self, i: usize) {
        if i < self.tracks.len() {
            self.solo = if self.solo == Some(i) { None } else { Some(i) };
        }
    }

    /// The focused track: the one the camera frames and keyframe jumps follow.
    pub fn focus(&self) -> Option<usize> {
        self.focus
    }

    /// Focuses track `i` (`None`: every track).
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn set_focus(&mut self, i: Option<usize>) {
        self.focus = i.filter(|&i| i < self.tracks.len());
    }

    /// Focuses the next (`step` = 1) or previous (−1) track, wrapping; from
    /// no focus, the first or last.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn cycle_focus(&mut self, step: i64) {
        let n = self.tracks.len() as i64;
        if n == 0 {
            return;
        }
        let next = match self.focus {
            Some(i) => (i as i64 + step).rem_euclid(n),
            None if step >= 0 => 0,
            None => n - 1,
        };
        self.focus = Some(next as usize);
    }

    /// The box to frame: the focused track's over its whole motion, else every track's.
    pub fn framing(&self) -> (Vec3, Vec3) {
        self.focus
            .and_then(|i| self.plan.placements.get(i))
            .map_or(self.plan.bounds, |p| (p.min, p.max))
    }

    /// Keyframe times the jumps use: the focused track's, else those of
    /// every shown track, merged.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn jump_times(&self) -> Vec<f64> {
        match self.focus {
            Some(i) => self.tracks[i].keyframes.clone(),
            None => {
                let mut times: Vec<f64> = (0..self.tracks.len())
                    .filter(|&i| self.is_shown(i))
                    .flat_map(|i| self.tracks[i].keyframes.iter().copied())
                    .collect();
                times.sort_by(f64::total_cmp);
                times.dedup();
                times
            }
        }
    }

    /// Jumps to the next keyframe after the current time (`forward`) or the
    /// previous one before it; stays put when there is none.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn jump_keyframe(&mut self, forward: bool) {
        let times = self.jump_times();
        let now = self.timeline.time_s();
        let eps = 1e-6 * self.timeline.frame_period_s();
        let target = if forward {
            times.iter().copied().find(|&t| t > now + eps)
        } else {
            times.iter().rev().copied().find(|&t| t < now - eps)
        };
        if let Some(t) = target {
            self.timeline.seek(t);
        }
    }

    /// The loop range, seconds, if one is set.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn loop_range(&self) -> Option<(f64, f64)> {
        self.loop_range.map(|r| (r.start, r.end))
    }

    /// Loops playback over `a..b` (either order, clamped to the timeline);
    /// a range shorter than one frame clears it.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn set_loop_range(&mut self, a: f64, b: f64) {
        self.loop_range = LoopRange::new(a, b, self.timeline.frame_period_s())
            .and_then(|r| r.clamped(self.timeline.duration_s()));
        if let Some(r) = self.loop_range {
            r.contain(&mut self.timeline);
        }
    }

    /// Ends the loop range.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn clear_loop_range(&mut self) {
        self.loop_range = None;
    }

    /// Advances the clock by `dt_wall_s` seconds of wall time, inside the
    /// loop range when one is set.
    pub fn advance(&mut self, dt_wall_s: f64) {
        match self.loop_range {
            Some(r) => r.advance(&mut self.timeline, dt_wall_s),
            None => self.timeline.advance(dt_wall_s),
        }
    }

    /// Play or pause; playing from the end of a loop range (in the direction
    /// of travel) starts it over.
    #[cfg_attr(not(feature = "window"), allow(dead_code))]
    pub(crate) fn toggle_play(&mut self) {
        if let (Some(r), false) = (self.loop_range, self.timeline.is_playing()) {
            r.rewind_if_done(&mut self.timeline);
        }
        self.timeline.toggle();
    }
}

impl ViewerState {
    /// Track `i`, for its editor ([`super::EditStatus`]).
    pub(super) fn entry_mut(&mut self, i: usize) -> Option<&mut TrackEntry> {
        self.tracks.get_mut(i)
    }

    /// Track `i`'s motion becomes its editor's: its keyframes, findings and
    /// summary follow; a new duration places the tracks again (a new
    /// [`ViewerState::generation`]), else only [`ViewerState::revision`] moves.
    pub(super) fn edited(&mut self, i: usize) {
        let Some(e) = self.tracks.get_mut(i) else {
            return;
        };
        let (Some(editor), Track::Mtn { motion, .. }) = (&e.editor, &mut e.track) else {
            return;
        };
        let duration = motion.duration_s();
        *motion = editor.motion().clone();
        let moved = motion.duration_s() != duration;
        e.keyframes = playback::keyframes(&e.track);
        e.findings = finding_marks(&e.track);
        e.summary = summarize(&e.track);
        self.revision += 1;
        if moved {
            let tracks = self.tracks.clone();
            if let Err(err) = self.commit(tracks) {
                self.error = Some(err.to_string());
            }
        }
    }
}

/// The name a track knows `input` by: its path, or `ARCHIVE:NAME` for one
/// entry of an archive.
fn input_name(input: &Input) -> PathBuf {
    match &input.entry {
        Some(entry) => entry_path(&input.path, entry),
        None => input.path.clone(),
    }
}

#[cfg(test)]
mod tests;
