//! Orbit camera. World space is right-handed with **y up** (MEMG `.obj`
//! scenes are y-up); yaw turns about +y, measured from +z toward +x, and pitch
//! raises the eye above the target. Projection maps depth to wgpu's 0..1.

use glam::{Mat4, Vec3};

/// A camera circling `target` at `distance`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    /// The point looked at and orbited.
    pub target: Vec3,
    /// Eye-to-target distance.
    pub distance: f32,
    /// Rotation about +y in radians; 0 looks from +z toward −z.
    pub yaw: f32,
    /// Elevation in radians, kept within ±89°.
    pub pitch: f32,
    /// Vertical field of view in radians.
    pub fov_y: f32,
    /// Radius of what is being looked at, for the clip planes.
    pub scene_radius: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            distance: 5.0,
            yaw: 35f32.to_radians(),
            pitch: 20f32.to_radians(),
            fov_y: 40f32.to_radians(),
            scene_radius: 1.0,
        }
    }
}

/// Named viewpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// From +z.
    Front,
    /// From +x.
    Side,
    /// From above (+y).
    Top,
    /// The default three-quarter view.
    ThreeQuarter,
}

const MAX_PITCH: f32 = 89.0 * std::f32::consts::PI / 180.0;

impl OrbitCamera {
    /// Aims at the centre of the box `min..max` from the current direction,
    /// just far enough that its eight corners fit the vertical field of view
    /// (and the horizontal one for aspect ratios ≥ 1), with a small margin.
    /// Set the preset or angles first.
    pub fn frame_bounds(&mut self, min: Vec3, max: Vec3) {
        self.frame_bounds_aspect(min, max, 1.0);
    }

    /// [`OrbitCamera::frame_bounds`] for a viewport of `aspect` = width / height,
    /// which lets a wide picture come closer.
    pub fn frame_bounds_aspect(&mut self, min: Vec3, max: Vec3, aspect: f32) {
        let centre = (min + max) * 0.5;
        let half = ((max - min) * 0.5).max(Vec3::splat(1e-6));
        self.target = centre;
        self.scene_radius = half.length();
        let (right, up, back) = self.basis();
        let tan_y = (self.fov_y * 0.5).tan();
        let tan_x = tan_y * aspect.max(1e-3);
        let mut distance = 0f32;
        for i in 0..8 {
            let corner = Vec3::new(
                if i & 1 == 0 { -half.x } else { half.x },
                if i & 2 == 0 { -half.y } else { half.y },
                if i & 4 == 0 { -half.z } else { half.z },
            );
            // A corner at depth z toward the eye fits when |x| ≤ (D − z)·tan_x
            // and |y| ≤ (D − z)·tan_y.
            let fit = (corner.dot(right).abs() / tan_x).max(corner.dot(up).abs() / tan_y);
            distance = distance.max(corner.dot(back) + fit);
        }
        self.distance = distance * 1.05;
    }

    /// Unit right, up and back (target → eye) vectors of the view.
    fn basis(&self) -> (Vec3, Vec3, Vec3) {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        let back = Vec3::new(cp * sy, sp, cp * cy);
        let right = Vec3::Y.cross(back).normalize_or(Vec3::X);
        (right, back.cross(right), back)
    }

    /// Turns to a preset viewpoint, keeping target and distance.
    pub fn set_preset(&mut self, preset: Preset) {
        let (yaw, pitch) = match preset {
            Preset::Front => (0.0, 0.0),
            Preset::Side => (90f32.to_radians(), 0.0),
            Preset::Top => (0.0, MAX_PITCH),
            Preset::ThreeQuarter => (35f32.to_radians(), 20f32.to_radians()),
        };
        self.yaw = yaw;
        self.pitch = pitch;
    }

    #[cfg_attr(not(feature = "window"), allow(dead_code))] // the window's
    /// Orbits by the given angles (radians); pitch stays within ±89°.
    pub(crate) fn orbit(&mut self, d_yaw: f32, d_pitch: f32) {
        self.yaw = (self.yaw + d_yaw).rem_euclid(std::f32::consts::TAU);
        self.pitch = (self.pitch + d_pitch).clamp(-MAX_PITCH, MAX_PITCH);
    }

    #[cfg_attr(not(feature = "window"), allow(dead_code))] // the window's
    /// Slides target and eye in the view plane; `dx`, `dy` are fractions of
    /// the view height (so a drag moves the scene with the mouse).
    pub(crate) fn pan(&mut self, dx: f32, dy: f32) {
        let view_height = 2.0 * self.distance * (self.fov_y * 0.5).tan();
        let (right, up, _) = self.basis();
        self.target += (-right * dx + up * dy) * view_height;
    }

    #[cfg_attr(not(feature = "window"), allow(dead_code))] // the window's
    /// Scales the distance by `factor` (< 1 zooms in), moving the target toward
    /// `point` by the same proportion so `point` stays under the cursor.
    pub(crate) fn zoom_toward(&mut self, point: Vec3, factor: f32) {
        let factor = factor.max(1e-3);
        self.target = point + (self.target - point) * factor;
        self.distance *= factor;
    }

    /// The eye position.
    pub(crate) fn eye(&self) -> Vec3 {
        self.target + self.distance * self.basis().2
    }

    /// World → view.
    pub(crate) fn view(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// View → clip for a viewport of `aspect` = width / height; near and far
    /// planes bracket the scene sphere (and the ground grid beyond it).
    pub(crate) fn projection(&self, aspect: f32) -> Mat4 {
        let near = (self.distance - 3.0 * self.scene_radius).max(self.distance * 0.01);
        let far = self.distance + 6.0 * self.scene_radius;
        // wgpu's clip space is DirectX's: depth 0..1, y up.
        glam::camera::rh::proj::directx::perspective(self.fov_y, aspect.max(1e-6), near, far)
    }

    /// World → clip.
    pub fn view_projection(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }
}
