//! A plain numeric table (time plus channels), written as CSV or JSON.

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// Every sampled frame of one motion: named columns, one row per sample.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Column names; the first is `time_s`.
    pub columns: Vec<String>,
    /// Rows of `columns.len()` values.
    pub rows: Vec<Vec<f64>>,
}

impl Table {
    /// Writes the table as CSV.
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        let file = std::fs::File::create(path)
            .with_context(|| format!("{}: cannot create", path.display()))?;
        let mut w = std::io::BufWriter::new(file);
        writeln!(w, "{}", self.columns.join(","))?;
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(|v| format!("{v}")).collect();
            writeln!(w, "{}", cells.join(","))?;
        }
        w.flush()
            .with_context(|| format!("{}: write failed", path.display()))
    }

    /// The table as a JSON array of objects keyed by column.
    pub fn to_json(&self) -> serde_json::Value {
        self.rows
            .iter()
            .map(|row| {
                let obj: serde_json::Map<String, serde_json::Value> = self
                    .columns
                    .iter()
                    .zip(row)
                    .map(|(c, v)| (c.clone(), serde_json::json!(v)))
                    .collect();
                serde_json::Value::Object(obj)
            })
            .collect()
    }
}

/// Most rows one export writes; beyond it the sampling rate is absurd for the motion.
pub const MAX_SAMPLES: usize = 10_000_000;

/// Sample times from 0 to `duration` (inclusive of the last frame) every
/// `period` seconds, at most [`MAX_SAMPLES`] of them.
pub fn sample_times(duration: f64, period: f64) -> Vec<f64> {
    if period.is_nan() || period <= 0.0 || !duration.is_finite() || duration < 0.0 {
        return vec![0.0];
    }
    let n = ((duration / period + 1e-9).floor() as usize).min(MAX_SAMPLES - 1);
    (0..=n).map(|i| i as f64 * period).collect()
}
