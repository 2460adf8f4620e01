//! Editing the AIBO motion of the edited track ([`ViewerState::edit_track`]):
//! the side panel's Edit section (the selected keyframe, its buttons, each
//! joint's value as a field to drag or type into, the file to save as, the
//! last message), the edit keys of the binding table, the curves panel's
//! actions ([`apply_curve_action`]) and the two questions a save or a quit
//! may ask (overwrite the original; unsaved edits).
//!
//! The edits themselves are [`crate::workbench::Editor`]'s, through the
//! session ([`crate::session::edit`]); saving goes through the window's
//! editing part (`app::editing`), which has the [`crate::app::Host`].

use super::{Command, CurveAction};
use crate::anim::aibo::joint_label;
use crate::app::keys::Action;
use crate::session::edit::SaveRequest;
use crate::session::viewer::ViewerState;
use crate::workbench::Editor;
use egui::{Key, RichText};
use std::path::{Path, PathBuf};

/// What the edit section keeps between frames.
#[derive(Debug, Clone, Default)]
pub struct EditUi {
    /// Put the keyboard in the first value field on the next frame (Enter).
    focus_value: bool,
    /// Select the focused field's text once it shows as text, so that
    /// what is typed replaces it.
    select_value: bool,
    /// The first value field has the keyboard, its text selected: what is
    /// typed next replaces it (this frame; for scripts and tests).
    ready_to_type: bool,
    /// The file name to save as, and the original it is for (a new track
    /// starts from its suggested name).
    save_as: Option<(PathBuf, String)>,
    /// A save over the original waits for the user's yes.
    confirm_overwrite: bool,
    /// Quitting with unsaved edits waits for Save, Discard or Cancel.
    confirm_quit: bool,
}

impl EditUi {
    /// True while a question is asked: the window's keys wait.
    pub fn asking(&self) -> bool {
        self.confirm_overwrite || self.confirm_quit
    }

    /// True while the first value field has the keyboard with its text
    /// selected, so that what is typed replaces it (Enter put it there).
    pub(crate) fn ready_to_type(&self) -> bool {
        self.ready_to_type
    }

    /// Asks whether to save the unsaved edits before quitting.
    pub(crate) fn ask_quit(&mut self) {
        self.confirm_quit = true;
    }

    /// Asks whether to write over the original.
    pub(crate) fn ask_overwrite(&mut self) {
        self.confirm_overwrite = true;
    }

    /// Where `request` is saved: the name typed in the section, in the
    /// suggested file's folder.
    pub fn target(&self, request: &SaveRequest) -> PathBuf {
        let dir = request.suggested.parent().unwrap_or(Path::new(""));
        match &self.save_as {
            Some((original, name)) if *original == request.original && !name.trim().is_empty() => {
                dir.join(name.trim())
            }
            _ => request.suggested.clone(),
        }
    }
}

/// True when saving to `target` would write over the file `request` came
/// from (for an archive entry, the archive).
pub(crate) fn is_original(target: &Path, request: &SaveRequest) -> bool {
    target == crate::open::archive::disk_file(&request.original)
}

/// An edit key pressed. Returns true for Save, which the window carries out.
pub fn key(state: &mut ViewerState, edit: &mut EditUi, action: Action) -> bool {
    let Some(i) = state.edit_track() else {
        return false;
    };
    match action {
        Action::EditValue => edit.focus_value = true,
        Action::InsertKey => {
            let t = state.timeline.time_s();
            let result = state.edit(i, |e| e.insert_key(t));
            state.report_edit("keyframe inserted", result);
        }
        Action::DeleteKey => state.edit_selected("keyframe deleted", Editor::delete_key),
        Action::CopyPose => state.edit_selected("pose copied", |e, k| {
            e.copy_pose(k)?;
            Ok(crate::workbench::Applied::default())
        }),
        Action::PastePose => state.edit_selected("pose pasted", Editor::paste_pose),
        Action::MirrorKey => state.edit_selected("keyframe mirrored", Editor::mirror_key),
        Action::Undo => {
            let done = state.undo_edit(i);
            state.set_edit_message(Some(if done { "undone" } else { "nothing to undo" }.into()));
        }
        Action::Redo => {
            let done = state.redo_edit(i);
            state.set_edit_message(Some(if done { "redone" } else { "nothing to redo" }.into()));
        }
        Action::SaveMotion => return true,
        _ => {}
    }
    false
}

