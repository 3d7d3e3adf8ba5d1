//! HTTP: one module per area, each with its own `router()`.

pub mod api;
pub mod assets;
pub mod error;
pub mod extract;
pub mod live;
pub mod ops;
pub mod pages;
pub mod security;
pub mod staff;
pub mod staff_api;
pub mod venues;
pub mod views;

use axum::Router;

use crate::app::AppState;
use crate::error::{AppError, Missing};

pub fn router() -> Router<AppState> {
    Router::new()
        .merge(api::router())
        .merge(pages::router())
        .merge(live::router())
        .merge(assets::router())
        .merge(staff::router())
        .merge(staff_api::router())
        .merge(venues::router())
        .merge(ops::router())
        .route_layer(axum::middleware::from_fn(
            crate::observability::track_requests,
        ))
}

pub async fn not_found() -> AppError {
    AppError::NotFound(Missing::Page)
}
