//! The calls to the provider queued in `payment_jobs`, leased by the
//! payment worker (SKIP LOCKED) and marked done or retried.

use std::time::Duration;

use uuid::Uuid;

use crate::db::GenericClient;
use crate::domain::ids::OrderId;
use crate::error::AppResult;

/// A call to the provider a worker has leased.
#[derive(Debug, Clone)]
pub struct LeasedJob {
    pub id: i64,
    pub lease: Uuid,
    pub kind: String,
    pub order_id: OrderId,
    pub amount_cents: Option<i64>,
    pub attempts: i32,
    pub session_id: Option<String>,
    pub payment_intent: Option<String>,
    /// The order waits for its money, or lapsed with its session maybe
    /// still open (an expiry is then worth asking for).
    pub order_pending: bool,
}

/// Leases one due call for `lease_for` (SKIP LOCKED, one statement).
pub async fn lease_due_job(
    client: &impl GenericClient,
    lease_for: Duration,
) -> AppResult<Option<LeasedJob>> {
    let statement = client
        .prepare_cached(
            "WITH leased AS (
                 UPDATE payment_jobs j
                    SET lease = $1, leased_until = now() + make_interval(secs => $2::float8),
                        attempts = j.attempts + 1
                  WHERE j.id = (SELECT id FROM payment_jobs
                                 WHERE done_at IS NULL AND next_attempt_at <= now()
                                   AND (leased_until IS NULL OR leased_until < now())
                                 ORDER BY next_attempt_at, id
                                 LIMIT 1
                                   FOR UPDATE SKIP LOCKED)
              RETURNING j.*
             )
             SELECT l.id, l.lease, l.kind, l.order_id, l.amount_cents, l.attempts,
                    o.stripe_session_id,
                    coalesce(l.payment_intent, o.stripe_payment_intent) AS stripe_payment_intent,
                    o.status IN ('pending_payment', 'lapsed') AS pending
               FROM leased l JOIN orders o ON o.id = l.order_id",
        )
        .await?;
    let lease = Uuid::new_v4();
    let row = client
        .query_opt(&statement, &[&lease, &lease_for.as_secs_f64()])
        .await?;
    Ok(row.map(|row| LeasedJob {
        id: row.get("id"),
        lease: row.get("lease"),
        kind: row.get("kind"),
        order_id: row.get("order_id"),
        amount_cents: row.get("amount_cents"),
        attempts: row.get("attempts"),
        session_id: row.get("stripe_session_id"),
        payment_intent: row.get("stripe_payment_intent"),
        order_pending: row.get("pending"),
    }))
}

/// The call went through (or has nothing left to do).
pub async fn job_done(
    client: &impl GenericClient,
    job: &LeasedJob,
    provider_ref: Option<&str>,
    note: Option<&str>,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "UPDATE payment_jobs SET done_at = now(), lease = NULL, leased_until = NULL,
                    provider_ref = $3, last_error = $4
              WHERE id = $1 AND lease = $2",
        )
        .await?;
    client
        .execute(&statement, &[&job.id, &job.lease, &provider_ref, &note])
        .await?;
    Ok(())
}

/// The call failed; it is due again after `retry_in`, its error kept for staff.
pub async fn job_failed(
    client: &impl GenericClient,
    job: &LeasedJob,
    error: &str,
    retry_in: Duration,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "UPDATE payment_jobs SET lease = NULL, leased_until = NULL, last_error = left($3, 500),
                    next_attempt_at = now() + make_interval(secs => $4::float8)
              WHERE id = $1 AND lease = $2",
        )
        .await?;
    client
        .execute(
            &statement,
            &[&job.id, &job.lease, &error, &retry_in.as_secs_f64()],
        )
        .await?;
    Ok(())
}
