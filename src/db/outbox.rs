//! The mail outbox. A message is a row written in the transaction of the
//! sale it reports, so it exists exactly when the sale does. Workers lease
//! due rows with one statement (FOR UPDATE SKIP LOCKED, as seats are
//! claimed), commit, send with no transaction open, and then mark the row
//! sent under their lease. A worker that dies mid-send leaves a lease that
//! runs out; the row is sent again, with the same Message-ID, so a crash
//! can duplicate a message but never lose one.

use std::time::Duration;

use time::OffsetDateTime;
use uuid::Uuid;

use super::GenericClient;
use crate::domain::ids::MessageId;
use crate::domain::ids::{EventId, OrderId};
use crate::error::AppResult;

/// Queues the order's confirmation to `$3`, its subject naming the event.
pub const QUEUE_ORDER_CONFIRMATION: &str =
    "INSERT INTO outbox (message_id, kind, order_id, recipient, subject)
     SELECT $1, 'order_confirmation', $2, $3, 'Your tickets for ' || e.name
       FROM events e WHERE e.id = $4";

/// Queues the notice that a payment came too late for its seats and is
/// being refunded.
pub const QUEUE_PAYMENT_REFUNDED: &str =
    "INSERT INTO outbox (message_id, kind, order_id, recipient, subject)
     SELECT $1, 'payment_refunded', $2, $3, 'Your payment for ' || e.name || ' is being refunded'
       FROM events e WHERE e.id = $4";

pub(super) async fn queue_payment_refunded(
    client: &impl GenericClient,
    order_id: OrderId,
    event_id: EventId,
    recipient: &str,
) -> AppResult<()> {
    queue_mail(
        client,
        QUEUE_PAYMENT_REFUNDED,
        order_id,
        event_id,
        recipient,
    )
    .await
}

/// Queues the mail telling the order's buyer (if they gave an address) what
/// a refund paid back and how: `refund` is kept with the message.
pub(super) async fn queue_order_refunded(
    client: &impl GenericClient,
    order_id: OrderId,
    refund: &serde_json::Value,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "INSERT INTO outbox (message_id, kind, order_id, recipient, subject, payload)
             SELECT $1, 'order_refunded', o.id, o.buyer_email, 'Your refund for ' || e.name, $3
               FROM orders o JOIN events e ON e.id = o.event_id
              WHERE o.id = $2 AND o.buyer_email IS NOT NULL",
        )
        .await?;
    client
        .execute(&statement, &[&new_message_id(), &order_id, refund])
        .await?;
    Ok(())
}

/// A stable Message-ID, made once when the row is written: every attempt
/// to send the row sends this one, so receivers can drop a duplicate.
pub(super) fn new_message_id() -> String {
    format!("<{}@seatmap>", Uuid::new_v4())
}

/// A season's order: its subject names the season.
pub const QUEUE_SEASON_CONFIRMATION: &str =
    "INSERT INTO outbox (message_id, kind, order_id, recipient, subject)
     SELECT $1, 'order_confirmation', $2, $3, 'Your season tickets: ' || s.name
       FROM seasons s WHERE s.id = $4";

pub(super) async fn queue_season_confirmation(
    client: &impl GenericClient,
    order_id: OrderId,
    season_id: crate::domain::ids::SeasonId,
    recipient: &str,
) -> AppResult<()> {
    let statement = client.prepare_cached(QUEUE_SEASON_CONFIRMATION).await?;
    client
        .execute(
            &statement,
            &[&new_message_id(), &order_id, &recipient, &season_id],
        )
        .await?;
    Ok(())
}

/// A subscriber's renewal offer: their last order, and (in the payload)
/// the hold that keeps their places.
pub(super) async fn queue_season_renewal(
    client: &impl GenericClient,
    from_order: OrderId,
    season_id: crate::domain::ids::SeasonId,
    recipient: &str,
    hold_id: crate::domain::ids::HoldId,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "INSERT INTO outbox (message_id, kind, order_id, recipient, subject, payload)
             SELECT $1, 'season_renewal', $2, $3, 'Renew your seats: ' || s.name,
                    jsonb_build_object('season_hold_id', $5::uuid)
               FROM seasons s WHERE s.id = $4",
        )
        .await?;
    client
        .execute(
            &statement,
            &[
                &new_message_id(),
                &from_order,
                &recipient,
                &season_id,
                &hold_id,
            ],
        )
        .await?;
    Ok(())
}

