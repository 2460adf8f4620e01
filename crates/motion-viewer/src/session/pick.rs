//! What is under the cursor: a CPU pick against the posed tracks, placed as
//! the stage places them. AIBO joints and MRTK hand joints are points picked
//! within a few pixels on screen; MEMG groups are picked by casting the ray
//! against the triangles deformed on the CPU (cached per track and time, so
//! a still cursor over a paused scene costs nothing).
//!
//! The values shown come from the typed states of [`crate::pose`]: joint
//! angles in degrees, positions in each format's own units.

use super::viewer::ViewerState;
use crate::anim::aibo::{joint_label, pose_from_mtn};
use crate::anim::input_animation::{JOINT_NAMES, state_at as input_state_at};
use crate::anim::memg::{Binding, Deformer};
use crate::pose::{At, MtnState};
use crate::scene::camera::OrbitCamera;
use crate::scene::units::{aibo_point, unity_point};
use crate::scene::{Placement, Track, rig};
use glam::{Vec3, Vec4};

/// How close to a joint (pixels on screen) the cursor must come to pick it.
pub(crate) const PICK_RADIUS_PX: f32 = 10.0;

/// A part under the cursor and its values now.
#[derive(Debug, Clone, PartialEq)]
pub struct Hover {
    /// Index of the track.
    pub track: usize,
    /// The part's name: a MEMG group, an AIBO rig point, an MRTK joint.
    pub part: String,
    /// Its values, one per line.
    pub values: Vec<String>,
}

/// A ray from the eye through a pixel, in stage coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Start, on the near plane.
    pub origin: Vec3,
    /// Unit direction.
    pub dir: Vec3,
}

/// The ray through pixel `cursor` of a `size` view seen by `camera`.
pub(crate) fn ray_through(camera: &OrbitCamera, size: (u32, u32), cursor: (f32, f32)) -> Ray {
    let (w, h) = (size.0.max(1) as f32, size.1.max(1) as f32);
    let ndc = (2.0 * cursor.0 / w - 1.0, 1.0 - 2.0 * cursor.1 / h);
    let inverse = camera.view_projection(w / h).inverse();
    let at = |z: f32| {
        let p = inverse * Vec4::new(ndc.0, ndc.1, z, 1.0);
        p.truncate() / p.w
    };
    let (near, far) = (at(0.0), at(1.0));
    Ray {
        origin: near,
        dir: (far - near).normalize_or(Vec3::NEG_Z),
    }
}

/// A candidate: its distance along the ray and how to describe it.
struct Candidate {
    depth: f32,
    hover: Hover,
}

/// The CPU deformation of one MEMG track, kept while its time is unchanged.
#[derive(Debug, Default)]
struct MemgCache {
    key: Option<(u64, usize, u64)>,
    deformer: Deformer,
    positions: Vec<[f32; 3]>,
}

/// Picks parts under the cursor; keeps the CPU-deformed MEMG meshes between calls.
#[derive(Debug, Default)]
pub struct Picker {
    caches: Vec<MemgCache>,
}

