//! The files named on a command line, probed by content and loaded into tracks.
//!
//! A MEMG motion needs its `.obj` scene: each motion pairs with the nearest
//! `.obj` before it in the list (or, failing that, after it).

use crate::anim;
use crate::error::{Error, Result};
use crate::formats::{self, Kind, input_animation, memg, mtn, obj};
use std::path::{Path, PathBuf};

/// One motion and what it needs to be shown.
#[derive(Debug, Clone)]
pub enum Track {
    /// An AIBO motion.
    Mtn {
        /// The file it came from.
        path: PathBuf,
        /// The decoded motion.
        motion: mtn::Mtn,
    },
    /// A MEMG scene and its motion.
    Memg {
        /// The `.obj` scene file.
        obj_path: PathBuf,
        /// The binary motion file.
        motion_path: PathBuf,
        /// The triangulated scene.
        scene: obj::ObjScene,
        /// The decoded motion.
        motion: memg::MemgMotion,
    },
    /// An MRTK input-animation recording.
    InputAnimation {
        /// The file it came from.
        path: PathBuf,
        /// The decoded recording (boxed: its curve table is large beside the other variants).
        recording: Box<input_animation::InputAnimation>,
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

    /// Time of the track's last sample in seconds.
    pub fn duration_s(&self) -> f64 {
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
            Track::Mtn { motion, .. } => f64::from(motion.frame_ms()) / 1000.0,
            Track::Memg { motion, .. } => 1.0 / f64::from(motion.fps.max(1)),
            Track::InputAnimation { .. } => anim::input_animation::FRAME_PERIOD_S,
        }
    }

    /// The track's name for display: the file stem.
    pub fn name(&self) -> String {
        self.path()
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// Probes and loads every file, pairing MEMG motions with `.obj` scenes.
pub fn load(paths: &[PathBuf]) -> Result<Vec<Track>> {
    let kinds = paths
        .iter()
        .map(|p| formats::probe_file(p))
        .collect::<Result<Vec<_>>>()?;
    let objs: Vec<usize> = (0..paths.len())
        .filter(|&i| kinds[i] == Kind::Obj)
        .collect();
    let mut used_objs = vec![false; paths.len()];
    let mut tracks = Vec::new();
    for (i, (path, kind)) in paths.iter().zip(&kinds).enumerate() {
        match kind {
            Kind::Obj => {}
            Kind::Mtn => {
                let bytes = formats::read_file(path)?;
                let motion = mtn::decode(&bytes).map_err(|e| Error::decode(path.display(), e))?;
                tracks.push(Track::Mtn {
                    path: path.clone(),
                    motion,
                });
            }
            Kind::InputAnimation => {
                let bytes = formats::read_file(path)?;
                let recording = input_animation::decode(&bytes)
                    .map_err(|e| Error::decode(path.display(), e))?;
                tracks.push(Track::InputAnimation {
                    path: path.clone(),
                    recording: Box::new(recording),
                });
            }
            Kind::MemgMotion => {
                let before = objs.iter().rev().find(|&&j| j < i && !used_objs[j]);
                let after = objs.iter().find(|&&j| j > i && !used_objs[j]);
                let Some(&j) = before.or(after) else {
                    return Err(Error::Invalid {
                        file: path.display().to_string(),
                        message: "a MEMG motion needs its .obj scene: name the .obj on the same command line".into(),
                    });
                };
                used_objs[j] = true;
                let scene = obj::load(&paths[j])?;
                let motion = memg::load(path)?;
                tracks.push(Track::Memg {
                    obj_path: paths[j].clone(),
                    motion_path: path.clone(),
                    scene,
                    motion,
                });
            }
        }
    }
    if let Some(j) = objs.iter().find(|&&j| !used_objs[j]) {
        return Err(Error::Invalid {
            file: paths[*j].display().to_string(),
            message: "an .obj scene needs a MEMG motion file beside it on the command line".into(),
        });
    }
    Ok(tracks)
}
