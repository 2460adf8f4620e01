//! The keyboard bindings: one table that both the key handler and the help
//! overlay read, so the two can never disagree.

use winit::keyboard::{Key, ModifiersState, NamedKey};

/// Everything the keyboard can ask the viewer to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Play if paused, pause if playing.
    TogglePlay,
    /// One frame back (paused: step; playing: nudge).
    StepBack,
    /// One frame forward (paused: step; playing: nudge).
    StepForward,
    /// Ten frames back.
    StepBack10,
    /// Ten frames forward.
    StepForward10,
    /// Jump to the previous keyframe of the focused track (of every shown track without a focus).
    PrevKeyframe,
    /// Jump to the next keyframe of the focused track (of every shown track without a focus).
    NextKeyframe,
    /// Jump to the start of the timeline.
    JumpStart,
    /// Jump to the end of the timeline.
    JumpEnd,
    /// Double the playback speed.
    SpeedUp,
    /// Halve the playback speed.
    SlowDown,
    /// Flip the playback direction.
    Reverse,
    /// Cycle the loop mode: once → loop → ping-pong.
    CycleLoop,
    /// Forget the loop range set on the timeline bar.
    ClearLoopRange,
    /// Focus the previous track and frame the camera on it.
    FocusPrevTrack,
    /// Focus the next track and frame the camera on it.
    FocusNextTrack,
    /// Show or hide the focused track.
    ToggleTrackVisible,
    /// Show the focused track alone, or every track again.
    ToggleSolo,
    /// Fit the camera to everything in the scene (and drop the focus).
    FrameAll,
    /// Put the camera back where it started.
    ResetCamera,
    /// Look from the front.
    ViewFront,
    /// Look from the side.
    ViewSide,
    /// Look from the top.
    ViewTop,
    /// Switch between the fit and true-scale layouts.
    ToggleLayout,
    /// Draw meshes as wireframes, or filled.
    ToggleWireframe,
    /// Show or hide the ground grid.
    ToggleGrid,
    /// Show or hide the side panel.
    TogglePanel,
    /// Show or hide the curves panel (channels over time).
    ToggleCurves,
    /// Overlay track B's same-named channels and the difference A−B on the curves.
    ToggleCompare,
    /// The simulated dog of each AIBO track: off → beside → ghost (will it fall?).
    ToggleSimulation,
    /// Save a PNG of the 3D view.
    Screenshot,
    /// Save a PNG of the window as shown, panels included.
    ScreenshotWithOverlay,
    /// Save the tracks as shown (edits and layout included) as one glTF scene.
    ExportGltf,
    /// Show or hide the list of bindings.
    ToggleHelp,
    /// Close the window.
    Quit,
    /// Type the selected keyframe's joint values (Tab: the next one).
    EditValue,
    /// Insert a keyframe at the playhead (the pose there).
    InsertKey,
    /// Delete the selected keyframe.
    DeleteKey,
    /// Copy the selected keyframe's pose.
    CopyPose,
    /// Paste the copied pose onto the selected keyframe.
    PastePose,
    /// Mirror the selected keyframe left ↔ right.
    MirrorKey,
    /// Undo the last edit.
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// Save the edited motion (`NAME-edited.mtn`; a page downloads it).
    SaveMotion,
}

impl Action {
    /// Every action, in the order the help overlay lists them.
    pub const ALL: [Action; 44] = [
        Action::TogglePlay,
        Action::StepBack,
        Action::StepForward,
        Action::StepBack10,
        Action::StepForward10,
        Action::PrevKeyframe,
        Action::NextKeyframe,
        Action::JumpStart,
        Action::JumpEnd,
        Action::SpeedUp,
        Action::SlowDown,
        Action::Reverse,
        Action::CycleLoop,
        Action::ClearLoopRange,
        Action::FocusPrevTrack,
        Action::FocusNextTrack,
        Action::ToggleTrackVisible,
        Action::ToggleSolo,
        Action::FrameAll,
        Action::ResetCamera,
        Action::ViewFront,
        Action::ViewSide,
        Action::ViewTop,
        Action::ToggleLayout,
        Action::ToggleWireframe,
        Action::ToggleGrid,
        Action::TogglePanel,
        Action::ToggleCurves,
        Action::ToggleCompare,
        Action::ToggleSimulation,
        Action::Screenshot,
        Action::ScreenshotWithOverlay,
        Action::ExportGltf,
        Action::ToggleHelp,
        Action::Quit,
        Action::EditValue,
        Action::InsertKey,
        Action::DeleteKey,
        Action::CopyPose,
        Action::PastePose,
        Action::MirrorKey,
        Action::Undo,
        Action::Redo,
        Action::SaveMotion,
    ];

