//! Where a window frame goes. Every [`SAMPLE_EVERY`]-th frame is measured
//! phase by phase: each phase's GPU work is submitted on its own and waited
//! for, so its wall time is its cost on that adapter (on a CPU adapter such
//! as llvmpipe, the same cores' time). The other frames run unmeasured and
//! unstalled; their interval is the frame time.

use std::fmt::Write;

/// Frames between two measured ones.
pub const SAMPLE_EVERY: u64 = 15;

/// Weight of the newest sample in the smoothed figures.
const SMOOTHING: f64 = 0.2;

/// One frame's phases, milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Split {
    /// MEMG deformation (compute).
    pub deform: f64,
    /// Normals recomputed from the deformed positions (compute).
    pub normals: f64,
    /// Posing the tracks without a mesh on the CPU (AIBO FK, MRTK curves) into primitives.
    pub scene: f64,
    /// The 3D render pass.
    pub draw: f64,
    /// egui: layout and tessellation on the CPU, then its render pass.
    pub egui: f64,
    /// Acquiring the window's image and presenting it.
    pub present: f64,
}

impl Split {
    /// The phases named, in frame order.
    pub fn phases(&self) -> [(&'static str, f64); 6] {
        [
            ("deform", self.deform),
            ("normals", self.normals),
            ("scene", self.scene),
            ("draw", self.draw),
            ("egui", self.egui),
            ("present", self.present),
        ]
    }

    /// `deform 1.2 normals 0.3 …` with one decimal, for a status line.
    pub(crate) fn to_line(self) -> String {
        let mut line = String::new();
        for (name, ms) in self.phases() {
            let _ = write!(
                line,
                "{}{name} {ms:.1}",
                if line.is_empty() { "" } else { " " }
            );
        }
        line
    }
}

/// Smoothed frame time and phase split.
#[derive(Debug, Clone, Default)]
pub struct FrameTimes {
    /// Smoothed interval between two playing frames, milliseconds.
    pub frame_ms: f64,
    /// Smoothed phase split of the measured frames, milliseconds.
    pub split: Split,
    frames: u64,
    measured_any: bool,
}

impl FrameTimes {
    /// Counts a frame; true when this one should be measured phase by phase.
    pub(crate) fn next_frame_measured(&mut self) -> bool {
        self.frames += 1;
        self.frames % SAMPLE_EVERY == 1
    }

    /// Folds in the interval since the previous playing frame, seconds.
    pub(crate) fn add_interval(&mut self, dt_s: f64) {
        let ms = dt_s * 1e3;
        self.frame_ms = if self.frame_ms == 0.0 {
            ms
        } else {
            self.frame_ms + SMOOTHING * (ms - self.frame_ms)
        };
    }

    /// Folds in one measured frame's split.
    pub(crate) fn add_split(&mut self, s: Split) {
        if !self.measured_any {
            self.split = s;
            self.measured_any = true;
            return;
        }
        let mix = |old: &mut f64, new: f64| *old += SMOOTHING * (new - *old);
        let old = &mut self.split;
        mix(&mut old.deform, s.deform);
        mix(&mut old.normals, s.normals);
        mix(&mut old.scene, s.scene);
        mix(&mut old.draw, s.draw);
        mix(&mut old.egui, s.egui);
        mix(&mut old.present, s.present);
    }

    /// Whether any frame has been measured yet.
    pub(crate) fn has_split(&self) -> bool {
        self.measured_any
    }
}
