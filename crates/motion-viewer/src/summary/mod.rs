//! What a motion is, as plain data: one summary type per format behind
//! [`Summary`], built from a loaded [`Track`] by [`summarize`]. `viewer info`
//! prints it (as JSON with serde, or as text through [`Summary::to_text`]),
//! and the window's panels read it.
//!
//! The serialised field names are the keys `viewer info --json` has always
//! printed; scripts depend on them.

mod archive;
mod text;

pub use archive::EntrySummary;
pub(crate) use archive::summarize_archive;
#[cfg(not(target_arch = "wasm32"))]
pub use archive::summarize_paths;

use crate::anim::input_animation::duration_s;
use crate::anim::memg::Binding;
use crate::formats::bytes::ByteOrder;
use crate::formats::input_animation::InputAnimation;
use crate::formats::memg::MemgMotion;
use crate::formats::mtn::Mtn;
use crate::formats::obj::ObjScene;
use crate::scene::Track;
use serde::Serialize;
use std::path::Path;

/// One motion described, whatever its format.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Summary {
    /// An AIBO motion.
    Mtn(MtnSummary),
    /// A MEMG scene and its motion.
    Memg(MemgSummary),
    /// An MRTK input animation.
    InputAnimation(InputAnimationSummary),
    /// One entry of an ODA archive given whole (`viewer info ARCHIVE.ODA`).
    OdaEntry(EntrySummary),
}

/// Describes one loaded track.
pub fn summarize(track: &Track) -> Summary {
    match track {
        Track::Mtn { path, motion, .. } => Summary::Mtn(MtnSummary::new(path, motion)),
        Track::Memg {
            obj_path,
            motion_path,
            scene,
            motion,
        } => Summary::Memg(MemgSummary::new(obj_path, motion_path, scene, motion)),
        Track::InputAnimation { path, recording } => {
            Summary::InputAnimation(InputAnimationSummary::new(path, recording))
        }
    }
}

/// An AIBO `.mtn` motion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MtnSummary {
    /// Always `"mtn"`.
    pub format: &'static str,
    /// The file it came from.
    pub file: String,
    /// The motion name from section 1 (`a_sit#stand_description`).
    pub name: String,
    /// Who wrote it.
    pub creator: String,
    /// The design label (`DRX-1000`…), which names the robot.
    pub design: String,
    /// The robot model the design label names, if known (`ERS-7`…).
    pub model: Option<&'static str>,
    /// Format version `[major, minor]`.
    pub version: [u16; 2],
    /// Number of keyframes.
    pub keyframes: usize,
    /// Frame period in milliseconds (16 where the file says 0).
    pub frame_ms: u32,
    /// Every joint, in file order.
    pub joints: Vec<JointSummary>,
    /// Frames from the first keyframe to the last.
    pub frames: u64,
    /// Duration in seconds.
    pub duration_s: f64,
    /// Time of each keyframe in seconds.
    pub keyframe_times_s: Vec<f64>,
    /// The name read by the robot's `x_start#end_description` rule, if it follows it.
    pub motion: Option<MotionNameSummary>,
    /// What the decoder recovered from.
    pub warnings: Vec<String>,
}

/// One joint of a `.mtn` motion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JointSummary {
    /// Its PRM name (`PRM:/r2/c1-Joint2:j1`…).
    pub name: String,
    /// The body part it moves (`left_front_leg`…), if known.
    pub part: Option<&'static str>,
    /// The name the file gives it, where that is not [`JointSummary::name`]
    /// (a few Sony ERS-110 files misname a servo; it is read by position).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
}

/// A motion name read as `x_start#end_description`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MotionNameSummary {
    /// The servo group the first letter names (`all`, `head`, `legs`…).
    pub group: &'static str,
    /// The starting posture.
    pub start: String,
    /// The ending posture.
    pub end: String,
    /// The rest of the name.
    pub description: String,
}

impl MtnSummary {
    /// Describes `m`, read from `path`.
    pub fn new(path: &Path, m: &Mtn) -> Self {
        MtnSummary {
            format: "mtn",
            file: path.display().to_string(),
            name: m.name.clone(),
            creator: m.creator.clone(),
            design: m.design.clone(),
            model: m.model().map(|x| x.name()),
            version: m.version,
            keyframes: m.keyframes.len(),
            frame_ms: m.frame_ms(),
            joints: joints(m),
            frames: m.total_frames(),
            duration_s: m.duration_s(),
            keyframe_times_s: m.keyframe_times_s(),
            motion: m.motion_name().map(|n| MotionNameSummary {
                group: n.group.name(),
                start: n.start,
                end: n.end,
                description: n.description,
            }),
            warnings: m.warnings.clone(),
        }
    }
}

/// Every joint of `m` with its body part, named as every path names it
/// ([`Mtn::joint_names`]), with the file's own name where that differs.
pub fn joints(m: &Mtn) -> Vec<JointSummary> {
    m.joint_names()
        .into_iter()
        .enumerate()
        .map(|(i, name)| JointSummary {
            name: name.to_string(),
            part: m.joint_part(i).map(|p| p.name()),
            file_name: (m.joints[i] != name).then(|| m.joints[i].clone()),
        })
        .collect()
}

