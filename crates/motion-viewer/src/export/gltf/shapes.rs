//! The viewer's plain shapes as glTF meshes: its unit sphere (written at a
//! joint's radius, so a joint node needs no scale), unit cylinder and unit
//! cube (placed and sized by their node), and line sets. One mesh per shape
//! and colour; every colour of a shape shares its vertex data.

use std::collections::HashMap;

use glam::{Quat, Vec3};
use gltf_json as json;
use json::Index;
use json::buffer::Target;
use json::mesh::Semantic;

use super::document::{Document, Topology};
use crate::scene::unit_mesh::{self, CYLINDER_SLICES, SPHERE_SLICES, SPHERE_STACKS, UnitMesh};

/// A unit shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// The sphere, at a radius (its bits).
    Sphere(u32),
    /// The cylinder of radius 1 from y = 0 to 1.
    Cylinder,
    /// The cube from −½ to ½.
    Cube,
}

/// Accessors of one shape's geometry.
#[derive(Debug, Clone, Copy)]
struct Geometry {
    positions: Index<json::Accessor>,
    normals: Index<json::Accessor>,
    indices: Index<json::Accessor>,
}

/// The shapes written so far.
#[derive(Debug, Default)]
pub struct Shapes {
    geometry: HashMap<Kind, Geometry>,
    meshes: HashMap<(Kind, [u32; 4]), Index<json::Mesh>>,
}

impl Shapes {
    /// A sphere of `radius` in `colour` (linear RGBA).
    pub fn sphere(
        &mut self,
        doc: &mut Document<'_>,
        radius: f32,
        colour: [f32; 4],
    ) -> Index<json::Mesh> {
        self.mesh(doc, Kind::Sphere(radius.to_bits()), colour)
    }

    /// The unit cylinder (radius 1, y from 0 to 1) in `colour`: a bone,
    /// once its node scales it by (radius, length, radius).
    pub fn cylinder(&mut self, doc: &mut Document<'_>, colour: [f32; 4]) -> Index<json::Mesh> {
        self.mesh(doc, Kind::Cylinder, colour)
    }

    /// The unit cube (−½..½) in `colour`.
    pub fn cube(&mut self, doc: &mut Document<'_>, colour: [f32; 4]) -> Index<json::Mesh> {
        self.mesh(doc, Kind::Cube, colour)
    }

    fn mesh(&mut self, doc: &mut Document<'_>, kind: Kind, colour: [f32; 4]) -> Index<json::Mesh> {
        if let Some(&m) = self.meshes.get(&(kind, colour.map(f32::to_bits))) {
            return m;
        }
        let geometry = *self.geometry.entry(kind).or_insert_with(|| {
            let unit = match kind {
                Kind::Sphere(bits) => scaled(
                    unit_mesh::sphere(SPHERE_STACKS, SPHERE_SLICES),
                    f32::from_bits(bits),
                ),
                Kind::Cylinder => unit_mesh::cylinder(CYLINDER_SLICES),
                Kind::Cube => unit_mesh::cube(),
            };
            write_geometry(doc, &unit)
        });
        let material = doc.material(colour, false);
        let primitive = Document::primitive(
            vec![
                (Semantic::Positions, geometry.positions),
                (Semantic::Normals, geometry.normals),
            ],
            geometry.indices,
            material,
            Topology::Triangles,
        );
        let name = match kind {
            Kind::Sphere(_) => "sphere",
            Kind::Cylinder => "cylinder",
            Kind::Cube => "cube",
        };
        let m = doc.mesh(name, vec![primitive]);
        self.meshes.insert((kind, colour.map(f32::to_bits)), m);
        m
    }
}

/// `mesh` with its positions times `radius`.
fn scaled(mut mesh: UnitMesh, radius: f32) -> UnitMesh {
    for p in &mut mesh.positions {
        *p = p.map(|x| x * radius);
    }
    mesh
}

/// Writes a shape's vertices and its triangles of nonzero area (the UV
/// sphere's pole rows fold some to a point).
fn write_geometry(doc: &mut Document<'_>, mesh: &UnitMesh) -> Geometry {
    let indices: Vec<u32> = mesh
        .indices
        .chunks_exact(3)
        .filter(|t| {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| mesh.positions[i as usize]);
            a != b && b != c && a != c
        })
        .flatten()
        .copied()
        .collect();
    Geometry {
        positions: doc.floats(&mesh.positions, Some(Target::ArrayBuffer), true),
        normals: doc.floats(&mesh.normals, Some(Target::ArrayBuffer), false),
        indices: doc.indices(&indices),
    }
}

/// A mesh of line segments in `colour`.
pub fn lines(
    doc: &mut Document<'_>,
    name: &str,
    segments: &[(Vec3, Vec3)],
    colour: [f32; 4],
) -> Index<json::Mesh> {
    let positions: Vec<[f32; 3]> = segments
        .iter()
        .flat_map(|(a, b)| [a.to_array(), b.to_array()])
        .collect();
    let indices: Vec<u32> = (0..positions.len() as u32).collect();
    let positions = doc.floats(&positions, Some(Target::ArrayBuffer), true);
    let indices = doc.indices(&indices);
    let material = doc.material(colour, false);
    let primitive = Document::primitive(
        vec![(Semantic::Positions, positions)],
        indices,
        material,
        Topology::Lines,
    );
    doc.mesh(name, vec![primitive])
}

/// The node transform that draws the unit cylinder from `a` to `b` at
/// `radius`, as the viewer places a bone: translation, rotation, scale. A
/// bone of no length is scaled to nothing, as the viewer leaves it out.
pub fn bone(a: Vec3, b: Vec3, radius: f32) -> (Vec3, Quat, Vec3) {
    let axis = b - a;
    let length = axis.length();
    if length > 0.0 && length.is_finite() {
        let rotation = Quat::from_rotation_arc(Vec3::Y, axis / length);
        (a, rotation, Vec3::new(radius, length, radius))
    } else {
        (a, Quat::IDENTITY, Vec3::ZERO)
    }
}
