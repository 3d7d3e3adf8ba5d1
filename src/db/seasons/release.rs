//! A subscriber who can't come gives one night back to sale: that night's
//! ticket is voided and its seat goes on sale for that event alone. The
//! season's other nights are untouched.

use crate::db::{GenericClient, Pool, retrying, seats};
use crate::domain::ids::{EventId, OrderId, SeatId};
use crate::domain::sale::SaleStatus;
use crate::domain::ticket::TicketCode;
use crate::error::{AppError, AppResult, Conflict, Missing};

/// A night given back, and whether its subscriber is credited its share
/// once the seat sells again.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct Released {
    pub order_id: OrderId,
    pub event_id: EventId,
    pub seat_id: SeatId,
    /// The season's rule when it was released.
    pub credit: bool,
    /// The credit, owed once `sold_again` (0 without credit).
    pub credit_cents: i32,
    /// The seat was sold since to someone else: the credit is owed.
    pub sold_again: bool,
}

/// Gives the ticket's night back to sale, in one transaction: the event's
/// lock, then the ticket's, then its seat. Refused for a ticket that is
/// not a season's night, was admitted or voided, or whose event has
/// started or is cancelled.
pub async fn release_to_sale(pool: &Pool, code: &TicketCode) -> AppResult<Released> {
    retrying(|| crate::db::in_transaction(pool, async |tx| release_in(tx, code).await)).await
}

async fn release_in(tx: &impl GenericClient, code: &TicketCode) -> AppResult<Released> {
    let found = tx
        .query_opt(
            "SELECT t.event_id FROM tickets t WHERE t.code = $1",
            &[&code.as_str()],
        )
        .await?
        .ok_or(AppError::NotFound(Missing::Ticket))?;
    let event_id: EventId = found.get(0);
    let event = tx
        .query_one(
            &format!(
                "SELECT {} AS sale, e.on_sale_at, e.time_zone FROM events e
                  WHERE e.id = $1 FOR KEY SHARE",
                crate::db::events::SALE_STATUS
            ),
            &[&event_id],
        )
        .await?;
    if let status @ (SaleStatus::Started | SaleStatus::Cancelled) =
        SaleStatus::from_db(event.get("sale"))
    {
        return Err(AppError::Conflict(Conflict::NotSelling {
            status,
            on_sale_at: event.get("on_sale_at"),
            time_zone: event.get("time_zone"),
        }));
    }
    // A transfer may have changed the code since it was found: 404 then.
    let ticket = tx
        .query_opt(
            "SELECT t.id, t.order_id, t.seat_id, t.price_cents, t.admitted_at IS NOT NULL AS admitted,
                    t.voided_at IS NOT NULL AS voided, t.holder_name IS NOT NULL AS passed_on,
                    o.season_id, s.release_credit
               FROM tickets t
               JOIN orders o ON o.id = t.order_id
               LEFT JOIN seasons s ON s.id = o.season_id
              WHERE t.code = $1
                FOR UPDATE OF t",
            &[&code.as_str()],
        )
        .await?
        .ok_or(AppError::NotFound(Missing::Ticket))?;
    let seat_id: Option<SeatId> = ticket.get("seat_id");
    let (Some(seat_id), Some(credit)) = (seat_id, ticket.get::<_, Option<bool>>("release_credit"))
    else {
        return Err(AppError::Conflict(Conflict::NotASeasonTicket));
    };
    // A night passed on is its new holder's to use, and its credit its
    // subscriber's: neither may give it back alone.
    if ticket.get("passed_on") {
        return Err(AppError::Conflict(Conflict::TicketTransferred));
    }
    if ticket.get("admitted") {
        return Err(AppError::Conflict(Conflict::TicketAdmitted));
    }
    if ticket.get("voided") {
        return Err(AppError::Conflict(Conflict::TicketVoided));
    }
    let order_id: OrderId = ticket.get("order_id");
    let ticket_id: i64 = ticket.get("id");
    tx.execute(
        "UPDATE tickets SET voided_at = now(), void_reason = 'released_to_sale'
          WHERE id = $1 AND voided_at IS NULL AND admitted_at IS NULL",
        &[&ticket_id],
    )
    .await?;
    let returned = seats::return_sold(tx, order_id, &[seat_id]).await?;
    if returned != [seat_id] {
        return Err(AppError::Internal(anyhow::anyhow!(
            "ticket {ticket_id}'s seat {seat_id} was not sold to its order {order_id}"
        )));
    }
    let credit_cents: i32 = if credit { ticket.get("price_cents") } else { 0 };
    tx.execute(
        "INSERT INTO season_releases (ticket_id, order_id, event_id, seat_id, credit, credit_cents)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            &ticket_id,
            &order_id,
            &event_id,
            &seat_id,
            &credit,
            &credit_cents,
        ],
    )
    .await?;
    Ok(Released {
        order_id,
        event_id,
        seat_id,
        credit,
        credit_cents,
        sold_again: false,
    })
}

/// The nights an order gave back, and whether each has sold again (its
/// credit then owed), read from the seats as they are now.
pub async fn released_nights(
    client: &impl GenericClient,
    order_id: OrderId,
) -> AppResult<Vec<Released>> {
    let rows = client
        .query(
            "SELECT r.order_id, r.event_id, r.seat_id, r.credit, r.credit_cents,
                    (s.status = 'SOLD' AND s.order_id <> r.order_id) AS sold_again
               FROM season_releases r JOIN seats s ON s.id = r.seat_id
              WHERE r.order_id = $1 ORDER BY r.released_at",
            &[&order_id],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| Released {
            order_id: row.get("order_id"),
            event_id: row.get("event_id"),
            seat_id: row.get("seat_id"),
            credit: row.get("credit"),
            credit_cents: row.get("credit_cents"),
            sold_again: row.get("sold_again"),
        })
        .collect())
}
