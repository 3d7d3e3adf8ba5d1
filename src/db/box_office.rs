//! What box-office staff see and do. Every change is one transaction that
//! also writes its audit entry, so the log and the seats can't disagree.

use time::OffsetDateTime;
use uuid::Uuid;

use super::audit::{self, Entry};
use super::holds::{self, Holder};
use super::{GenericClient, Pool, events, retrying, seats, webhooks};
use crate::domain::hold::{HoldRules, HoldSummary};
use crate::domain::ids::{Actor, BuyerId, EventId, HoldId, OrderId, SeatId};
use crate::domain::sale::SaleStatus;
use crate::domain::seat::SeatIds;
use crate::error::{AppError, AppResult, Conflict, Missing};

/// A hold as the console lists it.
#[derive(Debug, Clone)]
pub struct HoldOverview {
    pub hold_id: HoldId,
    pub buyer_id: BuyerId,
    pub created_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
    pub seat_ids: Vec<SeatId>,
    pub seat_names: Vec<String>,
    /// General-admission tickets held: "Floor × 2".
    pub ga_lines: Vec<String>,
    /// From the buyer's latest order, once they have bought anything.
    pub email: Option<String>,
}

const SEAT_NAME: &str = "sec.name || ', row ' || s.row_label || ', seat ' || s.seat_label";

fn hold_overviews(rows: &[tokio_postgres::Row]) -> Vec<HoldOverview> {
    rows.iter()
        .map(|r| HoldOverview {
            hold_id: r.get("id"),
            buyer_id: r.get("buyer_id"),
            created_at: r.get("created_at"),
            expires_at: r.get("expires_at"),
            seat_ids: r.get("seat_ids"),
            seat_names: r.get("seat_names"),
            ga_lines: r.get("ga_lines"),
            email: r.get("email"),
        })
        .collect()
}

/// Holds matching `condition` that still have seats (and, with
/// `with_ga`, those with only general-admission tickets too).
fn holds_query(condition: &str, order: &str, with_ga: bool) -> String {
    let has_ga = if with_ga {
        "OR EXISTS (SELECT 1 FROM ga_tickets g WHERE g.hold_id = h.id AND g.order_id IS NULL)"
    } else {
        ""
    };
    format!(
        "SELECT h.id, h.buyer_id, h.created_at, h.expires_at,
                coalesce(array_agg(s.id ORDER BY sec.sort_order, s.row_index, s.position)
                         FILTER (WHERE s.id IS NOT NULL), '{{}}') AS seat_ids,
                coalesce(array_agg({SEAT_NAME} ORDER BY sec.sort_order, s.row_index, s.position)
                         FILTER (WHERE s.id IS NOT NULL), '{{}}') AS seat_names,
                coalesce((SELECT array_agg(a.name || ' × ' || g.quantity ORDER BY a.sort_order)
                            FROM ga_tickets g JOIN ga_areas a ON a.id = g.area_id
                           WHERE g.hold_id = h.id AND g.order_id IS NULL), '{{}}') AS ga_lines,
                (SELECT o.buyer_email FROM orders o
                  WHERE o.buyer_id = h.buyer_id AND o.buyer_email IS NOT NULL
                  ORDER BY o.created_at DESC LIMIT 1) AS email
           FROM holds h
           LEFT JOIN seats s ON s.hold_id = h.id
           LEFT JOIN sections sec ON sec.id = s.section_id
          WHERE h.event_id = $1 AND {condition}
          GROUP BY h.id
         HAVING count(s.id) > 0 {has_ga}
          ORDER BY {order}"
    )
}

/// Whether the hold (in any state) is one of the event's.
pub async fn hold_belongs_to(
    client: &impl GenericClient,
    hold_id: HoldId,
    event_id: EventId,
) -> AppResult<bool> {
    Ok(holds::event_of(client, hold_id, None).await? == Some(event_id))
}

