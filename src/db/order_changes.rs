//! Changing orders at the box office: walk-up sales with their tender,
//! refunds of whole orders or single tickets, and reseats. Each is one
//! transaction of conditional statements judged by the rows they touched,
//! with its audit entry inside, so the log, the seats, the GA counters and
//! the tickets can't disagree.

use std::collections::BTreeMap;

use uuid::Uuid;

use super::audit::{self, Entry};
use super::ga;
use super::tickets::{self, Issued};
use super::{GenericClient, Pool, events, outbox, retrying, seats, webhooks};
use crate::domain::email::Email;
use crate::domain::hold::GaRequest;
use crate::domain::ids::{Actor, BuyerId, EventId, OrderId, SeatId, TicketId};
use crate::domain::rules::WalkUpBuyer;
use crate::domain::seat::SeatIds;
use crate::domain::ticket::Tender;
use crate::error::{AppError, AppResult, Conflict, Invalid, Missing};

/// What a walk-up buyer takes home.
#[derive(Debug, Clone)]
pub struct WalkUp {
    pub seat_ids: SeatIds,
    /// Places per area, each area once.
    pub ga: Vec<GaRequest>,
    pub buyer: WalkUpBuyer,
    pub tender: Tender,
    /// Price types chosen per seat (others take the default) and a promo
    /// code: with either, the sale is priced as a purchase is.
    pub choices: crate::domain::price_type::Choices,
}

#[derive(Debug, Clone)]
pub struct WalkUpSold {
    pub order_id: OrderId,
    pub tickets: Vec<Issued>,
}

/// Sells seats (free or blocked house seats) and GA places to a walk-up
/// buyer as one order, all or nothing, recording how it was paid. A comp
/// is priced at nothing. With an e-mail address, the tickets are mailed.
pub async fn walk_up_sale(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    sale: &WalkUp,
) -> AppResult<WalkUpSold> {
    if sale.seat_ids.is_empty() && sale.ga.is_empty() {
        return Err(AppError::Invalid(Invalid::NothingToSell));
    }
    let attempt = || {
        retrying(|| {
            super::in_transaction(pool, async |tx| walk_up_in(tx, actor, event_id, sale).await)
        })
    };
    let outcome = attempt().await;
    // As a purchase does: counts held by orders past their payment
    // deadline are given back, and the sale tried once more.
    match outcome {
        Err(err)
            if err.is_offer_used_up()
                && super::payments::lapse_overdue(pool, event_id).await? > 0 =>
        {
            attempt().await
        }
        outcome => outcome,
    }
}

