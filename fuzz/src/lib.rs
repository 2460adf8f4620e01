//! What each fuzz target checks: one public function per target in
//! `fuzz_targets/`. The stable suite replays every input that once failed
//! through these same functions (`tests/fuzz_regressions.rs` includes this
//! file by path), so this file uses only `motion_viewer` and `glam`.
//!
//! The decoder targets assert more than "no panic": a decoded value encodes,
//! decodes to the same value and encodes to the same bytes again (compared as
//! bytes, so NaN values compare by their bits). The `pipeline` target follows
//! a set of files past decoding: pairing, the plan's bounds, poses at odd
//! times, the state and one table row.

use glam::Vec3;
use motion_viewer::anim::MAX_DURATION_S;
use motion_viewer::anim::aibo::MtnRig;
use motion_viewer::anim::memg::{Binding, Deformer, deform_reference_f64};
use motion_viewer::export::table;
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::input_animation::{self, InputAnimation};
use motion_viewer::formats::{self, Kind, memg, mtn, obj};
use motion_viewer::open::{Archives, Input, Materials};
use motion_viewer::pose::{At, state_at as track_state};
use motion_viewer::scene::shapes::Primitives;
use motion_viewer::scene::{Plan, Track};
use motion_viewer::{Loaded, OpenOptions, open_with};
use std::path::Path;

/// `.mtn`: a decoded motion encodes, decodes to the same motion (warnings
/// and the section sizes the file declared aside) and encodes to the same
/// bytes; a file that decodes without a warning encodes back to itself.
pub fn mtn(data: &[u8]) {
    let Ok(m) = mtn::decode(data) else { return };
    let bytes = mtn::encode(&m);
    let again = mtn::decode(&bytes).expect("an encoded motion decodes");
    assert_eq!(comparable(&again), comparable(&m));
    assert!(mtn::encode(&again) == bytes, "encoding is not canonical");
    if m.warnings.is_empty() {
        assert!(
            bytes == data,
            "a well-formed file does not encode back to itself"
        );
    }
}

/// A motion without what a re-encoding may change: the warnings and the
/// declared section sizes (the encoder writes the true ones).
fn comparable(m: &mtn::Mtn) -> mtn::Mtn {
    mtn::Mtn {
        warnings: Vec::new(),
        declared_sizes: [0; 4],
        ..m.clone()
    }
}

/// ODA archive: every entry lies inside the archive, and every `.mtn` in it
/// passes [`mtn`].
pub fn oda(data: &[u8]) {
    let Ok(entries) = mtn::read_oda(data) else {
        return;
    };
    for e in &entries {
        assert!(e.data.start <= e.data.end && e.data.end <= data.len());
        if &e.kind == b"OMTN" {
            mtn(&data[e.data.clone()]);
        }
    }
}

/// MEMG motion: a decoded motion encodes and decodes to the same bytes in
/// its own byte order and the other one, and [`memg::decode_into`] a motion
/// already holding one gives the same as [`memg::decode`].
pub fn memg(data: &[u8]) {
    let Ok(m) = memg::decode(data) else { return };
    let bytes = memg::encode(&m, m.byte_order);
    let again = memg::decode(&bytes).expect("an encoded motion decodes");
    assert!(
        memg::encode(&again, again.byte_order) == bytes,
        "not canonical"
    );
    let other = match m.byte_order {
        ByteOrder::Little => ByteOrder::Big,
        ByteOrder::Big => ByteOrder::Little,
    };
    let mut swapped = memg::decode(&memg::encode(&m, other)).expect("the other order decodes");
    assert_eq!(swapped.byte_order, other);
    assert!(
        memg::encode(&swapped, m.byte_order) == bytes,
        "byte orders differ"
    );
    memg::decode_into(data, &mut swapped).expect("decodes into a used motion");
    assert!(
        memg::encode(&swapped, m.byte_order) == bytes,
        "decode_into differs"
    );
    assert_eq!(swapped.warnings, m.warnings);
}

