//! For operators and load balancers: liveness, readiness, metrics.

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use crate::db;
use crate::observability;
use crate::web::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
}

/// The process is up and serving.
async fn healthz() -> &'static str {
    "ok"
}

/// A primary answers (not a standby: after a failover the pool's new
/// connections find the new one) and its schema is what this build
/// expects; 503 otherwise (quickly: the pool's wait is bounded).
async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    let check = async {
        let client = state.pool.get().await?;
        Ok::<_, crate::error::AppError>((
            db::is_primary(&client).await?,
            db::migrations_current(&client).await?,
        ))
    };
    match check.await {
        Ok((false, _)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "database": "standby", "primary": false })),
        ),
        Ok((true, true)) => (
            StatusCode::OK,
            Json(json!({ "database": "ok", "primary": true, "migrations": "current" })),
        ),
        Ok((true, false)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "database": "ok", "migrations": "pending" })),
        ),
        Err(err) => {
            if err.is_connection_lost() {
                crate::db::outage::connection_lost();
            }
            tracing::warn!(error = %err, "not ready");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({ "database": "unreachable" })),
            )
        }
    }
}

/// Prometheus text format. Pool figures are read at scrape time. With
/// `SEATMAP_METRICS_TOKEN` set, only a scraper bearing it is answered.
async fn metrics(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(token) = &state.config.metrics_token {
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .unwrap_or("");
        if !crate::web::security::constant_time_eq(bearer.trim(), token.expose()) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "metrics need the token set in SEATMAP_METRICS_TOKEN\n",
            )
                .into_response();
        }
    }
    let status = state.pool.status();
    metrics::gauge!("seatmap_db_pool_size").set(status.size as f64);
    metrics::gauge!("seatmap_db_pool_available").set(status.available as f64);
    metrics::gauge!("seatmap_db_pool_max_size").set(status.max_size as f64);
    metrics::gauge!("seatmap_db_pool_waiting").set(status.waiting as f64);
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        observability::metrics().render(),
    )
        .into_response()
}
