//! A glTF document under construction: the JSON tree (gltf-json's schema),
//! the binary buffer it points into, and the one animation every channel
//! joins.
//!
//! The buffer is planned: each piece is a [`Chunk`] with its length known
//! up front and its bytes produced when the file is written, so a baked
//! export of many frames, or the float morph targets of a large motion,
//! stream to disk instead of filling memory. The bytes made while the
//! document is built (indices, animation outputs, quantized meshes) are
//! held until then, gathered by kind into one view each. Every piece
//! starts on a 4-byte boundary, which every accessor's component type
//! needs. The bytes, views and accessors are planned in `accessors.rs`.

use std::collections::HashMap;

use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;
use json::{Index, animation, material, mesh};
use serde_json::Value;

use crate::error::Error;

/// Produces one piece of the binary buffer: appends exactly its planned
/// length to the vector given.
pub type Fill<'a> = Box<dyn FnMut(&mut Vec<u8>) + 'a>;

/// One piece of the binary buffer.
pub struct Chunk<'a> {
    /// Bytes it appends, padding included.
    pub len: u64,
    /// Appends them.
    pub fill: Fill<'a>,
}

/// What a primitive's vertices are drawn as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topology {
    /// Triples of indices.
    Triangles,
    /// Pairs of indices.
    Lines,
}

/// The document, its planned buffer and its animation.
pub struct Document<'a> {
    /// The JSON tree.
    pub root: json::Root,
    pub(super) chunks: Vec<Chunk<'a>>,
    pub(super) len: u64,
    channels: Vec<animation::Channel>,
    samplers: Vec<animation::Sampler>,
    times: HashMap<Vec<u32>, Index<json::Accessor>>,
    materials: HashMap<([u32; 4], bool), Index<json::Material>>,
    pub(super) last_view: Option<OpenView>,
    /// The views of the bytes made at once, one per kind, laid out in the
    /// buffer when the document is finished.
    pub(super) pools: Vec<Pool>,
    /// A vertex attribute is stored as integers: the file requires
    /// `KHR_mesh_quantization`.
    pub(super) quantized: bool,
}

/// The buffer view the last accessor went into, which the next may join
/// when its bytes follow on and it is of the same kind.
#[derive(Clone, Copy)]
pub(super) struct OpenView {
    pub(super) index: Index<json::buffer::View>,
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) target: Option<json::buffer::Target>,
    pub(super) element: u64,
}

/// The bytes of one kind (a buffer target, and for vertex attributes an
/// element size, the view's stride) gathered in one view wherever in the
/// document they are made: one JSON entry for all of a kind, where the
/// views of a file of many small meshes, one each, cost more than some of
/// their bytes.
pub(super) struct Pool {
    pub(super) index: Index<json::buffer::View>,
    pub(super) target: Option<json::buffer::Target>,
    pub(super) element: u64,
    /// Its accessors' bytes, each padded to 4, kept apart (not copied into
    /// one growing vector, which would hold up to twice them at once).
    pub(super) pieces: Vec<Vec<u8>>,
    /// Their length.
    pub(super) len: u64,
}

impl<'a> Document<'a> {
    /// An empty document naming this crate as its generator.
    pub fn new() -> Self {
        let mut root = json::Root::default();
        root.asset.generator = Some(format!("motion-viewer {}", env!("CARGO_PKG_VERSION")));
        Document {
            root,
            chunks: Vec::new(),
            len: 0,
            channels: Vec::new(),
            samplers: Vec::new(),
            times: HashMap::new(),
            materials: HashMap::new(),
            last_view: None,
            pools: Vec::new(),
            quantized: false,
        }
    }

    /// The material of a flat colour (linear RGBA), one per colour and sidedness.
    pub fn material(&mut self, colour: [f32; 4], double_sided: bool) -> Index<json::Material> {
        let key = (colour.map(f32::to_bits), double_sided);
        if let Some(&m) = self.materials.get(&key) {
            return m;
        }
        let m = self.root.push(json::Material {
            pbr_metallic_roughness: material::PbrMetallicRoughness {
                base_color_factor: material::PbrBaseColorFactor(colour),
                metallic_factor: material::StrengthFactor(0.0),
                roughness_factor: material::StrengthFactor(0.7),
                ..Default::default()
            },
            double_sided,
            ..Default::default()
        });
        self.materials.insert(key, m);
        m
    }

    /// A primitive of `attributes` over `indices`.
    pub fn primitive(
        attributes: Vec<(mesh::Semantic, Index<json::Accessor>)>,
        indices: Index<json::Accessor>,
        material: Index<json::Material>,
        topology: Topology,
    ) -> mesh::Primitive {
        mesh::Primitive {
            attributes: attributes.into_iter().map(|(s, a)| (Valid(s), a)).collect(),
            extensions: None,
            extras: None,
            indices: Some(indices),
            material: Some(material),
            mode: Valid(match topology {
                Topology::Triangles => mesh::Mode::Triangles,
                Topology::Lines => mesh::Mode::Lines,
            }),
            targets: None,
        }
    }

    /// A mesh of `primitives`.
    pub fn mesh(&mut self, name: &str, primitives: Vec<mesh::Primitive>) -> Index<json::Mesh> {
        self.root.push(json::Mesh {
            extensions: None,
            extras: None,
            name: Some(name.to_string()),
            primitives,
            weights: None,
        })
    }

