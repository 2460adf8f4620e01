//! The channel tree beside the plot: each track's channels grouped by
//! [`crate::curves::Channel::path`], a checkbox each, with a search field
//! that lists the matching channels flat. A channel shown carries its
//! colour and its value (under the cursor, else at the playhead).

use super::cache::{ChannelKey, SeriesCache};
use crate::curves::Channel;
use crate::session::viewer::ViewerState;
use egui::{Color32, RichText};

/// Tracks with more channels than this start with their groups closed.
const OPEN_UP_TO: usize = 40;
/// Rows listed for a search, at most.
const MAX_HITS: usize = 300;

/// What a row needs to know about the channels shown.
pub struct Rows<'a> {
    /// The channels selected, in legend order.
    pub selected: &'a mut Vec<ChannelKey>,
    /// Colour of the `i`-th selected channel.
    pub color: &'a dyn Fn(usize) -> Color32,
    /// A selected channel's value to show beside it.
    pub value: &'a dyn Fn(&ChannelKey) -> Option<String>,
}

/// The search field and the tree. Returns true when the selection changed.
pub fn show(
    ui: &mut egui::Ui,
    state: &ViewerState,
    cache: &SeriesCache,
    search: &mut String,
    rows: &mut Rows<'_>,
) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        if ui
            .small_button("none")
            .on_hover_text("show no channel")
            .clicked()
        {
            changed |= !rows.selected.is_empty();
            rows.selected.clear();
        }
        // Exactly the width left: a field asking for more would widen the
        // resizable panel a little every frame.
        ui.add(
            egui::TextEdit::singleline(search)
                .hint_text("search channels")
                .desired_width(ui.available_width()),
        );
    });
    let needle = search.trim().to_lowercase();
    egui::ScrollArea::vertical()
        .id_salt("curves tree")
        .show(ui, |ui| {
            for (track, entry) in state.tracks().iter().enumerate() {
                let channels = cache.channels(track);
                if channels.is_empty() {
                    continue;
                }
                let title = RichText::new(entry.name()).strong();
                if !needle.is_empty() {
                    ui.label(title);
                    let hits = channels.iter().filter(|c| {
                        c.name.to_lowercase().contains(&needle)
                            || c.path.join(" ").to_lowercase().contains(&needle)
                    });
                    for c in hits.take(MAX_HITS) {
                        changed |= row(ui, track, c, rows);
                    }
                    continue;
                }
                let open = channels.len() <= OPEN_UP_TO;
                egui::CollapsingHeader::new(title)
                    .id_salt(("curves track", track))
                    .default_open(true)
                    .show(ui, |ui| {
                        let mut start = 0;
                        while start < channels.len() {
                            let path = &channels[start].path;
                            let end = start
                                + channels[start..]
                                    .iter()
                                    .take_while(|c| &c.path == path)
                                    .count();
                            let group = &channels[start..end];
                            let name = if path.is_empty() {
                                "channels".to_string()
                            } else {
                                path.join(" / ")
                            };
                            egui::CollapsingHeader::new(name)
                                .id_salt(("curves group", track, start))
                                .default_open(open)
                                .show(ui, |ui| {
                                    for c in group {
                                        changed |= row(ui, track, c, rows);
                                    }
                                });
                            start = end;
                        }
                    });
            }
        });
    changed
}

/// One channel's checkbox, with its colour and value when shown.
fn row(ui: &mut egui::Ui, track: usize, channel: &Channel, rows: &mut Rows<'_>) -> bool {
    let key = ChannelKey {
        track,
        name: channel.name.clone(),
    };
    let at = rows.selected.iter().position(|k| *k == key);
    let mut on = at.is_some();
    let mut changed = false;
    ui.horizontal(|ui| {
        let unit = channel.unit.symbol();
        let label = match at {
            Some(i) => RichText::new(&channel.name).color((rows.color)(i)),
            None => RichText::new(&channel.name),
        };
        if ui
            .checkbox(&mut on, label)
            .on_hover_text(format!("{} ({unit})", channel.path.join(" / ")))
            .changed()
        {
            match at {
                Some(i) => {
                    rows.selected.remove(i);
                }
                None => rows.selected.push(key.clone()),
            }
            changed = true;
        }
        if at.is_some()
            && let Some(value) = (rows.value)(&key)
        {
            ui.monospace(format!("{value}{unit}"));
        }
    });
    changed
}
