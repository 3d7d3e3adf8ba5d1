//! Orders that wait for their money. A checkout turns a live hold into an
//! order `pending_payment` whose seats stay HELD by that hold until the
//! order's deadline (`pay_by`); lazy expiry then frees them like any
//! lapsed hold's. The payment (Stripe's webhook, or staff at the counter)
//! sells them in one conditional transaction. A payment that arrives after
//! the deadline re-claims the seats with the same conditional claim if they
//! are still free, and otherwise becomes `refunded_unfulfilled` with a
//! refund queued: never a seat sold twice, never money kept for a seat not
//! given. No network call happens inside any of these transactions; calls
//! to Stripe are queued in `payment_jobs` and made after the commit.

mod checkout;
mod counter;
mod counts;
mod event;
mod jobs;
mod reads;
mod settle;
mod stripe_events;

pub use checkout::PendingOrder;
pub(in crate::db) use checkout::{Checkout, checkout_in};
pub use counter::mark_paid_at_counter;
pub use counts::lapse_overdue;
pub(in crate::db) use counts::lapse_overdue_in;
pub(crate) use event::set_event_payment_in;
pub use event::{Reservation, event_payment, reservations, set_event_payment};
pub use jobs::{LeasedJob, job_done, job_failed, lease_due_job};
pub use reads::{
    OrderPayment, RefundView, SessionLine, SessionRequest, of_order, session_request, store_session,
};
pub use settle::{PaidSession, Payment, Settled, lapse_from_stripe, settle_from_stripe};
pub(in crate::db) use settle::{queue_provider_refund, settle_free_in};
pub use stripe_events::{note_stripe_event, record_stripe_event};
