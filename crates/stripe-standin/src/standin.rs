//! The running stand-in: its routes, and what tests ask of it directly.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::routing::{get, post};

use crate::control::{ledger, set_webhook_delay};
use crate::events::{make_event, signature_header};
use crate::hosted::{pay, pay_page};
use crate::refunds::create_refund;
use crate::sessions::{create_session, expire_session, retrieve_session, session_json};
use crate::state::{Capture, RefundRecord, Shared, random_id};

/// A running stand-in.
#[derive(Clone)]
pub struct StandIn {
    pub base_url: String,
    shared: Arc<Mutex<Shared>>,
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

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        self.shared
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Money taken, one entry per paid session.
    pub fn captures(&self) -> Vec<Capture> {
        self.lock().captures.clone()
    }

    /// A session's line items as it was asked for them: name, unit amount,
    /// quantity.
    pub fn session_lines(&self, id: &str) -> Option<Vec<(String, i64, i64)>> {
        self.lock().sessions.get(id).map(|s| s.lines.clone())
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
