//! `.obj` parsing, binding motion groups to the scene, and the CPU deformer
//! checked against the spec's formula evaluated independently in f64.

use crate::common::memg as memg_common;

use memg_common::{RawFile, SMALL_OBJ, Values, frame, group, small_motion, small_obj_positions};
use motion_viewer::anim::memg::{Binding, bounding_box_over_time, deform, deform_reference_f64};
use motion_viewer::formats::memg;
use motion_viewer::formats::obj::{self, ObjScene};

/// A lone `.obj` through the front door, with the warnings of opening it.
fn load_obj(
    path: &std::path::Path,
) -> motion_viewer::Result<(std::sync::Arc<ObjScene>, Vec<String>)> {
    let options = motion_viewer::OpenOptions {
        lone_scenes: true,
        ..motion_viewer::OpenOptions::default()
    };
    let mut loaded = motion_viewer::open_with([path], &options)?;
    Ok((loaded.scenes.remove(0).1, loaded.warnings))
}

fn small_scene() -> ObjScene {
    obj::parse(SMALL_OBJ, &Default::default()).unwrap()
}

#[test]
fn obj_keeps_global_numbering_groups_and_unreferenced_vertices() {
    let s = small_scene();
    let expected: Vec<[f32; 3]> = small_obj_positions()
        .iter()
        .map(|p| [p[0] as f32, p[1] as f32, p[2] as f32])
        .collect();
    assert_eq!(s.positions, expected);
    let names: Vec<&str> = s.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["default", "b", "a"]);
    // The quad 1 2 3 4 is fanned from its first corner.
    assert_eq!(
        s.triangles[s.groups[0].triangles.clone()],
        [[0, 1, 2], [0, 2, 3]]
    );
    assert_eq!(s.triangles[s.groups[1].triangles.clone()], [[6, 7, 5]]);
    // Slashed and negative indices.
    assert_eq!(
        s.triangles[s.groups[2].triangles.clone()],
        [[4, 5, 1], [0, 1, 2]]
    );
}

#[test]
fn obj_errors_and_repeated_groups() {
    let e = obj::parse("v 0 0 0\nv 1 0 0\nf 1 2 3\n", &Default::default()).unwrap_err();
    assert_eq!(e.field, "face vertex index");
    assert_eq!(e.found, "3");
    assert_eq!(e.offset, 16);
    let e = obj::parse("v 0 x 0\n", &Default::default()).unwrap_err();
    assert!(e.field.contains("vertex 1"), "{e}");
    let s = obj::parse(
        "v 0 0 0\nv 1 0 0\nv 0 1 0\ng p\nf 1 2 3\ng q\nf 3 2 1\ng p\nf 2 3 1\n",
        &Default::default(),
    )
    .unwrap();
    assert_eq!(s.groups.len(), 2);
    assert_eq!(s.groups[0].triangles, 0..2);
    assert_eq!(s.triangles[..2], [[0, 1, 2], [1, 2, 0]]);
}

#[test]
fn obj_materials_and_missing_library() {
    let dir = tempfile::tempdir().unwrap();
    let text = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\ng p\nusemtl red\nf 1 2 3\n";
    let path = dir.path().join("s.obj");
    std::fs::write(&path, text).unwrap();
    // Missing library: loads, with no materials.
    let (s, warnings) = load_obj(&path).unwrap();
    assert!(s.materials.is_empty());
    assert!(warnings.iter().any(|w| w.contains("m.mtl")), "{warnings:?}");
    std::fs::write(dir.path().join("m.mtl"), "newmtl red\nKd 0.5 0.25 0\n").unwrap();
    let (s, _) = load_obj(&path).unwrap();
    assert_eq!(s.materials[0].name, "red");
    assert_eq!(s.materials[0].diffuse, [0.5, 0.25, 0.0]);
    assert_eq!(s.groups[0].material, Some(0));
}

#[test]
fn write_obj_round_trips() {
    let s = small_scene();
    let moved: Vec<[f32; 3]> = s
        .positions
        .iter()
        .map(|p| [p[0] + 0.1, p[1] * 3.0, -p[2]])
        .collect();
    let mut out = Vec::new();
    obj::write_obj(&s, &moved, &mut out).unwrap();
    let back = obj::parse(std::str::from_utf8(&out).unwrap(), &Default::default()).unwrap();
    assert_eq!(back.positions, moved);
    assert_eq!(back.triangles, s.triangles);
    assert_eq!(back.groups, s.groups);
}

#[test]
fn binding_matches_by_name_and_reports_world_space() {
    let s = small_scene();
    let m = memg::decode(&small_motion(false).bytes()).unwrap();
    let b = Binding::new(&s, &m).unwrap();
    // Motion order a, ghost, b; scene order default, b, a.
    assert_eq!(b.groups, [Some(2), None, Some(1)]);
    assert_eq!(b.world_space, [2]);
    assert!(b.warnings.iter().any(|w| w.contains("'ghost'")));
}

#[test]
fn mapping_beyond_the_obj_is_an_error() {
    let s = small_scene();
    let mut raw = small_motion(false);
    raw.groups[2].mapping[1] = 10;
    let m = memg::decode(&raw.bytes()).unwrap();
    let e = Binding::new(&s, &m).unwrap_err().to_string();
    assert!(
        e.contains("'b'") && e.contains("10") && e.contains("1..=9"),
        "{e}"
    );
}

