//! One clock (issue 33, first acceptance point): an AIBO `.mtn`, an MRTK
//! recording and a MEMG scene, each sampled at its own frame period and at
//! 7, 29.97 and 1000 fps through every writer and sampler, give the same
//! times and the same values.
//!
//! **Times.** Every output's samples are the grid `k · p` (`p` the motion's
//! own period, or `1/R`) for `k = 0..=⌊duration/p⌋` (a slack of 10⁻⁹
//! frames; the last frame included), computed here — exactly, or to the
//! output's own precision: the nearest nanosecond for MCAP stamps, integer
//! time codes `0..n` with `timeCodesPerSecond = R` for USD, `f32` key times
//! for glTF.
//!
//! **Values.** The CSV and JSON tables equal the library's own sampler
//! (`motion_viewer::curves::sample`) exactly, at the grid's times; every
//! other output is compared with the CSV of the same rate at the same time,
//! to the output's precision:
//!
//! | path | own | 7 | 29.97 | 1000 fps |
//! |---|---|---|---|---|
//! | CSV, JSON table | ✓ | ✓ | ✓ | ✓ |
//! | `export --time` state (4 grid times a rate, 2/7 s among them) | ✓ | ✓ | ✓ | ✓ |
//! | MCAP (`/joint_states`, `/tf`, `/…/tracked`) | ✓ | ✓ | ✓ | ✓ |
//! | USD | ✓ | ✓ | ✓ | ✓ (MEMG: refused, below) |
//! | glTF (AIBO and MEMG: one file, read at each rate's state times) | ✓ | ✓ | ✓ | ✓ |
//! | MEMG `.obj` at `--time` (and once with `--gpu`, at 2/7 s) | ✓ | ✓ | ✓ | ✓ |
//! | MEMG `.pc2` | ✓ | ✓ | ✓ | `--frames 8..10` |
//! | `plot` SVG, `diff A A --json` (no `--fps`: the own grid) | ✓ | – | – | – |
//! | Python samplers (`python/tests/test_one_clock.py`, pytest) | ✓ | ✓ | ✓ | ✓ |
//!
//! - AIBO ([`aibo`]): body attitude and joint angles (degrees; radians on
//!   `/joint_states`, within 1e-12 rad), and the rig's world points of the
//!   state (`world`, mm) as the bag's `/tf` chains, the glTF's point nodes
//!   and the USD's `Xform`s carry them.
//! - MRTK ([`mrtk`]): the head camera and two hand joints, Unity metres in
//!   the tables and the state, REP 103's axes on `/tf`, z mirrored in glTF
//!   and USD: exact, as every writer moves the recording's `f32`s.
//! - MEMG ([`memg`]): the reduced coordinates (`g{g}_q{j}`, `g{g}_t*`) in the
//!   tables, the state's groups and the bag's `memg_frame_K`; the deformed
//!   vertices of `.obj`, `.pc2`, USD and glTF against
//!   `motion_viewer::anim::memg::deform_reference_f64` within 1e-5 of the
//!   scene's diagonal, and against each other bit for bit where both are
//!   `f32` from the same deformer.
//!
//! What the writers sample differently, by design: AIBO and MEMG glTF keys
//! are the file's own frames whatever `--fps` says (a glTF reader
//! interpolates between them by the same rule: servos turn about fixed
//! axes, MEMG weights and frames blend as [`motion_viewer::anim::memg::Between`]
//! does), so the glTF is evaluated at each rate's times instead; an MRTK
//! glTF keys the grid of `--fps` and also the recording's end where that
//! falls after the grid's last frame. A MEMG USD stage at 1000 fps (7967
//! time codes × 3116 points) is past the values a `.usda` export writes and
//! is refused with a hint (that refusal is checked); a `.pc2` at 1000 fps
//! is sampled over `--frames 8..10` (2/7 s lies inside) instead of 300 MB.
//!
//! The other parts of this acceptance point are elsewhere: the window's
//! status line at a seeked time
//! (`tests/window/window_curves.rs`,
//! `the_status_line_gives_each_curve_at_a_seeked_time_as_export_time_does`)
//! and every real motion's table round trip
//! (`crates/motion-viewer/tests/model/one_name.rs`).

