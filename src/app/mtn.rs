//! The `.mtn` panels: every AIBO track's joint values at the current time,
//! and `check`'s findings marked on the timeline bar.

use crate::anim::aibo::joint_label;
use crate::anim::mtn::pose_at;
use crate::scene::Track;
use crate::workbench::{Severity, check};
use egui::{Color32, Rect, Stroke};

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

/// The timed findings of `check` on every `.mtn` track, in time order.
pub fn finding_marks(tracks: &[Track]) -> Vec<FindingMark> {
    let mut marks: Vec<FindingMark> = tracks
        .iter()
        .filter_map(|t| match t {
            Track::Mtn { motion, .. } => Some((t.name(), check(motion))),
            _ => None,
        })
        .flat_map(|(name, report)| {
            report.findings.into_iter().filter_map(move |f| {
                Some(FindingMark {
                    time_s: f.time_s?,
                    error: f.severity == Severity::Error,
                    text: format!("{name}: {}", f.message),
                })
            })
        })
        .collect();
    marks.sort_by(|a, b| a.time_s.total_cmp(&b.time_s));
    marks
}

/// Paints `marks` along the lower half of the bar `rect` (errors red,
/// warnings orange) and, when the pointer is over some, their text.
pub fn paint_findings(
    ui: &egui::Ui,
    response: &egui::Response,
    rect: Rect,
    duration_s: f64,
    marks: &[FindingMark],
) {
    if marks.is_empty() || duration_s <= 0.0 {
        return;
    }
    let x_of = |t: f64| rect.left() + rect.width() * (t / duration_s).clamp(0.0, 1.0) as f32;
    let painter = ui.painter_at(rect);
    let lower = rect.top() + rect.height() * 0.55..=rect.bottom();
    for m in marks {
        let color = if m.error {
            Color32::from_rgb(230, 60, 50)
        } else {
            Color32::from_rgb(240, 140, 30)
        };
        painter.vline(x_of(m.time_s), lower.clone(), Stroke::new(2.0, color));
    }
    let Some(pointer) = response.hover_pos() else {
        return;
    };
    let near: Vec<&str> = marks
        .iter()
        .filter(|m| (x_of(m.time_s) - pointer.x).abs() <= 3.0)
        .map(|m| m.text.as_str())
        .collect();
    if !near.is_empty() {
        response.clone().on_hover_text(near.join("\n"));
    }
}

/// A track's body attitude and joint angles at `time_s`, in degrees, each
/// with its label (`left_front_j1`, or the PRM name of an unknown joint);
/// `None` for a track that is not an AIBO motion.
pub fn joint_values(track: &Track, time_s: f64) -> Option<Vec<(String, f64)>> {
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

/// A window listing each AIBO track's joint values at `time_s`.
pub fn joints_window(ctx: &egui::Context, tracks: &[Track], time_s: f64) {
    let tables: Vec<(String, Vec<(String, f64)>)> = tracks
        .iter()
        .filter_map(|t| Some((t.name(), joint_values(t, time_s)?)))
        .collect();
    if tables.is_empty() {
        return;
    }
    // Top right, clear of the information panel and the entry list.
    let corner = [ctx.content_rect().right() - 8.0, 8.0];
    egui::Window::new("joints")
        .pivot(egui::Align2::RIGHT_TOP)
        .default_pos(corner)
        .default_open(false)
        .collapsible(true)
        .show(ctx, |ui| {
            egui::ScrollArea::vertical()
                .max_height(360.0)
                .show(ui, |ui| {
                    for (name, values) in &tables {
                        ui.strong(name);
                        egui::Grid::new(("joints", name))
                            .num_columns(2)
                            .show(ui, |ui| {
                                for (label, deg) in values {
                                    ui.label(label);
                                    ui.monospace(format!("{deg:8.2}°"));
                                    ui.end_row();
                                }
                            });
                    }
                });
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::mtn;

    fn seed() -> Track {
        let path = format!("{}/data/sony_stand_sit.mtn", env!("CARGO_MANIFEST_DIR"));
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
        assert!(finding_marks(&[seed()]).is_empty());
        let Track::Mtn {
            path, mut motion, ..
        } = seed()
        else {
            unreachable!()
        };
        // Left front knee at 160°, 13° past the ERS-210's 147°, at keyframe 2 (1.792 s).
        motion.keyframes[2].joints[8] = (160f64.to_radians() * 1e6).round() as i32;
        let marks = finding_marks(&[Track::Mtn {
            path,
            motion,
            entry: None,
        }]);
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