    /// What the action does, as the help overlay says it.
    pub(crate) fn description(self) -> &'static str {
        match self {
            Action::TogglePlay => "play / pause",
            Action::StepBack => "one frame back",
            Action::StepForward => "one frame forward",
            Action::StepBack10 => "ten frames back",
            Action::StepForward10 => "ten frames forward",
            Action::PrevKeyframe => "previous keyframe (focused track)",
            Action::NextKeyframe => "next keyframe (focused track)",
            Action::JumpStart => "jump to start",
            Action::JumpEnd => "jump to end",
            Action::SpeedUp => "double speed",
            Action::SlowDown => "halve speed",
            Action::Reverse => "reverse direction",
            Action::CycleLoop => "cycle loop mode",
            Action::ClearLoopRange => "clear the loop range",
            Action::FocusPrevTrack => "focus previous track",
            Action::FocusNextTrack => "focus next track",
            Action::ToggleTrackVisible => "show / hide focused track",
            Action::ToggleSolo => "solo focused track",
            Action::FrameAll => "frame all",
            Action::ResetCamera => "reset camera",
            Action::ViewFront => "front view",
            Action::ViewSide => "side view",
            Action::ViewTop => "top view",
            Action::ToggleLayout => "layout fit / true scale",
            Action::ToggleWireframe => "wireframe on / off",
            Action::ToggleGrid => "grid on / off",
            Action::TogglePanel => "side panel on / off",
            Action::ToggleCurves => "curves panel on / off",
            Action::ToggleCompare => "compare A/B on the curves",
            Action::ToggleSimulation => "simulated dog: off / beside / ghost",
            Action::Screenshot => "save screenshot (PNG)",
            Action::ScreenshotWithOverlay => "save screenshot with panels",
            Action::ExportGltf => "save the scene as glTF (.glb)",
            Action::ToggleHelp => "this help",
            Action::Quit => "quit",
            Action::EditValue => "edit: type the selected keyframe's values",
            Action::InsertKey => "edit: insert a keyframe at the playhead",
            Action::DeleteKey => "edit: delete the selected keyframe",
            Action::CopyPose => "edit: copy the keyframe's pose",
            Action::PastePose => "edit: paste the pose onto the keyframe",
            Action::MirrorKey => "edit: mirror the keyframe left / right",
            Action::Undo => "edit: undo",
            Action::Redo => "edit: redo",
            Action::SaveMotion => "edit: save the motion (.mtn)",
        }
    }
}

/// A key as the binding table names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyName {
    /// A named key such as an arrow or F12.
    Named(NamedKey),
    /// A key that types this character (lower case for letters). Matching
    /// ignores Shift, because on many layouts `+` itself needs Shift.
    Char(&'static str),
}

/// One row of the table: a key, the modifiers it needs, and the action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    /// The key.
    pub key: KeyName,
    /// True when the binding needs Shift (only meaningful for named keys
    /// and Ctrl+letter bindings).
    pub shift: bool,
    /// True when the binding needs Ctrl (Cmd on macOS is not Ctrl).
    pub ctrl: bool,
    /// What the key does.
    pub action: Action,
}

const fn named(key: NamedKey, shift: bool, action: Action) -> Binding {
    Binding {
        key: KeyName::Named(key),
        shift,
        ctrl: false,
        action,
    }
}

