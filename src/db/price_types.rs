//! Price types' statements: staff replacing an event's list, reading it
//! with what each has sold, and a purchase counting its tickets against
//! each type's quota in its own transaction, with a guarded update judged
//! by the rows it touched (the `price_type_within_quota` CHECK is the
//! backstop).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::{GenericClient, Pool, audit, retrying};
use crate::domain::ids::{Actor, AreaId, EventId, HoldId, SeatId};
use crate::domain::price_type::{
    self, HeldPlace, OnSale, Place, PriceTypeSpec, PricedLine, TypeOffer,
};
use crate::error::{AppError, AppResult, Conflict, Invalid};

/// A type as staff read it back.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PriceTypeView {
    pub code: String,
    /// By language: "en" always, others as given.
    #[schema(value_type = Object)]
    pub label: BTreeMap<String, String>,
    /// By tier code, in minor units.
    #[schema(value_type = Object)]
    pub prices: BTreeMap<String, i32>,
    pub quota: Option<i32>,
    pub max_per_order: Option<i32>,
    pub closed: bool,
    /// "public", or "code": offered only to buyers whose promo code
    /// unlocks it.
    pub visibility: &'static str,
    /// A type the order must also have a ticket of.
    pub requires: Option<String>,
    /// Tickets of this type sold (refunds not yet given back).
    pub sold: i32,
}

/// The event's types in their order, with what each has sold.
pub async fn for_event(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<PriceTypeView>> {
    let statement = client
        .prepare_cached(
            "SELECT pt.code, pt.labels::text AS labels, pt.quota, pt.max_per_order, pt.closed,
                    pt.hidden, pt.requires,
                    (SELECT count(*)::int FROM tickets tk
                      WHERE tk.price_type_id = pt.id AND tk.voided_at IS NULL) AS sold,
                    coalesce(array_agg(t.code ORDER BY t.sort_order, t.id)
                             FILTER (WHERE t.id IS NOT NULL), '{}') AS tiers,
                    coalesce(array_agg(p.price_cents ORDER BY t.sort_order, t.id)
                             FILTER (WHERE t.id IS NOT NULL), '{}') AS prices
               FROM price_types pt
               LEFT JOIN price_type_prices p ON p.price_type_id = pt.id
               LEFT JOIN price_tiers t ON t.id = p.tier_id
              WHERE pt.event_id = $1
              GROUP BY pt.id
              ORDER BY pt.sort_order, pt.id",
        )
        .await?;
    let rows = client.query(&statement, &[&event_id]).await?;
    Ok(rows
        .iter()
        .map(|row| {
            let tiers: Vec<String> = row.get("tiers");
            let prices: Vec<i32> = row.get("prices");
            PriceTypeView {
                code: row.get("code"),
                label: serde_json::from_str(row.get("labels")).unwrap_or_default(),
                prices: tiers.into_iter().zip(prices).collect(),
                quota: row.get("quota"),
                max_per_order: row.get("max_per_order"),
                closed: row.get("closed"),
                visibility: match row.get("hidden") {
                    true => "code",
                    false => "public",
                },
                requires: row.get("requires"),
                sold: row.get("sold"),
            }
        })
        .collect())
}

/// Replaces the event's list of types with `specs`, in one transaction: a
/// type left out is removed, unless it has sold tickets (`409
/// price_type_in_use`: close it instead); a quota may not go below what is
/// sold. Audited.
pub async fn replace(
    pool: &Pool,
    actor: Actor,
    event_id: EventId,
    specs: &[PriceTypeSpec],
) -> AppResult<Vec<PriceTypeView>> {
    retrying(|| {
        super::in_transaction(pool, async |tx| {
            replace_in(tx, actor, event_id, specs).await
        })
    })
    .await
}

/// A type's places taken, as its `sold` counts them: its valid tickets,
/// and the seats of orders waiting for their payment priced as it (a
/// checkout counts them; paid they become tickets, let go they are given
/// back).
const COUNTED: &str = "((SELECT count(*)::int FROM tickets tk
                          WHERE tk.price_type_id = pt.id AND tk.voided_at IS NULL)
                       + (SELECT count(*)::int FROM order_typed_places r
                            JOIN orders o ON o.id = r.order_id
                           WHERE r.price_type_id = pt.id AND o.status = 'pending_payment'))";

