//! Orders: turning a live hold into sold seats, and reading an order back.

use std::time::Duration;

use time::OffsetDateTime;
use uuid::Uuid;

use super::ga;
use super::payments::{self, PendingOrder};
use super::tickets::{self, Issued};
use super::{
    GenericClient, Pool, events, holds, outbox, price_types, promo_codes, retrying, webhooks,
};
use crate::domain::charges::{Tax, Totals};
use crate::domain::hold::GaHeld;
use crate::domain::hold::HoldState;
use crate::domain::ids::AreaId;
use crate::domain::ids::{BuyerId, EventId, HoldId, OrderId};
use crate::domain::locale::EventLocale;
use crate::domain::price_type::{self, Choices};
use crate::domain::rules::BuyerDetails;
use crate::domain::seat::SeatIds;
use crate::error::{AppError, AppResult, Conflict, Invalid, Missing};

#[derive(Debug, Clone)]
pub struct OrderCreated {
    pub order_id: OrderId,
    pub event_id: EventId,
    pub seat_ids: SeatIds,
    /// One per seat and per GA place.
    pub tickets: Vec<Issued>,
}

#[derive(Debug, Clone)]
pub struct Order {
    pub id: OrderId,
    pub event_id: EventId,
    pub event_name: String,
    pub venue: String,
    pub starts_at: OffsetDateTime,
    pub buyer_name: String,
    pub buyer_email: String,
    pub created_at: OffsetDateTime,
    /// The event was cancelled: the order is kept, for a refund.
    pub event_cancelled: bool,
    /// "online", "cash", "card" or "comp".
    pub tender: String,
    pub comp_reason: Option<String>,
    /// How the event shows prices and times.
    pub locale: EventLocale,
    pub receipt: Receipt,
}

/// An order's money, summed from its tickets when they were issued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    pub totals: Totals,
    /// The tax as it was when the order was sold (None: no tax line).
    pub tax: Option<Tax>,
    /// The promo code it used, as staff wrote it.
    pub promo_code: Option<String>,
    /// What refunds have paid back so far.
    pub refunded_cents: i64,
}

/// What buying a hold did.
#[derive(Debug, Clone)]
pub enum Purchased {
    /// The event takes no payment: the seats are sold and ticketed.
    Paid(OrderCreated),
    /// The event is paid for online or at the box office: the order waits
    /// for its money, its seats held by it until its deadline.
    Pending(PendingOrder),
}

/// Buys the buyer's hold in one transaction: every seat still held by it
/// becomes SOLD with an order line (or, when the event takes payment, is
/// kept for an order waiting for it; `online_window` is how long an online
/// payment may take), or nothing happens. A lapsed hold is refused with
/// `HoldExpired`, even if nobody has taken its seats yet.
pub async fn purchase(
    pool: &Pool,
    hold_id: HoldId,
    buyer_id: BuyerId,
    buyer: &BuyerDetails,
    online_window: Duration,
    choices: &Choices,
) -> AppResult<Purchased> {
    let attempt = || {
        retrying(|| {
            super::in_transaction(pool, async |tx| {
                purchase_in(tx, hold_id, buyer_id, buyer, online_window, choices).await
            })
        })
    };
    let mut outcome = attempt().await;
    // A quota or a code used up may be held by orders whose payment
    // deadline has passed: let them go, and try once more.
    if let Err(err) = &outcome
        && err.is_offer_used_up()
    {
        let event_id = holds::event_of(&pool.get().await?, hold_id, Some(buyer_id)).await?;
        if let Some(event_id) = event_id
            && payments::lapse_overdue(pool, event_id).await? > 0
        {
            outcome = attempt().await;
        }
    }
    // The connection died: perhaps during COMMIT, so the sale may have
    // landed with its answer lost. The hold names the order it made, so
    // once a primary answers, what happened is looked up, not guessed.
    if let Err(err) = &outcome
        && err.is_connection_lost()
        && let Some(landed) = super::purchase_landed::lookup(pool, hold_id, buyer_id).await?
    {
        tracing::warn!(%hold_id, "a purchase's commit answer was lost; it had landed");
        return Ok(match landed {
            super::purchase_landed::Landed::Pending(order) => Purchased::Pending(order),
            super::purchase_landed::Landed::Paid {
                order_id,
                event_id,
                tickets,
            } => Purchased::Paid(OrderCreated {
                order_id,
                event_id,
                seat_ids: tickets.iter().filter_map(|t| t.seat_id).collect(),
                tickets,
            }),
        });
    }
    if let Ok(Purchased::Paid(_)) = outcome {
        metrics::counter!(crate::observability::PURCHASES).increment(1);
    }
    outcome
}

