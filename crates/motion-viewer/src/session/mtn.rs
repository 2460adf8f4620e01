//! What the window shows of an AIBO `.mtn` track beyond its pose: the
//! joint values at the current time (a side panel section) and the findings
//! of [`crate::workbench::check()`] with a time (marked in the track's lane on
//! the timeline).

use crate::anim::aibo::joint_label;
use crate::anim::mtn::pose_at;
use crate::scene::Track;
use crate::workbench::{Severity, check};

/// A finding of `check` with a time, to mark on the bar.
#[derive(Debug, Clone, PartialEq)]
pub struct FindingMark {
    /// Where on the timeline, in seconds.
    pub time_s: f64,
    /// An error (red) rather than a warning (orange).
    pub error: bool,
    /// `track: message`, shown when the pointer is over the mark.
    pub text: String,
}

/// The findings of `check` with a time on `track`, in time order (none for
/// a track that is not an AIBO motion).
pub(crate) fn finding_marks(track: &Track) -> Vec<FindingMark> {
    let Track::Mtn { motion, .. } = track else {
        return Vec::new();
    };
    let name = track.name();
    let mut marks: Vec<FindingMark> = check(motion)
        .findings
        .into_iter()
        .filter_map(|f| {
            Some(FindingMark {
                time_s: f.time_s?,
                error: f.severity == Severity::Error,
                text: format!("{name}: {}", f.message),
            })
        })
        .collect();
    marks.sort_by(|a, b| a.time_s.total_cmp(&b.time_s));
    marks
}

/// A track's body attitude and joint angles at `time_s`, in degrees, each
/// with its label (`left_front_j1`, or the PRM name of an unknown joint);
/// `None` for a track that is not an AIBO motion.
pub(crate) fn joint_values(track: &Track, time_s: f64) -> Option<Vec<(String, f64)>> {
    let Track::Mtn { motion, .. } = track else {
        return None;
    };
    let pose = pose_at(motion, time_s);
    let body = ["body roll", "body pitch", "body yaw"]
        .into_iter()
        .map(String::from)
        .zip(pose.body_deg);
    let joints = motion
        .joint_roles()
        .into_iter()
        .zip(&motion.joints)
        .map(|(role, prm)| role.map_or_else(|| prm.clone(), joint_label))
        .zip(pose.joints_deg);
    Some(body.chain(joints).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::mtn;

    fn seed() -> Track {
        let path = format!(
            "{}/../../data/sony_stand_sit.mtn",
            env!("CARGO_MANIFEST_DIR")
        );
        let motion = mtn::decode(&std::fs::read(&path).unwrap()).unwrap();
        Track::Mtn {
            path: path.into(),
            motion,
            entry: None,
        }
    }

    #[test]
    fn joint_values_are_the_pose_at_the_time_with_labels() {
        let values = joint_values(&seed(), 0.488).unwrap();
        assert_eq!(values.len(), 23);
        assert_eq!(values[0].0, "body roll");
        assert_eq!(values[3].0, "head_tilt");
        assert_eq!(values[9].0, "left_front_j1");
        // Halfway from keyframe 0 to 1: head tilt (0 + −575960) / 2 µrad.
        let want = -287_980.0 * 180.0 / (1e6 * std::f64::consts::PI);
        assert!((values[3].1 - want).abs() < 1e-9, "{}", values[3].1);
    }

    #[test]
    fn findings_with_a_time_become_marks() {
        assert!(finding_marks(&seed()).is_empty());
        let Track::Mtn {
            path, mut motion, ..
        } = seed()
        else {
            unreachable!()
        };
        // Left front knee at 160°, 13° past the ERS-210's 147°, at keyframe 2 (1.792 s).
        motion.keyframes[2].joints[8] = (160f64.to_radians() * 1e6).round() as i32;
        let marks = finding_marks(&Track::Mtn {
            path,
            motion,
            entry: None,
        });
        let error = marks.iter().find(|m| m.error).unwrap();
        assert!((error.time_s - 1.792).abs() < 1e-12);
        assert!(
            error
                .text
                .starts_with("sony_stand_sit: left_front_j3 is 160.00°"),
            "{}",
            error.text
        );
    }
}
