//! The scene `.obj` regrouped by parts (`viewer memg fit --parts …
//! --out-scene`): the input's text line for line — every `v`, `vt`, `vn`,
//! `usemtl`, `mtllib` and face as it was, so every vertex keeps its index
//! and every face its texture coordinates, normals and material — with its
//! own `g` and `o` lines left out and one `g` line naming the part before
//! each run of faces of one part. A face goes to the part most of its
//! corners are in, the lowest such part on a tie; a vertex on faces of two
//! parts is then in both groups, a seam the fit shares as it shares any.

use crate::error::DecodeError;
use std::fmt::Write as _;

/// The name of part `k` (0-based) among `count`: `part1`… numbered from 1,
/// zero-padded so that the names sort in order (`part01`… `part12`).
pub(crate) fn part_name(k: usize, count: usize) -> String {
    let width = count.to_string().len();
    format!("part{:0width$}", k + 1)
}

/// `text`, an `.obj` the library has parsed (so its faces are known to
/// name vertices it has), with its groups replaced by the parts of
/// `labels` (one per `v` line, in order; `count` parts).
pub(crate) fn regroup(text: &str, labels: &[u32], count: usize) -> Result<String, DecodeError> {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut vertices = 0i64;
    let mut current: Option<u32> = None;
    let mut votes: Vec<u32> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let line_at = offset;
        offset += line.len();
        let content = line.split('#').next().unwrap_or("");
        let mut words = content.split_whitespace();
        match words.next() {
            Some("v") => vertices += 1,
            Some("g" | "o") => continue,
            Some("f") => {
                votes.clear();
                for corner in words {
                    let index = corner.split('/').next().unwrap_or("");
                    let vertex = index
                        .parse::<i64>()
                        .ok()
                        .and_then(|i| match i {
                            i if i > 0 => Some(i - 1),
                            i if i < 0 => Some(vertices + i),
                            _ => None,
                        })
                        .and_then(|i| usize::try_from(i).ok())
                        .and_then(|i| labels.get(i));
                    let Some(&part) = vertex else {
                        return Err(DecodeError::new(
                            format!("face corner {corner:?}"),
                            line_at as u64,
                            format!("a vertex of the {} parted", labels.len()),
                            corner.to_string(),
                        ));
                    };
                    votes.push(part);
                }
                let part = majority(&mut votes);
                if current != Some(part) {
                    let _ = writeln!(out, "g {}", part_name(part as usize, count));
                    current = Some(part);
                }
            }
            _ => {}
        }
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}

/// The part most of `votes` name, the lowest on a tie (sorts `votes`).
fn majority(votes: &mut [u32]) -> u32 {
    votes.sort_unstable();
    let mut best = (votes.first().copied().unwrap_or(0), 0);
    let mut run = (best.0, 0);
    for &p in votes.iter() {
        run = if p == run.0 { (p, run.1 + 1) } else { (p, 1) };
        if run.1 > best.1 {
            best = run;
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::obj::{ObjOptions, parse};

    #[test]
    fn faces_go_to_the_part_most_corners_are_in_and_keep_their_lines() {
        let text = "mtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n\
                    o thing\ng old\nusemtl red\nf 1/1/1 2/1/1 3/1/1\nf -4 -2 -1 # relative\n";
        // Vertices 0 and 1 in part 0, 2 and 3 in part 1: the first face has
        // two corners in part 0, the second (1, 3, 4) two in part 1.
        let out = regroup(text, &[0, 0, 1, 1], 2).unwrap();
        assert_eq!(
            out,
            "mtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n\
             usemtl red\ng part1\nf 1/1/1 2/1/1 3/1/1\ng part2\nf -4 -2 -1 # relative\n"
        );
        let scene = parse(&out, &ObjOptions::default()).unwrap();
        let names: Vec<&str> = scene.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["part1", "part2"]);
        assert_eq!(scene.triangles, [[0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn a_tie_goes_to_the_lowest_part_and_names_sort() {
        assert_eq!(majority(&mut [3, 1, 3, 1]), 1);
        assert_eq!(majority(&mut [2, 2, 0]), 2);
        assert_eq!(part_name(0, 12), "part01");
        assert_eq!(part_name(11, 12), "part12");
        assert_eq!(part_name(2, 3), "part3");
    }

    #[test]
    fn a_corner_outside_the_labels_is_an_error_naming_its_line() {
        let e = regroup("v 0 0 0\nf 1 2 3\n", &[0], 1).unwrap_err();
        assert_eq!((e.offset, e.found.as_str()), (8, "2"), "{e}");
    }
}