const fn ctrl(key: NamedKey, action: Action) -> Binding {
    Binding {
        key: KeyName::Named(key),
        shift: false,
        ctrl: true,
        action,
    }
}

const fn chr(c: &'static str, action: Action) -> Binding {
    Binding {
        key: KeyName::Char(c),
        shift: false,
        ctrl: false,
        action,
    }
}

const fn ctrl_chr(c: &'static str, shift: bool, action: Action) -> Binding {
    Binding {
        key: KeyName::Char(c),
        shift,
        ctrl: true,
        action,
    }
}

/// The bindings. An action may have several keys; a key (with its Shift and
/// Ctrl state) has at most one action.
pub const BINDINGS: &[Binding] = &[
    named(NamedKey::Space, false, Action::TogglePlay),
    named(NamedKey::ArrowLeft, false, Action::StepBack),
    named(NamedKey::ArrowRight, false, Action::StepForward),
    named(NamedKey::ArrowLeft, true, Action::StepBack10),
    named(NamedKey::ArrowRight, true, Action::StepForward10),
    chr(",", Action::PrevKeyframe),
    chr(".", Action::NextKeyframe),
    ctrl(NamedKey::ArrowLeft, Action::PrevKeyframe),
    ctrl(NamedKey::ArrowRight, Action::NextKeyframe),
    named(NamedKey::Home, false, Action::JumpStart),
    named(NamedKey::End, false, Action::JumpEnd),
    named(NamedKey::ArrowUp, false, Action::SpeedUp),
    chr("+", Action::SpeedUp),
    // `=` is `+` without Shift on US layouts; f3d and Blender users press it.
    chr("=", Action::SpeedUp),
    named(NamedKey::ArrowDown, false, Action::SlowDown),
    chr("-", Action::SlowDown),
    named(NamedKey::Backspace, false, Action::Reverse),
    chr("l", Action::CycleLoop),
    named(NamedKey::Escape, false, Action::ClearLoopRange),
    chr("[", Action::FocusPrevTrack),
    chr("]", Action::FocusNextTrack),
    chr("v", Action::ToggleTrackVisible),
    chr("s", Action::ToggleSolo),
    chr("f", Action::FrameAll),
    chr("r", Action::ResetCamera),
    chr("1", Action::ViewFront),
    chr("3", Action::ViewSide),
    chr("7", Action::ViewTop),
    chr("t", Action::ToggleLayout),
    chr("w", Action::ToggleWireframe),
    chr("g", Action::ToggleGrid),
    chr("p", Action::TogglePanel),
    chr("c", Action::ToggleCurves),
    chr("b", Action::ToggleCompare),
    chr("x", Action::ToggleSimulation),
    named(NamedKey::F12, false, Action::Screenshot),
    named(NamedKey::F12, true, Action::ScreenshotWithOverlay),
    chr("e", Action::ExportGltf),
    chr("h", Action::ToggleHelp),
    chr("q", Action::Quit),
    named(NamedKey::Enter, false, Action::EditValue),
    chr("i", Action::InsertKey),
    named(NamedKey::Delete, false, Action::DeleteKey),
    ctrl_chr("c", false, Action::CopyPose),
    ctrl_chr("v", false, Action::PastePose),
    chr("m", Action::MirrorKey),
    ctrl_chr("z", false, Action::Undo),
    ctrl_chr("z", true, Action::Redo),
    ctrl_chr("y", false, Action::Redo),
    ctrl_chr("s", false, Action::SaveMotion),
];

/// The action bound to a pressed key, if any. Keys with Alt or Super held,
/// and Ctrl with keys the table does not bind with Ctrl, are left alone so
/// that system shortcuts keep working.
pub fn lookup(key: &Key, mods: ModifiersState) -> Option<Action> {
    if mods.alt_key() || mods.super_key() {
        return None;
    }
    let (shift, control) = (mods.shift_key(), mods.control_key());
    BINDINGS.iter().find_map(|b| {
        let hit = b.ctrl == control
            && match (b.key, key) {
                (KeyName::Named(want), Key::Named(got)) => want == *got && b.shift == shift,
                // Shift is ignored for plain characters but tells
                // Ctrl+Shift+Z (redo) from Ctrl+Z (undo).
                (KeyName::Char(want), Key::Character(got)) => {
                    got.eq_ignore_ascii_case(want) && (!b.ctrl || b.shift == shift)
                }
                _ => false,
            };
        hit.then_some(b.action)
    })
}