async fn walk_up_in(
    tx: &impl GenericClient,
    actor: Actor,
    event_id: EventId,
    sale: &WalkUp,
) -> AppResult<WalkUpSold> {
    events::lock_not_cancelled(tx, event_id).await?;
    let known = seats::ids_in_event(tx, event_id, &sale.seat_ids).await?;
    if known.len() != sale.seat_ids.len() {
        return Err(AppError::NotFound(Missing::SeatInEvent));
    }
    let order_id = OrderId(Uuid::new_v4());
    let email = sale.buyer.email.as_ref().map(Email::as_str);
    let priced = match sale.choices.types.is_empty() && sale.choices.promo_code.is_none() {
        true => None,
        false => Some(
            super::counter_offer::price(tx, event_id, &sale.seat_ids, &sale.choices, &sale.tender)
                .await?,
        ),
    };
    let promo_code_id = priced.as_ref().and_then(|priced| priced.promo_code_id);
    let insert = tx
        .prepare_cached(
            "INSERT INTO orders (id, event_id, buyer_id, buyer_name, buyer_email, sold_by_staff,
                                 tender, comp_reason, promo_code_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .await?;
    tx.execute(
        &insert,
        &[
            &order_id,
            &event_id,
            &BuyerId(Uuid::new_v4()),
            &sale.buyer.name,
            &email,
            &actor.staff_id(),
            &sale.tender.as_str(),
            &sale.tender.comp_reason(),
            &promo_code_id,
        ],
    )
    .await?;
    let free = matches!(sale.tender, Tender::Comp { .. });
    // GA before seats: the order every claim takes its locks in.
    let mut areas = sale.ga.clone();
    areas.sort_by_key(|request| request.area_id);
    ga::sell_walk_up(tx, event_id, order_id, &areas, free).await?;
    let sold = match &priced {
        Some(priced) => super::counter_offer::sell(tx, event_id, order_id, &priced.lines).await?,
        None => seats::sell_at_box_office(tx, event_id, order_id, &sale.seat_ids, free).await?,
    };
    if sold.len() != sale.seat_ids.len() {
        return Err(AppError::SeatsUnavailable {
            seat_ids: seats::refused(&sale.seat_ids, &sold),
        });
    }
    let places = sale.seat_ids.len() + areas.iter().map(|a| a.quantity as usize).sum::<usize>();
    let tickets = tickets::issue(tx, order_id, event_id, places).await?;
    if let Some(email) = email {
        outbox::queue_order_confirmation(tx, order_id, event_id, email).await?;
    }
    webhooks::queue(
        tx,
        "order.created",
        serde_json::json!({ "order_id": order_id, "event_id": event_id, "tender": sale.tender.as_str() }),
    )
    .await?;
    let paid = match &sale.tender {
        Tender::Comp { reason } => format!("comp: {reason}"),
        other => other.as_str().to_string(),
    };
    audit::record(
        tx,
        Entry {
            actor: Some(actor),
            action: "box_office_sale",
            event_id: Some(event_id),
            hold_id: None,
            order_id: Some(order_id),
            seat_ids: &sale.seat_ids,
            detail: format!("sold {places} ticket(s) to {} ({paid})", sale.buyer.name),
        },
    )
    .await?;
    Ok(WalkUpSold { order_id, tickets })
}

/// What a refund gave back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refunded {
    pub tickets: usize,
    pub seat_ids: SeatIds,
    pub ga_places: usize,
    pub amount_cents: i64,
    /// The order was paid online: the money goes back through the
    /// provider, queued with this refund.
    pub provider_refund: bool,
}

/// Refunds the order's tickets (`only` some, or all still valid), all or
/// nothing: each is voided, its seat goes back on sale and its GA place
/// back to its area. A ticket admitted at the door is refused, as is one
/// already refunded. The void is one conditional UPDATE: racing the door
/// on one ticket, exactly one of them wins.
pub async fn refund(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    order_id: OrderId,
    only: Option<&[TicketId]>,
) -> AppResult<Refunded> {
    let only: Option<Vec<TicketId>> = only.map(|ids| {
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        ids
    });
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            refund_in(tx, actor, event_id, order_id, only.as_deref()).await
        })
    })
    .await
}

