//! What the curves panel keeps between frames: each track's channels, the
//! series it has sampled (once, with [`curves::sample_frames`]) and the A−B
//! differences it has formed, all dropped when
//! [`ViewerState::revision`] moves (tracks opened, reloaded or edited).

use crate::curves::{self, Channel, Series};
use crate::scene::Track;
use crate::session::viewer::ViewerState;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// One channel of one track: what the panel selects and draws.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChannelKey {
    /// The track, as an index into [`ViewerState::tracks`].
    pub track: usize,
    /// The channel's name.
    pub name: String,
}

/// Channels and series of the tracks of one [`ViewerState::revision`].
#[derive(Debug, Clone, Default)]
pub struct SeriesCache {
    revision: Option<u64>,
    channels: Vec<Vec<Channel>>,
    /// AIBO keyframe times per track (`None` for other formats).
    keyframes: Vec<Option<Arc<Vec<f64>>>>,
    series: HashMap<ChannelKey, Arc<Series>>,
    diffs: HashMap<(ChannelKey, usize), Option<Arc<Series>>>,
    /// Channels whose sampling failed: not retried until the tracks change.
    failed: HashSet<ChannelKey>,
    /// The last sampling error, for the panel to show.
    pub error: Option<String>,
    /// Calls to [`curves::sample_frames`] so far (the cache's tests count them).
    pub samplings: u64,
}

impl SeriesCache {
    /// Follows `state`: everything is dropped and the channels listed again
    /// when its revision moved. Returns true when that happened.
    pub fn sync(&mut self, state: &ViewerState) -> bool {
        if self.revision == Some(state.revision()) {
            return false;
        }
        *self = SeriesCache {
            revision: Some(state.revision()),
            channels: state
                .tracks()
                .iter()
                .map(|e| curves::channels(&e.track))
                .collect(),
            keyframes: state
                .tracks()
                .iter()
                .map(|e| match &e.track {
                    Track::Mtn { motion, .. } => Some(Arc::new(motion.keyframe_times_s())),
                    _ => None,
                })
                .collect(),
            samplings: self.samplings,
            ..SeriesCache::default()
        };
        true
    }

    /// Track `track`'s channels (none for an unknown track).
    pub fn channels(&self, track: usize) -> &[Channel] {
        self.channels.get(track).map_or(&[], Vec::as_slice)
    }

    /// The channel `key` names, if its track has it.
    pub fn channel(&self, key: &ChannelKey) -> Option<&Channel> {
        self.channels(key.track).iter().find(|c| c.name == key.name)
    }

    /// Track `track`'s AIBO keyframe times, if it is an AIBO motion.
    pub fn keyframes(&self, track: usize) -> Option<Arc<Vec<f64>>> {
        self.keyframes.get(track).cloned().flatten()
    }

    /// The series of `keys`, in order, sampling those not yet sampled (one
    /// [`curves::sample_frames`] call per track); `None` for a channel that
    /// could not be sampled.
    pub fn series(&mut self, state: &ViewerState, keys: &[ChannelKey]) -> Vec<Option<Arc<Series>>> {
        let missing: Vec<&ChannelKey> = keys
            .iter()
            .filter(|k| !self.series.contains_key(*k) && !self.failed.contains(*k))
            .collect();
        let mut tracks: Vec<usize> = missing.iter().map(|k| k.track).collect();
        tracks.sort_unstable();
        tracks.dedup();
        for track in tracks {
            let names: Vec<&str> = missing
                .iter()
                .filter(|k| k.track == track)
                .map(|k| k.name.as_str())
                .collect();
            let Some(entry) = state.tracks().get(track) else {
                continue;
            };
            self.samplings += 1;
            match curves::sample_frames(&entry.track, &names) {
                Ok(sampled) => {
                    for s in sampled {
                        let key = ChannelKey {
                            track,
                            name: s.name.clone(),
                        };
                        self.series.insert(key, Arc::new(s));
                    }
                }
                Err(e) => {
                    self.error = Some(e.to_string());
                    self.failed.extend(names.iter().map(|&name| ChannelKey {
                        track,
                        name: name.to_string(),
                    }));
                }
            }
        }
        keys.iter().map(|k| self.series.get(k).cloned()).collect()
    }

    /// `a` minus the same-named channel of track `b`, over the shorter of the
    /// two motions, on the finer of their two sample grids (formed once).
    pub fn difference(
        &mut self,
        state: &ViewerState,
        a: &ChannelKey,
        b: usize,
    ) -> Option<Arc<Series>> {
        let id = (a.clone(), b);
        if let Some(done) = self.diffs.get(&id) {
            return done.clone();
        }
        let b_key = ChannelKey {
            track: b,
            name: a.name.clone(),
        };
        let both = self.series(state, &[a.clone(), b_key]);
        let diff = match (&both[0], &both[1]) {
            (Some(sa), Some(sb)) => {
                let duration =
                    |i: usize| state.tracks().get(i).map_or(0.0, |e| e.track.duration_s());
                let end = duration(a.track).min(duration(b));
                Some(Arc::new(difference(sa, sb, end)))
            }
            _ => None,
        };
        self.diffs.insert(id, diff.clone());
        diff
    }
}

