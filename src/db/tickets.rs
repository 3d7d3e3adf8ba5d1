//! Tickets: issued with the sale, read by their buyer, admitted once at
//! the door. Admission is one conditional UPDATE judged by the rows it
//! touched; what a refused scan says is read afterwards, for the message.

use time::OffsetDateTime;

use super::GenericClient;
use crate::domain::ids::{Actor, EventId, OrderId, SeatId, TicketId};
use crate::domain::locale::EventLocale;
use crate::domain::ticket::TicketCode;
use crate::error::{AppError, AppResult};

/// Issues one ticket per seat on the order's lines and per GA place on its
/// general-admission lines, taking `codes` in turn; returns what it
/// issued. The caller sends exactly as many codes as places it sold, and
/// refuses the sale if fewer tickets come back.
///
/// Each ticket gets the event's booking fee (none on a comp) and the tax on
/// its price and on its fee (`ticket_tax_cents`, per ticket, half up); the
/// order's totals are written from the tickets in the same statement, so
/// an order's receipt is always the sum of its tickets.
pub const ISSUE: &str = "WITH places AS (
         SELECT l.seat_id, NULL::bigint AS area_id, l.price_cents, l.price_type_id,
                l.discount_cents
           FROM order_lines l WHERE l.order_id = $1
         UNION ALL
         -- GA places as the offer priced them; without such lines (no
         -- types, no code) each of the order's places at its tier's price.
         SELECT NULL, l.area_id, l.price_cents, l.price_type_id, l.discount_cents
           FROM order_ga_lines l WHERE l.order_id = $1
         UNION ALL
         SELECT NULL, g.area_id, g.price_cents, NULL, 0
           FROM ga_tickets g CROSS JOIN generate_series(1, g.quantity)
          WHERE g.order_id = $1
            AND NOT EXISTS (SELECT 1 FROM order_ga_lines l WHERE l.order_id = $1)
     ), charges AS (
         -- An order priced at checkout keeps the charges it was asked to
         -- pay; one sold at once takes the event's.
         SELECT o.id,
                CASE WHEN fixed THEN o.tax_rate ELSE e.tax_rate END AS tax_rate,
                CASE WHEN fixed THEN o.tax_included ELSE e.tax_included END AS tax_included,
                CASE WHEN fixed THEN o.fees_refundable ELSE e.fees_refundable END AS fees_refundable,
                CASE WHEN o.tender = 'comp' THEN 0
                     ELSE coalesce(o.booking_fee_cents, e.booking_fee_cents) END AS fee_cents
           FROM orders o JOIN events e ON e.id = o.event_id
                CROSS JOIN LATERAL (SELECT o.booking_fee_cents IS NOT NULL AS fixed) f
          WHERE o.id = $1
     ), numbered AS (
         SELECT places.*, row_number() OVER (ORDER BY area_id NULLS FIRST, seat_id) AS n
           FROM places
     ), issued AS (
         INSERT INTO tickets (code, event_id, order_id, seat_id, ga_area_id, price_cents,
                              price_type_id, discount_cents, fee_cents, tax_cents, fee_tax_cents)
         SELECT c.code, $2, $1, numbered.seat_id, numbered.area_id, numbered.price_cents,
                numbered.price_type_id, numbered.discount_cents, charges.fee_cents,
                ticket_tax_cents(numbered.price_cents, charges.tax_rate, charges.tax_included),
                ticket_tax_cents(charges.fee_cents, charges.tax_rate, charges.tax_included)
           FROM numbered JOIN unnest($3::text[]) WITH ORDINALITY AS c(code, n) USING (n)
                CROSS JOIN charges
      RETURNING code, seat_id, ga_area_id, price_cents, discount_cents, fee_cents,
                tax_cents::bigint + fee_tax_cents AS tax_cents
     ), sums AS (
         SELECT coalesce(sum(price_cents::bigint + discount_cents), 0) AS subtotal,
                coalesce(sum(discount_cents), 0) AS discount,
                coalesce(sum(fee_cents), 0) AS fees,
                coalesce(sum(tax_cents), 0) AS tax
           FROM issued
     ), totalled AS (
         UPDATE orders o
            SET subtotal_cents = sums.subtotal, discount_cents = sums.discount,
                fees_cents = sums.fees, tax_cents = sums.tax,
                tax_rate = charges.tax_rate, tax_included = charges.tax_included,
                fees_refundable = charges.fees_refundable,
                total_cents = sums.subtotal - sums.discount + sums.fees
                              + CASE WHEN charges.tax_included THEN 0 ELSE sums.tax END
           FROM sums CROSS JOIN charges
          WHERE o.id = $1
     )
     SELECT code, seat_id, ga_area_id FROM issued";