async fn refund_in(
    tx: &impl GenericClient,
    actor: Actor,
    event_id: EventId,
    order_id: OrderId,
    only: Option<&[TicketId]>,
) -> AppResult<Refunded> {
    // Refunds of one order take turns: the one that voids its last ticket
    // then sees every other refund's voids, and gives its promo code's use
    // back (two at once each saw the other's ticket live, and neither did).
    // The event's key-share lock too, as a purchase takes it: a change of
    // the event's price types (which recounts their quotas from tickets)
    // waits for this refund's voids, or this refund for it.
    tx.execute(
        "SELECT 1 FROM orders o JOIN events e ON e.id = o.event_id
          WHERE o.id = $1 AND o.event_id = $2
            FOR NO KEY UPDATE OF o FOR KEY SHARE OF e",
        &[&order_id, &event_id],
    )
    .await?;
    let void = tx
        .prepare_cached(
            // Each ticket pays back its price after discount, the tax added
            // on it, and its fee (with that tax) when the event's fees were
            // refundable when it was sold; included tax is inside the price.
            "UPDATE tickets SET voided_at = now(), void_reason = 'refunded',
                    refunded_cents = tickets.price_cents::bigint
                        + CASE WHEN o.tax_included THEN 0 ELSE tickets.tax_cents END
                        + CASE WHEN NOT o.fees_refundable THEN 0
                               WHEN o.tax_included THEN tickets.fee_cents
                               ELSE tickets.fee_cents::bigint + tickets.fee_tax_cents END
               FROM orders o
              WHERE o.id = $1 AND tickets.order_id = $1
                -- A season order's tickets are in all its nights: it is
                -- refunded whole from its console (its first night's).
                AND (tickets.event_id = $2 OR o.season_id IS NOT NULL)
                AND ($3::bigint[] IS NULL OR tickets.id = ANY($3))
                AND tickets.voided_at IS NULL AND tickets.admitted_at IS NULL
          RETURNING tickets.id, tickets.seat_id, tickets.ga_area_id, tickets.refunded_cents,
                    tickets.price_type_id",
        )
        .await?;
    let voided = tx.query(&void, &[&order_id, &event_id, &only]).await?;
    // What the void could not touch, read in a new statement (so it sees
    // an admission that committed while the void waited on its row).
    let left = tx
        .prepare_cached(
            "SELECT count(*) AS tickets,
                    count(*) FILTER (WHERE admitted_at IS NOT NULL) AS admitted,
                    count(*) FILTER (WHERE voided_at IS NOT NULL) AS voided
               FROM tickets
              WHERE order_id = $1 AND ($3::bigint[] IS NULL OR id = ANY($3))
                AND (event_id = $2
                     OR EXISTS (SELECT 1 FROM orders o WHERE o.id = $1 AND o.season_id IS NOT NULL))
                AND NOT (id = ANY($4))",
        )
        .await?;
    let voided_ids: Vec<TicketId> = voided.iter().map(|row| row.get("id")).collect();
    let row = tx
        .query_one(&left, &[&order_id, &event_id, &only, &voided_ids])
        .await?;
    let (others, admitted, already_voided): (i64, i64, i64) =
        (row.get("tickets"), row.get("admitted"), row.get("voided"));
    if admitted > 0 {
        return Err(AppError::Conflict(Conflict::TicketAdmitted));
    }
    let asked = only.map_or(voided.len(), <[TicketId]>::len);
    if voided.len() < asked || (voided.is_empty() && only.is_none()) {
        return Err(if others > 0 || already_voided > 0 {
            AppError::Conflict(Conflict::TicketVoided)
        } else if only.is_some() {
            AppError::NotFound(Missing::Ticket)
        } else {
            AppError::NotFound(Missing::Order)
        });
    }
    let seat_ids: SeatIds = voided
        .iter()
        .filter_map(|row| row.get::<_, Option<SeatId>>("seat_id"))
        .collect();
    let mut per_area: BTreeMap<i64, i32> = BTreeMap::new();
    for area in voided
        .iter()
        .filter_map(|row| row.get::<_, Option<i64>>("ga_area_id"))
    {
        *per_area.entry(area).or_default() += 1;
    }
    let per_area: Vec<(i64, i32)> = per_area.into_iter().collect();
    if !per_area.is_empty() {
        // A GA place's type gets its place back under its quota (a seat's
        // does as its line goes: `seats::return_sold`); types before areas,
        // the order a purchase takes their rows in.
        let ga_types: Vec<i64> = voided
            .iter()
            .filter(|row| row.get::<_, Option<i64>>("ga_area_id").is_some())
            .filter_map(|row| row.get::<_, Option<i64>>("price_type_id"))
            .collect();
        super::price_types::give_back_places(tx, &ga_types).await?;
        ga::refund(tx, order_id, &per_area).await?;
    }
    if !seat_ids.is_empty() {
        let released = seats::return_sold(tx, order_id, &seat_ids).await?;
        if released.len() != seat_ids.len() {
            return Err(AppError::Internal(anyhow::anyhow!(
                "order {order_id}: {} seats refunded but {} released",
                seat_ids.len(),
                released.len()
            )));
        }
    }
    super::promo_codes::give_back_if_refunded(tx, order_id).await?;
    let amount_cents: i64 = voided
        .iter()
        .map(|row| row.get::<_, i64>("refunded_cents"))
        .sum();
    let ga_places = per_area.iter().map(|(_, n)| *n as usize).sum();
    audit::record(
        tx,
        Entry {
            actor: Some(actor),
            action: if only.is_some() {
                "refund_tickets"
            } else {
                "refund_order"
            },
            event_id: Some(event_id),
            hold_id: None,
            order_id: Some(order_id),
            seat_ids: &seat_ids,
            detail: format!(
                "{} ticket(s) voided ({} seat(s), {ga_places} GA place(s)), {amount_cents} in minor units",
                voided.len(),
                seat_ids.len()
            ),
        },
    )
    .await?;
    webhooks::queue(
        tx,
        "order.refunded",
        serde_json::json!({
            "order_id": order_id,
            "event_id": event_id,
            "ticket_ids": voided_ids,
            "amount_cents": amount_cents,
            "whole_order": only.is_none(),
        }),
    )
    .await?;
    let provider_refund =
        super::payments::queue_provider_refund(tx, order_id, amount_cents, actor).await?;
    let order_now = tx
        .query_one(
            "SELECT tender,
                    (SELECT count(*) FROM tickets t
                      WHERE t.order_id = $1 AND t.voided_at IS NULL) AS still_valid
               FROM orders WHERE id = $1",
            &[&order_id],
        )
        .await?;
    let tender: String = order_now.get("tender");
    let still_valid: i64 = order_now.get("still_valid");
    // How the money comes back, for the buyer's mail.
    let back_to = match (provider_refund, amount_cents, tender.as_str()) {
        (true, _, _) => "online",
        (false, 0, _) | (false, _, "comp") => "nothing",
        (false, _, "cash") => "cash",
        (false, _, "card") => "card",
        _ => "box_office",
    };
    super::outbox::queue_order_refunded(
        tx,
        order_id,
        &serde_json::json!({
            "ticket_ids": voided_ids,
            "amount_cents": amount_cents,
            "back_to": back_to,
            "whole_order": only.is_none(),
            // As this refund left it (a later one mails its own count).
            "still_valid": still_valid,
        }),
    )
    .await?;
    Ok(Refunded {
        tickets: voided.len(),
        seat_ids,
        ga_places,
        amount_cents,
        provider_refund,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reseated {
    pub order_id: OrderId,
    pub from: SeatId,
    pub to: SeatId,
}

/// Moves a ticket to another seat, keeping its code: the new seat is
/// claimed with one conditional UPDATE (free, or held by a lapsed hold) and
/// the old one released in the same transaction, all or nothing. Of two
/// reseats onto one seat, exactly one wins; the other is told it's taken.
pub async fn reseat(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    ticket_id: TicketId,
    to: SeatId,
) -> AppResult<Reseated> {
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            reseat_in(tx, actor, event_id, ticket_id, to).await
        })
    })
    .await
}

