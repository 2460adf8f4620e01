// Smooth vertex normals, area-weighted: one thread per vertex sums the
// (unnormalised, so area-weighted) face normals of its incident triangles,
// found through a CSR adjacency. Gathering per vertex avoids float atomics.
//
// One dispatch covers vertices first_vertex .. first_vertex + vertex_count;
// `offsets`, `incident` and `normals` are bound as that run's slices. The
// positions and triangles are read anywhere, through `load_positions` and
// `load_triangles`, which src/gpu/windows.rs prepends with their bindings
// (4 onwards): each array may be bound in several windows.

struct Params {
    first_vertex: u32,
    vertex_count: u32,
    // Index in the whole incident list of `incident[0]`.
    incident_base: u32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
// incident[offsets[v] - base .. offsets[v + 1] - base] are the triangles using
// vertex first_vertex + v (offsets are into the whole list).
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> incident: array<u32>;
@group(0) @binding(3) var<storage, read_write> normals: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let v = id.y * n.x * 64u + id.x;
    if v >= params.vertex_count {
        return;
    }
    var sum = vec3<f32>(0.0);
    for (var k = offsets[v]; k < offsets[v + 1u]; k++) {
        let t = load_triangles(incident[k - params.incident_base]);
        let a = load_positions(t.x);
        let b = load_positions(t.y);
        let c = load_positions(t.z);
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