/// MRTK recording: a decoded recording encodes in its version and decodes
/// to the same bytes again; a version 1.0 recording written as 1.1 keeps
/// every key's time and value.
pub fn mrtk(data: &[u8]) {
    let Ok(r) = input_animation::decode(data) else {
        return;
    };
    let bytes = input_animation::encode(&r, r.version).expect("encodes in its own version");
    let again = input_animation::decode(&bytes).expect("an encoded recording decodes");
    assert_eq!(again.version, r.version);
    let canonical = input_animation::encode(&again, again.version).expect("encodes again");
    assert!(canonical == bytes, "encoding is not canonical");
    if r.version == (1, 0) {
        let v11 = input_animation::encode(&r, (1, 1)).expect("1.0 content fits 1.1");
        let newer = input_animation::decode(&v11).expect("the 1.1 file decodes");
        assert_eq!(times_and_values(&newer), times_and_values(&r));
    }
}

/// Every key's time and value bits, curve by curve.
fn times_and_values(r: &InputAnimation) -> Vec<Vec<(u32, u32)>> {
    let floats = r.float_curves().into_iter().map(|c| {
        c.keys
            .iter()
            .map(|k| (k.time.to_bits(), k.value.to_bits()))
            .collect()
    });
    let bools = r.bool_curves().into_iter().map(|c| {
        c.keys
            .iter()
            .map(|k| (k.time.to_bits(), k.value.to_bits()))
            .collect()
    });
    floats.chain(bools).collect()
}

/// `.obj` text: a decoded scene written back with its own positions decodes
/// to the same vertices (bit for bit), triangles and groups.
pub fn obj_text(data: &[u8]) {
    let Ok(scene) = obj::decode(data) else {
        return;
    };
    let mut text = Vec::new();
    obj::write_obj(&scene, &scene.positions, &mut text).expect("writes to memory");
    let again = obj::decode(&text).expect("a written scene decodes");
    let bits = |s: &obj::ObjScene| -> Vec<[u32; 3]> {
        s.positions.iter().map(|p| p.map(f32::to_bits)).collect()
    };
    assert!(bits(&again) == bits(&scene), "positions differ");
    assert_eq!(again.triangles, scene.triangles);
    let groups = |s: &obj::ObjScene| -> Vec<(String, std::ops::Range<usize>)> {
        s.groups
            .iter()
            .map(|g| (g.name.clone(), g.triangles.clone()))
            .collect()
    };
    assert_eq!(groups(&again), groups(&scene));
}

/// The probe: whatever it names, the matching check holds; `.mtn`, ODA and
/// MRTK by their magic.
pub fn probe(data: &[u8]) {
    match formats::probe(data) {
        Some(Kind::Mtn) => {
            assert!(data.starts_with(b"OMTN"));
            mtn(data);
        }
        Some(Kind::InputAnimation) => {
            assert!(data.starts_with(&formats::INPUT_ANIMATION_MAGIC.to_le_bytes()));
            mrtk(data);
        }
        Some(Kind::Oda) => {
            assert!(data.starts_with(b"ODAR"));
            oda(data);
        }
        Some(Kind::MemgMotion) => memg(data),
        Some(Kind::Obj) | Some(Kind::Mtl) => obj_text(data),
        None => {}
    }
}

/// Splits `data` into `count` parts: each but the last prefixed by its
/// length as a little-endian u16 (cut short where the data ends).
pub fn split(data: &[u8], count: usize) -> Vec<&[u8]> {
    let mut rest = data;
    let mut parts = Vec::with_capacity(count);
    for _ in 1..count {
        let len = match rest {
            [a, b, tail @ ..] => {
                rest = tail;
                usize::from(u16::from_le_bytes([*a, *b])).min(rest.len())
            }
            _ => {
                rest = &[];
                0
            }
        };
        let (part, tail) = rest.split_at(len);
        parts.push(part);
        rest = tail;
    }
    parts.push(rest);
    parts
}

/// Material libraries that are all the same bytes, whatever their name.
struct Fixed<'a>(&'a [u8]);

/// The front door's options here: an archive without an entry refused.
/// Bare archives refused, as `viewer info` does; libraries from `mtl`.
fn ask<'a>(mtl: &'a Fixed<'_>) -> OpenOptions<'a> {
    OpenOptions {
        archives: Archives::Ask,
        materials: Some(mtl),
        ..OpenOptions::default()
    }
}

impl Materials for Fixed<'_> {
    fn read(&self, _: &Path, _: &str) -> std::io::Result<Vec<u8>> {
        Ok(self.0.to_vec())
    }
}