/// Applies what the curves panel asks: a click selects the keyframe; a
/// drag moves it in time and value, the whole drag one undo step.
pub fn apply_curve_action(state: &mut ViewerState, action: &CurveAction) {
    match action {
        CurveAction::SelectKey { track, key } => state.select_key(*track, Some(*key)),
        CurveAction::DragKey {
            track,
            key,
            channel,
            time_s,
            value,
            finished,
        } => {
            let (key, t, v) = (*key, *time_s, *value);
            let result = state.edit(*track, |e| {
                if !e.in_gesture() {
                    e.begin_gesture();
                }
                let set = e.set_value(key, channel, v);
                // Keyframe 0 stays at 0 s: a drag of it changes the value only.
                let moved = match key {
                    0 => Ok(crate::workbench::Applied::default()),
                    _ => e.move_key(key, t),
                };
                if *finished {
                    e.end_gesture();
                }
                let (set, moved) = (set?, moved?);
                Ok(crate::workbench::Applied {
                    key: Some(key),
                    message: set.message.or(moved.message),
                })
            });
            if result.as_ref().is_err() || result.as_ref().is_ok_and(|a| a.message.is_some()) {
                state.report_edit("keyframe dragged", result);
            }
        }
    }
}

/// The Edit section of the side panel. Returns true when Save was pressed.
pub fn section(ui: &mut egui::Ui, state: &mut ViewerState, edit: &mut EditUi) -> bool {
    // Set again below while the field is drawn with the keyboard.
    edit.ready_to_type = false;
    let Some(i) = state.edit_track() else {
        ui.label(RichText::new("Focus an AIBO track to edit it.").small());
        return false;
    };
    let Some(editor) = state.editor(i) else {
        return false;
    };
    let times = editor.keyframe_times_s();
    let selected = editor.selected();
    let depths = (editor.undo_depth(), editor.redo_depth());
    let rows = selected.map(|k| values(editor, k)).unwrap_or_default();
    let name = state.tracks()[i].name();
    let unsaved = editor.is_unsaved();

    let mut pick = None;
    ui.horizontal(|ui| {
        let label = format!("{name}{}", if unsaved { " *" } else { "" });
        ui.label(RichText::new(label).strong());
    });
    ui.horizontal(|ui| {
        let last = times.len().saturating_sub(1);
        if ui
            .small_button("<")
            .on_hover_text("previous keyframe (,)")
            .clicked()
        {
            pick = Some(selected.map_or(0, |k| k.saturating_sub(1)));
        }
        ui.label(match selected {
            Some(k) => format!("keyframe {k} of {} at {:.3} s", times.len(), times[k]),
            None => "no keyframe selected".to_string(),
        });
        if ui
            .small_button(">")
            .on_hover_text("next keyframe (.)")
            .clicked()
        {
            pick = Some(selected.map_or(0, |k| (k + 1).min(last)));
        }
    });
    if let Some(k) = pick {
        state.select_key(i, Some(k));
        state.timeline.seek(times[k]);
    }

    let mut action = None;
    ui.horizontal_wrapped(|ui| {
        let buttons = [
            (
                "Insert",
                "insert a keyframe at the playhead (I)",
                Action::InsertKey,
            ),
            ("Delete", "delete the keyframe (Delete)", Action::DeleteKey),
            ("Copy", "copy its pose (Ctrl+C)", Action::CopyPose),
            (
                "Paste",
                "paste the pose onto it (Ctrl+V)",
                Action::PastePose,
            ),
            ("Mirror", "mirror it left / right (M)", Action::MirrorKey),
            ("Undo", "Ctrl+Z", Action::Undo),
            ("Redo", "Ctrl+Shift+Z, Ctrl+Y", Action::Redo),
        ];
        for (label, hint, a) in buttons {
            if ui.button(label).on_hover_text(hint).clicked() {
                action = Some(a);
            }
        }
    });
    if let Some(a) = action {
        key(state, edit, a);
    }
    ui.label(RichText::new(format!("undo {} · redo {}", depths.0, depths.1)).small());

    let save = save_row(ui, state, edit, i);
    // Always a line, so that a new message moves nothing under it.
    ui.label(RichText::new(state.edit_message().unwrap_or(" ")).small());
    if let Some(k) = selected {
        value_fields(ui, state, edit, i, k, rows);
    } else {
        ui.label(
            RichText::new("Select a keyframe: , and . jump to one; so does a click on its tick.")
                .small(),
        );
    }
    save
}