/// Holds that are live now, soonest to expire first.
pub async fn live_holds(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<HoldOverview>> {
    let statement = client
        .prepare_cached(&holds_query(
            "h.state = 'OPEN' AND h.expires_at > now()",
            "h.expires_at",
            true,
        ))
        .await?;
    Ok(hold_overviews(
        &client.query(&statement, &[&event_id]).await?,
    ))
}

/// Holds that lapsed in the last hour and still have seats nobody has
/// taken since (the seats a revive would get back), latest first.
pub async fn lapsed_holds(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<HoldOverview>> {
    let statement = client
        .prepare_cached(&holds_query(
            "h.state IN ('OPEN', 'EXPIRED') AND h.expires_at <= now()
             AND h.expires_at > now() - interval '1 hour'",
            "h.expires_at DESC",
            false,
        ))
        .await?;
    Ok(hold_overviews(
        &client.query(&statement, &[&event_id]).await?,
    ))
}

#[derive(Debug, Clone)]
pub struct OrderOverview {
    pub id: OrderId,
    pub buyer_name: String,
    pub buyer_email: Option<String>,
    pub created_at: OffsetDateTime,
    pub seat_ids: Vec<SeatId>,
    pub seat_names: Vec<String>,
    pub total_cents: i64,
    pub sold_by: Option<String>,
    pub tender: String,
    /// Tickets of the order refunded so far.
    pub refunded: i64,
    /// Whether it is paid, or waits for (or missed) its payment.
    pub status: crate::domain::payment::OrderStatus,
}

/// The event's orders, newest first; with a query, those whose email
/// contains it, whose order number starts with it, or that include a seat
/// it names ("C12", "Orchestra C12").
pub async fn orders(
    client: &impl GenericClient,
    event_id: EventId,
    query: Option<&str>,
    limit: i64,
) -> AppResult<Vec<OrderOverview>> {
    let statement = client
        .prepare_cached(&format!(
            "SELECT o.id, o.buyer_name, o.buyer_email, o.created_at, st.name AS sold_by, o.tender,
                    o.status, coalesce(o.pay_by <= now(), false) AS past,
                    coalesce(array_agg(s.id ORDER BY sec.sort_order, s.row_index, s.position)
                             FILTER (WHERE s.id IS NOT NULL), '{{}}') AS seat_ids,
                    coalesce(array_agg({SEAT_NAME} ORDER BY sec.sort_order, s.row_index, s.position)
                             FILTER (WHERE s.id IS NOT NULL), '{{}}')
                      || coalesce((SELECT array_agg(a.name || ' × ' || g.quantity ORDER BY a.sort_order)
                                     FROM ga_tickets g JOIN ga_areas a ON a.id = g.area_id
                                    WHERE g.order_id = o.id), '{{}}')
                      -- A reservation waiting for its money has no lines yet: its kept seats.
                      || CASE WHEN o.status = 'pending_payment' THEN coalesce(
                             (SELECT array_agg(rsec.name || ', row ' || rs.row_label || ', seat ' || rs.seat_label
                                               ORDER BY rsec.sort_order, rs.row_index, rs.position)
                                FROM order_reserved_seats r JOIN seats rs ON rs.id = r.seat_id
                                JOIN sections rsec ON rsec.id = rs.section_id
                               WHERE r.order_id = o.id), '{{}}') ELSE '{{}}' END AS seat_names,
                    CASE WHEN o.status = 'pending_payment' THEN coalesce(o.amount_cents, 0)
                         ELSE o.total_cents - (SELECT coalesce(sum(t.refunded_cents), 0) FROM tickets t
                                                WHERE t.order_id = o.id) END::bigint AS total_cents,
                    (SELECT count(*) FROM tickets t
                      WHERE t.order_id = o.id AND t.voided_at IS NOT NULL) AS refunded
               FROM orders o
               LEFT JOIN order_lines l ON l.order_id = o.id
               LEFT JOIN seats s ON s.id = l.seat_id
               LEFT JOIN sections sec ON sec.id = s.section_id
               LEFT JOIN staff st ON st.id = o.sold_by_staff
              WHERE o.event_id = $1
                AND ($2::text IS NULL
                     OR strpos(lower(coalesce(o.buyer_email, '')), lower($2)) > 0
                     OR o.id::text LIKE lower($2) || '%'
                     OR EXISTS (SELECT 1 FROM order_lines l2
                                  JOIN seats s2 ON s2.id = l2.seat_id
                                  JOIN sections sec2 ON sec2.id = s2.section_id
                                 WHERE l2.order_id = o.id
                                   AND (upper(s2.row_label || s2.seat_label) = upper(replace($2, ' ', ''))
                                        OR upper(sec2.name || s2.row_label || s2.seat_label)
                                           = upper(replace($2, ' ', '')))))
              GROUP BY o.id, st.name
              ORDER BY o.created_at DESC
              LIMIT $3"
        ))
        .await?;
    let rows = client
        .query(&statement, &[&event_id, &query, &limit])
        .await?;
    Ok(rows
        .iter()
        .map(|r| OrderOverview {
            id: r.get("id"),
            buyer_name: r.get("buyer_name"),
            buyer_email: r.get("buyer_email"),
            created_at: r.get("created_at"),
            seat_ids: r.get("seat_ids"),
            seat_names: r.get("seat_names"),
            total_cents: r.get("total_cents"),
            sold_by: r.get("sold_by"),
            tender: r.get("tender"),
            refunded: r.get("refunded"),
            status: crate::domain::payment::OrderStatus::read(r.get("status"), r.get("past"), 0, 1),
        })
        .collect())
}

/// Who has a seat: its live hold, or its order.
pub enum SeatOccupant {
    Nobody,
    Hold(HoldOverview),
    Order(OrderOverview),
}

pub async fn occupant(
    client: &impl GenericClient,
    event_id: EventId,
    seat_id: SeatId,
) -> AppResult<SeatOccupant> {
    let statement = client
        .prepare_cached(
            "SELECT hold_id, order_id FROM seats
              WHERE event_id = $1 AND id = $2
                AND ((status = 'HELD' AND held_until >= now()) OR status = 'SOLD')",
        )
        .await?;
    let Some(row) = client.query_opt(&statement, &[&event_id, &seat_id]).await? else {
        return Ok(SeatOccupant::Nobody);
    };
    if let Some(hold_id) = row.get::<_, Option<HoldId>>("hold_id") {
        let holds = live_holds(client, event_id).await?;
        if let Some(hold) = holds.into_iter().find(|h| h.hold_id == hold_id) {
            return Ok(SeatOccupant::Hold(hold));
        }
    }
    if let Some(order_id) = row.get::<_, Option<Uuid>>("order_id") {
        let found = orders(client, event_id, Some(&order_id.to_string()), 1).await?;
        if let Some(order) = found.into_iter().next() {
            return Ok(SeatOccupant::Order(order));
        }
    }
    Ok(SeatOccupant::Nobody)
}

/// Releases a buyer's hold (all of it, or one seat). The buyer is told on
/// their next page. Returns the hold's event and the seats released.
pub async fn release(
    pool: &Pool,
    actor: Actor,
    hold_id: HoldId,
    only_seat: Option<SeatId>,
) -> AppResult<(EventId, SeatIds)> {
    retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        super::seasons::refuse_season_night(&tx, hold_id).await?;
        let hold = holds::lock_by_id(&tx, hold_id).await?;
        holds::refuse_if_purchased(&hold)?;
        let released = match only_seat {
            Some(seat_id) => {
                if !seats::release_one(&tx, hold.id, seat_id).await? {
                    return Err(AppError::NotFound(Missing::SeatInHold));
                }
                if holds::is_empty(&tx, hold.id).await? {
                    holds::close_by_staff(&tx, hold.id, actor).await?;
                }
                SeatIds::new([seat_id])
            }
            None => {
                super::ga::release_all(&tx, hold.id).await?;
                let released = seats::release_all(&tx, hold.id).await?;
                holds::close_by_staff(&tx, hold.id, actor).await?;
                released
            }
        };
        audit::record(
            &tx,
            Entry {
                actor: Some(actor),
                action: if only_seat.is_some() {
                    "release_seat"
                } else {
                    "release_hold"
                },
                event_id: Some(hold.event_id),
                hold_id: Some(hold.id),
                order_id: None,
                seat_ids: &released,
                detail: format!("buyer {}", hold.buyer_id),
            },
        )
        .await?;
        webhooks::queue(
            &tx,
            "hold.released_by_staff",
            serde_json::json!({
                "hold_id": hold.id,
                "event_id": hold.event_id,
                "seat_ids": released,
                "whole_hold": only_seat.is_none(),
            }),
        )
        .await?;
        tx.commit().await?;
        Ok((hold.event_id, released))
    })
    .await
}

