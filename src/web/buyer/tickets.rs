//! After the sale, for the buyer: the order page with its tickets (from
//! the session, or from the signed link in the e-mail), "My orders", each
//! ticket's own page with its QR code, and the order as JSON.

use askama::Template;
use axum::Json;
use axum::extract::State;
use axum::response::Html;
use serde::Serialize;
use time::OffsetDateTime;

use crate::db;
use crate::db::outbox::MailStatus;
use crate::db::tickets::{Ticket, TicketState};
use crate::domain::ids::{EventId, OrderId};
use crate::error::{AppError, AppResult, Missing};
use crate::web::auth::{ApiViewer, Viewer};
use crate::web::error::responses;
use crate::web::extract::{IdPath, QueryInput};
use crate::web::qr;
use crate::web::render::render;
use crate::web::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// A ticket as its page, the order page and the JSON show it.
pub(crate) struct TicketView {
    /// "Demo Night · Demo Hall · Tue 22 Dec 2026, 20:00 CET": on the
    /// ticket itself, so a printed one stands alone.
    pub(crate) event_line: String,
    /// Empty for a ticket its buyer passed on: the code is its new
    /// holder's, not theirs to see.
    pub(crate) code: String,
    pub(crate) code_grouped: String,
    pub(crate) place: String,
    pub(crate) tier: String,
    pub(crate) price: String,
    /// "valid", "admitted", "refunded" or "transferred" (a CSS class too).
    pub(crate) status: &'static str,
    pub(crate) status_text: String,
    /// Only a valid ticket shows its QR code.
    pub(crate) qr_svg: Option<String>,
    /// Shown among an order's tickets, with a link to its own page (not
    /// on that page itself).
    pub(crate) in_order: bool,
    /// A night of a season ticket: its event.
    pub(crate) night: Option<EventId>,
    /// A season's night its holder may still give back to sale.
    pub(crate) releasable: bool,
}

fn status(ticket: &Ticket, state: TicketState<'_>) -> (&'static str, String) {
    let locale = &ticket.locale;
    let text = match state {
        TicketState::Refunded { at } => crate::i18n::t1("ticket-refunded", "at", &locale.time(at)),
        TicketState::Released { at } => crate::i18n::t1("ticket-released", "at", &locale.time(at)),
        TicketState::Admitted { at, gate } => {
            crate::i18n::t2("ticket-admitted", "at", &locale.time(at), "gate", gate)
        }
        TicketState::PassedOn { to } => crate::i18n::t2(
            "ticket-passed-on",
            "name",
            to.name.as_str(),
            "email",
            to.email.as_str(),
        ),
        TicketState::Valid => crate::i18n::t("ticket-valid"),
    };
    (state.as_str(), text)
}

impl TicketView {
    /// As its buyer sees it among their order's tickets (`in_order`), or
    /// as whoever holds its code sees it on its own page.
    pub(crate) fn new(ticket: &Ticket, in_order: bool) -> AppResult<TicketView> {
        let state = match in_order {
            true => ticket.state_for_buyer(),
            false => ticket.state(),
        };
        let (status, mut status_text) = status(ticket, state);
        if let (true, Some(to), false) = (
            in_order,
            &ticket.passed_to,
            matches!(state, TicketState::PassedOn { .. }),
        ) {
            // Admitted or refunded after it was passed on: say to whom too.
            let passed_on = TicketState::PassedOn { to };
            status_text = format!("{status_text} · {}", self::status(ticket, passed_on).1);
        }
        // Once passed on, the code is its holder's alone, whatever befell
        // the ticket since (admitted or refunded).
        let shows_code = !in_order || ticket.passed_to.is_none();
        Ok(TicketView {
            event_line: format!(
                "{} · {} · {}",
                ticket.event_name,
                ticket.venue,
                ticket.locale.time(ticket.starts_at)
            ),
            code: match shows_code {
                true => ticket.code.to_string(),
                false => String::new(),
            },
            code_grouped: match shows_code {
                true => ticket.code.grouped(),
                false => String::new(),
            },
            place: ticket.place(),
            tier: ticket.kind(),
            price: ticket.locale.price(ticket.price_cents),
            status,
            status_text,
            qr_svg: match status {
                "valid" => Some(qr::svg(ticket.code.as_str())?),
                _ => None,
            },
            in_order,
            night: ticket.season_id.map(|_| ticket.event_id),
            releasable: ticket.season_id.is_some()
                && status == "valid"
                && shows_code
                && ticket.starts_at > OffsetDateTime::now_utc(),
        })
    }

