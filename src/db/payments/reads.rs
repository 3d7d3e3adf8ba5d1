//! An order's payment as its pages, the API and Stripe's session see it.

use time::OffsetDateTime;
use tokio_postgres::Row;

use crate::db::GenericClient;
use crate::domain::charges::Tax;
use crate::domain::ids::OrderId;
use crate::domain::lang::Lang;
use crate::domain::locale::EventLocale;
use crate::domain::payment::{OrderStatus, PaymentMode};
use crate::error::AppResult;

/// What a Checkout Session for the order is made from.
#[derive(Debug, Clone)]
pub struct SessionRequest {
    pub order_id: OrderId,
    pub event_name: String,
    pub currency: String,
    pub buyer_email: String,
    /// The buyer's language: the session's lines are named in it.
    pub lang: Lang,
    pub created_at: OffsetDateTime,
    pub pay_by: OffsetDateTime,
    /// When the event starts (the order's signed link lasts until after).
    pub starts_at: OffsetDateTime,
    /// One per ticket: its place (and price type), and its price after
    /// its discount.
    pub tickets: Vec<(String, i64)>,
    /// The booking fee per ticket, fixed at checkout (its tax, when added
    /// on top, is in `added_tax`).
    pub fee_cents: i64,
    /// The tax added on top of the prices and fees (None: no tax, or it is
    /// included in them).
    pub added_tax: Option<(Tax, i64)>,
    /// What the order asks: the session's lines must add up to it.
    pub amount_cents: i64,
    /// How many of its sessions Stripe ended before its deadline (a new
    /// one is then made under a new idempotency key).
    pub sessions_ended: i32,
    /// A session already made for it.
    pub session: Option<(String, Option<String>)>,
    pub status: OrderStatus,
}

/// One of a session's line items: what, at how much each, how many.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionLine {
    pub name: String,
    pub unit_cents: i64,
    pub quantity: i64,
}

impl SessionRequest {
    /// The session's line items: a line per ticket, the booking fees, and
    /// the tax when it is added on top, named with `fees_label` and
    /// `tax_label`. Refused (so no session asks for it) unless they add
    /// up to exactly what the order asks.
    pub fn line_items(
        &self,
        fees_label: &str,
        tax_label: impl FnOnce(Tax) -> String,
    ) -> Result<Vec<SessionLine>, String> {
        let mut lines: Vec<SessionLine> = self
            .tickets
            .iter()
            .map(|(name, cents)| SessionLine {
                name: name.clone(),
                unit_cents: *cents,
                quantity: 1,
            })
            .collect();
        if self.fee_cents > 0 && !self.tickets.is_empty() {
            lines.push(SessionLine {
                name: fees_label.to_string(),
                unit_cents: self.fee_cents,
                quantity: self.tickets.len() as i64,
            });
        }
        if let Some((tax, cents)) = self.added_tax
            && cents > 0
        {
            lines.push(SessionLine {
                name: tax_label(tax),
                unit_cents: cents,
                quantity: 1,
            });
        }
        let sum: i64 = lines.iter().map(|l| l.unit_cents * l.quantity).sum();
        if sum != self.amount_cents {
            return Err(format!(
                "order {}: its session's lines add up to {sum}, but it asks {}",
                self.order_id, self.amount_cents
            ));
        }
        Ok(lines)
    }
}

