//! Plain shapes in world space that tracks without a mesh are drawn with
//! (AIBO stick figures, MRTK hands, rays, frusta) and the ground grid. Pure
//! data: the GPU renderer draws them, the glTF exporter writes them.

use glam::{Mat4, Vec3};

/// A ball.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    /// Centre in world space.
    pub centre: Vec3,
    /// Radius.
    pub radius: f32,
    /// Linear RGBA.
    pub colour: [f32; 4],
}

/// A cylinder from `a` to `b` capped with half-spheres (a bone, a finger segment).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capsule {
    /// One end's centre.
    pub a: Vec3,
    /// The other end's centre.
    pub b: Vec3,
    /// Radius of the tube and caps.
    pub radius: f32,
    /// Linear RGBA.
    pub colour: [f32; 4],
}

/// The unit cube (−½..½) placed by `transform` (may scale non-uniformly).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxInstance {
    /// Model matrix.
    pub transform: Mat4,
    /// Linear RGBA.
    pub colour: [f32; 4],
}

/// A line segment, drawn one pixel wide.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    /// Start.
    pub a: Vec3,
    /// End.
    pub b: Vec3,
    /// Linear RGBA (alpha blends).
    pub colour: [f32; 4],
}

impl Line {
    /// A ray from `origin` along `direction` (need not be unit) for `length`.
    pub(crate) fn ray(origin: Vec3, direction: Vec3, length: f32, colour: [f32; 4]) -> Line {
        Line {
            a: origin,
            b: origin + direction.normalize_or_zero() * length,
            colour,
        }
    }
}

/// A square grid of lines on a horizontal plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    /// Centre of the grid (its y is the ground height).
    pub centre: Vec3,
    /// Half the side of the square.
    pub half_extent: f32,
    /// Distance between lines.
    pub spacing: f32,
}

impl Grid {
    /// A grid on the floor of the box `min..max`, reaching well beyond it,
    /// with a round spacing (1, 2 or 5 × 10ⁿ) of about a tenth of its extent.
    pub fn under_bounds(min: Vec3, max: Vec3) -> Grid {
        let size = (max - min).max(Vec3::splat(1e-6));
        let half_extent = 0.65 * size.x.max(size.z);
        let rough = half_extent / 5.0;
        let decade = 10f32.powf(rough.log10().floor());
        let spacing = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * decade)
            .find(|&s| s >= rough)
            .unwrap_or(10.0 * decade);
        let steps = (half_extent / spacing).ceil();
        Grid {
            centre: Vec3::new((min.x + max.x) * 0.5, min.y, (min.z + max.z) * 0.5),
            half_extent: steps * spacing,
            spacing,
        }
    }
}

/// World-space primitives of the tracks drawn without a mesh.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Primitives {
    /// Balls (joints).
    pub spheres: Vec<Sphere>,
    /// Capsules (bones, finger segments).
    pub capsules: Vec<Capsule>,
    /// Boxes (AIBO body and head).
    pub boxes: Vec<BoxInstance>,
    /// Lines (camera pyramid, gaze ray).
    pub lines: Vec<Line>,
}

impl Primitives {
    /// Moves every primitive of `other` into this list, scaled by `scale`
    /// about the origin and then moved by `offset` (a track's placement on
    /// the stage).
    pub fn append_placed(&mut self, other: Primitives, scale: f32, offset: Vec3) {
        let at = |p: Vec3| offset + scale * p;
        self.spheres
            .extend(other.spheres.into_iter().map(|s| Sphere {
                centre: at(s.centre),
                radius: s.radius * scale,
                ..s
            }));
        self.capsules
            .extend(other.capsules.into_iter().map(|c| Capsule {
                a: at(c.a),
                b: at(c.b),
                radius: c.radius * scale,
                ..c
            }));
        let placement = Mat4::from_translation(offset) * Mat4::from_scale(Vec3::splat(scale));
        self.boxes
            .extend(other.boxes.into_iter().map(|b| BoxInstance {
                transform: placement * b.transform,
                ..b
            }));
        self.lines.extend(other.lines.into_iter().map(|l| Line {
            a: at(l.a),
            b: at(l.b),
            ..l
        }));
    }
}
