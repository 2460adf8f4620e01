//! The binary half of a glTF [`Document`]: bytes planned in the buffer,
//! the views over them and the accessors that read them. Bytes made at
//! once go into the view of their kind ([`Pool`]); bytes planned to be made
//! as the file is written join the last accessor's view where they follow
//! its bytes and are of its kind.

use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;
use json::{Index, accessor, buffer};
use serde_json::Value;

use super::document::{Chunk, Document, Fill, OpenView, Pool};

impl<'a> Document<'a> {
    /// Plans `len` bytes made by `fill` (padded to 4 here); returns their offset.
    pub(crate) fn push_deferred(&mut self, len: u64, mut fill: Fill<'a>) -> u64 {
        let offset = self.len;
        let padded = len.next_multiple_of(4);
        self.chunks.push(Chunk {
            len: padded,
            fill: Box::new(move |out| {
                let start = out.len();
                fill(out);
                debug_assert_eq!((out.len() - start) as u64, len, "a chunk's planned length");
                out.resize(start + padded as usize, 0);
            }),
        });
        self.len += padded;
        offset
    }

    /// A view of `len` bytes at `offset` of the buffer.
    pub fn view(
        &mut self,
        offset: u64,
        len: u64,
        target: Option<buffer::Target>,
    ) -> Index<buffer::View> {
        self.root.push(buffer::View {
            buffer: Index::new(0),
            byte_length: USize64(len),
            byte_offset: (offset > 0).then_some(USize64(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: None,
        })
    }

    /// The view for `len` bytes planned at `offset` of the buffer, and
    /// where in it they start: the last accessor's view, grown over them,
    /// when they follow its bytes and are of its kind (its target, and for
    /// vertex attributes the same element size, which becomes the view's
    /// stride, as glTF asks of a view several attributes share); else a
    /// view of their own. One view for a primitive's positions, normals and
    /// morph targets, or for a run of animation outputs, writes one JSON
    /// entry instead of one each.
    pub(super) fn place(
        &mut self,
        offset: u64,
        len: u64,
        target: Option<buffer::Target>,
        element: u64,
    ) -> (Index<buffer::View>, u64) {
        let vertices = target == Some(buffer::Target::ArrayBuffer);
        if let Some(open) = self.last_view.as_mut()
            && open.end == offset
            && open.target == target
            && (!vertices
                || (open.element == element && element.is_multiple_of(4) && element <= 252))
        {
            open.end = offset + len.next_multiple_of(4);
            let view = &mut self.root.buffer_views[open.index.value()];
            view.byte_length = USize64(open.end - open.start);
            if vertices {
                view.byte_stride = Some(json::buffer::Stride(element as usize));
            }
            return (open.index, offset - open.start);
        }
        let index = self.view(offset, len, target);
        self.last_view = Some(OpenView {
            index,
            start: offset,
            end: offset + len.next_multiple_of(4),
            target,
            element,
        });
        (index, 0)
    }

    /// The view for `bytes` made now, of their kind (`target`, and for
    /// vertex attributes the `element` size, the view's stride), and where
    /// in it they start (padded to 4, so that every accessor in it is
    /// aligned). The view's place in the buffer is set when the document is
    /// finished.
    pub(super) fn pooled(
        &mut self,
        mut bytes: Vec<u8>,
        target: Option<buffer::Target>,
        element: u64,
    ) -> (Index<buffer::View>, u64) {
        let vertices = target == Some(buffer::Target::ArrayBuffer);
        let element = if vertices { element } else { 0 };
        let at = match self
            .pools
            .iter()
            .position(|p| p.target == target && p.element == element)
        {
            Some(at) => at,
            None => {
                let index = self.view(0, 0, target);
                if vertices {
                    let stride = json::buffer::Stride(element as usize);
                    self.root.buffer_views[index.value()].byte_stride = Some(stride);
                }
                self.pools.push(Pool {
                    index,
                    target,
                    element,
                    pieces: Vec::new(),
                    len: 0,
                });
                self.pools.len() - 1
            }
        };
        bytes.resize(bytes.len().next_multiple_of(4), 0);
        let pool = &mut self.pools[at];
        let start = pool.len;
        pool.len += bytes.len() as u64;
        pool.pieces.push(bytes);
        (pool.index, start)
    }

    /// An accessor of `count` vertex 3-vectors of `f32` at `offset` of the
    /// buffer, in bytes planned already: in the last accessor's view when
    /// they follow its bytes ([`Self::place`]).
    pub(crate) fn vec3_at(
        &mut self,
        offset: u64,
        count: usize,
        bounds: Option<(Value, Value)>,
    ) -> Index<json::Accessor> {
        let target = Some(buffer::Target::ArrayBuffer);
        let (view, at) = self.place(offset, 12 * count as u64, target, 12);
        self.accessor_at(
            view,
            at,
            count,
            accessor::ComponentType::F32,
            accessor::Type::Vec3,
            bounds,
        )
    }

    /// An accessor of `count` elements `at` bytes into `view`.
    pub(super) fn accessor_at(
        &mut self,
        view: Index<buffer::View>,
        at: u64,
        count: usize,
        component: accessor::ComponentType,
        type_: accessor::Type,
        bounds: Option<(Value, Value)>,
    ) -> Index<json::Accessor> {
        let (min, max) = bounds.unzip();
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: (at > 0).then_some(USize64(at)),
            count: USize64(count as u64),
            component_type: Valid(accessor::GenericComponentType(component)),
            extensions: None,
            extras: None,
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// Float vectors of `N` components (vertex attributes when `target` is
    /// given), with their exact per-component bounds when `bounded`.
    pub fn floats<const N: usize>(
        &mut self,
        data: &[[f32; N]],
        target: Option<buffer::Target>,
        bounded: bool,
    ) -> Index<json::Accessor> {
        let bounds = bounded.then(|| bounds(data.iter().copied()));
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let (view, at) = self.pooled(bytes, target, 4 * N as u64);
        self.accessor_at(
            view,
            at,
            data.len(),
            accessor::ComponentType::F32,
            vector_type(N),
            bounds,
        )
    }

    /// `count` float vectors of `N` components made by `fill` when the file
    /// is written (little-endian), with `bounds` measured beforehand.
    pub(crate) fn floats_deferred<const N: usize>(
        &mut self,
        count: usize,
        target: Option<buffer::Target>,
        bounds: Option<(Value, Value)>,
        fill: Fill<'a>,
    ) -> Index<json::Accessor> {
        let len = (4 * N * count) as u64;
        let offset = self.push_deferred(len, fill);
        let (view, at) = self.place(offset, len, target, 4 * N as u64);
        self.accessor_at(
            view,
            at,
            count,
            accessor::ComponentType::F32,
            vector_type(N),
            bounds,
        )
    }

    /// Vertex indices in the fewest bits every index fits below the
    /// largest value (the primitive-restart value, which glTF forbids an
    /// index to take): 8 bits below 255, 16 below 65535, else 32.
    pub fn indices(&mut self, indices: &[u32]) -> Index<json::Accessor> {
        let largest = indices.iter().copied().max().unwrap_or(0);
        let (bytes, component) = if largest < u32::from(u8::MAX) {
            let bytes = indices.iter().map(|&i| i as u8);
            (bytes.collect(), accessor::ComponentType::U8)
        } else if largest < u32::from(u16::MAX) {
            let bytes = indices.iter().flat_map(|&i| (i as u16).to_le_bytes());
            (bytes.collect(), accessor::ComponentType::U16)
        } else {
            let bytes = indices.iter().flat_map(|&i| i.to_le_bytes());
            (bytes.collect::<Vec<u8>>(), accessor::ComponentType::U32)
        };
        let target = Some(buffer::Target::ElementArrayBuffer);
        let (view, at) = self.pooled(bytes, target, 0);
        self.accessor_at(
            view,
            at,
            indices.len(),
            component,
            accessor::Type::Scalar,
            None,
        )
    }
}

/// The glTF type of an `n`-component element.
pub(super) fn vector_type(n: usize) -> accessor::Type {
    match n {
        1 => accessor::Type::Scalar,
        2 => accessor::Type::Vec2,
        3 => accessor::Type::Vec3,
        _ => accessor::Type::Vec4,
    }
}

/// Per-component minimum and maximum, as the JSON numbers of the exact `f32`
/// values (widened to `f64`, so that they read back to the same floats).
pub fn bounds<const N: usize>(data: impl IntoIterator<Item = [f32; N]>) -> (Value, Value) {
    let mut lo = [f32::INFINITY; N];
    let mut hi = [f32::NEG_INFINITY; N];
    for v in data {
        for k in 0..N {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    let json = |a: [f32; N]| Value::from(a.iter().map(|&x| shortest(x)).collect::<Vec<_>>());
    (json(lo), json(hi))
}

/// `x` as the decimal with the fewest digits that reads back as the same
/// `f32` (Rust's `Display`), as JSON readers read it: into an `f64`, then
/// to `f32`. `f64::from(x)` would write all 17 digits of the `f64` nearest
/// it (`0.30000001192092896` for `0.3`), eight more per bound.
fn shortest(x: f32) -> f64 {
    x.to_string()
        .parse::<f64>()
        .ok()
        .filter(|&d| d as f32 == x)
        .unwrap_or(f64::from(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessors_share_the_view_of_their_kind_wherever_they_are_made() {
        let mut doc = Document::new();
        let vertices = Some(buffer::Target::ArrayBuffer);
        let p = doc.floats(&[[0.0f32; 3]; 5], vertices, true);
        let t = doc.floats(&[[0.0f32], [1.0]], None, true);
        let uv = doc.floats(&[[0.5f32; 2]; 5], vertices, false);
        let i = doc.indices(&[0, 1, 2]);
        let n = doc.floats(&[[1.0f32; 3]; 5], vertices, false);
        let r = doc.floats(&[[0.0f32, 0.0, 0.0, 1.0]; 2], None, false);
        let j = doc.indices(&[3, 4, 5, 6]);
        let view_of = |x: Index<json::Accessor>| doc.root.accessors[x.value()].buffer_view.unwrap();
        let at =
            |x: Index<json::Accessor>| doc.root.accessors[x.value()].byte_offset.map_or(0, |o| o.0);
        // Positions and normals: one view of stride 12, the normals 60
        // bytes in, though texture coordinates, times and indices were
        // made between them.
        assert_eq!(view_of(p), view_of(n));
        assert_eq!((at(p), at(n)), (0, 60));
        // The times and the rotations: one view without a stride; the
        // indices another, each run starting on 4 bytes.
        assert_eq!(view_of(t), view_of(r));
        assert_eq!((at(t), at(r)), (0, 8));
        assert_eq!(view_of(i), view_of(j));
        assert_eq!((at(i), at(j)), (0, 4));
        assert_ne!(view_of(uv), view_of(p));
        assert_eq!(doc.root.buffer_views.len(), 4);
        // Laid out in the buffer once finished, one after another.
        let (root, chunks) = doc.finish(Vec::new(), "a");
        let views: Vec<(u64, u64, Option<usize>)> = root
            .buffer_views
            .iter()
            .map(|v| {
                let offset = v.byte_offset.map_or(0, |o| o.0);
                (offset, v.byte_length.0, v.byte_stride.map(|s| s.0))
            })
            .collect();
        assert_eq!(
            views,
            [
                (0, 120, Some(12)),
                (120, 40, None),
                (160, 40, Some(8)),
                (200, 8, None)
            ]
        );
        assert_eq!(chunks.iter().map(|c| c.len).sum::<u64>(), 208);
        assert_eq!(root.buffers[0].byte_length.0, 208);
    }

    #[test]
    fn indices_take_the_fewest_bits_that_keep_the_restart_value_out() {
        let mut doc = Document::new();
        let kinds: Vec<(accessor::ComponentType, u64)> = [254, 255, 65534, 65535]
            .into_iter()
            .map(|largest| {
                let before = doc.pools.first().map_or(0, |p| p.len);
                let i = doc.indices(&[0, 1, largest]);
                let a = &doc.root.accessors[i.value()];
                let after = doc.pools[0].len;
                (a.component_type.unwrap().0, after - before)
            })
            .collect();
        use accessor::ComponentType::{U8, U16, U32};
        // 255 is an 8-bit index's restart value, 65535 a 16-bit one's; the
        // bytes are padded to 4.
        assert_eq!(kinds, [(U8, 4), (U16, 8), (U16, 8), (U32, 12)]);
    }

    #[test]
    fn bounds_are_written_with_the_fewest_digits_that_read_back_the_same() {
        let (lo, hi) = bounds([[0.3f32, -1.0, 1e-7], [0.1, 2.5, 3.4e38]]);
        assert_eq!(serde_json::to_string(&lo).unwrap(), "[0.1,-1.0,1e-7]");
        assert_eq!(serde_json::to_string(&hi).unwrap(), "[0.3,2.5,3.4e+38]");
        // Every f32 of a sweep over the exponents reads back as itself
        // through its decimal, as a JSON reader reads it (f64, then f32).
        for bits in (0..u32::MAX).step_by(9_973) {
            let x = f32::from_bits(bits);
            if x.is_finite() {
                let text = serde_json::to_string(&shortest(x)).unwrap();
                assert_eq!(text.parse::<f64>().unwrap() as f32, x, "{x:e} as {text}");
            }
        }
    }
}
