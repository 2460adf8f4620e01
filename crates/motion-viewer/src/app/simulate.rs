//! The simulated dog as the window runs it (X; feature `physics`): the
//! simulations of the AIBO tracks ([`crate::session::sim`]), stepped a
//! slice of each frame so that the window stays responsive (a page has no
//! threads), what the overlay shows of them ([`SimView`]) and the `sim …`
//! status lines. Without the feature the part stays empty: the toggle says
//! the viewer was built without it and the overlay's section says so too.

use super::host::Host;
use super::ui::sim::SimView;
use crate::scene::shapes::Primitives;
use crate::session::status::Status;
use crate::session::viewer::ViewerState;

/// The least a frame spends stepping a simulation, milliseconds: on a fast
/// window the slice stays this short, the frames smooth, and a motion
/// simulates at several times real time.
#[cfg(feature = "physics")]
const SLICE_MS: f64 = 12.0;
/// The most a frame spends stepping one, milliseconds: a slow window (a
/// page drawn in software) still answers at about 4 frames per second.
#[cfg(feature = "physics")]
const MAX_SLICE_MS: f64 = 250.0;
/// Steps taken between two looks at the clock (a 2 ms step costs about
/// 0.1 ms in a release build).
#[cfg(feature = "physics")]
const CHUNK_STEPS: usize = 20;

/// The simulations, what the overlay shows of them and the status lines
/// last printed.
#[derive(Default)]
pub(crate) struct Simulator {
    /// What the overlay shows (its panel toggle included).
    pub(crate) view: SimView,
    /// The simulated dog of each AIBO track.
    #[cfg(feature = "physics")]
    sims: crate::session::sim::Simulations,
    /// The `sim …` status lines last printed.
    #[cfg(feature = "physics")]
    printed: Vec<String>,
    /// When the last slice ended: the time since is what the rest of the
    /// frame took (drawing, the overlay), which the next slice matches.
    #[cfg(feature = "physics")]
    last_slice_end: Option<web_time::Instant>,
}

impl Simulator {
    /// The toggle (X or the panel's button): off → beside → ghost → off.
    pub(crate) fn toggle(&mut self, host: &mut impl Host, state: &ViewerState) {
        #[cfg(feature = "physics")]
        {
            self.sims.cycle();
            if self.sims.mode() == crate::session::sim::SimMode::Off {
                // Said once: the per-track lines stop.
                host.status("sim off");
                self.printed.clear();
            }
            self.view = sim_view(&self.sims, state);
        }
        #[cfg(not(feature = "physics"))]
        {
            let _ = state;
            host.log("this viewer was built without the simulator (feature `physics`)");
        }
    }

    /// Carries out the panel's toggle if it was pressed this frame; true
    /// when it was.
    pub(crate) fn follow_panel(&mut self, host: &mut impl Host, state: &ViewerState) -> bool {
        let toggled = std::mem::take(&mut self.view.toggled);
        if toggled {
            self.toggle(host, state);
        }
        toggled
    }

    /// Follows the tracks with the simulations and steps the one under
    /// way for a slice of this frame ([`slice_ms`]); returns true while
    /// work is left (the window keeps drawing until it is done).
    #[cfg(feature = "physics")]
    pub(crate) fn step(&mut self, state: &ViewerState) -> bool {
        let version = self.sims.version();
        self.sims.sync(state);
        let started = web_time::Instant::now();
        let rest_ms = self
            .last_slice_end
            .map(|end| started.duration_since(end).as_secs_f64() * 1e3);
        let slice = slice_ms(rest_ms);
        let mut busy = self.sims.busy();
        while busy && started.elapsed().as_secs_f64() * 1e3 < slice {
            busy = self.sims.advance(CHUNK_STEPS);
        }
        // Only while a simulation runs does the frame's rest count: a slice
        // after an idle pause starts from the least.
        self.last_slice_end = busy.then(web_time::Instant::now);
        if self.sims.version() != version || busy || self.view.mode != self.sims.mode().name() {
            let view = sim_view(&self.sims, state);
            if view.version == self.view.version && self.view.available {
                // Only the progress moved: keep the bands and curves.
                self.view.verdicts = view.verdicts;
                self.view.mode = view.mode;
            } else {
                self.view = view;
            }
        }
        busy
    }

    /// Without the simulator there is never work left.
    #[cfg(not(feature = "physics"))]
    pub(crate) fn step(&mut self, _state: &ViewerState) -> bool {
        false
    }

    /// The simulated dogs at `time_s`, placed beside or over their tracks.
    pub(crate) fn primitives(&self, state: &ViewerState, time_s: f64) -> Primitives {
        #[cfg(feature = "physics")]
        return self.sims.primitives(state, time_s);
        #[cfg(not(feature = "physics"))]
        {
            let _ = (state, time_s);
            Primitives::default()
        }
    }

