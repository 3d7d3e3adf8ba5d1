//! HTTP, one room per audience: `buyer` and `staff`, each with its own
//! `router()`; the JSON API routed with its document in `openapi`; and the
//! pieces both rooms share beside them (state, render, error, extract,
//! auth, notices, session, security, the map's drawing, reads, assets).

pub mod admission;
pub mod assets;
pub mod auth;
pub mod buyer;
pub mod error;
pub mod event_header;
pub mod extract;
pub mod file_work;
pub mod idempotency;
pub mod json_int;
pub mod lang;
pub mod map;
pub mod map_filters;
pub mod map_overview;
pub mod map_parts;
pub mod notices;
pub mod openapi;
pub mod ops;
pub mod order_access;
pub mod payments;
pub mod precompressed;
pub mod qr;
pub mod queue;
pub mod reads;
pub mod render;
pub mod seat_view;
pub mod security;
pub mod session;
pub mod staff;
pub mod state;

use axum::Router;

use crate::error::{AppError, Missing};
use crate::web::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(buyer::router())
        .merge(staff::router())
        .merge(assets::router())
        .merge(ops::router())
        .merge(openapi::router())
        .route("/language/{tag}", axum::routing::get(lang::switch))
        .route_layer(axum::middleware::from_fn(
            crate::observability::track_requests,
        ))
}

pub async fn not_found() -> AppError {
    AppError::NotFound(Missing::Page)
}