    pub(crate) fn is_valid(&self) -> bool {
        self.status == "valid"
    }
}

#[derive(Template)]
#[template(path = "orders/show.html")]
pub(crate) struct OrderPage {
    order_id: String,
    event: String,
    event_id: EventId,
    venue: String,
    starts: String,
    buyer_name: String,
    event_cancelled: bool,
    tickets: Vec<TicketView>,
    /// "3 valid tickets".
    valid: String,
    total: String,
    mail: String,
    /// "Your tickets", or "Your order" while it has none yet.
    heading: String,
    /// How the order is being paid for, when it waits (or waited) for money.
    payment: Option<crate::web::payments::PaymentPanel>,
    /// Tickets, discount, fees, tax, total and refunds, in the buyer's
    /// language: shown once it has tickets, and while it waits for the
    /// payment (what is asked is already fixed).
    receipt: Vec<crate::i18n::receipt::ReceiptLine>,
    /// The seats an order without tickets yet keeps (waiting for its
    /// payment), by name.
    places: Vec<String>,
    /// Every ticket the buyer still holds as one PDF, with this page's
    /// access; None when there is none to print.
    pdf_url: Option<String>,
    /// For a season night's "give back to sale" form.
    csrf: String,
    /// What the last action on the page did (a night given back).
    notice: Option<crate::web::notices::Notice>,
    oob: bool,
    /// The number of the page's first ticket in the order.
    first_number: usize,
    /// Where the other pages of tickets are, when the order has more.
    pager: Option<TicketPager>,
}

/// An order of many tickets (a season of 40 nights for 10 is 400, each
/// with its QR code) is shown a page at a time; the PDF has them all.
pub(crate) const TICKETS_PER_PAGE: usize = 50;

pub(crate) struct TicketPager {
    /// "Tickets 51–100 of 400 are on this page; the PDF has them all."
    shown: String,
    previous: Option<String>,
    next: Option<String>,
}

/// Which page of the order's tickets is asked for (1 when not said).
#[derive(serde::Deserialize, Default)]
pub(crate) struct TicketsPage {
    page: Option<u32>,
}

pub(crate) use crate::web::order_access::{OrderAccess, order_owner};

fn mail_sentence(
    status: &MailStatus,
    email: &str,
    locale: &crate::domain::locale::EventLocale,
) -> String {
    match status {
        MailStatus::Sent { at } => {
            crate::i18n::t2("mail-status-sent", "email", email, "at", &locale.clock(*at))
        }
        MailStatus::Waiting { attempts: 0 } => {
            crate::i18n::t1("mail-status-queued", "email", email)
        }
        MailStatus::Waiting { .. } => crate::i18n::t1("mail-status-retrying", "email", email),
        MailStatus::Failed => crate::i18n::t1("mail-status-failed", "email", email),
        MailStatus::NotQueued | MailStatus::Retired => crate::i18n::t("mail-status-none"),
    }
}

