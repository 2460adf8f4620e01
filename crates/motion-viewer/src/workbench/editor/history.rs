//! The editor's undo and redo stacks: whole keyframe vectors (a motion's
//! keyframes are small: Sony's longest has a few hundred), up to
//! [`UNDO_BUDGET_VALUES`] angles in all, the oldest steps dropped beyond.

use crate::formats::mtn::Keyframe;

/// The most angles the undo and redo stacks hold together (about 64 MiB);
/// beyond it the oldest undo steps are dropped.
pub const UNDO_BUDGET_VALUES: usize = 1 << 24;

/// One undo or redo step: the keyframes as they were and the selection then.
#[derive(Debug, Clone)]
pub(super) struct Step {
    pub keyframes: Vec<Keyframe>,
    pub selected: Option<usize>,
}

impl Step {
    /// The angles it holds, for the undo budget.
    fn values(&self) -> usize {
        self.keyframes.iter().map(|k| 3 + k.joints.len()).sum()
    }
}

/// The undo and redo stacks, and the gesture open, if any.
#[derive(Debug, Clone, Default)]
pub(super) struct History {
    undo: Vec<Step>,
    redo: Vec<Step>,
    /// While a gesture is open: whether its undo step is already pushed.
    gesture: Option<bool>,
}

impl History {
    /// An edit is made from `before`: one undo step, except within a gesture
    /// that already has its step; nothing is left to redo.
    pub fn record(&mut self, before: Step) {
        if self.gesture != Some(true) {
            self.undo.push(before);
            self.trim();
            if self.gesture.is_some() {
                self.gesture = Some(true);
            }
        }
        self.redo.clear();
    }

    /// The step to go back to, closing any gesture.
    pub(crate) fn take_undo(&mut self) -> Option<Step> {
        self.gesture = None;
        self.undo.pop()
    }

    /// The step to go forward to, closing any gesture.
    pub(crate) fn take_redo(&mut self) -> Option<Step> {
        self.gesture = None;
        self.redo.pop()
    }

    /// What an undo replaced, to redo.
    pub(crate) fn push_redo(&mut self, step: Step) {
        self.redo.push(step);
    }

    /// What a redo replaced, to undo (redo's stack kept).
    pub(crate) fn push_undo(&mut self, step: Step) {
        self.undo.push(step);
        self.trim();
    }

    pub fn begin_gesture(&mut self) {
        self.gesture = Some(false);
    }

    /// Closes the gesture; one that ends where it began (`now` equal to its
    /// step) leaves no step.
    pub fn end_gesture(&mut self, now: &[Keyframe]) {
        if self.gesture.take() == Some(true) && self.undo.last().is_some_and(|s| s.keyframes == now)
        {
            self.undo.pop();
        }
    }

    pub fn in_gesture(&self) -> bool {
        self.gesture.is_some()
    }

    pub fn undo_depth(&self) -> usize {
        self.undo.len()
    }

    pub fn redo_depth(&self) -> usize {
        self.redo.len()
    }

    /// Drops the oldest undo steps beyond [`UNDO_BUDGET_VALUES`] (the newest
    /// always kept).
    fn trim(&mut self) {
        let mut total: usize = self.undo.iter().chain(&self.redo).map(Step::values).sum();
        while total > UNDO_BUDGET_VALUES && self.undo.len() > 1 {
            total -= self.undo.remove(0).values();
        }
    }
}