impl Picker {
    /// What lies under pixel `cursor` at time `t`, among the shown tracks.
    pub fn pick(
        &mut self,
        state: &ViewerState,
        camera: &OrbitCamera,
        size: (u32, u32),
        cursor: (f32, f32),
        t: f64,
    ) -> Option<Hover> {
        let ray = ray_through(camera, size, cursor);
        let view_proj = camera.view_projection(size.0.max(1) as f32 / size.1.max(1) as f32);
        let to_pixel = |p: Vec3| {
            let clip = view_proj * p.extend(1.0);
            (clip.w > 0.0).then(|| {
                let ndc = clip.truncate() / clip.w;
                (
                    (ndc.x + 1.0) * 0.5 * size.0 as f32,
                    (1.0 - ndc.y) * 0.5 * size.1 as f32,
                )
            })
        };
        let near_cursor = |p: Vec3| {
            to_pixel(p).filter(|&(x, y)| (x - cursor.0).hypot(y - cursor.1) <= PICK_RADIUS_PX)
        };
        self.caches
            .resize_with(state.tracks().len(), MemgCache::default);
        let mut best: Option<Candidate> = None;
        let mut offer = |c: Candidate| {
            if best.as_ref().is_none_or(|b| c.depth < b.depth) {
                best = Some(c);
            }
        };
        for (i, entry) in state.tracks().iter().enumerate() {
            if !state.is_shown(i) {
                continue;
            }
            let Some(placement) = state.plan().placements.get(i) else {
                continue;
            };
            let points = match &entry.track {
                Track::Mtn { motion, .. } => aibo_points(motion, t, placement),
                Track::InputAnimation { recording, .. } => {
                    mrtk_points(&input_state_at(recording, t), placement)
                }
                Track::Memg { scene, motion, .. } => {
                    let cache = &mut self.caches[i];
                    let key = (state.generation(), i, t.to_bits());
                    if cache.key != Some(key) {
                        let Ok(binding) = Binding::new(scene, motion) else {
                            continue;
                        };
                        let step = crate::anim::memg::steps_at(motion, t);
                        cache
                            .deformer
                            .deform(scene, motion, &binding, step, &mut cache.positions);
                        cache.key = Some(key);
                    }
                    if let Some((depth, group)) = hit_mesh(&ray, scene, &cache.positions, placement)
                    {
                        offer(Candidate {
                            depth,
                            hover: memg_hover(i, entry, group, t, ray.origin + ray.dir * depth),
                        });
                    }
                    continue;
                }
            };
            for (name, world) in points {
                if near_cursor(world).is_some() {
                    let depth = (world - ray.origin).dot(ray.dir);
                    offer(Candidate {
                        depth,
                        hover: describe_point(i, entry, &name, t),
                    });
                }
            }
        }
        best.map(|c| c.hover)
    }
}

/// The AIBO rig's named points at `t`, placed on the stage.
fn aibo_points(
    motion: &crate::formats::mtn::Mtn,
    t: f64,
    placement: &Placement,
) -> Vec<(String, Vec3)> {
    let (model, pose) = pose_from_mtn(motion, t);
    let lift = Vec3::Y * rig::ground_lift(model, &pose);
    pose.world
        .iter()
        .map(|&(name, p)| (name.to_string(), placement.place(lift + aibo_point(p))))
        .collect()
}

/// The tracked hands' joints (and the head camera) at one moment, placed.
fn mrtk_points(
    s: &crate::anim::input_animation::InputState,
    placement: &Placement,
) -> Vec<(String, Vec3)> {
    let mut points = Vec::new();
    if let Some(hands) = &s.hands {
        for (side, hand) in [("left", &hands.left), ("right", &hands.right)] {
            if !hand.tracked {
                continue;
            }
            // Joint 0 ("None") is never drawn.
            for (j, pose) in hand.joints.iter().enumerate().skip(1) {
                let name = format!("{side} {}", JOINT_NAMES[j]);
                points.push((name, placement.place(unity_point(pose.position))));
            }
        }
    }
    if let Some(camera) = &s.camera {
        points.push((
            "camera".into(),
            placement.place(unity_point(camera.position)),
        ));
    }
    points
}

/// The nearest triangle of the placed mesh the ray meets: its distance
/// along the ray and the index of its `.obj` group.
fn hit_mesh(
    ray: &Ray,
    scene: &crate::formats::obj::ObjScene,
    positions: &[[f32; 3]],
    placement: &Placement,
) -> Option<(f32, usize)> {
    let mut best: Option<(f32, usize)> = None;
    for (g, group) in scene.groups.iter().enumerate() {
        for tri in scene.triangles.get(group.triangles.clone())? {
            let corner = |k: usize| {
                positions
                    .get(tri[k] as usize)
                    .map(|&p| placement.place(Vec3::from(p)))
            };
            let (Some(a), Some(b), Some(c)) = (corner(0), corner(1), corner(2)) else {
                continue;
            };
            if let Some(d) = intersect(ray, a, b, c)
                && best.is_none_or(|(bd, _)| d < bd)
            {
                best = Some((d, g));
            }
        }
    }
    best
}

/// Möller–Trumbore: the distance along `ray` to triangle `abc`, either side.
fn intersect(ray: &Ray, a: Vec3, b: Vec3, c: Vec3) -> Option<f32> {
    let (e1, e2) = (b - a, c - a);
    let p = ray.dir.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = 1.0 / det;
    let s = ray.origin - a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = ray.dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let d = e2.dot(q) * inv;
    (d > 0.0).then_some(d)
}

