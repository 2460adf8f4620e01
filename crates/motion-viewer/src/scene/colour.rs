//! The colour a `.obj` group is drawn in: its material's diffuse colour
//! (authored in sRGB), or a fixed palette colour for a group without one.
//! Renderers and exporters both take it in linear RGBA.

use crate::formats::obj::ObjScene;

/// Colours for groups without a material (sRGB, Tableau-like), by group index.
pub(crate) const GROUP_PALETTE: [[f32; 3]; 8] = [
    [0.89, 0.35, 0.25],
    [0.27, 0.55, 0.84],
    [0.36, 0.70, 0.38],
    [0.95, 0.71, 0.20],
    [0.62, 0.43, 0.77],
    [0.30, 0.74, 0.76],
    [0.90, 0.50, 0.66],
    [0.60, 0.60, 0.58],
];

/// The sRGB transfer function inverted (material colours are authored in sRGB).
pub(crate) fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// The sRGB transfer function: a linear value as an 8-bit target without
/// an sRGB format must store it.
#[cfg(feature = "gpu")]
pub(crate) fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

/// Linear RGBA of group `group` of `scene`: its material's `Kd`, or the
/// palette colour of its index.
pub(crate) fn group_colour(scene: &ObjScene, group: usize) -> [f32; 4] {
    let srgb = scene
        .groups
        .get(group)
        .and_then(|g| g.material)
        .and_then(|m| scene.materials.get(m))
        .map(|m| m.diffuse)
        .unwrap_or(GROUP_PALETTE[group % GROUP_PALETTE.len()]);
    let [r, g, b] = srgb.map(srgb_to_linear);
    [r, g, b, 1.0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_ends_and_middle() {
        assert_eq!(srgb_to_linear(0.0), 0.0);
        assert!((srgb_to_linear(1.0) - 1.0).abs() < 1e-6);
        // sRGB 0.5 is about 21.4 % linear.
        assert!((srgb_to_linear(0.5) - 0.2140).abs() < 1e-4);
    }
}
