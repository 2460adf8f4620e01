//! Unit meshes the instanced primitive pass scales and places: a sphere of
//! radius 1, a cylinder of radius 1 from y = 0 to y = 1, and a cube from −½ to ½.

/// Latitude bands of the sphere joints are drawn with.
pub(crate) const SPHERE_STACKS: u32 = 12;
/// Longitude segments of the sphere joints are drawn with.
pub(crate) const SPHERE_SLICES: u32 = 20;
/// Segments around the cylinder bones are drawn with.
pub(crate) const CYLINDER_SLICES: u32 = 20;

/// Positions, normals and triangle indices of a unit shape.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnitMesh {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Unit normals, one per vertex.
    pub normals: Vec<[f32; 3]>,
    /// Triangles, counter-clockwise seen from outside.
    pub indices: Vec<u32>,
}

/// A UV sphere of radius 1 centred at the origin.
pub fn sphere(stacks: u32, slices: u32) -> UnitMesh {
    let mut mesh = UnitMesh::default();
    for i in 0..=stacks {
        let theta = std::f32::consts::PI * i as f32 / stacks as f32;
        for j in 0..=slices {
            let phi = std::f32::consts::TAU * j as f32 / slices as f32;
            let p = [
                theta.sin() * phi.sin(),
                theta.cos(),
                theta.sin() * phi.cos(),
            ];
            mesh.positions.push(p);
            mesh.normals.push(p);
        }
    }
    let row = slices + 1;
    for i in 0..stacks {
        for j in 0..slices {
            let a = i * row + j;
            let b = a + row;
            mesh.indices.extend([a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    mesh
}

/// An open cylinder of radius 1 along +y from 0 to 1 (capsules cap it with spheres).
pub fn cylinder(slices: u32) -> UnitMesh {
    let mut mesh = UnitMesh::default();
    for j in 0..=slices {
        let phi = std::f32::consts::TAU * j as f32 / slices as f32;
        let (s, c) = phi.sin_cos();
        for y in [0.0, 1.0] {
            mesh.positions.push([s, y, c]);
            mesh.normals.push([s, 0.0, c]);
        }
    }
    for j in 0..slices {
        let a = 2 * j;
        mesh.indices.extend([a, a + 2, a + 1, a + 1, a + 2, a + 3]);
    }
    mesh
}

/// A cube from −½ to ½ with flat faces.
pub fn cube() -> UnitMesh {
    let mut mesh = UnitMesh::default();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = [0.0; 3];
            n[axis] = sign;
            // Two tangents chosen so (u, v, n) is right-handed.
            let mut u = [0.0; 3];
            u[(axis + 1) % 3] = 1.0;
            let mut v = [0.0; 3];
            v[(axis + 2) % 3] = sign;
            let base = mesh.positions.len() as u32;
            for (a, b) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
                mesh.positions
                    .push(std::array::from_fn(|k| 0.5 * n[k] + a * u[k] + b * v[k]));
                mesh.normals.push(n);
            }
            mesh.indices
                .extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
    mesh
}
