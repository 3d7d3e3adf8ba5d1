//! Passing a ticket on. The transfer is one conditional UPDATE of the
//! ticket's row that gives it a new code, judged by the rows it touched;
//! the door's admission (`tickets::admit`) is one conditional UPDATE of
//! the same row. Whichever takes the row's lock first wins and the other
//! finds its condition false: a ticket is never both admitted and passed
//! on, and of two transfers at once one gets the new code.

use time::OffsetDateTime;

use super::GenericClient;
use super::audit::{self, Entry};
use crate::domain::ids::{Actor, EventId, OrderId, TicketId, TransferId};
use crate::domain::rules::BuyerDetails;
use crate::domain::ticket::TicketCode;
use crate::error::{AppError, AppResult, Conflict, Invalid, Missing};

/// A transfer made: the ticket's new code, which only its new holder sees.
#[derive(Debug, Clone)]
pub struct Transfer {
    pub id: TransferId,
    pub ticket_id: TicketId,
    pub event_id: EventId,
    pub order_id: OrderId,
    pub code: TicketCode,
}

/// The transfer: the new code, the new holder, the record of the old
/// code, and both mails, in one statement. `$6` true is staff at the
/// counter, who may pass a ticket on past the event's rules (but never an
/// admitted or refunded one). The sender is whoever the ticket was last
/// passed to, or the order's buyer.
const TRANSFER: &str = "WITH moved AS (
         UPDATE tickets t
            SET code = $2, holder_name = $3, holder_email = $4, holder_lang = $5,
                transfer_count = t.transfer_count + 1
           FROM events e
          WHERE t.code = $1 AND e.id = t.event_id
            AND t.admitted_at IS NULL AND NOT t.voided
            AND e.cancelled_at IS NULL
            AND ($6 OR (e.transfers_allowed
                        AND now() < coalesce(e.transfers_close_at,
                                             least(e.starts_at, e.doors_opened_at))
                        AND t.transfer_count < e.transfers_per_ticket))
      RETURNING t.id, t.event_id, t.order_id, e.name AS event_name
     ), sender AS (
         SELECT m.*, coalesce(p.to_name, o.buyer_name) AS from_name,
                CASE WHEN p.id IS NULL THEN o.buyer_email ELSE p.to_email END AS from_email,
                coalesce(p.to_lang, o.lang) AS from_lang
           FROM moved m JOIN orders o ON o.id = m.order_id
           LEFT JOIN LATERAL (SELECT x.id, x.to_name, x.to_email, x.to_lang
                                FROM ticket_transfers x WHERE x.ticket_id = m.id
                               ORDER BY x.id DESC LIMIT 1) p ON true
     ), logged AS (
         INSERT INTO ticket_transfers (ticket_id, event_id, from_code, to_code, from_name,
                                       from_email, from_lang, to_name, to_email, to_lang,
                                       by_staff_id, by_api_key_id)
         SELECT id, event_id, $1, $2, from_name, from_email, from_lang, $3, $4, $5, $7, $8
           FROM sender
      RETURNING id
     ), mailed AS (
         INSERT INTO outbox (message_id, kind, order_id, ticket_transfer_id, recipient, subject)
         SELECT $9, 'ticket_transferred', s.order_id, l.id, $4, 'A ticket for ' || s.event_name
           FROM logged l CROSS JOIN sender s
         UNION ALL
         SELECT $10, 'transfer_receipt', s.order_id, l.id, s.from_email,
                'Your ticket for ' || s.event_name || ' was sent on'
           FROM logged l CROSS JOIN sender s WHERE s.from_email IS NOT NULL
     )
     SELECT l.id AS transfer_id, s.id AS ticket_id, s.event_id, s.order_id
       FROM logged l CROSS JOIN sender s";

