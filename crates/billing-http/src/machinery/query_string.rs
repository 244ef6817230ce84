//! The query string, decoded strictly: names and values as UTF-8 text, or 400.

use actix_web::HttpRequest;

use crate::error::ApiError;

/// The decoded query parameters, in order.
pub fn query_pairs(request: &HttpRequest) -> Result<Vec<(String, String)>, ApiError> {
    parse_query(request.query_string())
}

/// `name=value` pairs, `+` and percent escapes decoded. An escape that decodes to bytes that
/// are not UTF-8 (`siteName=%FF`) is 400 naming its parameter: read as U+FFFD it would have
/// filtered on a value the client never sent. So is a `%` that starts no escape
/// (`siteName=%zz`): taken as itself, it would filter on a text the client did not mean.
fn parse_query(query: &str) -> Result<Vec<(String, String)>, ApiError> {
    let decode = |text: &str| {
        if has_a_bare_percent(text) {
            return Err(());
        }
        let spaced = text.replace('+', " ");
        percent_encoding::percent_decode_str(&spaced)
            .decode_utf8()
            .map(std::borrow::Cow::into_owned)
            .map_err(|_| ())
    };
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = decode(name).map_err(|_| {
                ApiError::bad_request(
                    "the query string is malformed: a parameter name is not UTF-8 text once \
                     its percent escapes (%XX) are decoded",
                )
            })?;
            let value = decode(value).map_err(|_| {
                ApiError::field(
                    name.clone(),
                    "is not UTF-8 text once its percent escapes (%XX; a % itself is %25) are decoded",
                )
            })?;
            Ok((name, value))
        })
        .collect()
}

/// Whether `text` holds a `%` not followed by two hexadecimal digits.
fn has_a_bare_percent(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(at, byte)| {
        *byte == b'%'
            && !bytes
                .get(at + 1..at + 3)
                .is_some_and(|digits| digits.iter().all(u8::is_ascii_hexdigit))
    })
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
        insta::assert_snapshot!(refused, @"400 Bad Request: the request is invalid: siteName: is not UTF-8 text once its percent escapes (%XX; a % itself is %25) are decoded");
        assert_eq!(parse_query("%FF=1").unwrap_err().status().as_u16(), 400);
        for bare in [
            "siteName=%zz",
            "siteName=50%",
            "siteName=%4",
            "siteName=a%g1",
        ] {
            let refused = parse_query(&format!("page=1&{bare}")).unwrap_err();
            assert_eq!(refused.status().as_u16(), 400, "{bare}");
            assert!(
                refused.to_string().contains("siteName: "),
                "{bare}: {refused}"
            );
        }
        assert_eq!(
            parse_query("siteName=50%25&x=%41").expect("escapes"),
            [("siteName".into(), "50%".into()), ("x".into(), "A".into())]
        );
    }
}