    /// A node named `name` with its other fields from `node`.
    pub fn node(&mut self, name: &str, node: json::Node) -> Index<json::Node> {
        self.root.push(json::Node {
            name: Some(name.to_string()),
            ..node
        })
    }

    /// Adds `child` under `parent`.
    pub(crate) fn adopt(&mut self, parent: Index<json::Node>, child: Index<json::Node>) {
        let node = &mut self.root.nodes[parent.value()];
        node.children.get_or_insert_with(Vec::new).push(child);
    }

    /// The keyframe times accessor for `times` (seconds), shared by every
    /// channel keyed at the same times.
    fn times(&mut self, times: &[f32]) -> Index<json::Accessor> {
        let key: Vec<u32> = times.iter().map(|t| t.to_bits()).collect();
        if let Some(&a) = self.times.get(&key) {
            return a;
        }
        let scalars: Vec<[f32; 1]> = times.iter().map(|&t| [t]).collect();
        let a = self.floats(&scalars, None, true);
        self.times.insert(key, a);
        a
    }

    /// Animates `property` of `node`: one output element (of `values`,
    /// flattened) per time.
    pub(crate) fn animate<const N: usize>(
        &mut self,
        node: Index<json::Node>,
        property: animation::Property,
        times: &[f32],
        values: &[[f32; N]],
        interpolation: animation::Interpolation,
    ) {
        let input = self.times(times);
        let output = self.floats(values, None, false);
        self.add_channel(node, property, input, output, interpolation);
    }

    /// Animates the morph weights of `node`'s mesh: `weights` holds
    /// `targets` values per time, time after time.
    pub(crate) fn animate_weights(
        &mut self,
        node: Index<json::Node>,
        times: &[f32],
        weights: &[[f32; 1]],
    ) {
        let output = self.floats(weights, None, false);
        let property = animation::Property::MorphTargetWeights;
        self.channel(node, property, times, output);
    }

    /// Animates `property` of `node` from `output`, an accessor of its
    /// values (for weights, `targets` values per time, time after time).
    pub(crate) fn channel(
        &mut self,
        node: Index<json::Node>,
        property: animation::Property,
        times: &[f32],
        output: Index<json::Accessor>,
    ) {
        let input = self.times(times);
        let linear = animation::Interpolation::Linear;
        self.add_channel(node, property, input, output, linear);
    }

    fn add_channel(
        &mut self,
        node: Index<json::Node>,
        property: animation::Property,
        input: Index<json::Accessor>,
        output: Index<json::Accessor>,
        interpolation: animation::Interpolation,
    ) {
        let sampler = Index::push(
            &mut self.samplers,
            animation::Sampler {
                extensions: None,
                extras: None,
                input,
                interpolation: Valid(interpolation),
                output,
            },
        );
        self.channels.push(animation::Channel {
            sampler,
            target: animation::Target {
                extensions: None,
                extras: None,
                node,
                path: Valid(property),
            },
            extensions: None,
            extras: None,
        });
    }

    /// Closes the document: the scene of `roots`, the animation (when any
    /// channel was added), the buffer. Returns the JSON and the buffer's pieces.
    pub fn finish(
        mut self,
        roots: Vec<Index<json::Node>>,
        animation_name: &str,
    ) -> (json::Root, Vec<Chunk<'a>>) {
        // The views of a kind go after the bytes planned to be made as the
        // file is written, whose places are set already.
        for pool in std::mem::take(&mut self.pools) {
            let (len, mut pieces) = (pool.len, pool.pieces);
            let offset = self.push_deferred(
                len,
                Box::new(move |out| {
                    for piece in pieces.drain(..) {
                        out.extend_from_slice(&piece);
                    }
                }),
            );
            let view = &mut self.root.buffer_views[pool.index.value()];
            view.byte_offset = (offset > 0).then_some(USize64(offset));
            view.byte_length = USize64(len);
        }
        let scene = self.root.push(json::Scene {
            extensions: None,
            extras: None,
            name: None,
            nodes: roots,
        });
        self.root.scene = Some(scene);
        if self.quantized {
            let name = "KHR_mesh_quantization".to_string();
            self.root.extensions_used.push(name.clone());
            self.root.extensions_required.push(name);
        }
        if !self.channels.is_empty() {
            self.root.push(json::Animation {
                extensions: None,
                extras: None,
                channels: self.channels,
                name: Some(animation_name.to_string()),
                samplers: self.samplers,
            });
        }
        if self.len > 0 {
            self.root.push(json::Buffer {
                byte_length: USize64(self.len),
                name: None,
                uri: None,
                extensions: None,
                extras: None,
            });
        }
        (self.root, self.chunks)
    }
}

/// `value` as an `extras` object.
pub fn extras(value: Value) -> json::Extras {
    serde_json::value::to_raw_value(&value).ok()
}

/// A track root's translation and scale for its placement (`offset` after
/// a uniform `scale`), each left out where it is the identity: by default
/// a track keeps its file's own coordinates.
pub fn placed(offset: glam::Vec3, scale: f32) -> (Option<[f32; 3]>, Option<[f32; 3]>) {
    (
        (offset != glam::Vec3::ZERO).then(|| offset.to_array()),
        (scale != 1.0).then_some([scale; 3]),
    )
}

/// The error for an export that can't be written as asked.
pub fn refuse(file: impl AsRef<std::path::Path>, message: impl std::fmt::Display) -> Error {
    Error::unsupported(file, message)
}
