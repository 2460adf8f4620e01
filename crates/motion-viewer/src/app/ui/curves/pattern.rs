//! The `--curves` patterns: channel names with `*` (any run of characters)
//! and `?` (one character), several separated by commas, compared without
//! regard to case.

/// True when `name` matches one of the comma-separated `patterns`.
pub fn matches(patterns: &str, name: &str) -> bool {
    let name: Vec<char> = name.to_lowercase().chars().collect();
    patterns
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .any(|p| glob(&p.to_lowercase().chars().collect::<Vec<_>>(), &name))
}

/// Wildcard matching with one point of backtracking (the last `*`): linear
/// in practice, never exponential.
fn glob(pattern: &[char], text: &[char]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == '?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                // Let the last `*` swallow one more character.
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_question_marks_and_lists() {
        assert!(matches("PRM:*", "PRM:/r2/c1-Joint2:j1"));
        assert!(matches("*:j1", "PRM:/r2/c1-Joint2:j1"));
        assert!(!matches("*:j1", "PRM:/r2/c1-Joint2:j2"));
        assert!(matches("pitch_deg, *_j?", "left_front_j3"));
        assert!(matches("PITCH_DEG", "pitch_deg"));
        assert!(!matches("pitch", "pitch_deg"));
        assert!(matches("*", ""));
        assert!(!matches("", "pitch_deg"));
        assert!(matches("a*b*c", "axxbyybzc"));
        assert!(!matches("a*b*c", "axxbyybz"));
    }
}
