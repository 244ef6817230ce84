//! List parameters: page, pageSize, sort, fields and the resource's filters; unknown or
//! repeated parameters are refused. Also the `Link` header and the `fields` projection.

use actix_web::HttpRequest;
use billing_domain::ValidationErrors;
use billing_domain::query::{
    CountPreference, FieldFilter, ListQuery, PageRequest, parse_filter, parse_sort,
};
use serde_json::Value;

use super::resource::{Field, FieldType, FilterParam, Resource};
use crate::error::ApiError;

pub struct ListParams {
    pub query: ListQuery,
    pub fields: Option<Vec<String>>,
}

/// What a list offers: the fields `fields` may name, the filters and the sort keys.
#[derive(Debug, Clone, Copy)]
pub struct ListShape {
    pub fields: &'static [Field],
    pub filters: &'static [FilterParam],
    pub sort_keys: &'static [&'static str],
}

impl ListShape {
    /// The top-level fields a list shows, as `fields` names them.
    pub fn readable_fields(&self) -> Vec<&'static str> {
        self.fields
            .iter()
            .filter(|f| f.readable())
            .map(|f| f.name)
            .collect()
    }

    /// The names `fields` may hold: each readable field, and `object.member` for each
    /// readable member of an owned object.
    pub fn field_choices(&self) -> Vec<String> {
        let top = self.readable_fields().into_iter().map(str::to_owned);
        let nested = self
            .fields
            .iter()
            .filter(|f| f.owned)
            .filter_map(|f| match f.field_type {
                FieldType::Object(members) => Some((f.name, members)),
                _ => None,
            })
            .flat_map(|(object, members)| {
                members
                    .iter()
                    .filter(|m| m.readable())
                    .map(move |m| format!("{object}.{}", m.name))
            });
        top.chain(nested).collect()
    }

    /// Whether `name` is one of [`Self::field_choices`], found without building them.
    pub fn is_field_choice(&self, name: &str) -> bool {
        let (object, member) = match name.split_once('.') {
            Some((object, member)) => (object, Some(member)),
            None => (name, None),
        };
        self.fields.iter().any(|f| {
            f.name == object
                && match (member, f.field_type) {
                    (None, _) => f.readable(),
                    (Some(member), FieldType::Object(members)) => {
                        f.owned && members.iter().any(|m| m.name == member && m.readable())
                    }
                    (Some(_), _) => false,
                }
        })
    }

    /// The longest `fields` value that can be valid: every choice once (a name given twice
    /// is 400), at most [`QUERY_VALUE_MAX_CHARS`]. The document's `maxLength` for it.
    pub fn fields_max_chars(&self) -> usize {
        joined_length(self.field_choices().iter().map(|name| name.chars().count()))
    }

    /// The longest `sort` value that can be valid: every key once, each with `:desc`, at most
    /// [`QUERY_VALUE_MAX_CHARS`]. The document's `maxLength` for it.
    pub fn sort_max_chars(&self) -> usize {
        joined_length(
            self.sort_keys
                .iter()
                .map(|key| key.chars().count() + ":desc".len()),
        )
    }
}

/// The length of the comma-separated list of items of `lengths`, at most
/// [`QUERY_VALUE_MAX_CHARS`].
fn joined_length(lengths: impl Iterator<Item = usize>) -> usize {
    let (count, sum) = lengths.fold((0, 0), |(count, sum), length| (count + 1, sum + length));
    (sum + count.max(1) - 1).min(QUERY_VALUE_MAX_CHARS)
}

/// The most characters a list parameter's value may have (400 naming it beyond): a request
/// target is at most 8 KiB, and a value alone should not come near it (docs/api.md, "Lists").
pub const QUERY_VALUE_MAX_CHARS: usize = 2048;

/// Parses list parameters for `R`. `page`/`pageSize` are required when `require_page`.
pub fn parse_list_params<R: Resource>(
    pairs: &[(String, String)],
    require_page: bool,
) -> Result<ListParams, ApiError> {
    let shape = ListShape {
        fields: R::FIELDS,
        filters: R::filters(),
        sort_keys: R::sort_keys(),
    };
    parse_list_params_of(shape, pairs, require_page)
}

