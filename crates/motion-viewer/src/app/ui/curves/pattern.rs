//! The `--curves` patterns: channel names with `*` (any run of characters)
//! and `?` (one character), several separated by commas, compared without
//! regard to case.

use crate::curves::select;

/// True when `name` matches one of the comma-separated `patterns`, by
/// [`select::matches`] (the matching `viewer plot --channels` does), both
/// sides lowercased.
pub fn matches(patterns: &str, name: &str) -> bool {
    let name = name.to_lowercase();
    patterns
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .any(|p| select::matches(&p.to_lowercase(), &name))
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
