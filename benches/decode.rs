//! MEMG decoding throughput against a plain copy of the same bytes.
//!
//! The file is one group of 250 000 vertices with a 32-vector basis over 240
//! timesteps, about 200 MB, written to a temporary directory. `decode` works on
//! the bytes in memory, `load_mmap` maps the file as the viewer does; `memcpy`
//! copies the same bytes into a buffer already paged in, `memcpy_alloc` into a
//! fresh one (as the decoder's output is): the ceilings a single pass can approach.
//! `decode_into_reused` decodes into the arrays of a motion decoded before.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use motion_viewer::formats::ByteOrder;
use motion_viewer::formats::memg::{self, MemgGroup, MemgMotion};
use std::hint::black_box;

/// A motion of about 200 MB; the 3v × r basis is almost all of it.
fn big_motion(order: ByteOrder) -> MemgMotion {
    let (v, r, n) = (250_000usize, 32usize, 240usize);
    let wave = |i: usize| ((i % 1000) as f32) * 1e-3 - 0.5;
    MemgMotion {
        byte_order: order,
        fps: 30,
        local_frames: 1,
        timesteps: n,
        frames: vec![[1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.]; n],
        groups: vec![MemgGroup {
            name: "cloth".into(),
            mapping: (1..=v as u32).collect(),
            mean: (0..3 * v).map(wave).collect(),
            parent: 0,
            basis_len: r,
            basis: (0..3 * v * r).map(wave).collect(),
            coeffs: (0..r * n).map(wave).collect(),
        }],
        warnings: Vec::new(),
    }
}

fn decode(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    for order in [ByteOrder::Little, ByteOrder::Big] {
        let path = dir.path().join(format!("{order:?}.bin"));
        std::fs::write(&path, memg::encode(&big_motion(order), order)).expect("write");
        let bytes = std::fs::read(&path).expect("read");
        let mut group = c.benchmark_group(format!("memg_{order:?}"));
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.sample_size(10);
        group.bench_function("memcpy", |b| {
            let mut dst = vec![0u8; bytes.len()];
            b.iter(|| {
                dst.copy_from_slice(black_box(&bytes));
                black_box(&dst);
            })
        });
        // The decoder returns fresh arrays, so it pays for faulting in new pages;
        // this copy into a fresh Vec pays the same and is the like-for-like ceiling.
        group.bench_function("memcpy_alloc", |b| {
            b.iter(|| black_box(black_box(&bytes).to_vec()))
        });
        group.bench_function("decode", |b| {
            b.iter(|| black_box(memg::decode(black_box(&bytes)).expect("decodes")))
        });
        // A viewer reloading a file: the previous motion's arrays are reused, so
        // no fresh pages; `memcpy` (into a paged-in buffer) is its ceiling.
        group.bench_function("decode_into_reused", |b| {
            let mut motion = memg::decode(&bytes).expect("decodes");
            b.iter(|| {
                memg::decode_into(black_box(&bytes), &mut motion).expect("decodes");
                black_box(&mut motion);
            })
        });
        group.bench_function("load_mmap", |b| {
            b.iter(|| black_box(memg::load(&path).expect("loads")))
        });
        group.finish();
    }
}

criterion_group!(benches, decode);
criterion_main!(benches);