/// A ticket as issued: its code, and its seat or GA area.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct Issued {
    pub code: String,
    pub seat_id: Option<SeatId>,
    pub ga_area_id: Option<i64>,
}

pub(super) async fn issue(
    client: &impl GenericClient,
    order_id: OrderId,
    event_id: EventId,
    places: usize,
) -> AppResult<Vec<Issued>> {
    let codes: Vec<String> = (0..places)
        .map(|_| TicketCode::generate().as_str().to_string())
        .collect();
    let statement = client.prepare_cached(ISSUE).await?;
    let rows = client
        .query(&statement, &[&order_id, &event_id, &codes])
        .await?;
    if rows.len() != places {
        return Err(AppError::Internal(anyhow::anyhow!(
            "order {order_id}: {places} places sold but {} tickets issued",
            rows.len()
        )));
    }
    Ok(issued(&rows))
}

pub(super) fn issued(rows: &[tokio_postgres::Row]) -> Vec<Issued> {
    rows.iter()
        .map(|row| Issued {
            code: row.get("code"),
            seat_id: row.get("seat_id"),
            ga_area_id: row.get("ga_area_id"),
        })
        .collect()
}

/// The order's tickets as issued, in the order [`ISSUE`] numbers them.
pub(super) async fn of_order(
    client: &impl GenericClient,
    order_id: OrderId,
) -> AppResult<Vec<Issued>> {
    let statement = client
        .prepare_cached(
            "SELECT code, seat_id, ga_area_id FROM tickets WHERE order_id = $1
              ORDER BY ga_area_id NULLS FIRST, seat_id, id",
        )
        .await?;
    Ok(issued(&client.query(&statement, &[&order_id]).await?))
}

/// A ticket with everything its page, its e-mail and the door show.
#[derive(Debug, Clone)]
pub struct Ticket {
    pub id: TicketId,
    pub code: TicketCode,
    pub event_id: EventId,
    pub event_name: String,
    pub venue: String,
    pub starts_at: OffsetDateTime,
    pub locale: EventLocale,
    pub order_id: OrderId,
    pub buyer_name: String,
    /// Who it was passed on to last, when it was (`transfers`): they hold
    /// it now, and the buyer's order no longer shows its code.
    pub holder: Option<Holder>,
    /// Who its buyer passed it on to (the first transfer's recipient):
    /// what the buyer's order says, whoever that person passed it to since
    /// (the buyer never typed those names, so never sees them).
    pub passed_to: Option<Holder>,
    pub seat_id: Option<SeatId>,
    /// The section's or GA area's name.
    pub section: String,
    /// Row and seat labels; None for general admission.
    pub row: Option<String>,
    pub seat: Option<String>,
    pub tier_name: String,
    /// What was paid for it, after its discount (before its fee and any
    /// tax added on top).
    pub price_cents: i64,
    pub discount_cents: i64,
    pub fee_cents: i64,
    /// The tax on its price and on its fee.
    pub tax_cents: i64,
    /// What a refund paid back for it.
    pub refunded_cents: Option<i64>,
    pub admitted_at: Option<OffsetDateTime>,
    pub admitted_gate: Option<String>,
    /// The door device that admitted it, when it said (door.js does).
    pub admitted_device: Option<String>,
    pub voided_at: Option<OffsetDateTime>,
    /// Voided because its season subscriber gave the night back to sale.
    pub released_to_sale: bool,
    /// The season it was sold in, if it is a night of a season ticket.
    pub season_id: Option<crate::domain::ids::SeasonId>,
    /// The price type it was sold as (code, and its label in the
    /// request's language), when the event sells types.
    pub price_type: Option<SoldAs>,
}

/// Whoever a ticket was passed on to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub name: String,
    pub email: String,
}

/// The price type a ticket was sold as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SoldAs {
    pub code: String,
    pub label: String,
}

/// Where a ticket stands: refunded, admitted, or good for the door.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TicketState<'a> {
    Valid,
    /// Passed on to someone else: valid, but not the buyer's to show.
    PassedOn {
        to: &'a Holder,
    },
    Admitted {
        at: OffsetDateTime,
        gate: &'a str,
    },
    Refunded {
        at: OffsetDateTime,
    },
    /// A season's night its subscriber gave back to sale.
    Released {
        at: OffsetDateTime,
    },
}