pub(super) async fn queue_order_confirmation(
    client: &impl GenericClient,
    order_id: OrderId,
    event_id: EventId,
    recipient: &str,
) -> AppResult<()> {
    queue_mail(
        client,
        QUEUE_ORDER_CONFIRMATION,
        order_id,
        event_id,
        recipient,
    )
    .await
}

/// Runs one of the queueing statements above: `$1` the Message-ID, `$2`
/// the order, `$3` the recipient, `$4` the event (for the subject).
async fn queue_mail(
    client: &impl GenericClient,
    statement: &str,
    order_id: OrderId,
    event_id: EventId,
    recipient: &str,
) -> AppResult<()> {
    let statement = client.prepare_cached(statement).await?;
    client
        .execute(
            &statement,
            &[&new_message_id(), &order_id, &recipient, &event_id],
        )
        .await?;
    Ok(())
}

/// A row a worker holds the lease on.
#[derive(Debug, Clone)]
pub struct Leased {
    pub id: MessageId,
    /// "order_confirmation" or "payment_refunded".
    pub kind: String,
    pub lease: Uuid,
    pub message_id: String,
    pub order_id: Option<OrderId>,
    /// For mail about a place on a waitlist.
    pub waitlist_entry_id: Option<crate::domain::ids::WaitlistEntryId>,
    pub recipient: String,
    pub subject: String,
    pub attempts: i32,
    /// What an `order_refunded` message reports.
    pub payload: Option<serde_json::Value>,
    /// The transfer a `ticket_transferred` or `transfer_receipt` tells of.
    pub ticket_transfer_id: Option<crate::domain::ids::TransferId>,
}

/// Leases up to `batch` due rows for `lease_for`. One statement, so no
/// transaction stays open while the mail goes out; rows another worker is
/// leasing right now are skipped, not waited for.
pub async fn lease_due(
    client: &impl GenericClient,
    batch: i64,
    lease_for: Duration,
) -> AppResult<Vec<Leased>> {
    let statement = client
        .prepare_cached(
            "UPDATE outbox o
                SET lease = $1, leased_until = now() + make_interval(secs => $2::float8),
                    attempts = o.attempts + 1
              WHERE o.id IN (SELECT id FROM outbox
                              WHERE kind IN ('order_confirmation', 'payment_refunded',
                                             'order_refunded', 'waitlist_joined',
                                             'waitlist_offer', 'waitlist_lapsed',
                                             'ticket_transferred', 'transfer_receipt')
                                AND sent_at IS NULL AND retired_at IS NULL AND failed_at IS NULL
                                AND next_attempt_at <= now()
                                AND (leased_until IS NULL OR leased_until < now())
                              ORDER BY next_attempt_at, id
                              LIMIT $3
                                FOR UPDATE SKIP LOCKED)
          RETURNING o.id, o.kind, o.lease, o.message_id, o.order_id, o.waitlist_entry_id,
                    o.recipient, o.subject, o.attempts, o.payload, o.ticket_transfer_id",
        )
        .await?;
    let lease = Uuid::new_v4();
    let seconds = lease_for.as_secs_f64();
    Ok(client
        .query(&statement, &[&lease, &seconds, &batch])
        .await?
        .iter()
        .map(|row| Leased {
            id: row.get("id"),
            kind: row.get("kind"),
            lease: row.get("lease"),
            message_id: row.get("message_id"),
            order_id: row.get("order_id"),
            waitlist_entry_id: row.get("waitlist_entry_id"),
            recipient: row.get("recipient"),
            subject: row.get("subject"),
            attempts: row.get("attempts"),
            payload: row.get("payload"),
            ticket_transfer_id: row.get("ticket_transfer_id"),
        })
        .collect())
}

/// Marks a leased row sent. False if the lease ran out and another worker
/// took the row (it may then go twice: at least once, never zero times).
pub async fn mark_sent(client: &impl GenericClient, row: &Leased) -> AppResult<bool> {
    let statement = client
        .prepare_cached(
            "UPDATE outbox SET sent_at = now(), lease = NULL, leased_until = NULL, last_error = NULL
              WHERE id = $1 AND lease = $2",
        )
        .await?;
    Ok(client.execute(&statement, &[&row.id, &row.lease]).await? == 1)
}

