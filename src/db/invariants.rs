//! The claims "never oversold" rests on, checked against the database as
//! it is. The schema's constraints already forbid most of these; checking
//! them anyway, after load and faults, is what lets us say so with numbers.

use super::GenericClient;
use crate::domain::ids::{HoldId, SeatId};
use crate::error::AppResult;

/// One broken invariant, with the rows that break it.
#[derive(Debug, Clone, PartialEq)]
pub struct Breach {
    pub invariant: &'static str,
    pub detail: String,
}

const CHECKS: &[(&str, &str)] = &[
    (
        "no seat is sold twice",
        "SELECT 'seat ' || seat_id || ' on ' || count(*) || ' order lines'
           FROM order_lines GROUP BY seat_id HAVING count(*) > 1",
    ),
    (
        "every sold seat has exactly its order's line",
        "SELECT 'seat ' || s.id || ' sold to order ' || s.order_id || ' without a matching line'
           FROM seats s
          WHERE s.status = 'SOLD'
            AND NOT EXISTS (SELECT 1 FROM order_lines l WHERE l.seat_id = s.id AND l.order_id = s.order_id)",
    ),
    (
        "no order line for a seat that isn't sold",
        "SELECT 'seat ' || s.id || ' is ' || s.status || ' but on order ' || l.order_id
           FROM order_lines l JOIN seats s ON s.id = l.seat_id
          WHERE s.status <> 'SOLD' OR s.order_id <> l.order_id",
    ),
    (
        "a held seat's hold (open, or waiting for its order's payment) is of its event and expires when the seat says",
        "SELECT 'seat ' || s.id || ' held by ' || s.hold_id || ' (' || h.state || ')'
           FROM seats s JOIN holds h ON h.id = s.hold_id
          WHERE s.status = 'HELD' AND s.held_until >= now()
            AND (h.state NOT IN ('OPEN', 'PAYING') OR h.event_id <> s.event_id OR h.expires_at <> s.held_until)",
    ),
    (
        "no buyer has two open holds for one event",
        "SELECT 'buyer ' || buyer_id || ' has ' || count(*) || ' open holds'
           FROM holds WHERE state = 'OPEN' GROUP BY event_id, buyer_id HAVING count(*) > 1",
    ),
    (
        "no live hold has more seats than a hold may",
        "SELECT 'hold ' || hold_id || ' has ' || count(*) || ' seats'
           FROM seats WHERE status = 'HELD' AND held_until >= now()
          GROUP BY hold_id HAVING count(*) > $1",
    ),
    (
        "seat counts add up per event",
        "SELECT 'event ' || e.id || ': ' || count(s.id) || ' seats but '
                || count(*) FILTER (WHERE s.status IN ('AVAILABLE', 'HELD', 'SOLD', 'BLOCKED')) || ' by status'
           FROM events e JOIN seats s ON s.event_id = e.id
          GROUP BY e.id
         HAVING count(s.id) <> count(*) FILTER (WHERE s.status IN ('AVAILABLE', 'HELD', 'SOLD', 'BLOCKED'))",
    ),
    (
        "a GA area's counters equal its tickets, and never pass its capacity",
        "SELECT 'area ' || a.id || ': held ' || a.held || ' sold ' || a.sold || ' of ' || a.capacity
                || ' but tickets say held ' || coalesce(t.held, 0) || ' sold ' || coalesce(t.sold, 0)
           FROM ga_areas a
           LEFT JOIN (SELECT area_id,
                             sum(quantity) FILTER (WHERE order_id IS NULL) AS held,
                             sum(quantity) FILTER (WHERE order_id IS NOT NULL) AS sold
                        FROM ga_tickets GROUP BY area_id) t ON t.area_id = a.id
          WHERE a.held <> coalesce(t.held, 0) OR a.sold <> coalesce(t.sold, 0)
             OR a.held + a.sold > a.capacity",
    ),
    (
        "held GA tickets belong to a hold of their event that expires when they say",
        "SELECT 'tickets ' || t.id || ' held by ' || t.hold_id || ' (' || h.state || ')'
           FROM ga_tickets t JOIN holds h ON h.id = t.hold_id
          WHERE t.order_id IS NULL AND t.held_until >= now()
            AND (h.state NOT IN ('OPEN', 'PAYING') OR h.event_id <> t.event_id OR h.expires_at <> t.held_until)",
    ),
    (
        "every sold seat has one valid ticket, of its order",
        "SELECT 'seat ' || s.id || ' sold to order ' || s.order_id || ' has '
                || (SELECT count(*) FROM tickets t WHERE t.seat_id = s.id AND t.voided_at IS NULL)
                || ' valid tickets'
           FROM seats s
          WHERE s.status = 'SOLD'
            AND (SELECT count(*) FROM tickets t
                  WHERE t.seat_id = s.id AND t.order_id = s.order_id AND t.voided_at IS NULL) <> 1",
    ),
    (
        "every valid seat ticket's seat is sold to its order",
        "SELECT 'ticket ' || t.id || ' of order ' || t.order_id || ' is for seat ' || s.id
                || ', which is ' || s.status
           FROM tickets t JOIN seats s ON s.id = t.seat_id
          WHERE t.voided_at IS NULL AND (s.status <> 'SOLD' OR s.order_id <> t.order_id)",
    ),
    (
        "an order's GA places sold equal its valid GA tickets, area by area",
        "SELECT 'order ' || coalesce(g.order_id, t.order_id) || ' area ' || coalesce(g.area_id, t.area_id)
                || ': ' || coalesce(g.places, 0) || ' places sold, ' || coalesce(t.tickets, 0) || ' valid tickets'
           FROM (SELECT order_id, area_id, sum(quantity) AS places FROM ga_tickets
                  WHERE order_id IS NOT NULL GROUP BY order_id, area_id) g
           FULL JOIN (SELECT order_id, ga_area_id AS area_id, count(*) AS tickets FROM tickets
                       WHERE ga_area_id IS NOT NULL AND voided_at IS NULL
                       GROUP BY order_id, ga_area_id) t
             ON t.order_id = g.order_id AND t.area_id = g.area_id
          WHERE coalesce(g.places, 0) <> coalesce(t.tickets, 0)",
    ),
];