/// `a − b` at the samples of whichever series is sampled more finely, up to `end_s`.
fn difference(a: &Series, b: &Series, end_s: f64) -> Series {
    let rate = |s: &Series| match (s.times.first(), s.times.last()) {
        (Some(first), Some(last)) if last > first => s.times.len() as f64 / (last - first),
        _ => 0.0,
    };
    let grid = if rate(b) > rate(a) { b } else { a };
    let mut times = Vec::new();
    let mut values = Vec::new();
    for &t in grid.times.iter().take_while(|&&t| t <= end_s + 1e-9) {
        if let (Some(va), Some(vb)) = (a.value_at(t), b.value_at(t)) {
            times.push(t);
            values.push(va - vb);
        }
    }
    Series::new(format!("{} A−B", a.name), times, values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::timeline::Timeline;
    use crate::open::{DiskMaterials, Input};

    fn state_with(files: &[&str]) -> ViewerState {
        let mut state = ViewerState::new(Timeline::new(0.0, 1.0 / 60.0), 0.0, None);
        let inputs: Vec<Input> = files
            .iter()
            .map(|f| {
                let path = format!("{}/../../data/{f}", env!("CARGO_MANIFEST_DIR"));
                Input::read(std::path::Path::new(&path)).unwrap()
            })
            .collect();
        state.open(&inputs, &DiskMaterials).unwrap();
        state
    }

    #[test]
    fn an_edit_that_keeps_the_duration_is_drawn_at_once() {
        // An edit moves the state's revision but not its generation (the
        // stage keeps its layout): the curves must follow it all the same.
        let mut state = state_with(&["sony_stand_sit.mtn"]);
        let mut cache = SeriesCache::default();
        cache.sync(&state);
        let joint = cache.channels(0)[3].name.clone();
        let key = ChannelKey {
            track: 0,
            name: joint.clone(),
        };
        let times = state.editor(0).unwrap().keyframe_times_s();
        let before = cache.series(&state, std::slice::from_ref(&key));
        let at_key = |s: &Series| s.value_at(times[1]).unwrap();
        let old = at_key(before[0].as_ref().unwrap());
        let generation = state.generation();
        let target = if old > 0.0 { old - 10.0 } else { old + 10.0 };
        state.edit(0, |e| e.set_value(1, &joint, target)).unwrap();
        assert_eq!(state.generation(), generation, "the layout is kept");
        assert!(cache.sync(&state), "the edit drops the series");
        let after = cache.series(&state, &[key]);
        let new = at_key(after[0].as_ref().unwrap());
        // Angles are stored in micro-radians: within one of the target.
        assert!((new - target).abs() < 1e-4, "{new} against {target}");
    }

    #[test]
    fn series_are_sampled_once_per_revision() {
        let mut state = state_with(&["sony_stand_sit.mtn"]);
        let mut cache = SeriesCache::default();
        assert!(cache.sync(&state));
        let names: Vec<ChannelKey> = cache.channels(0)[3..5]
            .iter()
            .map(|c| ChannelKey {
                track: 0,
                name: c.name.clone(),
            })
            .collect();
        let first = cache.series(&state, &names);
        assert_eq!(cache.samplings, 1);
        let again = cache.series(&state, &names);
        assert_eq!(cache.samplings, 1, "the second call samples nothing");
        assert!(Arc::ptr_eq(
            first[0].as_ref().unwrap(),
            again[0].as_ref().unwrap()
        ));
        // 305 frames of 16 ms: a sample per frame, 0..=305.
        assert_eq!(first[0].as_ref().unwrap().times.len(), 306);
        assert!(!cache.sync(&state), "same revision: kept");
        state.set_layout(state.layout().toggled());
        assert!(cache.sync(&state), "a new revision drops the series");
        let fresh = cache.series(&state, &names);
        assert_eq!(cache.samplings, 2);
        assert!(!Arc::ptr_eq(
            first[0].as_ref().unwrap(),
            fresh[0].as_ref().unwrap()
        ));
    }

    #[test]
    fn a_track_against_itself_differs_by_nothing() {
        let state = state_with(&["sony_stand_sit.mtn", "skitter_sleep_to_sit.mtn"]);
        let mut cache = SeriesCache::default();
        cache.sync(&state);
        let shared = cache
            .channels(0)
            .iter()
            .find(|c| {
                c.limits.is_some()
                    && cache
                        .channel(&ChannelKey {
                            track: 1,
                            name: c.name.clone(),
                        })
                        .is_some()
            })
            .map(|c| c.name.clone());
        let Some(name) = shared else {
            panic!("the two ERS-210 motions share joint channels");
        };
        let a = ChannelKey { track: 0, name };
        let same = cache.difference(&state, &a, 0).unwrap();
        assert!(same.values.iter().all(|v| *v == 0.0));
        let diff = cache.difference(&state, &a, 1).unwrap();
        // Over the shorter motion: the Skitter example's 40 frames of 16 ms.
        let last = *diff.times.last().unwrap();
        assert!((last - 0.64).abs() < 1e-9, "{last}");
        let sa = cache.series(&state, std::slice::from_ref(&a))[0]
            .clone()
            .unwrap();
        let sb = cache.series(
            &state,
            &[ChannelKey {
                track: 1,
                ..a.clone()
            }],
        )[0]
        .clone()
        .unwrap();
        let t = diff.times[10];
        let want = sa.value_at(t).unwrap() - sb.value_at(t).unwrap();
        assert!((diff.values[10] - want).abs() < 1e-12);
    }
}
