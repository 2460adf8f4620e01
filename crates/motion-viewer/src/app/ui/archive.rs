//! The side panel's entry list of an ODA archive opened whole: a search
//! field, then one row per matching entry; a motion's row plays it.

use crate::session::archive::{ArchiveList, row_text};

/// Rows shown before the list scrolls.
const VISIBLE_ROWS: f32 = 12.0;

/// Lays out the list of archive `index`; returns the motion entry clicked,
/// if one other than the entry playing was.
pub fn entries(ui: &mut egui::Ui, list: &mut ArchiveList, index: usize) -> Option<usize> {
    let mut picked = None;
    ui.add(
        egui::TextEdit::singleline(&mut list.query)
            .hint_text("search entries")
            .desired_width(f32::INFINITY),
    );
    let shown = list.matching();
    ui.label(format!(
        "{} of {} entries",
        shown.len(),
        list.entries().len()
    ));
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
    egui::ScrollArea::vertical()
        .id_salt(("archive entries", index))
        .max_height(row_height * VISIBLE_ROWS)
        .show_rows(ui, row_height, shown.len(), |ui, rows| {
            // One line a row: the scroll area counts rows of one line.
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
            for &i in &shown[rows] {
                let e = &list.entries()[i];
                let text = row_text(e);
                let row = if e.mtn.is_some() {
                    ui.selectable_label(i == list.playing(), text)
                } else {
                    ui.add_enabled(false, egui::Button::selectable(false, text))
                };
                if row.clicked() {
                    picked = Some(i);
                }
            }
        });
    picked.filter(|&i| i != list.playing())
}
