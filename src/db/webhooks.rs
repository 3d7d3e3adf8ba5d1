//! Webhook endpoints, and their deliveries in the outbox. A delivery row
//! is written by the statement (or in the transaction) of the change it
//! reports, one per endpoint that asked for the event; the sender leases
//! rows like the mail worker does (see `db::outbox`).

use std::time::Duration;

use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use super::GenericClient;
use crate::domain::ids::StaffId;
use crate::domain::ids::{MessageId, WebhookId};
use crate::error::AppResult;

/// One delivery per live endpoint that asked for `$1`, carrying `$2` as
/// its data. The delivery's id is in the body and the `message_id`.
pub(super) const QUEUE: &str =
    "INSERT INTO outbox (message_id, kind, endpoint_id, event_type, payload)
     SELECT d.id::text, 'webhook', e.id, $1,
            jsonb_build_object('id', d.id, 'type', $1::text, 'created_at', now(), 'data', $2::jsonb)
       FROM webhook_endpoints e CROSS JOIN LATERAL (SELECT gen_random_uuid() AS id) d
      WHERE e.disabled_at IS NULL AND $1 = ANY(e.event_types)";

/// Queues `event_type` with `data` for every endpoint that asked for it.
pub async fn queue(client: &impl GenericClient, event_type: &str, data: Value) -> AppResult<()> {
    let statement = client.prepare_cached(QUEUE).await?;
    client.execute(&statement, &[&event_type, &data]).await?;
    Ok(())
}

/// The part of a statement that queues `ticket.admitted` for the rows of a
/// CTE named `admitted` (id, order_id, event_id), the gate being `$3`.
pub(super) const QUEUE_ADMITTED: &str =
    "INSERT INTO outbox (message_id, kind, endpoint_id, event_type, payload)
     SELECT d.id::text, 'webhook', e.id, 'ticket.admitted',
            jsonb_build_object('id', d.id, 'type', 'ticket.admitted', 'created_at', now(),
                               'data', jsonb_build_object('ticket_id', a.id, 'order_id', a.order_id,
                                                          'event_id', a.event_id, 'gate', $3::text))
       FROM admitted a CROSS JOIN webhook_endpoints e
       CROSS JOIN LATERAL (SELECT gen_random_uuid() AS id) d
      WHERE e.disabled_at IS NULL AND 'ticket.admitted' = ANY(e.event_types)";

/// An endpoint as staff see it listed: its secret is not in it (see
/// [`secret_of`]).
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub id: WebhookId,
    pub url: String,
    pub event_types: Vec<String>,
    pub created_at: OffsetDateTime,
    pub disabled_at: Option<OffsetDateTime>,
    /// While a rotation overlaps: until when the previous secret signs too.
    pub previous_secret_until: Option<OffsetDateTime>,
}

pub async fn create(
    client: &impl GenericClient,
    url: &str,
    secret: &str,
    event_types: &[String],
    staff_id: Option<StaffId>,
) -> AppResult<WebhookId> {
    let row = client
        .query_one(
            "INSERT INTO webhook_endpoints (url, secret, event_types, created_by)
             VALUES ($1, $2, $3, $4) RETURNING id",
            &[&url, &secret, &event_types, &staff_id],
        )
        .await?;
    Ok(row.get(0))
}

pub async fn list(client: &impl GenericClient) -> AppResult<Vec<Endpoint>> {
    Ok(client
        .query(
            "SELECT id, url, event_types, created_at, disabled_at,
                    CASE WHEN previous_secret_until > now() THEN previous_secret_until END
                      AS previous_secret_until
               FROM webhook_endpoints ORDER BY disabled_at IS NOT NULL, id",
            &[],
        )
        .await?
        .iter()
        .map(|row| Endpoint {
            id: row.get("id"),
            url: row.get("url"),
            event_types: row.get("event_types"),
            created_at: row.get("created_at"),
            disabled_at: row.get("disabled_at"),
            previous_secret_until: row.get("previous_secret_until"),
        })
        .collect())
}

/// The endpoint's URL and secret (a live endpoint's only), for the one
/// staff member who asked to see it.
pub async fn secret_of(
    client: &impl GenericClient,
    id: WebhookId,
) -> AppResult<Option<(String, String)>> {
    Ok(client
        .query_opt(
            "SELECT url, secret FROM webhook_endpoints WHERE id = $1 AND disabled_at IS NULL",
            &[&id],
        )
        .await?
        .map(|row| (row.get("url"), row.get("secret"))))
}

/// Gives a live endpoint `new_secret`; the one it had keeps signing too
/// for `overlap`. Its URL, or None if there is no such live endpoint.
pub async fn rotate_secret(
    client: &impl GenericClient,
    id: WebhookId,
    new_secret: &str,
    overlap: Duration,
) -> AppResult<Option<String>> {
    Ok(client
        .query_opt(
            "UPDATE webhook_endpoints
                SET previous_secret = secret,
                    previous_secret_until = now() + make_interval(secs => $3::float8),
                    secret = $2
              WHERE id = $1 AND disabled_at IS NULL
          RETURNING url",
            &[&id, &new_secret, &overlap.as_secs_f64()],
        )
        .await?
        .map(|row| row.get("url")))
}

/// Stops deliveries to the endpoint (those queued already still go).
pub async fn disable(client: &impl GenericClient, id: WebhookId) -> AppResult<bool> {
    Ok(client
        .execute(
            "UPDATE webhook_endpoints SET disabled_at = now() WHERE id = $1 AND disabled_at IS NULL",
            &[&id],
        )
        .await?
        == 1)
}

