//! A MEMG scene as one `Mesh` per `.obj` group under an `Xform` named after
//! the motion: triangles once, `points` and `extent` per time code.

use super::spill::Spill;
use super::{Num32, Sized, UsdStage};
use crate::anim::memg::{Deformer, steps_at};
use crate::error::Result;
use crate::export::finite;
use crate::formats::obj::ObjScene;
use crate::scene::Track;
use crate::scene::plan::bind;

/// A group's name, the `.obj` vertices its triangles use (0-based, in order
/// of first use) and its triangles renumbered onto them.
type Group = (String, Vec<u32>, Vec<u32>);

/// Each group of `scene` with triangles, as the stage writes it.
fn groups(scene: &ObjScene) -> Vec<Group> {
    scene
        .groups
        .iter()
        .map(|g| {
            let mut local = std::collections::HashMap::new();
            let mut vertices = Vec::new();
            let mut indices = Vec::new();
            for tri in &scene.triangles[g.triangles.clone()] {
                for &v in tri {
                    let i = *local.entry(v).or_insert_with(|| {
                        vertices.push(v);
                        vertices.len() as u32 - 1
                    });
                    indices.push(i);
                }
            }
            (g.name.clone(), vertices, indices)
        })
        .filter(|(_, v, _)| !v.is_empty())
        .collect()
}

/// What the MEMG `track` adds to a stage: per group its points (3 values a
/// vertex) and its extent (6) per sample; its topology once. Fails on a
/// motion that does not fit its scene.
pub(super) fn size(track: &Track) -> Result<Sized> {
    let Track::Memg { scene, motion, .. } = track else {
        return Ok(Sized::default());
    };
    bind(track, scene, motion)?;
    let mut sized = Sized {
        once_bytes: 1024,
        ..Sized::default()
    };
    for (_, vertices, indices) in groups(scene) {
        sized.widths.extend([3 * vertices.len(), 6]);
        // `3, ` per face, up to ten digits and `, ` per index and per vertex.
        sized.once_bytes += 1024 + indices.len() as u64 / 3 * 3 + 12 * indices.len() as u64;
        sized.once_bytes += 12 * vertices.len() as u64;
    }
    sized.values = sized.widths.iter().map(|&w| w as u64).sum();
    Ok(sized)
}

/// Writes the MEMG `track` into `stage`, its samples through `spill`;
/// returns the prims written.
pub(super) fn write(
    stage: &mut UsdStage,
    track: &Track,
    mut spill: Spill,
    warnings: &mut Vec<String>,
) -> Result<usize> {
    let Track::Memg { scene, motion, .. } = track else {
        return Ok(0);
    };
    let binding = bind(track, scene, motion)?;
    let file = crate::text::Escaped::path(track.path());
    warnings.extend(binding.warnings.iter().map(|w| format!("{file}: {w}")));
    let groups = groups(scene);
    let clock = stage.clock;
    let mut deformer = Deformer::new();
    let mut positions = Vec::with_capacity(scene.positions.len());
    let mut values = Vec::new();
    for i in 0..clock.count {
        let time_s = clock.time(i);
        deformer.deform(
            scene,
            motion,
            &binding,
            steps_at(motion, time_s),
            &mut positions,
        );
        for (name, vertices, _) in &groups {
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            values.clear();
            for &v in vertices {
                let p = positions[v as usize];
                for (a, x) in p.iter().enumerate() {
                    finite::check_f32(*x, track.path(), time_s, || {
                        format!(
                            "group '{name}' .obj vertex {} {}",
                            v + 1,
                            ["x", "y", "z"][a]
                        )
                    })?;
                    lo[a] = lo[a].min(*x);
                    hi[a] = hi[a].max(*x);
                }
                values.extend(p.map(f64::from));
            }
            stage.push(&mut spill, &values)?;
            let extent: Vec<f64> = lo.iter().chain(&hi).map(|&x| f64::from(x)).collect();
            stage.push(&mut spill, &extent)?;
        }
    }
    stage.seal(&mut spill)?;
    let xform = stage.unique_name(&format!(
        "memg_{}",
        track
            .path()
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
    ));
    write!(stage, "    def Xform \"{xform}\"\n    {{\n")?;
    let mut used: Vec<String> = Vec::new();
    for (g, (name, vertices, indices)) in groups.iter().enumerate() {
        let mut prim = super::identifier(name);
        let base = prim.clone();
        let mut n = 1;
        while used.contains(&prim) {
            n += 1;
            prim = format!("{base}_{n}");
        }
        used.push(prim.clone());
        write!(stage, "        def Mesh \"{prim}\"\n        {{\n")?;
        stage.text("            int[] faceVertexCounts = [")?;
        list(stage, (0..indices.len() / 3).map(|_| 3))?;
        stage.text("]\n            int[] faceVertexIndices = [")?;
        list(stage, indices.iter().copied())?;
        stage.text(
            "]\n            uniform token orientation = \"rightHanded\"\n            \
             uniform token subdivisionScheme = \"none\"\n            int[] primvars:objVertex = [",
        )?;
        list(stage, vertices.iter().map(|v| v + 1))?;
        stage.text(
            "] (\n                interpolation = \"vertex\"\n            )\n            \
             point3f[] points.timeSamples = {\n",
        )?;
        stage.samples(&spill, 2 * g, |w, i, v| {
            write!(w, "            {i}: [")?;
            for (k, p) in v.chunks_exact(3).enumerate() {
                if k > 0 {
                    w.write_all(b", ")?;
                }
                write!(w, "({}, {}, {})", f(p[0]), f(p[1]), f(p[2]))?;
            }
            w.write_all(b"],\n")
        })?;
        stage.text("            }\n            float3[] extent.timeSamples = {\n")?;
        stage.samples(&spill, 2 * g + 1, |w, i, e| {
            writeln!(
                w,
                "            {i}: [({}, {}, {}), ({}, {}, {})],",
                f(e[0]),
                f(e[1]),
                f(e[2]),
                f(e[3]),
                f(e[4]),
                f(e[5])
            )
        })?;
        stage.text("            }\n        }\n")?;
    }
    stage.text("    }\n")?;
    Ok(1 + groups.len())
}

/// A value spilled from an `f32`, written as that `f32`.
fn f(x: f64) -> Num32 {
    Num32(x as f32)
}

/// `values` separated by `, `.
fn list(stage: &mut UsdStage, values: impl Iterator<Item = u32>) -> Result<()> {
    for (k, v) in values.enumerate() {
        if k > 0 {
            stage.text(", ")?;
        }
        write!(stage, "{v}")?;
    }
    Ok(())
}