async fn replace_in(
    tx: &impl GenericClient,
    actor: Actor,
    event_id: EventId,
    specs: &[PriceTypeSpec],
) -> AppResult<Vec<PriceTypeView>> {
    super::events::lock_for_closing(tx, event_id).await?;
    // Orders waiting for their money (or lapsed, whose payment may still
    // come) change their counts without the event's lock: as their
    // checkouts do, they take turns with this recount on their own rows.
    // Those past their deadline are let go first, so a quota is judged
    // by the places still wanted.
    tx.execute(
        "SELECT 1 FROM orders WHERE event_id = $1 AND status IN ('pending_payment', 'lapsed')
          ORDER BY id FOR UPDATE",
        &[&event_id],
    )
    .await?;
    super::payments::lapse_overdue_in(tx, event_id).await?;
    let tiers: HashMap<String, i64> = tx
        .query(
            "SELECT code, id FROM price_tiers WHERE event_id = $1",
            &[&event_id],
        )
        .await?
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    let tier_codes: BTreeSet<String> = tiers.keys().cloned().collect();
    price_type::check_list(specs, &tier_codes)?;
    let existing: Vec<(i64, String, i32)> = tx
        .query(
            // What each has sold or has waiting for a payment: only a type
            // with a quota keeps a count (`sold`), and a quota may be new here.
            &format!(
                "SELECT pt.id, pt.code, {COUNTED} AS sold
                   FROM price_types pt WHERE pt.event_id = $1 ORDER BY pt.id FOR UPDATE"
            ),
            &[&event_id],
        )
        .await?
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2)))
        .collect();
    for (id, code, sold) in &existing {
        let kept = specs.iter().find(|s| s.code == *code);
        match kept {
            None => {
                let in_use: bool = tx
                    .query_one(
                        "SELECT $2 > 0 OR EXISTS (SELECT 1 FROM order_lines WHERE price_type_id = $1)
                                OR EXISTS (SELECT 1 FROM tickets WHERE price_type_id = $1)
                                OR EXISTS (SELECT 1 FROM order_typed_places
                                            WHERE price_type_id = $1)",
                        &[id, sold],
                    )
                    .await?
                    .get(0);
                if in_use {
                    return Err(AppError::Conflict(Conflict::PriceTypeInUse {
                        price_type: code.clone(),
                    }));
                }
                tx.execute("DELETE FROM price_types WHERE id = $1", &[id])
                    .await?;
            }
            Some(spec) if spec.quota.is_some_and(|quota| quota < *sold) => {
                return Err(AppError::Invalid(Invalid::PriceType(format!(
                    "{code} has sold {sold}, so its quota can't be less"
                ))));
            }
            Some(_) => {}
        }
    }
    for (order, spec) in specs.iter().enumerate() {
        let labels = serde_json::to_string(&spec.labels).expect("labels as JSON");
        let id: i64 = tx
            .query_one(
                "INSERT INTO price_types (event_id, code, labels, sort_order, quota, max_per_order,
                                          closed, hidden, requires)
                 VALUES ($1, $2, $3::text::jsonb, $4, $5, $6, $7, $8, $9)
                 ON CONFLICT (event_id, code) DO UPDATE
                    SET labels = excluded.labels, sort_order = excluded.sort_order,
                        quota = excluded.quota, max_per_order = excluded.max_per_order,
                        closed = excluded.closed, hidden = excluded.hidden,
                        requires = excluded.requires
                 RETURNING id",
                &[
                    &event_id,
                    &spec.code,
                    &labels,
                    &(order as i32),
                    &spec.quota,
                    &spec.max_per_order,
                    &spec.closed,
                    &spec.hidden,
                    &spec.requires,
                ],
            )
            .await?
            .get(0);
        let (tier_ids, cents): (Vec<i64>, Vec<i32>) = spec
            .prices
            .iter()
            .map(|(tier, cents)| (tiers[tier], *cents))
            .unzip();
        tx.execute(
            "DELETE FROM price_type_prices WHERE price_type_id = $1",
            &[&id],
        )
        .await?;
        tx.execute(
            "INSERT INTO price_type_prices (event_id, price_type_id, tier_id, price_cents)
             SELECT $4, $1, tier, cents FROM unnest($2::bigint[], $3::int[]) AS p(tier, cents)",
            &[&id, &tier_ids, &cents, &event_id],
        )
        .await?;
    }
    // A type with a quota counts from what it has sold or has waiting for
    // a payment (a quota may be new); one without keeps no count. The
    // event's lock keeps purchases and checkouts out.
    tx.execute(
        &format!(
            "UPDATE price_types pt
                SET sold = CASE WHEN pt.quota IS NULL THEN 0 ELSE {COUNTED} END
              WHERE pt.event_id = $1"
        ),
        &[&event_id],
    )
    .await?;
    audit::record(
        tx,
        audit::Entry {
            actor: Some(actor),
            action: "set_price_types",
            event_id: Some(event_id),
            hold_id: None,
            order_id: None,
            seat_ids: &[],
            detail: specs
                .iter()
                .map(|s| s.code.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        },
    )
    .await?;
    for_event(tx, event_id).await
}