/// The order's page: for the buyer's own session, or for anyone holding
/// the link from the e-mail while it is valid. Anything else is a 404, so
/// the page says nothing about whether an order exists.
pub(crate) async fn order_page(
    State(state): State<AppState>,
    IdPath(order_id): IdPath<OrderId>,
    QueryInput(access): QueryInput<OrderAccess>,
    QueryInput(asked): QueryInput<TicketsPage>,
    viewer: Viewer,
) -> AppResult<Html<String>> {
    let owner = order_owner(&state, order_id, &access, &viewer)?;
    let client = state.pool.get().await?;
    let order = db::orders::find(&client, order_id, owner)
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    let tickets = db::tickets::for_order(&client, order_id).await?;
    let mail = db::outbox::status_for_order(&client, order_id).await?;
    let payment = db::payments::of_order(&client, order_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    // The tickets the buyer still holds: not refunded, not passed on.
    let valid: Vec<&Ticket> = tickets
        .iter()
        .filter(|t| t.state_for_buyer() == TicketState::Valid)
        .collect();
    let places = match tickets.is_empty() {
        true => db::orders::reserved_places(&client, order_id).await?,
        false => Vec::new(),
    };
    let receipt = &order.receipt;
    let total = receipt.totals.total_cents - receipt.refunded_cents;
    // A page of the tickets (past the last: the last).
    let pages = tickets.len().div_ceil(TICKETS_PER_PAGE).max(1);
    let page = (asked.page.unwrap_or(1).max(1) as usize).min(pages);
    let first = (page - 1) * TICKETS_PER_PAGE;
    let on_page = &tickets[first..(first + TICKETS_PER_PAGE).min(tickets.len())];
    let views = on_page
        .iter()
        .map(|ticket| TicketView::new(ticket, true))
        .collect::<AppResult<Vec<_>>>()?;
    let signed = access.query();
    let page_url = |n: usize| match signed.as_str() {
        "" => format!("/orders/{order_id}?page={n}"),
        signed => format!("/orders/{order_id}?{signed}&page={n}"),
    };
    let pager = (pages > 1).then(|| TicketPager {
        shown: crate::i18n::t2(
            "order-tickets-shown",
            "range",
            format!("{}–{}", first + 1, first + on_page.len()).as_str(),
            "count",
            tickets.len(),
        ),
        previous: (page > 1).then(|| page_url(page - 1)),
        next: (page < pages).then(|| page_url(page + 1)),
    });
    let pdf_url = (!valid.is_empty()).then(|| match signed.as_str() {
        "" => format!("/orders/{order_id}/tickets.pdf"),
        signed => format!("/orders/{order_id}/tickets.pdf?{signed}"),
    });
    render(&OrderPage {
        notice: crate::web::notices::take_notice(&viewer.session).await?,
        oob: false,
        csrf: viewer.csrf.value(),
        pdf_url,
        receipt: crate::web::payments::receipt_lines(&order, !tickets.is_empty(), &payment),
        heading: if tickets.is_empty() && payment.payment.waits_for_payment() {
            crate::i18n::t("order-heading-order")
        } else {
            crate::i18n::t("order-heading-tickets")
        },
        payment: crate::web::payments::PaymentPanel::new(
            order_id,
            &payment,
            &access,
            &viewer.csrf.value(),
        ),
        order_id: order.id.to_string(),
        event: order.event_name,
        event_id: order.event_id,
        venue: order.venue,
        starts: order.locale.time(order.starts_at),
        buyer_name: order.buyer_name,
        mail: mail_sentence(&mail, &order.buyer_email, &order.locale),
        event_cancelled: order.event_cancelled,
        valid: crate::i18n::t1("order-valid-tickets", "count", valid.len()),
        tickets: views,
        total: order.locale.price(total),
        places,
        first_number: first + 1,
        pager,
    })
}

struct MyOrderRow {
    id: String,
    event: String,
    starts: String,
    bought: String,
    tickets: i64,
    total: String,
}

#[derive(Template)]
#[template(path = "orders/mine.html")]
pub(crate) struct MyOrdersPage {
    orders: Vec<MyOrderRow>,
}

/// The orders bought in this browser's session.
pub(crate) async fn my_orders(
    State(state): State<AppState>,
    viewer: Viewer,
) -> AppResult<Html<String>> {
    let orders = match viewer.buyer_id {
        Some(buyer_id) => db::orders::for_buyer(&state.pool.get().await?, buyer_id).await?,
        None => Vec::new(),
    };
    render(&MyOrdersPage {
        orders: orders
            .into_iter()
            .map(|order| MyOrderRow {
                id: order.id.to_string(),
                event: order.event_name,
                starts: order.locale.time(order.starts_at),
                bought: order.locale.time(order.created_at),
                tickets: order.valid_tickets,
                total: order.locale.price(order.total_cents),
            })
            .collect(),
    })
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct TicketJson {
    /// Null once the ticket was passed on: the new code is its new
    /// holder's alone.
    code: Option<String>,
    place: String,
    seat_id: Option<crate::domain::ids::SeatId>,
    tier: String,
    /// The price type's code ("child"), when the event sells types.
    price_type: Option<String>,
    /// What was paid for it: its type's price after its discount (before
    /// its fee, and before any tax added on top).
    price_cents: i64,
    /// What the promo code took off it.
    discount_cents: i64,
    /// Its booking fee.
    fee_cents: i64,
    /// The tax on its price and fee (inside them when the tax is included).
    tax_cents: i64,
    /// "valid", "admitted", "refunded" or "transferred".
    status: &'static str,
    /// Its page (null once passed on).
    url: Option<String>,
    /// Who it was passed on to, by name.
    transferred_to: Option<String>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct OrderJson {
    order_id: OrderId,
    event_id: EventId,
    /// pending_payment, paid, lapsed, refunded_unfulfilled or refunded.
    status: crate::domain::payment::OrderStatus,
    /// How it is paid for: none, online or box_office.
    payment: crate::domain::payment::PaymentMode,
    /// While it waits for its payment: the deadline.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pay_by: Option<OffsetDateTime>,
    /// What it costs: for an order paid for through a provider, what it
    /// was asked to pay; otherwise its total less what refunds paid back.
    amount_cents: Option<i64>,
    /// The tickets at their types' prices, before any discount.
    subtotal_cents: i64,
    discount_cents: i64,
    fees_cents: i64,
    tax_cents: i64,
    /// subtotal − discount + fees (+ tax when it is added on top).
    total_cents: i64,
    /// The tax line: its rate, and whether the prices include it.
    tax: Option<OrderTaxJson>,
    /// The promo code the order used.
    promo_code: Option<String>,
    /// What refunds have paid back so far.
    refunded_cents: i64,
    tickets: Vec<TicketJson>,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(crate) struct OrderTaxJson {
    /// "19", "7.5".
    rate_percent: String,
    included: bool,
}

/// The buyer's orders in the API.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(order_json))
}

/// The buyer's order and its tickets, as JSON. A read: a visitor without
/// a buyer id gets a 404 and no session is written.
#[utoipa::path(get, path = "/api/orders/{order_id}", tag = "buyers",
    params(("order_id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The caller's order and its tickets", body = OrderJson),
        responses::NoCustomerRef,
        responses::StaffAccess,
        responses::NotFound,))]
pub(crate) async fn order_json(
    State(state): State<AppState>,
    IdPath(order_id): IdPath<OrderId>,
    viewer: ApiViewer,
) -> AppResult<Json<OrderJson>> {
    let buyer_id = viewer.buyer_id.ok_or(AppError::NotFound(Missing::Order))?;
    let client = state.pool.get().await?;
    let order = db::orders::find(&client, order_id, Some(buyer_id))
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    let tickets = db::tickets::for_order(&client, order_id).await?;
    let payment = db::payments::of_order(&client, order_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    Ok(Json(OrderJson {
        order_id,
        event_id: order.event_id,
        status: payment.status,
        payment: payment.payment,
        pay_by: payment
            .pay_by
            .filter(|_| payment.status == crate::domain::payment::OrderStatus::PendingPayment),
        amount_cents: payment.amount_cents.or(Some(
            order.receipt.totals.total_cents - order.receipt.refunded_cents,
        )),
        subtotal_cents: order.receipt.totals.subtotal_cents,
        discount_cents: order.receipt.totals.discount_cents,
        fees_cents: order.receipt.totals.fees_cents,
        tax_cents: order.receipt.totals.tax_cents,
        total_cents: order.receipt.totals.total_cents,
        tax: order.receipt.tax.map(|tax| OrderTaxJson {
            rate_percent: tax.rate_text(),
            included: tax.included,
        }),
        promo_code: order.receipt.promo_code.clone(),
        refunded_cents: order.receipt.refunded_cents,
        tickets: tickets
            .iter()
            .map(|ticket| TicketJson {
                code: ticket.passed_to.is_none().then(|| ticket.code.to_string()),
                place: ticket.place(),
                seat_id: ticket.seat_id,
                tier: ticket.tier_name.clone(),
                price_type: ticket.price_type.as_ref().map(|t| t.code.clone()),
                price_cents: ticket.price_cents,
                discount_cents: ticket.discount_cents,
                fee_cents: ticket.fee_cents,
                tax_cents: ticket.tax_cents,
                status: ticket.state_for_buyer().as_str(),
                url: ticket
                    .passed_to
                    .is_none()
                    .then(|| format!("/tickets/{}", ticket.code)),
                transferred_to: ticket.passed_to.as_ref().map(|to| to.name.clone()),
            })
            .collect(),
    }))
}
