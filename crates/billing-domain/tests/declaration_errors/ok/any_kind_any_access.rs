//! Any kind works with any access and as a filter where a filter can serve it.

billing_domain::resources::declare! {
    /// Widgets.
    widgets {
        /// Where the widget is.
        country: optional CountryCode,
        /// Its currency.
        currency: defaulted CurrencyCode = "GBP",
        /// Its size.
        size: derived Integer<1, 10>,
        /// Its price.
        price: kept Decimal<2, 0, 100>,
        /// Its secret.
        secret: write_only Password,
    }
    extra_filters {
        /// Widgets of this symbol.
        symbol: Symbol,
    }
}

use billing_domain::resources::Document;

fn main() {
    let body = serde_json::json!({"country": "GB", "secret": "correct horse battery"});
    let widget = widgets::Parsed::from_json(&body, "").expect("a valid widget");
    assert_eq!(widget.country.as_deref(), Some("GB"));
    assert_eq!(widgets::DECLARATION.members[4].filter, None);
}