/// Gives a failed row back, due again after `retry_in`; or, with
/// `retry_in` None (a failure no retry can mend) or once this was attempt
/// `max_attempts`, marks it failed for staff to see and send by hand.
pub async fn mark_failed(
    client: &impl GenericClient,
    row: &Leased,
    error: &str,
    retry_in: Option<Duration>,
    max_attempts: i32,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "UPDATE outbox SET lease = NULL, leased_until = NULL, last_error = left($3, 500),
                    next_attempt_at = now() + make_interval(secs => coalesce($4::float8, 0)),
                    failed_at = CASE WHEN $4::float8 IS NULL OR attempts >= $5 THEN now() END
              WHERE id = $1 AND lease = $2",
        )
        .await?;
    let seconds = retry_in.map(|d| d.as_secs_f64());
    client
        .execute(
            &statement,
            &[&row.id, &row.lease, &error, &seconds, &max_attempts],
        )
        .await?;
    Ok(())
}

/// Retires a leased row that has nothing left to say (its order's tickets
/// were all refunded before it went): never sent, never failed.
pub async fn retire(client: &impl GenericClient, row: &Leased, why: &str) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "UPDATE outbox SET lease = NULL, leased_until = NULL, retired_at = now(),
                    last_error = left($3, 500)
              WHERE id = $1 AND lease = $2",
        )
        .await?;
    client
        .execute(&statement, &[&row.id, &row.lease, &why])
        .await?;
    Ok(())
}

/// The event's mail (not webhooks), by id: an order's, or a waitlist
/// party's. `m` is the outbox row.
const EVENTS_MAIL: &str = "
    m.kind <> 'webhook' AND (
        EXISTS (SELECT 1 FROM orders o WHERE o.id = m.order_id AND o.event_id = $1)
        OR EXISTS (SELECT 1 FROM waitlist_entries w
                    WHERE w.id = m.waitlist_entry_id AND w.event_id = $1))";

/// Sends a message of the event again: a failed one from its first
/// attempt; one already sent as a new copy (its own Message-ID), so the
/// record of the first stays. False if there is no such message, or it
/// was retired (nothing left to say). Audited, with the recipient: mail
/// sent again on staff's word is theirs to answer for.
pub async fn send_again(
    client: &mut deadpool_postgres::Object,
    actor: crate::domain::ids::Actor,
    event_id: EventId,
    message_id: MessageId,
) -> AppResult<bool> {
    let tx = client.transaction().await?;
    let again = queue_again(&tx, event_id, message_id).await?;
    if let Some(recipient) = &again {
        super::audit::record(
            &tx,
            super::audit::Entry {
                actor: Some(actor),
                action: "send_mail_again",
                event_id: Some(event_id),
                hold_id: None,
                order_id: None,
                seat_ids: &[],
                detail: format!("message {message_id} to {recipient}"),
            },
        )
        .await?;
    }
    tx.commit().await?;
    Ok(again.is_some())
}

/// The message queued again, if it could be: its recipient.
async fn queue_again(
    client: &impl GenericClient,
    event_id: EventId,
    message_id: MessageId,
) -> AppResult<Option<String>> {
    let recipient = client
        .query_opt(
            &format!("SELECT m.recipient FROM outbox m WHERE m.id = $2 AND {EVENTS_MAIL}"),
            &[&event_id, &message_id],
        )
        .await?
        .map(|row| row.get::<_, String>(0));
    let Some(recipient) = recipient else {
        return Ok(None);
    };
    let failed = client
        .execute(
            &format!(
                "UPDATE outbox m SET failed_at = NULL, attempts = 0, next_attempt_at = now()
                  WHERE m.id = $2 AND m.failed_at IS NOT NULL AND {EVENTS_MAIL}"
            ),
            &[&event_id, &message_id],
        )
        .await?;
    if failed == 1 {
        return Ok(Some(recipient));
    }
    let copied = client
        .execute(
            &format!(
                "INSERT INTO outbox (message_id, kind, order_id, waitlist_entry_id, recipient,
                                     subject, payload, ticket_transfer_id)
                 SELECT $3, m.kind, m.order_id, m.waitlist_entry_id, m.recipient, m.subject,
                        m.payload, m.ticket_transfer_id
                   FROM outbox m
                  WHERE m.id = $2 AND m.sent_at IS NOT NULL AND {EVENTS_MAIL}"
            ),
            &[&event_id, &message_id, &new_message_id()],
        )
        .await?;
    Ok((copied == 1).then_some(recipient))
}