/// The file name to save as and the Save button; true when it was pressed.
fn save_row(ui: &mut egui::Ui, state: &ViewerState, edit: &mut EditUi, i: usize) -> bool {
    let Some(request) = state.save_request(i) else {
        return false;
    };
    let fresh = || {
        let name = request.suggested.file_name().unwrap_or_default();
        (
            request.original.clone(),
            name.to_string_lossy().into_owned(),
        )
    };
    if edit
        .save_as
        .as_ref()
        .is_none_or(|(o, _)| *o != request.original)
    {
        edit.save_as = Some(fresh());
    }
    let mut pressed = false;
    ui.horizontal(|ui| {
        if ui
            .button("Save")
            .on_hover_text("save as this file (Ctrl+S)")
            .clicked()
        {
            pressed = true;
        }
        if let Some((_, name)) = &mut edit.save_as {
            ui.add(egui::TextEdit::singleline(name).desired_width(f32::INFINITY));
        }
    });
    pressed
}

/// Each channel's value at keyframe `k`: the joints in file order, then
/// the body's attitude; (channel, label, degrees).
fn values(editor: &Editor, k: usize) -> Vec<(String, String, f64)> {
    let m = editor.motion();
    let joints = m
        .joint_roles()
        .into_iter()
        .zip(m.joint_names())
        .map(|(role, prm)| {
            let label = role.map_or_else(|| prm.to_string(), joint_label);
            (prm.to_string(), label)
        });
    let body = [
        ("roll_deg", "body roll"),
        ("pitch_deg", "body pitch"),
        ("yaw_deg", "body yaw"),
    ]
    .into_iter()
    .map(|(c, l)| (c.to_string(), l.to_string()));
    joints
        .chain(body)
        .filter_map(|(channel, label)| {
            let v = editor.value_deg(k, &channel)?;
            Some((channel, label, v))
        })
        .collect()
}

/// Selects all the text of the field `id`, so that what is typed replaces it.
fn select_all(ui: &egui::Ui, id: egui::Id) {
    let mut text = egui::TextEdit::load_state(ui.ctx(), id).unwrap_or_default();
    let all = egui::text::CCursorRange::two(
        egui::text::CCursor::new(0),
        egui::text::CCursor::new(usize::MAX / 2),
    );
    text.cursor.set_char_range(Some(all));
    text.store(ui.ctx(), id);
}

