//! The USD export read by Pixar's own library (`usd-core` 26.5, whose
//! `UsdUtils.ComplianceChecker` is its last release with that checker;
//! `UsdValidation`'s validators run beside it): the stage opens, says its
//! time codes, axes and units, has one time sample per MEMG timestep, and
//! its `points` at a time code are the MEMG formula's, computed here in
//! `f64` from the files themselves (`tests/common/memg.rs`), within 1e-5 of
//! the scene's diagonal.

use crate::common::memg::RawFile;
use crate::common::{data, python};
use crate::urdf::export;
use std::ffi::OsStr;

const READ: &str = r#"
import sys, json
from pxr import Usd, UsdGeom, UsdUtils, UsdValidation
path = sys.argv[1]
times = [float(t) for t in sys.argv[2:]]
stage = Usd.Stage.Open(path)
assert stage, path
out = {
    "tcps": stage.GetTimeCodesPerSecond(),
    "start": stage.GetStartTimeCode(),
    "end": stage.GetEndTimeCode(),
    "up": UsdGeom.GetStageUpAxis(stage),
    "mpu": UsdGeom.GetStageMetersPerUnit(stage),
    "default": str(stage.GetDefaultPrim().GetPath()),
    "meshes": [],
}
for prim in stage.Traverse():
    if not prim.IsA(UsdGeom.Mesh):
        continue
    mesh = UsdGeom.Mesh(prim)
    points = mesh.GetPointsAttr()
    obj = UsdGeom.PrimvarsAPI(prim).GetPrimvar("objVertex").Get()
    out["meshes"].append({
        "name": prim.GetName(),
        "samples": len(points.GetTimeSamples()),
        "extent_samples": len(mesh.GetExtentAttr().GetTimeSamples()),
        "obj": list(obj),
        "at": [[list(p) for p in points.Get(t)] for t in times],
    })
checker = UsdUtils.ComplianceChecker()
checker.CheckCompliance(path)
out["compliance_errors"] = list(checker.GetErrors()) + list(checker.GetFailedChecks())
ctx = UsdValidation.ValidationContext(UsdValidation.ValidationRegistry().GetOrLoadAllValidators())
out["validation_errors"] = [e.GetMessage() for e in ctx.Validate(stage)
                            if e.GetType() == UsdValidation.ValidationErrorType.Error]
print(json.dumps(out))
"#;

/// The `.obj`'s `v` lines and `g` names, read plainly.
fn obj(text: &str) -> (Vec<[f64; 3]>, Vec<String>) {
    let mut v = Vec::new();
    let mut groups = Vec::new();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        match f.next() {
            Some("v") => v.push(std::array::from_fn(|_| f.next().unwrap().parse().unwrap())),
            Some("g") => groups.push(f.collect::<Vec<_>>().join(" ")),
            _ => {}
        }
    }
    (v, groups)
}