/// What the hold has to sell, and whether it is live by the clock.
struct Tally {
    seats: i64,
    ga: Vec<GaHeld>,
    live_by_clock: bool,
    /// Whether its event sells price types (its seats are then priced by them).
    has_price_types: bool,
    /// The promo code the buyer applied to the hold in its panel.
    applied_code: Option<String>,
}

/// Counts the hold's seats and GA tickets and asks the clock, in one
/// statement. `hold.live` was judged at the transaction's start; a claim
/// that took one of our lapsed seats or tickets after that would shrink
/// the counts, and we would sell part of the hold. The clock is read while
/// the statement runs, so after its snapshot was taken: if the hold is live
/// then, no claim that saw it lapsed can have committed before the counts.
/// Any claim after that is caught when fewer rows sell than were counted.
async fn tally(client: &impl GenericClient, hold_id: HoldId) -> AppResult<Tally> {
    let statement = client
        .prepare_cached(
            "SELECT (SELECT count(*) FROM seats WHERE hold_id = $1) AS seats,
                    (SELECT array_agg(area_id ORDER BY area_id) FROM ga_tickets
                      WHERE hold_id = $1 AND order_id IS NULL) AS ga_areas,
                    (SELECT array_agg(quantity ORDER BY area_id) FROM ga_tickets
                      WHERE hold_id = $1 AND order_id IS NULL) AS ga_quantities,
                    (SELECT expires_at > clock_timestamp() FROM holds WHERE id = $1) AS live,
                    EXISTS (SELECT 1 FROM price_types pt JOIN holds h ON h.event_id = pt.event_id
                             WHERE h.id = $1) AS has_price_types,
                    (SELECT pc.code FROM holds h JOIN promo_codes pc ON pc.id = h.promo_code_id
                      WHERE h.id = $1 AND NOT pc.paused) AS applied_code",
        )
        .await?;
    let row = client.query_one(&statement, &[&hold_id]).await?;
    let areas: Option<Vec<AreaId>> = row.get("ga_areas");
    let quantities: Option<Vec<i32>> = row.get("ga_quantities");
    Ok(Tally {
        seats: row.get("seats"),
        ga: areas
            .unwrap_or_default()
            .into_iter()
            .zip(quantities.unwrap_or_default())
            .map(|(area_id, quantity)| GaHeld { area_id, quantity })
            .collect(),
        live_by_clock: row.get::<_, Option<bool>>("live").unwrap_or(false),
        has_price_types: row.get("has_price_types"),
        applied_code: row.get("applied_code"),
    })
}

const INSERT_ORDER: &str = "INSERT INTO orders (id, event_id, hold_id, buyer_id, buyer_name,
                                                  buyer_email, lang, promo_code_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";

const SELL_SEATS: &str = "WITH sold AS (
         UPDATE seats
            SET status = 'SOLD', order_id = $1, hold_id = NULL, held_until = NULL,
                changed_xid = pg_current_xact_id()
          WHERE hold_id = $2 AND held_until > now()
      RETURNING id, tier_id
     )
     INSERT INTO order_lines (order_id, seat_id, price_cents)
     SELECT $1, sold.id, t.price_cents
       FROM sold JOIN price_tiers t ON t.id = sold.tier_id
  RETURNING seat_id";

