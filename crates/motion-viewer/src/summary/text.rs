//! The readable `viewer info` view: a summary line first (format, model or
//! groups, frames, duration), then the details grouped under short headings.

use super::{InputAnimationSummary, MemgSummary, MtnSummary, Summary};
use std::fmt::Write as _;

impl Summary {
    /// The file that names the motion (the motion file for MEMG).
    pub fn file(&self) -> &str {
        match self {
            Summary::Mtn(s) => &s.file,
            Summary::Memg(s) => &s.motion,
            Summary::InputAnimation(s) => &s.file,
            Summary::OdaEntry(s) => &s.file,
        }
    }

    /// One line: format, model or groups, size, duration.
    pub(crate) fn headline(&self) -> String {
        match self {
            Summary::Mtn(s) => format!(
                "AIBO motion · {} · {} joints · {} keyframes · {} frames of {} ms · {:.3} s",
                s.model.unwrap_or("unknown model"),
                s.joints.len(),
                s.keyframes,
                s.frames,
                s.frame_ms,
                s.duration_s
            ),
            Summary::Memg(s) => format!(
                "MEMG motion · {} groups · {} vertices · {} timesteps at {} fps · {:.3} s",
                s.groups.len(),
                s.groups.iter().map(|g| g.vertices).sum::<usize>(),
                s.timesteps,
                s.fps,
                s.duration_s
            ),
            Summary::InputAnimation(s) => format!(
                "MRTK input animation · v{}.{} · {} · {} curves, {} keys · {:.3} s",
                s.version[0],
                s.version[1],
                parts(s),
                s.curves,
                s.keys,
                s.duration_s
            ),
            Summary::OdaEntry(s) => s.headline(),
        }
    }

    /// The file name, the headline, then the details, indented; ends with a
    /// newline.
    pub fn to_text(&self) -> String {
        let mut out = format!("{}\n  {}\n", self.file(), self.headline());
        match self {
            Summary::Mtn(s) => mtn(&mut out, s),
            Summary::Memg(s) => memg(&mut out, s),
            Summary::InputAnimation(s) => input_animation(&mut out, s),
            Summary::OdaEntry(_) => {}
        }
        let warnings = match self {
            Summary::Mtn(s) => &s.warnings,
            Summary::Memg(s) => &s.warnings,
            Summary::InputAnimation(s) => &s.warnings,
            Summary::OdaEntry(s) => &s.warnings,
        };
        for w in warnings {
            let _ = writeln!(out, "  warning: {w}");
        }
        // Names, markers and warnings come from the files: escaped for the
        // terminal, line breaks kept.
        crate::text::escape_lines(&out).into_owned()
    }
}

/// "camera, hands, eye gaze" — the parts a recording holds.
fn parts(s: &InputAnimationSummary) -> String {
    let present: Vec<&str> = [
        (s.has_camera, "camera"),
        (s.has_hands, "hands"),
        (s.has_eye_gaze, "eye gaze"),
    ]
    .into_iter()
    .filter_map(|(has, name)| has.then_some(name))
    .collect();
    if present.is_empty() {
        "no parts".into()
    } else {
        present.join(", ")
    }
}

fn mtn(out: &mut String, s: &MtnSummary) {
    let _ = writeln!(out, "  name      {}", s.name);
    if let Some(m) = &s.motion {
        let _ = writeln!(
            out,
            "            {} servos, {} → {}{}",
            m.group,
            m.start,
            m.end,
            if m.description.is_empty() {
                String::new()
            } else {
                format!(", “{}”", m.description)
            }
        );
    }
    let _ = writeln!(out, "  creator   {}", s.creator);
    let _ = writeln!(
        out,
        "  design    {} (version {}.{})",
        s.design, s.version[0], s.version[1]
    );
    let times: Vec<String> = s
        .keyframe_times_s
        .iter()
        .map(|t| format!("{t:.3}"))
        .collect();
    let _ = writeln!(out, "  keyframes at {} s", times.join(", "));
    let _ = writeln!(out, "  joints");
    // Grouped by body part, parts in order of first appearance.
    let mut parts: Vec<Option<&str>> = Vec::new();
    for j in &s.joints {
        if !parts.contains(&j.part) {
            parts.push(j.part);
        }
    }
    for part in parts {
        let names: Vec<&str> = s
            .joints
            .iter()
            .filter(|j| j.part == part)
            .map(|j| j.name.as_str())
            .collect();
        let label = part.unwrap_or("unknown part").replace('_', " ");
        let _ = writeln!(out, "    {label:<16}{}", names.join("  "));
    }
    for j in &s.joints {
        if let Some(own) = &j.file_name {
            let _ = writeln!(out, "    {} is named {own} in the file", j.name);
        }
    }
}

fn memg(out: &mut String, s: &MemgSummary) {
    let _ = writeln!(
        out,
        "  scene     {} ({} vertices, {} triangles)",
        s.scene, s.vertices, s.triangles
    );
    let _ = writeln!(
        out,
        "  motion    {} ({} byte order, {} local frames)",
        s.motion,
        match s.byte_order {
            crate::formats::bytes::ByteOrder::Little => "little-endian",
            crate::formats::bytes::ByteOrder::Big => "big-endian",
        },
        s.local_frames
    );
    let _ = writeln!(out, "  groups");
    let width = s.groups.iter().map(|g| g.name.len()).max().unwrap_or(0);
    for g in &s.groups {
        let parent = if (0..s.local_frames as i64).contains(&i64::from(g.parent)) {
            format!("local frame {}", g.parent)
        } else {
            format!("world space (parent {})", g.parent)
        };
        let _ = writeln!(
            out,
            "    {:<width$}  {} vertices, basis {}, {parent}{}",
            g.name,
            g.vertices,
            g.basis,
            if g.in_scene { "" } else { ", NOT in the scene" }
        );
    }
}

fn input_animation(out: &mut String, s: &InputAnimationSummary) {
    if s.markers.is_empty() {
        let _ = writeln!(out, "  markers   none");
        return;
    }
    let _ = writeln!(out, "  markers");
    for m in &s.markers {
        let _ = writeln!(out, "    {:>10} s  {}", m.time_s, m.name);
    }
}