impl TicketState<'_> {
    /// "valid", "admitted" or "refunded": in JSON, and a CSS class.
    pub fn as_str(&self) -> &'static str {
        match self {
            TicketState::Valid => "valid",
            TicketState::PassedOn { .. } => "transferred",
            TicketState::Admitted { .. } => "admitted",
            TicketState::Refunded { .. } => "refunded",
            TicketState::Released { .. } => "released",
        }
    }
}

impl Ticket {
    /// Where it stands for whoever holds its code now.
    pub fn state(&self) -> TicketState<'_> {
        match (self.voided_at, self.admitted_at) {
            (Some(at), _) if self.released_to_sale => TicketState::Released { at },
            (Some(at), _) => TicketState::Refunded { at },
            (None, Some(at)) => TicketState::Admitted {
                at,
                gate: self.admitted_gate.as_deref().unwrap_or("the door"),
            },
            (None, None) => TicketState::Valid,
        }
    }

    /// Where it stands for its buyer: a valid ticket they passed on is
    /// no longer theirs to show.
    pub fn state_for_buyer(&self) -> TicketState<'_> {
        match (self.state(), &self.passed_to) {
            (TicketState::Valid, Some(to)) => TicketState::PassedOn { to },
            (state, _) => state,
        }
    }

    /// The name on the ticket: its holder's, or its buyer's.
    pub fn holder_name(&self) -> &str {
        self.holder
            .as_ref()
            .map_or(self.buyer_name.as_str(), |holder| holder.name.as_str())
    }

    /// "Stalls, row C, seat 7" or "Standing floor (general admission)".
    pub fn place(&self) -> String {
        match (&self.row, &self.seat) {
            (Some(row), Some(seat)) => crate::i18n::tw(
                "seat-name",
                &[
                    ("section", (&self.section).into()),
                    ("row", row.into()),
                    ("seat", seat.into()),
                ],
            ),
            _ => crate::i18n::t1("ga-place", "area", &self.section),
        }
    }

    /// What was bought: the tier, and the price type when there is one
    /// ("Standard · Child").
    pub fn kind(&self) -> String {
        match &self.price_type {
            Some(sold_as) => format!("{} · {}", self.tier_name, sold_as.label),
            None => self.tier_name.clone(),
        }
    }

    /// "Stalls C7", as the door shows it in large type.
    pub fn short_place(&self) -> String {
        match (&self.row, &self.seat) {
            (Some(row), Some(seat)) => format!("{} {row}{seat}", self.section),
            _ => self.section.clone(),
        }
    }
}

const TICKET_SELECT: &str = "SELECT t.id, t.code, t.event_id, e.name AS event_name, e.venue,
            e.starts_at, e.currency, e.time_zone, t.order_id, o.buyer_name, t.seat_id,
            coalesce(sec.name, a.name) AS section, s.row_label, s.seat_label,
            p.name AS tier_name, t.price_cents::bigint AS price_cents,
            t.discount_cents::bigint AS discount_cents, t.fee_cents::bigint AS fee_cents,
            (t.tax_cents::bigint + t.fee_tax_cents) AS tax_cents, t.refunded_cents,
            t.admitted_at, t.admitted_gate, t.admitted_device, t.voided_at,
            coalesce(t.void_reason = 'released_to_sale', false) AS released_to_sale, o.season_id,
            t.holder_name, t.holder_email, first_transfer.to_name AS passed_to_name,
            first_transfer.to_email AS passed_to_email,
            pt.code AS price_type_code, pt.labels::text AS price_type_labels
       FROM tickets t
       JOIN events e ON e.id = t.event_id
       JOIN orders o ON o.id = t.order_id
       LEFT JOIN seats s ON s.id = t.seat_id
       LEFT JOIN sections sec ON sec.id = s.section_id
       LEFT JOIN ga_areas a ON a.id = t.ga_area_id
       JOIN price_tiers p ON p.id = coalesce(s.tier_id, a.tier_id)
       LEFT JOIN price_types pt ON pt.id = t.price_type_id
       LEFT JOIN LATERAL (SELECT x.to_name, x.to_email FROM ticket_transfers x
                           WHERE x.ticket_id = t.id AND t.transfer_count > 0
                           ORDER BY x.id LIMIT 1) first_transfer ON true";

