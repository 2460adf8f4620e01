//! `viewer info`: one description per motion, as JSON or a readable table.

use super::{InfoArgs, input_animation, memg, mtn};
use anyhow::Result;
use motion_viewer::scene::{self, Track};
use serde_json::Value;

/// Describes one loaded track as the JSON object `info --json` prints.
pub fn describe(track: &Track) -> Value {
    match track {
        Track::Mtn { path, motion } => mtn::info(path, motion),
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
    let tracks = scene::load(&args.files)?;
    let infos: Vec<Value> = tracks.iter().map(describe).collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&infos)?);
    } else {
        for (track, info) in tracks.iter().zip(&infos) {
            println!("{}", track.path().display());
            print_readable(info, 1);
            println!();
        }
    }
    Ok(())
}

/// Prints a JSON object as indented `key: value` lines; arrays of objects
/// become one line per element.
fn print_readable(value: &Value, depth: usize) {
    let pad = "  ".repeat(depth);
    let Value::Object(map) = value else {
        println!("{pad}{}", scalar(value));
        return;
    };
    for (key, v) in map {
        match v {
            Value::Array(items) if items.iter().any(Value::is_object) => {
                println!("{pad}{key}: ({})", items.len());
                for item in items {
                    let line: Vec<String> = match item {
                        Value::Object(m) => m
                            .iter()
                            .map(|(k, v)| format!("{k}={}", scalar(v)))
                            .collect(),
                        other => vec![scalar(other)],
                    };
                    println!("{pad}  - {}", line.join("  "));
                }
            }
            Value::Array(items) if key == "warnings" => {
                if items.is_empty() {
                    println!("{pad}{key}: none");
                }
                for w in items {
                    println!("{pad}warning: {}", scalar(w));
                }
            }
            Value::Object(_) => {
                println!("{pad}{key}:");
                print_readable(v, depth + 1);
            }
            _ => println!("{pad}{key}: {}", scalar(v)),
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(scalar).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}