fn memg_hover(
    track: usize,
    entry: &super::viewer::TrackEntry,
    group: usize,
    t: f64,
    hit: Vec3,
) -> Hover {
    let Track::Memg { scene, motion, .. } = &entry.track else {
        unreachable!("memg_hover is only called for MEMG tracks")
    };
    let name = scene.groups.get(group).map_or("?", |g| g.name.as_str());
    let mut values = Vec::new();
    if let Some(g) = motion.groups.iter().find(|g| g.name == name) {
        values.push(format!(
            "{} vertices, basis {}",
            g.vertex_count(),
            g.basis_len
        ));
    } else {
        values.push("not moved by the motion".into());
    }
    let last = motion.timesteps.saturating_sub(1) as f64;
    let step = crate::anim::memg::steps_at(motion, t).clamp(0.0, last);
    values.push(format!("timestep {step:.2}"));
    values.push(format!(
        "at ({:.3}, {:.3}, {:.3}) on the stage",
        hit.x, hit.y, hit.z
    ));
    Hover {
        track,
        part: format!("group {name}"),
        values,
    }
}

/// The values of a named AIBO or MRTK point at `t`.
fn describe_point(track: usize, entry: &super::viewer::TrackEntry, name: &str, t: f64) -> Hover {
    let values = match &entry.track {
        Track::Mtn { motion, .. } => {
            let s = MtnState::new(motion, At::Time(t));
            let mut values = Vec::new();
            if let Some((_, p)) = s.points.0.iter().find(|(n, _)| *n == name) {
                values.push(format!(
                    "({:.1}, {:.1}, {:.1}) mm, body frame",
                    p[0], p[1], p[2]
                ));
            }
            let part = body_part_of_point(name);
            for (role, joint) in motion.joint_roles().into_iter().zip(&s.joints) {
                if let Some(role) = role.filter(|r| Some(r.part().name()) == part) {
                    values.push(format!("{} {:.2}°", joint_label(role), joint.deg));
                }
            }
            values
        }
        Track::InputAnimation { recording, .. } => {
            let s = input_state_at(recording, t);
            let pose = match name.split_once(' ') {
                Some((side, joint)) => s.hands.as_ref().and_then(|h| {
                    let hand = if side == "left" { &h.left } else { &h.right };
                    let j = JOINT_NAMES.iter().position(|n| *n == joint)?;
                    let pinch = if hand.pinching { ", pinching" } else { "" };
                    Some((hand.joints[j], pinch))
                }),
                None => s.camera.map(|c| (c, "")),
            };
            pose.map(|(p, extra)| {
                let [x, y, z] = p.position;
                let [qx, qy, qz, qw] = p.rotation;
                vec![
                    format!("({x:.3}, {y:.3}, {z:.3}) m, Unity axes{extra}"),
                    format!("rotation ({qx:.3}, {qy:.3}, {qz:.3}, {qw:.3})"),
                ]
            })
            .unwrap_or_default()
        }
        Track::Memg { .. } => Vec::new(),
    };
    Hover {
        track,
        part: name.to_string(),
        values,
    }
}

/// The body part ([`crate::formats::aibo::BodyPart::name`]) whose joints move
/// the rig point `name`.
fn body_part_of_point(name: &str) -> Option<&'static str> {
    [
        ("left_front_", "left_front_leg"),
        ("left_hind_", "left_hind_leg"),
        ("right_front_", "right_front_leg"),
        ("right_hind_", "right_hind_leg"),
        ("tail", "tail"),
        ("neck", "head"),
        ("head", "head"),
    ]
    .into_iter()
    .find(|(prefix, _)| name.starts_with(prefix))
    .map(|(_, part)| part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ray_meets_a_triangle_face_on() {
        let ray = Ray {
            origin: Vec3::new(0.2, 0.2, 5.0),
            dir: Vec3::NEG_Z,
        };
        let d = intersect(&ray, Vec3::ZERO, Vec3::X, Vec3::Y).unwrap();
        assert!((d - 5.0).abs() < 1e-6);
        let beside = Ray {
            origin: Vec3::new(0.8, 0.8, 5.0),
            ..ray
        };
        assert_eq!(intersect(&beside, Vec3::ZERO, Vec3::X, Vec3::Y), None);
    }

    #[test]
    fn centre_pixel_looks_at_the_target() {
        let camera = OrbitCamera::default();
        let ray = ray_through(&camera, (1280, 720), (640.0, 360.0));
        let to_target = (camera.target - ray.origin).normalize();
        assert!(ray.dir.dot(to_target) > 0.99999, "{ray:?}");
    }
}