fn ticket(row: &tokio_postgres::Row) -> Ticket {
    Ticket {
        id: row.get("id"),
        code: TicketCode::parse(row.get("code")).expect("the schema's CHECK spells codes"),
        event_id: row.get("event_id"),
        event_name: row.get("event_name"),
        venue: row.get("venue"),
        starts_at: row.get("starts_at"),
        locale: crate::i18n::locale(
            super::events::currency_column(row.get("currency")),
            row.get::<_, String>("time_zone"),
        ),
        order_id: row.get("order_id"),
        buyer_name: row.get("buyer_name"),
        holder: row
            .get::<_, Option<String>>("holder_name")
            .map(|name| Holder {
                name,
                email: row
                    .get::<_, Option<String>>("holder_email")
                    .unwrap_or_default(),
            }),
        passed_to: row
            .get::<_, Option<String>>("passed_to_name")
            .map(|name| Holder {
                name,
                email: row.get("passed_to_email"),
            }),
        seat_id: row.get("seat_id"),
        section: row.get("section"),
        row: row.get("row_label"),
        seat: row.get("seat_label"),
        tier_name: row.get("tier_name"),
        price_cents: row.get("price_cents"),
        discount_cents: row.get("discount_cents"),
        fee_cents: row.get("fee_cents"),
        tax_cents: row.get("tax_cents"),
        refunded_cents: row.get("refunded_cents"),
        admitted_at: row.get("admitted_at"),
        admitted_gate: row.get("admitted_gate"),
        admitted_device: row.get("admitted_device"),
        voided_at: row.get("voided_at"),
        released_to_sale: row.get("released_to_sale"),
        season_id: row.get("season_id"),
        price_type: row
            .get::<_, Option<String>>("price_type_code")
            .map(|code| SoldAs {
                label: crate::domain::price_type::label_in(
                    row.get::<_, Option<&str>>("price_type_labels")
                        .unwrap_or("{}"),
                    crate::i18n::current().tag(),
                )
                .unwrap_or_else(|| code.clone()),
                code,
            }),
    }
}

pub async fn by_code(client: &impl GenericClient, code: &TicketCode) -> AppResult<Option<Ticket>> {
    let statement = client
        .prepare_cached(&format!("{TICKET_SELECT} WHERE t.code = $1"))
        .await?;
    Ok(client
        .query_opt(&statement, &[&code.as_str()])
        .await?
        .as_ref()
        .map(ticket))
}

pub async fn by_id(client: &impl GenericClient, id: TicketId) -> AppResult<Option<Ticket>> {
    let statement = client
        .prepare_cached(&format!("{TICKET_SELECT} WHERE t.id = $1"))
        .await?;
    Ok(client
        .query_opt(&statement, &[&id])
        .await?
        .as_ref()
        .map(ticket))
}

/// The order's tickets, seats in map order then GA, refunded ones last.
pub async fn for_order(client: &impl GenericClient, order_id: OrderId) -> AppResult<Vec<Ticket>> {
    let statement = client
        .prepare_cached(&format!(
            "{TICKET_SELECT} WHERE t.order_id = $1
              ORDER BY t.voided_at IS NOT NULL, e.starts_at, e.id, sec.sort_order, s.row_index, s.position,
                       a.sort_order, t.id"
        ))
        .await?;
    Ok(client
        .query(&statement, &[&order_id])
        .await?
        .iter()
        .map(ticket)
        .collect())
}

/// What the door says to a scan.
#[derive(Debug, Clone)]
pub enum Admission {
    /// Let them in: the ticket was admitted by this scan.
    Admitted(Box<Ticket>),
    AlreadyAdmitted(Box<Ticket>),
    Refunded(Box<Ticket>),
    /// A real ticket, for another event.
    WrongEvent(Box<Ticket>),
    /// A code that was passed on: its new holder has a new code.
    Transferred(super::transfers::GivenAway),
    /// No ticket has this code.
    Unknown,
}