#[test]
fn pxr_opens_the_memg_stage_and_its_points_are_the_formulas() {
    let Some(py) = python::readers() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("flags.usda");
    let (obj_path, bin_path) = (data("flags.obj"), data("flags.bin"));
    export(&[
        obj_path.as_os_str(),
        bin_path.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let raw = RawFile::parse(&std::fs::read(&bin_path).unwrap());
    let (base, groups) = obj(&std::fs::read_to_string(&obj_path).unwrap());
    let n = raw.n as usize;
    let times = [0, 1, n / 3, n / 2, n - 1];
    let mut args: Vec<&OsStr> = vec![out.as_os_str()];
    let time_args: Vec<String> = times.iter().map(usize::to_string).collect();
    args.extend(time_args.iter().map(|t| OsStr::new(t.as_str())));
    let text = python::run(&py, READ, &args);
    let stage: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(
        stage["tcps"].as_f64(),
        Some(f64::from(raw.fps)),
        "{}",
        stage["tcps"]
    );
    assert_eq!(stage["start"].as_f64(), Some(0.0));
    assert_eq!(stage["end"].as_f64(), Some((n - 1) as f64));
    assert_eq!(stage["up"], "Y");
    assert_eq!(stage["mpu"].as_f64(), Some(1.0));
    assert_eq!(stage["default"], "/Scene");
    assert_eq!(
        stage["compliance_errors"],
        serde_json::json!([]),
        "{}",
        stage["compliance_errors"]
    );
    assert_eq!(
        stage["validation_errors"],
        serde_json::json!([]),
        "{}",
        stage["validation_errors"]
    );

    let bound: Vec<&str> = raw
        .groups
        .iter()
        .map(|g| g.name.as_str())
        .filter(|name| groups.iter().any(|g| g == name))
        .collect();
    let lo = base.iter().fold([f64::INFINITY; 3], |a, p| {
        std::array::from_fn(|i| a[i].min(p[i]))
    });
    let hi = base.iter().fold([f64::NEG_INFINITY; 3], |a, p| {
        std::array::from_fn(|i| a[i].max(p[i]))
    });
    let diagonal = (0..3).map(|i| (hi[i] - lo[i]).powi(2)).sum::<f64>().sqrt();
    let meshes = stage["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), groups.len(), "a mesh per .obj group");
    let mut worst: f64 = 0.0;
    let mut points = 0;
    for (k, &t) in times.iter().enumerate() {
        let want = raw.evaluate(&base, &bound, t);
        for mesh in meshes {
            assert_eq!(mesh["samples"].as_u64(), Some(n as u64), "{}", mesh["name"]);
            assert_eq!(
                mesh["extent_samples"].as_u64(),
                Some(n as u64),
                "{}",
                mesh["name"]
            );
            let obj = mesh["obj"].as_array().unwrap();
            let at = mesh["at"][k].as_array().unwrap();
            assert_eq!(obj.len(), at.len());
            for (v, p) in obj.iter().zip(at) {
                let w = want[v.as_u64().unwrap() as usize - 1];
                let d = (0..3)
                    .map(|i| (p[i].as_f64().unwrap() - w[i]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                worst = worst.max(d / diagonal);
                points += 1;
            }
        }
    }
    eprintln!(
        "usd: {} meshes, {n} samples each; {points} points at 5 time codes; worst {worst:.3e} of the diagonal ({diagonal:.3})",
        meshes.len()
    );
    assert!(worst < 1e-5, "worst {worst}");
}

#[test]
fn pxr_opens_an_aibo_stage_without_errors() {
    let Some(py) = python::readers() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dog.usda");
    export(&[
        data("sony_stand_sit.mtn").as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let script = r#"
import sys
from pxr import Usd, UsdGeom, UsdUtils, UsdValidation
stage = Usd.Stage.Open(sys.argv[1])
paw = stage.GetPrimAtPath("/Scene/aibo_sony_stand_sit/base_link/left_front_j1/left_front_j2/left_front_j3/left_front_paw")
assert paw, "paw prim"
cache = UsdGeom.XformCache(0)
p = cache.GetLocalToWorldTransform(paw).ExtractTranslation()
checker = UsdUtils.ComplianceChecker()
checker.CheckCompliance(sys.argv[1])
ctx = UsdValidation.ValidationContext(UsdValidation.ValidationRegistry().GetOrLoadAllValidators())
errors = [e.GetMessage() for e in ctx.Validate(stage) if e.GetType() == UsdValidation.ValidationErrorType.Error]
orient = stage.GetPrimAtPath("/Scene/aibo_sony_stand_sit/base_link/left_front_j1").GetAttribute("xformOp:orient")
print(len(checker.GetErrors()) + len(checker.GetFailedChecks()) + len(errors), p[0], p[1], p[2],
      stage.GetTimeCodesPerSecond(), len(orient.GetTimeSamples()))
"#;
    let text = python::run(&py, script, &[out.as_os_str()]);
    let v: Vec<f64> = text.trim().split(' ').map(|x| x.parse().unwrap()).collect();
    assert_eq!(v[0], 0.0, "{text}");
    // 4.880 s of 16 ms frames: 62.5 time codes a second, 306 samples.
    assert_eq!((v[4], v[5]), (62.5, 306.0), "{text}");
    // At 0 s, the body level: the paw is below the body centre (y up), in front, on the left (−z).
    let state = dir.path().join("s.json");
    export(&[
        data("sony_stand_sit.mtn").as_os_str(),
        "--time".as_ref(),
        "0".as_ref(),
        "--out".as_ref(),
        state.as_os_str(),
    ]);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    let w = &s[0]["world"]["left_front_paw"];
    let want = [
        w[0].as_f64().unwrap() / 1000.0,
        w[2].as_f64().unwrap() / 1000.0,
        -w[1].as_f64().unwrap() / 1000.0,
    ];
    let d = (0..3)
        .map(|i| (v[i + 1] - want[i]).powi(2))
        .sum::<f64>()
        .sqrt();
    eprintln!("usd AIBO: left front paw at 0 s off by {d:.3e} m");
    assert!(d < 1e-6, "{text} vs {want:?}");
    // --fps resamples: 30 time codes a second over 4.88 s.
    export(&[
        data("sony_stand_sit.mtn").as_os_str(),
        "--fps".as_ref(),
        "30".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        "--force".as_ref(),
    ]);
    let text = python::run(&py, script, &[out.as_os_str()]);
    let v: Vec<f64> = text.trim().split(' ').map(|x| x.parse().unwrap()).collect();
    assert_eq!((v[0], v[4], v[5]), (0.0, 30.0, 147.0), "{text}");
}

#[test]
fn pxr_places_the_mrtk_joints_where_the_state_export_does() {
    let Some(py) = python::readers() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let rec = data("hands.mrtk");
    let out = dir.path().join("hands.usda");
    export(&[rec.as_os_str(), "--out".as_ref(), out.as_os_str()]);
    let mut args = vec![out.clone().into_os_string()];
    // Frames of the recording's 60 Hz sampling: time code k is frame k.
    for (k, frame) in [0u32, 45, 100, 200].iter().enumerate() {
        let state = dir.path().join(format!("h{k}.json"));
        let t = format!("{}", f64::from(*frame) / 60.0);
        export(&[
            rec.as_os_str(),
            "--time".as_ref(),
            t.as_ref(),
            "--out".as_ref(),
            state.as_os_str(),
        ]);
        args.push(frame.to_string().into());
        args.push(state.into_os_string());
    }
    let script = r#"
import sys, json, math, struct
from pxr import Usd, UsdGeom, Gf, UsdUtils, UsdValidation
stage = Usd.Stage.Open(sys.argv[1])
assert stage.GetTimeCodesPerSecond() == 60.0
f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]
flip = lambda v: [v[0], v[1], -v[2]]
def rotate(q, v):
    x, y, z, w = q
    cx = y * v[2] - z * v[1]; cy = z * v[0] - x * v[2]; cz = x * v[1] - y * v[0]
    dx = y * cz - z * cy; dy = z * cx - x * cz; dz = x * cy - y * cx
    return [v[0] + 2 * (w * cx + dx), v[1] + 2 * (w * cy + dy), v[2] + 2 * (w * cz + dz)]
root = stage.GetDefaultPrim().GetChildren()[0]
worst_p = worst_r = 0.0
n = 0
for code, state_path in zip(sys.argv[2::2], sys.argv[3::2]):
    [state] = json.load(open(state_path))
    cache = UsdGeom.XformCache(float(code))
    poses = [("camera", state["camera"])]
    for side in ("left", "right"):
        poses += [(f"{side}_hand/{j['name']}", j) for j in state["hands"][side]["joints"]]
    for path, pose in poses:
        prim = stage.GetPrimAtPath(root.GetPath().AppendPath(path))
        assert prim, path
        m = cache.GetLocalToWorldTransform(prim)
        p = [f32(x) for x in pose["position"]]
        q = [f32(x) for x in pose["rotation"]]
        # Stored as f32, a unit quaternion is unit to about 1e-7; USD turns by its normalised form.
        norm = math.sqrt(sum(x * x for x in q))
        q = [x / norm for x in q]
        worst_p = max(worst_p, math.dist(list(m.ExtractTranslation()), flip(p)))
        for axis in ([1, 0, 0], [0, 1, 0], [0, 0, 1]):
            got = list(m.TransformDir(Gf.Vec3d(*axis)))
            want = flip(rotate(q, flip(axis)))
            worst_r = max(worst_r, math.dist(got, want))
        n += 1
checker = UsdUtils.ComplianceChecker()
checker.CheckCompliance(sys.argv[1])
ctx = UsdValidation.ValidationContext(UsdValidation.ValidationRegistry().GetOrLoadAllValidators())
errors = len(checker.GetErrors()) + len(checker.GetFailedChecks()) + len(
    [e for e in ctx.Validate(stage) if e.GetType() == UsdValidation.ValidationErrorType.Error])
print(n, worst_p, worst_r, errors)
"#;
    let argv: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let text = python::run(&py, script, &argv);
    let v: Vec<f64> = text.trim().split(' ').map(|x| x.parse().unwrap()).collect();
    eprintln!(
        "usd MRTK: {} poses at 4 time codes; worst position {:.3e} m, worst axis {:.3e}",
        v[0], v[1], v[2]
    );
    assert_eq!(v[0], 4.0 * 55.0, "{text}");
    assert_eq!(v[3], 0.0, "validator errors: {text}");
    // Positions are exact; USD turns an `orient` through `GfRotation`
    // (axis and angle), which costs it about 1e-7 on small turns.
    assert!(v[1] < 1e-12 && v[2] < 1e-6, "{text}");
}
