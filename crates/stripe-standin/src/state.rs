//! What the stand-in keeps: sessions, money taken and given back, and the
//! record of calls; ids as Stripe shapes them.

use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// A Checkout Session as the stand-in keeps it.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    pub(crate) id: String,
    pub(crate) created: i64,
    pub(crate) expires_at: i64,
    pub(crate) currency: String,
    pub(crate) amount_total: i64,
    pub(crate) client_reference_id: Option<String>,
    pub(crate) customer_email: Option<String>,
    pub(crate) metadata: serde_json::Map<String, Value>,
    pub(crate) success_url: String,
    pub(crate) cancel_url: Option<String>,
    /// open, complete or expired.
    pub(crate) status: String,
    /// unpaid or paid.
    pub(crate) payment_status: String,
    pub(crate) payment_intent: Option<String>,
    pub(crate) lines: Vec<(String, i64, i64)>,
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
pub(crate) struct Shared {
    pub(crate) sessions: HashMap<String, Session>,
    /// key → (what it was first used for, the answer given).
    pub(crate) idempotency: HashMap<String, (String, u16, Value)>,
    pub(crate) captures: Vec<Capture>,
    pub(crate) refunds: Vec<RefundRecord>,
    pub(crate) webhook_url: Option<String>,
    pub(crate) webhook_secret: String,
    /// Statuses the next API calls fail with, first first.
    pub(crate) failures: Vec<u16>,
    /// Statuses the next creates answer with after doing their work (the
    /// answer lost on the way back), first first.
    pub(crate) lost_answers: Vec<u16>,
    /// The hosted page's payment sends its webhook this much later.
    pub(crate) webhook_delay: std::time::Duration,
    /// Every event made, signed, whether sent or not.
    pub(crate) events: Vec<Value>,
    /// API requests seen: the path, and the `Idempotency-Key` sent.
    pub(crate) calls: Vec<(String, Option<String>)>,
}

pub(crate) fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

pub(crate) fn random_id(prefix: &str) -> String {
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
