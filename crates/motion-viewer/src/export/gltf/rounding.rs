//! Numbers as glTF's normalized integers: how a value in [−1, 1] (or a
//! weight in [0, 1]) is stored and read back (glTF 2.0, "Accessors": a
//! reader takes `i16` as `max(q / 32767, −1)`, `i8` as `max(q / 127, −1)`,
//! `u16` as `q / 65535`, `u8` as `q / 255`), for the quantized mesh
//! (`quantizer.rs`) and the rotations of its frames (`keys.rs`), and the
//! accessors that hold them.

use glam::DQuat;
use gltf_json as json;
use gltf_json::{Index, accessor, buffer};
use serde_json::Value;

use super::accessors::vector_type;
use super::document::Document;

/// An integer component a quantized accessor stores, read back
/// normalized (glTF 2.0, "Animations"; `KHR_mesh_quantization`).
pub(super) trait Quantum: Copy {
    /// Its glTF component type.
    const COMPONENT: accessor::ComponentType;
    /// Its bytes.
    const SIZE: usize;
    /// Appends it, little-endian.
    fn put(self, out: &mut Vec<u8>);
    /// Its value, for the accessor's bounds (which glTF gives as stored).
    fn number(self) -> i64;
}

macro_rules! quantum {
    ($t:ty, $component:ident) => {
        impl Quantum for $t {
            const COMPONENT: accessor::ComponentType = accessor::ComponentType::$component;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn number(self) -> i64 {
                i64::from(self)
            }
        }
    };
}
quantum!(i8, I8);
quantum!(i16, I16);
quantum!(u8, U8);
quantum!(u16, U16);

impl Document<'_> {
    /// Normalized integer vectors of `N` components, with their bounds (as
    /// stored) when `bounded`. As vertex attributes (`target` given) each
    /// element is padded to 4 bytes, as glTF asks of them, and the file
    /// requires `KHR_mesh_quantization`; animation outputs are packed.
    pub(crate) fn normalized<T: Quantum, const N: usize>(
        &mut self,
        data: &[[T; N]],
        target: Option<buffer::Target>,
        bounded: bool,
    ) -> Index<json::Accessor> {
        let vertices = target == Some(buffer::Target::ArrayBuffer);
        let element = if vertices {
            (T::SIZE * N).next_multiple_of(4)
        } else {
            T::SIZE * N
        };
        let mut bytes = Vec::with_capacity(element * data.len());
        for v in data {
            let start = bytes.len();
            v.iter().for_each(|&x| x.put(&mut bytes));
            bytes.resize(start + element, 0);
        }
        let bounds = bounded.then(|| {
            let (mut lo, mut hi) = ([i64::MAX; N], [i64::MIN; N]);
            for v in data {
                for k in 0..N {
                    lo[k] = lo[k].min(v[k].number());
                    hi[k] = hi[k].max(v[k].number());
                }
            }
            (Value::from(lo.to_vec()), Value::from(hi.to_vec()))
        });
        self.quantized |= vertices;
        // Padded elements: the view of their kind says how far apart they are.
        let (view, at) = self.pooled(bytes, target, element as u64);
        let index = self.accessor_at(view, at, data.len(), T::COMPONENT, vector_type(N), bounds);
        self.root.accessors[index.value()].normalized = true;
        index
    }
}

pub(super) const I16: f64 = 32767.0;
pub(super) const I8: f64 = 127.0;
pub(super) const U16: f64 = 65535.0;
pub(super) const U8: f64 = 255.0;

/// `x` in [−1, 1] as a normalized `i16`.
pub(super) fn short(x: f64) -> i16 {
    (x * I16).round().clamp(-I16, I16) as i16
}

/// A normalized `i16` read back.
pub(super) fn unshort(q: i16) -> f64 {
    (f64::from(q) / I16).max(-1.0)
}

/// `x` in [−1, 1] as a normalized `i8`.
pub(super) fn byte(x: f64) -> i8 {
    (x * I8).round().clamp(-I8, I8) as i8
}

/// A normalized `i8` read back.
pub(super) fn unbyte(q: i8) -> f64 {
    (f64::from(q) / I8).max(-1.0)
}

/// A unit normal as normalized `i8`.
pub(super) fn normal(n: [f32; 3]) -> [i8; 3] {
    n.map(|x| byte(f64::from(x)))
}

/// A rotation as glTF's normalized `i16` (x, y, z, w), the form animation
/// outputs may take in glTF 2.0 itself.
pub(super) fn rotation(q: DQuat) -> [i16; 4] {
    q.normalize().to_array().map(short)
}

/// [`rotation`]'s integers read back as stored, not normalized (three.js
/// builds a node's matrix from the quaternion as it reads it).
pub(super) fn unrotation(q: [i16; 4]) -> DQuat {
    DQuat::from_array(q.map(unshort))
}
