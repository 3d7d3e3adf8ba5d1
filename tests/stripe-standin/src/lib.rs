//! A stand-in for the Stripe API calls seatmap makes, for tests: Stripe's
//! test mode can't be reached from the machines the tests run on.
//!
//! It covers, as Stripe's API reference documents them:
//! - `POST /v1/checkout/sessions` (mode=payment, `line_items[i][price_data]`,
//!   `client_reference_id`, `metadata[…]`, `success_url`, `cancel_url`,
//!   `expires_at` between 30 minutes and 24 hours ahead, `customer_email`);
//! - `GET /v1/checkout/sessions/{id}`;
//! - `POST /v1/checkout/sessions/{id}/expire` (only an open session);
//! - `POST /v1/refunds` (`payment_intent`, `amount`; never more than is left);
//!
//! with `Authorization: Bearer sk_…`, form-encoded bodies, `Idempotency-Key`
//! (a replay returns the first answer; the same key with other parameters
//! is an `idempotency_error`), and errors shaped
//! `{"error": {"type", "code", "message", "param"}}`.
//!
//! Its hosted page, `/c/pay/{id}`, has Pay and Cancel. Paying completes the
//! session, sends `checkout.session.completed` to the webhook URL signed
//! as Stripe signs (`Stripe-Signature: t=…,v1=<HMAC-SHA256 of "{t}.{body}">`),
//! and redirects to `success_url`. Expiring a session sends
//! `checkout.session.expired`.
//!
//! For tests it also has `/_standin/…`: complete a session without a
//! browser (and get the signed event back instead of sending it), fail
//! the next API calls (before any work, or after it: the work done, the
//! answer lost, as when a connection drops), hold back the webhook a
//! hosted page's payment sends, and read the ledger of money taken and
//! refunded and every call with its `Idempotency-Key`.

// The parsing helpers fail with the answer the handler then returns.
#![allow(clippy::result_large_err)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

/// A Checkout Session as the stand-in keeps it.
#[derive(Debug, Clone)]
struct Session {
    id: String,
    created: i64,
    expires_at: i64,
    currency: String,
    amount_total: i64,
    client_reference_id: Option<String>,
    customer_email: Option<String>,
    metadata: serde_json::Map<String, Value>,
    success_url: String,
    cancel_url: Option<String>,
    /// open, complete or expired.
    status: String,
    /// unpaid or paid.
    payment_status: String,
    payment_intent: Option<String>,
    lines: Vec<(String, i64, i64)>,
}

/// Money the stand-in took and gave back.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Capture {
    pub session: String,
    pub payment_intent: String,
    pub amount: i64,
    pub client_reference_id: Option<String>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct RefundRecord {
    pub id: String,
    pub payment_intent: String,
    pub amount: i64,
}

#[derive(Default)]
struct Shared {
    sessions: HashMap<String, Session>,
    /// key → (what it was first used for, the answer given).
    idempotency: HashMap<String, (String, u16, Value)>,
    captures: Vec<Capture>,
    refunds: Vec<RefundRecord>,
    webhook_url: Option<String>,
    webhook_secret: String,
    /// Statuses the next API calls fail with, first first.
    failures: Vec<u16>,
    /// Statuses the next creates answer with after doing their work (the
    /// answer lost on the way back), first first.
    lost_answers: Vec<u16>,
    /// The hosted page's payment sends its webhook this much later.
    webhook_delay: std::time::Duration,
    /// Every event made, signed, whether sent or not.
    events: Vec<Value>,
    /// API requests seen: the path, and the `Idempotency-Key` sent.
    calls: Vec<(String, Option<String>)>,
}

/// A running stand-in.
#[derive(Clone)]
pub struct StandIn {
    pub base_url: String,
    shared: Arc<Mutex<Shared>>,
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn random_id(prefix: &str) -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    let text: String = (0..24)
        .map(|_| {
            let n = rng.random_range(0..36u8);
            (if n < 10 { b'0' + n } else { b'a' + n - 10 }) as char
        })
        .collect();
    format!("{prefix}_test_{text}")
}

/// Stripe's `v1` signature of `payload` at `timestamp`.
pub fn sign(secret: &str, timestamp: i64, payload: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(payload);
    data_encoding::HEXLOWER.encode(&mac.finalize().into_bytes())
}