/// Passes the ticket with code `from` on to `to` (their mail is written
/// in `to.lang`). `by` is staff at the
/// counter (audited, and not held to the event's transfer rules); None is
/// the holder. Refused with why when the statement touched nothing.
pub async fn transfer(
    pool: &super::Pool,
    from: &TicketCode,
    to: &BuyerDetails,
    by: Option<Actor>,
) -> AppResult<Transfer> {
    let code = TicketCode::generate();
    super::retrying(|| {
        super::in_transaction(pool, async |tx| {
            let statement = tx.prepare_cached(TRANSFER).await?;
            let row = tx
                .query_opt(
                    &statement,
                    &[
                        &from.as_str(),
                        &code.as_str(),
                        &to.name,
                        &to.email.as_str(),
                        &to.lang.tag(),
                        &by.is_some(),
                        &by.and_then(Actor::staff_id),
                        &by.and_then(Actor::api_key_id),
                        &super::outbox::new_message_id(),
                        &super::outbox::new_message_id(),
                    ],
                )
                .await?;
            let Some(row) = row else {
                return Err(refusal(tx, from).await);
            };
            let made = Transfer {
                id: row.get("transfer_id"),
                ticket_id: row.get("ticket_id"),
                event_id: row.get("event_id"),
                order_id: row.get("order_id"),
                code: code.clone(),
            };
            if let Some(actor) = by {
                audit::record(
                    tx,
                    Entry {
                        actor: Some(actor),
                        action: "ticket_transferred",
                        event_id: Some(made.event_id),
                        hold_id: None,
                        order_id: Some(made.order_id),
                        seat_ids: &[],
                        detail: format!(
                            "passed ticket {} on to {} <{}>",
                            made.ticket_id,
                            to.name,
                            to.email.as_str()
                        ),
                    },
                )
                .await?;
            }
            Ok(made)
        })
    })
    .await
}

/// Why a transfer touched nothing, read in a new statement (so a new
/// snapshot: it sees the admission or transfer that beat ours).
async fn refusal(client: &impl GenericClient, from: &TicketCode) -> AppError {
    match why_refused(client, from).await {
        Ok(refused) => refused,
        Err(err) => err,
    }
}

async fn why_refused(client: &impl GenericClient, from: &TicketCode) -> AppResult<AppError> {
    let statement = client
        .prepare_cached(
            "SELECT t.admitted_at IS NOT NULL AS used, t.voided,
                    e.cancelled_at IS NOT NULL AS cancelled, e.transfers_allowed,
                    coalesce(e.transfers_close_at, least(e.starts_at, e.doors_opened_at))
                        AS closes_at,
                    now() >= coalesce(e.transfers_close_at, least(e.starts_at, e.doors_opened_at))
                        AS closed,
                    t.transfer_count >= e.transfers_per_ticket AS at_limit,
                    e.transfers_per_ticket
               FROM tickets t JOIN events e ON e.id = t.event_id
              WHERE t.code = $1",
        )
        .await?;
    let Some(row) = client.query_opt(&statement, &[&from.as_str()]).await? else {
        return Ok(match given_away(client, from).await? {
            Some(_) => AppError::Conflict(Conflict::TicketTransferred),
            None => AppError::NotFound(Missing::Ticket),
        });
    };
    let conflict = if row.get("used") {
        Conflict::TicketUsed
    } else if row.get("voided") {
        Conflict::TicketVoided
    } else if row.get("cancelled") {
        Conflict::TransferEventCancelled
    } else if !row.get::<_, bool>("transfers_allowed") {
        Conflict::TransfersNotAllowed
    } else if row.get("closed") {
        Conflict::TransfersClosed {
            at: row.get("closes_at"),
        }
    } else if row.get("at_limit") {
        Conflict::TransferLimitReached {
            limit: row.get("transfers_per_ticket"),
        }
    } else {
        // Nothing in the way now, so something changed while the statement
        // ran (the event's rules, say): the code is no longer where it was
        // looked for. Told as a transfer that lost, which asks to look again.
        Conflict::TicketTransferred
    };
    Ok(AppError::Conflict(conflict))
}

/// A code that was passed on: when, and the event it was for.
#[derive(Debug, Clone)]
pub struct GivenAway {
    pub ticket_id: TicketId,
    pub event_id: EventId,
    pub at: OffsetDateTime,
    /// Who it went to, as the sender typed it.
    pub to_name: String,
}

/// The transfer that gave `code` away, if one did.
pub async fn given_away(
    client: &impl GenericClient,
    code: &TicketCode,
) -> AppResult<Option<GivenAway>> {
    let statement = client
        .prepare_cached(
            "SELECT ticket_id, event_id, transferred_at, to_name FROM ticket_transfers
              WHERE from_code = $1",
        )
        .await?;
    Ok(client
        .query_opt(&statement, &[&code.as_str()])
        .await?
        .map(|row| GivenAway {
            ticket_id: row.get("ticket_id"),
            event_id: row.get("event_id"),
            at: row.get("transferred_at"),
            to_name: row.get("to_name"),
        }))
}

/// A transfer as its two mails tell it.
#[derive(Debug, Clone)]
pub struct TransferMail {
    pub ticket_id: TicketId,
    /// The code the new holder got: their mail carries this one only (the
    /// ticket may have been passed on again since).
    pub to_code: String,
    pub to_name: String,
    pub to_email: String,
    pub to_lang: String,
    pub from_name: String,
    pub from_lang: String,
    pub at: OffsetDateTime,
}

