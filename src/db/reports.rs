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
    /// The receipt: `total = subtotal − discount + fees (+ tax added)`.
    pub totals: crate::domain::charges::Totals,
    pub refunded_cents: i64,
    pub promo_code: Option<String>,
    /// "adult × 2; child × 1" (empty when the event sells no types).
    pub price_types: String,
    /// Sold at the box office, by this staff member.
    pub sold_by: Option<String>,
    pub tender: String,
    pub event_cancelled: bool,
    /// A season's order (its name): the row is this event's share of it.
    pub season: Option<String>,
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
                               WHERE l.order_id = o.id AND s.event_id = $1), '') AS seat_places,
                    coalesce((SELECT string_agg(a.name || ' × ' || g.quantity, '; ' ORDER BY a.sort_order)
                                FROM ga_tickets g JOIN ga_areas a ON a.id = g.area_id
                               WHERE g.order_id = o.id), '') AS ga_places,
                    coalesce(night.subtotal, o.subtotal_cents) AS subtotal_cents,
                    CASE WHEN night IS NULL THEN o.discount_cents ELSE 0 END AS discount_cents,
                    CASE WHEN night IS NULL THEN o.fees_cents ELSE 0 END AS fees_cents,
                    coalesce(night.tax, o.tax_cents) AS tax_cents,
                    CASE WHEN night IS NULL THEN o.total_cents
                         ELSE night.subtotal + CASE WHEN o.tax_included THEN 0 ELSE night.tax END
                    END AS total_cents,
                    pc.code AS promo_code, season.name AS season,
                    (SELECT coalesce(sum(t.refunded_cents), 0)::bigint FROM tickets t
                      WHERE t.order_id = o.id AND t.event_id = $1) AS refunded_cents,
                    coalesce((SELECT string_agg(n.code || ' × ' || n.tickets, '; ' ORDER BY n.sort_order)
                                FROM (SELECT pt.code, pt.sort_order, count(*) AS tickets
                                        FROM tickets t JOIN price_types pt ON pt.id = t.price_type_id
                                       WHERE t.order_id = o.id GROUP BY pt.id) n), '') AS price_types
               FROM orders o
               LEFT JOIN staff st ON st.id = o.sold_by_staff
               LEFT JOIN promo_codes pc ON pc.id = o.promo_code_id
               LEFT JOIN seasons season ON season.id = o.season_id
               -- A season order, seen from one of its events: that event's
               -- tickets are its share (a season charges no fee or discount).
               LEFT JOIN LATERAL (
                   SELECT coalesce(sum(t.price_cents), 0)::bigint AS subtotal,
                          coalesce(sum(t.tax_cents), 0)::bigint AS tax
                     FROM tickets t WHERE t.order_id = o.id AND t.event_id = $1
               ) night ON o.season_id IS NOT NULL
              WHERE o.event_id = $1
                 OR (o.season_id IS NOT NULL
                     AND EXISTS (SELECT 1 FROM tickets t
                                  WHERE t.order_id = o.id AND t.event_id = $1))
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
                totals: crate::domain::charges::Totals {
                    subtotal_cents: row.get("subtotal_cents"),
                    discount_cents: row.get("discount_cents"),
                    fees_cents: row.get("fees_cents"),
                    tax_cents: row.get("tax_cents"),
                    total_cents: row.get("total_cents"),
                },
                refunded_cents: row.get("refunded_cents"),
                promo_code: row.get("promo_code"),
                price_types: row.get("price_types"),
                sold_by: row.get("sold_by"),
                tender: row.get("tender"),
                event_cancelled: row.get("event_cancelled"),
                season: row.get("season"),
            }
        })
        .collect())
}

/// What one way of paying has taken (valid tickets), and what was refunded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TenderGross {
    /// "online", "cash", "card", "comp", "season" (sold in a season); or
    /// "refunded" for voided tickets, "released" for a season's night
    /// given back to sale.
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
            // What each ticket cost its buyer: its price, its fee, and the
            // tax when it was added on top.
            "SELECT tender, count(*) AS tickets, sum(paid)::bigint AS gross_cents
               FROM (SELECT CASE WHEN t.void_reason = 'released_to_sale' THEN 'released'
                                 WHEN t.voided_at IS NOT NULL THEN 'refunded'
                                 -- Season tickets apart from single ones.
                                 WHEN o.season_id IS NOT NULL THEN 'season'
                                 ELSE o.tender END AS tender,
                            t.price_cents::bigint + t.fee_cents
                            + CASE WHEN o.tax_included THEN 0 ELSE t.tax_cents::bigint + t.fee_tax_cents END
                              AS paid
                       FROM tickets t JOIN orders o ON o.id = t.order_id
                      WHERE t.event_id = $1) AS paid
              GROUP BY tender
              ORDER BY tender IN ('refunded', 'released'), tender",
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

