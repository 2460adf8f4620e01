//! The scene on the CPU: the [`Track`]s the front door ([`crate::open_with`])
//! makes of the files given, and what the viewer does with them before any
//! GPU is involved:
//! each track's box over its whole motion and where it stands ([`Plan`],
//! [`Layout`]), the axes and units of each format (`units`, inside), and the
//! plain shapes that draw the tracks without a mesh ([`shapes`], [`rig`], the
//! MRTK hands inside; [`Track::primitives`] for any track).
//! The GPU stage and the exporters both build on it.

pub mod camera;
pub(crate) mod colour;
pub(crate) mod hands;
pub(crate) mod layout;
pub(crate) mod plan;
pub mod rig;
pub mod shapes;
pub(crate) mod unit_mesh;
pub(crate) mod units;

pub use layout::Layout;
pub use plan::Placement;
pub use plan::{Plan, auto_layout};

use crate::anim;
use crate::formats::{input_animation, memg, mtn, obj};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One motion and what it needs to be shown.
///
/// Cloning a track is cheap: a MEMG scene and motion and an MRTK recording
/// sit behind [`Arc`]s that every clone shares (the window, its stage and
/// its exports hold one copy of a basis between them); an AIBO motion, a
/// few kilobytes, is copied, so that an edit changes one track only.
// The AIBO motion is the largest variant now that the others hold `Arc`s;
// a viewer holds a handful of tracks, and the motion stays inline so that an
// edit is a plain assignment.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Track {
    /// An AIBO motion.
    Mtn {
        /// The file it came from (`ARCHIVE.ODA:NAME` for an archive entry).
        path: PathBuf,
        /// The decoded motion.
        motion: mtn::Mtn,
        /// The archive entry's name, when it came out of an ODA archive.
        entry: Option<String>,
    },
    /// A MEMG scene and its motion.
    Memg {
        /// The `.obj` scene file.
        obj_path: PathBuf,
        /// The binary motion file.
        motion_path: PathBuf,
        /// The triangulated scene, shared by every clone of the track.
        scene: Arc<obj::ObjScene>,
        /// The decoded motion, shared by every clone of the track.
        motion: Arc<memg::MemgMotion>,
    },
    /// An MRTK input-animation recording.
    InputAnimation {
        /// The file it came from.
        path: PathBuf,
        /// The decoded recording, shared by every clone of the track.
        recording: Arc<input_animation::InputAnimation>,
    },
}

impl Track {
    /// The file that names the track (the motion file for MEMG).
    pub fn path(&self) -> &Path {
        match self {
            Track::Mtn { path, .. } | Track::InputAnimation { path, .. } => path,
            Track::Memg { motion_path, .. } => motion_path,
        }
    }

    /// How long the track plays, seconds: its [`Track::recorded_duration_s`],
    /// at most [`anim::timeline::MAX_DURATION_S`].
    pub fn duration_s(&self) -> f64 {
        self.recorded_duration_s()
            .min(anim::timeline::MAX_DURATION_S)
    }

    /// Time of the track's last sample in seconds, as the file says.
    pub fn recorded_duration_s(&self) -> f64 {
        match self {
            Track::Mtn { motion, .. } => motion.duration_s(),
            Track::Memg { motion, .. } => motion.duration_s(),
            Track::InputAnimation { recording, .. } => anim::input_animation::duration_s(recording),
        }
    }

    /// The track's own frame period in seconds: MEMG 1/fps, `.mtn` its frame
    /// length (16 ms where the file says 0), MRTK 1/60.
    pub fn frame_period_s(&self) -> f64 {
        match self {
            Track::Mtn { motion, .. } => motion.frame_s(1),
            Track::Memg { motion, .. } => 1.0 / f64::from(motion.fps.max(1)),
            Track::InputAnimation { .. } => anim::input_animation::FRAME_PERIOD_S,
        }
    }

    /// The frames `window` holds of this track, at `fps` samples a second
    /// or at its own [`Track::frame_period_s`]: the one grid every table,
    /// plot, bag, cache and stage of the track samples. A rate that is not
    /// a finite positive number gives no frames (callers refuse it first).
    pub fn grid(&self, fps: Option<f64>, window: anim::clock::Window) -> anim::clock::Grid {
        let period_s = fps.map_or_else(|| self.frame_period_s(), |f| 1.0 / f);
        anim::clock::Grid::new(self.duration_s(), period_s, window)
    }

    /// The track's name for display: the file stem, or the entry's name for
    /// a motion out of an archive.
    pub fn name(&self) -> String {
        if let Track::Mtn {
            entry: Some(entry), ..
        } = self
        {
            return entry.clone();
        }
        self.path()
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// What the decoder noticed about the file (recovered sizes, values
    /// beyond a model's limits…), one line each.
    pub fn warnings(&self) -> &[String] {
        match self {
            Track::Mtn { motion, .. } => &motion.warnings,
            Track::Memg { motion, .. } => &motion.warnings,
            Track::InputAnimation { recording, .. } => &recording.warnings,
        }
    }

    /// The plain shapes that draw the track at `t` seconds, in its own world
    /// coordinates (before its [`Placement`]), as the stage draws them: an
    /// AIBO rig lifted onto the ground, an MRTK recording's hands, gaze and
    /// head camera; none for a MEMG scene, which is a mesh.
    pub fn primitives(&self, t: f64) -> shapes::Primitives {
        let mut out = shapes::Primitives::default();
        match self {
            Track::Mtn { motion, .. } => {
                let (model, pose) = anim::aibo::pose_from_mtn(motion, t);
                let origin = glam::Vec3::Y * rig::ground_lift(model, &pose);
                rig::primitives(model, &pose, origin, &mut out);
            }
            Track::InputAnimation { recording, .. } => {
                let state = anim::input_animation::state_at(recording, t);
                hands::primitives(&state, glam::Vec3::ZERO, &mut out);
            }
            Track::Memg { .. } => {}
        }
        out
    }
}
