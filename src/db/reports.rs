//! Reports for the box office: what an event has sold, held, blocked and
//! left, and its orders for export. Read-only; a lapsed hold's seats count
//! as free, exactly as every claim treats them.

use time::OffsetDateTime;

use super::GenericClient;
use crate::domain::ids::{EventId, OrderId};
use crate::error::AppResult;

/// One section's seats of one tier, by state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatCounts {
    pub section: String,
    pub tier_code: String,
    pub tier_name: String,
    pub free: i64,
    pub held: i64,
    pub sold: i64,
    pub blocked: i64,
}

pub async fn seat_counts(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<SeatCounts>> {
    let statement = client
        .prepare_cached(
            "SELECT sec.name AS section, t.code AS tier_code, t.name AS tier_name,
                    count(*) FILTER (WHERE s.status = 'AVAILABLE'
                                        OR (s.status = 'HELD' AND s.held_until < now())) AS free,
                    count(*) FILTER (WHERE s.status = 'HELD' AND s.held_until >= now()) AS held,
                    count(*) FILTER (WHERE s.status = 'SOLD') AS sold,
                    count(*) FILTER (WHERE s.status = 'BLOCKED') AS blocked
               FROM seats s
               JOIN sections sec ON sec.id = s.section_id
               JOIN price_tiers t ON t.id = s.tier_id
              WHERE s.event_id = $1
              GROUP BY sec.sort_order, sec.name, t.code, t.name
              ORDER BY sec.sort_order, t.code",
        )
        .await?;
    Ok(client
        .query(&statement, &[&event_id])
        .await?
        .iter()
        .map(|row| SeatCounts {
            section: row.get("section"),
            tier_code: row.get("tier_code"),
            tier_name: row.get("tier_name"),
            free: row.get("free"),
            held: row.get("held"),
            sold: row.get("sold"),
            blocked: row.get("blocked"),
        })
        .collect())
}

/// What one tier has taken: seats and GA tickets sold, at the prices
/// they sold for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierGross {
    pub tier_code: String,
    pub tier_name: String,
    pub tickets: i64,
    pub gross_cents: i64,
}

pub async fn gross_by_tier(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<TierGross>> {
    let statement = client
        .prepare_cached(
            "SELECT t.code AS tier_code, t.name AS tier_name,
                    coalesce(sum(sold.tickets), 0)::bigint AS tickets,
                    coalesce(sum(sold.cents), 0)::bigint AS gross_cents
               FROM price_tiers t
               LEFT JOIN (
                   SELECT s.tier_id, 1 AS tickets, l.price_cents::bigint AS cents
                     FROM order_lines l JOIN seats s ON s.id = l.seat_id
                    WHERE s.event_id = $1
                   UNION ALL
                   SELECT a.tier_id, g.quantity, g.quantity::bigint * g.price_cents
                     FROM ga_tickets g JOIN ga_areas a ON a.id = g.area_id
                    WHERE g.event_id = $1 AND g.order_id IS NOT NULL
               ) AS sold ON sold.tier_id = t.id
              WHERE t.event_id = $1
              GROUP BY t.id, t.code, t.name
              ORDER BY t.code",
        )
        .await?;
    Ok(client
        .query(&statement, &[&event_id])
        .await?
        .iter()
        .map(|row| TierGross {
            tier_code: row.get("tier_code"),
            tier_name: row.get("tier_name"),
            tickets: row.get("tickets"),
            gross_cents: row.get("gross_cents"),
        })
        .collect())
}

/// One order, as a line of the export.
#[derive(Debug, Clone)]
pub struct OrderExport {
    pub id: OrderId,
    pub created_at: OffsetDateTime,
    pub buyer_name: String,
    /// None for a walk-up sale made without an address.
    pub buyer_email: Option<String>,
    /// "Stalls, row C, seat 7; Standing floor × 2"
    pub places: String,
    pub total_cents: i64,
    /// Sold at the box office, by this staff member.
    pub sold_by: Option<String>,
    pub tender: String,
    pub event_cancelled: bool,
}

/// Every order of the event, oldest first, with its seats and GA lines.
pub async fn orders_for_export(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<OrderExport>> {
    let statement = client
        .prepare_cached(
            "SELECT o.id, o.created_at, o.buyer_name, o.buyer_email, st.name AS sold_by,
                    o.event_cancelled, o.tender,
                    coalesce((SELECT string_agg(sec.name || ', row ' || s.row_label || ', seat ' || s.seat_label,
                                                '; ' ORDER BY sec.sort_order, s.row_index, s.position)
                                FROM order_lines l
                                JOIN seats s ON s.id = l.seat_id
                                JOIN sections sec ON sec.id = s.section_id
                               WHERE l.order_id = o.id), '') AS seat_places,
                    coalesce((SELECT string_agg(a.name || ' × ' || g.quantity, '; ' ORDER BY a.sort_order)
                                FROM ga_tickets g JOIN ga_areas a ON a.id = g.area_id
                               WHERE g.order_id = o.id), '') AS ga_places,
                    (coalesce((SELECT sum(l.price_cents) FROM order_lines l WHERE l.order_id = o.id), 0)
                     + coalesce((SELECT sum(g.quantity::bigint * g.price_cents) FROM ga_tickets g
                                  WHERE g.order_id = o.id), 0))::bigint AS total_cents
               FROM orders o
               LEFT JOIN staff st ON st.id = o.sold_by_staff
              WHERE o.event_id = $1
              ORDER BY o.created_at, o.id",
        )
        .await?;
    Ok(client
        .query(&statement, &[&event_id])
        .await?
        .iter()
        .map(|row| {
            let places: Vec<String> = [row.get::<_, String>("seat_places"), row.get("ga_places")]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect();
            OrderExport {
                id: row.get("id"),
                created_at: row.get("created_at"),
                buyer_name: row.get("buyer_name"),
                buyer_email: row.get("buyer_email"),
                places: places.join("; "),
                total_cents: row.get::<_, i64>("total_cents"),
                sold_by: row.get("sold_by"),
                tender: row.get("tender"),
                event_cancelled: row.get("event_cancelled"),
            }
        })
        .collect())
}

/// What one way of paying has taken (valid tickets), and what was refunded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TenderGross {
    /// "online", "cash", "card", "comp"; or "refunded" for voided tickets.
    pub tender: String,
    pub tickets: i64,
    pub gross_cents: i64,
}

pub async fn gross_by_tender(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<TenderGross>> {
    let statement = client
        .prepare_cached(
            "SELECT tender, count(*) AS tickets, sum(price_cents)::bigint AS gross_cents
               FROM (SELECT CASE WHEN t.voided_at IS NULL THEN o.tender ELSE 'refunded' END AS tender,
                            t.price_cents
                       FROM tickets t JOIN orders o ON o.id = t.order_id
                      WHERE t.event_id = $1) AS paid
              GROUP BY tender
              ORDER BY tender = 'refunded', tender",
        )
        .await?;
    Ok(client
        .query(&statement, &[&event_id])
        .await?
        .iter()
        .map(|row| TenderGross {
            tender: row.get("tender"),
            tickets: row.get("tickets"),
            gross_cents: row.get("gross_cents"),
        })
        .collect())
}
