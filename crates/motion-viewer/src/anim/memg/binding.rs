//! How a MEMG motion's groups attach to an `.obj` scene: matched by name,
//! every mapping index checked against the scene's vertices, once before
//! any deformation.

use crate::formats::memg::{MemgGroup, MemgMotion};
use crate::formats::obj::ObjScene;

/// How a motion's groups attach to a scene, checked once before any deformation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Binding {
    /// For each motion group (file order), the index of the `.obj` group of the
    /// same name, or `None` when the scene has no such group (its motion is unused).
    pub groups: Vec<Option<usize>>,
    /// Motion groups (file order) whose parent is outside `0..local_frames`:
    /// they are placed in world space.
    pub world_space: Vec<usize>,
    /// Things that fit but look wrong (unbound groups, vertices moved twice).
    pub warnings: Vec<String>,
}

/// Why a MEMG motion does not fit its `.obj` scene: a group that maps past
/// the scene's vertices, arrays of the wrong size. One line naming the group;
/// [`crate::Error::mismatch`] takes it with the file's path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindError {
    /// The motion's frame transforms are not one per local frame and timestep.
    #[error(
        "the motion has {found} frame transforms for {local_frames} local frames × {timesteps} timesteps"
    )]
    FrameCount {
        /// Transforms the motion holds.
        found: usize,
        /// Its local frames.
        local_frames: usize,
        /// Its timesteps.
        timesteps: usize,
    },
    /// A group's mean pose, basis or coefficients hold the wrong number of values.
    #[error(
        "group '{group}' {array} has {found} values; {vertices} vertices, basis {rank} and {timesteps} timesteps need {expected}"
    )]
    ArraySize {
        /// The group's name.
        group: String,
        /// `mean`, `U` or `Q`.
        array: &'static str,
        /// Values it holds.
        found: usize,
        /// The group's vertices.
        vertices: usize,
        /// Its basis size.
        rank: usize,
        /// The motion's timesteps.
        timesteps: usize,
        /// Values it should hold.
        expected: usize,
    },
    /// A group maps one of its vertices past the scene's.
    #[error(
        "group '{group}' maps its vertex {vertex} to .obj vertex {index}, but the scene has vertices 1..={count}"
    )]
    Mapping {
        /// The group's name.
        group: String,
        /// The group's vertex, 0-based.
        vertex: usize,
        /// The 1-based `.obj` vertex it names.
        index: u32,
        /// The scene's vertices.
        count: usize,
    },
}

impl Binding {
    /// Matches motion groups to scene groups by name and checks every mapping
    /// index against the scene's vertex count. The error names the group.
    pub fn new(scene: &ObjScene, motion: &MemgMotion) -> Result<Binding, BindError> {
        Binding::bind(scene, motion, true)
    }

    /// [`Binding::new`] for a motion whose mean poses and bases are held
    /// elsewhere, as [`crate::formats::memg::index`] and `MappedMemg` leave
    /// them (empty here; the decoder checked their sizes): every check of
    /// `new` but those two sizes, and the same binding as `new` makes for
    /// the decoded motion.
    pub fn for_index(scene: &ObjScene, motion: &MemgMotion) -> Result<Binding, BindError> {
        Binding::bind(scene, motion, false)
    }

    /// The binding; `arrays`: check the mean poses' and bases' sizes too.
    fn bind(scene: &ObjScene, motion: &MemgMotion, arrays: bool) -> Result<Binding, BindError> {
        let count = scene.positions.len();
        let mut groups = Vec::with_capacity(motion.groups.len());
        let mut world_space = Vec::new();
        let mut warnings = Vec::new();
        // Groups the scene lacks: one warning for all of them.
        let mut missing: Vec<&str> = Vec::new();
        let mut moved_by: Vec<Option<u32>> = vec![None; count];
        let by_name = scene.group_indices();
        if motion.frames.len() != motion.local_frames * motion.timesteps {
            return Err(BindError::FrameCount {
                found: motion.frames.len(),
                local_frames: motion.local_frames,
                timesteps: motion.timesteps,
            });
        }
        for (gi, g) in motion.groups.iter().enumerate() {
            let (v, r) = (g.vertex_count(), g.basis_len);
            let sizes = [
                ("mean", g.mean.len(), 3 * v),
                ("U", g.basis.len(), 3 * v * r),
                ("Q", g.coeffs.len(), r * motion.timesteps),
            ];
            let checked = if arrays { &sizes[..] } else { &sizes[2..] };
            for &(array, found, expected) in checked {
                if found != expected {
                    return Err(BindError::ArraySize {
                        group: g.name.clone(),
                        array,
                        found,
                        vertices: v,
                        rank: r,
                        timesteps: motion.timesteps,
                        expected,
                    });
                }
            }
            if let Some((i, &m)) = g
                .mapping
                .iter()
                .enumerate()
                .find(|&(_, &m)| m == 0 || m as usize > count)
            {
                return Err(BindError::Mapping {
                    group: g.name.clone(),
                    vertex: i,
                    index: m,
                    count,
                });
            }
            let bound = by_name.get(g.name.as_str()).copied();
            if bound.is_none() {
                missing.push(&g.name);
            } else {
                let mut twice = 0usize;
                for &m in &g.mapping {
                    let slot = &mut moved_by[m as usize - 1];
                    if slot.is_some() {
                        twice += 1;
                    }
                    *slot = Some(gi as u32);
                }
                if twice > 0 {
                    warnings.push(format!(
                        "group '{}' moves {twice} vertices another group already moves; the later group wins",
                        g.name
                    ));
                }
            }
            if frame_index(motion, g).is_none() {
                world_space.push(gi);
            }
            groups.push(bound);
        }
        if let Some(first) = missing.first() {
            warnings.insert(
                0,
                match missing.len() {
                    1 => format!("group '{first}' is not in the scene; its motion is not shown"),
                    n => format!(
                        "{n} groups are not in the scene (the first: '{first}'); their motion is not shown"
                    ),
                },
            );
        }
        Ok(Binding {
            groups,
            world_space,
            warnings,
        })
    }
}

/// The group's parent as a frame index, or `None` for world space.
pub(super) fn frame_index(motion: &MemgMotion, g: &MemgGroup) -> Option<usize> {
    usize::try_from(g.parent)
        .ok()
        .filter(|&f| f < motion.local_frames)
}