/// What one price type, one promo code, or the whole event took, with the
/// money split the way a receipt splits it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct MoneyRow {
    /// The type's or code's code (None: tickets sold without one).
    pub code: Option<String>,
    pub orders: i64,
    pub tickets: i64,
    /// At the types' prices, before discounts.
    pub gross_cents: i64,
    pub discount_cents: i64,
    pub fees_cents: i64,
    /// The tax on prices and fees (inside them when included).
    pub tax_cents: i64,
    pub refunded_cents: i64,
    /// What buyers paid, less what refunds paid back.
    pub net_cents: i64,
}

/// The event's money by price type, by promo code, and in all.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct MoneyReport {
    pub by_price_type: Vec<MoneyRow>,
    pub by_promo_code: Vec<MoneyRow>,
    pub totals: MoneyRow,
}

/// Every ticket the event issued (refunded ones too: their refunds are a
/// column), summed three ways in one statement.
pub async fn money(client: &impl GenericClient, event_id: EventId) -> AppResult<MoneyReport> {
    let statement = client
        .prepare_cached(
            "SELECT GROUPING(pt.code) = 0 AS by_type, GROUPING(pc.code) = 0 AS by_code,
                    CASE WHEN GROUPING(pt.code) = 0 THEN pt.code ELSE pc.code END AS code,
                    min(pt.sort_order) AS sort_order,
                    count(DISTINCT o.id) AS orders, count(*) AS tickets,
                    coalesce(sum(t.price_cents::bigint + t.discount_cents), 0)::bigint AS gross_cents,
                    coalesce(sum(t.discount_cents), 0)::bigint AS discount_cents,
                    coalesce(sum(t.fee_cents), 0)::bigint AS fees_cents,
                    coalesce(sum(t.tax_cents::bigint + t.fee_tax_cents), 0)::bigint AS tax_cents,
                    coalesce(sum(coalesce(t.refunded_cents, 0)), 0)::bigint AS refunded_cents,
                    coalesce(sum(t.price_cents::bigint + t.fee_cents
                        + CASE WHEN o.tax_included THEN 0 ELSE t.tax_cents::bigint + t.fee_tax_cents END
                        - coalesce(t.refunded_cents, 0)), 0)::bigint AS net_cents
               FROM tickets t
               JOIN orders o ON o.id = t.order_id
               LEFT JOIN price_types pt ON pt.id = t.price_type_id
               LEFT JOIN promo_codes pc ON pc.id = o.promo_code_id
              WHERE t.event_id = $1
              GROUP BY GROUPING SETS ((pt.code), (pc.code), ())
              ORDER BY sort_order NULLS FIRST, code NULLS FIRST",
        )
        .await?;
    let mut report = MoneyReport {
        by_price_type: Vec::new(),
        by_promo_code: Vec::new(),
        totals: MoneyRow {
            code: None,
            orders: 0,
            tickets: 0,
            gross_cents: 0,
            discount_cents: 0,
            fees_cents: 0,
            tax_cents: 0,
            refunded_cents: 0,
            net_cents: 0,
        },
    };
    for row in client.query(&statement, &[&event_id]).await? {
        let money = MoneyRow {
            code: row.get("code"),
            orders: row.get("orders"),
            tickets: row.get("tickets"),
            gross_cents: row.get("gross_cents"),
            discount_cents: row.get("discount_cents"),
            fees_cents: row.get("fees_cents"),
            tax_cents: row.get("tax_cents"),
            refunded_cents: row.get("refunded_cents"),
            net_cents: row.get("net_cents"),
        };
        match (row.get("by_type"), row.get("by_code")) {
            (true, _) => report.by_price_type.push(money),
            (_, true) => report.by_promo_code.push(money),
            _ => report.totals = money,
        }
    }
    Ok(report)
}
