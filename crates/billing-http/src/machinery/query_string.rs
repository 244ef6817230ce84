//! The query string, decoded strictly: names and values as UTF-8 text, or 400.

use actix_web::HttpRequest;

use crate::error::ApiError;

/// The decoded query parameters, in order.
pub fn query_pairs(request: &HttpRequest) -> Result<Vec<(String, String)>, ApiError> {
    parse_query(request.query_string())
}

/// `name=value` pairs, `+` and percent escapes decoded. An escape that decodes to bytes that
/// are not UTF-8 (`siteName=%FF`) is 400 naming its parameter: read as U+FFFD it would have
/// filtered on a value the client never sent.
fn parse_query(query: &str) -> Result<Vec<(String, String)>, ApiError> {
    let decode = |text: &str| {
        let spaced = text.replace('+', " ");
        percent_encoding::percent_decode_str(&spaced)
            .decode_utf8()
            .map(std::borrow::Cow::into_owned)
    };
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = decode(name).map_err(|_| {
                ApiError::bad_request(
                    "the query string is malformed: a parameter name is not UTF-8",
                )
            })?;
            let value = decode(value).map_err(|_| {
                ApiError::field(
                    name.clone(),
                    "is not UTF-8 text once its percent escapes are decoded",
                )
            })?;
            Ok((name, value))
        })
        .collect()
}

/// 400 when the request has any query parameter (operations that take none).
pub fn reject_query(request: &HttpRequest) -> Result<(), ApiError> {
    match query_pairs(request)?.first() {
        Some((name, _)) => Err(ApiError::field(
            name.clone(),
            "unknown query parameter; this operation takes none",
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_decode_strictly() {
        let pairs = parse_query("siteName=like%3Aa+b&&page=1&flag&x=%C3%A9=").expect("pairs");
        insta::assert_debug_snapshot!(pairs, @r#"
        [
            (
                "siteName",
                "like:a b",
            ),
            (
                "page",
                "1",
            ),
            (
                "flag",
                "",
            ),
            (
                "x",
                "é=",
            ),
        ]
        "#);
        let refused = parse_query("page=1&siteName=%FF%FE").unwrap_err();
        insta::assert_snapshot!(refused, @"400 Bad Request: the request is invalid: siteName: is not UTF-8 text once its percent escapes are decoded");
        assert_eq!(parse_query("%FF=1").unwrap_err().status().as_u16(), 400);
    }
}
