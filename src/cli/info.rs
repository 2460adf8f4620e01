//! `viewer info`: one description per motion, as JSON or a readable table.

use super::{InfoArgs, input_animation, memg, mtn};
use anyhow::Result;
use motion_viewer::scene::{self, Track};
use serde_json::Value;
use std::fmt::Write as _;

/// Describes one loaded track as the JSON object `info --json` prints.
pub fn describe(track: &Track) -> Value {
    match track {
        Track::Mtn { path, motion, .. } => mtn::info(path, motion),
        Track::Memg {
            obj_path,
            motion_path,
            scene,
            motion,
        } => memg::info(obj_path, motion_path, scene, motion),
        Track::InputAnimation { path, recording } => input_animation::info(path, recording),
    }
}

pub fn run(args: &InfoArgs) -> Result<()> {
    let tracks = scene::load_with(&args.files, scene::Archives::EveryMotion)?;
    let infos: Vec<Value> = tracks.iter().map(describe).collect();
    let mut text = String::new();
    if args.json {
        text = serde_json::to_string_pretty(&infos)? + "\n";
    } else {
        for (track, info) in tracks.iter().zip(&infos) {
            writeln!(text, "{}", track.path().display())?;
            write_readable(&mut text, info, 1)?;
            writeln!(text)?;
        }
    }
    super::print_stdout(&text)
}

/// Writes a JSON object as indented `key: value` lines; arrays of objects
/// become one line per element.
fn write_readable(out: &mut String, value: &Value, depth: usize) -> std::fmt::Result {
    let pad = "  ".repeat(depth);
    let Value::Object(map) = value else {
        writeln!(out, "{pad}{}", scalar(value))?;
        return Ok(());
    };
    for (key, v) in map {
        match v {
            Value::Array(items) if items.iter().any(Value::is_object) => {
                writeln!(out, "{pad}{key}: ({})", items.len())?;
                for item in items {
                    let line: Vec<String> = match item {
                        Value::Object(m) => m
                            .iter()
                            .map(|(k, v)| format!("{k}={}", scalar(v)))
                            .collect(),
                        other => vec![scalar(other)],
                    };
                    writeln!(out, "{pad}  - {}", line.join("  "))?;
                }
            }
            Value::Array(items) if key == "warnings" => {
                if items.is_empty() {
                    writeln!(out, "{pad}{key}: none")?;
                }
                for w in items {
                    writeln!(out, "{pad}warning: {}", scalar(w))?;
                }
            }
            Value::Object(_) => {
                writeln!(out, "{pad}{key}:")?;
                write_readable(out, v, depth + 1)?;
            }
            _ => writeln!(out, "{pad}{key}: {}", scalar(v))?,
        }
    }
    Ok(())
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(scalar).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}