/// The order's lines for a Checkout Session, if it is an online order.
pub async fn session_request(
    client: &impl GenericClient,
    order_id: OrderId,
) -> AppResult<Option<SessionRequest>> {
    // Each ticket's name carries its price type in the buyer's language
    // (English, then the code, where the type has no label in it).
    let statement = client
        .prepare_cached(
            "SELECT o.status, o.pay_by <= now() AS past, o.created_at, o.pay_by, o.buyer_email,
                    o.stripe_session_id, o.stripe_session_url, o.stripe_sessions_ended,
                    o.lang, o.amount_cents, coalesce(o.booking_fee_cents, 0) AS fee_cents,
                    (o.tax_rate * 100)::integer AS tax_hundredths, o.tax_included, o.tax_cents,
                    e.name, e.currency, e.starts_at,
                    coalesce((SELECT array_agg(sec.name || ' ' || s.row_label || s.seat_label
                                               || coalesce(' · ' || coalesce(pt.labels ->> o.lang,
                                                                              pt.labels ->> 'en',
                                                                              pt.code), '')
                                               ORDER BY s.section_id, s.row_index, s.position)
                                FROM order_reserved_seats r JOIN seats s ON s.id = r.seat_id
                                JOIN sections sec ON sec.id = s.section_id
                                LEFT JOIN price_types pt ON pt.id = r.price_type_id
                               WHERE r.order_id = o.id), '{}') AS seat_names,
                    coalesce((SELECT array_agg(r.price_cents::bigint
                                               ORDER BY s.section_id, s.row_index, s.position)
                                FROM order_reserved_seats r JOIN seats s ON s.id = r.seat_id
                               WHERE r.order_id = o.id), '{}') AS seat_prices,
                    -- GA places as the offer priced them, else at their tiers'.
                    coalesce((SELECT array_agg(a.name
                                               || coalesce(' · ' || coalesce(pt.labels ->> o.lang,
                                                                              pt.labels ->> 'en',
                                                                              pt.code), '')
                                               ORDER BY a.id, l.id)
                                FROM order_ga_lines l JOIN ga_areas a ON a.id = l.area_id
                                LEFT JOIN price_types pt ON pt.id = l.price_type_id
                               WHERE l.order_id = o.id),
                             (SELECT array_agg(a.name ORDER BY a.id, n)
                                FROM order_reserved_ga r JOIN ga_areas a ON a.id = r.area_id
                                CROSS JOIN generate_series(1, r.quantity) n
                               WHERE r.order_id = o.id), '{}') AS ga_names,
                    coalesce((SELECT array_agg(l.price_cents::bigint ORDER BY l.area_id, l.id)
                                FROM order_ga_lines l WHERE l.order_id = o.id),
                             (SELECT array_agg(r.price_cents::bigint ORDER BY a.id, n)
                                FROM order_reserved_ga r JOIN ga_areas a ON a.id = r.area_id
                                CROSS JOIN generate_series(1, r.quantity) n
                               WHERE r.order_id = o.id), '{}') AS ga_prices
               FROM orders o JOIN events e ON e.id = o.event_id
              WHERE o.id = $1 AND o.payment = 'online'",
        )
        .await?;
    let Some(row) = client.query_opt(&statement, &[&order_id]).await? else {
        return Ok(None);
    };
    let names: Vec<String> = row.get("seat_names");
    let prices: Vec<i64> = row.get("seat_prices");
    let ga_names: Vec<String> = row.get("ga_names");
    let ga_prices: Vec<i64> = row.get("ga_prices");
    let session_id: Option<String> = row.get("stripe_session_id");
    let tax_included: bool = row.get("tax_included");
    let added_tax = row
        .get::<_, Option<i32>>("tax_hundredths")
        .filter(|_| !tax_included)
        .map(|rate_hundredths| {
            (
                Tax {
                    rate_hundredths,
                    included: false,
                },
                row.get::<_, i64>("tax_cents"),
            )
        });
    Ok(Some(SessionRequest {
        order_id,
        event_name: row.get("name"),
        currency: crate::db::events::currency_column(row.get("currency"))
            .code()
            .to_ascii_lowercase(),
        buyer_email: row.get("buyer_email"),
        lang: Lang::from_tag(row.get("lang")).unwrap_or_default(),
        created_at: row.get("created_at"),
        pay_by: row.get("pay_by"),
        starts_at: row.get("starts_at"),
        tickets: names
            .into_iter()
            .zip(prices)
            .chain(ga_names.into_iter().zip(ga_prices))
            .collect(),
        fee_cents: i64::from(row.get::<_, i32>("fee_cents")),
        added_tax,
        amount_cents: row.get::<_, Option<i64>>("amount_cents").unwrap_or(0),
        sessions_ended: row.get("stripe_sessions_ended"),
        session: session_id.map(|id| (id, row.get("stripe_session_url"))),
        status: OrderStatus::read(row.get("status"), row.get("past"), 0, 1),
    }))
}

