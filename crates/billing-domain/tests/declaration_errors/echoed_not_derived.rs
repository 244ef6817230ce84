billing_domain::resources::declare! {
    /// Widgets.
    widgets {
        /// Name of the widget: the server does not fill it in, so it cannot be echoed.
        name: required Text<1, 50> [echoed],
    }
}

fn main() {}