    /// Puts the simulations into `status` and prints the `sim …` lines
    /// that are new since the last frame.
    pub(crate) fn report(&mut self, host: &mut impl Host, status: &mut Status) {
        #[cfg(feature = "physics")]
        {
            status.sim = self.sims.status();
            let lines = status.sim.as_ref().map_or_else(Vec::new, |s| s.lines());
            if lines != self.printed {
                for line in lines.iter().filter(|l| !self.printed.contains(l)) {
                    host.status(line);
                }
                self.printed = lines;
            }
        }
        #[cfg(not(feature = "physics"))]
        let _ = (host, status);
    }
}

/// How long this frame's slice of simulation lasts, milliseconds, given
/// what the rest of the last frame took (`None`: no slice ran just before):
/// as long as that rest, between [`SLICE_MS`] and [`MAX_SLICE_MS`]. A fixed
/// slice starved a slow page (12 ms of simulation in a frame of 100 ms
/// drawn in software: 0.35× real time); matching the rest gives the
/// simulation half of a slow frame and leaves a fast one smooth.
#[cfg(feature = "physics")]
fn slice_ms(rest_ms: Option<f64>) -> f64 {
    match rest_ms {
        Some(rest) if rest.is_finite() => rest.clamp(SLICE_MS, MAX_SLICE_MS),
        _ => SLICE_MS,
    }
}

/// What the overlay shows of `sims`.
#[cfg(feature = "physics")]
fn sim_view(sims: &crate::session::sim::Simulations, state: &ViewerState) -> SimView {
    use super::ui::sim::Band;
    use std::sync::Arc;
    let tracks = 0..state.tracks().len();
    SimView {
        available: true,
        mode: sims.mode().name(),
        verdicts: sims
            .status()
            .map(|s| s.tracks.into_iter().map(|t| (t.track, t.text)).collect())
            .unwrap_or_default(),
        bands: tracks
            .clone()
            .flat_map(|i| {
                sims.marks(i).iter().map(move |m| Band {
                    track: i,
                    t0: m.t0,
                    t1: m.t1,
                    fall: m.fall,
                    text: format!("{}: {}", state.tracks()[i].name(), m.text),
                })
            })
            .collect(),
        reached: tracks
            .flat_map(|i| {
                sims.reached(i)
                    .into_iter()
                    .map(move |(name, times, values)| {
                        let series = crate::curves::Series::new(name.clone(), times, values);
                        (i, name, Arc::new(series))
                    })
            })
            .collect(),
        version: sims.version(),
        toggled: false,
    }
}

#[cfg(all(test, feature = "physics"))]
mod tests {
    use super::*;
    use crate::app::test_host::{RecordingHost, sony};

    #[test]
    fn the_slice_matches_the_rest_of_a_slow_frame_within_bounds() {
        // A fast frame (5 ms besides the slice) keeps the least slice; a
        // page whose drawing took 100 ms gets as much for the simulation.
        assert_eq!(slice_ms(None), SLICE_MS);
        assert_eq!(slice_ms(Some(5.0)), SLICE_MS);
        assert_eq!(slice_ms(Some(100.0)), 100.0);
        assert_eq!(slice_ms(Some(10_000.0)), MAX_SLICE_MS);
        assert_eq!(slice_ms(Some(f64::NAN)), SLICE_MS);
    }

    #[test]
    fn the_toggle_runs_the_dog_in_slices_and_says_each_line_once() {
        let state = sony();
        let mut host = RecordingHost::default();
        let mut sim = Simulator::default();
        sim.toggle(&mut host, &state);
        assert_eq!((sim.view.available, sim.view.mode), (true, "beside"));
        // Slices until the simulation is done.
        let mut slices = 0;
        while sim.step(&state) {
            slices += 1;
            assert!(slices < 100_000, "the simulation never finished");
        }
        let [(0, verdict)] = &sim.view.verdicts[..] else {
            panic!("one verdict, got {:?}", sim.view.verdicts);
        };
        assert!(verdict.starts_with("simulated: stands"), "{verdict}");
        // Its line, once however often the frame reports.
        for _ in 0..2 {
            let mut status = Status::of(&state, "test", 0.0);
            sim.report(&mut host, &mut status);
            assert_eq!(status.sim.unwrap().tracks[0].state, "done");
        }
        let [line] = &host.status[..] else {
            panic!("one line, got {:?}", host.status);
        };
        assert!(line.starts_with("sim 0 beside done duration_s 4.88 falls false"));
        // The panel's button is the same toggle: ghost, then off (said once).
        sim.view.toggled = true;
        assert!(sim.follow_panel(&mut host, &state));
        assert!(
            !sim.follow_panel(&mut host, &state),
            "one press, one toggle"
        );
        assert_eq!(sim.view.mode, "ghost");
        sim.toggle(&mut host, &state);
        let mut status = Status::of(&state, "test", 0.0);
        sim.report(&mut host, &mut status);
        assert_eq!(host.status[1..], ["sim off"]);
        assert!(sim.primitives(&state, 1.0).boxes.is_empty());
    }
}
