billing_domain::resources::declare! {
    /// Widgets.
    widgets {
        /// Name of the widget.
        name: required Txt<1, 50>,
    }
}

fn main() {}