/// The event's open types as the hold panel offers them, in order (none
/// when the event sells no types); hidden ones are marked, for the panel
/// to offer only to a buyer whose code unlocks them.
pub async fn for_panel(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<TypeOffer>> {
    let statement = client
        .prepare_cached(
            "SELECT pt.code, pt.labels::text AS labels, pt.hidden,
                    pt.requires IS NOT NULL AS needs_other,
                    coalesce(array_agg(t.code) FILTER (WHERE t.id IS NOT NULL), '{}') AS tiers,
                    coalesce(array_agg(p.price_cents) FILTER (WHERE t.id IS NOT NULL), '{}') AS prices
               FROM price_types pt
               LEFT JOIN price_type_prices p ON p.price_type_id = pt.id
               LEFT JOIN price_tiers t ON t.id = p.tier_id
              WHERE pt.event_id = $1 AND NOT pt.closed
              GROUP BY pt.id ORDER BY pt.sort_order, pt.id",
        )
        .await?;
    let lang = crate::i18n::current().tag();
    Ok(client
        .query(&statement, &[&event_id])
        .await?
        .iter()
        .map(|row| {
            let code: String = row.get("code");
            let tiers: Vec<String> = row.get("tiers");
            let prices: Vec<i32> = row.get("prices");
            TypeOffer {
                label: price_type::label_in(row.get("labels"), lang)
                    .unwrap_or_else(|| code.clone()),
                code,
                prices: tiers.into_iter().zip(prices).collect(),
                hidden: row.get("hidden"),
                needs_other: row.get("needs_other"),
            }
        })
        .collect())
}

/// What a purchase needs to price a hold as types: the event's types (open
/// and closed, in their order) and the hold's seats with their tiers.
pub(super) async fn for_purchase(
    tx: &impl GenericClient,
    event_id: EventId,
    hold_id: HoldId,
) -> AppResult<(Vec<OnSale>, Vec<HeldPlace>)> {
    super::prepare_together(tx, &[TYPES_FOR_PURCHASE, HELD_FOR_PURCHASE]).await?;
    // Sent together: neither waits for the other.
    let (types, held) = tokio::join!(
        async {
            let statement = tx.prepare_cached(TYPES_FOR_PURCHASE).await?;
            tx.query(&statement, &[&event_id]).await
        },
        async {
            let statement = tx.prepare_cached(HELD_FOR_PURCHASE).await?;
            tx.query(&statement, &[&hold_id]).await
        }
    );
    sent_together!(types, held);
    Ok((types?.iter().map(on_sale).collect(), held_places(&held?)))
}

fn on_sale(row: &tokio_postgres::Row) -> OnSale {
    let tiers: Vec<i64> = row.get("tiers");
    let prices: Vec<i32> = row.get("prices");
    OnSale {
        id: row.get("id"),
        code: row.get("code"),
        max_per_order: row.get("max_per_order"),
        closed: row.get("closed"),
        hidden: row.get("hidden"),
        requires: row.get("requires"),
        limited: row.get("limited"),
        prices: tiers.into_iter().zip(prices).collect(),
    }
}

fn held_seat(row: &tokio_postgres::Row) -> HeldPlace {
    HeldPlace {
        place: Place::Seat(row.get(0)),
        tier_id: row.get(1),
        tier_price_cents: row.get(2),
    }
}

const TYPES_FOR_PURCHASE: &str =
    "SELECT pt.id, pt.code, pt.max_per_order, pt.closed, pt.hidden, pt.requires,
            pt.quota IS NOT NULL AS limited,
            coalesce(array_agg(p.tier_id) FILTER (WHERE p.tier_id IS NOT NULL), '{}') AS tiers,
            coalesce(array_agg(p.price_cents) FILTER (WHERE p.tier_id IS NOT NULL), '{}') AS prices
       FROM price_types pt LEFT JOIN price_type_prices p ON p.price_type_id = pt.id
      WHERE pt.event_id = $1
      GROUP BY pt.id ORDER BY pt.sort_order, pt.id";

/// The hold's seats, and its GA places by area, each with its tier.
const HELD_FOR_PURCHASE: &str =
    "SELECT s.id AS seat_id, NULL::bigint AS area_id, 1 AS quantity, s.tier_id, t.price_cents
       FROM seats s JOIN price_tiers t ON t.id = s.tier_id
      WHERE s.hold_id = $1
     UNION ALL
     SELECT NULL, g.area_id, sum(g.quantity)::int, a.tier_id, t.price_cents
       FROM ga_tickets g JOIN ga_areas a ON a.id = g.area_id JOIN price_tiers t ON t.id = a.tier_id
      WHERE g.hold_id = $1 AND g.order_id IS NULL
      GROUP BY g.area_id, a.tier_id, t.price_cents
      ORDER BY seat_id NULLS LAST, area_id";

/// [`HELD_FOR_PURCHASE`]'s rows as places: each seat, and each GA place
/// (the nth of its area).
fn held_places(rows: &[tokio_postgres::Row]) -> Vec<HeldPlace> {
    let mut places = Vec::with_capacity(rows.len());
    for row in rows {
        let tier_id = row.get("tier_id");
        let tier_price_cents = row.get("price_cents");
        match row.get::<_, Option<SeatId>>("seat_id") {
            Some(seat) => places.push(HeldPlace {
                place: Place::Seat(seat),
                tier_id,
                tier_price_cents,
            }),
            None => {
                let area = AreaId(row.get("area_id"));
                let quantity: i32 = row.get("quantity");
                places.extend((0..quantity.max(0) as u32).map(|n| HeldPlace {
                    place: Place::Ga(area, n),
                    tier_id,
                    tier_price_cents,
                }));
            }
        }
    }
    places
}

/// [`for_purchase`] for a sale at the counter: the event's types and the
/// named seats of the event with their tiers (sent together).
pub(super) async fn for_counter(
    tx: &impl GenericClient,
    event_id: EventId,
    seat_ids: &[SeatId],
) -> AppResult<(Vec<OnSale>, Vec<HeldPlace>)> {
    const SEATS: &str = "SELECT s.id, s.tier_id, t.price_cents
                           FROM seats s JOIN price_tiers t ON t.id = s.tier_id
                          WHERE s.event_id = $1 AND s.id = ANY($2) ORDER BY s.id";
    super::prepare_together(tx, &[TYPES_FOR_PURCHASE, SEATS]).await?;
    let (types, seats) = tokio::join!(
        async {
            let statement = tx.prepare_cached(TYPES_FOR_PURCHASE).await?;
            tx.query(&statement, &[&event_id]).await
        },
        async {
            let statement = tx.prepare_cached(SEATS).await?;
            tx.query(&statement, &[&event_id, &seat_ids]).await
        }
    );
    sent_together!(types, seats);
    Ok((
        types?.iter().map(on_sale).collect(),
        seats?.iter().map(held_seat).collect(),
    ))
}

/// Prices the held places by the event's offer and counts it, in the
/// sale's own transaction: each place as the type chosen (or the default;
/// one no open public type prices at its tier's price), each limited
/// type's quota, and the code `found` redeemed with its use counted. The
/// lines, and the code's id when one was redeemed. A refusal rolls the
/// transaction back with nothing sold.
pub(super) async fn price_and_count(
    tx: &impl GenericClient,
    held: &[HeldPlace],
    types: &[OnSale],
    chosen: &BTreeMap<Place, String>,
    found: Option<&super::promo_codes::Found>,
) -> AppResult<(Vec<PricedLine>, Option<i64>)> {
    let unlocked = found.and_then(|found| found.unlocks.as_deref());
    let (typed, tier_only) = price_type::split_untyped(held, types, chosen);
    let mut lines = price_type::tier_lines(&tier_only);
    if !typed.is_empty() {
        lines.extend(price_type::price_lines(&typed, types, chosen, unlocked)?);
    }
    if !types.is_empty() {
        count_sold(tx, &lines, types).await?;
    }
    let promo_code_id = match found {
        Some(found) => Some(
            super::promo_codes::redeem(tx, found, &mut lines, types)
                .await?
                .promo_code_id,
        ),
        None => None,
    };
    Ok((lines, promo_code_id))
}

/// Gives each type its places back under its quota, one per id in
/// `type_ids` (refunded GA tickets' types).
pub(super) async fn give_back_places(tx: &impl GenericClient, type_ids: &[i64]) -> AppResult<()> {
    if type_ids.is_empty() {
        return Ok(());
    }
    tx.execute(
        "UPDATE price_types pt SET sold = pt.sold - back.n
           FROM (SELECT id, count(*)::int AS n FROM unnest($1::bigint[]) AS t(id) GROUP BY id) back
          WHERE pt.id = back.id AND pt.quota IS NOT NULL",
        &[&type_ids],
    )
    .await?;
    Ok(())
}

/// Counts the lines against their types' quotas, type by type in id order
/// (the order every purchase locks them in). A type that would pass its
/// quota refuses the whole purchase; the transaction rolls back, and the
/// hold is as it was.
pub(super) async fn count_sold(
    tx: &impl GenericClient,
    lines: &[PricedLine],
    types: &[OnSale],
) -> AppResult<()> {
    let statement = tx
        .prepare_cached(
            "UPDATE price_types SET sold = sold + $2 WHERE id = $1 AND sold + $2 <= quota",
        )
        .await?;
    // Only a type with a quota is counted: an unlimited one's row would be
    // a hot spot every buyer of the type waits on, for a count nothing
    // checks (staff read what it sold from its tickets).
    let limited = |type_id: &i64| types.iter().any(|t| t.id == *type_id && t.limited);
    for (type_id, count) in price_type::counts_by_type(lines)
        .into_iter()
        .filter(|(type_id, _)| limited(type_id))
    {
        if tx.execute(&statement, &[&type_id, &count]).await? == 0 {
            let code = types
                .iter()
                .find(|t| t.id == type_id)
                .map(|t| t.code.clone())
                .unwrap_or_default();
            return Err(AppError::Conflict(Conflict::PriceTypeSoldOut {
                price_type: code,
            }));
        }
    }
    Ok(())
}

/// The sale of the hold's seats at their types' prices: the conditional
/// update of `orders::SELL_SEATS`, with each line's type and price given.
pub(super) const SELL_SEATS_PRICED: &str = "WITH sold AS (
         UPDATE seats
            SET status = 'SOLD', order_id = $1, hold_id = NULL, held_until = NULL,
                changed_xid = pg_current_xact_id()
          WHERE hold_id = $2 AND held_until > now()
      RETURNING id
     )
     INSERT INTO order_lines (order_id, seat_id, price_cents, price_type_id, discount_cents)
     SELECT $1, sold.id, line.price_cents, line.price_type_id, line.discount_cents
       FROM sold JOIN unnest($3::bigint[], $4::int[], $5::bigint[], $6::int[])
                      AS line(seat_id, price_cents, price_type_id, discount_cents)
                   ON line.seat_id = sold.id
  RETURNING seat_id";

/// The counter's sale of named seats (free, blocked, or held by a lapsed
/// hold) at prices and types given per seat: `seats::sell_at_box_office`'s
/// conditional claim, with the lines the offer priced.
pub(super) const SELL_AT_COUNTER_PRICED: &str = "WITH target AS (
         SELECT id FROM seats
          WHERE event_id = $1 AND id = ANY($3)
            AND (status IN ('AVAILABLE', 'BLOCKED') OR (status = 'HELD' AND held_until < now()))
          ORDER BY id FOR UPDATE
     ), sold AS (
         UPDATE seats s
            SET status = 'SOLD', order_id = $2, hold_id = NULL, held_until = NULL,
                blocked_for = NULL
           FROM target WHERE s.id = target.id
      RETURNING s.id
     )
     INSERT INTO order_lines (order_id, seat_id, price_cents, price_type_id, discount_cents)
     SELECT $2, sold.id, line.price_cents, line.price_type_id, line.discount_cents
       FROM sold JOIN unnest($3::bigint[], $4::int[], $5::bigint[], $6::int[])
                      AS line(seat_id, price_cents, price_type_id, discount_cents)
                   ON line.seat_id = sold.id
  RETURNING seat_id";
