//! `/v1/charge-group-categories` and `/v1/charge-groups`.

use serde_json::json;

use crate::support::reference_chain;

api_test! {
    fn categories_take_only_known_unit_types(app) {
        let reply = app.post("/v1/charge-group-categories", json!({ "name": "Calls", "chargingUnitType": "SECONDS", "startDate": "2026-01-01" }));
        assert_eq!(reply.error_fields(), vec!["chargingUnitType"]);
        let reply = app.post("/v1/charge-group-categories", json!({ "name": "Calls", "chargingUnitType": "MB", "startDate": "2026-02-01", "endDate": "2026-01-01" }));
        assert_eq!(reply.error_fields(), vec!["endDate"]);
    }

    fn charge_groups_reference_an_existing_category(app) {
        let reply = app.post("/v1/charge-groups", json!({ "name": "UK", "chargeGroupCategoryId": 5, "startDate": "2026-01-01" }));
        assert_eq!(reply.error_fields(), vec!["chargeGroupCategoryId"]);
        let reply = app.post("/v1/charge-groups", json!({ "name": "UK", "chargeGroupCategoryId": 0, "startDate": "2026-01-01" }));
        assert_eq!(reply.error_fields(), vec!["chargeGroupCategoryId"]);
        let chain = reference_chain(&app);
        let listed = app.get(&format!("/v1/charge-groups?page=1&pageSize=10&chargeGroupCategoryId={}", chain.category));
        assert_eq!(listed.header("x-total-count"), Some("1"));
        app.delete(&format!("/v1/charge-group-categories/{}", chain.category)).assert_problem(409);
    }

    fn a_charge_group_in_use_cannot_be_deleted(app) {
        let chain = reference_chain(&app);
        app.create("/v1/reference-data-source-charge-groups", json!({
            "name": "Mobile", "code": "MOB", "chargeGroupId": chain.charge_group, "referenceDataSourceId": chain.open_source, "startDate": "2026-01-01"
        }));
        app.delete(&format!("/v1/charge-groups/{}", chain.charge_group)).assert_problem(409);
    }

    fn read_only_users_cannot_write_reference_data(app) {
        let reader = app.user_with_roles("reader", &["READ_ONLY"]);
        let customers = app.user_with_roles("customers", &["CUSTOMER_MANAGER"]);
        for token in [&reader, &customers] {
            app.post_as(token, "/v1/charge-group-categories", json!({ "name": "X", "chargingUnitType": "MB", "startDate": "2026-01-01" })).assert_problem(403);
            assert_eq!(app.get_as(token, "/v1/charge-groups?page=1&pageSize=10").status, 200);
        }
    }
}