/// A MEMG scene (`.obj`) and its binary motion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemgSummary {
    /// Always `"memg"`.
    pub format: &'static str,
    /// The motion file's byte order.
    pub byte_order: ByteOrder,
    /// Timesteps per second.
    pub fps: i32,
    /// Number of animated local frames.
    pub local_frames: usize,
    /// Number of timesteps.
    pub timesteps: usize,
    /// Duration in seconds.
    pub duration_s: f64,
    /// The `.obj` scene file.
    pub scene: String,
    /// The motion file.
    pub motion: String,
    /// Vertices of the `.obj`.
    pub vertices: usize,
    /// Triangles of the `.obj` after fan triangulation.
    pub triangles: usize,
    /// The motion's groups.
    pub groups: Vec<MemgGroupSummary>,
    /// What the decoder and the pairing with the scene found wrong.
    pub warnings: Vec<String>,
}

/// One group of a MEMG motion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemgGroupSummary {
    /// Its name, matched with the `.obj`'s groups.
    pub name: String,
    /// Vertices it moves.
    pub vertices: usize,
    /// Basis size r.
    pub basis: usize,
    /// Index of its parent local frame; outside the frames means world space.
    pub parent: i32,
    /// Whether the `.obj` has a group of that name.
    pub in_scene: bool,
}

impl MemgSummary {
    /// Describes the pair `m` (read from `motion_path`) and `s` (from `obj_path`).
    pub fn new(obj_path: &Path, motion_path: &Path, s: &ObjScene, m: &MemgMotion) -> Self {
        let mut warnings = m.warnings.clone();
        match Binding::new(s, m) {
            Ok(b) => warnings.extend(b.warnings),
            Err(e) => warnings.push(e.to_string()),
        }
        let in_scene = s.group_indices();
        MemgSummary {
            format: "memg",
            byte_order: m.byte_order,
            fps: m.fps,
            local_frames: m.local_frames,
            timesteps: m.timesteps,
            duration_s: m.duration_s(),
            scene: obj_path.display().to_string(),
            motion: motion_path.display().to_string(),
            vertices: s.positions.len(),
            triangles: s.triangles.len(),
            groups: m
                .groups
                .iter()
                .map(|g| MemgGroupSummary {
                    name: g.name.clone(),
                    vertices: g.vertex_count(),
                    basis: g.basis_len,
                    parent: g.parent,
                    in_scene: in_scene.contains_key(g.name.as_str()),
                })
                .collect(),
            warnings,
        }
    }
}

/// An MRTK input-animation recording.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputAnimationSummary {
    /// The file it came from.
    pub file: String,
    /// Always `"input-animation"`.
    pub format: &'static str,
    /// Format version `[major, minor]`.
    pub version: [i32; 2],
    /// Whether head (camera) curves are recorded.
    pub has_camera: bool,
    /// Whether hand curves are recorded.
    pub has_hands: bool,
    /// Whether eye-gaze curves are recorded.
    pub has_eye_gaze: bool,
    /// The largest last-key time of any curve, seconds.
    pub duration_s: f64,
    /// Number of float and boolean curves.
    pub curves: usize,
    /// Number of keys over every curve.
    pub keys: usize,
    /// The recording's markers.
    pub markers: Vec<MarkerSummary>,
    /// What the decoder recovered from.
    pub warnings: Vec<String>,
}

/// One marker of a recording.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarkerSummary {
    /// Its time in seconds, as written (the shortest decimal that reads
    /// back to the file's f32).
    pub time_s: f64,
    /// Its name.
    pub name: String,
}

impl InputAnimationSummary {
    /// Describes `r`, read from `path`.
    pub fn new(path: &Path, r: &InputAnimation) -> Self {
        let floats = r.float_curves();
        let bools = r.bool_curves();
        let keys = floats.iter().map(|c| c.keys.len()).sum::<usize>()
            + bools.iter().map(|c| c.keys.len()).sum::<usize>();
        InputAnimationSummary {
            file: path.display().to_string(),
            format: "input-animation",
            version: [r.version.0, r.version.1],
            has_camera: r.camera.is_some(),
            has_hands: r.hands.is_some(),
            has_eye_gaze: r.eye_gaze.is_some(),
            duration_s: duration_s(r),
            curves: floats.len() + bools.len(),
            keys,
            markers: r
                .markers
                .iter()
                .map(|m| MarkerSummary {
                    time_s: f32_as_written(m.time),
                    name: m.name.clone(),
                })
                .collect(),
            warnings: r.warnings.clone(),
        }
    }
}

/// An `f32` from a file as the decimal it was written as (1.3, not
/// 1.2999999523…): the shortest text that reads back to the same `f32`.
pub(crate) fn f32_as_written(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}
