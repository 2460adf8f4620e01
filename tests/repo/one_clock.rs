//! One clock: no code outside `anim/clock.rs` turns a time into frames or
//! frames into a time on its own (issue 44). Every such conversion — the
//! window's playhead, the editor, the CSV import, retiming, the glTF key
//! times, the GPU's MEMG timestep, the simulator's step grid, the 60 Hz
//! hold of MRTK values, `render`'s frames — asks `anim::clock`
//! (`frames`, `nearest_frame`, `last_frame`, `frames_to_reach`, `time_of`,
//! `at_rate`, `seconds_at_rate`, `Grid`, and MEMG's `steps_at` on top of
//! `at_rate`), so that a rounding rule changed there changes everywhere.
//!
//! The check reads the code (comments and string contents left out; test
//! modules too) of the library, the application, the page and the Python
//! crate, and finds every product or quotient with a frame period or rate
//! (`fps`, `period`, `period_s`, `frame_s`, `frame_period_s`,
//! `FRAME_PERIOD_S`, `STEP_S`) and every `frame_ms … / 1000`. The few that
//! are another quantity are listed below with what they are.

use crate::common::repo;
use crate::imports::{code, rust_files};

/// Names that hold a frame period (seconds) or a frame rate (per second).
const PERIODS: &[&str] = &[
    "fps",
    "period",
    "period_s",
    "frame_s",
    "frame_period_s",
    "FRAME_PERIOD_S",
    "STEP_S",
];

/// Products and quotients with a period that are not a time↔frame
/// conversion: (file, code on the line, what it is).
const OTHER_QUANTITIES: &[(&str, &str, &str)] = &[
    (
        "crates/motion-viewer/src/workbench/check.rs",
        "rad_s.to_degrees() * frame_s",
        "a servo's rated speed in degrees per frame",
    ),
    (
        "crates/motion-viewer/src/anim/aibo/drive.rs",
        "speed * STEP_S",
        "how far a servo turns in one simulation step",
    ),
    (
        "crates/motion-viewer/src/session/edit.rs",
        "1e-3 * self.timeline.frame_period_s()",
        "a tolerance of a thousandth of a frame",
    ),
    (
        "crates/motion-viewer/src/session/viewer.rs",
        "1e-6 * self.timeline.frame_period_s()",
        "a tolerance of a millionth of a frame",
    ),
    (
        "crates/motion-viewer/src/formats/mtn/mod.rs",
        "frame as f64 * f64::from(self.frame_ms()) / 1000.0",
        "the .mtn format's own frame times (`Mtn::frame_s`), the period the clock is given",
    ),
    (
        "crates/motion-viewer/src/formats/memg/mod.rs",
        "self.timesteps.saturating_sub(1) as f64 / f64::from(self.fps.max(1))",
        "the MEMG format's own duration (`MemgMotion::duration_s`), below the clock's layer",
    ),
    (
        "src/cli/render/mod.rs",
        "0.05 * fps",
        "a tolerance on a movie's frame rate",
    ),
    (
        "src/cli/render/movie.rs",
        "(100.0 / fps)",
        "a GIF frame's delay in hundredths of a second, as GIF stores it",
    ),
    (
        "src/bench/memg.rs",
        "/ 1e9 * fps",
        "a throughput: gigabytes per frame times frames per second",
    ),
    (
        "crates/motion-viewer/src/workbench/csv.rs",
        "f64::from(frame_ms) / 1000.0",
        "the frame length of a motion not built yet (Mtn::frame_s once it is)",
    ),
];

/// The library's, the application's, the page's and the Python crate's
/// code files, test files left out.
fn code_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for dir in ["crates/motion-viewer/src", "src", "web/src", "python/src"] {
        rust_files(&repo(dir), &mut files);
    }
    files.retain(|f| {
        let name = f.file_name().unwrap().to_string_lossy();
        let test_dir = f.components().any(|c| {
            let c = c.as_os_str().to_string_lossy();
            c == "model_tests" || c.ends_with("_tests")
        });
        name != "tests.rs" && !name.ends_with("_tests.rs") && !test_dir
    });
    files.sort();
    files
}

/// The code before the file's first `#[cfg(test)] mod NAME {`.
fn without_test_module(code: &str) -> &str {
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(test)]") {
        let start = from + at;
        let rest = code[start + "#[cfg(test)]".len()..].trim_start();
        let inline_mod = rest.strip_prefix("mod ").is_some_and(|r| {
            let name_end = r.find(|c: char| !(c.is_alphanumeric() || c == '_'));
            name_end.is_some_and(|e| r[e..].trim_start().starts_with('{'))
        });
        if inline_mod {
            return &code[..start];
        }
        from = start + 1;
    }
    code
}

