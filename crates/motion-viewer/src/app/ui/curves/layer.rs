//! One plot item drawn by a closure: the curves panel paints its curves,
//! bands, shading and markers itself (from data it caches) rather than
//! through egui_plot's items, which would copy and re-measure every point
//! each frame. A named layer gets a legend entry.

use egui::{Color32, Shape, Ui};
use egui_plot::{PlotBounds, PlotGeometry, PlotItem, PlotItemBase, PlotTransform};
use std::ops::RangeInclusive;

/// Paints shapes in screen space through the plot's transform.
type Paint<'a> = Box<dyn Fn(&PlotTransform, &mut Vec<Shape>) + 'a>;

/// A plot item whose shapes come from a closure.
pub struct Layer<'a> {
    base: PlotItemBase,
    color: Color32,
    paint: Paint<'a>,
}

impl<'a> Layer<'a> {
    /// A layer named `name` (empty: no legend entry) of colour `color`.
    pub fn new(
        name: impl Into<String>,
        color: Color32,
        paint: impl Fn(&PlotTransform, &mut Vec<Shape>) + 'a,
    ) -> Layer<'a> {
        Layer {
            base: PlotItemBase::new(name.into()),
            color,
            paint: Box::new(paint),
        }
    }
}

impl PlotItem for Layer<'_> {
    fn shapes(&self, _ui: &Ui, transform: &PlotTransform, shapes: &mut Vec<Shape>) {
        (self.paint)(transform, shapes);
    }

    fn initialize(&mut self, _x_range: RangeInclusive<f64>) {}

    fn color(&self) -> Color32 {
        self.color
    }

    // The panel shows values under the cursor itself.
    fn allow_hover(&self) -> bool {
        false
    }

    fn geometry(&self) -> PlotGeometry<'_> {
        PlotGeometry::None
    }

    // The panel sets the plot's bounds itself.
    fn bounds(&self) -> PlotBounds {
        PlotBounds::NOTHING
    }

    fn base(&self) -> &PlotItemBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut PlotItemBase {
        &mut self.base
    }
}
