billing_domain::resources::declare! {
    /// Widgets.
    widgets {
        /// Name of the widget.
        name: required Text<1, 50>,
    }
    extra_filters {
        /// Widgets whose owner has this password.
        owner_password: Password,
    }
}

fn main() {}
