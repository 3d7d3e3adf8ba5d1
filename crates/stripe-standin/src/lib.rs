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

mod api;
mod control;
mod events;
mod hosted;
mod refunds;
mod sessions;
mod standin;
mod state;

pub use events::{sign, signature_header};
pub use standin::StandIn;
pub use state::{Capture, RefundRecord};
