//! `Idempotency-Key` (migration V33): the first answer to a key, kept for
//! 24 hours, so a request sent again (a client retrying after a lost
//! answer or a failover) gets that answer instead of running twice.

use std::time::Duration;

use super::GenericClient;
use crate::error::AppResult;

/// An answer kept for its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptAnswer {
    pub status: u16,
    pub content_type: Option<String>,
    pub location: Option<String>,
    pub body: Vec<u8>,
}

/// What a request with a key may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Run: the key is new (or its 24 hours are over, or the run that took
    /// it stopped answering); this request now holds it.
    Run,
    /// The first request's answer, to give again.
    Replay(KeptAnswer),
    /// The key was used with another request.
    Reused,
    /// The first request is still running.
    Running,
}

/// Takes the key for this request, or says why not: one statement. A
/// request the same as a first one whose run lapsed (its instance died
/// before answering) takes the key over.
pub async fn claim(
    client: &impl GenericClient,
    principal: &[u8],
    key: &str,
    request_hash: &[u8],
    run_for: Duration,
    run_id: uuid::Uuid,
) -> AppResult<Claim> {
    let statement = client
        .prepare_cached(
            "WITH took AS (
                INSERT INTO idempotency_keys (principal, key, request_hash, running_until, run_id)
                VALUES ($1, $2, $3, now() + make_interval(secs => $4), $5)
                ON CONFLICT (principal, key) DO UPDATE
                   SET request_hash = EXCLUDED.request_hash, created_at = now(),
                       running_until = EXCLUDED.running_until, run_id = EXCLUDED.run_id,
                       status = NULL, content_type = NULL, location = NULL, body = NULL
                 WHERE idempotency_keys.created_at < now() - interval '24 hours'
                    OR (idempotency_keys.status IS NULL
                        AND idempotency_keys.running_until < now()
                        AND idempotency_keys.request_hash = EXCLUDED.request_hash)
                RETURNING 1)
             SELECT EXISTS (SELECT 1 FROM took) AS took, k.request_hash, k.status,
                    k.content_type, k.location, k.body
               FROM (SELECT 1) one
               LEFT JOIN idempotency_keys k ON k.principal = $1 AND k.key = $2",
        )
        .await?;
    let row = client
        .query_one(
            &statement,
            &[
                &principal,
                &key,
                &request_hash,
                &run_for.as_secs_f64(),
                &run_id,
            ],
        )
        .await?;
    if row.get::<_, bool>("took") {
        return Ok(Claim::Run);
    }
    // The statement's snapshot may predate a first request that committed
    // its claim while this one waited on it: it is running.
    let Some(first_hash) = row.get::<_, Option<Vec<u8>>>("request_hash") else {
        return Ok(Claim::Running);
    };
    if first_hash != request_hash {
        return Ok(Claim::Reused);
    }
    Ok(match row.get::<_, Option<i16>>("status") {
        Some(status) => Claim::Replay(KeptAnswer {
            status: status as u16,
            content_type: row.get("content_type"),
            location: row.get("location"),
            body: row.get::<_, Option<Vec<u8>>>("body").unwrap_or_default(),
        }),
        None => Claim::Running,
    })
}

/// Keeps the run's answer for the key (if the run still holds it), and
/// lets the caller's oldest answered keys go past its newest `allowance`
/// (migration V35's index finds them): one caller's keys are bounded.
pub async fn keep(
    client: &impl GenericClient,
    principal: &[u8],
    key: &str,
    run_id: uuid::Uuid,
    answer: &KeptAnswer,
    allowance: i64,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "WITH kept AS (
                UPDATE idempotency_keys
                   SET status = $3, content_type = $4, location = $5, body = $6,
                       running_until = NULL
                 WHERE principal = $1 AND key = $2 AND status IS NULL AND run_id = $7
                RETURNING 1)
             DELETE FROM idempotency_keys old
              WHERE old.principal = $1 AND old.status IS NOT NULL AND old.key <> $2
                AND EXISTS (SELECT 1 FROM kept)
                AND old.created_at <= (SELECT created_at FROM idempotency_keys
                                        WHERE principal = $1
                                        ORDER BY created_at DESC OFFSET $8 LIMIT 1)",
        )
        .await?;
    client
        .execute(
            &statement,
            &[
                &principal,
                &key,
                &(answer.status as i16),
                &answer.content_type,
                &answer.location,
                &answer.body,
                &run_id,
                &allowance,
            ],
        )
        .await?;
    Ok(())
}

/// Lets the key go without an answer (the run failed on our side, so a
/// retry may run it again).
pub async fn release(
    client: &impl GenericClient,
    principal: &[u8],
    key: &str,
    run_id: uuid::Uuid,
) -> AppResult<()> {
    client
        .execute(
            "DELETE FROM idempotency_keys
              WHERE principal = $1 AND key = $2 AND status IS NULL AND run_id = $3",
            &[&principal, &key, &run_id],
        )
        .await?;
    Ok(())
}

/// Deletes keys past their 24 hours, a bounded batch at a time; returns
/// how many.
pub async fn sweep(client: &impl GenericClient) -> AppResult<u64> {
    Ok(client
        .execute(
            "DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
                SELECT ctid FROM idempotency_keys
                 WHERE created_at < now() - interval '24 hours' LIMIT 10000))",
            &[],
        )
        .await?)
}