/// The purchase, in five round trips when the hold has only seats: the
/// hold's event; the event's lock and the hold's; the tally; the order, its
/// lines, its tickets, its e-mail and the hold's closing; and the commit.
async fn purchase_in(
    tx: &impl GenericClient,
    hold_id: HoldId,
    buyer_id: BuyerId,
    buyer: &BuyerDetails,
    online_window: Duration,
    choices: &Choices,
) -> AppResult<Purchased> {
    // The event's lock comes before the hold's, as in claims and closing.
    let event_id = holds::event_of(tx, hold_id, Some(buyer_id))
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::Hold))?;
    super::prepare_together(tx, &[&events::LOCK_ON_SALE, &holds::LOCK_FOR_BUYER]).await?;
    let (on_sale, hold) = tokio::join!(
        events::lock_on_sale(tx, event_id),
        holds::lock_for_buyer_or_404(tx, hold_id, buyer_id)
    );
    sent_together!(on_sale, hold);
    let payment = on_sale?;
    let hold = hold?;
    match hold.state {
        HoldState::Purchased => {
            return Err(AppError::Conflict(Conflict::AlreadyPurchased));
        }
        HoldState::Paying => {
            return Err(AppError::Conflict(Conflict::HoldBeingPaid));
        }
        HoldState::Released => {
            return Err(AppError::Conflict(Conflict::HoldReleased));
        }
        _ if !hold.live => return Err(AppError::HoldExpired),
        _ => {}
    }
    let tally = tally(tx, hold.id).await?;
    if !tally.live_by_clock {
        return Err(AppError::HoldExpired);
    }
    if tally.seats == 0 && tally.ga.is_empty() {
        return Err(AppError::Invalid(Invalid::EmptyHold));
    }

    let offer = price_offer(tx, hold.event_id, hold.id, &tally, choices).await?;
    if payment.mode.waits_for_payment() {
        let pending = payments::checkout_in(
            tx,
            payments::Checkout {
                hold_id: hold.id,
                event_id: hold.event_id,
                buyer_id,
                buyer,
                payment,
                online_window,
                counted_seats: tally.seats,
                counted_ga: &tally.ga,
                priced: offer.lines.as_deref(),
                promo_code_id: offer.promo_code_id,
            },
        )
        .await?;
        if pending.amount_cents > 0 {
            return Ok(Purchased::Pending(pending));
        }
        let tickets = payments::settle_free_in(tx, pending.order_id).await?;
        return Ok(Purchased::Paid(OrderCreated {
            order_id: pending.order_id,
            event_id: pending.event_id,
            seat_ids: tickets.iter().filter_map(|t| t.seat_id).collect(),
            tickets,
        }));
    }
    let Offer {
        lines: priced,
        promo_code_id,
    } = offer;
    let order_id = OrderId(Uuid::new_v4());
    let places = tally.seats as usize + crate::domain::hold::ga_ticket_count(&tally.ga);
    let insert_order = async {
        let insert = tx.prepare_cached(INSERT_ORDER).await?;
        tx.execute(
            &insert,
            &[
                &order_id,
                &hold.event_id,
                &hold.id,
                &buyer_id,
                &buyer.name,
                &buyer.email.as_str(),
                &buyer.lang.tag(),
                &promo_code_id,
            ],
        )
        .await?;
        Ok::<_, AppError>(())
    };
    // Prepared before the batch: a statement prepared inside it would be
    // sent after the ones that need it to have run (the GA lines, before
    // the tickets).
    super::prepare_together(
        tx,
        &[
            INSERT_ORDER,
            match priced {
                Some(_) => price_types::SELL_SEATS_PRICED,
                None => SELL_SEATS,
            },
            holds::CLOSE_OPEN_HOLD,
            tickets::ISSUE,
            outbox::QUEUE_ORDER_CONFIRMATION,
            webhooks::QUEUE,
            super::offer_lines::WRITE_GA_LINES,
        ],
    )
    .await?;
    // Sent in this order in one batch: the tickets are issued from the
    // lines the sale just wrote; the e-mail and the webhooks are queued
    // beside them.
    let created = serde_json::json!({ "order_id": order_id, "event_id": hold.event_id });
    let issue_and_mail = async {
        let (issued, queued, hooked) = tokio::join!(
            tickets::issue(tx, order_id, hold.event_id, places),
            outbox::queue_order_confirmation(tx, order_id, hold.event_id, buyer.email.as_str()),
            webhooks::queue(tx, "order.created", created)
        );
        sent_together!(issued, queued, hooked);
        issued
    };
    if !tally.ga.is_empty() {
        insert_order.await?;
        // GA before seats: the order every claim takes its locks in.
        if !ga::sell(tx, hold.id, &tally.ga, order_id).await? {
            return Err(AppError::HoldExpired);
        }
        // The GA places' lines before the tickets issued from them.
        let ga_lines = async {
            match &priced {
                Some(lines) => super::offer_lines::write_ga_lines(tx, order_id, lines).await,
                None => Ok(()),
            }
        };
        let (sold, ga_lined, purchased, issued) = tokio::join!(
            sell_seats(tx, order_id, hold.id, priced.as_deref()),
            ga_lines,
            holds::mark_purchased(tx, hold.id),
            issue_and_mail
        );
        // The tickets are judged after the sale: fewer seats sold than
        // counted is the reason to give, not the tickets coming up short.
        sent_together!(sold, ga_lined, purchased);
        let order = sold_whole(sold?, tally.seats, order_id, hold.event_id, issued)?;
        return Ok(Purchased::Paid(order));
    }
    let (inserted, sold, purchased, issued) = tokio::join!(
        insert_order,
        sell_seats(tx, order_id, hold.id, priced.as_deref()),
        holds::mark_purchased(tx, hold.id),
        issue_and_mail
    );
    // The tickets are judged after the sale (`sold_whole`), as above.
    sent_together!(inserted, sold, purchased);
    let order = sold_whole(sold?, tally.seats, order_id, hold.event_id, issued)?;
    Ok(Purchased::Paid(order))
}

