//! Extractors whose rejections are `AppError`s, so malformed input gets the
//! same documented JSON (or HTML) error as everything else: bodies, paths,
//! query strings, the client's address, and a public read's permit.

use crate::error::Malformed;
use crate::error::{AppError, Missing};
use crate::web::reads::ReadPermit;
use crate::web::state::AppState;
use axum::extract::ConnectInfo;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::request::Parts;
use serde::Deserialize;
use std::net::{IpAddr, SocketAddr};

#[derive(FromRequest)]
#[from_request(via(axum::Json), rejection(AppError))]
pub struct ApiJson<T>(pub T);

impl From<JsonRejection> for AppError {
    fn from(rejection: JsonRejection) -> AppError {
        AppError::BadRequest(Malformed::Json(rejection.body_text()))
    }
}

/// A JSON body as its text, for a parser of its own (a layout is read
/// straight into its types; a `serde_json::Value` of a big layout would
/// cost many times its size). Refused as `ApiJson` refuses: a 400 for
/// another content type or text that is not JSON.
pub struct JsonText(pub String);

impl<S: Send + Sync> FromRequest<S> for JsonText {
    type Rejection = AppError;

    async fn from_request(
        request: axum::extract::Request,
        state: &S,
    ) -> Result<JsonText, AppError> {
        let is_json = request
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(';').next())
            .map(|mime| mime.trim().to_ascii_lowercase())
            .is_some_and(|mime| mime == "application/json" || mime.ends_with("+json"));
        if !is_json {
            return Err(AppError::BadRequest(Malformed::Json(
                "Expected request with `Content-Type: application/json`".into(),
            )));
        }
        let text = String::from_request(request, state)
            .await
            .map_err(|rejection| AppError::BadRequest(Malformed::Json(rejection.body_text())))?;
        // Syntax alone, allocating nothing: what it says is refused as
        // axum's `Json` would refuse it.
        if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(&text) {
            return Err(AppError::BadRequest(Malformed::Json(format!(
                "Failed to parse the request body as JSON: {err}"
            ))));
        }
        Ok(JsonText(text))
    }
}

/// Path ids. One that doesn't even parse names nothing that exists: 404.
#[derive(FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(AppError))]
pub struct IdPath<T>(pub T);

impl From<PathRejection> for AppError {
    fn from(_: PathRejection) -> AppError {
        AppError::NotFound(Missing::Page)
    }
}

/// Query strings; one that doesn't parse is a 400 like any other bad input.
#[derive(FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(AppError))]
pub struct QueryInput<T>(pub T);

impl From<QueryRejection> for AppError {
    fn from(rejection: QueryRejection) -> AppError {
        AppError::BadRequest(Malformed::Query(rejection.body_text()))
    }
}

/// The name and email a purchase needs, from JSON or a form. Missing
/// fields read as empty, so they get the rules' 422 rather than a 400.
#[derive(Deserialize, utoipa::ToSchema)]
pub struct BuyerFields {
    #[serde(default)]
    #[schema(min_length = 1, max_length = 200, pattern = "\\S")]
    pub name: String,
    #[serde(default)]
    #[schema(
        max_length = 254,
        pattern = "^[^@\\s]{1,64}@([^@\\s.]{1,63}\\.)+[^@\\s.]{2,63}$"
    )]
    pub email: String,
}

/// Whether htmx sent the request (and so wants a fragment, not a redirect).
pub fn is_htmx(headers: &axum::http::HeaderMap) -> bool {
    headers.get("hx-request").is_some_and(|v| v == "true")
}

/// The client's address: the connection's peer, or the last
/// `X-Forwarded-For` entry when configured to trust a proxy.
#[derive(Debug, Clone, Copy)]
pub struct ClientIp(pub IpAddr);

impl ClientIp {
    /// What limits count the client as: the address, or for IPv6 its /64
    /// (one subscriber's block; see `server::network_of`).
    pub fn network(self) -> IpAddr {
        crate::server::network_of(self.0)
    }
}

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<ClientIp, AppError> {
        if state.config.trust_forwarded_for {
            let forwarded = parts
                .headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .filter_map(|ip| ip.trim().parse::<IpAddr>().ok())
                .next_back();
            if let Some(ip) = forwarded {
                return Ok(ClientIp(ip));
            }
        }
        parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| ClientIp(addr.ip()))
            .ok_or_else(|| {
                AppError::Internal(anyhow::anyhow!(
                    "no peer address: serve the router with app::into_service"
                ))
            })
    }
}

/// A public read waits for its place in the read budget (see `reads`).
impl FromRequestParts<AppState> for ReadPermit {
    type Rejection = AppError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<ReadPermit, AppError> {
        let network = ClientIp::from_request_parts(parts, state).await?.network();
        state.reads.enter(network, state.config.db.pool_wait).await
    }
}