/// Parses list parameters for a list of `shape` (a list that is not a resource's collection).
pub fn parse_list_params_of(
    shape: ListShape,
    pairs: &[(String, String)],
    require_page: bool,
) -> Result<ListParams, ApiError> {
    let mut errors = ValidationErrors::default();
    let mut seen: Vec<&str> = Vec::new();
    // Told once per name, however often it repeats.
    let mut repeated: Vec<&str> = Vec::new();
    let (mut page, mut page_size, mut sort, mut fields) = (None, None, Vec::new(), None);
    let mut filters = Vec::new();
    for (name, value) in pairs {
        if seen.contains(&name.as_str()) {
            if !repeated.contains(&name.as_str()) {
                repeated.push(name);
                errors.push(name.clone(), "appears more than once");
            }
            continue;
        }
        seen.push(name);
        if value.chars().count() > QUERY_VALUE_MAX_CHARS {
            errors.push(
                name.clone(),
                format!("must be at most {QUERY_VALUE_MAX_CHARS} characters"),
            );
            continue;
        }
        match name.as_str() {
            "page" => {
                page = errors.collect(
                    PageRequest::parse_page(value).map_err(|m| ValidationErrors::single("page", m)),
                )
            }
            "pageSize" => {
                page_size = errors.collect(
                    PageRequest::parse_page_size(value)
                        .map_err(|m| ValidationErrors::single("pageSize", m)),
                )
            }
            "sort" => {
                sort = errors
                    .collect(
                        parse_sort(value, shape.sort_keys)
                            .map_err(|m| ValidationErrors::single("sort", m)),
                    )
                    .unwrap_or_default()
            }
            "fields" => fields = errors.collect(parse_fields(&shape, value)),
            other => match shape.filters.iter().find(|filter| filter.name == other) {
                Some(filter) => {
                    if let Some(parsed) = errors.collect(
                        parse_filter(filter.kind, value)
                            .map_err(|m| ValidationErrors::single(filter.name, m)),
                    ) {
                        filters.push(FieldFilter {
                            field: filter.name,
                            filter: parsed,
                        });
                    }
                }
                None => {
                    let known: Vec<&str> = ["page", "pageSize", "sort", "fields"]
                        .into_iter()
                        .chain(shape.filters.iter().map(|filter| filter.name))
                        .collect();
                    errors.push(
                        other,
                        format!("unknown query parameter; known: {}", known.join(", ")),
                    );
                }
            },
        }
    }
    if require_page {
        if !seen.contains(&"page") {
            errors.push("page", "is required (an integer >= 1)");
        }
        if !seen.contains(&"pageSize") {
            errors.push("pageSize", "is required (an integer from 1 to 1000)");
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let page = match (page, page_size) {
        (Some(page), Some(page_size)) => Some(PageRequest { page, page_size }),
        _ => None,
    };
    Ok(ListParams {
        query: ListQuery {
            filters,
            sort,
            page,
            count: Default::default(),
        },
        fields,
    })
}

/// The request header a client states its preferences in (RFC 7240).
pub const PREFER: &str = "Prefer";
/// The response header that says which of them were applied.
pub const PREFERENCE_APPLIED: &str = "Preference-Applied";

/// The `count` preference of a list request (`Prefer: count=exact|planned|estimated`), if
/// the client stated one; other preferences are ignored, as RFC 7240 allows, and so is a
/// second `count` (RFC 7240 §2: the first occurrence counts). An unknown count is 400 naming
/// `Prefer`.
pub fn count_preference(request: &HttpRequest) -> Result<Option<CountPreference>, ApiError> {
    let mut found = None;
    for value in request.headers().get_all(PREFER) {
        let Ok(text) = value.to_str() else {
            return Err(ApiError::field(PREFER, "must be ASCII text"));
        };
        for preference in text.split(',') {
            // `name[=value][; parameter…]`
            let preference = preference.split(';').next().unwrap_or_default();
            let (name, value) = preference.split_once('=').unwrap_or((preference, ""));
            // A second `count` is not read at all: only the first counts (RFC 7240 §2).
            if !name.trim().eq_ignore_ascii_case("count") || found.is_some() {
                continue;
            }
            let value = value.trim().trim_matches('"');
            match CountPreference::parse(value) {
                Some(count) => {
                    found.get_or_insert(count);
                }
                None => {
                    let known: Vec<&str> = CountPreference::ALL.iter().map(|c| c.code()).collect();
                    return Err(ApiError::field(
                        PREFER,
                        format!("count must be one of {}", known.join(", ")),
                    ));
                }
            }
        }
    }
    Ok(found)
}

/// The names of a `fields` value, each a choice of [`ListShape::field_choices`] (a member of
/// an owned object as `siteAddress.town`) and none twice.
fn parse_fields(shape: &ListShape, value: &str) -> Result<Vec<String>, ValidationErrors> {
    let mut names: Vec<String> = Vec::new();
    for name in value.split(',') {
        if !shape.is_field_choice(name) {
            return Err(ValidationErrors::single(
                "fields",
                format!(
                    "unknown field '{name}'; fields: {}",
                    shape.readable_fields().join(", ")
                ),
            ));
        }
        if names.iter().any(|n| n == name) {
            return Err(ValidationErrors::single(
                "fields",
                format!("'{name}' appears twice"),
            ));
        }
        names.push(name.to_owned());
    }
    Ok(names)
}

/// Keeps only `fields` of each object (all of them when `None`); `object.member` keeps that
/// member of an owned object (and the object, holding only the members asked for, or null).
pub fn project(records: Vec<Value>, fields: &Option<Vec<String>>) -> Vec<Value> {
    let Some(fields) = fields else { return records };
    records
        .into_iter()
        .map(|record| match record {
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .filter_map(|(key, value)| {
                        if fields.contains(&key) {
                            return Some((key, value));
                        }
                        let members: Vec<&str> = fields
                            .iter()
                            .filter_map(|field| field.split_once('.'))
                            .filter(|(object, _)| *object == key)
                            .map(|(_, member)| member)
                            .collect();
                        if members.is_empty() {
                            return None;
                        }
                        let value = match value {
                            Value::Object(inner) => Value::Object(
                                inner
                                    .into_iter()
                                    .filter(|(member, _)| members.contains(&member.as_str()))
                                    .collect(),
                            ),
                            other => other,
                        };
                        Some((key, value))
                    })
                    .collect(),
            ),
            other => other,
        })
        .collect()
}

/// The most bytes a `Link` header may take: with the other headers it stays well under the
/// 16 KiB of response headers common clients accept (Node.js), and under the nginx recipe's
/// proxy buffer.
pub const MAX_LINK_BYTES: usize = 8 * 1024;

/// RFC 8288 links to the next, previous, first and last pages, keeping every other parameter.
/// The header stays proportionate to the query: when all four links would take more than
/// [`MAX_LINK_BYTES`], `first` and `last` are left out, then `prev`; when `next` alone would,
/// there is no header (`None`), and `X-Total-Count` with `page` still say where the pages are.
pub fn link_header(
    request: &HttpRequest,
    pairs: &[(String, String)],
    page: PageRequest,
    total: i64,
) -> Option<String> {
    let last = page.last_page(total);
    let current = i64::from(page.page);
    let link = |target: i64, relation: &str| {
        let mut params: Vec<(String, String)> = pairs
            .iter()
            .filter(|(name, _)| name != "page")
            .cloned()
            .collect();
        params.insert(0, ("page".to_owned(), target.to_string()));
        let query = serde_urlencoded::to_string(&params).unwrap_or_default();
        format!("<{}?{}>; rel=\"{}\"", request.path(), query, relation)
    };
    let next = (current < last).then(|| link(current + 1, "next"));
    let prev = (current > 1).then(|| link((current - 1).min(last), "prev"));
    let one = link(1, "first").len();
    let fits = |links: &[&String]| {
        links.iter().map(|link| link.len() + 2).sum::<usize>() <= MAX_LINK_BYTES
    };
    let paging: Vec<&String> = next.iter().chain(prev.iter()).collect();
    // Every link is about as long as the first: measure before building the other two.
    if paging.iter().map(|link| link.len() + 2).sum::<usize>() + 2 * (one + 2) <= MAX_LINK_BYTES {
        let mut links = vec![link(1, "first")];
        links.extend(prev.clone());
        links.extend(next.clone());
        links.push(link(last, "last"));
        return Some(links.join(", "));
    }
    for kept in [paging.clone(), next.iter().collect()] {
        if !kept.is_empty() && fits(&kept) {
            return Some(
                kept.iter()
                    .map(|link| link.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            );
        }
    }
    None
}
