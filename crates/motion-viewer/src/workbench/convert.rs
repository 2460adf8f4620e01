//! Carrying a motion to another robot model.
//!
//! Joints are matched by what they drive, the way Dogsbody's converter works
//! from its per-model joint tables: the twelve leg servos, head tilt and pan,
//! mouth, ears and the two tail servos exist under different PRM names (and,
//! for the tail, in a different order) on each model and map one to one. The
//! third head servo maps only between models where it does the same thing
//! (the ERS-210's roll is not the ERS-7's nod). Angles are carried over as
//! they are: every model counts them the same way (docs/formats.md §1 signs), but the
//! limits differ, so the result is worth a `check`.

use super::check::RESOLUTION_DEG;
use super::{Edit, EditError, finish, roles};
use crate::anim::aibo::{joint_label, rig_model};
use crate::formats::aibo::{Joint, Model};
use crate::formats::mtn::{Keyframe, Mtn, Scope, URAD_TO_DEG, design_label, prm_names};

/// Where one joint of the converted motion gets its angle.
#[derive(Debug, Clone, Copy)]
enum Feed {
    /// From the source joint at this index.
    Source(usize),
    /// A joint the source lacks, held at this angle (µrad).
    Held(i32),
}

/// Converts `m` to `target`: its joints in the target's order and names; the
/// joints the target lacks dropped (each named in a warning); on a
/// full-body motion, the target's joints the source lacks held at the
/// target's neutral stance (with a warning). Body attitude and timing are kept;
/// an ERS-110 motion gets the 0 frame period Sony's ERS-110 files store.
pub fn convert(m: &Mtn, target: Model) -> Result<Edit, EditError> {
    let (source, roles) = roles(m)?;
    let scope = m.scope().unwrap_or(Scope::Full);
    let same_kind = |joint: Joint| {
        joint != Joint::HeadRoll || source.head_third_nods() == target.head_third_nods()
    };
    let mut warnings = Vec::new();
    if source == target {
        warnings.push(format!("already an {target} motion; written unchanged"));
    }
    let mut joints = Vec::new();
    let mut feeds = Vec::new();
    for &(joint, name) in prm_names(target) {
        let found = roles.iter().position(|&r| r == joint && same_kind(r));
        let feed = match found {
            Some(i) => Feed::Source(i),
            None if scope == Scope::Full => {
                let deg = rig_model(target).neutral_angle(joint).unwrap_or(0.0);
                warnings.push(format!(
                    "the {source} motion has no {target} {}; held at its neutral {deg}°",
                    describe(target, joint)
                ));
                Feed::Held((deg / URAD_TO_DEG).round() as i32)
            }
            None => continue,
        };
        joints.push(name.to_string());
        feeds.push(feed);
    }
    for (i, &role) in roles.iter().enumerate() {
        if !feeds
            .iter()
            .any(|f| matches!(f, Feed::Source(s) if *s == i))
        {
            warnings.push(format!(
                "dropped {source} {} ({}): the {target} has no such joint",
                describe(source, role),
                m.joints[i]
            ));
        }
    }
    if !feeds.iter().any(|f| matches!(f, Feed::Source(_))) {
        return Err(EditError::Mismatch(format!(
            "none of the motion's joints exists on the {target}"
        )));
    }

    let mut out = m.clone();
    out.design = format!("{}{}", design_label(target), scope.suffix());
    out.joints = joints;
    out.keyframes = m
        .keyframes
        .iter()
        .map(|k| Keyframe {
            joints: feeds
                .iter()
                .map(|f| match *f {
                    Feed::Source(i) => k.joints.get(i).copied().unwrap_or(0),
                    Feed::Held(urad) => urad,
                })
                .collect(),
            ..k.clone()
        })
        .collect();
    if target == Model::Ers110 {
        if m.frame_ms() != 16 {
            warnings.push(format!(
                "the ERS-110 plays 16 ms frames; this motion's {} ms frames will run at that pace",
                m.frame_ms()
            ));
        }
        (out.frame_rate, out.version) = (0, [1, 1]);
    } else {
        // The ERS-110 stores 0 for its 16 ms frames; every other model states it.
        out.frame_rate = m.frame_ms().min(u32::from(u16::MAX)) as u16;
        out.version = [1, 2];
    }
    out.pad_sections();
    if let Some(w) = past_limits(&out, target) {
        warnings.push(w);
    }
    finish(out, warnings)
}

/// A joint's label, saying what the third head servo does on this model.
fn describe(model: Model, joint: Joint) -> String {
    match joint {
        Joint::HeadRoll if model.head_third_nods() => "head_roll (its nod)".into(),
        Joint::HeadRoll => "head_roll (its roll)".into(),
        _ => joint_label(joint),
    }
}

/// How many carried angles lie past the target's limits, with the first one.
fn past_limits(m: &Mtn, target: Model) -> Option<String> {
    let rig = rig_model(target);
    let roles = m.joint_roles();
    let mut first = None;
    let mut count = 0;
    for k in &m.keyframes {
        for (&urad, role) in k.joints.iter().zip(&roles) {
            let Some(limit) = role.and_then(|j| rig.limit(j)) else {
                continue;
            };
            let deg = f64::from(urad) * URAD_TO_DEG;
            if deg < limit.min_deg - RESOLUTION_DEG || deg > limit.max_deg + RESOLUTION_DEG {
                count += 1;
                first.get_or_insert_with(|| {
                    format!(
                        "{} {deg:.1}° (limit {}..{}°)",
                        joint_label(limit.joint),
                        limit.min_deg,
                        limit.max_deg
                    )
                });
            }
        }
    }
    first.map(|f| {
        format!(
            "{count} angle(s) lie past the {target}'s limits, first {f}; see `viewer mtn check`"
        )
    })
}
