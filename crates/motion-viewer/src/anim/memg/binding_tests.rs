//! [`Binding::for_index`] against [`Binding::new`] on the flags sample and
//! on motions that do not fit their scene.

use super::Binding;
use crate::formats::memg;
use crate::formats::obj;

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/").to_owned() + name).unwrap()
}

#[test]
fn an_indexed_motion_binds_as_the_decoded_one() {
    let scene = obj::decode(&sample("flags.obj")).unwrap();
    let bytes = sample("flags.bin");
    let decoded = memg::decode(&bytes).unwrap();
    let (skeleton, _) = memg::index(&bytes).unwrap();
    let want = Binding::new(&scene, &decoded).unwrap();
    // The sample binds every group: the comparison is not of two empties.
    assert!(!want.groups.is_empty() && want.groups.iter().all(Option::is_some));
    assert_eq!(Binding::for_index(&scene, &skeleton), Ok(want));
    // `new` still checks the sizes `for_index` leaves to the decoder.
    assert!(
        Binding::new(&scene, &skeleton)
            .unwrap_err()
            .to_string()
            .contains("mean has 0 values")
    );
}

#[test]
fn a_motion_that_does_not_fit_fails_the_same_way() {
    let scene = obj::decode(&sample("flags.obj")).unwrap();
    let mut decoded = memg::decode(&sample("flags.bin")).unwrap();
    let too_far = scene.positions.len() as u32 + 1;
    decoded.groups[0].mapping[0] = too_far;
    let mut skeleton = decoded.clone();
    for g in &mut skeleton.groups {
        g.mean.clear();
        g.basis.clear();
    }
    let want = Binding::new(&scene, &decoded).unwrap_err();
    assert!(
        want.to_string().contains(&format!(".obj vertex {too_far}")),
        "{want}"
    );
    assert_eq!(Binding::for_index(&scene, &skeleton), Err(want));
    // Q's size is still checked.
    skeleton.groups[0].mapping[0] = 1;
    skeleton.groups[0].coeffs.pop();
    assert!(
        Binding::for_index(&scene, &skeleton)
            .unwrap_err()
            .to_string()
            .contains("Q has")
    );
}