/// Re-holds a lapsed hold's seats (those nobody has taken since) for the
/// same buyer, with a fresh expiry. All of them or none.
pub async fn revive(
    pool: &Pool,
    actor: Actor,
    hold_id: HoldId,
    ttl: std::time::Duration,
) -> AppResult<HoldSummary> {
    retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        super::seasons::refuse_season_night(&tx, hold_id).await?;
        let event_id = holds::event_of(&tx, hold_id, None)
            .await?
            .ok_or_else(|| AppError::NotFound(Missing::Hold))?;
        events::lock_on_sale(&tx, event_id).await?;
        let old = holds::lock_by_id(&tx, hold_id).await?;
        if old.live {
            return Err(AppError::Conflict(Conflict::HoldStillLive));
        }
        let seat_ids = seats::held_by(&tx, old.id).await?;
        if seat_ids.is_empty() {
            return Err(AppError::Conflict(Conflict::NothingToRevive));
        }
        let holder = Holder {
            buyer_id: old.buyer_id,
            client_ip: None,
            api_key: None,
            request: None,
        };
        // Staff may revive past the buyer-facing limits.
        let rules = HoldRules {
            ttl,
            max_seats: u32::MAX,
            max_holds_per_ip: 0,
            max_holds_per_key: 0,
            share_seats: 0,
        };
        let hold = holds::lock_or_open(&tx, old.event_id, holder, rules).await?;
        let claimed = seats::claim(&tx, old.event_id, hold.id, hold.expires_at, &seat_ids)
            .await?
            .ids;
        if claimed.len() != seat_ids.len() {
            return Err(AppError::SeatsUnavailable {
                seat_ids: seats::refused(&seat_ids, &claimed),
            });
        }
        audit::record(
            &tx,
            Entry {
                actor: Some(actor),
                action: "revive_hold",
                event_id: Some(old.event_id),
                hold_id: Some(hold.id),
                order_id: None,
                seat_ids: &seat_ids,
                detail: format!("revived hold {} for buyer {}", old.id, old.buyer_id),
            },
        )
        .await?;
        let summary = holds::summary(&tx, &hold).await?;
        tx.commit().await?;
        Ok(summary)
    })
    .await
}

