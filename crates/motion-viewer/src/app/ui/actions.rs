//! What the curves panel asks of the motion editor: the panel draws AIBO
//! keyframes on their curves and turns clicks and drags on them into these
//! actions; the editor applies them (with undo) to the track's motion.

/// One thing the user did to a keyframe on a curve.
#[derive(Debug, Clone, PartialEq)]
pub enum CurveAction {
    /// A keyframe marker was clicked: select that keyframe.
    SelectKey {
        /// The track, as an index into [`crate::session::viewer::ViewerState::tracks`].
        track: usize,
        /// The keyframe's index in the motion.
        key: usize,
    },
    /// A keyframe marker on `channel`'s curve is being dragged to `time_s`,
    /// `value` (in the channel's unit). Sent every frame of the drag with
    /// `finished: false`, then once with `finished: true` when the button is
    /// released; a whole drag is one edit to undo.
    DragKey {
        /// The track.
        track: usize,
        /// The keyframe's index in the motion when the drag started.
        key: usize,
        /// The channel's name (`pitch_deg`, a joint's name…).
        channel: String,
        /// Where the key is dragged to in time, seconds.
        time_s: f64,
        /// Where the key is dragged to in value.
        value: f64,
        /// The button was released.
        finished: bool,
    },
}
