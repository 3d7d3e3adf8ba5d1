//! Events as Stripe sends them, and its `v1` signature over their bodies.

use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::state::{now, random_id};

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

pub(crate) fn make_event(kind: &str, object: Value) -> Value {
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
