//! Timing for the benches: the median seconds per call over a number of
//! batches, reporting progress to whoever shows it.

use motion_viewer::error::Result;
use std::time::{Duration, Instant};

/// A batch repeats a call until it lasts this long, so a call of a few
/// microseconds (a 1 KB `.mtn` decode) is not lost in the clock's resolution.
const MIN_BATCH: Duration = Duration::from_millis(20);

/// Where a bench reports how far it has got (a progress bar on a terminal)
/// and what it noticed along the way (no GPU adapter…).
pub trait Progress {
    /// `steps` more timed batches are coming.
    fn plan(&self, steps: usize);
    /// What is being prepared or measured now.
    fn status(&self, message: &str);
    /// One timed batch is done.
    fn step(&self);
    /// Something the reader of the results should know.
    fn note(&self, message: &str);
}

/// A [`Progress`] that shows nothing and drops the notes (for tests).
#[cfg(test)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

#[cfg(test)]
impl Progress for Silent {
    fn plan(&self, _: usize) {}
    fn status(&self, _: &str) {}
    fn step(&self) {}
    fn note(&self, _: &str) {}
}

/// Times calls, `runs` batches each.
pub struct Timer<'a> {
    runs: usize,
    progress: &'a dyn Progress,
}

impl<'a> Timer<'a> {
    /// A timer taking the median of `runs` batches (at least 1).
    pub fn new(runs: usize, progress: &'a dyn Progress) -> Timer<'a> {
        Timer {
            runs: runs.max(1),
            progress,
        }
    }

    /// Where progress goes.
    pub fn progress(&self) -> &'a dyn Progress {
        self.progress
    }

    /// Announces `stages` more measurements (each `runs` batches).
    pub fn plan(&self, stages: usize) {
        self.progress.plan(stages * self.runs);
    }

    /// Median seconds per call of `f`. The first batch, which also finds how
    /// many calls a batch needs, is a warm-up and is not counted.
    pub fn secs_per_call(&self, stage: &str, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
        self.progress.status(stage);
        let mut calls = 1u32;
        loop {
            let start = Instant::now();
            for _ in 0..calls {
                f()?;
            }
            let took = start.elapsed();
            if took >= MIN_BATCH || calls >= 1 << 24 {
                break;
            }
            // Aim for twice the minimum so the timed batches clear it even when a little faster.
            let per_call = took.as_secs_f64() / f64::from(calls);
            let wanted = (2.0 * MIN_BATCH.as_secs_f64() / per_call.max(1e-9)).ceil();
            // At least double, at most 2^24 (doubling past 2^23 would put
            // the floor above the ceiling).
            calls = (wanted as u32).max(calls * 2).min(1 << 24);
        }
        let mut times = Vec::with_capacity(self.runs);
        for _ in 0..self.runs {
            let start = Instant::now();
            for _ in 0..calls {
                f()?;
            }
            times.push(start.elapsed().as_secs_f64() / f64::from(calls));
            self.progress.step();
        }
        Ok(median(&mut times))
    }
}

/// The median of `values` (the mean of the middle two for an even count).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn a_batch_runs_warm_up_then_runs_times() {
        let mut calls = 0;
        let secs = Timer::new(3, &Silent)
            .secs_per_call("sleep", || {
                calls += 1;
                std::thread::sleep(Duration::from_millis(25));
                Ok(())
            })
            .unwrap();
        assert_eq!(calls, 4);
        assert!(secs >= 0.025, "{secs}");
    }
}
