// Smooth vertex normals, area-weighted: one thread per vertex sums the
// (unnormalised, so area-weighted) face normals of its incident triangles,
// found through a CSR adjacency. Gathering per vertex avoids float atomics.

struct Params {
    vertex_count: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> positions: array<f32>;
// Triangles, three vertex indices each (also the render index buffer).
@group(0) @binding(2) var<storage, read> triangles: array<u32>;
// incident[offsets[v]..offsets[v + 1]] are the triangles using vertex v.
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read> incident: array<u32>;
@group(0) @binding(5) var<storage, read_write> normals: array<f32>;

fn position(i: u32) -> vec3<f32> {
    return vec3<f32>(positions[3u * i], positions[3u * i + 1u], positions[3u * i + 2u]);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let v = id.y * n.x * 64u + id.x;
    if v >= params.vertex_count {
        return;
    }
    var sum = vec3<f32>(0.0);
    for (var k = offsets[v]; k < offsets[v + 1u]; k++) {
        let t = 3u * incident[k];
        let a = position(triangles[t]);
        let b = position(triangles[t + 1u]);
        let c = position(triangles[t + 2u]);
        sum += cross(b - a, c - a);
    }
    let len = length(sum);
    // A vertex in no triangle (or only degenerate ones) gets "up".
    var normal = vec3<f32>(0.0, 1.0, 0.0);
    if len > 1e-30 {
        normal = sum / len;
    }
    normals[3u * v] = normal.x;
    normals[3u * v + 1u] = normal.y;
    normals[3u * v + 2u] = normal.z;
}