/// A delivery a sender holds the lease on.
#[derive(Debug, Clone)]
pub struct LeasedDelivery {
    pub id: MessageId,
    pub lease: Uuid,
    pub delivery_id: String,
    pub url: String,
    pub secret: String,
    /// The rotated-out secret, while it still signs.
    pub previous_secret: Option<String>,
    pub body: String,
    pub attempts: i32,
}

/// Leases up to `batch` due deliveries for `lease_for` in one statement
/// (FOR UPDATE SKIP LOCKED, committed at once).
pub async fn lease_due(
    client: &impl GenericClient,
    batch: i64,
    lease_for: Duration,
) -> AppResult<Vec<LeasedDelivery>> {
    let statement = client
        .prepare_cached(
            "UPDATE outbox o
                SET lease = $1, leased_until = now() + make_interval(secs => $2::float8),
                    attempts = o.attempts + 1
               FROM webhook_endpoints e
              WHERE e.id = o.endpoint_id
                AND o.id IN (SELECT id FROM outbox
                              WHERE kind = 'webhook' AND sent_at IS NULL
                                AND retired_at IS NULL AND failed_at IS NULL
                                AND next_attempt_at <= now()
                                AND (leased_until IS NULL OR leased_until < now())
                              ORDER BY next_attempt_at, id
                              LIMIT $3
                                FOR UPDATE SKIP LOCKED)
          RETURNING o.id, o.lease, o.message_id, o.payload::text AS body, o.attempts, e.url, e.secret,
                    CASE WHEN e.previous_secret_until > now() THEN e.previous_secret END
                      AS previous_secret",
        )
        .await?;
    let lease = Uuid::new_v4();
    Ok(client
        .query(&statement, &[&lease, &lease_for.as_secs_f64(), &batch])
        .await?
        .iter()
        .map(|row| LeasedDelivery {
            id: row.get("id"),
            lease: row.get("lease"),
            delivery_id: row.get("message_id"),
            url: row.get("url"),
            secret: row.get("secret"),
            previous_secret: row.get("previous_secret"),
            body: row.get("body"),
            attempts: row.get("attempts"),
        })
        .collect())
}

/// Records the receiver's answer (`outcome`: its status line, or why there
/// was none): delivered (2xx), due again after `retry_in`, or failed once
/// this was attempt `max_attempts`. Under the lease only; false if the
/// lease was lost.
pub async fn record_attempt(
    client: &impl GenericClient,
    delivery: &LeasedDelivery,
    status: Option<u16>,
    outcome: &str,
    retry_in: Option<Duration>,
    max_attempts: i32,
) -> AppResult<bool> {
    let statement = client
        .prepare_cached(
            "UPDATE outbox
                SET lease = NULL, leased_until = NULL,
                    last_status = $3, last_response = left($4, 200),
                    sent_at = CASE WHEN $5::float8 IS NULL THEN now() END,
                    failed_at = CASE WHEN $5::float8 IS NOT NULL AND attempts >= $6 THEN now() END,
                    last_error = CASE WHEN $5::float8 IS NULL THEN NULL ELSE left($4, 200) END,
                    next_attempt_at = CASE WHEN $5::float8 IS NULL THEN next_attempt_at
                                           ELSE now() + make_interval(secs => $5::float8) END
              WHERE id = $1 AND lease = $2",
        )
        .await?;
    let status = status.map(i32::from);
    let retry = retry_in.map(|d| d.as_secs_f64());
    Ok(client
        .execute(
            &statement,
            &[
                &delivery.id,
                &delivery.lease,
                &status,
                &outcome,
                &retry,
                &max_attempts,
            ],
        )
        .await?
        == 1)
}

/// Sends a failed delivery again, from its first attempt; false if it is
/// not a failed delivery.
pub async fn retry_failed(client: &impl GenericClient, delivery_id: &str) -> AppResult<bool> {
    Ok(client
        .execute(
            "UPDATE outbox SET failed_at = NULL, attempts = 0, next_attempt_at = now()
              WHERE message_id = $1 AND kind = 'webhook' AND failed_at IS NOT NULL",
            &[&delivery_id],
        )
        .await?
        == 1)
}

/// One line of an endpoint's delivery log.
#[derive(Debug, Clone)]
pub struct DeliveryLine {
    pub endpoint_id: WebhookId,
    pub delivery_id: String,
    pub event_type: String,
    pub created_at: OffsetDateTime,
    pub attempts: i32,
    pub delivered_at: Option<OffsetDateTime>,
    /// Given up on, after the most attempts allowed.
    pub failed_at: Option<OffsetDateTime>,
    pub next_attempt_at: OffsetDateTime,
    pub last_status: Option<i32>,
    pub last_response: Option<String>,
}

/// The latest deliveries, all endpoints, newest first.
pub async fn recent_deliveries(
    client: &impl GenericClient,
    limit: i64,
) -> AppResult<Vec<DeliveryLine>> {
    Ok(client
        .query(
            "SELECT endpoint_id, message_id, event_type, created_at, attempts, sent_at, failed_at,
                    next_attempt_at, last_status, coalesce(last_response, last_error) AS last_response
               FROM outbox WHERE kind = 'webhook'
              ORDER BY created_at DESC, id DESC LIMIT $1",
            &[&limit],
        )
        .await?
        .iter()
        .map(|row| DeliveryLine {
            endpoint_id: row.get("endpoint_id"),
            delivery_id: row.get("message_id"),
            event_type: row.get("event_type"),
            created_at: row.get("created_at"),
            attempts: row.get("attempts"),
            delivered_at: row.get("sent_at"),
            failed_at: row.get("failed_at"),
            next_attempt_at: row.get("next_attempt_at"),
            last_status: row.get("last_status"),
            last_response: row.get("last_response"),
        })
        .collect())
}
