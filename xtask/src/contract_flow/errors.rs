//! The documented errors the request set provokes, and the deletes that end it.

use serde_json::{Value, json};

use super::{Flow, READER_PASSWORD};

impl Flow<'_> {
    /// The documented errors: 400, 401, 403, 404, 409 (below, deleting), 412, 413, 415, 429;
    /// and 304 for a read whose If-None-Match names the record's ETag.
    pub(super) fn errors(&mut self, created: &[(String, String)]) {
        let reader = self.read_only_token();
        for (collection, record) in created {
            let unpaged = self.send("get", collection, &[], None);
            self.expect_status(&format!("GET {collection} without page"), &unpaged, &[400]);
            let anonymous = self.send(
                "get",
                &format!("{collection}?page=1&pageSize=1"),
                &[("Authorization", "Bearer not-a-token")],
                None,
            );
            self.expect_status(
                &format!("GET {collection} with a bad token"),
                &anonymous,
                &[401],
            );
            let empty = self.send(
                "post",
                collection,
                &[],
                Some(("application/json", "{}".into())),
            );
            self.expect_status(&format!("POST {collection} {{}}"), &empty, &[400, 403]);
            let wrong_type = self.send("post", collection, &[], Some(("text/plain", "x".into())));
            self.expect_status(&format!("POST {collection} as text"), &wrong_type, &[415]);
            let needs_permission =
                self.document["paths"][collection.as_str()]["post"]["description"]
                    .as_str()
                    .is_some_and(|text| text.contains("Needs permission"));
            if let Some(reader) = reader.as_deref().filter(|_| needs_permission)
                && let Ok(example) = self.request_example("post", collection)
            {
                let bearer = format!("Bearer {reader}");
                let forbidden = self.send(
                    "post",
                    collection,
                    &[("Authorization", &bearer)],
                    Some(("application/json", example.to_string())),
                );
                self.expect_status(
                    &format!("POST {collection} as READ_ONLY"),
                    &forbidden,
                    &[403],
                );
            }
            let missing = format!("{collection}/999999999");
            let response = self.send("get", &missing, &[], None);
            self.expect_status(&format!("GET {missing}"), &response, &[404]);
            let template = format!("{collection}/{{id}}");
            if self.has_operation("patch", &template) {
                let stale = self.send(
                    "patch",
                    record,
                    &[("If-Match", "\"999999\"")],
                    Some(("application/json-patch+json", "[]".into())),
                );
                self.expect_status(&format!("PATCH {record} with a stale ETag"), &stale, &[412]);
                let guarded = self.send(
                    "patch",
                    record,
                    &[("If-None-Match", "*")],
                    Some(("application/json-patch+json", "[]".into())),
                );
                self.expect_status(
                    &format!("PATCH {record} with If-None-Match: *"),
                    &guarded,
                    &[412],
                );
            }
            let read = self.send("get", record, &[], None);
            if let Some(etag) = read.header("etag").map(str::to_owned) {
                let current = self.send("get", record, &[("If-None-Match", &etag)], None);
                self.expect_status(
                    &format!("GET {record} naming its ETag in If-None-Match"),
                    &current,
                    &[304],
                );
            }
        }
        let huge = format!("{{\"name\":\"{}\"}}", "x".repeat(17 * 1024 * 1024));
        let response = self.send(
            "post",
            "/v1/charge-groups",
            &[],
            Some(("application/json", huge)),
        );
        self.expect_status("a 17 MiB body", &response, &[413]);
        for _ in 0..6 {
            let body = json!({ "username": "nobody-at-all", "password": "wrong-password" });
            let response = self.send(
                "post",
                "/v1/authenticate",
                &[],
                Some(("application/json", body.to_string())),
            );
            if response.status == 429 {
                return;
            }
        }
        self.report
            .failures
            .push("six failed sign-ins for one username were not throttled (429)".to_owned());
    }

    /// A READ_ONLY user's token, made through the API.
    pub(super) fn read_only_token(&mut self) -> Option<String> {
        let mut user = self.request_example("post", "/v1/users").ok()?;
        user["username"] = json!("contract-reader");
        user["password"] = json!(READER_PASSWORD);
        user["roles"] = json!(["READ_ONLY"]);
        if let Some(members) = user.as_object_mut() {
            members.remove("contractOwnerIds");
        }
        let made = self.send(
            "post",
            "/v1/users",
            &[],
            Some(("application/json", user.to_string())),
        );
        if !self.expect_success("creating a READ_ONLY user", &made) {
            return None;
        }
        let body = json!({ "username": "contract-reader", "password": READER_PASSWORD });
        let signed = self.send(
            "post",
            "/v1/authenticate",
            &[("Authorization", "")],
            Some(("application/json", body.to_string())),
        );
        let tokens: Value = serde_json::from_str(&signed.body).ok()?;
        tokens["token"].as_str().map(str::to_owned)
    }

    /// Deletes what was created: first in creation order (a record still referenced is 409,
    /// naming who refers to it), then what is left, newest first.
    pub(super) fn delete(&mut self, created: &[(String, String)]) {
        let mut left = Vec::new();
        for (collection, record) in created {
            if !self.has_operation("delete", &format!("{collection}/{{id}}")) {
                continue;
            }
            let response = self.send("delete", record, &[], None);
            self.expect_status(&format!("DELETE {record}"), &response, &[204, 409]);
            if response.status == 409 {
                left.push(record.clone());
            }
        }
        for record in left.iter().rev() {
            let response = self.send("delete", record, &[], None);
            self.expect_status(&format!("DELETE {record} at last"), &response, &[204, 409]);
        }
    }
}
