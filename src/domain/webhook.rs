//! Webhooks as data: the events there are, and how a delivery is signed.

use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

/// Every event a webhook endpoint can ask for.
pub const EVENT_TYPES: [&str; 6] = [
    "order.created",
    "order.refunded",
    "ticket.admitted",
    "hold.released_by_staff",
    "event.sales_closed",
    "event.cancelled",
];

pub fn is_event_type(text: &str) -> bool {
    EVENT_TYPES.contains(&text)
}

/// A new endpoint's signing secret: 192 random bits, hex.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    format!("whsec_{}", data_encoding::HEXLOWER.encode(&bytes))
}

/// The `Seatmap-Signature` header's value for `body` sent at `timestamp`
/// (Unix seconds): `t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`.
/// The receiver recomputes it with the endpoint's secret, and refuses an
/// old timestamp (a replay).
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!(
        "t={timestamp},v1={}",
        data_encoding::HEXLOWER.encode(&mac.finalize().into_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_covers_the_timestamp_and_the_body() {
        let secret = new_secret();
        let signed = signature(&secret, 1_700_000_000, b"{\"a\":1}");
        assert!(signed.starts_with("t=1700000000,v1="));
        assert_eq!(signed.len(), "t=1700000000,v1=".len() + 64);
        assert_eq!(signed, signature(&secret, 1_700_000_000, b"{\"a\":1}"));
        assert_ne!(signed, signature(&secret, 1_700_000_001, b"{\"a\":1}"));
        assert_ne!(signed, signature(&secret, 1_700_000_000, b"{\"a\":2}"));
        assert_ne!(
            signed,
            signature(&new_secret(), 1_700_000_000, b"{\"a\":1}")
        );
    }

    #[test]
    fn only_the_listed_events_exist() {
        assert!(is_event_type("order.created"));
        assert!(!is_event_type("order.deleted"));
        assert!(new_secret().len() > 32);
    }
}