/// A field per channel: drag it, or type a value (Enter puts the keyboard
/// in the first; Tab goes to the next).
fn value_fields(
    ui: &mut egui::Ui,
    state: &mut ViewerState,
    edit: &mut EditUi,
    i: usize,
    k: usize,
    rows: Vec<(String, String, f64)>,
) {
    ui.label(RichText::new("degrees (drag, or type and press Enter)").small());
    egui::Grid::new("edit values")
        .num_columns(2)
        .show(ui, |ui| {
            for (n, (channel, label, value)) in rows.into_iter().enumerate() {
                ui.label(RichText::new(label).monospace());
                let mut v = value;
                let response = ui.add(
                    egui::DragValue::new(&mut v)
                        .speed(0.1)
                        .max_decimals(3)
                        // A typed value is one edit, made on Enter.
                        .update_while_editing(false),
                );
                if n == 0 && std::mem::take(&mut edit.focus_value) {
                    // The focus moves at the start of the next frame: draw
                    // it now, or the next key would reach the window instead.
                    response.request_focus();
                    response.scroll_to_me(None);
                    ui.ctx().request_repaint();
                    edit.select_value = true;
                } else if n == 0
                    && edit.select_value
                    // Not `response.has_focus()`: that also asks for the
                    // window's focus, which a page does not always report.
                    && ui.memory(|m| m.has_focus(response.id))
                {
                    // egui selects a field's text when it is clicked, not
                    // reliably when it is given the keyboard: select it
                    // here, every frame until the first key reaches it.
                    let typed = ui.input(|i| {
                        i.events.iter().any(|e| {
                            matches!(
                                e,
                                egui::Event::Text(_)
                                    | egui::Event::Key { pressed: true, .. }
                                    | egui::Event::PointerButton { pressed: true, .. }
                            )
                        })
                    });
                    if typed {
                        edit.select_value = false;
                    } else {
                        select_all(ui, response.id);
                        edit.ready_to_type = true;
                    }
                }
                if response.drag_started() {
                    let _ = state.edit(i, |e| {
                        e.begin_gesture();
                        Ok(())
                    });
                }
                if response.changed() {
                    let result = state.edit(i, |e| e.set_value(k, &channel, v));
                    state.report_edit("value set", result);
                }
                if response.drag_stopped() {
                    let _ = state.edit(i, |e| {
                        e.end_gesture();
                        Ok(())
                    });
                }
                ui.end_row();
            }
        });
}

