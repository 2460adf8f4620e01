//! Mouse → camera: left-drag orbits, right- or middle-drag pans, the wheel
//! zooms toward the cursor, as in Blender, f3d and Rerun.

use crate::gpu::OrbitCamera;
use glam::{Vec3, Vec4};
use winit::dpi::PhysicalPosition;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};

/// Pixels of a trackpad's pixel-precise scroll that count as one wheel notch.
const PIXELS_PER_NOTCH: f64 = 50.0;

/// Radians of orbit per pixel of drag: a drag across a 720-pixel-high view
/// turns about a full half-circle, as in Blender.
const RADIANS_PER_PIXEL: f32 = 0.0045;

/// Distance factor per wheel notch toward the scene.
const ZOOM_PER_NOTCH: f32 = 0.85;

/// A camera move asked for by the mouse, in window pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CameraMove {
    /// Turn around the target by this many pixels of drag.
    Orbit {
        /// Horizontal drag, pixels (right is positive).
        dx: f32,
        /// Vertical drag, pixels (down is positive).
        dy: f32,
    },
    /// Slide the target sideways by this many pixels of drag.
    Pan {
        /// Horizontal drag, pixels.
        dx: f32,
        /// Vertical drag, pixels.
        dy: f32,
    },
    /// Move toward (positive) or away from the point under `cursor`.
    Zoom {
        /// Wheel notches; fractional for trackpads.
        notches: f32,
        /// Cursor position in window pixels.
        cursor: (f32, f32),
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Drag {
    Orbit,
    Pan,
}

/// Turns mouse events into [`CameraMove`]s, remembering which drag is under way.
#[derive(Debug, Default)]
pub struct MouseCamera {
    drag: Option<Drag>,
    cursor: Option<PhysicalPosition<f64>>,
}

impl MouseCamera {
    /// Where the cursor is, in window pixels, while it is over the window.
    pub fn cursor(&self) -> Option<(f32, f32)> {
        self.cursor.map(|c| (c.x as f32, c.y as f32))
    }

    /// Feeds one window event. `egui_wants_pointer` is true when the pointer
    /// is over the overlay: then presses and wheel turns belong to egui and
    /// start nothing here, but a drag already under way follows the cursor
    /// even across the overlay.
    pub(crate) fn on_event(
        &mut self,
        event: &WindowEvent,
        egui_wants_pointer: bool,
    ) -> Option<CameraMove> {
        match event {
            WindowEvent::CursorMoved { position, .. } => {
                let last = self.cursor.replace(*position);
                let (drag, last) = (self.drag?, last?);
                let dx = (position.x - last.x) as f32;
                let dy = (position.y - last.y) as f32;
                Some(match drag {
                    Drag::Orbit => CameraMove::Orbit { dx, dy },
                    Drag::Pan => CameraMove::Pan { dx, dy },
                })
            }
            WindowEvent::CursorLeft { .. } => {
                self.cursor = None;
                None
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let drag = match button {
                    MouseButton::Left => Drag::Orbit,
                    MouseButton::Right | MouseButton::Middle => Drag::Pan,
                    _ => return None,
                };
                match state {
                    ElementState::Pressed if !egui_wants_pointer && self.drag.is_none() => {
                        self.drag = Some(drag);
                    }
                    ElementState::Released if self.drag == Some(drag) => self.drag = None,
                    _ => {}
                }
                None
            }
            WindowEvent::MouseWheel { delta, .. } if !egui_wants_pointer => {
                let notches = match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => (p.y / PIXELS_PER_NOTCH) as f32,
                };
                let cursor = self.cursor.map_or((0.0, 0.0), |c| (c.x as f32, c.y as f32));
                (notches != 0.0).then_some(CameraMove::Zoom { notches, cursor })
            }
            _ => None,
        }
    }
}

/// Applies `camera_move` to `camera` seen in a `width`×`height`-pixel view.
pub fn apply(camera: &mut OrbitCamera, camera_move: CameraMove, (width, height): (u32, u32)) {
    let (w, h) = (width.max(1) as f32, height.max(1) as f32);
    match camera_move {
        // Dragging right swings the scene right, i.e. the eye left; dragging
        // down shows the scene more from above.
        CameraMove::Orbit { dx, dy } => {
            camera.orbit(-dx * RADIANS_PER_PIXEL, dy * RADIANS_PER_PIXEL);
        }
        CameraMove::Pan { dx, dy } => camera.pan(dx / h, dy / h),
        CameraMove::Zoom { notches, cursor } => {
            let ndc = (2.0 * cursor.0 / w - 1.0, 1.0 - 2.0 * cursor.1 / h);
            let point = point_under(camera, w / h, ndc).unwrap_or(camera.target);
            camera.zoom_toward(point, ZOOM_PER_NOTCH.powf(notches));
        }
    }
}

/// Where the ray through `ndc` meets the plane through the target that faces
/// the camera: the point a wheel turn should keep under the cursor.
fn point_under(camera: &OrbitCamera, aspect: f32, (x, y): (f32, f32)) -> Option<Vec3> {
    let inverse = camera.view_projection(aspect).inverse();
    let unproject = |z: f32| {
        let p = inverse * Vec4::new(x, y, z, 1.0);
        p.truncate() / p.w
    };
    let (near, far) = (unproject(0.0), unproject(1.0));
    let dir = far - near;
    let normal = camera.target - camera.eye();
    let denom = dir.dot(normal);
    if denom.abs() < f32::EPSILON {
        return None;
    }
    let s = (camera.target - near).dot(normal) / denom;
    let point = near + dir * s;
    point.is_finite().then_some(point)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zoom_at_centre_keeps_the_target() {
        let mut camera = OrbitCamera::default();
        let before = camera.target;
        apply(
            &mut camera,
            CameraMove::Zoom {
                notches: 1.0,
                cursor: (640.0, 360.0),
            },
            (1280, 720),
        );
        assert!((camera.target - before).length() < 1e-4);
        assert!((camera.distance - 5.0 * ZOOM_PER_NOTCH).abs() < 1e-4);
    }

    #[test]
    fn zoom_off_centre_moves_toward_the_cursor() {
        let mut camera = OrbitCamera::default();
        let point = point_under(&camera, 16.0 / 9.0, (0.5, 0.0)).unwrap();
        apply(
            &mut camera,
            CameraMove::Zoom {
                notches: 2.0,
                cursor: (960.0, 360.0),
            },
            (1280, 720),
        );
        // The point under the cursor stays under it.
        let again = point_under(&camera, 16.0 / 9.0, (0.5, 0.0)).unwrap();
        assert!((again - point).length() < 1e-3, "{again} vs {point}");
    }
}
