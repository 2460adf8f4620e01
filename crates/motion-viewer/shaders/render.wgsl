// Shaded geometry (meshes and instanced primitives) and coloured lines.
// Colours are linear. An sRGB target encodes them on store; a target
// without an sRGB format (a WebGL2 canvas) gets them encoded here, set by
// the pipeline.
override encode_srgb: bool = false;

fn to_target(c: vec4<f32>) -> vec4<f32> {
    if !encode_srgb {
        return c;
    }
    let rgb = clamp(c.rgb, vec3<f32>(0.0), vec3<f32>(1.0));
    let low = rgb * 12.92;
    let high = 1.055 * pow(rgb, vec3<f32>(1.0 / 2.4)) - 0.055;
    return vec4<f32>(select(high, low, rgb <= vec3<f32>(0.0031308)), c.a);
}

struct Globals {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    // Directions toward the key and fill lights (unit, world space).
    key_dir: vec4<f32>,
    fill_dir: vec4<f32>,
    // x: ambient, y: key, z: fill, w: specular strength.
    light: vec4<f32>,
}

@group(0) @binding(0) var<uniform> globals: Globals;

struct LitIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // Per instance: model matrix columns, normal matrix columns, colour.
    @location(2) m0: vec4<f32>,
    @location(3) m1: vec4<f32>,
    @location(4) m2: vec4<f32>,
    @location(5) m3: vec4<f32>,
    @location(6) n0: vec4<f32>,
    @location(7) n1: vec4<f32>,
    @location(8) n2: vec4<f32>,
    @location(9) colour: vec4<f32>,
}

struct LitOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) colour: vec4<f32>,
}

@vertex
fn lit_vs(in: LitIn) -> LitOut {
    let model = mat4x4<f32>(in.m0, in.m1, in.m2, in.m3);
    let world = model * vec4<f32>(in.position, 1.0);
    var out: LitOut;
    out.clip = globals.view_proj * world;
    out.world = world.xyz;
    out.normal = mat3x3<f32>(in.n0.xyz, in.n1.xyz, in.n2.xyz) * in.normal;
    out.colour = in.colour;
    return out;
}

@fragment
fn lit_fs(in: LitOut) -> @location(0) vec4<f32> {
    let to_eye = normalize(globals.eye.xyz - in.world);
    var n = normalize(in.normal);
    // Cloth and other open surfaces are seen from both sides: light the side facing the eye.
    if dot(n, to_eye) < 0.0 {
        n = -n;
    }
    let key_dir = globals.key_dir.xyz;
    let key = max(dot(n, key_dir), 0.0) * globals.light.y;
    let fill = max(dot(n, globals.fill_dir.xyz), 0.0) * globals.light.z;
    // Hemispheric ambient: a little brighter from the sky than from the ground.
    let ambient = globals.light.x * mix(0.6, 1.0, 0.5 + 0.5 * n.y);
    let half_vec = normalize(key_dir + to_eye);
    let specular = pow(max(dot(n, half_vec), 0.0), 48.0) * globals.light.w;
    let rgb = in.colour.rgb * (ambient + key + fill) + vec3<f32>(specular);
    return to_target(vec4<f32>(rgb, in.colour.a));
}

struct LineIn {
    @location(0) position: vec3<f32>,
    @location(1) colour: vec4<f32>,
}

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
}

@vertex
fn line_vs(in: LineIn) -> LineOut {
    var out: LineOut;
    out.clip = globals.view_proj * vec4<f32>(in.position, 1.0);
    out.colour = in.colour;
    return out;
}

// Mesh edges: the mesh's placement and the wire colour from its instance.
@vertex
fn wire_vs(in: LitIn) -> LineOut {
    let model = mat4x4<f32>(in.m0, in.m1, in.m2, in.m3);
    var out: LineOut;
    out.clip = globals.view_proj * model * vec4<f32>(in.position, 1.0);
    out.colour = in.colour;
    return out;
}

@fragment
fn line_fs(in: LineOut) -> @location(0) vec4<f32> {
    return to_target(in.colour);
}
