//! The robot and VFX exports behind [`super::export`]: URDF (and, with
//! [`super::robot`], what ROS bags carry), with what was written summed up.

use std::path::Path;

use super::robot::Robot;
use super::{Options, Report};
use crate::anim::aibo::MtnRig;
use crate::error::{Error, Result};
use crate::formats::aibo::Model;
use crate::scene::Track;

/// The one robot model the AIBO motions among `tracks` are drawn as, with a
/// warning for a motion whose model is unknown (drawn as an ERS-7). A
/// refusal names `format`, the description asked for ("a URDF", "an
/// MJCF"): the words are the output's, not always a URDF's.
pub(crate) fn model_of(
    tracks: &[Track],
    out: &Path,
    format: &str,
    warnings: &mut Vec<String>,
) -> Result<Model> {
    let mut models = Vec::new();
    for track in tracks {
        if let Track::Mtn { motion, path, .. } = track {
            let rig = MtnRig::new(motion);
            warnings.extend(super::robot::unknown_model(motion, &rig, path));
            if !models.contains(&rig.drawn_as()) {
                models.push(rig.drawn_as());
            }
        }
    }
    match models[..] {
        [model] => Ok(model),
        [] => Err(no_motion(tracks, out, format)),
        _ => Err(Error::unsupported(
            out,
            format!(
                "{format} describes one robot; the motions are of {}",
                models
                    .iter()
                    .map(|m| m.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// The refusal of a robot description (`format`: "a URDF", "an MJCF") of
/// files that hold no AIBO motion, saying what they hold instead.
fn no_motion(tracks: &[Track], out: &Path, format: &str) -> Error {
    let mut kinds: Vec<&str> = Vec::new();
    for track in tracks {
        let kind = match track {
            Track::Mtn { .. } => "an AIBO motion",
            Track::Memg { .. } => "a MEMG motion",
            Track::InputAnimation { .. } => "an MRTK recording",
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Error::unsupported(
        out,
        format!(
            "{format} describes an AIBO, and the files hold {}, no .mtn motion; \
             give a .mtn motion, or --model (e.g. ERS-7) for the robot alone",
            kinds.join(" and ")
        ),
    )
}

/// The URDF of the model of the AIBO motions among `tracks`.
pub fn urdf(tracks: &[Track], out: &Path, report: &mut Report) -> Result<()> {
    let model = model_of(tracks, out, "a URDF", &mut report.warnings)?;
    urdf_of_model(model, out, report)
}

/// The URDF of `model` (`viewer export --model ERS-7 --out x.urdf`).
pub(crate) fn urdf_of_model(model: Model, out: &Path, report: &mut Report) -> Result<()> {
    let robot = Robot::new(model);
    let bytes = super::urdf::write(&robot, out)?;
    report.notes.push(format!(
        "wrote {} ({bytes} bytes): {} URDF, {} links, {} moving joints",
        out.display(),
        model,
        robot.links.len(),
        robot.moving_joints().count()
    ));
    report.written.push(out.to_path_buf());
    Ok(())
}

/// The MJCF of the model of the AIBO motion among `tracks`, its commanded
/// trajectory as keyframes (one motion: the keyframes are its).
pub fn mjcf(tracks: &[Track], out: &Path, report: &mut Report) -> Result<()> {
    let motions: Vec<&crate::formats::mtn::Mtn> = tracks
        .iter()
        .filter_map(|t| match t {
            Track::Mtn { motion, .. } => Some(motion),
            _ => None,
        })
        .collect();
    // The count first: two motions are refused as two, whatever their models.
    if motions.len() > 1 {
        return Err(Error::unsupported(
            out,
            format!(
                "an MJCF carries one motion's keyframes; {} motions were given \
                 (export each to its own .xml)",
                motions.len()
            ),
        ));
    }
    // A model found means a motion found: the one motion of `motions`.
    let model = model_of(tracks, out, "an MJCF", &mut report.warnings)?;
    mjcf_of(model, motions.first().copied(), out, report)
}

/// The MJCF of `model`, with `motion`'s keyframes when given.
pub(crate) fn mjcf_of(
    model: Model,
    motion: Option<&crate::formats::mtn::Mtn>,
    out: &Path,
    report: &mut Report,
) -> Result<()> {
    let bytes = super::mjcf::write(model, motion, out)?;
    let physical = crate::anim::aibo::physical::physical_model(model);
    report.notes.push(format!(
        "wrote {} ({bytes} bytes): {} MJCF, {} bodies, {} position servos, {:.3} kg{}",
        out.display(),
        model,
        physical.links.len(),
        physical.servos().count(),
        physical.total_mass(),
        motion.map_or_else(String::new, |m| format!(
            ", {} keyframes",
            m.keyframes.len()
        ))
    ));
    report.written.push(out.to_path_buf());
    Ok(())
}

/// Every track of `tracks` as one ROS 2 bag ([`super::mcap`]).
pub fn mcap(tracks: &[Track], out: &Path, options: &Options, report: &mut Report) -> Result<()> {
    let written = super::mcap::write(tracks, out, options)?;
    report.warnings.extend(written.warnings);
    report.notes.push(format!(
        "wrote {} ({} bytes): {} messages on {}",
        out.display(),
        written.bytes,
        written.messages,
        written.topics.join(", ")
    ));
    report.written.push(out.to_path_buf());
    Ok(())
}

/// Every track of `tracks` as one USD stage ([`super::usd`]).
pub fn usd(tracks: &[Track], out: &Path, options: &Options, report: &mut Report) -> Result<()> {
    let written = super::usd::write(tracks, out, options)?;
    report.warnings.extend(written.warnings);
    report.notes.push(format!(
        "wrote {} ({} bytes): {} prims, {} time samples",
        out.display(),
        written.bytes,
        written.prims,
        written.samples
    ));
    report.written.push(out.to_path_buf());
    Ok(())
}
