billing_domain::resources::declare! {
    /// Widgets.
    widgets {
        /// Name of the widget.
        name: requird Text<1, 50>,
    }
}

fn main() {}