/// Keeps the session made for the order (the first one, should two
/// requests race to make it: the idempotency key makes them the same).
/// Every session made is remembered with its amount and currency, so a
/// payment is settled only through one of the order's own sessions.
pub async fn store_session(
    client: &impl GenericClient,
    order_id: OrderId,
    session_id: &str,
    url: &str,
    currency: &str,
) -> AppResult<()> {
    let statement = client
        .prepare_cached(
            "WITH made AS (
                 INSERT INTO stripe_checkout_sessions (id, order_id, currency)
                 VALUES ($2, $1, lower($4)) ON CONFLICT (id) DO NOTHING
             )
             UPDATE orders SET stripe_session_id = $2, stripe_session_url = $3
              WHERE id = $1 AND stripe_session_id IS NULL",
        )
        .await?;
    client
        .execute(&statement, &[&order_id, &session_id, &url, &currency])
        .await?;
    Ok(())
}

/// A provider refund as staff see it.
#[derive(Debug, Clone)]
pub struct RefundView {
    pub amount_cents: i64,
    pub reason: String,
    pub created_at: OffsetDateTime,
    pub attempts: i32,
    pub done_at: Option<OffsetDateTime>,
    pub provider_ref: Option<String>,
    pub last_error: Option<String>,
}

impl RefundView {
    /// "queued", "sent", "refused" (last attempt failed; retried later).
    pub fn state(&self) -> &'static str {
        match (&self.done_at, &self.last_error, self.attempts) {
            (Some(_), _, _) => "sent",
            (None, Some(_), _) => "refused",
            _ => "queued",
        }
    }
}

/// An order's payment, as its pages and the API show it.
#[derive(Debug, Clone)]
pub struct OrderPayment {
    pub status: OrderStatus,
    pub payment: PaymentMode,
    pub pay_by: Option<OffsetDateTime>,
    pub amount_cents: Option<i64>,
    pub amount_paid_cents: Option<i64>,
    pub session_url: Option<String>,
    pub refunds: Vec<RefundView>,
    pub locale: EventLocale,
}

pub async fn of_order(
    client: &impl GenericClient,
    order_id: OrderId,
) -> AppResult<Option<OrderPayment>> {
    let statement = client
        .prepare_cached(
            "SELECT o.status, o.payment, o.pay_by, o.pay_by <= now() AS past, o.amount_cents,
                    o.amount_paid_cents, o.stripe_session_url, e.currency, e.time_zone,
                    (SELECT count(*) FROM tickets t WHERE t.order_id = o.id) AS tickets,
                    (SELECT count(*) FROM tickets t WHERE t.order_id = o.id AND t.voided_at IS NULL) AS valid
               FROM orders o JOIN events e ON e.id = o.event_id WHERE o.id = $1",
        )
        .await?;
    let Some(row) = client.query_opt(&statement, &[&order_id]).await? else {
        return Ok(None);
    };
    let refunds = client
        .prepare_cached(
            "SELECT amount_cents, reason, created_at, attempts, done_at, provider_ref, last_error
               FROM payment_jobs WHERE order_id = $1 AND kind = 'refund' ORDER BY id",
        )
        .await?;
    let refunds = client
        .query(&refunds, &[&order_id])
        .await?
        .iter()
        .map(refund_from_row)
        .collect();
    Ok(Some(OrderPayment {
        status: OrderStatus::read(
            row.get("status"),
            row.get::<_, Option<bool>>("past").unwrap_or(false),
            row.get("tickets"),
            row.get("valid"),
        ),
        payment: PaymentMode::parse(row.get("payment")).unwrap_or_default(),
        pay_by: row.get("pay_by"),
        amount_cents: row.get("amount_cents"),
        amount_paid_cents: row.get("amount_paid_cents"),
        session_url: row.get("stripe_session_url"),
        refunds,
        locale: crate::i18n::locale(
            crate::db::events::currency_column(row.get("currency")),
            row.get::<_, String>("time_zone"),
        ),
    }))
}

fn refund_from_row(row: &Row) -> RefundView {
    RefundView {
        amount_cents: row.get("amount_cents"),
        reason: row.get("reason"),
        created_at: row.get("created_at"),
        attempts: row.get("attempts"),
        done_at: row.get("done_at"),
        provider_ref: row.get("provider_ref"),
        last_error: row.get("last_error"),
    }
}