async fn seats_must_belong(
    client: &impl GenericClient,
    event_id: EventId,
    seat_ids: &[SeatId],
) -> AppResult<()> {
    // A draft's seats may be set aside before it is published.
    events::lock_not_cancelled_even_draft(client, event_id).await?;
    let known = seats::ids_in_event(client, event_id, seat_ids).await?;
    if known.len() != seat_ids.len() {
        return Err(AppError::NotFound(Missing::SeatInEvent));
    }
    Ok(())
}

/// Blocks seats (house seats, broken seats) or unblocks them, all or
/// nothing. A seat that is held live or sold can't be blocked: release it
/// first. Returns the seats now in the requested state.
pub async fn set_blocked(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    seat_ids: &SeatIds,
    block: Option<Option<&str>>,
) -> AppResult<SeatIds> {
    retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        seats_must_belong(&tx, event_id, seat_ids).await?;
        let changed = if let Some(purpose) = block {
            seats::block(&tx, event_id, seat_ids, purpose).await?
        } else {
            seats::unblock(&tx, event_id, seat_ids).await?
        };
        if changed.len() != seat_ids.len() {
            return Err(AppError::SeatsUnavailable {
                seat_ids: seats::refused(seat_ids, &changed),
            });
        }
        audit::record(
            &tx,
            Entry {
                actor: Some(actor),
                action: if block.is_some() { "block" } else { "unblock" },
                event_id: Some(event_id),
                hold_id: None,
                order_id: None,
                seat_ids,
                detail: match block {
                    Some(Some(purpose)) => format!("for {purpose}"),
                    _ => String::new(),
                },
            },
        )
        .await?;
        tx.commit().await?;
        Ok(changed)
    })
    .await
}