/// Admits the ticket once: one conditional UPDATE. Of any number of gates
/// scanning one code at once, exactly one gets `Admitted`; the rest wait
/// on its row lock, find it admitted, and get `AlreadyAdmitted`.
pub async fn admit(
    client: &impl GenericClient,
    event_id: EventId,
    code: &TicketCode,
    scan: &Scan<'_>,
    actor: Actor,
) -> AppResult<Admission> {
    // One statement: the admission, and its webhooks with it (or neither).
    // A scan made offline keeps its own time (never later than now).
    let statement = client
        .prepare_cached(&format!(
            "WITH admitted AS (
                 UPDATE tickets SET admitted_at = least(coalesce($5, now()), now()),
                                    admitted_gate = $3, admitted_by = $4, admitted_device = $6
                  WHERE code = $1 AND event_id = $2 AND admitted_at IS NULL AND NOT voided
              RETURNING id, order_id, event_id
             ), hooks AS ({}
             ), doors AS (
                 -- The first admission on the event's own day (in the
                 -- venue's zone) opens the doors: passing tickets on
                 -- closes then, unless staff set another time. A scan
                 -- weeks early (a door account trying its phone) doesn't.
                 UPDATE events SET doors_opened_at = now()
                  WHERE id = $2 AND doors_opened_at IS NULL
                    AND (now() AT TIME ZONE time_zone)::date
                        >= (starts_at AT TIME ZONE time_zone)::date
                    AND EXISTS (SELECT 1 FROM admitted)
             )
             SELECT count(*) FROM admitted",
            super::webhooks::QUEUE_ADMITTED
        ))
        .await?;
    let admitted = client
        .query_one(
            &statement,
            &[
                &code.as_str(),
                &event_id,
                &scan.gate,
                &actor.staff_id(),
                &scan.at,
                &scan.device,
            ],
        )
        .await?
        .get::<_, i64>(0)
        == 1;
    // A new statement, so a new snapshot: it sees the admission or refund
    // that made ours touch nothing, even one that committed while we waited.
    let Some(ticket) = by_code(client, code).await? else {
        return Ok(match super::transfers::given_away(client, code).await? {
            Some(given) if given.event_id == event_id => Admission::Transferred(given),
            _ => Admission::Unknown,
        });
    };
    let ticket = Box::new(ticket);
    Ok(if admitted {
        Admission::Admitted(ticket)
    } else if ticket.event_id != event_id {
        Admission::WrongEvent(ticket)
    } else if ticket.voided_at.is_some() {
        Admission::Refunded(ticket)
    } else {
        Admission::AlreadyAdmitted(ticket)
    })
}

/// Where and when a scan was made, and by which device if it said.
pub struct Scan<'a> {
    pub gate: &'a str,
    /// When an offline device admitted the ticket; None is now.
    pub at: Option<OffsetDateTime>,
    pub device: Option<&'a str>,
}

/// Tickets admitted and valid tickets in all, for the door's counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DoorCounts {
    pub admitted: i64,
    pub expected: i64,
}

pub async fn door_counts(client: &impl GenericClient, event_id: EventId) -> AppResult<DoorCounts> {
    let statement = client
        .prepare_cached(
            "SELECT count(*) FILTER (WHERE admitted_at IS NOT NULL) AS admitted, count(*) AS expected
               FROM tickets WHERE event_id = $1 AND voided_at IS NULL",
        )
        .await?;
    let row = client.query_one(&statement, &[&event_id]).await?;
    Ok(DoorCounts {
        admitted: row.get("admitted"),
        expected: row.get("expected"),
    })
}

/// One line of the door list: a valid ticket and whether it is in.
#[derive(Debug, Clone)]
pub struct DoorListLine {
    pub place: String,
    pub tier_name: String,
    pub buyer_name: String,
    pub buyer_email: Option<String>,
    pub order_id: OrderId,
    /// The code's last four characters: enough to match a ticket in hand,
    /// too few to make one (a leaked list admits nobody).
    pub code_end: String,
    pub admitted_at: Option<OffsetDateTime>,
    pub admitted_gate: Option<String>,
}

/// The event's valid tickets in map order (GA after seats), for the door
/// list CSV.
pub async fn door_list(
    client: &impl GenericClient,
    event_id: EventId,
) -> AppResult<Vec<DoorListLine>> {
    let statement = client
        .prepare_cached(
            "SELECT CASE WHEN s.id IS NULL THEN a.name
                         ELSE sec.name || ', row ' || s.row_label || ', seat ' || s.seat_label
                    END AS place,
                    p.name AS tier_name, o.buyer_name, o.buyer_email, t.order_id,
                    right(t.code, 4) AS code_end, t.admitted_at, t.admitted_gate
               FROM tickets t
               JOIN orders o ON o.id = t.order_id
               LEFT JOIN seats s ON s.id = t.seat_id
               LEFT JOIN sections sec ON sec.id = s.section_id
               LEFT JOIN ga_areas a ON a.id = t.ga_area_id
               JOIN price_tiers p ON p.id = coalesce(s.tier_id, a.tier_id)
              WHERE t.event_id = $1 AND t.voided_at IS NULL
              ORDER BY s.id IS NULL, sec.sort_order, s.row_index, s.position, a.sort_order,
                       o.buyer_name, t.id",
        )
        .await?;
    Ok(client
        .query(&statement, &[&event_id])
        .await?
        .iter()
        .map(|row| DoorListLine {
            place: row.get("place"),
            tier_name: row.get("tier_name"),
            buyer_name: row.get("buyer_name"),
            buyer_email: row.get("buyer_email"),
            order_id: row.get("order_id"),
            code_end: row.get("code_end"),
            admitted_at: row.get("admitted_at"),
            admitted_gate: row.get("admitted_gate"),
        })
        .collect())
}
