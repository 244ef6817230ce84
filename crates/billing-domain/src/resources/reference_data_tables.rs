//! Reference data declarations (docs/api.md "Reference data", docs/api.md "Customers").

billing_declare::declare! {
    /// How charge groups are grouped and measured.
    charge_group_categories {
        /// Name of the category (e.g. `Voice`).
        name: required Text<1, 50>,
        /// How usage in it is measured: DURATION, MB or ONE_OFF.
        charging_unit_type: required Enum<ChargingUnitType>,
        /// The date the record applies from (yyyy-MM-dd).
        start_date: required Date,
        /// The last date the record applies on; null when open-ended. Not before startDate.
        end_date: optional Date,
    }
    rules { validity(start_date, end_date) }
    extra_filters {}

    /// Charge groups: what usage is charged as. Each belongs to one charge group category.
    charge_groups {
        /// Name of the charge group (e.g. `UK mobile`).
        name: required Text<1, 255>,
        /// Id of its charge group category.
        charge_group_category_id: required Id references(charge_group_categories, "charge group category"),
        /// The date the record applies from (yyyy-MM-dd).
        start_date: required Date,
        /// The last date the record applies on; null when open-ended. Not before startDate.
        end_date: optional Date,
    }
    rules { validity(start_date, end_date) }
    extra_filters {}

    /// A country and a currency used together; each pair exists once (409 on a duplicate).
    locales {
        /// The country, shown whole; a body gives its code (`{"code": "GB"}`), other
        /// members sent back as read are ignored.
        country_code: required CountryCode shown_as(country, countries),
        /// The currency, shown whole; a body gives its id (`{"id": 1}`), other members
        /// sent back as read are ignored.
        currency_id: required Id shown_as(currency, currencies),
    }
    rules {}
    extra_filters {}

    /// Where reference data comes from. siMaintained = true: maintained only by the
    /// operator's feed; neither it nor its data can be changed through the API (412).
    /// Sources are created by administrators, who may change or remove one maintained here
    /// and hand it to the feed. Names are unique (409).
    reference_data_sources {
        /// Name of the source (e.g. `BT Wholesale`).
        name: required Text<1, 50>,
        /// The locale, shown whole; a body gives its id (`{"id": 1}`), other members sent
        /// back as read are ignored.
        locale_id: required Id shown_as(locale, locales),
        /// true: maintained only by the operator's feed; false: through this interface
        /// (e.g. `false`).
        si_maintained: required Bool,
    }
    rules {}
    extra_filters {}

    /// A reference data source's own charge groups, each linked to one charge group and one
    /// source. Records of a source with siMaintained = true cannot be created, changed or
    /// removed here (412). The code is unique within a source (409).
    reference_data_source_charge_groups {
        /// Name of the source charge group (e.g. `Mobile - O2`).
        name: required Text<1, 255>,
        /// The source's code for it; unique within the source (e.g. `MOB-O2`).
        code: required Text<1, 255>,
        /// Id of the linked charge group.
        charge_group_id: required Id references(charge_groups, "charge group"),
        /// Id of the linked reference data source.
        reference_data_source_id: required Id references(reference_data_sources, "reference data source"),
        /// The date the record applies from (yyyy-MM-dd).
        start_date: required Date,
        /// The last date the record applies on; null when open-ended. Not before startDate.
        end_date: optional Date,
    }
    rules { validity(start_date, end_date) }
    extra_filters {
        /// Only records whose source has this siMaintained value.
        si_maintained: Bool,
    }

    /// Currencies used by locales. The code is unique (409 on a duplicate).
    currencies {
        /// ISO 4217 code.
        code: required CurrencyCode,
        /// The symbol, one character.
        symbol: required Symbol,
        /// Name of the major unit (letters only) (e.g. `Pound`).
        major_currency_name: required Letters<1, 10>,
        /// Name of the minor unit (letters only) (e.g. `Penny`).
        minor_currency_name: required Letters<1, 10>,
        /// Display format of the major unit (e.g. `£#,##0`).
        major_currency_format: required Text<1, 20>,
        /// Display format of the minor unit (e.g. `00p`).
        minor_currency_format: required Text<1, 20>,
        /// Name of sales tax in this currency (e.g. `VAT`).
        sales_tax_name: required Text<1, 20>,
    }
    rules {}
    extra_filters {}

    /// Tax bands: a named tax rate in force between two dates.
    tax_bands {
        /// Name of the tax band (e.g. `Standard rate`).
        name: required Text<1, 50>,
        /// The rate in percent, 0..100, exact, with at most 4 decimal places (17.5) (e.g. `20`).
        rate: required Decimal<4, 0, 100>,
        /// The date the record applies from (yyyy-MM-dd).
        start_date: required Date,
        /// The last date the record applies on; null when open-ended. Not before startDate.
        end_date: optional Date,
    }
    rules { validity(start_date, end_date) }
    extra_filters {}

    /// Exchange rates between two currencies from a date on. One rate per pair of
    /// currencies and date (409).
    currency_rates {
        /// Id of the currency converted from.
        from_currency_id: required Id references(currencies, "currency"),
        /// Id of the currency converted to; not the same as fromCurrencyId (e.g. `2`).
        to_currency_id: required Id references(currencies, "currency"),
        /// Units of the "to" currency for one unit of the "from" currency: greater than 0,
        /// at most 1000000, exact, with at most 6 decimal places (e.g. `1.17`).
        rate: required PositiveDecimal<6, 1000000>,
        /// The date the rate applies from (yyyy-MM-dd).
        effective_date: required Date,
    }
    rules { currency_rate(from_currency_id, to_currency_id) }
    extra_filters {}

    /// Service ids whose usage is not rated (checked first by rating).
    ignored_service_ids {
        /// The service id (e.g. `SVC-TEST-01`).
        service_id: required Text<1, 255>,
        /// Why it is ignored, or null (e.g. `Engineering test line`).
        description: optional Text<1, 255>,
        /// The date the record applies from (yyyy-MM-dd).
        start_date: required Date,
        /// The last date the record applies on; null when open-ended. Not before startDate.
        end_date: optional Date,
    }
    rules { validity(start_date, end_date) }
    extra_filters {}

    /// Number prefixes rated as a source charge group: rating picks the longest one that
    /// prefixes a dialled number. Records of a source with siMaintained = true cannot be
    /// created, changed or removed here (412); the same dialstring twice in force in one
    /// source on one date is refused (409).
    dialstrings {
        /// The prefix: 2..15 digits (e.g. `447700`).
        dialstring: required Digits<2, 15>,
        /// Id of the source charge group it rates as.
        reference_data_source_charge_group_id: required Id references(reference_data_source_charge_groups, "reference data source charge group"),
        /// The date the record applies from (yyyy-MM-dd).
        start_date: required Date,
        /// The last date the record applies on; null when open-ended. Not before startDate.
        end_date: optional Date,
    }
    rules { validity(start_date, end_date) }
    extra_filters {}

    /// Call classes rated as a source charge group when no dialstring matches. Records of
    /// a source with siMaintained = true cannot be created, changed or removed here (412);
    /// the same call class twice in force in one source on one date is refused (409).
    call_classes {
        /// The call class (e.g. `MOBILE`).
        call_class: required Text<1, 255>,
        /// Id of the source charge group it rates as.
        reference_data_source_charge_group_id: required Id references(reference_data_source_charge_groups, "reference data source charge group"),
        /// The date the record applies from (yyyy-MM-dd).
        start_date: required Date,
        /// The last date the record applies on; null when open-ended. Not before startDate.
        end_date: optional Date,
    }
    rules { validity(start_date, end_date) }
    extra_filters {}

    /// Call classes whose usage a source does not rate. Records of a source with
    /// siMaintained = true cannot be created, changed or removed here (412).
    ignored_call_classes {
        /// The call class (e.g. `FREEPHONE`).
        call_class: required Text<1, 255>,
        /// Id of the reference data source.
        reference_data_source_id: required Id references(reference_data_sources, "reference data source"),
        /// The date the record applies from (yyyy-MM-dd).
        start_date: required Date,
        /// The last date the record applies on; null when open-ended. Not before startDate.
        end_date: optional Date,
    }
    rules { validity(start_date, end_date) }
    extra_filters {}
}
