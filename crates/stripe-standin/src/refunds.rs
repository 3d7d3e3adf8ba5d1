//! Refunds: never more than is left of a payment.

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::api::{Idempotent, error, field, form, gate, idempotent_in, invalid, take_lost_answer};
use crate::standin::StandIn;
use crate::state::{RefundRecord, now, random_id};

pub(crate) async fn create_refund(
    State(standin): State<StandIn>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Some(refused) = gate(&standin, &headers, "/v1/refunds") {
        return refused;
    }
    let pairs = match form(&body) {
        Ok(pairs) => pairs,
        Err(refused) => return refused,
    };
    let what = format!("POST /v1/refunds {}", String::from_utf8_lossy(&body));
    // One lock from the key's check to its answer kept, as for sessions.
    let mut shared = standin.lock();
    let key = match idempotent_in(&shared, &headers, &what) {
        Idempotent::Replay(response) => return response,
        Idempotent::Fresh(key) => key,
    };
    let Some(intent) = field(&pairs, "payment_intent") else {
        return invalid("Missing required param: payment_intent.", "payment_intent");
    };
    let Some(captured) = shared
        .captures
        .iter()
        .find(|c| c.payment_intent == intent)
        .map(|c| c.amount)
    else {
        drop(shared);
        return error(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            &format!("No such payment_intent: '{intent}'"),
            Some("payment_intent"),
            Some("resource_missing"),
        );
    };
    let refunded: i64 = shared
        .refunds
        .iter()
        .filter(|r| r.payment_intent == intent)
        .map(|r| r.amount)
        .sum();
    let left = captured - refunded;
    let amount = match field(&pairs, "amount") {
        Some(text) => match text.parse::<i64>() {
            Ok(amount) if amount > 0 => amount,
            _ => {
                drop(shared);
                return invalid("Invalid positive integer", "amount");
            }
        },
        None => left,
    };
    if left <= 0 {
        drop(shared);
        return error(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            &format!("Charge for payment_intent {intent} has already been refunded."),
            None,
            Some("charge_already_refunded"),
        );
    }
    if amount > left {
        drop(shared);
        return error(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            &format!(
                "Refund amount ({amount}) is greater than unrefunded amount on charge ({left})"
            ),
            Some("amount"),
            Some("amount_too_large"),
        );
    }
    let refund = RefundRecord {
        id: random_id("re"),
        payment_intent: intent.to_string(),
        amount,
    };
    shared.refunds.push(refund.clone());
    let body = json!({
        "id": refund.id,
        "object": "refund",
        "amount": amount,
        "created": now(),
        "payment_intent": intent,
        "status": "succeeded",
    });
    if let Some(key) = key {
        shared.idempotency.insert(key, (what, 200, body.clone()));
    }
    if let Some(lost) = take_lost_answer(&mut shared) {
        return lost;
    }
    Json(body).into_response()
}