#[test]
fn deformers_match_the_spec_formula() {
    let s = small_scene();
    let raw = small_motion(false);
    let m = memg::decode(&raw.bytes()).unwrap();
    let b = Binding::new(&s, &m).unwrap();
    let base = small_obj_positions();
    let mut fast = Vec::new();
    for t in 0..raw.n as usize {
        let expected = raw.evaluate(&base, &["a", "b"], t);
        let reference = deform_reference_f64(&s, &m, &b, t as f64);
        deform(&s, &m, &b, t as f64, &mut fast);
        for i in 0..base.len() {
            for a in 0..3 {
                assert!(
                    (reference[i][a] - expected[i][a]).abs() < 1e-12,
                    "t {t} vertex {i}"
                );
                assert!(
                    (f64::from(fast[i][a]) - expected[i][a]).abs() < 1e-5,
                    "t {t} vertex {i}"
                );
            }
        }
        // Vertex 3 is mapped only by 'ghost', which is not in the scene; 9 by nobody.
        assert_eq!(reference[2], base[2]);
        assert_eq!(reference[8], base[8]);
    }
}

#[test]
fn fractional_time_blends_coefficients_and_interpolates_the_frame() {
    let s = small_scene();
    let mut raw = small_motion(false);
    // Check the blend through a group with one vertex and one basis vector.
    raw.groups[2].mapping.truncate(1);
    let g = &mut raw.groups[2];
    g.mean.truncate(3);
    g.u_shape = (3, 1);
    g.u = vec![1.0, 2.0, 0.5];
    g.q_shape = (1, 5);
    g.q = vec![0.0, 1.0, 3.0, 0.0, 0.0];
    g.parent = 0;
    let m = memg::decode(&raw.bytes()).unwrap();
    let b = Binding::new(&s, &m).unwrap();
    let base = small_obj_positions();
    let vi = raw.groups[2].mapping[0] as usize - 1;
    for steps in [1.25, 2.5, 3.75, 0.125] {
        let at = deform_reference_f64(&s, &m, &b, steps);
        let expected = raw.evaluate_at(&base, &["b"], steps);
        for a in 0..3 {
            assert!(
                (at[vi][a] - expected[vi][a]).abs() < 1e-7,
                "{steps} timesteps: {:?} against {:?}",
                at[vi],
                expected[vi]
            );
        }
    }
    // At 1.25: q = 1 + 0.25·(3 − 1) = 1.5, and frame 0 a quarter of the way
    // from timestep 1's (0.1 rad about z, x = 1) to timestep 2's (0.2 rad, x = 2).
    let mut quarter = raw.clone();
    quarter.groups[2].q[1] = 1.5;
    quarter.frames[raw.k as usize] = memg_common::frame(0.125, [1.25, 0.0, 0.25]);
    let by_hand = quarter.evaluate(&base, &["b"], 1);
    let at = deform_reference_f64(&s, &m, &b, 1.25);
    for a in 0..3 {
        assert!((at[vi][a] - by_hand[vi][a]).abs() < 1e-7);
    }
    // Past the end clamps to the last timestep.
    assert_eq!(
        deform_reference_f64(&s, &m, &b, 99.0),
        deform_reference_f64(&s, &m, &b, 4.0)
    );
}

#[test]
fn fast_path_equals_reference_on_a_larger_scene() {
    // Two groups of 5000 vertices (spanning several parallel chunks), basis 12.
    let (v, r, n) = (5000usize, 12usize, 6usize);
    let mut text = String::new();
    let mut vals = Values::new(3);
    for _ in 0..2 * v + 1 {
        text += &format!("v {} {} {}\n", vals.next(), vals.next(), vals.next());
    }
    for (gi, name) in ["left", "right"].iter().enumerate() {
        text += &format!("g {name}\n");
        for i in 0..v - 2 {
            let a = gi * v + i + 1;
            text += &format!("f {} {} {}\n", a, a + 1, a + 2);
        }
    }
    let s = obj::parse(&text, &Default::default()).unwrap();
    // Reverse order mapping for one group, interleaved for the other.
    let left: Vec<i32> = (1..=v as i32).rev().collect();
    let right: Vec<i32> = (0..v as i32)
        .map(|i| v as i32 + 1 + (i * 7919) % v as i32)
        .collect();
    let raw = RawFile {
        big_endian: false,
        fps: 120,
        k: 1,
        n: n as i32,
        frames: (0..n)
            .map(|t| frame(0.3 * t as f64, [1.0, -2.0, t as f64]))
            .collect(),
        groups: vec![
            group("right", right, 0, r, n, &mut vals),
            group("left", left, 5, r, n, &mut vals),
        ],
    };
    let m = memg::decode(&raw.bytes()).unwrap();
    let b = Binding::new(&s, &m).unwrap();
    let (lo, hi) = bounding_box_over_time(&s, &m, &b).unwrap();
    let diag = (0..3)
        .map(|a| f64::from(hi[a] - lo[a]).powi(2))
        .sum::<f64>()
        .sqrt();
    let base: Vec<[f64; 3]> = s.positions.iter().map(|p| p.map(f64::from)).collect();
    let mut fast = Vec::new();
    for t in [0.0, 2.0, 3.4, 5.0] {
        let reference = deform_reference_f64(&s, &m, &b, t);
        if t.fract() == 0.0 {
            let expected = raw.evaluate(&base, &["left", "right"], t as usize);
            for (e, r) in expected.iter().zip(&reference) {
                for a in 0..3 {
                    assert!((e[a] - r[a]).abs() < 1e-9, "t {t}");
                    // The box over time holds every timestep's positions.
                    assert!(r[a] >= f64::from(lo[a]) - 1e-5 && r[a] <= f64::from(hi[a]) + 1e-5);
                }
            }
        }
        deform(&s, &m, &b, t, &mut fast);
        for (f, r) in fast.iter().zip(&reference) {
            for a in 0..3 {
                assert!((f64::from(f[a]) - r[a]).abs() <= 1e-5 * diag, "t {t}");
            }
        }
    }
}
