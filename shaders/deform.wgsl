// MEMG deformation: one thread per motion vertex of one chunk.
//
// position = T · (p_i + Σ_j U[3i.., j] · q_j), written at the vertex's .obj index.
// The basis is stored vertex-major ([(i * r + j) * 3 + axis]) so a thread reads
// its 3r values contiguously, and is split into chunks of whole vertices so no
// binding exceeds the device's max_storage_buffer_binding_size; each chunk is
// one dispatch with its own `chunk` uniform and basis buffer.

struct Chunk {
    // First motion vertex of the chunk (index into `vertices` and `mean`).
    first_vertex: u32,
    // Motion vertices in the chunk.
    vertex_count: u32,
    // Float offset, in the whole vertex-major basis, of `basis[0]`.
    basis_base: u32,
    _pad: u32,
}

struct Group {
    // Index of the group's first motion vertex.
    vertex_offset: u32,
    // Float offset of that vertex's basis rows in the whole basis.
    basis_offset: u32,
    // r: basis vectors.
    basis_len: u32,
    // Float offset in `frame` of the group's 3×4 row-major transform; its r
    // interpolated coefficients follow.
    param_offset: u32,
}

@group(0) @binding(0) var<uniform> chunk: Chunk;
// Per motion vertex: (0-based .obj vertex index, group index).
@group(0) @binding(1) var<storage, read> vertices: array<vec2<u32>>;
// Mean pose, xyz per motion vertex.
@group(0) @binding(2) var<storage, read> mean: array<f32>;
@group(0) @binding(3) var<storage, read> groups: array<Group>;
// This chunk's slice of the basis.
@group(0) @binding(4) var<storage, read> basis: array<f32>;
// Written by the CPU each frame: per group, transform then coefficients.
@group(0) @binding(5) var<storage, read> frame: array<f32>;
// .obj positions, xyz per vertex (also the render vertex buffer).
@group(0) @binding(6) var<storage, read_write> positions: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    // Two-dimensional dispatch: more than 65535 workgroups spill into y.
    let local = id.y * n.x * 64u + id.x;
    if local >= chunk.vertex_count {
        return;
    }
    let m = chunk.first_vertex + local;
    let vertex = vertices[m];
    let g = groups[vertex.y];
    var p = vec3<f32>(mean[3u * m], mean[3u * m + 1u], mean[3u * m + 2u]);
    var b = g.basis_offset + (m - g.vertex_offset) * 3u * g.basis_len - chunk.basis_base;
    let q = g.param_offset + 12u;
    for (var j = 0u; j < g.basis_len; j++) {
        p += frame[q + j] * vec3<f32>(basis[b], basis[b + 1u], basis[b + 2u]);
        b += 3u;
    }
    let t = g.param_offset;
    let h = vec4<f32>(p, 1.0);
    let o = 3u * vertex.x;
    positions[o] = dot(vec4<f32>(frame[t], frame[t + 1u], frame[t + 2u], frame[t + 3u]), h);
    positions[o + 1u] = dot(vec4<f32>(frame[t + 4u], frame[t + 5u], frame[t + 6u], frame[t + 7u]), h);
    positions[o + 2u] = dot(vec4<f32>(frame[t + 8u], frame[t + 9u], frame[t + 10u], frame[t + 11u]), h);
}
