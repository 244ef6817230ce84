use super::*;

fn today() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, 24).expect("a date")
}

fn fields(body: &str) -> Vec<String> {
    match parse(body.as_bytes(), today()) {
        Err(BodyError::Fields(errors)) => errors
            .into_iter()
            .map(|e| format!("{}: {}", e.field, e.message))
            .collect(),
        other => panic!("expected field errors, got {other:?}"),
    }
}

#[test]
fn a_good_body_is_read_whole() {
    let lookup = parse(
        br#"{"referenceDataSourceId":3,"date":"2026-01-02","items":[{"dialledNumber":"441","callClass":null},{"serviceId":"S"}]}"#,
        today(),
    )
    .expect("a good body");
    assert_eq!(lookup.source, 3);
    assert_eq!(lookup.date.to_string(), "2026-01-02");
    assert_eq!(
        lookup.items,
        [
            Item {
                dialled_number: Some("441".into()),
                ..Item::default()
            },
            Item {
                service_id: Some("S".into()),
                ..Item::default()
            },
        ]
    );
    let undated = parse(br#"{"referenceDataSourceId":3,"items":[{}]}"#, today()).expect("ok");
    assert_eq!(undated.date, today());
}

#[test]
fn every_broken_member_is_named() {
    insta::assert_debug_snapshot!(fields(
        r#"{"referenceDataSourceId":"3","date":5,"extra":[1,{"a":2}],"items":[1,{"dialledNumber":7,"callClass":[],"x":null},{"serviceId":"y"}]}"#
    ), @r#"
    [
        "referenceDataSourceId: must be an integer >= 1",
        "date: must be a date (yyyy-MM-dd)",
        "extra: unknown field",
        "items[0]: must be an object",
        "items[1].dialledNumber: must be a string or null",
        "items[1].callClass: must be a string or null",
        "items[1].x: unknown field",
    ]
    "#);
    assert_eq!(fields("[]"), ["body: must be a JSON object"]);
    assert_eq!(fields("12"), ["body: must be a JSON object"]);
    assert_eq!(
        fields(r#"{"items":[]}"#),
        [
            "items: must hold 1 to 10000 items (got 0)",
            "referenceDataSourceId: is required"
        ]
    );
    assert_eq!(
        fields(r#"{"referenceDataSourceId":1,"items":{}}"#),
        ["items: must be an array of objects"]
    );
    assert_eq!(
        fields(r#"{"referenceDataSourceId":1.5,"items":[2.5, "x"]}"#),
        [
            "referenceDataSourceId: must be an integer >= 1",
            "items[0]: must be an object",
            "items[1]: must be an object"
        ]
    );
    assert_eq!(
        fields(r#"{"referenceDataSourceId":0,"items":null}"#),
        [
            "referenceDataSourceId: must be an integer >= 1",
            "items: is required"
        ]
    );
}

#[test]
fn reading_stops_at_the_first_item_too_many() {
    let mut body = String::from(r#"{"referenceDataSourceId":1,"items":["#);
    for _ in 0..MAX_ITEMS {
        body.push_str("{},");
    }
    body.push_str(r#"{}"#);
    // Not even valid JSON after the item too many: the reading has stopped before it.
    body.push_str(",,,");
    assert_eq!(
        fields(&body),
        ["items: must hold 1 to 10000 items (got more)"]
    );
    let exactly = format!(
        r#"{{"referenceDataSourceId":1,"items":[{}{{}}]}}"#,
        "{},".repeat(MAX_ITEMS - 1)
    );
    assert_eq!(
        parse(exactly.as_bytes(), today()).expect("ok").items.len(),
        MAX_ITEMS
    );
}

#[test]
fn at_most_a_hundred_errors_and_then_the_reading_stops() {
    let body = format!(
        r#"{{"referenceDataSourceId":1,"items":[{}1]}}"#,
        "1,".repeat(5000)
    );
    assert_eq!(fields(&body).len(), MAX_ERRORS);
}

#[test]
fn broken_json_is_a_syntax_error() {
    assert!(matches!(
        parse(br#"{"items": [}"#, today()),
        Err(BodyError::Syntax(_))
    ));
    assert!(matches!(
        parse(br#"{"referenceDataSourceId":1,"items":[{}]} x"#, today()),
        Err(BodyError::Syntax(_))
    ));
}

#[test]
fn a_member_named_twice_is_refused_not_read_as_its_last_value() {
    insta::assert_snapshot!(
        fields(r#"{"referenceDataSourceId":1,"items":[{"dialledNumber":"1","dialledNumber":"2"}],"referenceDataSourceId":2}"#).join("\n"),
        @r"
    items[0].dialledNumber: is given more than once: an object names each member once
    referenceDataSourceId: is given more than once: an object names each member once
    "
    );
}
