//! A MEMG motion: decoding (fresh, reused, memory-mapped) beside memcpy, and
//! deformation on the CPU and the GPU beside a streaming read of its basis.

use super::results::{DecodeFrom, Detail, MemgRow, Row};
use super::{Bench, decode_and_memcpy, mb_s};
use motion_viewer::anim::memg::{Binding, Deformer};
use motion_viewer::error::{Error, Result};
use motion_viewer::formats::memg::{self, MemgMotion};
use motion_viewer::formats::obj::ObjScene;
use motion_viewer::synthetic::streaming_sum;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

/// Files up to this size are read into memory for the decode and memcpy
/// figures (then held three times: bytes, copy, decoded); larger ones are
/// read through their memory map.
const IN_MEMORY_MAX: u64 = 1 << 30;

/// Bytes a memcpy from a map copies into its (reused) destination at a time:
/// well beyond the caches, so it runs at memory speed like a whole copy.
const COPY_WINDOW: usize = 256 << 20;

/// Measures the motion in the file at `path`, bound to `scene` (dropped
/// before the GPU's figures, once the GPU holds the mesh).
pub(super) fn bench(
    bench: &mut Bench<'_>,
    name: String,
    path: &Path,
    scene: Arc<ObjScene>,
) -> Result<Row> {
    let timer = &bench.timer;
    timer.plan(6);
    let file_error = |e| Error::io(path, e);
    let decode_error = |e| Error::decode(path, e);
    let file_bytes = std::fs::metadata(path).map_err(file_error)?.len();
    // Fresh decodes each hold one motion at a time, then drop it; they all
    // come before the reused motion exists, so no two are ever held at once.
    let mmap_secs = || {
        timer.secs_per_call("decode via mmap", || {
            drop(black_box(memg::load(path)?));
            Ok(())
        })
    };
    // The warm-up batch sizes the reused arrays; the timed ones overwrite them in place.
    let mut motion = MemgMotion::default();
    let (decode_from, decode_s, memcpy_s, mmap_s, reuse_s) = if file_bytes <= IN_MEMORY_MAX {
        let bytes = std::fs::read(path).map_err(file_error)?;
        let (decode_s, memcpy_s) = decode_and_memcpy(&bytes, timer, |b| {
            drop(black_box(memg::decode(b).map_err(decode_error)?));
            Ok(())
        })?;
        let mmap_s = mmap_secs()?;
        let reuse_s = timer.secs_per_call("decode into a reused motion", || {
            memg::decode_into(black_box(&bytes), &mut motion).map_err(decode_error)?;
            black_box(&mut motion);
            Ok(())
        })?;
        (DecodeFrom::Memory, decode_s, memcpy_s, mmap_s, reuse_s)
    } else {
        let map = memg::map_file(path)?.expect("a file this large is mapped");
        let decode_s = timer.secs_per_call("decode from the map", || {
            drop(black_box(memg::decode_mmap(&map).map_err(decode_error)?));
            Ok(())
        })?;
        let memcpy_s = copy_map_secs(&map, timer)?;
        let mmap_s = mmap_secs()?;
        let reuse_s = timer.secs_per_call("decode from the map into a reused motion", || {
            memg::decode_mmap_into(&map, &mut motion).map_err(decode_error)?;
            black_box(&mut motion);
            Ok(())
        })?;
        // The file unchanged while it was read (a mapped read past a new
        // end reads zeros, not a signal: `formats::mapping`).
        map.check()?;
        (DecodeFrom::Mmap, decode_s, memcpy_s, mmap_s, reuse_s)
    };

    let binding = Binding::new(&scene, &motion).map_err(|reason| Error::mismatch(path, reason))?;
    let bound: Vec<_> = motion
        .groups
        .iter()
        .zip(&binding.groups)
        .filter(|(_, b)| b.is_some())
        .map(|(g, _)| g)
        .collect();
    let vertices = bound.iter().map(|g| g.vertex_count()).sum();
    let basis = bound.iter().map(|g| g.basis_len).max().unwrap_or(0);
    let basis_gb = bound.iter().map(|g| 4 * g.basis.len()).sum::<usize>() as f64 / 1e9;

    // Fractional times, so every frame blends two timesteps as playback does.
    let last = motion.timesteps.saturating_sub(1) as f64;
    let mut t = 0.0;
    let mut next_t = move || {
        t = if last > 0.0 { (t + 0.37) % last } else { 0.0 };
        t
    };
    let mut positions = Vec::new();
    // The scratch a viewer keeps from frame to frame.
    let mut deformer = Deformer::new();
    let cpu_s = timer.secs_per_call("CPU deformation", || {
        deformer.deform(&scene, &motion, &binding, next_t(), &mut positions);
        black_box(&mut positions);
        Ok(())
    })?;
    let read_s = timer.secs_per_call("streaming read of U", || {
        for g in &bound {
            black_box(streaming_sum(black_box(&g.basis)));
        }
        Ok(())
    })?;
    // The GPU's copy is made from the file: the CPU's goes first.
    drop(bound);
    drop((positions, deformer, motion));
    let gpu = bench
        .gpu
        .frame(&bench.timer, scene, path, &binding, &mut next_t)?;

    let cpu_deform_fps = 1.0 / cpu_s;
    let gpu_deform_fps = gpu.secs.map(|s| 1.0 / s);
    Ok(Row {
        name,
        format: "memg",
        bytes: file_bytes,
        decode_mb_s: mb_s(file_bytes, decode_s),
        memcpy_mb_s: mb_s(file_bytes, memcpy_s),
        decode_vs_memcpy: memcpy_s / decode_s,
        detail: Detail::Memg(MemgRow {
            decode_from,
            vertices,
            basis,
            mmap_decode_mb_s: mb_s(file_bytes, mmap_s),
            decode_reuse_mb_s: mb_s(file_bytes, reuse_s),
            decode_reuse_vs_memcpy: memcpy_s / reuse_s,
            cpu_deform_fps,
            gpu_deform_fps,
            basis_gb_s: basis_gb * cpu_deform_fps,
            gpu_basis_gb_s: gpu_deform_fps
                .zip(gpu.basis_bytes)
                .map(|(fps, bytes)| bytes as f64 / 1e9 * fps),
            gpu_basis_format: gpu.basis_format,
            read_gb_s: basis_gb / read_s,
            cpu_deform_vs_bound: read_s / cpu_s,
            gpu_adapter: gpu.adapter,
        }),
    })
}

/// Seconds per copy of the whole map, a window at a time into one
/// destination allocated beforehand, each window's pages dropped behind as the
/// decoder drops them.
fn copy_map_secs(
    map: &motion_viewer::formats::mapping::Mapping,
    timer: &super::Timer<'_>,
) -> Result<f64> {
    let mut window = vec![0u8; COPY_WINDOW.min(map.len())];
    timer.secs_per_call("memcpy from the map", || {
        for (i, piece) in map.chunks(COPY_WINDOW).enumerate() {
            window[..piece.len()].copy_from_slice(black_box(piece));
            black_box(&mut window);
            let at = i * COPY_WINDOW;
            memg::release(map, at..at + piece.len());
        }
        Ok(())
    })
}