/// `.obj` + MEMG pairing: `data` is `.obj`, `.mtl` and motion bytes (see
/// [`split`]). The `.obj` passes [`obj_text`]; the pair loads through
/// [`open_with`], binds, and deforms at its first and last
/// timestep on the fast path and the f64 reference, both one position per
/// `.obj` vertex.
pub fn obj_memg(data: &[u8]) {
    let [obj_bytes, mtl, motion] = split(data, 3)[..] else {
        unreachable!("split gives 3 parts")
    };
    obj_text(obj_bytes);
    let inputs = [
        Input::from_bytes("scene.obj", obj_bytes.to_vec()),
        Input::from_bytes("scene.bin", motion.to_vec()),
    ];
    let Ok(Loaded { tracks, .. }) = open_with(inputs, &ask(&Fixed(mtl))) else {
        return;
    };
    for track in &tracks {
        let Track::Memg { scene, motion, .. } = track else {
            continue;
        };
        let Ok(binding) = Binding::new(scene, motion) else {
            continue;
        };
        let mut deformer = Deformer::new();
        let mut out = Vec::new();
        for t in [0.0, motion.timesteps.saturating_sub(1) as f64] {
            deformer.deform(scene, motion, &binding, t, &mut out);
            assert_eq!(out.len(), scene.positions.len());
            let reference = deform_reference_f64(scene, motion, &binding, t);
            assert_eq!(reference.len(), scene.positions.len());
        }
    }
}

/// The times every track is posed at in [`pipeline`], for a track lasting
/// `d` seconds: the ends, the middle, before the start, long after the end,
/// and not numbers at all.
fn odd_times(d: f64) -> [f64; 10] {
    [
        0.0,
        f64::NAN,
        -1.0,
        f64::NEG_INFINITY,
        d * 0.5,
        d,
        d + 1.0,
        1e9,
        1e30,
        f64::INFINITY,
    ]
}

/// The whole path after decoding, as the viewer takes it: `data` holds 1 to
/// 4 files (byte 0 mod 4, plus 1, then the files as [`split`] cuts them),
/// loaded and paired by content (any `mtllib` reads the first `.mtl` among
/// them), measured and placed by [`Plan::new`], every track posed at
/// [`odd_times`] into primitives or a deformed mesh, its state taken and one
/// table row written, and its whole-motion table sized (never sampled).
pub fn pipeline(data: &[u8]) {
    let Some((&count, rest)) = data.split_first() else {
        return;
    };
    let files = split(rest, usize::from(count % 4) + 1);
    let inputs: Vec<Input> = files
        .iter()
        .enumerate()
        .map(|(i, bytes)| Input::from_bytes(format!("f{i}"), bytes.to_vec()))
        .collect();
    let mtl = files
        .iter()
        .find(|b| formats::probe(b) == Some(Kind::Mtl))
        .copied()
        .unwrap_or(b"");
    let Ok(Loaded { tracks, .. }) = open_with(inputs, &ask(&Fixed(mtl))) else {
        return;
    };
    let Ok(plan) = Plan::new(&tracks) else {
        return;
    };
    assert_eq!(plan.placements.len(), tracks.len());
    assert!((0.0..=MAX_DURATION_S).contains(&plan.duration_s));
    for (track, placement) in tracks.iter().zip(&plan.placements) {
        let columns = table::columns(track);
        for t in odd_times(track.duration_s()) {
            pose(track, placement.offset, t);
            let _ = track_state(track, At::Time(t));
            let row = table::row(track, t);
            assert_eq!(row.len(), columns.len());
        }
        if let Ok(sampling) = table::Sampling::new(track, None, None) {
            let _ = table::check_size(
                Path::new("table.csv"),
                sampling.rows,
                columns.len(),
                data.len() as u64,
            );
        }
    }
}

/// Poses `track` at `t` the way the stage draws it, shifted by `offset`.
fn pose(track: &Track, offset: Vec3, t: f64) {
    let mut drawn = Primitives::default();
    drawn.append_placed(track.primitives(t), 1.0, offset);
    match track {
        Track::Mtn { motion, .. } => {
            let (_, pose) = MtnRig::new(motion).pose(t);
            assert_eq!(drawn.spheres.len(), pose.world.len());
        }
        Track::InputAnimation { .. } => {}
        Track::Memg { scene, motion, .. } => {
            let Ok(binding) = Binding::new(scene, motion) else {
                return;
            };
            let timestep = t * f64::from(motion.fps.max(1));
            let mut out = Vec::new();
            Deformer::new().deform(scene, motion, &binding, timestep, &mut out);
            assert_eq!(out.len(), scene.positions.len());
        }
    }
}
