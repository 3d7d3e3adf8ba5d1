//! Reports for the box office: an event's seats by section and tier, what
//! each tier has taken, and its orders as CSV.

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;

use crate::db::{self, reports};
use crate::domain::ids::EventId;
use crate::domain::text::spreadsheet_safe;
use crate::error::{AppError, AppResult};
use crate::web::auth::{Staff, floor::BoxOffice, floor::Manager};
use crate::web::event_header::EventHeader;
use crate::web::extract::IdPath;
use crate::web::render::render;
use crate::web::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff/events/{event_id}/report", get(report))
        .route("/staff/events/{event_id}/orders.csv", get(orders_csv))
        .route("/staff/events/{event_id}/door-list.csv", get(door_list_csv))
}

struct CountRow {
    section: String,
    tier: String,
    free: i64,
    held: i64,
    sold: i64,
    blocked: i64,
    total: i64,
}

struct GrossRow {
    tier: String,
    tickets: i64,
    gross: String,
}

/// A section's wheelchair spaces or companion seats.
struct AccessibleRow {
    section: String,
    kind: &'static str,
    sold: i64,
    held: i64,
    /// Free, but kept from general best available.
    held_back: i64,
    /// Free to anyone's best available.
    on_sale: i64,
    blocked: i64,
}

/// One row of the money tables, written in the event's currency.
struct MoneyLine {
    name: String,
    orders: i64,
    tickets: i64,
    gross: String,
    discount: String,
    fees: String,
    tax: String,
    refunded: String,
    net: String,
}

impl MoneyLine {
    fn new(
        row: &reports::MoneyRow,
        name: String,
        locale: &crate::domain::locale::EventLocale,
    ) -> Self {
        MoneyLine {
            name,
            orders: row.orders,
            tickets: row.tickets,
            gross: locale.price(row.gross_cents),
            discount: locale.price(row.discount_cents),
            fees: locale.price(row.fees_cents),
            tax: locale.price(row.tax_cents),
            refunded: locale.price(row.refunded_cents),
            net: locale.price(row.net_cents),
        }
    }
}

struct MoneyTable {
    caption: &'static str,
    /// The first column's heading: what each row is.
    column: &'static str,
    rows: Vec<MoneyLine>,
}

#[derive(Template)]
#[template(path = "staff/report.html")]
struct ReportPage {
    accessible: Vec<AccessibleRow>,
    accessible_held_back: bool,
    staff_bar: crate::web::auth::StaffBar,
    event: EventHeader,
    counts: Vec<CountRow>,
    totals: CountRow,
    gross: Vec<GrossRow>,
    gross_total: String,
    tickets_total: i64,
    tenders: Vec<GrossRow>,
    /// Money by price type, then by promo code, each with the event's totals.
    money_tables: Vec<MoneyTable>,
    money_total: MoneyLine,
    door: crate::db::tickets::DoorCounts,
    /// Tickets let in offline that another gate had admitted, or that were
    /// refunded.
    door_conflicts: Vec<String>,
}

async fn report(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<BoxOffice>,
) -> AppResult<Html<String>> {
    // A report may be a moment behind: the replica's, when caught up.
    let (client, event, _) = state.event_read_client(event_id).await?;
    let (counts, gross, tenders, door, accessible, settings, money) = tokio::join!(
        reports::seat_counts(&client, event_id),
        reports::gross_by_tier(&client, event_id),
        reports::gross_by_tender(&client, event_id),
        db::tickets::door_counts(&client, event_id),
        db::accessible::counts(&client, event_id),
        db::accessible::settings(&client, event_id),
        reports::money(&client, event_id)
    );
    let money = money?;
    let (counts, gross, tenders, door) = (counts?, gross?, tenders?, door?);
    let held_back = settings?.held_back_now;
    let accessible = accessible?
        .into_iter()
        .map(|c| AccessibleRow {
            section: c.section,
            kind: if c.kind == "wheelchair" {
                "Wheelchair spaces"
            } else {
                "Companion seats"
            },
            sold: c.sold,
            held: c.held,
            held_back: if held_back { c.free } else { 0 },
            on_sale: if held_back { 0 } else { c.free },
            blocked: c.blocked,
        })
        .collect();
    let locale = crate::i18n::locale(event.currency, &event.time_zone);
    let mut totals = CountRow {
        section: "All sections".into(),
        tier: String::new(),
        free: 0,
        held: 0,
        sold: 0,
        blocked: 0,
        total: 0,
    };
    let counts: Vec<CountRow> = counts
        .into_iter()
        .map(|c| {
            totals.free += c.free;
            totals.held += c.held;
            totals.sold += c.sold;
            totals.blocked += c.blocked;
            totals.total += c.free + c.held + c.sold + c.blocked;
            CountRow {
                section: c.section,
                tier: crate::words::tier_label(&c.tier_name, &c.tier_code),
                total: c.free + c.held + c.sold + c.blocked,
                free: c.free,
                held: c.held,
                sold: c.sold,
                blocked: c.blocked,
            }
        })
        .collect();
    let gross_cents: i64 = gross.iter().map(|g| g.gross_cents).sum();
    let tickets_total: i64 = gross.iter().map(|g| g.tickets).sum();
    let door_conflicts = db::door::conflicts(&client, event_id)
        .await?
        .iter()
        .map(|c| super::door_offline::conflict_text(c, &locale))
        .collect();
    render(&ReportPage {
        door_conflicts,
        accessible,
        accessible_held_back: held_back,
        staff_bar: staff.bar(),
        event: EventHeader::from(&event),
        counts,
        totals,
        gross: gross
            .into_iter()
            .map(|g| GrossRow {
                tier: crate::words::tier_label(&g.tier_name, &g.tier_code),
                tickets: g.tickets,
                gross: locale.price(g.gross_cents),
            })
            .collect(),
        gross_total: locale.price(gross_cents),
        tickets_total,
        tenders: tenders
            .into_iter()
            .map(|t| GrossRow {
                tier: t.tender,
                tickets: t.tickets,
                gross: locale.price(t.gross_cents),
            })
            .collect(),
        money_tables: [
            (
                "By price type",
                "Price type",
                &money.by_price_type,
                "(no type)",
            ),
            (
                "By promo code",
                "Promo code",
                &money.by_promo_code,
                "(no code)",
            ),
        ]
        .into_iter()
        .map(|(caption, column, rows, unnamed)| MoneyTable {
            caption,
            column,
            rows: rows
                .iter()
                .map(|row| {
                    let name = row.code.clone().unwrap_or_else(|| unnamed.into());
                    MoneyLine::new(row, name, &locale)
                })
                .collect(),
        })
        .collect(),
        money_total: MoneyLine::new(&money.totals, "All tickets".into(), &locale),
        door,
    })
}

