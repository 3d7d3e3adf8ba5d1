//! Checkout Sessions: create, retrieve and expire.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::api::{Idempotent, error, field, form, gate, idempotent_in, invalid, take_lost_answer};
use crate::events::{make_event, signature_header};
use crate::standin::StandIn;
use crate::state::{Session, now, random_id};

pub(crate) fn session_json(session: &Session, base_url: &str) -> Value {
    json!({
        "id": session.id,
        "object": "checkout.session",
        "amount_subtotal": session.amount_total,
        "amount_total": session.amount_total,
        "cancel_url": session.cancel_url,
        "client_reference_id": session.client_reference_id,
        "created": session.created,
        "currency": session.currency,
        "customer_email": session.customer_email,
        "expires_at": session.expires_at,
        "livemode": false,
        "metadata": session.metadata,
        "mode": "payment",
        "payment_intent": session.payment_intent,
        "payment_status": session.payment_status,
        "status": session.status,
        "success_url": session.success_url,
        "url": if session.status == "open" { json!(format!("{base_url}/c/pay/{}", session.id)) } else { Value::Null },
    })
}

pub(crate) async fn create_session(
    State(standin): State<StandIn>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Some(refused) = gate(&standin, &headers, "/v1/checkout/sessions") {
        return refused;
    }
    let pairs = match form(&body) {
        Ok(pairs) => pairs,
        Err(refused) => return refused,
    };
    let what = format!(
        "POST /v1/checkout/sessions {}",
        String::from_utf8_lossy(&body)
    );
    // One lock from the key's check to its answer kept: two creates with
    // one key at once make one session, as at Stripe.
    let mut shared = standin.lock();
    let key = match idempotent_in(&shared, &headers, &what) {
        Idempotent::Replay(response) => return response,
        Idempotent::Fresh(key) => key,
    };
    let session = match new_session(&pairs) {
        Ok(session) => session,
        Err(refused) => return refused,
    };
    let body = session_json(&session, &standin.base_url);
    shared.sessions.insert(session.id.clone(), session);
    if let Some(key) = key {
        shared.idempotency.insert(key, (what, 200, body.clone()));
    }
    if let Some(lost) = take_lost_answer(&mut shared) {
        return lost;
    }
    Json(body).into_response()
}

fn new_session(pairs: &[(String, String)]) -> Result<Session, Response> {
    match field(pairs, "mode") {
        Some("payment") => {}
        Some(_) => return Err(invalid("The stand-in covers mode=payment only.", "mode")),
        None => return Err(invalid("Missing required param: mode.", "mode")),
    }
    let success_url = field(pairs, "success_url")
        .ok_or_else(|| invalid("Missing required param: success_url.", "success_url"))?;
    let mut lines = Vec::new();
    let mut currency: Option<String> = None;
    for i in 0.. {
        let at = |rest: &str| field(pairs, &format!("line_items[{i}]{rest}"));
        if pairs
            .iter()
            .all(|(k, _)| !k.starts_with(&format!("line_items[{i}]")))
        {
            break;
        }
        let param = format!("line_items[{i}][price_data][unit_amount]");
        let amount: i64 = at("[price_data][unit_amount]")
            .and_then(|v| v.parse().ok())
            .filter(|v: &i64| *v >= 0)
            .ok_or_else(|| invalid("Invalid non-negative integer", &param))?;
        let quantity: i64 = at("[quantity]")
            .and_then(|v| v.parse().ok())
            .filter(|v: &i64| *v > 0)
            .ok_or_else(|| {
                invalid(
                    "Invalid positive integer",
                    &format!("line_items[{i}][quantity]"),
                )
            })?;
        let line_currency = at("[price_data][currency]")
            .filter(|c| c.len() == 3 && c.chars().all(|ch| ch.is_ascii_lowercase()))
            .ok_or_else(|| {
                invalid(
                    "Invalid currency",
                    &format!("line_items[{i}][price_data][currency]"),
                )
            })?;
        if currency.as_deref().is_some_and(|c| c != line_currency) {
            return Err(invalid(
                "All line items must use the same currency.",
                &format!("line_items[{i}][price_data][currency]"),
            ));
        }
        currency = Some(line_currency.to_string());
        let name = at("[price_data][product_data][name]")
            .filter(|n| !n.trim().is_empty())
            .ok_or_else(|| {
                invalid(
                    "Missing required param: name.",
                    &format!("line_items[{i}][price_data][product_data][name]"),
                )
            })?;
        lines.push((name.to_string(), amount, quantity));
    }
    if lines.is_empty() {
        return Err(invalid("Missing required param: line_items.", "line_items"));
    }
    let created = now();
    let expires_at = match field(pairs, "expires_at") {
        Some(text) => {
            let at: i64 = text
                .parse()
                .map_err(|_| invalid("Invalid integer", "expires_at"))?;
            if at < created + 30 * 60 {
                return Err(invalid(
                    "The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.",
                    "expires_at",
                ));
            }
            if at > created + 24 * 3600 {
                return Err(invalid(
                    "The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.",
                    "expires_at",
                ));
            }
            at
        }
        None => created + 24 * 3600,
    };
    let mut metadata = serde_json::Map::new();
    for (k, v) in pairs {
        if let Some(name) = k
            .strip_prefix("metadata[")
            .and_then(|rest| rest.strip_suffix(']'))
        {
            metadata.insert(name.to_string(), json!(v));
        }
    }
    Ok(Session {
        id: random_id("cs"),
        created,
        expires_at,
        currency: currency.unwrap_or_default(),
        amount_total: lines
            .iter()
            .map(|(_, amount, quantity)| amount * quantity)
            .sum(),
        client_reference_id: field(pairs, "client_reference_id").map(str::to_string),
        customer_email: field(pairs, "customer_email").map(str::to_string),
        metadata,
        success_url: success_url.to_string(),
        cancel_url: field(pairs, "cancel_url").map(str::to_string),
        status: "open".into(),
        payment_status: "unpaid".into(),
        payment_intent: None,
        lines,
    })
}

fn missing(id: &str) -> Response {
    error(
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        &format!("No such checkout.session: '{id}'"),
        Some("session"),
        Some("resource_missing"),
    )
}

pub(crate) async fn retrieve_session(
    State(standin): State<StandIn>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Some(refused) = gate(&standin, &headers, "/v1/checkout/sessions/{id}") {
        return refused;
    }
    match standin.lock().sessions.get(&id) {
        Some(session) => Json(session_json(session, &standin.base_url)).into_response(),
        None => missing(&id),
    }
}

pub(crate) async fn expire_session(
    State(standin): State<StandIn>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Some(refused) = gate(&standin, &headers, "/v1/checkout/sessions/{id}/expire") {
        return refused;
    }
    let (object, event) = {
        let mut shared = standin.lock();
        let Some(session) = shared.sessions.get_mut(&id) else {
            return missing(&id);
        };
        if session.status != "open" {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                "Only Checkout Sessions with a status in [\"open\"] can be expired.",
                None,
                Some("checkout_session_not_open"),
            );
        }
        session.status = "expired".into();
        let object = session_json(session, &standin.base_url);
        let event = make_event("checkout.session.expired", object.clone());
        shared.events.push(event.clone());
        (object, event)
    };
    // Stripe sends the event on its own schedule, not within the call.
    let sender = standin.clone();
    tokio::spawn(async move {
        let body = event.to_string();
        let header = signature_header(&sender.lock().webhook_secret.clone(), body.as_bytes());
        let _ = sender.deliver(&body, &header).await;
    });
    Json(object).into_response()
}