/// How the help overlay writes a binding's key, e.g. `Shift+→`.
pub(crate) fn key_label(binding: &Binding) -> String {
    let key = match binding.key {
        KeyName::Named(k) => match k {
            NamedKey::Space => "Space".to_string(),
            NamedKey::ArrowLeft => "←".to_string(),
            NamedKey::ArrowRight => "→".to_string(),
            NamedKey::ArrowUp => "↑".to_string(),
            NamedKey::ArrowDown => "↓".to_string(),
            NamedKey::Escape => "Esc".to_string(),
            other => format!("{other:?}"),
        },
        KeyName::Char(c) => c.to_uppercase(),
    };
    match (binding.ctrl, binding.shift) {
        (true, true) => format!("Ctrl+Shift+{key}"),
        (true, false) => format!("Ctrl+{key}"),
        (false, true) => format!("Shift+{key}"),
        (false, false) => key,
    }
}

/// Each action with all its keys joined, e.g. `("double speed", "↑  +  =")`,
/// in [`Action::ALL`] order: the rows of the help overlay.
pub fn help_rows() -> Vec<(&'static str, String)> {
    Action::ALL
        .iter()
        .map(|&action| {
            let keys: Vec<String> = BINDINGS
                .iter()
                .filter(|b| b.action == action)
                .map(key_label)
                .collect();
            (action.description(), keys.join("  "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_arrow_steps_ten() {
        let right = Key::Named(NamedKey::ArrowRight);
        assert_eq!(
            lookup(&right, ModifiersState::empty()),
            Some(Action::StepForward)
        );
        assert_eq!(
            lookup(&right, ModifiersState::SHIFT),
            Some(Action::StepForward10)
        );
        assert_eq!(
            lookup(&right, ModifiersState::CONTROL),
            Some(Action::NextKeyframe)
        );
        assert_eq!(lookup(&right, ModifiersState::ALT), None);
        let q = Key::Character("q".into());
        assert_eq!(lookup(&q, ModifiersState::CONTROL), None);
    }

    #[test]
    fn letters_match_either_case() {
        let upper = Key::Character("L".into());
        assert_eq!(
            lookup(&upper, ModifiersState::SHIFT),
            Some(Action::CycleLoop)
        );
        let plus = Key::Character("+".into());
        assert_eq!(lookup(&plus, ModifiersState::SHIFT), Some(Action::SpeedUp));
    }

    #[test]
    fn ctrl_shift_z_redoes_and_ctrl_z_undoes() {
        let z = Key::Character("z".into());
        assert_eq!(lookup(&z, ModifiersState::CONTROL), Some(Action::Undo));
        let shifted = ModifiersState::CONTROL | ModifiersState::SHIFT;
        assert_eq!(
            lookup(&Key::Character("Z".into()), shifted),
            Some(Action::Redo)
        );
        assert_eq!(
            lookup(&Key::Character("y".into()), ModifiersState::CONTROL),
            Some(Action::Redo)
        );
        // Plain S still solos; Ctrl+S saves.
        let s = Key::Character("s".into());
        assert_eq!(
            lookup(&s, ModifiersState::empty()),
            Some(Action::ToggleSolo)
        );
        assert_eq!(
            lookup(&s, ModifiersState::CONTROL),
            Some(Action::SaveMotion)
        );
        assert!(help_rows().contains(&("edit: redo", "Ctrl+Shift+Z  Ctrl+Y".to_string())));
    }

    #[test]
    fn help_lists_shift_and_arrows() {
        let rows = help_rows();
        assert_eq!(rows.len(), Action::ALL.len());
        assert!(rows.contains(&("ten frames forward", "Shift+→".to_string())));
    }
}
