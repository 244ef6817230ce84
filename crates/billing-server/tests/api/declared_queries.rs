//! What the http layer declares as filters and sort keys (read from each declaration) is what
//! storage can run, on both backends: every resource, every filter in each syntax of its kind,
//! every sort key both ways.

api_test! {
    // What the http layer declares as filters and sort keys must be what storage can run: a
    // mismatch would be a 500. Every resource, every filter (each syntax of its kind), every
    // sort key both ways, on a real database.
    fn every_declared_filter_and_sort_key_runs_on_storage(app) {
        use billing_domain::query::FilterKind;
        for resource in billing_http::resources::documentation() {
            let base = format!("/v1/{}?page=1&pageSize=5", resource.path);
            for filter in resource.filters {
                let codes = match filter.kind {
                    FilterKind::Code { codes } => {
                        // A code outside the set is refused, naming the parameter.
                        let reply = app.get(&format!("{base}&{}=NOT_A_CODE", filter.name));
                        assert_eq!(reply.status, 400, "{} NOT_A_CODE: {}", filter.name, reply.text);
                        assert!(reply.text.contains(filter.name), "{}", reply.text);
                        vec![codes[0].to_owned(), format!("in:{}", codes.join(",")), "like:%É_".to_owned()]
                    }
                    _ => Vec::new(),
                };
                let codes: Vec<&str> = codes.iter().map(String::as_str).collect();
                let values: &[&str] = match filter.kind {
                    FilterKind::String => &["x", "in:x,y", "like:%É_"],
                    FilterKind::Code { .. } => &codes,
                    FilterKind::Id => &["1"],
                    FilterKind::Date => &["2026-01-01", "lt:2026-01-01", "gt:2026-01-01", "gtn:2026-01-01"],
                    FilterKind::DateTime => &["2026-01-01T00:00:00Z", "lt:2026-01-01T00:00:00Z", "gt:2026-01-01T00:00:00Z"],
                    FilterKind::Boolean => &["true", "false"],
                    FilterKind::Decimal { scale: 0 } => &["1", "lt:2", "gt:0"],
                    FilterKind::Decimal { .. } => &["1", "lt:1.5", "gt:0"],
                };
                for value in values {
                    let path = format!("{base}&{}={}", filter.name, urlencode(value));
                    let reply = app.get(&path);
                    assert_eq!(reply.status, 200, "GET {path}: {}", reply.text);
                    let reply = app.head(&path.replace("page=1&pageSize=5&", ""));
                    assert!(matches!(reply.status, 200 | 404), "HEAD {path}: {}", reply.status);
                }
            }
            for key in resource.sort_keys {
                for direction in ["asc", "desc"] {
                    let path = format!("{base}&sort={key}:{direction}");
                    let reply = app.get(&path);
                    assert_eq!(reply.status, 200, "GET {path}: {}", reply.text);
                }
            }
            let all = resource.sort_keys.join(",");
            let reply = app.get(&format!("{base}&sort={all}"));
            assert_eq!(reply.status, 200, "{}: sort by every key: {}", resource.path, reply.text);
        }
    }
}

fn urlencode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b':' | b',' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}
