//! `GET /v1/openapi.json` and the human docs page at `/docs` (Swagger UI from vendored assets,
//! reading the served document; the UI needs no token, the API calls it makes do).

use actix_web::{HttpResponse, web};

use crate::state::AppState;

pub async fn openapi(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(&state.openapi)
}

/// `GET /`: to the documentation page (307), which names the document it shows.
pub async fn home() -> HttpResponse {
    HttpResponse::TemporaryRedirect()
        .insert_header((actix_web::http::header::LOCATION, "/docs/"))
        .finish()
}

/// Swagger UI at `/docs/`, pointed at `/v1/openapi.json`.
pub fn swagger_ui() -> utoipa_swagger_ui::SwaggerUi {
    utoipa_swagger_ui::SwaggerUi::new("/docs/{_:.*}")
        .config(utoipa_swagger_ui::Config::new(["/v1/openapi.json"]))
}