async fn reseat_in(
    tx: &impl GenericClient,
    actor: Actor,
    event_id: EventId,
    ticket_id: TicketId,
    to: SeatId,
) -> AppResult<Reseated> {
    events::lock_not_cancelled(tx, event_id).await?;
    let claim = tx
        .prepare_cached(
            "WITH ticket AS (
                 SELECT order_id, seat_id FROM tickets
                  WHERE id = $1 AND event_id = $2 AND voided_at IS NULL AND seat_id IS NOT NULL
             )
             UPDATE seats s
                SET status = 'SOLD', order_id = ticket.order_id, hold_id = NULL, held_until = NULL
               FROM ticket
              WHERE s.id = $3 AND s.event_id = $2
                AND (s.status = 'AVAILABLE' OR (s.status = 'HELD' AND s.held_until < now()))
          RETURNING ticket.order_id, ticket.seat_id AS from_seat",
        )
        .await?;
    let Some(claimed) = tx.query_opt(&claim, &[&ticket_id, &event_id, &to]).await? else {
        return Err(why_not_reseated(tx, event_id, ticket_id, to).await?);
    };
    let order_id: OrderId = claimed.get("order_id");
    let from: SeatId = claimed.get("from_seat");
    let moves = tx
        .prepare_cached(
            "WITH moved AS (
                 UPDATE tickets SET seat_id = $3
                  WHERE id = $1 AND seat_id = $2 AND voided_at IS NULL
              RETURNING id
             ), line AS (
                 UPDATE order_lines SET seat_id = $3
                  WHERE order_id = $4 AND seat_id = $2
              RETURNING seat_id
             ), released AS (
                 UPDATE seats SET status = 'AVAILABLE', order_id = NULL
                  WHERE id = $2 AND order_id = $4 AND status = 'SOLD'
              RETURNING id
             )
             SELECT (SELECT count(*) FROM moved) AS moved, (SELECT count(*) FROM line) AS lines,
                    (SELECT count(*) FROM released) AS released",
        )
        .await?;
    let row = tx
        .query_one(&moves, &[&ticket_id, &from, &to, &order_id])
        .await?;
    let counts: (i64, i64, i64) = (row.get("moved"), row.get("lines"), row.get("released"));
    if counts != (1, 1, 1) {
        // The ticket was refunded or moved by someone else meanwhile.
        return Err(AppError::Conflict(Conflict::TicketVoided));
    }
    audit::record(
        tx,
        Entry {
            actor: Some(actor),
            action: "reseat",
            event_id: Some(event_id),
            hold_id: None,
            order_id: Some(order_id),
            seat_ids: &[from, to],
            detail: format!("ticket {ticket_id} moved from seat {from} to seat {to}"),
        },
    )
    .await?;
    Ok(Reseated { order_id, from, to })
}

