//! The list conventions as values: pages, sort keys and the filter kinds.
//!
//! Parsing lives here (pure); the http crate feeds it query strings and the persistence crate
//! turns the parsed values into SQL.

use chrono::{NaiveDate, NaiveDateTime};

use crate::dates::parse_date;

/// Lower-cases `text` one character at a time, as `like:` compares on both backends: every
/// Unicode letter, with no rule that looks at its neighbours (so a capital sigma is always
/// `σ`, never a final `ς`, as PostgreSQL's `lower()` does), whence a value lower-cases the
/// same alone as inside the text it was copied from.
pub fn lower_case(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// The largest `pageSize` a list accepts.
pub const MAX_PAGE_SIZE: u32 = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterKind {
    String,
    /// A string member that holds one of a set of codes (an enumeration): the string syntax,
    /// but an exact or `in:` value outside the set is refused, so that a misspelt code is a 400
    /// instead of an empty page.
    Code {
        codes: &'static [&'static str],
    },
    Id,
    Date,
    DateTime,
    Boolean,
    /// An exact decimal with at most `scale` places, compared as scaled units.
    Decimal {
        scale: u32,
    },
}

impl FilterKind {
    /// The syntax, as documented to users.
    pub fn syntax(self) -> &'static str {
        match self {
            FilterKind::String => "<value>, in:<v1>,<v2>,… or like:<value>",
            FilterKind::Code { .. } => "<code>, in:<code1>,<code2>,… or like:<value>",
            FilterKind::Id => "<id>",
            FilterKind::Date => "<yyyy-MM-dd>, lt:<date>, gt:<date> or gtn:<date>",
            FilterKind::DateTime => "<yyyy-MM-ddTHH:mm:ssZ>, lt:<datetime> or gt:<datetime>",
            FilterKind::Boolean => "true or false",
            FilterKind::Decimal { .. } => "<number>, lt:<number> or gt:<number>",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextFilter {
    Equals(String),
    AnyOf(Vec<String>),
    /// Case-insensitive substring; the value is literal (no wildcards).
    Contains(String),
}

impl TextFilter {
    /// Whether `value` passes, for lists held in memory (`like:` folds case as storage does).
    pub fn matches(&self, value: &str) -> bool {
        match self {
            TextFilter::Equals(wanted) => value == wanted,
            TextFilter::AnyOf(wanted) => wanted.iter().any(|wanted| wanted == value),
            TextFilter::Contains(part) => lower_case(value).contains(&lower_case(part)),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateFilter {
    On(NaiveDate),
    Before(NaiveDate),
    After(NaiveDate),
    /// After the date, or no date at all (an open-ended record is still in force).
    AfterOrOpen(NaiveDate),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateTimeFilter {
    /// The instants the value names at its own precision, `from` included, `until` not:
    /// `10:15:00Z` is that whole second, `10:15:00.5Z` that tenth of a second (stored
    /// date-times carry microseconds, so an equal filter to the second must match them).
    Within {
        from: NaiveDateTime,
        until: NaiveDateTime,
    },
    /// Strictly before the instant given.
    Before(NaiveDateTime),
    /// Strictly after the instant given.
    After(NaiveDateTime),
}

/// A decimal filter, in the field's scaled units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalFilter {
    Equals(i64),
    Below(i64),
    Above(i64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    Decimal(DecimalFilter),
    Text(TextFilter),
    Id(i64),
    Date(DateFilter),
    DateTime(DateTimeFilter),
    Boolean(bool),
}

/// One filter on one named parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldFilter {
    pub field: &'static str,
    pub filter: Filter,
}

/// Parses one filter value of `kind`; the error says what the syntax is.
pub fn parse_filter(kind: FilterKind, raw: &str) -> Result<Filter, String> {
    let invalid = || format!("expected {}", kind.syntax());
    if raw.chars().any(char::is_control) {
        return Err("must not contain control characters".into());
    }
    match kind {
        FilterKind::Code { codes } => {
            let filter = parse_filter(FilterKind::String, raw)?;
            let wanted = match &filter {
                Filter::Text(TextFilter::Equals(value)) => std::slice::from_ref(value),
                Filter::Text(TextFilter::AnyOf(values)) => values.as_slice(),
                _ => &[],
            };
            match wanted.iter().find(|value| !codes.contains(&value.as_str())) {
                Some(unknown) => Err(format!("{unknown:?} is not one of {}", codes.join(", "))),
                None => Ok(filter),
            }
        }
        FilterKind::String => {
            if let Some(list) = raw.strip_prefix("in:") {
                let values: Vec<String> = list.split(',').map(str::to_owned).collect();
                if values.iter().any(String::is_empty) {
                    return Err("in: needs a comma-separated list of non-empty values".into());
                }
                Ok(Filter::Text(TextFilter::AnyOf(values)))
            } else if let Some(value) = raw.strip_prefix("like:") {
                if value.is_empty() {
                    return Err("like: needs a value".into());
                }
                Ok(Filter::Text(TextFilter::Contains(value.to_owned())))
            } else {
                Ok(Filter::Text(TextFilter::Equals(raw.to_owned())))
            }
        }
        FilterKind::Id => match raw.parse::<i64>() {
            Ok(id) if id >= 1 && !raw.starts_with('+') => Ok(Filter::Id(id)),
            _ => Err("expected an id (an integer >= 1)".into()),
        },
        FilterKind::Date => {
            let (make, value): (fn(NaiveDate) -> DateFilter, &str) = match raw.split_once(':') {
                Some(("lt", v)) => (DateFilter::Before, v),
                Some(("gt", v)) => (DateFilter::After, v),
                Some(("gtn", v)) => (DateFilter::AfterOrOpen, v),
                Some(_) => return Err(invalid()),
                None => (DateFilter::On, raw),
            };
            parse_date(value)
                .map(|d| Filter::Date(make(d)))
                .ok_or_else(invalid)
        }
        FilterKind::DateTime => {
            let filter = if let Some(v) = raw.strip_prefix("lt:") {
                parse_utc_date_time(v).map(DateTimeFilter::Before)
            } else if let Some(v) = raw.strip_prefix("gt:") {
                parse_utc_date_time(v).map(DateTimeFilter::After)
            } else {
                utc_date_time_span(raw).map(|(from, until)| DateTimeFilter::Within { from, until })
            };
            filter.map(Filter::DateTime).ok_or_else(invalid)
        }
        FilterKind::Decimal { scale } => {
            let (make, value): (fn(i64) -> DecimalFilter, &str) =
                if let Some(v) = raw.strip_prefix("lt:") {
                    (DecimalFilter::Below, v)
                } else if let Some(v) = raw.strip_prefix("gt:") {
                    (DecimalFilter::Above, v)
                } else {
                    (DecimalFilter::Equals, raw)
                };
            crate::money::parse_plain_decimal(value, scale)
                .map(|units| Filter::Decimal(make(units)))
                .map_err(|reason| format!("{reason}; expected {}", kind.syntax()))
        }
        FilterKind::Boolean => match raw {
            "true" => Ok(Filter::Boolean(true)),
            "false" => Ok(Filter::Boolean(false)),
            _ => Err(invalid()),
        },
    }
}

/// `yyyy-MM-ddTHH:mm:ssZ` with 1 to 9 fractional digits allowed, UTC only: what the
/// document's pattern says, so no leap second (`:60`, which chrono would take) and no tenth
/// fractional digit.
pub fn parse_utc_date_time(value: &str) -> Option<NaiveDateTime> {
    parse_utc_date_time_with_digits(value).map(|(parsed, _)| parsed)
}

/// The instants `value` names at its precision: from it, included, to the next value of the
/// same precision, excluded (a second without a fraction; a tenth with one fractional digit).
pub fn utc_date_time_span(value: &str) -> Option<(NaiveDateTime, NaiveDateTime)> {
    let (from, fraction_digits) = parse_utc_date_time_with_digits(value)?;
    let step = chrono::Duration::nanoseconds(10_i64.pow(9 - fraction_digits));
    Some((
        from,
        from.checked_add_signed(step).unwrap_or(NaiveDateTime::MAX),
    ))
}

/// [`parse_utc_date_time`] and the number of fractional digits written (0 for none).
fn parse_utc_date_time_with_digits(value: &str) -> Option<(NaiveDateTime, u32)> {
    use chrono::Timelike;
    let without_zone = value.strip_suffix('Z')?;
    let (whole, fraction, fraction_digits) = match without_zone.split_once('.') {
        Some((whole, fraction)) => (whole, fraction, fraction.len()),
        None => (without_zone, "0", 0),
    };
    let fraction_ok =
        (1..=9).contains(&fraction.len()) && fraction.bytes().all(|b| b.is_ascii_digit());
    if whole.len() != "yyyy-MM-ddTHH:mm:ss".len() || !fraction_ok {
        return None;
    }
    let parsed = NaiveDateTime::parse_from_str(without_zone, "%Y-%m-%dT%H:%M:%S%.f").ok()?;
    // chrono keeps a leap second as a nanosecond count past 999,999,999.
    (parsed.nanosecond() < 1_000_000_000).then_some((parsed, fraction_digits as u32))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortKey {
    pub field: &'static str,
    pub descending: bool,
}

/// Parses `a,b:desc,c:asc` against the sortable field names.
pub fn parse_sort(raw: &str, sortable: &[&'static str]) -> Result<Vec<SortKey>, String> {
    let mut keys = Vec::new();
    for part in raw.split(',') {
        let (name, descending) = match part.rsplit_once(':') {
            Some((name, "desc")) => (name, true),
            Some((name, "asc")) => (name, false),
            Some((_, other)) => {
                return Err(format!("unknown direction '{other}' (use :asc or :desc)"));
            }
            None => (part, false),
        };
        let field = sortable
            .iter()
            .find(|candidate| **candidate == name)
            .ok_or_else(|| {
                format!(
                    "cannot sort by '{name}'; sortable fields: {}",
                    sortable.join(", ")
                )
            })?;
        if keys.iter().any(|key: &SortKey| key.field == *field) {
            return Err(format!("'{name}' appears twice"));
        }
        keys.push(SortKey { field, descending });
    }
    Ok(keys)
}

/// Which rows of a list to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub page: u32,
    pub page_size: u32,
}

impl PageRequest {
    pub fn parse_page(raw: &str) -> Result<u32, String> {
        match raw.parse::<u32>() {
            Ok(page) if page >= 1 && page <= i32::MAX as u32 && !raw.starts_with('+') => Ok(page),
            _ => Err(format!("must be an integer from 1 to {}", i32::MAX)),
        }
    }

    pub fn parse_page_size(raw: &str) -> Result<u32, String> {
        match raw.parse::<u32>() {
            Ok(size) if (1..=MAX_PAGE_SIZE).contains(&size) && !raw.starts_with('+') => Ok(size),
            _ => Err(format!("must be an integer from 1 to {MAX_PAGE_SIZE}")),
        }
    }

    pub fn offset(&self) -> i64 {
        (i64::from(self.page) - 1) * i64::from(self.page_size)
    }

    pub fn limit(&self) -> i64 {
        i64::from(self.page_size)
    }

    /// The number of the last page for `total` rows (1 when there are none).
    pub fn last_page(&self, total: i64) -> i64 {
        ((total + i64::from(self.page_size) - 1) / i64::from(self.page_size)).max(1)
    }
}

/// How a list's total (`X-Total-Count`) is found, as `Prefer: count=…` asks
/// (docs/api.md, "Lists"): exact unless the client says it can do with less.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CountPreference {
    /// Every matching row counted (remembered while the data does not change): the default.
    #[default]
    Exact,
    /// The database planner's estimate of the matching rows, at least the rows the pages up
    /// to this one hold; SQLite has no planner estimate and counts.
    Planned,
    /// Exact when the planner estimates at most [`ESTIMATED_EXACT_UP_TO`] rows, else the
    /// estimate.
    Estimated,
}

/// Up to this many rows by the planner's estimate, `count=estimated` counts exactly.
pub const ESTIMATED_EXACT_UP_TO: i64 = 10_000;

impl CountPreference {
    /// Every preference, as `Prefer: count=…` names it.
    pub const ALL: [Self; 3] = [Self::Exact, Self::Planned, Self::Estimated];

    pub fn code(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Planned => "planned",
            Self::Estimated => "estimated",
        }
    }

    /// The preference `code` names (case-insensitive), if any.
    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|preference| preference.code().eq_ignore_ascii_case(code))
    }
}

/// A parsed list request: filters, sort keys (the id tie-break is implied), page, and how
/// the total is found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    pub filters: Vec<FieldFilter>,
    pub sort: Vec<SortKey>,
    pub page: Option<PageRequest>,
    pub count: CountPreference,
}

impl ListQuery {
    /// A query with no filter, no sort and no page: every row (used for counts).
    pub fn everything() -> Self {
        Self {
            filters: Vec::new(),
            sort: Vec::new(),
            page: None,
            count: CountPreference::Exact,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_filters() {
        insta::assert_debug_snapshot!(
            ["abc", "in:a,b", "like:50%"].map(|raw| parse_filter(FilterKind::String, raw)),
            @r#"
        [
            Ok(
                Text(
                    Equals(
                        "abc",
                    ),
                ),
            ),
            Ok(
                Text(
                    AnyOf(
                        [
                            "a",
                            "b",
                        ],
                    ),
                ),
            ),
            Ok(
                Text(
                    Contains(
                        "50%",
                    ),
                ),
            ),
        ]
        "#
        );
        assert!(parse_filter(FilterKind::String, "in:a,,b").is_err());
        assert!(parse_filter(FilterKind::String, "a\u{0}b").is_err());
        assert!(parse_filter(FilterKind::String, "like:\n").is_err());
    }

    #[test]
    fn code_filters_refuse_a_code_outside_the_set() {
        let kind = FilterKind::Code {
            codes: &["EMAIL", "POST"],
        };
        insta::assert_debug_snapshot!(
            ["EMAIL", "in:POST,EMAIL", "like:mai", "EMAILS", "in:POST,email", "", "in:"]
                .map(|raw| parse_filter(kind, raw)),
            @r#"
                [
                    Ok(
                        Text(
                            Equals(
                                "EMAIL",
                            ),
                        ),
                    ),
                    Ok(
                        Text(
                            AnyOf(
                                [
                                    "POST",
                                    "EMAIL",
                                ],
                            ),
                        ),
                    ),
                    Ok(
                        Text(
                            Contains(
                                "mai",
                            ),
                        ),
                    ),
                    Err(
                        "\"EMAILS\" is not one of EMAIL, POST",
                    ),
                    Err(
                        "\"email\" is not one of EMAIL, POST",
                    ),
                    Err(
                        "\"\" is not one of EMAIL, POST",
                    ),
                    Err(
                        "in: needs a comma-separated list of non-empty values",
                    ),
                ]
            "#
        );
    }

    #[test]
    fn date_filters_and_gtn() {
        let day = parse_date("2026-01-02").expect("date");
        assert_eq!(
            parse_filter(FilterKind::Date, "2026-01-02"),
            Ok(Filter::Date(DateFilter::On(day)))
        );
        assert_eq!(
            parse_filter(FilterKind::Date, "lt:2026-01-02"),
            Ok(Filter::Date(DateFilter::Before(day)))
        );
        assert_eq!(
            parse_filter(FilterKind::Date, "gt:2026-01-02"),
            Ok(Filter::Date(DateFilter::After(day)))
        );
        assert_eq!(
            parse_filter(FilterKind::Date, "gtn:2026-01-02"),
            Ok(Filter::Date(DateFilter::AfterOrOpen(day)))
        );
        for bad in ["le:2026-01-02", "2026-13-01", "gt:", "yesterday"] {
            assert!(parse_filter(FilterKind::Date, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_equal_date_time_filter_names_every_instant_of_its_precision() {
        let span = |raw: &str| match parse_filter(FilterKind::DateTime, raw) {
            Ok(Filter::DateTime(DateTimeFilter::Within { from, until })) => {
                format!("{} .. {}", from.format("%T%.f"), until.format("%T%.f"))
            }
            other => panic!("{raw}: {other:?}"),
        };
        insta::assert_snapshot!(span("2026-01-02T10:15:59Z"), @"10:15:59 .. 10:16:00");
        insta::assert_snapshot!(span("2026-01-02T10:15:00.5Z"), @"10:15:00.500 .. 10:15:00.600");
        insta::assert_snapshot!(span("2026-01-02T10:15:00.290933Z"), @"10:15:00.290933 .. 10:15:00.290934");
        insta::assert_snapshot!(span("2026-01-02T10:15:00.123456789Z"), @"10:15:00.123456789 .. 10:15:00.123456790");
        assert_eq!(
            parse_filter(FilterKind::DateTime, "lt:2026-01-02T10:15:00Z"),
            Ok(Filter::DateTime(DateTimeFilter::Before(
                parse_utc_date_time("2026-01-02T10:15:00Z").expect("date-time")
            )))
        );
    }

    #[test]
    fn date_time_filters_need_utc() {
        assert!(parse_filter(FilterKind::DateTime, "2026-01-02T10:00:00Z").is_ok());
        assert!(parse_filter(FilterKind::DateTime, "gt:2026-01-02T10:00:00.5Z").is_ok());
        assert!(parse_filter(FilterKind::DateTime, "2026-01-02T10:00:00+01:00").is_err());
        assert!(parse_filter(FilterKind::DateTime, "2026-01-02").is_err());
        // The document's pattern, no more: seconds to 59, at most nine fractional digits.
        assert!(parse_filter(FilterKind::DateTime, "2026-01-02T10:00:00.123456789Z").is_ok());
        for bad in [
            "gt:2026-11-27T23:59:60Z",
            "2026-11-27T23:59:60.5Z",
            "gt:2026-11-27T00:00:00.0000000001Z",
            "2026-11-27T00:00:00.Z",
            "2026-11-27T0:00:00Z",
        ] {
            assert!(parse_filter(FilterKind::DateTime, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn decimal_filters_compare_scaled_units() {
        let kind = FilterKind::Decimal { scale: 4 };
        assert_eq!(
            parse_filter(kind, "17.5"),
            Ok(Filter::Decimal(DecimalFilter::Equals(175_000)))
        );
        assert_eq!(
            parse_filter(kind, "lt:20"),
            Ok(Filter::Decimal(DecimalFilter::Below(200_000)))
        );
        assert_eq!(
            parse_filter(kind, "gt:0"),
            Ok(Filter::Decimal(DecimalFilter::Above(0)))
        );
        insta::assert_snapshot!(parse_filter(kind, "1.00001").unwrap_err(), @"must have at most 4 decimal places; expected <number>, lt:<number> or gt:<number>");
        assert!(parse_filter(kind, "le:1").is_err());
    }

    #[test]
    fn id_and_boolean_filters() {
        assert_eq!(parse_filter(FilterKind::Id, "7"), Ok(Filter::Id(7)));
        for bad in ["0", "-1", "x", "1.5", "99999999999999999999", "+3"] {
            assert!(parse_filter(FilterKind::Id, bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_filter(FilterKind::Boolean, "false"),
            Ok(Filter::Boolean(false))
        );
        assert!(parse_filter(FilterKind::Boolean, "TRUE").is_err());
    }

    #[test]
    fn sort_keys() {
        let sortable = ["name", "startDate"];
        assert_eq!(
            parse_sort("name,startDate:desc", &sortable),
            Ok(vec![
                SortKey {
                    field: "name",
                    descending: false
                },
                SortKey {
                    field: "startDate",
                    descending: true
                }
            ])
        );
        insta::assert_snapshot!(parse_sort("colour", &sortable).unwrap_err(), @"cannot sort by 'colour'; sortable fields: name, startDate");
        assert!(parse_sort("name:up", &sortable).is_err());
        assert!(parse_sort("name,name:desc", &sortable).is_err());
    }

    #[test]
    fn pages() {
        assert_eq!(PageRequest::parse_page("1"), Ok(1));
        assert!(PageRequest::parse_page("0").is_err());
        assert_eq!(PageRequest::parse_page_size("1000"), Ok(1000));
        assert!(PageRequest::parse_page_size("1001").is_err());
        let page = PageRequest {
            page: 3,
            page_size: 10,
        };
        assert_eq!(page.offset(), 20);
        assert_eq!(page.last_page(0), 1);
        assert_eq!(page.last_page(21), 3);
    }
}
