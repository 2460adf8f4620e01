//! A MEMG scene's `.obj` geometry as glTF primitives: one primitive per
//! `.obj` group (its material), each with its own vertices in ascending
//! `.obj` order, so an importer that keeps a primitive's vertex order (as
//! Blender's does) keeps the `.obj`'s. A vertex used with two texture
//! coordinates is written twice.
//!
//! Every primitive records which `.obj` vertex each of its vertices is, in
//! `extras.objVertices` as runs `[first, count]` of consecutive 0-based
//! `.obj` vertex indices.

use gltf_json as json;
use json::Index;
use json::mesh::Semantic;
use serde_json::{Value, json};

use super::document::{Document, Topology, extras};
use crate::formats::obj::{NO_TEXCOORD, ObjScene};
use crate::scene::colour::group_colour;

/// One primitive's vertices and triangles.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The `.obj` group its triangles come from (its material).
    pub group: usize,
    /// Each vertex as (`.obj` vertex, texture coordinate or [`NO_TEXCOORD`]), ascending.
    pub vertices: Vec<(u32, u32)>,
    /// Three per triangle, into `vertices`.
    pub indices: Vec<u32>,
}

impl Part {
    /// The `.obj` vertex of each vertex, in order.
    pub fn obj_vertices(&self) -> impl Iterator<Item = u32> + '_ {
        self.vertices.iter().map(|&(v, _)| v)
    }
}

/// The primitives of the triangles `keep` selects (by index into
/// `scene.triangles`), in `.obj` group order; groups with none are left out.
pub fn parts(scene: &ObjScene, keep: impl Fn(usize) -> bool) -> Vec<Part> {
    let uv = |t: usize, corner: usize| {
        scene
            .triangle_texcoords
            .get(t)
            .map_or(NO_TEXCOORD, |uv| uv[corner])
    };
    let mut parts = Vec::new();
    for (group, g) in scene.groups.iter().enumerate() {
        let kept: Vec<usize> = g.triangles.clone().filter(|&t| keep(t)).collect();
        if kept.is_empty() {
            continue;
        }
        let corner_keys = |t: usize| (0..3).map(move |c| (scene.triangles[t][c], uv(t, c)));
        let mut vertices: Vec<(u32, u32)> = kept.iter().flat_map(|&t| corner_keys(t)).collect();
        vertices.sort_unstable();
        vertices.dedup();
        let indices = kept
            .iter()
            .flat_map(|&t| corner_keys(t))
            .map(|key| vertices.binary_search(&key).unwrap_or_default() as u32)
            .collect();
        parts.push(Part {
            group,
            vertices,
            indices,
        });
    }
    parts
}