/// The `Stripe-Signature` header for `payload`, signed now.
pub fn signature_header(secret: &str, payload: &[u8]) -> String {
    let t = now();
    format!("t={t},v1={}", sign(secret, t, payload))
}

fn error(
    status: StatusCode,
    kind: &str,
    message: &str,
    param: Option<&str>,
    code: Option<&str>,
) -> Response {
    let mut detail = json!({ "type": kind, "message": message });
    if let Some(param) = param {
        detail["param"] = json!(param);
    }
    if let Some(code) = code {
        detail["code"] = json!(code);
    }
    (status, Json(json!({ "error": detail }))).into_response()
}

fn invalid(message: &str, param: &str) -> Response {
    error(
        StatusCode::BAD_REQUEST,
        "invalid_request_error",
        message,
        Some(param),
        Some("parameter_invalid"),
    )
}

impl StandIn {
    /// Starts on an ephemeral loopback port.
    pub async fn start(webhook_secret: &str) -> anyhow::Result<StandIn> {
        Self::start_on("127.0.0.1:0", webhook_secret, None).await
    }

    pub async fn start_on(
        listen: &str,
        webhook_secret: &str,
        webhook_url: Option<String>,
    ) -> anyhow::Result<StandIn> {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        let base_url = format!("http://{}", listener.local_addr()?);
        let shared = Arc::new(Mutex::new(Shared {
            webhook_secret: webhook_secret.to_string(),
            webhook_url,
            ..Shared::default()
        }));
        let standin = StandIn { base_url, shared };
        let app = router(standin.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(standin)
    }

    /// Where events are sent (the app's `/payments/stripe/webhook`).
    pub fn set_webhook_url(&self, url: &str) {
        self.lock().webhook_url = Some(url.to_string());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Money taken, one entry per paid session.
    pub fn captures(&self) -> Vec<Capture> {
        self.lock().captures.clone()
    }

    /// Refunds made.
    pub fn refunds(&self) -> Vec<RefundRecord> {
        self.lock().refunds.clone()
    }

    /// The next `count` API calls answer `status` (500: Stripe's fault).
    pub fn fail_next(&self, count: usize, status: u16) {
        self.lock()
            .failures
            .extend(std::iter::repeat_n(status, count));
    }

    /// Paths of the API calls received, in order.
    pub fn calls(&self) -> Vec<String> {
        self.lock()
            .calls
            .iter()
            .map(|(path, _)| path.clone())
            .collect()
    }

    /// The API calls received, in order, each with its `Idempotency-Key`.
    pub fn calls_with_keys(&self) -> Vec<(String, Option<String>)> {
        self.lock().calls.clone()
    }

    /// The next `count` creates (sessions, refunds) do their work, then
    /// answer `status` instead of their result: the caller can't know the
    /// work was done, as when a connection drops before the answer.
    pub fn lose_next_answers(&self, count: usize, status: u16) {
        self.lock()
            .lost_answers
            .extend(std::iter::repeat_n(status, count));
    }

    /// The webhook of a payment made on the hosted page is sent this long
    /// after the buyer is sent back (Stripe's are not instant either).
    pub fn delay_webhooks(&self, by: std::time::Duration) {
        self.lock().webhook_delay = by;
    }

    /// A session's status and payment status.
    pub fn session_status(&self, id: &str) -> Option<(String, String)> {
        self.lock()
            .sessions
            .get(id)
            .map(|s| (s.status.clone(), s.payment_status.clone()))
    }

    /// Every session made, by id.
    pub fn session_ids(&self) -> Vec<String> {
        self.lock().sessions.keys().cloned().collect()
    }

    /// Completes (pays) an open session, as the hosted page's Pay does,
    /// and returns the `checkout.session.completed` event's body and its
    /// `Stripe-Signature`, without sending it.
    pub fn complete(&self, id: &str) -> Result<(String, String), String> {
        let mut shared = self.lock();
        let secret = shared.webhook_secret.clone();
        let session = shared.sessions.get_mut(id).ok_or("no such session")?;
        if session.status != "open" {
            return Err(format!("the session is {}", session.status));
        }
        session.status = "complete".into();
        session.payment_status = "paid".into();
        let intent = random_id("pi");
        session.payment_intent = Some(intent.clone());
        let capture = Capture {
            session: id.to_string(),
            payment_intent: intent,
            amount: session.amount_total,
            client_reference_id: session.client_reference_id.clone(),
        };
        let object = session_json(session, &self.base_url);
        shared.captures.push(capture);
        let event = make_event("checkout.session.completed", object);
        shared.events.push(event.clone());
        let body = event.to_string();
        let header = signature_header(&secret, body.as_bytes());
        Ok((body, header))
    }

    /// Sends an event's body with its signature to the webhook URL; the
    /// status the app answered.
    pub async fn deliver(&self, body: &str, signature: &str) -> anyhow::Result<u16> {
        let url = self
            .lock()
            .webhook_url
            .clone()
            .ok_or_else(|| anyhow::anyhow!("no webhook URL set"))?;
        let response = reqwest::Client::new()
            .post(url)
            .header("Content-Type", "application/json")
            .header("Stripe-Signature", signature)
            .body(body.to_string())
            .send()
            .await?;
        Ok(response.status().as_u16())
    }
}

fn make_event(kind: &str, object: Value) -> Value {
    json!({
        "id": random_id("evt"),
        "object": "event",
        "api_version": "2024-06-20",
        "created": now(),
        "livemode": false,
        "pending_webhooks": 1,
        "type": kind,
        "data": { "object": object },
    })
}

fn session_json(session: &Session, base_url: &str) -> Value {
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

fn router(standin: StandIn) -> Router {
    Router::new()
        .route("/v1/checkout/sessions", post(create_session))
        .route("/v1/checkout/sessions/{id}", get(retrieve_session))
        .route("/v1/checkout/sessions/{id}/expire", post(expire_session))
        .route("/v1/refunds", post(create_refund))
        .route("/c/pay/{id}", get(pay_page).post(pay))
        .route("/_standin/ledger", get(ledger))
        .route("/_standin/webhook-delay", post(set_webhook_delay))
        .with_state(standin)
}

/// Checks the secret key, and takes the next queued failure.
fn gate(standin: &StandIn, headers: &HeaderMap, path: &str) -> Option<Response> {
    let mut shared = standin.lock();
    let idempotency_key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    shared.calls.push((path.to_string(), idempotency_key));
    let key = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if !key.is_some_and(|k| k.starts_with("sk_")) {
        return Some(error(
            StatusCode::UNAUTHORIZED,
            "invalid_request_error",
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.",
            None,
            None,
        ));
    }
    if !shared.failures.is_empty() {
        let status = shared.failures.remove(0);
        return Some(error(
            StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            "api_error",
            "The stand-in was told to fail this request.",
            None,
            None,
        ));
    }
    None
}

/// An answer kept under its idempotency key, or the check that the key
/// is not reused for something else.
enum Idempotent {
    Fresh(Option<String>),
    Replay(Response),
}

fn idempotent_in(shared: &Shared, headers: &HeaderMap, what: &str) -> Idempotent {
    let Some(key) = headers.get("idempotency-key").and_then(|v| v.to_str().ok()) else {
        return Idempotent::Fresh(None);
    };
    match shared.idempotency.get(key) {
        Some((first, status, body)) if first == what => {
            let mut response = (
                StatusCode::from_u16(*status).unwrap_or(StatusCode::OK),
                Json(body.clone()),
            )
                .into_response();
            response
                .headers_mut()
                .insert("idempotent-replayed", "true".parse().expect("literal"));
            Idempotent::Replay(response)
        }
        Some(_) => Idempotent::Replay(error(
            StatusCode::BAD_REQUEST,
            "idempotency_error",
            &format!(
                "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '{key}' if you meant to execute a different request."
            ),
            None,
            None,
        )),
        None => Idempotent::Fresh(Some(key.to_string())),
    }
}

fn form(body: &[u8]) -> Result<Vec<(String, String)>, Response> {
    serde_urlencoded::from_bytes::<Vec<(String, String)>>(body).map_err(|_| {
        error(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "The body is not form-encoded.",
            None,
            None,
        )
    })
}

fn field<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

async fn create_session(
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

/// A queued "answer lost": the work is done and kept under its key; the
/// caller gets an error instead.
fn take_lost_answer(shared: &mut Shared) -> Option<Response> {
    if shared.lost_answers.is_empty() {
        return None;
    }
    let status = shared.lost_answers.remove(0);
    Some(error(
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        "api_error",
        "The stand-in did the work and was told to lose the answer.",
        None,
        None,
    ))
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

async fn retrieve_session(
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

async fn expire_session(
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

async fn create_refund(
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

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

async fn pay_page(State(standin): State<StandIn>, Path(id): Path<String>) -> Response {
    let Some(session) = standin.lock().sessions.get(&id).cloned() else {
        return (
            StatusCode::NOT_FOUND,
            Html("<h1>No such session</h1>".to_string()),
        )
            .into_response();
    };
    let total = format!(
        "{} {:.2}",
        session.currency.to_uppercase(),
        session.amount_total as f64 / 100.0
    );
    let lines: String = session
        .lines
        .iter()
        .map(|(name, amount, quantity)| {
            format!(
                "<li>{} × {quantity}: {:.2}</li>",
                escape(name),
                *amount as f64 / 100.0
            )
        })
        .collect();
    let action = if session.status == "open" {
        format!(
            "<form method=\"post\"><button id=\"pay\" type=\"submit\">Pay {total}</button></form>\
             {}",
            session
                .cancel_url
                .as_ref()
                .map(|url| format!(
                    "<p><a id=\"cancel\" href=\"{}\">Cancel and go back</a></p>",
                    escape(url)
                ))
                .unwrap_or_default()
        )
    } else {
        format!(
            "<p id=\"closed\">This checkout session is {}.</p>",
            session.status
        )
    };
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Stripe stand-in: pay</title>\
         <meta name=\"viewport\" content=\"width=device-width\"></head><body>\
         <h1>Stripe stand-in</h1><p>A test double of Stripe Checkout. No money moves.</p>\
         <ul>{lines}</ul><p>Total: <strong>{total}</strong></p>{action}</body></html>"
    ))
    .into_response()
}

/// The hosted page's Pay: completes the session, delivers the signed
/// event, then sends the buyer to `success_url`.
async fn pay(State(standin): State<StandIn>, Path(id): Path<String>) -> Response {
    let (body, header) = match standin.complete(&id) {
        Ok(event) => event,
        Err(why) => {
            return (
                StatusCode::BAD_REQUEST,
                Html(format!("<p>{}</p>", escape(&why))),
            )
                .into_response();
        }
    };
    let delay = standin.lock().webhook_delay;
    let sending = {
        let standin = standin.clone();
        async move {
            tokio::time::sleep(delay).await;
            if let Err(err) = standin.deliver(&body, &header).await {
                eprintln!("stripe-standin: delivering the webhook failed: {err}");
            }
        }
    };
    if delay.is_zero() {
        sending.await;
    } else {
        // The buyer is back before Stripe's event arrives.
        tokio::spawn(sending);
    }
    let success = standin
        .lock()
        .sessions
        .get(&id)
        .map(|s| s.success_url.replace("{CHECKOUT_SESSION_ID}", &id))
        .unwrap_or_default();
    Redirect::to(&success).into_response()
}

/// `POST /_standin/webhook-delay?ms=…`: how long a hosted payment's
/// webhook waits after the buyer is sent back (0: sent before).
async fn set_webhook_delay(
    State(standin): State<StandIn>,
    axum::extract::Query(query): axum::extract::Query<HashMap<String, u64>>,
) -> StatusCode {
    let ms = query.get("ms").copied().unwrap_or(0).min(60_000);
    standin.delay_webhooks(std::time::Duration::from_millis(ms));
    StatusCode::NO_CONTENT
}

async fn ledger(State(standin): State<StandIn>) -> Json<Value> {
    let shared = standin.lock();
    Json(json!({
        "captures": shared.captures,
        "refunds": shared.refunds,
        "captured_total": shared.captures.iter().map(|c| c.amount).sum::<i64>(),
        "refunded_total": shared.refunds.iter().map(|r| r.amount).sum::<i64>(),
    }))
}