/// Every order of the event, one a line, for a spreadsheet. Text typed by
/// buyers is defused so that no cell runs as a formula.
async fn orders_csv(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: Staff<Manager>,
) -> AppResult<Response> {
    // A report may be a moment behind: the replica's, when caught up.
    let (client, event, _) = state.event_read_client(event_id).await?;
    let orders = reports::orders_for_export(&client, event_id).await?;
    let locale = crate::i18n::locale(event.currency, &event.time_zone);
    let mut out = csv::Writer::from_writer(Vec::new());
    csv_row(
        &mut out,
        &[
            "order",
            "created",
            "buyer",
            "email",
            "places",
            "total",
            "currency",
            "sold by",
            "paid by",
            "event cancelled",
            "subtotal",
            "discount",
            "fees",
            "tax",
            "refunded",
            "promo code",
            "price types",
            "season",
        ],
    )?;
    for order in &orders {
        let money = |cents: i64| event.currency.decimal(cents);
        let totals = &order.totals;
        let created = locale.iso(order.created_at);
        csv_row(
            &mut out,
            &[
                &order.id.to_string(),
                &created,
                &spreadsheet_safe(&order.buyer_name),
                &spreadsheet_safe(order.buyer_email.as_deref().unwrap_or("")),
                &spreadsheet_safe(&order.places),
                &money(totals.total_cents),
                &event.currency.code(),
                &spreadsheet_safe(order.sold_by.as_deref().unwrap_or("")),
                &order.tender,
                if order.event_cancelled { "yes" } else { "no" },
                &money(totals.subtotal_cents),
                &money(totals.discount_cents),
                &money(totals.fees_cents),
                &money(totals.tax_cents),
                &money(order.refunded_cents),
                &spreadsheet_safe(order.promo_code.as_deref().unwrap_or("")),
                &order.price_types,
                &spreadsheet_safe(order.season.as_deref().unwrap_or("")),
            ],
        )?;
    }
    csv_attachment(out, &format!("event-{event_id}-orders.csv"))
}

fn csv_row(out: &mut csv::Writer<Vec<u8>>, record: &[&str]) -> AppResult<()> {
    out.write_record(record)
        .map_err(|err| AppError::Internal(anyhow::anyhow!("writing CSV: {err}")))
}

/// A finished CSV as a download named `filename`.
fn csv_attachment(out: csv::Writer<Vec<u8>>, filename: &str) -> AppResult<Response> {
    let body = out
        .into_inner()
        .map_err(|err| AppError::Internal(anyhow::anyhow!("writing CSV: {err}")))?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{filename}\""),
            ),
        ],
        body,
    )
        .into_response())
}

/// The door list: every valid ticket, with its holder and whether they are
/// in, for a door whose scanners are down. Only the codes' last four
/// characters are listed: enough to match a ticket in hand, not to forge one.
async fn door_list_csv(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    _staff: Staff<Manager>,
) -> AppResult<Response> {
    // A report may be a moment behind: the replica's, when caught up.
    let (client, event, _) = state.event_read_client(event_id).await?;
    let lines = db::tickets::door_list(&client, event_id).await?;
    let locale = crate::i18n::locale(event.currency, &event.time_zone);
    let mut out = csv::Writer::from_writer(Vec::new());
    csv_row(
        &mut out,
        &[
            "place",
            "tier",
            "buyer",
            "email",
            "order",
            "code ends",
            "admitted",
            "gate",
        ],
    )?;
    for line in &lines {
        csv_row(
            &mut out,
            &[
                &spreadsheet_safe(&line.place),
                &spreadsheet_safe(&line.tier_name),
                &spreadsheet_safe(&line.buyer_name),
                &spreadsheet_safe(line.buyer_email.as_deref().unwrap_or("")),
                &line.order_id.to_string(),
                &line.code_end,
                &line
                    .admitted_at
                    .map(|at| locale.iso(at))
                    .unwrap_or_default(),
                &spreadsheet_safe(line.admitted_gate.as_deref().unwrap_or("")),
            ],
        )?;
    }
    csv_attachment(out, &format!("event-{event_id}-door-list.csv"))
}