/// What closing sales released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SalesClosed {
    pub holds_released: i64,
    pub seats_released: i64,
    pub ga_tickets_released: i64,
    /// Orders flagged for refund (cancelling only).
    pub orders_flagged: i64,
}

/// Ends selling for the event: no more holds or purchases. Every open hold
/// is released (its buyer is told, as for a staff release). Cancelling
/// also flags every order for refund; orders are never deleted.
///
/// Two transactions. The first marks the event closed without waiting for
/// anyone, so new claims and purchases are refused from its commit on. The
/// second waits for those already in flight, then releases every open
/// hold: none can slip in after it. If the second fails, calling this
/// again finishes the job.
pub async fn close_sales(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    cancel: bool,
) -> AppResult<SalesClosed> {
    let before = retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        let before = events::mark_closed(&tx, event_id, cancel).await?;
        tx.commit().await?;
        Ok(before)
    })
    .await?;
    let already_closed =
        before == SaleStatus::Cancelled || (before == SaleStatus::Closed && !cancel);
    retrying(|| async {
        let mut client = pool.get().await?;
        let tx = client.transaction().await?;
        events::lock_for_closing(&tx, event_id).await?;
        // Holds before seats, as a buyer's release locks them.
        let holds_released = tx
            .execute(
                "UPDATE holds SET state = 'RELEASED', closed_at = now(), released_by_staff = $2,
                        released_by_key = $3
                  WHERE event_id = $1 AND state = 'OPEN'",
                &[&event_id, &actor.staff_id(), &actor.api_key_id()],
            )
            .await? as i64;
        // Closing sales leaves orders within their payment deadline their
        // seats (the box office takes reservations' money at the door);
        // a cancellation lets them go, and a late payment is refunded.
        let ga_tickets_released = super::ga::release_event(&tx, event_id, !cancel).await?;
        let released = seats::release_event(&tx, event_id, !cancel).await?;
        let orders_flagged = if cancel {
            tx.execute(
                "UPDATE orders SET event_cancelled = true WHERE event_id = $1",
                &[&event_id],
            )
            .await? as i64
        } else {
            0
        };
        // A second click finds nothing to do; a first one whose second
        // transaction failed finds the holds it left.
        if already_closed && holds_released == 0 {
            return Err(AppError::Conflict(if before == SaleStatus::Cancelled {
                Conflict::AlreadyCancelled
            } else {
                Conflict::AlreadyClosed
            }));
        }
        webhooks::queue(
            &tx,
            if cancel {
                "event.cancelled"
            } else {
                "event.sales_closed"
            },
            serde_json::json!({
                "event_id": event_id,
                "holds_released": holds_released,
                "orders_flagged_for_refund": orders_flagged,
            }),
        )
        .await?;
        let outcome = SalesClosed {
            holds_released,
            seats_released: released.len() as i64,
            ga_tickets_released,
            orders_flagged,
        };
        audit::record(
            &tx,
            Entry {
                actor: Some(actor),
                action: if cancel {
                    "cancel_event"
                } else {
                    "close_sales"
                },
                event_id: Some(event_id),
                hold_id: None,
                order_id: None,
                seat_ids: &released,
                detail: format!(
                    "released {holds_released} holds ({} seats, {ga_tickets_released} GA tickets); \
                     {orders_flagged} orders flagged for refund",
                    released.len()
                ),
            },
        )
        .await?;
        tx.commit().await?;
        Ok(outcome)
    })
    .await
}
