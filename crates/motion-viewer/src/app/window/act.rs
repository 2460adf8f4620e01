//! What each bound action does (keys, a page's buttons): handed to the
//! part it concerns, or applied to the session's clock and tracks here.

use super::App;
use crate::app::host::Host;
use crate::app::keys::Action;
use crate::app::saving;
use crate::session::viewer::ViewerState;

impl<H: Host> App<H> {
    /// Applies one bound action, in the part it concerns. Returns false
    /// for Quit when the window may close (without unsaved edits).
    pub(super) fn act(&mut self, action: Action) -> bool {
        match action {
            Action::Quit => return !self.editing.may_close(&self.state),
            Action::Screenshot => self.saving.ask_screenshot(false),
            Action::ScreenshotWithOverlay => self.saving.ask_screenshot(true),
            Action::ExportGltf => saving::export_gltf(&mut self.host, &self.state),
            Action::ToggleSimulation => self.sim.toggle(&mut self.host, &self.state),
            Action::ToggleHelp => self.ui.show_help = !self.ui.show_help,
            Action::TogglePanel => self.ui.hide_panel = !self.ui.hide_panel,
            Action::ToggleCurves => self.ui.curves.open = !self.ui.curves.open,
            Action::ToggleCompare => self.ui.curves.toggle_compare(),
            Action::EditValue
            | Action::InsertKey
            | Action::DeleteKey
            | Action::CopyPose
            | Action::PastePose
            | Action::MirrorKey
            | Action::Undo
            | Action::Redo
            | Action::SaveMotion => self.editing.key(&mut self.host, &mut self.state, action),
            Action::ResetCamera
            | Action::ViewFront
            | Action::ViewSide
            | Action::ViewTop
            | Action::ToggleWireframe
            | Action::ToggleGrid => {
                if let Some(view) = &mut self.view {
                    view.act(action);
                }
            }
            _ => self.reframe |= play(&mut self.state, action),
        }
        true
    }
}

/// Applies a playback or track action to `s`; returns true when the camera
/// should frame the tracks again (focus moved, layout switched).
fn play(s: &mut ViewerState, action: Action) -> bool {
    match action {
        Action::TogglePlay => s.toggle_play(),
        Action::StepBack => s.timeline.step_frames(-1),
        Action::StepForward => s.timeline.step_frames(1),
        Action::StepBack10 => s.timeline.step_frames(-10),
        Action::StepForward10 => s.timeline.step_frames(10),
        Action::PrevKeyframe | Action::NextKeyframe => {
            s.jump_keyframe(action == Action::NextKeyframe);
            s.select_key_at_playhead();
        }
        Action::JumpStart => s.timeline.jump_to_start(),
        Action::JumpEnd => s.timeline.jump_to_end(),
        Action::SpeedUp => s.timeline.double_speed(),
        Action::SlowDown => s.timeline.halve_speed(),
        Action::Reverse => s.timeline.reverse(),
        Action::CycleLoop => {
            s.timeline.cycle_loop_mode();
        }
        Action::ClearLoopRange => s.clear_loop_range(),
        Action::FocusPrevTrack => s.cycle_focus(-1),
        Action::FocusNextTrack => s.cycle_focus(1),
        Action::ToggleTrackVisible => {
            if let Some(i) = s.focus() {
                s.toggle_visible(i);
            }
        }
        Action::ToggleSolo => {
            if let Some(i) = s.focus() {
                s.toggle_solo(i);
            }
        }
        // Every track's box over its whole motion: the framing stays good
        // while playing.
        Action::FrameAll => s.set_focus(None),
        Action::ToggleLayout => s.set_layout(s.layout().toggled()),
        _ => {}
    }
    // The actions above that change what the camera should frame.
    matches!(
        action,
        Action::FocusPrevTrack | Action::FocusNextTrack | Action::FrameAll | Action::ToggleLayout
    )
}