/// The products and quotients with a period on `line`: the operator, the
/// operand after it and whether the text before is `1.0` (a rate made
/// from a period or back, not a time).
fn period_operations(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut found = Vec::new();
    for i in 0..chars.len() {
        if chars[i] != '*' && chars[i] != '/' {
            continue;
        }
        // A binary operator: an operand right before it (a deref `*x` or a
        // `/` of a path are not).
        let before: String = chars[..i].iter().collect();
        let before = before.trim_end();
        if !before
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ')' || c == ']')
        {
            continue;
        }
        if before.ends_with("1.0") && chars[i] == '/' {
            continue;
        }
        let mut j = i + 1;
        while j < chars.len() && (chars[j] == ' ' || chars[j] == '(' || chars[j] == '*') {
            j += 1;
        }
        // The operand: a path, with any call's arguments (`f64::from(fps)`,
        // `self.timeline.frame_period_s()`): a period anywhere in it counts.
        let start = j;
        let mut depth = 0usize;
        while j < chars.len() {
            let c = chars[j];
            if c == '(' {
                depth += 1;
            } else if c == ')' {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            } else if depth == 0 && !(c.is_alphanumeric() || c == '_' || c == '.' || c == ':') {
                break;
            }
            j += 1;
        }
        let operand: String = chars[start..j].iter().collect();
        let names = operand.split(|c: char| !(c.is_alphanumeric() || c == '_'));
        if names.into_iter().any(|n| PERIODS.contains(&n)) {
            found.push(format!("{} {operand}", chars[i]));
        }
    }
    found
}

/// Every line of code outside the clock that converts a time and frames
/// by itself: (file, line number in the code, the line).
fn conversions() -> Vec<(String, usize, String)> {
    let root = repo("");
    let mut hits = Vec::new();
    for file in code_files() {
        let rel = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "crates/motion-viewer/src/anim/clock.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = code(&text);
        for (n, line) in without_test_module(&code).lines().enumerate() {
            let by_period = !period_operations(line).is_empty();
            let by_ms = line.contains("frame_ms") && line.contains("/ 1000");
            if !(by_period || by_ms) {
                continue;
            }
            let known = OTHER_QUANTITIES
                .iter()
                .any(|(f, snippet, _)| rel == *f && line.contains(snippet));
            if !known {
                hits.push((rel.clone(), n + 1, line.trim().to_string()));
            }
        }
    }
    hits
}

#[test]
fn every_time_and_frame_conversion_asks_the_clock() {
    let hits = conversions();
    assert!(
        hits.is_empty(),
        "time↔frame conversions outside anim/clock.rs (use anim::clock, or list the line \
         in OTHER_QUANTITIES with what it is):\n{}",
        hits.iter()
            .map(|(f, n, l)| format!("  {f} (code line {n}): {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // Every listed exception still exists: a stale entry would hide nothing
    // but mislead the reader.
    for (file, snippet, what) in OTHER_QUANTITIES {
        let text = std::fs::read_to_string(repo(file)).unwrap();
        assert!(
            code(&text).contains(snippet),
            "{file} no longer has `{snippet}` ({what}): remove it from OTHER_QUANTITIES"
        );
    }
}

#[test]
fn the_check_sees_the_conversions_it_forbids() {
    // The shapes the issue found, each as it was written.
    for line in [
        "(t / self.frame_period_s).round() as u64",
        "let time = |t: usize| (t as f64 / fps) as f32;",
        "mesh.pose(&self.ctx, encoder, t * *fps);",
        "let last_frame = (t / FRAME_PERIOD_S).floor();",
        "let play = (duration_s / STEP_S - 1e-9).ceil().max(0.0) as usize;",
        "Some(At::Frame(n)) => n as f64 * period,",
        "time_s: frame as f64 / f64::from(fps.max(1)),",
    ] {
        assert!(!period_operations(line).is_empty(), "not seen: {line}");
    }
    // Not a conversion: a rate from a period, a deref, a path.
    for line in [
        "let fps = 1.0 / period;",
        "clock::at_rate(t, *fps)",
        "use crate::anim::input_animation::FRAME_PERIOD_S;",
    ] {
        assert!(period_operations(line).is_empty(), "seen: {line}");
    }
    let code = "fn a() {}\n#[cfg(test)]\nmod tests;\nfn b() {}\n#[cfg(test)]\nmod tests {\n fn c() {}\n}\n";
    assert_eq!(
        without_test_module(code),
        "fn a() {}\n#[cfg(test)]\nmod tests;\nfn b() {}\n"
    );
}
