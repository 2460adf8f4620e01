//! Timing for `viewer bench`: the median seconds per call over `--runs`
//! batches, with a progress bar on stderr (drawn only on a terminal).

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::time::{Duration, Instant};

/// A batch repeats a call until it lasts this long, so a call of a few
/// microseconds (a 1 KB `.mtn` decode) is not lost in the clock's resolution.
const MIN_BATCH: Duration = Duration::from_millis(20);

/// Times calls, `runs` batches each, and shows how far the bench has got.
pub struct Timer {
    runs: usize,
    progress: ProgressBar,
}

impl Timer {
    /// A timer taking the median of `runs` batches (at least 1).
    pub fn new(runs: usize) -> Timer {
        let progress = ProgressBar::new(0);
        progress.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        Timer {
            runs: runs.max(1),
            progress,
        }
    }

    /// Announces `stages` more measurements (each `runs` batches) on the bar.
    pub fn plan(&self, stages: usize) {
        self.progress.inc_length((stages * self.runs) as u64);
    }

    /// Shows what is being prepared between measurements (generating, uploading).
    pub fn status(&self, message: String) {
        self.progress.set_message(message);
    }

    /// Median seconds per call of `f`. The first batch, which also finds how
    /// many calls a batch needs, is a warm-up and is not counted.
    pub fn secs_per_call(&self, stage: &str, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
        self.progress.set_message(stage.to_string());
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
            self.progress.inc(1);
        }
        Ok(median(&mut times))
    }

    /// Removes the bar before the results are printed.
    pub fn finish(&self) {
        self.progress.finish_and_clear();
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
}
