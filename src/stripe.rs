//! The calls seatmap makes to Stripe, as its API reference gives them:
//! form-encoded bodies, `Authorization: Bearer <secret key>`, an
//! `Idempotency-Key` on every create, and errors as
//! `{"error": {"type", "code", "message", "param"}}`. Each call has a
//! timeout and is made with no database transaction open.

use std::time::Duration;

use serde::Deserialize;
use time::OffsetDateTime;

use crate::config::StripeSettings;
use crate::db::payments::{SessionLine, SessionRequest};

/// A Checkout Session as far as seatmap reads it.
#[derive(Debug, Clone, Deserialize)]
pub struct CheckoutSession {
    pub id: String,
    pub url: Option<String>,
    pub status: Option<String>,
    pub payment_status: Option<String>,
    pub payment_intent: Option<String>,
    pub amount_total: Option<i64>,
}

#[derive(Debug, Clone, Deserialize)]
struct Refund {
    id: String,
}

#[derive(Debug, Deserialize)]
struct ErrorBody {
    error: ErrorDetail,
}

#[derive(Debug, Deserialize)]
struct ErrorDetail {
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    code: Option<String>,
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

/// Why a call did not go through.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StripeError {
    /// Stripe answered with an error: its status and its own message.
    #[error("Stripe refused ({status}): {message}")]
    Refused {
        status: u16,
        message: String,
        code: Option<String>,
    },
    /// No answer (a timeout, a refused connection) or one that can't be read.
    #[error("Stripe could not be reached: {0}")]
    Unreachable(String),
}

impl StripeError {
    /// Worth trying again later: no answer, a rate limit, or Stripe's own fault.
    pub fn is_transient(&self) -> bool {
        match self {
            StripeError::Unreachable(_) => true,
            StripeError::Refused { status, .. } => *status == 429 || *status >= 500,
        }
    }
}

/// Stripe's least time from a session's creation to its `expires_at`.
const SHORTEST_SESSION: Duration = Duration::from_secs(31 * 60);
const LONGEST_SESSION: Duration = Duration::from_secs(23 * 3600);

#[derive(Clone)]
pub struct Stripe {
    http: reqwest::Client,
    base: String,
    secret_key: String,
}

impl std::fmt::Debug for Stripe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stripe")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl Stripe {
    pub fn new(settings: &StripeSettings) -> anyhow::Result<Stripe> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(20))
            .user_agent(concat!("seatmap/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Stripe {
            http,
            base: settings.api_url.clone(),
            secret_key: settings.secret_key.expose().to_string(),
        })
    }

    async fn post<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        form: &[(String, String)],
        idempotency_key: Option<&str>,
    ) -> Result<T, StripeError> {
        let mut request = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.secret_key)
            .form(form);
        if let Some(key) = idempotency_key {
            request = request.header("Idempotency-Key", key);
        }
        let response = request
            .send()
            .await
            .map_err(|err| StripeError::Unreachable(err.to_string()))?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|err| StripeError::Unreachable(err.to_string()))?;
        if status.is_success() {
            return serde_json::from_slice(&body).map_err(|err| {
                StripeError::Unreachable(format!("an answer that can't be read: {err}"))
            });
        }
        let detail = serde_json::from_slice::<ErrorBody>(&body)
            .ok()
            .map(|body| body.error);
        Err(StripeError::Refused {
            status: status.as_u16(),
            message: detail
                .as_ref()
                .and_then(|d| d.message.clone().or_else(|| d.kind.clone()))
                .unwrap_or_else(|| format!("HTTP {status}")),
            code: detail.and_then(|d| d.code),
        })
    }

    /// `POST /v1/checkout/sessions` for the order, with an idempotency key
    /// derived from the order alone: a retried create returns the same
    /// session. `expires_at` is Stripe's least (31 minutes from the order)
    /// or the order's deadline if that is later; seatmap's own deadline
    /// still rules, and the session is expired by hand when it passes.
    pub async fn create_checkout_session(
        &self,
        order: &SessionRequest,
        lines: &[SessionLine],
        return_url: &str,
    ) -> Result<CheckoutSession, StripeError> {
        let expires_at = session_expiry(order.pay_by, OffsetDateTime::now_utc());
        let form = session_form(order, lines, return_url, expires_at);
        // The key names the order and the expiry asked for: a retry within
        // the same five minutes sends the same request under the same key
        // and gets the same session; a later one (Stripe was down) asks for
        // a later expiry under a new key. Should that make a second session
        // and both be paid, the second payment is refunded.
        let key = format!(
            "seatmap-checkout-{}-{}-{}",
            order.order_id,
            order.sessions_ended,
            expires_at.unix_timestamp()
        );
        self.post("/v1/checkout/sessions", &form, Some(&key)).await
    }

    /// `POST /v1/checkout/sessions/{id}/expire`.
    pub async fn expire_session(&self, session_id: &str) -> Result<CheckoutSession, StripeError> {
        let id = urlencode_path(session_id);
        self.post(&format!("/v1/checkout/sessions/{id}/expire"), &[], None)
            .await
    }

    /// `POST /v1/refunds` of `amount` of the payment, once per key.
    pub async fn refund(
        &self,
        payment_intent: &str,
        amount_cents: i64,
        idempotency_key: &str,
    ) -> Result<String, StripeError> {
        let form = vec![
            ("payment_intent".to_string(), payment_intent.to_string()),
            ("amount".to_string(), amount_cents.to_string()),
        ];
        let refund: Refund = self
            .post("/v1/refunds", &form, Some(idempotency_key))
            .await?;
        Ok(refund.id)
    }
}

