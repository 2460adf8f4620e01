// MEMG deformation: one thread per motion vertex of one chunk, a run of one
// group's vertices whose arrays fit the device's storage bindings.
//
// position = T · (p_i + Σ_j U[3i.., j] · q_j), written at the vertex's .obj index.
// The chunk's basis keeps the file's column-major layout: column j of the
// chunk starts at j · stride, so the threads of a workgroup read neighbouring
// values of each column together. The CPU writes per chunk the transform and
// the coefficients (multiplied by each column's scale when the basis is
// stored as f16; see src/gpu/deform.rs).
//
// src/gpu/deform.rs prepends the basis binding (3) with `load_basis(e)`, the
// three values from element e, and the windowed positions bindings (5
// onwards) with `store_positions(i, p)` (src/gpu/windows.rs).

struct Chunk {
    // Motion vertices in the chunk.
    vertex_count: u32,
    // r: basis vectors.
    basis_len: u32,
    // Float offset in `frame` of the chunk's 3×4 row-major transform; its r
    // coefficients follow.
    param_offset: u32,
    // Elements from one basis column of the chunk to the next.
    stride: u32,
}

// A motion vertex another group (or a later copy in this one) also moves:
// the last writer owns it, as on the CPU.
const SKIP: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> chunk: Chunk;
// Per motion vertex: its 0-based .obj index, or SKIP.
@group(0) @binding(1) var<storage, read> targets: array<u32>;
// Mean pose, xyz per motion vertex.
@group(0) @binding(2) var<storage, read> mean: array<f32>;
// Written by the CPU each frame: per chunk, transform then coefficients.
@group(0) @binding(4) var<storage, read> frame: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    // Two-dimensional dispatch: more than 65535 workgroups spill into y.
    let i = id.y * n.x * 64u + id.x;
    if i >= chunk.vertex_count {
        return;
    }
    let dst = targets[i];
    if dst == SKIP {
        return;
    }
    var p = vec3<f32>(mean[3u * i], mean[3u * i + 1u], mean[3u * i + 2u]);
    var e = 3u * i;
    let q = chunk.param_offset + 12u;
    for (var j = 0u; j < chunk.basis_len; j++) {
        p += frame[q + j] * load_basis(e);
        e += chunk.stride;
    }
    let t = chunk.param_offset;
    let h = vec4<f32>(p, 1.0);
    store_positions(dst, vec3<f32>(
        dot(vec4<f32>(frame[t], frame[t + 1u], frame[t + 2u], frame[t + 3u]), h),
        dot(vec4<f32>(frame[t + 4u], frame[t + 5u], frame[t + 6u], frame[t + 7u]), h),
        dot(vec4<f32>(frame[t + 8u], frame[t + 9u], frame[t + 10u], frame[t + 11u]), h),
    ));
}