/// Area-weighted vertex normals of `triangles` over `positions` (one per
/// `.obj` vertex), unit length; a vertex on no triangle of any area gets +y.
pub(crate) fn smooth_normals(positions: &[[f64; 3]], triangles: &[[u32; 3]]) -> Vec<[f32; 3]> {
    let mut sums = vec![[0f64; 3]; positions.len()];
    for t in triangles {
        let [a, b, c] = t.map(|i| positions[i as usize]);
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        // The cross product's length is twice the area: larger faces weigh more.
        let n = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        for &i in t {
            let s = &mut sums[i as usize];
            for k in 0..3 {
                s[k] += n[k];
            }
        }
    }
    sums.into_iter()
        .map(|s| {
            let len = (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt();
            if len > 0.0 && len.is_finite() {
                s.map(|x| (x / len) as f32)
            } else {
                [0.0, 1.0, 0.0]
            }
        })
        .collect()
}

/// The part's texture coordinates in glTF's convention (v from the top),
/// or `None` when the `.obj` has none; a corner without one takes (0, 0).
pub fn texcoords(scene: &ObjScene, part: &Part) -> Option<Vec<[f32; 2]>> {
    if scene.triangle_texcoords.is_empty() {
        return None;
    }
    Some(
        part.vertices
            .iter()
            .map(|&(_, uv)| match scene.texcoords.get(uv as usize) {
                Some(&[u, v]) => [u, 1.0 - v],
                None => [0.0, 0.0],
            })
            .collect(),
    )
}

/// What every frame of a part shares: its indices, texture coordinates and
/// material, and the `extras` naming its `.obj` vertices.
#[derive(Debug, Clone, Copy)]
pub struct Shared {
    /// The triangles.
    pub indices: Index<json::Accessor>,
    /// TEXCOORD_0, if the `.obj` has texture coordinates.
    pub texcoords: Option<Index<json::Accessor>>,
    /// The `.obj` group's colour.
    pub material: Index<json::Material>,
}

impl Shared {
    /// Writes what frames of `part` share.
    pub fn new(doc: &mut Document<'_>, scene: &ObjScene, part: &Part) -> Shared {
        let indices = doc.indices(&part.indices);
        let texcoords = texcoords(scene, part)
            .map(|uv| doc.floats(&uv, Some(json::buffer::Target::ArrayBuffer), false));
        // Cloth is a single sheet: both of its sides show.
        let material = doc.material(group_colour(scene, part.group), true);
        Shared {
            indices,
            texcoords,
            material,
        }
    }

    /// A primitive of these with `positions` and `normals`.
    pub fn primitive(
        &self,
        part: &Part,
        positions: Index<json::Accessor>,
        normals: Index<json::Accessor>,
    ) -> json::mesh::Primitive {
        let mut attributes = vec![
            (Semantic::Positions, positions),
            (Semantic::Normals, normals),
        ];
        attributes.extend(self.texcoords.map(|uv| (Semantic::TexCoords(0), uv)));
        let mut primitive =
            Document::primitive(attributes, self.indices, self.material, Topology::Triangles);
        primitive.extras = extras(json!({ "objVertices": runs(part.obj_vertices()) }));
        primitive
    }
}

/// Consecutive runs of `indices` as `[first, count]` pairs.
pub fn runs(indices: impl Iterator<Item = u32>) -> Value {
    let mut runs: Vec<[u32; 2]> = Vec::new();
    for i in indices {
        match runs.last_mut() {
            Some([first, count]) if *first + *count == i => *count += 1,
            _ => runs.push([i, 1]),
        }
    }
    Value::from(
        runs.into_iter()
            .map(|r| Value::from(r.to_vec()))
            .collect::<Vec<_>>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::obj::parse;

    #[test]
    fn parts_keep_obj_order_and_split_texture_seams() {
        let text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.5\n\
                    g a\nf 4/4 3/3 1/1\ng b\nf 1/5 2/2 3/3\n";
        let scene = parse(text, &Default::default()).unwrap();
        let parts = parts(&scene, |_| true);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].vertices, [(0, 0), (2, 2), (3, 3)]);
        assert_eq!(parts[0].indices, [2, 1, 0]);
        // Vertex 1 (0-based 0) takes another texture coordinate in b.
        assert_eq!(parts[1].vertices, [(0, 4), (1, 1), (2, 2)]);
        assert_eq!(texcoords(&scene, &parts[1]).unwrap()[0], [0.5, 0.5]);
        assert_eq!(runs(parts[1].obj_vertices()), json!([[0, 3]]));
        assert_eq!(
            runs([4, 5, 9, 10, 11, 3].into_iter()),
            json!([[4, 2], [9, 3], [3, 1]])
        );
    }

    #[test]
    fn normals_are_area_weighted_and_unit() {
        let positions = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 2.0],
            [5.0; 3],
        ];
        // One face in z = 0 (area ½), one in x = 0 (area 1) sharing the edge 0–2.
        let n = smooth_normals(&positions, &[[0, 1, 2], [0, 2, 3]]);
        let expected = [1.0, 0.0, 0.5].map(|x: f64| x / 1.25f64.sqrt());
        for k in 0..3 {
            assert!(
                (f64::from(n[0][k]) - expected[k]).abs() < 1e-6,
                "{:?}",
                n[0]
            );
        }
        assert_eq!(n[1], [0.0, 0.0, 1.0]);
        assert_eq!(n[4], [0.0, 1.0, 0.0]);
    }
}