/// Why a reseat claimed nothing: the ticket, or the seat.
async fn why_not_reseated(
    tx: &impl GenericClient,
    event_id: EventId,
    ticket_id: TicketId,
    to: SeatId,
) -> AppResult<AppError> {
    let row = tx
        .query_opt(
            "SELECT voided_at IS NOT NULL AS voided, seat_id IS NULL AS general_admission
               FROM tickets WHERE id = $1 AND event_id = $2",
            &[&ticket_id, &event_id],
        )
        .await?;
    Ok(match row {
        None => AppError::NotFound(Missing::Ticket),
        Some(row) if row.get("voided") => AppError::Conflict(Conflict::TicketVoided),
        Some(row) if row.get("general_admission") => AppError::Conflict(Conflict::NotASeatTicket),
        Some(_) if seats::ids_in_event(tx, event_id, &[to]).await?.is_empty() => {
            AppError::NotFound(Missing::SeatInEvent)
        }
        Some(_) => AppError::SeatsUnavailable { seat_ids: vec![to] },
    })
}

/// The seats that staff name ("C12", "Stalls C12"), in the order given.
/// A name that matches no seat, or several (rows repeat across sections),
/// is refused and quoted back.
pub async fn seats_named(
    client: &impl GenericClient,
    event_id: EventId,
    names: &[String],
) -> AppResult<Vec<SeatId>> {
    let statement = client
        .prepare_cached(
            "SELECT n.name, array_agg(s.id ORDER BY sec.sort_order, s.id) AS ids,
                    array_agg(sec.name ORDER BY sec.sort_order, s.id) AS sections
               FROM unnest($2::text[]) AS n(name)
               LEFT JOIN (seats s JOIN sections sec ON sec.id = s.section_id)
                 ON s.event_id = $1
                AND (upper(replace(s.row_label || s.seat_label, ' ', ''))
                        = upper(replace(n.name, ' ', ''))
                     OR upper(replace(sec.name || s.row_label || s.seat_label, ' ', ''))
                        = upper(replace(n.name, ' ', '')))
              GROUP BY n.name",
        )
        .await?;
    // A seat named twice ("Stalls A1, Stalls A1") is one seat.
    let mut distinct: Vec<&String> = Vec::with_capacity(names.len());
    for name in names {
        if !distinct.contains(&name) {
            distinct.push(name);
        }
    }
    let names: Vec<String> = distinct.into_iter().cloned().collect();
    let rows = client.query(&statement, &[&event_id, &names]).await?;
    type Matches = (Vec<Option<SeatId>>, Vec<Option<String>>);
    let found: BTreeMap<String, Matches> = rows
        .iter()
        .map(|row| (row.get("name"), (row.get("ids"), row.get("sections"))))
        .collect();
    names
        .iter()
        .map(|name| match found.get(name) {
            Some((ids, _)) if matches!(ids.as_slice(), [Some(_)]) => Ok(ids[0].expect("matched")),
            // "C12" in three sections: say which, so the section can be added.
            Some((ids, sections)) if ids.len() > 1 => {
                Err(AppError::Invalid(Invalid::AmbiguousSeatName {
                    name: name.clone(),
                    sections: sections.iter().flatten().cloned().collect(),
                }))
            }
            _ => Err(AppError::Invalid(Invalid::SeatName(name.clone()))),
        })
        .collect()
}