mod aibo;
mod memg;
mod mrtk;
mod read;

use crate::app::viewer;
use crate::common::{data, python};
use motion_viewer::Track;
use read::Table;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The rates every path is sampled at: the motion's own period (`None`),
/// then 7, 29.97 and 1000 samples a second.
pub const RATES: [Option<f64>; 4] = [None, Some(7.0), Some(29.97), Some(1000.0)];

/// The slack, in frames, within which a time counts as on a frame.
const SLACK: f64 = 1e-9;

/// A short name for a rate, for file names and messages.
pub fn label(rate: Option<f64>) -> String {
    rate.map_or_else(|| "own".into(), |r| format!("{r}fps"))
}

/// One motion under test: its files, its track as the library opens it,
/// and what its file says of its clock.
pub struct Case {
    pub inputs: Vec<PathBuf>,
    pub track: Track,
    /// The motion's own frame period, seconds.
    pub own_period: f64,
    /// Its duration, seconds.
    pub duration: f64,
    pub dir: tempfile::TempDir,
}

impl Case {
    /// The motion in `files` (under `data/`), whose own period and duration
    /// its file states as `own_period` and `duration`.
    pub fn open(files: &[&str], own_period: f64, duration: f64) -> Case {
        let inputs: Vec<PathBuf> = files.iter().map(|f| data(f)).collect();
        let mut loaded =
            motion_viewer::open_with(&inputs, &motion_viewer::OpenOptions::default()).unwrap();
        assert_eq!(loaded.tracks.len(), 1);
        let track = loaded.tracks.remove(0);
        assert_eq!(track.frame_period_s(), own_period, "{files:?}");
        assert_eq!(track.duration_s(), duration, "{files:?}");
        Case {
            inputs,
            track,
            own_period,
            duration,
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Seconds between samples at `rate`.
    pub fn period(&self, rate: Option<f64>) -> f64 {
        rate.map_or(self.own_period, |r| 1.0 / r)
    }

    /// The times every output samples at `rate`: frame `k` at `k · p`,
    /// from 0 to the last frame at or before the end.
    pub fn grid(&self, rate: Option<f64>) -> Vec<f64> {
        let p = self.period(rate);
        let last = (self.duration / p + SLACK).floor() as u64;
        (0..=last).map(|k| k as f64 * p).collect()
    }

    /// A path in this case's scratch folder.
    pub fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `viewer export INPUTS [--fps R] ARGS --out NAME`, which must succeed.
    pub fn export(&self, rate: Option<f64>, args: &[&str], name: &str) -> PathBuf {
        let out = self.out(name);
        let run = self.export_command(rate, args, &out).output().unwrap();
        assert!(
            run.status.success(),
            "export {name} at {}: {}",
            label(rate),
            String::from_utf8_lossy(&run.stderr)
        );
        out
    }

    /// The `viewer export` command of [`Case::export`].
    pub fn export_command(
        &self,
        rate: Option<f64>,
        args: &[&str],
        out: &Path,
    ) -> std::process::Command {
        let mut command = viewer();
        command.arg("export").args(&self.inputs);
        if let Some(r) = rate {
            command.args(["--fps", &r.to_string()]);
        }
        command.args(args).arg("--out").arg(out);
        command
    }

    /// The grid times at which `export --time` states are taken at `rate`:
    /// frames 1, 2 (2/7 s at 7 fps, between two MEMG timesteps), the
    /// middle one and the last.
    pub fn state_times(&self, rate: Option<f64>) -> Vec<(usize, f64)> {
        let grid = self.grid(rate);
        let n = grid.len();
        let mut ks = vec![1, 2, n / 2, n - 1];
        ks.dedup();
        ks.into_iter().map(|k| (k, grid[k])).collect()
    }

    /// `export --time t --out s.json`: the motion's state at `t`.
    pub fn state(&self, t: f64) -> serde_json::Value {
        let name = format!("state-{t}.json");
        let path = self.export(None, &["--time", &t.to_string()], &name);
        let mut states: Vec<serde_json::Value> =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(states.len(), 1);
        let state = states.remove(0);
        assert_eq!(state["time_s"].as_f64(), Some(t), "the state's time");
        state
    }

    /// The CSV and the JSON table at `rate`, checked: their `time_s` is the
    /// grid, every other column is the library's own sampler
    /// (`curves::sample`) at those times, bit for bit, and the two tables
    /// hold the same numbers. Returns the CSV.
    pub fn tables(&self, rate: Option<f64>) -> Table {
        let grid = self.grid(rate);
        let csv = Table::csv(&self.export(rate, &[], &format!("{}.csv", label(rate))));
        let json = Table::json(
            &self.export(rate, &[], &format!("{}.json", label(rate))),
            &csv.columns,
        );
        assert_eq!(csv.columns[0], "time_s");
        assert_times(
            &format!("CSV at {}", label(rate)),
            &csv.column("time_s"),
            &grid,
        );
        let names: Vec<&str> = csv.columns[1..].iter().map(String::as_str).collect();
        let series = motion_viewer::curves::sample(&self.track, &names, &grid).unwrap();
        for (c, s) in series.iter().enumerate() {
            let column = csv.column(&csv.columns[c + 1]);
            if let Some(k) = (0..grid.len()).find(|&k| column[k] != s.values[k]) {
                panic!(
                    "CSV at {}: {} at {} s is {}, curves::sample says {}",
                    label(rate),
                    s.name,
                    grid[k],
                    column[k],
                    s.values[k]
                );
            }
        }
        assert_eq!(json.rows.len(), csv.rows.len());
        for (k, (a, b)) in csv.rows.iter().zip(&json.rows).enumerate() {
            assert!(
                a == b,
                "JSON table at {}, row {k}: {b:?}\nvs the CSV's {a:?}",
                label(rate)
            );
        }
        csv
    }

    /// `plot FILE --channels CHANNELS --out x.svg` (`channels` in table
    /// order), read back through the
    /// root element's mapping: each curve's points are the own grid's
    /// frames in order (every frame: there are fewer than two a pixel
    /// column), each time and value within the 0.001 px the SVG prints of
    /// the grid and of the own-period CSV.
    pub fn plot(&self, channels: &[&str], csv: &Table) {
        let out = self.out("plot.svg");
        let run = viewer()
            .arg("plot")
            .args(&self.inputs)
            .arg("--channels")
            .args(channels)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let plot = read::Plot::read(&out);
        let names: Vec<&str> = plot.curves.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(names, channels, "one polyline per channel, in table order");
        let grid = self.grid(None);
        // Half of the last printed digit, and a hair for the mapping's arithmetic.
        let (dt, dv) = (
            0.0005 * plot.t_per_px * (1.0 + 1e-9),
            0.0005 * plot.v_per_px * (1.0 + 1e-9) + 1e-12,
        );
        let (mut worst_t, mut worst_v) = (0f64, 0f64);
        for (channel, points) in &plot.curves {
            assert_eq!(points.len(), grid.len(), "{channel}: a point per frame");
            for (k, &(t, v)) in points.iter().enumerate() {
                worst_t = worst_t.max((t - grid[k]).abs() / dt);
                worst_v = worst_v.max((v - csv.at(k, channel)).abs() / dv);
                assert!(
                    (t - grid[k]).abs() <= dt,
                    "{channel}: point {k} at {t} s, frame {k} is at {} s",
                    grid[k]
                );
                assert!(
                    (v - csv.at(k, channel)).abs() <= dv,
                    "{channel} at {} s: the SVG says {v}, the CSV {}",
                    grid[k],
                    csv.at(k, channel)
                );
            }
        }
        eprintln!(
            "plot: {} curves × {} points; worst time {worst_t:.2}, worst value {worst_v:.2} of the SVG's precision",
            plot.curves.len(),
            grid.len()
        );
    }

    /// `diff A A --json` of the motion with itself: it samples the own grid
    /// (its `period_s`, `samples`, `from_s`, `to_s`), finds no difference in
    /// any channel, and reports each channel's value where it looked (a
    /// MEMG side's channels are vertex distances, without values).
    pub fn diff_with_itself(&self, csv: &Table) {
        let run = viewer()
            .arg("diff")
            .args(&self.inputs)
            .args(&self.inputs)
            .arg("--json")
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        let grid = self.grid(None);
        assert_eq!(report["period_s"].as_f64(), Some(self.own_period));
        assert_eq!(report["samples"].as_u64(), Some(grid.len() as u64));
        assert_eq!(report["from_s"].as_f64(), Some(0.0));
        assert_eq!(report["to_s"].as_f64(), Some(self.duration));
        let channels = report["channels"].as_array().unwrap();
        assert!(!channels.is_empty());
        for c in channels {
            let name = c["channel"].as_str().unwrap();
            assert_eq!(c["max_abs"].as_f64(), Some(0.0), "{name}");
            assert_eq!(c["exceeds"], false, "{name}");
            let Some(a) = c["a"].as_f64() else { continue };
            let at = c["at_s"].as_f64().unwrap();
            let k = grid.iter().position(|&t| t == at).expect("at a grid time");
            assert_eq!(a, csv.at(k, name), "diff's {name} at {at} s vs the CSV");
        }
    }
}

/// `got` is the grid `want`, exactly.
pub fn assert_times(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: samples");
    if let Some(k) = (0..got.len()).find(|&k| got[k] != want[k]) {
        panic!(
            "{what}: sample {k} at {} s, the grid's is {} s",
            got[k], want[k]
        );
    }
}

/// `stamps` (nanoseconds) are the grid `want` to the nearest nanosecond.
pub fn assert_stamps(what: &str, stamps: &[u64], want: &[f64]) {
    assert_eq!(stamps.len(), want.len(), "{what}: messages");
    for (k, (&ns, &t)) in stamps.iter().zip(want).enumerate() {
        assert!(
            (ns as f64 - t * 1e9).abs() <= 0.5,
            "{what}: message {k} at {ns} ns, the grid's time is {t} s"
        );
    }
}

/// `got` is the grid `want` as `f32` glTF key times.
pub fn assert_key_times(what: &str, got: &[f32], want: &[f64]) {
    let want: Vec<f32> = want.iter().map(|&t| t as f32).collect();
    assert_eq!(got.len(), want.len(), "{what}: keys");
    if let Some(k) = (0..got.len()).find(|&k| got[k] != want[k]) {
        panic!(
            "{what}: key {k} at {} s, the grid's is {} s",
            got[k], want[k]
        );
    }
}

/// What a stage says of its clock and of the prims asked for.
pub struct Stage {
    pub tcps: f64,
    pub start: f64,
    pub end: f64,
    /// By the asked path suffix: the prim's first animated attribute's time
    /// samples, and per asked time code its world translation, its
    /// `xformOp:translate` and `xformOp:orient` (real part first) where it
    /// has them, and a mesh's points.
    pub prims: serde_json::Value,
    /// Each mesh's `primvars:objVertex` (1-based `.obj` vertices) and its
    /// points per asked time code.
    pub meshes: serde_json::Value,
}

/// Reads USD stages with Pixar's library: for each `(stage, time codes,
/// prim path suffixes)`, the stage's clock, the asked prims at those codes,
/// and every mesh's points there.
const USD: &str = r#"
import sys, json
from pxr import Usd, UsdGeom
out = []
for job in json.loads(sys.argv[1]):
    stage = Usd.Stage.Open(job["path"])
    assert stage, job["path"]
    codes = job["codes"]
    prims, meshes = {}, []
    for prim in stage.Traverse():
        path = str(prim.GetPath())
        wanted = [s for s in job["suffixes"] if path.endswith("/" + s)]
        if wanted:
            attrs = [prim.GetAttribute(a) for a in ("xformOp:orient", "xformOp:translate")]
            animated = [a for a in attrs if a and a.GetNumTimeSamples() > 0]
            entry = {"samples": animated[0].GetTimeSamples() if animated else [], "at": []}
            for code in codes:
                cache = UsdGeom.XformCache(code)
                world = cache.GetLocalToWorldTransform(prim).ExtractTranslation()
                at = {"world": list(world)}
                if attrs[1]:
                    at["translate"] = list(attrs[1].Get(code))
                if attrs[0]:
                    q = attrs[0].Get(code)
                    at["orient"] = [q.GetReal(), *q.GetImaginary()]
                entry["at"].append(at)
            assert wanted[0] not in prims, wanted
            prims[wanted[0]] = entry
        if prim.IsA(UsdGeom.Mesh):
            points = UsdGeom.Mesh(prim).GetPointsAttr()
            meshes.append({
                "samples": points.GetTimeSamples(),
                "obj": list(UsdGeom.PrimvarsAPI(prim).GetPrimvar("objVertex").Get()),
                "at": [[list(p) for p in points.Get(code)] for code in codes],
            })
    out.append({"tcps": stage.GetTimeCodesPerSecond(), "start": stage.GetStartTimeCode(),
                "end": stage.GetEndTimeCode(), "prims": prims, "meshes": meshes})
print(json.dumps(out))
"#;

/// One USD stage to read: its path, the time codes and the prims asked for.
pub struct UsdJob {
    pub path: PathBuf,
    pub codes: Vec<usize>,
    pub suffixes: Vec<String>,
}

/// Reads every stage of `jobs` in one run of the readers' Python (`None`
/// where it is not installed: skipped with a notice, failed on CI).
pub fn read_stages(jobs: &[UsdJob]) -> Option<Vec<Stage>> {
    let py = python::readers()?;
    let request: Vec<serde_json::Value> = jobs
        .iter()
        .map(|j| {
            serde_json::json!({
                "path": j.path.to_string_lossy(),
                "codes": j.codes,
                "suffixes": j.suffixes,
            })
        })
        .collect();
    let arg = OsString::from(serde_json::to_string(&request).unwrap());
    let text = python::run(&py, USD, &[arg.as_os_str()]);
    let stages: Vec<serde_json::Value> = serde_json::from_str(text.trim()).unwrap();
    Some(
        stages
            .into_iter()
            .map(|s| Stage {
                tcps: s["tcps"].as_f64().unwrap(),
                start: s["start"].as_f64().unwrap(),
                end: s["end"].as_f64().unwrap(),
                prims: s["prims"].clone(),
                meshes: s["meshes"].clone(),
            })
            .collect(),
    )
}

impl Stage {
    /// The stage samples the grid of `rate` (`n` frames): `R` time codes a
    /// second, codes `0..n` (the prim `suffix`'s animated attribute, or
    /// every mesh's points, sampled at each).
    pub fn assert_clock(&self, what: &str, per_second: f64, n: usize, suffix: Option<&str>) {
        assert_eq!(self.tcps, per_second, "{what}: timeCodesPerSecond");
        assert_eq!(
            (self.start, self.end),
            (0.0, (n - 1) as f64),
            "{what}: time codes"
        );
        let codes: Vec<f64> = (0..n).map(|k| k as f64).collect();
        let samples: Vec<&serde_json::Value> = match suffix {
            Some(s) => vec![&self.prims[s]["samples"]],
            None => self
                .meshes
                .as_array()
                .unwrap()
                .iter()
                .map(|m| &m["samples"])
                .collect(),
        };
        assert!(!samples.is_empty(), "{what}: nothing animated");
        for s in samples {
            let got: Vec<f64> = serde_json::from_value(s.clone()).unwrap();
            assert!(got == codes, "{what}: time samples {got:?}");
        }
    }

    /// The asked prim `suffix`'s value `key` (`world`, `translate`,
    /// `orient`) at the `i`-th asked time code.
    pub fn prim(&self, suffix: &str, i: usize, key: &str) -> Vec<f64> {
        serde_json::from_value(self.prims[suffix]["at"][i][key].clone())
            .unwrap_or_else(|e| panic!("{suffix} {key}: {e}"))
    }
}
