//! The binding table: every action reachable, no key doing two things.

use motion_viewer::app::{Action, BINDINGS, help_rows};
use std::collections::HashSet;

#[test]
fn no_two_actions_share_a_binding() {
    let mut seen = HashSet::new();
    for b in BINDINGS {
        assert!(
            seen.insert((b.key, b.shift, b.ctrl)),
            "{:?} (shift {}, ctrl {}) is bound twice",
            b.key,
            b.shift,
            b.ctrl
        );
    }
}

#[test]
fn every_action_has_a_binding_and_a_help_row() {
    let bound: HashSet<Action> = BINDINGS.iter().map(|b| b.action).collect();
    for action in Action::ALL {
        assert!(bound.contains(&action), "{action:?} has no key");
    }
    let rows = help_rows();
    assert_eq!(rows.len(), Action::ALL.len());
    for (what, keys) in rows {
        assert!(!what.is_empty() && !keys.is_empty());
    }
}

#[test]
fn all_lists_each_action_once() {
    let distinct: HashSet<Action> = Action::ALL.into_iter().collect();
    assert_eq!(distinct.len(), Action::ALL.len());
}
