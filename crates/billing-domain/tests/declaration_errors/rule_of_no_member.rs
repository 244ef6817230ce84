billing_domain::resources::declare! {
    /// Widgets.
    widgets {
        /// The first day.
        start_date: required Date,
    }
    rules { validity(start_date, end_date) }
}

fn main() {}
