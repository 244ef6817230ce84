//! Routing: the collection and item routes of a resource, and 405 with `Allow`.

use super::*;

/// The methods a path answers, for `Allow` and 405.
fn allowed(methods: &[(&'static str, bool)]) -> String {
    methods
        .iter()
        .filter(|(_, on)| *on)
        .map(|(method, _)| *method)
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn method_not_allowed(allow: String) -> actix_web::Route {
    web::route().to(move || {
        let allow = allow.clone();
        async move { Err::<HttpResponse, ApiError>(ApiError::method_not_allowed(&allow)) }
    })
}

/// Routes `R` under the current scope: the collection and, when it has ids, the item, both in
/// a scope of their own (`/charge-groups`). A scope's path has no parameter, so the router
/// compares it as text; without it every item path of the resources routed before (`/{id}`)
/// was tried as a regular expression first: about 30,000 instructions a request, a seventh of
/// an authenticated GET by id.
///
/// The item is the scope's default service (`item`), not a `/{id}` resource: a path
/// parameter makes the router run a regular expression on every item request (about 10,000
/// instructions, a sixth of a get by id), where splitting the rest of the path is a few dozen.
pub fn register<R: Resource>(config: &mut web::ServiceConfig) {
    let ops = R::OPERATIONS;
    let mut collection = web::resource("")
        .route(web::get().to(list::<R>))
        .route(web::head().to(exists::<R>));
    if ops.create {
        collection = collection.route(web::post().to(create::<R>));
    }
    if ops.bulk_update {
        collection = collection.route(web::patch().to(bulk_update::<R>));
    }
    let allow = allowed(&[
        ("GET", true),
        ("HEAD", true),
        ("POST", ops.create),
        ("PATCH", ops.bulk_update),
    ]);
    let scope = web::scope(&format!("/{}", R::PATH))
        .service(collection.default_service(method_not_allowed(allow)));
    if !ops.get {
        config.service(scope);
        return;
    }
    config.service(scope.default_service(web::to(item::<R>)));
}

/// The methods an item of `R` answers, for `Allow` and 405.
fn item_methods<R: Resource>() -> String {
    let ops = R::OPERATIONS;
    allowed(&[
        ("GET", true),
        ("HEAD", true),
        ("PUT", ops.replace),
        ("PATCH", ops.patch),
        ("DELETE", ops.delete),
    ])
}

/// `/{path}/{id}` of `R`, reached as its scope's default service: the rest of the path must be
/// one segment (the id, read by [`path_id`]), else this is the unknown route's 404. Each method
/// goes to its handler with the extractors its signature names, in the same order; HEAD
/// answers as GET does (status, ETag, Content-Type, Content-Length; actix sends no body for a
/// HEAD request); any other method is 405 with `Allow`, before the caller is checked.
async fn item<R: Resource>(request: HttpRequest, payload: web::Payload) -> Handled {
    use actix_web::FromRequest;
    use actix_web::http::Method;
    let one_segment = request
        .match_info()
        .unprocessed()
        .strip_prefix('/')
        .is_some_and(|id| !id.is_empty() && !id.contains('/'));
    if !one_segment {
        return Err(crate::unknown_route(&request));
    }
    // The router matched no pattern: the request log and metrics name the route from this.
    actix_web::HttpMessage::extensions_mut(&request)
        .insert(crate::request_context::ItemRoute(R::PATH));
    let ops = R::OPERATIONS;
    let method = request.method().clone();
    let answered = match method {
        Method::GET | Method::HEAD => true,
        Method::PUT => ops.replace,
        Method::PATCH => ops.patch,
        Method::DELETE => ops.delete,
        _ => false,
    };
    if !answered {
        return Err(ApiError::method_not_allowed(&item_methods::<R>()));
    }
    let state = web::Data::<AppState>::extract(&request)
        .await
        .map_err(|_| ApiError::internal("application state missing"))?;
    if matches!(method, Method::GET | Method::HEAD) {
        let caller = ReadCaller::extract(&request).await?;
        return get::<R>(request, state, caller).await;
    }
    let caller = Caller::extract(&request).await?;
    match method {
        Method::PUT => replace::<R>(request, state, caller, payload).await,
        Method::PATCH => patch::<R>(request, state, caller, payload).await,
        _ => delete::<R>(request, state, caller).await,
    }
}