/// Every breach found (empty when all hold). `max_seats` is the per-hold limit.
pub async fn check(client: &impl GenericClient, max_seats: u32) -> AppResult<Vec<Breach>> {
    let mut breaches = Vec::new();
    for (invariant, sql) in CHECKS {
        let rows = if sql.contains("$1") {
            client.query(*sql, &[&i64::from(max_seats)]).await?
        } else {
            client.query(*sql, &[]).await?
        };
        breaches.extend(rows.iter().take(20).map(|row| Breach {
            invariant,
            detail: row.get(0),
        }));
    }
    Ok(breaches)
}

/// What the clients were told: a seat they were given (201) under a hold,
/// and whether they later released it themselves.
#[derive(Debug, Clone)]
pub struct Granted {
    pub hold_id: HoldId,
    pub seat_id: SeatId,
}

/// Every seat a client was given and did not release must still be held
/// by that hold, or sold from it. Returns the ones that are neither.
pub async fn check_granted(
    client: &impl GenericClient,
    granted: &[Granted],
) -> AppResult<Vec<Breach>> {
    let holds: Vec<HoldId> = granted.iter().map(|g| g.hold_id).collect();
    let seats: Vec<SeatId> = granted.iter().map(|g| g.seat_id).collect();
    let rows = client
        .query(
            "SELECT g.hold_id::text, g.seat_id, s.status
               FROM unnest($1::uuid[], $2::bigint[]) AS g(hold_id, seat_id)
               JOIN seats s ON s.id = g.seat_id
               LEFT JOIN orders o ON o.id = s.order_id
              WHERE NOT ((s.status = 'HELD' AND s.hold_id = g.hold_id)
                      OR (s.status = 'SOLD' AND o.hold_id = g.hold_id))
              LIMIT 20",
            &[&holds, &seats],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|row| Breach {
            invariant: "every seat a client was given is held by its hold or sold from it",
            detail: format!(
                "seat {} given to hold {} is now {}",
                row.get::<_, i64>(1),
                row.get::<_, String>(0),
                row.get::<_, String>(2)
            ),
        })
        .collect())
}
