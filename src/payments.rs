//! Taking money through Stripe: making an order's Checkout Session after
//! its checkout commits, and the worker that makes the calls queued in
//! `payment_jobs` (expiring a session whose order's deadline passed;
//! refunding), each after the commit that queued it, leased like the mail
//! outbox and retried with backoff until Stripe accepts.

use std::sync::Arc;
use std::time::Duration;

use crate::config::PaymentSettings;
use crate::db::Pool;
use crate::db::payments::{self as store, LeasedJob};
use crate::domain::ids::OrderId;
use crate::domain::payment::OrderStatus;
use crate::stripe::{Stripe, StripeError};

/// Where a buyer goes to pay for an online order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PayAt {
    /// Stripe's hosted page for the order's session.
    Stripe(String),
    /// The order no longer waits for a payment (paid, lapsed, refunded).
    NotPending(OrderStatus),
}

/// The order's Checkout Session: the one made before, or a new one made
/// now (outside any transaction; the idempotency key makes a retried or
/// racing create the same session). `order_url` makes, from the order,
/// where Stripe sends the buyer back.
pub async fn checkout_url(
    pool: &Pool,
    stripe: &Stripe,
    order_id: OrderId,
    order_url: impl FnOnce(&store::SessionRequest) -> String,
) -> anyhow::Result<Option<PayAt>> {
    let request = {
        let client = pool.get().await?;
        store::session_request(&client, order_id).await?
    };
    let Some(request) = request else {
        return Ok(None);
    };
    if request.status != OrderStatus::PendingPayment {
        return Ok(Some(PayAt::NotPending(request.status)));
    }
    if let Some((_, Some(url))) = &request.session {
        return Ok(Some(PayAt::Stripe(url.clone())));
    }
    // Named in the buyer's language, as their receipt is.
    let lines = crate::i18n::sync_scope(request.lang, || {
        request.line_items(
            &crate::i18n::t("receipt-fees"),
            crate::i18n::receipt::tax_label,
        )
    })
    .map_err(anyhow::Error::msg)?;
    let session = stripe
        .create_checkout_session(&request, &lines, &order_url(&request))
        .await?;
    let url = session
        .url
        .clone()
        .ok_or_else(|| anyhow::anyhow!("Stripe made session {} without a url", session.id))?;
    let client = pool.get().await?;
    store::store_session(&client, order_id, &session.id, &url, &request.currency).await?;
    Ok(Some(PayAt::Stripe(url)))
}

/// The first retry waits `first`; each next one twice as long, up to an hour.
fn backoff(first: Duration, attempts: i32) -> Duration {
    crate::mail::backoff_from(first, attempts)
}

/// One worker loop; every instance runs one when Stripe is configured.
pub struct Worker {
    pool: Pool,
    stripe: Arc<Stripe>,
    settings: PaymentSettings,
}

impl Worker {
    pub fn new(pool: Pool, stripe: Arc<Stripe>, settings: &PaymentSettings) -> Worker {
        Worker {
            pool,
            stripe,
            settings: settings.clone(),
        }
    }

    pub async fn run(self) {
        loop {
            match self.work_one().await {
                Ok(true) => {}
                Ok(false) => tokio::time::sleep(self.settings.poll_every).await,
                Err(err) => {
                    tracing::warn!(error = %crate::error::for_log(err.as_ref()), "payment worker: leasing or recording failed");
                    tokio::time::sleep(self.settings.poll_every).await;
                }
            }
        }
    }

    /// Leases one due call and makes it; false if none was due.
    pub async fn work_one(&self) -> anyhow::Result<bool> {
        let job = {
            let client = self.pool.get().await?;
            store::lease_due_job(&client, self.settings.lease).await?
        };
        let Some(job) = job else {
            return Ok(false);
        };
        let outcome = tokio::time::timeout(self.settings.lease / 2, self.call(&job)).await;
        let client = self.pool.get().await?;
        match outcome {
            Ok(Ok(Done { provider_ref, note })) => {
                store::job_done(&client, &job, provider_ref.as_deref(), note.as_deref()).await?;
            }
            Ok(Err(err)) => {
                tracing::warn!(job = job.id, kind = %job.kind, order_id = %job.order_id,
                    attempts = job.attempts, error = %err, "payment call failed; retrying later");
                store::job_failed(
                    &client,
                    &job,
                    &err.to_string(),
                    backoff(self.settings.first_retry, job.attempts),
                )
                .await?;
            }
            Err(_) => {
                store::job_failed(
                    &client,
                    &job,
                    "no answer in time",
                    backoff(self.settings.first_retry, job.attempts),
                )
                .await?;
            }
        }
        Ok(true)
    }

    async fn call(&self, job: &LeasedJob) -> Result<Done, StripeError> {
        match job.kind.as_str() {
            "expire" => {
                let (Some(session), true) = (&job.session_id, job.order_pending) else {
                    return Ok(Done::note(
                        "nothing to expire: no session, or the order was settled",
                    ));
                };
                match self.stripe.expire_session(session).await {
                    Ok(_) => Ok(Done::note("session expired")),
                    // Already paid or expired at Stripe: the webhook settles it.
                    Err(StripeError::Refused {
                        status, message, ..
                    }) if status < 500 && status != 429 => {
                        Ok(Done::note(&format!("not expired: {message}")))
                    }
                    Err(err) => Err(err),
                }
            }
            "refund" => {
                let Some(intent) = &job.payment_intent else {
                    return Err(StripeError::Refused {
                        status: 400,
                        message: "the order has no payment to refund".into(),
                        code: None,
                    });
                };
                let amount = job.amount_cents.unwrap_or(0);
                let refund = self
                    .stripe
                    .refund(intent, amount, &format!("seatmap-refund-{}", job.id))
                    .await?;
                Ok(Done {
                    provider_ref: Some(refund),
                    note: None,
                })
            }
            other => Ok(Done::note(&format!("unknown kind {other}"))),
        }
    }
}

struct Done {
    provider_ref: Option<String>,
    note: Option<String>,
}

impl Done {
    fn note(text: &str) -> Done {
        Done {
            provider_ref: None,
            note: Some(text.to_string()),
        }
    }
}

/// Runs due payment calls until none is due (for tests and the CLI).
pub async fn drain(worker: &Worker) -> anyhow::Result<usize> {
    let mut made = 0;
    while worker.work_one().await? {
        made += 1;
    }
    Ok(made)
}

/// The payment pieces one instance holds: the Stripe client when configured.
#[derive(Clone, Debug, Default)]
pub struct Payments {
    pub stripe: Option<Arc<Stripe>>,
}

impl Payments {
    pub fn from_settings(settings: &PaymentSettings) -> anyhow::Result<Payments> {
        Ok(Payments {
            stripe: match &settings.stripe {
                Some(stripe) => Some(Arc::new(Stripe::new(stripe)?)),
                None => None,
            },
        })
    }
}