fn urlencode_path(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes()).collect()
}

/// When a session made `now` for an order due `pay_by` should expire:
/// Stripe takes 30 minutes to 24 hours after the session is made, so the
/// later of the deadline and 31 minutes from now, rounded up to five
/// minutes (a retry soon after asks for the same), and within 23 hours.
pub fn session_expiry(pay_by: OffsetDateTime, now: OffsetDateTime) -> OffsetDateTime {
    let wanted = pay_by
        .max(now + SHORTEST_SESSION)
        .min(now + LONGEST_SESSION);
    let step = 300;
    let seconds = wanted.unix_timestamp();
    let rounded = (seconds + step - 1) / step * step;
    OffsetDateTime::from_unix_timestamp(rounded)
        .unwrap_or(wanted)
        .min(now + LONGEST_SESSION + Duration::from_secs(step as u64))
}

/// The session's form fields, in Stripe's bracket notation: a line item
/// per line (`SessionRequest::line_items`, which add up to the order's
/// amount), each named after the event.
pub fn session_form(
    order: &SessionRequest,
    lines: &[SessionLine],
    return_url: &str,
    expires_at: OffsetDateTime,
) -> Vec<(String, String)> {
    // The return URL is the order's signed link, which has a query already.
    let join = if return_url.contains('?') { '&' } else { '?' };
    let mut form = vec![
        ("mode".to_string(), "payment".to_string()),
        ("client_reference_id".into(), order.order_id.to_string()),
        ("metadata[order_id]".into(), order.order_id.to_string()),
        ("customer_email".into(), order.buyer_email.clone()),
        (
            "success_url".into(),
            format!("{return_url}{join}payment=returned"),
        ),
        (
            "cancel_url".into(),
            format!("{return_url}{join}payment=cancelled"),
        ),
        ("expires_at".into(), expires_at.unix_timestamp().to_string()),
    ];
    for (i, item) in lines.iter().enumerate() {
        let line = format!("line_items[{i}]");
        form.push((format!("{line}[quantity]"), item.quantity.to_string()));
        form.push((
            format!("{line}[price_data][currency]"),
            order.currency.clone(),
        ));
        form.push((
            format!("{line}[price_data][unit_amount]"),
            item.unit_cents.to_string(),
        ));
        form.push((
            format!("{line}[price_data][product_data][name]"),
            format!("{}: {}", order.event_name, item.name),
        ));
    }
    form
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ids::OrderId;
    use crate::domain::payment::OrderStatus;

    #[test]
    fn a_session_asks_for_each_ticket_and_expires_no_sooner_than_stripe_allows() {
        let created = time::macros::datetime!(2026-11-24 12:00 UTC);
        let order = SessionRequest {
            order_id: OrderId(uuid::Uuid::nil()),
            event_name: "Demo Night".into(),
            currency: "eur".into(),
            buyer_email: "ada@example.com".into(),
            lang: crate::domain::lang::Lang::En,
            created_at: created,
            pay_by: created + Duration::from_secs(900),
            starts_at: created + Duration::from_secs(86_400),
            sessions_ended: 0,
            tickets: vec![
                ("Orchestra C12 · Adult".into(), 5500),
                ("Orchestra C13 · Child".into(), 2500),
            ],
            fee_cents: 150,
            added_tax: None,
            amount_cents: 8300,
            session: None,
            status: OrderStatus::PendingPayment,
        };
        let lines = order
            .line_items("Booking fees", |_| unreachable!("no tax is added"))
            .expect("the lines add up");
        let expires = session_expiry(order.pay_by, created);
        let form = session_form(&order, &lines, "http://x/orders/1", expires);
        let get = |key: &str| form.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        assert_eq!(get("mode"), Some("payment"));
        assert_eq!(get("line_items[1][price_data][unit_amount]"), Some("2500"));
        assert_eq!(
            get("line_items[0][price_data][product_data][name]"),
            Some("Demo Night: Orchestra C12 · Adult")
        );
        // The fee: one line, once per ticket.
        assert_eq!(get("line_items[2][price_data][unit_amount]"), Some("150"));
        assert_eq!(get("line_items[2][quantity]"), Some("2"));
        assert_eq!(
            get("line_items[2][price_data][product_data][name]"),
            Some("Demo Night: Booking fees")
        );
        assert_eq!(get("line_items[3][quantity]"), None);
        assert_eq!(
            get("metadata[order_id]"),
            Some(&*uuid::Uuid::nil().to_string())
        );
        // 31 minutes after 12:00, rounded up to five: 12:35.
        assert_eq!(
            get("expires_at"),
            Some(
                &*time::macros::datetime!(2026-11-24 12:35 UTC)
                    .unix_timestamp()
                    .to_string()
            )
        );
        assert_eq!(
            get("success_url"),
            Some("http://x/orders/1?payment=returned")
        );
        let signed = session_form(&order, &lines, "http://x/orders/1?until=9&sig=ab", expires);
        let cancel = signed
            .iter()
            .find(|(k, _)| k == "cancel_url")
            .map(|(_, v)| v.as_str());
        assert_eq!(
            cancel,
            Some("http://x/orders/1?until=9&sig=ab&payment=cancelled")
        );
    }

    #[test]
    fn added_tax_is_a_line_of_its_own_and_lines_that_miss_the_amount_make_no_session() {
        let created = time::macros::datetime!(2026-11-24 12:00 UTC);
        let tax = crate::domain::charges::Tax {
            rate_hundredths: 850,
            included: false,
        };
        let mut order = SessionRequest {
            order_id: OrderId(uuid::Uuid::nil()),
            event_name: "Demo Night".into(),
            currency: "usd".into(),
            buyer_email: "ada@example.com".into(),
            lang: crate::domain::lang::Lang::En,
            created_at: created,
            pay_by: created + Duration::from_secs(900),
            starts_at: created + Duration::from_secs(86_400),
            sessions_ended: 0,
            tickets: vec![("Floor A1".into(), 4000)],
            fee_cents: 200,
            // 8.5 % of 4000 is 340, of 200 is 17.
            added_tax: Some((tax, 357)),
            amount_cents: 4557,
            session: None,
            status: OrderStatus::PendingPayment,
        };
        let lines = order
            .line_items("Booking fees", |tax| format!("Tax {} %", tax.rate_text()))
            .expect("the lines add up");
        assert_eq!(
            lines.last(),
            Some(&SessionLine {
                name: "Tax 8.5 %".into(),
                unit_cents: 357,
                quantity: 1
            })
        );
        order.amount_cents = 4556;
        assert!(order.line_items("Booking fees", |_| String::new()).is_err());
    }

    #[test]
    fn a_session_made_late_still_expires_at_least_thirty_minutes_after_it_is_made() {
        let now = time::macros::datetime!(2026-11-24 12:00 UTC);
        // The deadline is 10 minutes away (the first create failed long ago).
        let at = session_expiry(now + Duration::from_secs(600), now);
        assert!(at >= now + Duration::from_secs(30 * 60), "{at}");
        // A deadline two hours away is the expiry, rounded up to five minutes.
        let at = session_expiry(now + Duration::from_secs(7_201), now);
        assert_eq!(at, time::macros::datetime!(2026-11-24 14:05 UTC));
        // Never past Stripe's 24 hours.
        let at = session_expiry(now + Duration::from_secs(90_000), now);
        assert!(at < now + Duration::from_secs(24 * 3600), "{at}");
        // A retry a minute later asks for the same expiry (the same key).
        assert_eq!(
            session_expiry(
                now + Duration::from_secs(600),
                now + Duration::from_secs(60)
            ),
            session_expiry(now + Duration::from_secs(600), now)
        );
    }
}
