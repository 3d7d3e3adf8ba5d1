//! How an event is paid for, what an order's payment status is, and the
//! check of a Stripe webhook's signature.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How an event's buyers pay (chosen per event by staff).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PaymentMode {
    /// The purchase issues tickets at once: free events, comps, demos.
    #[default]
    None,
    /// Stripe Checkout; the seats stay held by the order until it is paid
    /// or its deadline passes.
    Online,
    /// Reserve online, pay at the counter by the event's deadline.
    BoxOffice,
}

impl PaymentMode {
    pub const ALL: [PaymentMode; 3] = [
        PaymentMode::None,
        PaymentMode::Online,
        PaymentMode::BoxOffice,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PaymentMode::None => "none",
            PaymentMode::Online => "online",
            PaymentMode::BoxOffice => "box_office",
        }
    }

    pub fn parse(text: &str) -> Option<PaymentMode> {
        PaymentMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == text)
    }

    /// Whether a purchase waits for money before it issues tickets.
    pub fn waits_for_payment(self) -> bool {
        self != PaymentMode::None
    }

    /// What staff read in the event form.
    pub fn label(self) -> &'static str {
        match self {
            PaymentMode::None => "No payment: tickets are issued at once",
            PaymentMode::Online => "Online, by card (Stripe Checkout)",
            PaymentMode::BoxOffice => "Reserve online, pay at the box office",
        }
    }
}

/// An order's status as buyers, staff and the API see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OrderStatus {
    PendingPayment,
    Paid,
    /// Not paid by its deadline: its seats went back on sale.
    Lapsed,
    /// Paid after its deadline, when its seats were someone else's: the
    /// money goes back.
    RefundedUnfulfilled,
    /// Paid, then every ticket refunded by staff.
    Refunded,
}

impl OrderStatus {
    /// From the stored status, read with the clock and the tickets: a
    /// waiting order past its deadline has lapsed (lazily, as a hold
    /// does), and a paid one whose tickets were all refunded is refunded.
    pub fn read(
        stored: &str,
        past_deadline: bool,
        tickets: i64,
        valid_tickets: i64,
    ) -> OrderStatus {
        match stored {
            "pending_payment" if past_deadline => OrderStatus::Lapsed,
            "pending_payment" => OrderStatus::PendingPayment,
            "lapsed" => OrderStatus::Lapsed,
            "refunded_unfulfilled" => OrderStatus::RefundedUnfulfilled,
            _ if tickets > 0 && valid_tickets == 0 => OrderStatus::Refunded,
            _ => OrderStatus::Paid,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            OrderStatus::PendingPayment => "pending_payment",
            OrderStatus::Paid => "paid",
            OrderStatus::Lapsed => "lapsed",
            OrderStatus::RefundedUnfulfilled => "refunded_unfulfilled",
            OrderStatus::Refunded => "refunded",
        }
    }
}

/// Why a webhook's `Stripe-Signature` was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureProblem {
    /// No header, or no `t=` or `v1=` in it.
    Malformed,
    /// Signed longer ago (or further ahead) than the tolerance.
    Stale,
    /// No `v1` matches the body under the secret.
    Mismatch,
}

/// How far a webhook's timestamp may be from now (Stripe's own default).
pub const SIGNATURE_TOLERANCE_SECS: i64 = 300;

type HmacSha256 = Hmac<Sha256>;

/// The `v1` signature Stripe sends for `body` at `timestamp`:
/// HMAC-SHA256 over `"{t}.{raw body}"` under the endpoint's secret, hex.
pub fn stripe_signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac = HmacSha256::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    data_encoding::HEXLOWER.encode(&mac.finalize().into_bytes())
}