/// The hold's seats priced by the event's offer, before anything is sold
/// or reserved.
struct Offer {
    /// Each seat as its type, less its code's discount (None: the event
    /// sells no types and no code was named; seats go at their tiers').
    lines: Option<Vec<price_type::PricedLine>>,
    /// The code redeemed, its use counted.
    promo_code_id: Option<i64>,
}

/// Prices each seat as its type, counts each type's quota, and redeems the
/// promo code (the purchase's, else the one applied in the panel) and
/// counts its use, in the purchase's transaction: a refusal rolls back
/// with the hold as it was.
async fn price_offer(
    tx: &impl GenericClient,
    event_id: EventId,
    hold_id: HoldId,
    tally: &Tally,
    choices: &Choices,
) -> AppResult<Offer> {
    let promo_code = choices.promo_code.clone().or(tally.applied_code.clone());
    if !tally.has_price_types
        && let Some(code) = choices.types.values().next()
    {
        return Err(AppError::Invalid(Invalid::UnknownPriceType(code.clone())));
    }
    if !tally.has_price_types && promo_code.is_none() {
        return Ok(Offer {
            lines: None,
            promo_code_id: None,
        });
    }
    // Sent together. The code is found before the seats are priced: it may
    // unlock a hidden type the buyer chose.
    let (for_sale, found) = tokio::join!(price_types::for_purchase(tx, event_id, hold_id), async {
        match &promo_code {
            Some(code) => promo_codes::find_usable(tx, event_id, code).await.map(Some),
            None => Ok(None),
        }
    });
    sent_together!(for_sale, found);
    let ((types, held), found) = (for_sale?, found?);
    let (lines, promo_code_id) =
        price_types::price_and_count(tx, &held, &types, &choices.types, found.as_ref()).await?;
    Ok(Offer {
        lines: Some(lines),
        promo_code_id,
    })
}

async fn sell_seats(
    tx: &impl GenericClient,
    order_id: OrderId,
    hold_id: HoldId,
    priced: Option<&[crate::domain::price_type::PricedLine]>,
) -> AppResult<Vec<tokio_postgres::Row>> {
    Ok(match priced {
        None => {
            let sell = tx.prepare_cached(SELL_SEATS).await?;
            tx.query(&sell, &[&order_id, &hold_id]).await?
        }
        Some(lines) => {
            let sell = tx.prepare_cached(price_types::SELL_SEATS_PRICED).await?;
            let arrays = super::offer_lines::line_arrays(lines);
            tx.query(
                &sell,
                &[
                    &order_id,
                    &hold_id,
                    &arrays.seats,
                    &arrays.cents,
                    &arrays.types,
                    &arrays.discounts,
                ],
            )
            .await?
        }
    })
}