/// The questions a save or a quit asks, as modal dialogs (Enter: the
/// first answer; Esc: cancel). Returns what the window should do.
pub fn dialogs(ctx: &egui::Context, state: &ViewerState, edit: &mut EditUi) -> Option<Command> {
    let mut command = None;
    if edit.confirm_quit {
        let names: Vec<String> = state
            .tracks()
            .iter()
            .filter(|e| e.editor.as_ref().is_some_and(|ed| ed.is_unsaved()))
            .map(|e| e.name())
            .collect();
        egui::Modal::new(egui::Id::unique("unsaved edits")).show(ctx, |ui| {
            ui.heading("Unsaved edits");
            ui.label(format!("{} has edits not saved yet.", names.join(", ")));
            ui.horizontal(|ui| {
                let (enter, d, esc) = ctx.input(|i| {
                    (
                        i.key_pressed(Key::Enter),
                        i.key_pressed(Key::D),
                        i.key_pressed(Key::Escape),
                    )
                });
                if ui.button("Save (Enter)").clicked() || enter {
                    command = Some(Command::Quit { save: true });
                } else if ui.button("Discard (D)").clicked() || d {
                    command = Some(Command::Quit { save: false });
                } else if ui.button("Cancel (Esc)").clicked() || esc {
                    edit.confirm_quit = false;
                }
            });
        });
        if command.is_some() {
            edit.confirm_quit = false;
        }
    } else if edit.confirm_overwrite {
        let original = state
            .edit_track()
            .and_then(|i| state.save_request(i))
            .map(|r| r.original.display().to_string())
            .unwrap_or_default();
        egui::Modal::new(egui::Id::unique("overwrite original")).show(ctx, |ui| {
            ui.heading("Write over the original?");
            ui.label(format!("{original} will be replaced by the edited motion."));
            ui.horizontal(|ui| {
                let (enter, esc) =
                    ctx.input(|i| (i.key_pressed(Key::Enter), i.key_pressed(Key::Escape)));
                if ui.button("Overwrite (Enter)").clicked() || enter {
                    command = Some(Command::SaveMotion { overwrite: true });
                    edit.confirm_overwrite = false;
                } else if ui.button("Cancel (Esc)").clicked() || esc {
                    edit.confirm_overwrite = false;
                }
            });
        });
    }
    command
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::timeline::Timeline;
    use crate::open::{DiskMaterials, Input};

    const LF_J1: &str = "PRM:/r2/c1-Joint2:j1";

    fn sony() -> ViewerState {
        let bytes = include_bytes!("../../../../../data/sony_stand_sit.mtn");
        let mut state =
            ViewerState::new(Timeline::new(0.0, 1.0 / 60.0).with_paused(true), 0.0, None);
        state
            .open(
                &[Input::from_bytes("m.mtn", bytes.to_vec())],
                &DiskMaterials,
            )
            .unwrap();
        state
    }

    #[test]
    fn a_drag_on_a_curve_is_one_undo_step() {
        let mut state = sony();
        let editor = |s: &ViewerState| s.editor(0).unwrap().clone();
        apply_curve_action(&mut state, &CurveAction::SelectKey { track: 0, key: 3 });
        assert_eq!(editor(&state).selected(), Some(3));
        let t3 = editor(&state).keyframe_times_s()[3];
        for (step, finished) in [(1.0, false), (2.0, false), (3.0, true)] {
            let drag = CurveAction::DragKey {
                track: 0,
                key: 3,
                channel: LF_J1.into(),
                time_s: t3 + step * 0.016,
                value: 5.0 * step,
                finished,
            };
            apply_curve_action(&mut state, &drag);
        }
        let e = editor(&state);
        assert_eq!((e.undo_depth(), e.in_gesture()), (1, false));
        assert!((e.value_deg(3, LF_J1).unwrap() - 15.0).abs() < 1e-4);
        assert!((e.keyframe_times_s()[3] - (t3 + 0.048)).abs() < 1e-9);
        // The track shows the edit: its keyframe tick moved.
        assert!((state.tracks()[0].keyframes[3] - (t3 + 0.048)).abs() < 1e-9);
        assert!(state.undo_edit(0));
        assert!(!editor(&state).is_dirty());
        // A drag past the limit says so.
        let drag = CurveAction::DragKey {
            track: 0,
            key: 3,
            channel: LF_J1.into(),
            time_s: t3,
            value: 500.0,
            finished: true,
        };
        apply_curve_action(&mut state, &drag);
        assert!(state.edit_message().unwrap().contains("limit"));
    }

    #[test]
    fn edit_keys_act_on_the_selected_keyframe() {
        let mut state = sony();
        let mut ui = EditUi::default();
        // Nothing selected and the playhead between keyframes: a message.
        state.timeline.seek(0.5);
        key(&mut state, &mut ui, Action::MirrorKey);
        assert!(state.edit_message().unwrap().contains("select a keyframe"));
        // Insert at the playhead selects the new keyframe; delete removes it.
        key(&mut state, &mut ui, Action::InsertKey);
        assert_eq!(state.editor(0).unwrap().motion().keyframes.len(), 7);
        assert_eq!(state.editor(0).unwrap().selected(), Some(1));
        key(&mut state, &mut ui, Action::DeleteKey);
        assert_eq!(state.editor(0).unwrap().motion().keyframes.len(), 6);
        key(&mut state, &mut ui, Action::Undo);
        assert_eq!(state.editor(0).unwrap().motion().keyframes.len(), 7);
        key(&mut state, &mut ui, Action::Redo);
        key(&mut state, &mut ui, Action::Undo);
        key(&mut state, &mut ui, Action::Undo);
        assert!(!state.has_unsaved_edits());
        assert!(
            key(&mut state, &mut ui, Action::SaveMotion),
            "the window saves"
        );
        // Copy keyframe 0, paste onto 5.
        state.select_key(0, Some(0));
        key(&mut state, &mut ui, Action::CopyPose);
        state.select_key(0, Some(5));
        key(&mut state, &mut ui, Action::PastePose);
        let m = state.editor(0).unwrap().motion();
        assert_eq!(m.keyframes[5].joints, m.keyframes[0].joints);
    }

    #[test]
    fn the_save_target_follows_the_name_typed() {
        let state = sony();
        let request = state.save_request(0).unwrap();
        let mut ui = EditUi::default();
        assert_eq!(ui.target(&request), Path::new("m-edited.mtn"));
        ui.save_as = Some((request.original.clone(), "m.mtn".into()));
        assert!(is_original(&ui.target(&request), &request));
        ui.save_as = Some((request.original.clone(), " other.mtn ".into()));
        assert_eq!(ui.target(&request), Path::new("other.mtn"));
    }
}