/// A message as staff see it in the outbox list.
#[derive(Debug, Clone)]
pub struct QueuedMessage {
    pub id: MessageId,
    /// order_confirmation, order_refunded, payment_refunded,
    /// waitlist_joined, waitlist_offer or waitlist_lapsed.
    pub kind: String,
    pub order_id: Option<OrderId>,
    pub waitlist_entry_id: Option<crate::domain::ids::WaitlistEntryId>,
    pub recipient: String,
    pub subject: String,
    pub created_at: OffsetDateTime,
    pub attempts: i32,
    pub sent_at: Option<OffsetDateTime>,
    pub retired_at: Option<OffsetDateTime>,
    pub failed_at: Option<OffsetDateTime>,
    pub next_attempt_at: OffsetDateTime,
    pub last_error: Option<String>,
}

/// The event's messages, newest first.
pub async fn for_event(
    client: &impl GenericClient,
    event_id: EventId,
    limit: i64,
) -> AppResult<Vec<QueuedMessage>> {
    let statement = client
        .prepare_cached(
            "SELECT m.id, m.kind, m.order_id, m.waitlist_entry_id, m.recipient, m.subject,
                    m.created_at, m.attempts, m.sent_at, m.retired_at, m.failed_at,
                    m.next_attempt_at, m.last_error
               FROM outbox m
              WHERE m.id IN (SELECT m.id FROM outbox m JOIN orders o ON o.id = m.order_id
                              WHERE o.event_id = $1 AND m.kind <> 'webhook'
                             UNION ALL
                             SELECT m.id FROM outbox m
                               JOIN waitlist_entries w ON w.id = m.waitlist_entry_id
                              WHERE w.event_id = $1)
              ORDER BY m.created_at DESC, m.id DESC
              LIMIT $2",
        )
        .await?;
    Ok(client
        .query(&statement, &[&event_id, &limit])
        .await?
        .iter()
        .map(|row| QueuedMessage {
            id: row.get("id"),
            kind: row.get("kind"),
            order_id: row.get("order_id"),
            waitlist_entry_id: row.get("waitlist_entry_id"),
            recipient: row.get("recipient"),
            subject: row.get("subject"),
            created_at: row.get("created_at"),
            attempts: row.get("attempts"),
            sent_at: row.get("sent_at"),
            retired_at: row.get("retired_at"),
            failed_at: row.get("failed_at"),
            next_attempt_at: row.get("next_attempt_at"),
            last_error: row.get("last_error"),
        })
        .collect())
}

/// Where the order's confirmation is: sent (when), waiting, or never
/// queued (no e-mail address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailStatus {
    NotQueued,
    Waiting {
        attempts: i32,
    },
    Sent {
        at: OffsetDateTime,
    },
    /// Given up on: it could not be sent (staff may send it again).
    Failed,
    /// Not sent because there was nothing left to send.
    Retired,
}

pub async fn status_for_order(
    client: &impl GenericClient,
    order_id: OrderId,
) -> AppResult<MailStatus> {
    let statement = client
        .prepare_cached(
            "SELECT attempts, sent_at, failed_at IS NOT NULL AS failed, retired_at IS NOT NULL AS retired
               FROM outbox
              WHERE order_id = $1 AND kind = 'order_confirmation' ORDER BY id DESC LIMIT 1",
        )
        .await?;
    Ok(match client.query_opt(&statement, &[&order_id]).await? {
        None => MailStatus::NotQueued,
        Some(row) => match row.get::<_, Option<OffsetDateTime>>("sent_at") {
            Some(at) => MailStatus::Sent { at },
            None if row.get("failed") => MailStatus::Failed,
            None if row.get("retired") => MailStatus::Retired,
            None => MailStatus::Waiting {
                attempts: row.get("attempts"),
            },
        },
    })
}