/// The order, if every seat counted was sold (and so ticketed).
fn sold_whole(
    sold: Vec<tokio_postgres::Row>,
    counted: i64,
    order_id: OrderId,
    event_id: EventId,
    issued: AppResult<Vec<Issued>>,
) -> AppResult<OrderCreated> {
    // Fewer than counted means a seat's hold lapsed as we bought it and
    // another buyer claimed it: all or nothing, so refuse the whole order.
    // (The tickets then came up short too; this is the reason to give.)
    if sold.len() as i64 != counted {
        return Err(AppError::HoldExpired);
    }
    Ok(OrderCreated {
        order_id,
        event_id,
        seat_ids: sold.iter().map(|row| row.get(0)).collect(),
        tickets: issued?,
    })
}

/// The order's header (its tickets are `tickets::for_order`), if it exists (and, given a buyer, is theirs).
pub async fn find(
    client: &impl GenericClient,
    order_id: OrderId,
    buyer_id: Option<BuyerId>,
) -> AppResult<Option<Order>> {
    let header = client
        .prepare_cached(
            "SELECT o.id, o.event_id, e.venue, e.starts_at,
                    -- A season's order goes by the season's name.
                    coalesce((SELECT s.name FROM seasons s WHERE s.id = o.season_id), e.name)
                        AS event_name,
                    o.buyer_name, coalesce(o.buyer_email, '') AS buyer_email, o.created_at,
                    o.event_cancelled, o.tender, o.comp_reason, e.currency, e.time_zone,
                    o.subtotal_cents, o.discount_cents, o.fees_cents, o.tax_cents, o.total_cents,
                    (o.tax_rate * 100)::integer AS tax_hundredths, o.tax_included, pc.code AS promo_code,
                    (SELECT coalesce(sum(t.refunded_cents), 0)::bigint FROM tickets t
                      WHERE t.order_id = o.id) AS refunded_cents
               FROM orders o JOIN events e ON e.id = o.event_id
               LEFT JOIN promo_codes pc ON pc.id = o.promo_code_id
              WHERE o.id = $1 AND ($2::uuid IS NULL OR o.buyer_id = $2)",
        )
        .await?;
    let Some(row) = client.query_opt(&header, &[&order_id, &buyer_id]).await? else {
        return Ok(None);
    };
    Ok(Some(Order {
        id: row.get("id"),
        event_id: row.get("event_id"),
        event_name: row.get("event_name"),
        venue: row.get("venue"),
        starts_at: row.get("starts_at"),
        buyer_name: row.get("buyer_name"),
        buyer_email: row.get("buyer_email"),
        created_at: row.get("created_at"),
        event_cancelled: row.get("event_cancelled"),
        tender: row.get("tender"),
        comp_reason: row.get("comp_reason"),
        locale: crate::i18n::locale(
            super::events::currency_column(row.get("currency")),
            row.get::<_, String>("time_zone"),
        ),
        receipt: Receipt {
            totals: Totals {
                subtotal_cents: row.get("subtotal_cents"),
                discount_cents: row.get("discount_cents"),
                fees_cents: row.get("fees_cents"),
                tax_cents: row.get("tax_cents"),
                total_cents: row.get("total_cents"),
            },
            tax: row
                .get::<_, Option<i32>>("tax_hundredths")
                .map(|rate_hundredths| Tax {
                    rate_hundredths,
                    included: row.get("tax_included"),
                }),
            promo_code: row.get("promo_code"),
            refunded_cents: row.get("refunded_cents"),
        },
    }))
}

/// One of a buyer's orders, for "My orders".
#[derive(Debug, Clone)]
pub struct BuyerOrder {
    pub id: OrderId,
    pub event_name: String,
    pub starts_at: OffsetDateTime,
    pub created_at: OffsetDateTime,
    pub valid_tickets: i64,
    pub total_cents: i64,
    pub locale: EventLocale,
}