pub async fn for_mail(client: &impl GenericClient, id: TransferId) -> AppResult<TransferMail> {
    let statement = client
        .prepare_cached(
            "SELECT ticket_id, to_code, to_name, to_email, to_lang, from_name, from_lang,
                    transferred_at
               FROM ticket_transfers WHERE id = $1",
        )
        .await?;
    let row = client.query_one(&statement, &[&id]).await?;
    Ok(TransferMail {
        ticket_id: row.get("ticket_id"),
        to_code: row.get("to_code"),
        to_name: row.get("to_name"),
        to_email: row.get("to_email"),
        to_lang: row.get("to_lang"),
        from_name: row.get("from_name"),
        from_lang: row.get("from_lang"),
        at: row.get("transferred_at"),
    })
}

/// The ticket's code now, for staff who pass it on from the order page
/// (they name the ticket, not its code), of `order_id` when a page named
/// one. The transfer is still judged by
/// its own conditional statement on this code: if the code changed since,
/// it touches nothing and says why.
pub async fn current_code(
    client: &impl GenericClient,
    event_id: EventId,
    ticket_id: TicketId,
    order_id: Option<OrderId>,
) -> AppResult<TicketCode> {
    let statement = client
        .prepare_cached(
            "SELECT code FROM tickets
              WHERE id = $1 AND event_id = $2 AND ($3::uuid IS NULL OR order_id = $3)",
        )
        .await?;
    let row = client
        .query_opt(&statement, &[&ticket_id, &event_id, &order_id])
        .await?
        .ok_or(AppError::NotFound(Missing::Ticket))?;
    Ok(TicketCode::parse(row.get("code")).expect("the schema's CHECK spells codes"))
}

/// An event's transfer rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferRules {
    pub allowed: bool,
    /// None: until the doors open (the event's start, or its first
    /// admission if that comes first).
    pub close_at: Option<OffsetDateTime>,
    pub per_ticket: i32,
}

/// What staff asked to change of the rules (None: leave it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RulesChange {
    pub allowed: Option<bool>,
    /// Some(None): back to "until the event starts".
    pub close_at: Option<Option<OffsetDateTime>>,
    pub per_ticket: Option<i32>,
}

pub async fn rules(client: &impl GenericClient, event_id: EventId) -> AppResult<TransferRules> {
    let statement = client
        .prepare_cached(
            "SELECT transfers_allowed, transfers_close_at, transfers_per_ticket
               FROM events WHERE id = $1",
        )
        .await?;
    let row = client
        .query_opt(&statement, &[&event_id])
        .await?
        .ok_or(AppError::NotFound(Missing::Event))?;
    Ok(TransferRules {
        allowed: row.get("transfers_allowed"),
        close_at: row.get("transfers_close_at"),
        per_ticket: row.get("transfers_per_ticket"),
    })
}

/// Sets the event's transfer rules, audited. A tighter rule binds every
/// transfer from the moment it commits (each transfer reads the rules in
/// its own statement).
pub async fn set_rules(
    pool: &super::Pool,
    actor: Actor,
    event_id: EventId,
    change: RulesChange,
) -> AppResult<()> {
    if change == RulesChange::default() {
        return Ok(());
    }
    super::in_transaction(pool, async |tx| {
        let changed = tx
            .query_opt(
                "UPDATE events
                    SET transfers_allowed = coalesce($2, transfers_allowed),
                        transfers_close_at = CASE WHEN $3 THEN $4 ELSE transfers_close_at END,
                        transfers_per_ticket = coalesce($5, transfers_per_ticket)
                  WHERE id = $1
              RETURNING transfers_close_at IS NULL OR transfers_close_at <= starts_at
                        AS closes_by_start",
                &[
                    &event_id,
                    &change.allowed,
                    &change.close_at.is_some(),
                    &change.close_at.flatten(),
                    &change.per_ticket,
                ],
            )
            .await?
            .ok_or(AppError::NotFound(Missing::Event))?;
        // Rolled back with the transaction: the rules stay as they were.
        if !changed.get::<_, bool>("closes_by_start") {
            return Err(AppError::Invalid(Invalid::TransfersAfterStart));
        }
        audit::record(
            tx,
            Entry {
                actor: Some(actor),
                action: "transfer_rules",
                event_id: Some(event_id),
                hold_id: None,
                order_id: None,
                seat_ids: &[],
                detail: format!("{change:?}"),
            },
        )
        .await
    })
    .await
}
