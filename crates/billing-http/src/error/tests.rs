use actix_web::body::MessageBody;

use super::*;

fn body_of(error: ApiError) -> (u16, Vec<(String, String)>, serde_json::Value) {
    let response = error.error_response();
    let status = response.status().as_u16();
    let mut headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .map(|(name, value)| {
            (
                name.to_string(),
                value.to_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    headers.sort();
    let bytes = response.into_body().try_into_bytes().unwrap_or_default();
    (
        status,
        headers,
        serde_json::from_slice(&bytes).unwrap_or_default(),
    )
}

/// A problem is bounded whatever the request made of it: at most 1,000 entries, a
/// detail of at most 4,000 characters and entries of at most 1,000 (docs/api.md "Errors").
#[test]
fn problems_are_bounded() {
    let mut errors = ValidationErrors::default();
    for index in 0..1500 {
        errors.push(format!("[{index}].name"), "must be 1 to 50 characters long");
    }
    errors.push("x".repeat(5000), "y".repeat(5000));
    let (status, _, body) = body_of(ApiError::validation(errors));
    assert_eq!(status, 400);
    let listed = body["errors"].as_array().expect("errors");
    assert_eq!(listed.len(), PROBLEM_ERRORS_MAX);
    assert_eq!(listed[999]["field"], "[999].name");
    let detail = body["detail"].as_str().expect("detail");
    assert_eq!(detail.chars().count(), PROBLEM_DETAIL_MAX_CHARS);
    assert!(detail.ends_with('…'));
    assert_eq!(body["message"], body["detail"]);

    let mut long = ValidationErrors::default();
    long.push("é".repeat(1001), "short");
    let (_, _, body) = body_of(ApiError::validation(long));
    let field = body["errors"][0]["field"].as_str().expect("field");
    assert_eq!(field.chars().count(), PROBLEM_ERROR_TEXT_MAX_CHARS);
    assert!(field.ends_with("é…"));
    assert_eq!(super::at_most("abc", 3), "abc");
    assert_eq!(super::at_most("abcd", 3), "ab…");
}

#[test]
fn validation_problems_list_every_field() {
    let mut errors = ValidationErrors::default();
    errors.push("name", "must be 1 to 50 characters long (got 0)");
    errors.push("endDate", "must not be before startDate");
    insta::assert_debug_snapshot!(body_of(ApiError::validation(errors)), @r#"
    (
        400,
        [
            (
                "content-type",
                "application/problem+json",
            ),
        ],
        Object {
            "type": String("about:blank"),
            "title": String("Bad Request"),
            "status": Number(400),
            "detail": String("the request is invalid: name: must be 1 to 50 characters long (got 0); endDate: must not be before startDate"),
            "instance": String(""),
            "requestId": String(""),
            "error": String("Bad Request"),
            "message": String("the request is invalid: name: must be 1 to 50 characters long (got 0); endDate: must not be before startDate"),
            "errors": Array [
                Object {
                    "field": String("name"),
                    "message": String("must be 1 to 50 characters long (got 0)"),
                },
                Object {
                    "field": String("endDate"),
                    "message": String("must not be before startDate"),
                },
            ],
        },
    )
    "#);
}

#[test]
fn a_refused_delete_names_what_still_uses_the_record() {
    let error = ApiError::from(PersistenceError::StillReferenced {
        table: "charge_groups",
        id: 3,
        by: vec!["reference_data_source_charge_groups".into(), "sites".into()],
    });
    assert_eq!(error.status(), StatusCode::CONFLICT);
    insta::assert_snapshot!(error.detail(), @"charge group 3 is still used by: referenceDataSourceChargeGroups, sites");
    let noun = |table| record_noun(table);
    assert_eq!(
        [noun("currencies"), noun("site_addresses"), noun("locales")],
        ["currency", "site address", "locale"]
    );
}

#[test]
fn internal_errors_hide_their_cause() {
    let (status, _, body) = body_of(ApiError::internal(
        "connection refused to 10.0.0.5 with password hunter2",
    ));
    assert_eq!(status, 500);
    assert!(!body.to_string().contains("hunter2"));
    assert!(!body.to_string().contains("10.0.0.5"));
}

#[test]
fn status_specific_headers() {
    let (_, headers, _) = body_of(ApiError::unauthorized(
        "the access token has expired",
        Some("invalid_token"),
    ));
    assert!(headers.contains(&(
        "www-authenticate".into(),
        "Bearer realm=\"billing\", error=\"invalid_token\", error_description=\"the access token has expired\"".into()
    )));
    let (_, headers, _) = body_of(ApiError::too_many_requests("slow down", 30));
    assert!(headers.contains(&("retry-after".into(), "30".into())));
    let (_, headers, _) = body_of(ApiError::method_not_allowed("GET, HEAD"));
    assert!(headers.contains(&("allow".into(), "GET, HEAD".into())));
}
