//! HTTP/1.1 pipelining (docs/api.md "Everywhere"): requests sent one after another on a
//! connection, before any answer, are answered in order, each framed by its own method: a
//! `HEAD` answer has no body and the `GET` beside it keeps its own.

use std::io::{Read, Write};

use serde_json::{Value, json};

use crate::hostile::connect;
use crate::support::TestApp;

const PATH: &str = "/v1/charge-group-categories";

/// One answer read off the connection: its status line, headers and body.
struct Answer {
    status: u16,
    content_length: Option<usize>,
    body: Vec<u8>,
}

/// Sends `requests` (method, path, body) in one write on one connection, the last with
/// `Connection: close`, and reads the answers in order, framing each by its request's method.
fn pipelined(app: &TestApp, requests: &[(&str, String, Option<Value>)]) -> Vec<Answer> {
    let mut stream = connect(app);
    let mut sent = Vec::new();
    for (index, (method, path, body)) in requests.iter().enumerate() {
        let close = if index + 1 == requests.len() {
            "connection: close\r\n"
        } else {
            ""
        };
        let body = body.as_ref().map(Value::to_string).unwrap_or_default();
        let typed = if body.is_empty() {
            String::new()
        } else {
            format!(
                "content-type: application/json\r\ncontent-length: {}\r\n",
                body.len()
            )
        };
        sent.extend_from_slice(format!("{method} {path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {}\r\n{typed}{close}\r\n{body}", app.admin_token).as_bytes());
    }
    stream.write_all(&sent).expect("send");
    let mut received = Vec::new();
    stream.read_to_end(&mut received).expect("read");
    let mut rest = received.as_slice();
    let mut answers = Vec::new();
    for (method, path, _) in requests {
        let end = rest
            .windows(4)
            .position(|window| window == b"\r\n\r\n")
            .unwrap_or_else(|| {
                panic!(
                    "{method} {path}: no answer head in {:?}",
                    String::from_utf8_lossy(rest)
                )
            });
        let head = String::from_utf8_lossy(&rest[..end]).into_owned();
        rest = &rest[end + 4..];
        let status = head
            .get(9..12)
            .and_then(|status| status.parse().ok())
            .unwrap_or_else(|| panic!("{method} {path}: not a status line: {head:?}"));
        let content_length = head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().expect("a length"))
        });
        let length = if *method == "HEAD" {
            0
        } else {
            content_length.unwrap_or(0)
        };
        assert!(
            rest.len() >= length,
            "{method} {path}: the body is cut short: {head}"
        );
        answers.push(Answer {
            status,
            content_length,
            body: rest[..length].to_vec(),
        });
        rest = &rest[length..];
    }
    assert!(
        rest.is_empty(),
        "bytes after the last answer: {:?}",
        String::from_utf8_lossy(rest)
    );
    answers
}

api_test! {
    fn pipelined_requests_are_each_answered_with_their_own_framing(app) {
        for name in ["Calls", "Data"] {
            app.create(PATH, json!({ "name": name, "chargingUnitType": "DURATION", "startDate": "2026-01-01" }));
        }
        let item = format!("{PATH}/1");
        let list = format!("{PATH}?page=1&pageSize=10");
        let answers = pipelined(&app, &[
            ("GET", item.clone(), None),
            ("HEAD", item.clone(), None),
            ("GET", list.clone(), None),
            ("HEAD", list.clone(), None),
            ("POST", PATH.to_owned(), Some(json!({ "name": "Fax", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }))),
            ("HEAD", format!("{PATH}/3"), None),
            ("GET", format!("{PATH}/2"), None),
            ("HEAD", format!("{PATH}/99"), None),
            ("GET", item.clone(), None),
        ]);
        let statuses: Vec<u16> = answers.iter().map(|answer| answer.status).collect();
        assert_eq!(statuses, [200, 200, 200, 200, 201, 200, 200, 404, 200]);
        let json = |index: usize| -> Value { serde_json::from_slice(&answers[index].body).unwrap_or_else(|e| panic!("answer {index}: {e}")) };
        assert_eq!(json(0)["name"], "Calls");
        assert_eq!(json(2).as_array().map(Vec::len), Some(2));
        assert_eq!(json(4)["name"], "Fax");
        assert_eq!(json(6)["name"], "Data");
        assert_eq!(json(8)["name"], "Calls");
        // A HEAD answer tells the length a GET's body would have, and carries none.
        assert_eq!(answers[1].content_length, answers[0].content_length);
        assert!(answers[1].body.is_empty() && answers[3].body.is_empty());
    }

    fn a_request_behind_a_chunked_body_is_still_answered(app) {
        // A chunked body is passed on as it comes; what follows it is answered too.
        let mut stream = connect(&app);
        let body = json!({ "name": "Calls", "chargingUnitType": "DURATION", "startDate": "2026-01-01" }).to_string();
        let token = &app.admin_token;
        let requests = format!(
            "POST {PATH} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {token}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\nGET {PATH}/1 HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {token}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(requests.as_bytes()).expect("send");
        let mut received = String::new();
        stream.read_to_string(&mut received).expect("read");
        assert!(received.starts_with("HTTP/1.1 201"), "{received}");
        assert_eq!(received.matches("HTTP/1.1 200").count(), 1, "{received}");
        assert!(received.ends_with(r#""endDate":null}"#), "{received}");
    }
}
