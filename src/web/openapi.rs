//! The OpenAPI 3.1 document, made from the handlers' own annotations and
//! types (utoipa), served at `/api/openapi.json`; and `/api/docs`, a
//! viewer vendored from npm (no CDN).

use axum::Json;
use axum::Router;
use axum::response::Html;
use axum::routing::get;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use std::sync::Arc;

use utoipa_axum::router::OpenApiRouter;

use crate::web::state::AppState;
use crate::web::{buyer, staff};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "seatmap",
        description = "Holds, purchases, tickets and the box office. A browser is identified by its session cookie; another server by `Authorization: Bearer <key>` (see `seatmap apikey`), a sell key naming its customer in `X-Customer-Ref`. Every error is `{\"error\": <code>, \"message\": <words>, ...}`."
    ),
    components(schemas(crate::web::error::ErrorBody)),
    modifiers(&Security),
    tags(
        (name = "buyers", description = "The seat map's API: events, holds, purchases, orders"),
        (name = "staff", description = "The box office: a staff session or a box-office key"),
        (name = "payments", description = "The payment provider's calls back to seatmap"),
    )
)]
pub struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new(
                crate::web::security::SESSION_COOKIE,
            ))),
        );
    }
}

/// Every API operation, each area's list merged: the one list both the
/// routes and the document are made from.
fn api() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(buyer::api::routes())
        .merge(buyer::tickets::routes())
        .merge(buyer::transfer::routes())
        .merge(staff::seats_api::routes())
        .merge(staff::venues_api::routes())
        .merge(staff::orders_api::routes())
        .merge(staff::payments_api::routes())
        .merge(staff::accessible::routes())
        .merge(staff::price_types_api::routes())
        .merge(staff::promo_codes_api::routes())
        .merge(staff::seasons_api::routes())
        .merge(buyer::seasons_api::routes())
        .merge(staff::reports_api::routes())
        .merge(staff::door::routes())
        .merge(staff::door_offline::routes())
        .merge(buyer::waitlist::routes())
        .merge(staff::waitlist::routes())
        .merge(crate::web::payments::routes())
        .merge(crate::web::queue::api::routes())
}

/// The API's routes, its document at `/api/openapi.json`, and the viewer.
pub fn router() -> Router<AppState> {
    let (routes, document) = api().split_for_parts();
    let document = Arc::new(as_json(document));
    routes
        .route(
            "/api/openapi.json",
            get(move || async move { Json(document.as_ref().clone()) }),
        )
        .route("/api/docs", get(docs))
}

/// The document as JSON (what `/api/openapi.json` serves).
pub fn document_json() -> serde_json::Value {
    as_json(api().split_for_parts().1)
}

/// utoipa 5.5 writes a link's fields in snake case (`operation_id`);
/// OpenAPI spells them `operationId`, `operationRef` and `requestBody`, and
/// tools ignore a link without them.
fn as_json(document: utoipa::openapi::OpenApi) -> serde_json::Value {
    let mut json = serde_json::to_value(document).expect("the document serializes");
    let links = json["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(|item| item.as_object_mut())
        .flat_map(|item| item.values_mut())
        .filter_map(|operation| operation["responses"].as_object_mut())
        .flat_map(|responses| responses.values_mut())
        .filter_map(|response| response.get_mut("links").and_then(|l| l.as_object_mut()))
        .flat_map(|links| links.values_mut())
        .filter_map(|link| link.as_object_mut());
    for link in links {
        for (snake, camel) in [
            ("operation_id", "operationId"),
            ("operation_ref", "operationRef"),
            ("request_body", "requestBody"),
        ] {
            if let Some(value) = link.remove(snake) {
                link.insert(camel.to_string(), value);
            }
        }
    }
    json
}

/// The viewer: Swagger UI's files from `static/swagger-ui/`, started by a
/// script of ours (the CSP allows no inline script).
async fn docs() -> Html<&'static str> {
    Html(
        r#"<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API · seatmap</title>
  <link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/static/swagger-ui/swagger-ui.css">
  <script src="/static/swagger-ui/swagger-ui-bundle.js" defer></script>
  <script src="/static/api-docs.js" defer></script>
</head>
<body>
  <main id="api-docs"><p>Loading the API description… It is also at <a href="/api/openapi.json">/api/openapi.json</a>.</p></main>
</body>
</html>"#,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_names_every_error_code_and_both_ways_in() {
        let json = document_json();
        assert_eq!(json["openapi"].as_str().map(|v| &v[..2]), Some("3."));
        let codes = &json["components"]["schemas"]["ErrorBody"]["properties"]["error"]["enum"];
        for code in crate::error::ErrorCode::ALL {
            assert!(
                codes.as_array().unwrap().contains(&serde_json::json!(code)),
                "{code}"
            );
        }
        let schemes = &json["components"]["securitySchemes"];
        assert!(schemes["api_key"].is_object() && schemes["session"].is_object());
        assert!(
            json["paths"]
                .as_object()
                .unwrap()
                .keys()
                .all(|path| path.starts_with("/api/") || path == "/payments/stripe/webhook")
        );
        let purchase = &json["paths"]["/api/events/{event_id}/holds"]["post"]["responses"]["201"]["links"]
            ["purchase"];
        assert_eq!(purchase["operationId"], "purchase");
        assert!(purchase.get("operation_id").is_none());
    }
}