/// The buyer's orders, newest first.
pub async fn for_buyer(
    client: &impl GenericClient,
    buyer_id: BuyerId,
) -> AppResult<Vec<BuyerOrder>> {
    let statement = client
        .prepare_cached(
            "SELECT o.id, e.starts_at, o.created_at, e.currency, e.time_zone,
                    coalesce((SELECT s.name FROM seasons s WHERE s.id = o.season_id), e.name)
                        AS event_name,
                    count(t.id) FILTER (WHERE t.voided_at IS NULL AND t.holder_name IS NULL)
                        AS valid_tickets,
                    (o.total_cents - coalesce(sum(t.refunded_cents), 0))::bigint AS total_cents
               FROM orders o
               JOIN events e ON e.id = o.event_id
               LEFT JOIN tickets t ON t.order_id = o.id
              WHERE o.buyer_id = $1
              GROUP BY o.id, e.id
              ORDER BY o.created_at DESC
              LIMIT 200",
        )
        .await?;
    Ok(client
        .query(&statement, &[&buyer_id])
        .await?
        .iter()
        .map(|row| BuyerOrder {
            id: row.get("id"),
            event_name: row.get("event_name"),
            starts_at: row.get("starts_at"),
            created_at: row.get("created_at"),
            valid_tickets: row.get("valid_tickets"),
            total_cents: row.get("total_cents"),
            locale: crate::i18n::locale(
                super::events::currency_column(row.get("currency")),
                row.get::<_, String>("time_zone"),
            ),
        })
        .collect())
}

/// The language the order was bought in (its mail is written in it).
pub async fn lang(
    client: &impl GenericClient,
    order_id: OrderId,
) -> AppResult<crate::domain::lang::Lang> {
    let statement = client
        .prepare_cached("SELECT lang FROM orders WHERE id = $1")
        .await?;
    Ok(client
        .query_opt(&statement, &[&order_id])
        .await?
        .and_then(|row| crate::domain::lang::Lang::from_tag(row.get(0)))
        .unwrap_or_default())
}

/// A buyer's order of the event that waits for its payment (its deadline
/// not passed): its seats are theirs until then, held under its hold.
#[derive(Debug, Clone)]
pub struct AwaitingPayment {
    pub order_id: OrderId,
    pub hold_id: HoldId,
    pub pay_by: OffsetDateTime,
    /// "Stalls, row A, seat 2", in map order.
    pub places: Vec<String>,
}

/// The buyer's latest order of the event waiting for its payment, if any.
pub async fn awaiting_payment_for_buyer(
    client: &impl GenericClient,
    event_id: EventId,
    buyer_id: BuyerId,
) -> AppResult<Option<AwaitingPayment>> {
    let statement = client
        .prepare_cached(
            "SELECT o.id, o.hold_id, o.pay_by,
                    coalesce(array_agg(sec.name || ', row ' || s.row_label || ', seat ' || s.seat_label
                                       ORDER BY sec.sort_order, s.row_index, s.position)
                             FILTER (WHERE s.id IS NOT NULL), '{}') AS places
               FROM orders o
               LEFT JOIN order_reserved_seats r ON r.order_id = o.id
               LEFT JOIN seats s ON s.id = r.seat_id
               LEFT JOIN sections sec ON sec.id = s.section_id
              WHERE o.event_id = $1 AND o.buyer_id = $2 AND o.status = 'pending_payment'
                AND o.pay_by > now() AND o.hold_id IS NOT NULL
              GROUP BY o.id
              ORDER BY o.created_at DESC
              LIMIT 1",
        )
        .await?;
    let row = client
        .query_opt(&statement, &[&event_id, &buyer_id])
        .await?;
    Ok(row.map(|row| AwaitingPayment {
        order_id: row.get("id"),
        hold_id: row.get("hold_id"),
        pay_by: row.get("pay_by"),
        places: row.get("places"),
    }))
}

/// The seats the order keeps before it has tickets (while it waits for
/// its payment), by name, in map order.
pub async fn reserved_places(
    client: &impl GenericClient,
    order_id: OrderId,
) -> AppResult<Vec<String>> {
    let rows = client
        .query(
            "SELECT sec.name || ', row ' || s.row_label || ', seat ' || s.seat_label
               FROM order_reserved_seats r
               JOIN seats s ON s.id = r.seat_id
               JOIN sections sec ON sec.id = s.section_id
              WHERE r.order_id = $1
              ORDER BY sec.sort_order, s.row_index, s.position",
            &[&order_id],
        )
        .await?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}