/// Checks `Stripe-Signature: t=…,v1=…[,v1=…]` as Stripe documents it: any
/// `v1` may match (a secret being rolled signs twice), compared in
/// constant time; `t` within [`SIGNATURE_TOLERANCE_SECS`] of `now`.
pub fn verify_stripe_signature(
    header: Option<&str>,
    body: &[u8],
    secret: &str,
    now_unix: i64,
) -> Result<(), SignatureProblem> {
    let header = header.ok_or(SignatureProblem::Malformed)?;
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        let Some((key, value)) = part.trim().split_once('=') else {
            continue;
        };
        match key {
            "t" => timestamp = value.parse::<i64>().ok(),
            "v1" => signatures.push(value),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(SignatureProblem::Malformed)?;
    if signatures.is_empty() {
        return Err(SignatureProblem::Malformed);
    }
    if (now_unix - timestamp).abs() > SIGNATURE_TOLERANCE_SECS {
        return Err(SignatureProblem::Stale);
    }
    let matches = signatures.iter().any(|signature| {
        let Ok(bytes) = data_encoding::HEXLOWER_PERMISSIVE.decode(signature.as_bytes()) else {
            return false;
        };
        let mut mac = HmacSha256::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        mac.verify_slice(&bytes).is_ok()
    });
    if matches {
        Ok(())
    } else {
        Err(SignatureProblem::Mismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsec_test";

    fn header(t: i64, body: &[u8]) -> String {
        format!("t={t},v1={}", stripe_signature(SECRET, t, body))
    }

    #[test]
    fn a_signature_made_as_stripe_makes_it_is_accepted_within_five_minutes() {
        let body = br#"{"id":"evt_1"}"#;
        let now = 1_800_000_000;
        assert_eq!(
            verify_stripe_signature(Some(&header(now, body)), body, SECRET, now),
            Ok(())
        );
        assert_eq!(
            verify_stripe_signature(Some(&header(now - 299, body)), body, SECRET, now),
            Ok(())
        );
        assert_eq!(
            verify_stripe_signature(Some(&header(now - 301, body)), body, SECRET, now),
            Err(SignatureProblem::Stale)
        );
        assert_eq!(
            verify_stripe_signature(Some(&header(now + 400, body)), body, SECRET, now),
            Err(SignatureProblem::Stale)
        );
    }

    #[test]
    fn another_body_secret_or_a_missing_part_is_refused() {
        let body = br#"{"id":"evt_1"}"#;
        let now = 1_800_000_000;
        let signed = header(now, body);
        assert_eq!(
            verify_stripe_signature(Some(&signed), br#"{"id":"evt_2"}"#, SECRET, now),
            Err(SignatureProblem::Mismatch)
        );
        assert_eq!(
            verify_stripe_signature(Some(&signed), body, "whsec_other", now),
            Err(SignatureProblem::Mismatch)
        );
        for bad in ["", "t=1", "v1=ab", "nonsense", "t=abc,v1=00"] {
            assert_eq!(
                verify_stripe_signature(Some(bad), body, SECRET, now),
                Err(SignatureProblem::Malformed),
                "{bad}"
            );
        }
        assert_eq!(
            verify_stripe_signature(None, body, SECRET, now),
            Err(SignatureProblem::Malformed)
        );
        // A rolled secret: the second v1 matches.
        let two = format!("t={now},v1=00ff,v1={}", stripe_signature(SECRET, now, body));
        assert_eq!(
            verify_stripe_signature(Some(&two), body, SECRET, now),
            Ok(())
        );
    }

    #[test]
    fn a_waiting_order_past_its_deadline_reads_as_lapsed_and_an_all_refunded_one_as_refunded() {
        assert_eq!(
            OrderStatus::read("pending_payment", false, 0, 0),
            OrderStatus::PendingPayment
        );
        assert_eq!(
            OrderStatus::read("pending_payment", true, 0, 0),
            OrderStatus::Lapsed
        );
        assert_eq!(OrderStatus::read("paid", true, 2, 1), OrderStatus::Paid);
        assert_eq!(
            OrderStatus::read("paid", false, 2, 0),
            OrderStatus::Refunded
        );
        assert_eq!(
            OrderStatus::read("refunded_unfulfilled", true, 0, 0),
            OrderStatus::RefundedUnfulfilled
        );
        for mode in PaymentMode::ALL {
            assert_eq!(PaymentMode::parse(mode.as_str()), Some(mode));
        }
        assert_eq!(PaymentMode::parse("card"), None);
    }
}
