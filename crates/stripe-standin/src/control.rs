//! `/_standin/…`: what the browser tests set and read over HTTP.

use std::collections::HashMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::standin::StandIn;

/// `POST /_standin/webhook-delay?ms=…`: how long a hosted payment's
/// webhook waits after the buyer is sent back (0: sent before).
pub(crate) async fn set_webhook_delay(
    State(standin): State<StandIn>,
    axum::extract::Query(query): axum::extract::Query<HashMap<String, u64>>,
) -> StatusCode {
    let ms = query.get("ms").copied().unwrap_or(0).min(60_000);
    standin.delay_webhooks(std::time::Duration::from_millis(ms));
    StatusCode::NO_CONTENT
}

pub(crate) async fn ledger(State(standin): State<StandIn>) -> Json<Value> {
    let shared = standin.lock();
    Json(json!({
        "captures": shared.captures,
        "refunds": shared.refunds,
        "captured_total": shared.captures.iter().map(|c| c.amount).sum::<i64>(),
        "refunded_total": shared.refunds.iter().map(|r| r.amount).sum::<i64>(),
    }))
}
