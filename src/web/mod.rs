//! HTTP, one room per audience: `buyer` (pages, actions, checkout, live
//! feed, JSON API) and `staff` (sign-in, console, venues, staff API), each
//! with its own `router()`; shared pieces beside them (render, error,
//! extract, security, views, state).

pub mod assets;
pub mod buyer;
pub mod error;
pub mod extract;
pub mod json_int;
pub mod map;
pub mod openapi;
pub mod ops;
pub mod precompressed;
pub mod qr;
pub mod reads;
pub mod render;
pub mod security;
pub mod staff;
pub mod state;
pub mod views;

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
        .route_layer(axum::middleware::from_fn(
            crate::observability::track_requests,
        ))
}

pub async fn not_found() -> AppError {
    AppError::NotFound(Missing::Page)
}
