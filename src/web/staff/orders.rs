//! An order at the box office: its page with its tickets (refund one or
//! all, reseat one, print).

use askama::Template;

use crate::domain::payment::{OrderStatus, PaymentMode};
use axum::Router;
use axum::extract::State;
use axum::response::{Html, Redirect};
use axum::routing::{get, post};
use serde::Deserialize;
use tower_sessions::Session;

use crate::db;
use crate::db::order_changes::Refunded;
use crate::db::outbox::MailStatus;
use crate::db::tickets::TicketState;
use crate::domain::ids::{EventId, OrderId, TicketId};
use crate::domain::locale::EventLocale;
use crate::domain::rules;
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::web::auth::{Staff, floor::BoxOffice, floor::Manager};
use crate::web::event_header::EventHeader;
use crate::web::extract::IdPath;
use crate::web::notices::{Notice, take_notice};
use crate::web::qr;
use crate::web::render::render;
use crate::web::security::{CsrfForm, NoFields};
use crate::web::state::AppState;
use crate::words;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/staff/events/{event_id}/orders/{order_id}",
            get(order_page),
        )
        .route(
            "/staff/events/{event_id}/orders/{order_id}/refund",
            post(refund_order),
        )
        .route(
            "/staff/events/{event_id}/orders/{order_id}/tickets/{ticket_id}/refund",
            post(refund_ticket),
        )
        .route(
            "/staff/events/{event_id}/orders/{order_id}/tickets/{ticket_id}/reseat",
            post(reseat_ticket),
        )
        .route(
            "/staff/events/{event_id}/orders/{order_id}/tickets/{ticket_id}/transfer",
            post(transfer_ticket),
        )
}

/// A ticket as the box office lists it, with what can be done to it.
struct StaffTicket {
    id: TicketId,
    place: String,
    tier: String,
    price: String,
    status: &'static str,
    status_text: String,
    code: String,
    code_grouped: String,
    qr_svg: Option<String>,
    is_seat: bool,
}

#[derive(Template)]
#[template(path = "staff/order.html")]
struct OrderPage {
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    event: EventHeader,
    notice: Option<Notice>,
    oob: bool,
    order_id: String,
    buyer_name: String,
    buyer_email: String,
    bought: String,
    tender: String,
    mail: String,
    total: String,
    /// Tickets, discount, fees, tax, total and refunds.
    receipt: Vec<crate::i18n::receipt::ReceiptLine>,
    refundable: usize,
    tickets: Vec<StaffTicket>,
    /// "Paid online", "Awaiting payment at the box office until …", …
    payment_status: String,
    /// A box-office reservation still within its deadline: the counter
    /// can take the money.
    counter_payable: bool,
    /// Money going back through the payment provider, with its state.
    provider_refunds: Vec<ProviderRefundRow>,
    /// The languages a passed-on ticket's mail can be written in: (tag, name).
    langs: Vec<(&'static str, &'static str)>,
}

struct ProviderRefundRow {
    amount: String,
    /// "queued", "sent", "refused" (a CSS class too).
    state: &'static str,
    detail: String,
}

fn payment_status(payment: &db::payments::OrderPayment) -> String {
    let locale = &payment.locale;
    let by = payment.pay_by.map(|at| locale.time(at)).unwrap_or_default();
    let amount = locale.price(payment.amount_cents.unwrap_or(0));
    match (payment.payment, payment.status) {
        (PaymentMode::None, _) => {
            "No payment taken online (the event is free or sold at the counter).".into()
        }
        (PaymentMode::Online, OrderStatus::PendingPayment) => {
            format!("Awaiting card payment of {amount} until {by}.")
        }
        (PaymentMode::BoxOffice, OrderStatus::PendingPayment) => {
            format!("Reserved: {amount} to pay at the box office by {by}.")
        }
        (_, OrderStatus::Lapsed) => format!("Not paid by {by}: its seats went back on sale."),
        (_, OrderStatus::RefundedUnfulfilled) => format!(
            "Paid {} after its deadline, when its seats were sold to someone else: refunded in full.",
            locale.price(payment.amount_paid_cents.unwrap_or(0))
        ),
        (PaymentMode::Online, _) => format!(
            "Paid {} online by card.",
            locale.price(payment.amount_paid_cents.unwrap_or(0))
        ),
        (PaymentMode::BoxOffice, _) => format!(
            "Reserved online, paid {} at the box office.",
            locale.price(payment.amount_paid_cents.unwrap_or(0))
        ),
    }
}

fn provider_refund_row(
    refund: &db::payments::RefundView,
    locale: &EventLocale,
) -> ProviderRefundRow {
    let state = refund.state();
    let detail = match state {
        "sent" => format!(
            "Sent to Stripe {} ({}){}",
            refund.done_at.map(|at| locale.time(at)).unwrap_or_default(),
            refund.provider_ref.clone().unwrap_or_default(),
            if refund.attempts > 1 {
                format!(" after {} attempts", refund.attempts)
            } else {
                String::new()
            }
        ),
        "refused" => format!(
            "Stripe refused attempt {}: {}. It is retried.",
            refund.attempts,
            refund.last_error.clone().unwrap_or_default()
        ),
        _ => format!(
            "Queued {}: {}.",
            locale.time(refund.created_at),
            refund.reason
        ),
    };
    ProviderRefundRow {
        amount: locale.price(refund.amount_cents),
        state,
        detail,
    }
}

fn mail_line(status: &MailStatus, locale: &EventLocale) -> String {
    match status {
        MailStatus::NotQueued => "No e-mail (none given).".into(),
        MailStatus::Waiting { attempts: 0 } => "E-mail queued, not sent yet.".into(),
        MailStatus::Waiting { attempts } => format!("E-mail not sent yet ({attempts} attempts)."),
        MailStatus::Sent { at } => format!("E-mailed {}.", locale.time(*at)),
        MailStatus::Failed => {
            "E-mail failed; sending was given up (send it again from the mail page).".into()
        }
        MailStatus::Retired => "No e-mail sent: the order was refunded before it went.".into(),
    }
}

async fn order_page(
    State(state): State<AppState>,
    IdPath((event_id, order_id)): IdPath<(EventId, OrderId)>,
    staff: Staff<BoxOffice>,
) -> AppResult<Html<String>> {
    let event = crate::web::event_header::event_header(&state, event_id).await?;
    let client = state.pool.get().await?;
    let order = db::orders::find(&client, order_id, None)
        .await?
        .filter(|order| order.event_id == event_id)
        .ok_or(AppError::NotFound(Missing::Order))?;
    let tickets = db::tickets::for_order(&client, order_id).await?;
    let mail = db::outbox::status_for_order(&client, order_id).await?;
    let locale = &order.locale;
    let mut rows = Vec::with_capacity(tickets.len());
    for ticket in &tickets {
        let state = ticket.state();
        let status = state.as_str();
        let status_text = match state {
            TicketState::Refunded { at } => format!("Refunded {}", locale.time(at)),
            TicketState::Released { at } => format!("Released to sale {}", locale.time(at)),
            TicketState::Admitted { at, gate } => {
                format!("Admitted {} at {gate}", locale.hour_minute(at))
            }
            TicketState::Valid | TicketState::PassedOn { .. } => match &ticket.holder {
                Some(holder) => format!("Valid, passed on to {} <{}>", holder.name, holder.email),
                None => "Valid".to_string(),
            },
        };
        rows.push(StaffTicket {
            id: ticket.id,
            place: ticket.place(),
            tier: ticket.kind(),
            price: locale.price(ticket.price_cents),
            status,
            status_text,
            code: ticket.code.to_string(),
            code_grouped: ticket.code.grouped(),
            qr_svg: (status == "valid")
                .then(|| qr::svg(ticket.code.as_str()))
                .transpose()?,
            is_seat: ticket.seat_id.is_some(),
        });
    }
    // What the order charged, less what refunds paid back.
    let receipt = &order.receipt;
    let valid_total = receipt.totals.total_cents - receipt.refunded_cents;
    let payment = db::payments::of_order(&client, order_id)
        .await?
        .ok_or(AppError::NotFound(Missing::Order))?;
    let receipt_lines = crate::web::payments::receipt_lines(&order, !rows.is_empty(), &payment);
    render(&OrderPage {
        langs: crate::web::buyer::recipient::languages(),
        payment_status: payment_status(&payment),
        counter_payable: payment.payment == PaymentMode::BoxOffice
            && payment.status == OrderStatus::PendingPayment,
        provider_refunds: payment
            .refunds
            .iter()
            .map(|refund| provider_refund_row(refund, locale))
            .collect(),
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        event,
        notice: take_notice(&staff.session).await?,
        oob: false,
        order_id: order.id.to_string(),
        buyer_name: order.buyer_name,
        buyer_email: order.buyer_email,
        bought: order.locale.time(order.created_at),
        tender: match (order.comp_reason, order.tender.as_str(), payment.payment) {
            (Some(reason), _, _) => format!("comp ({reason})"),
            // Bought online where no money is taken online: the status
            // line says so; "online" here read as if it was paid.
            (None, "online", PaymentMode::None) => "nothing online (no payment taken)".into(),
            (None, "online", PaymentMode::Online) => "online, by card".into(),
            (None, tender, _) => tender.to_string(),
        },
        mail: mail_line(&mail, &order.locale),
        total: locale.price(valid_total),
        receipt: receipt_lines,
        refundable: rows.iter().filter(|t| t.status == "valid").count(),
        tickets: rows,
    })
}

/// Back to the order's page with the action's outcome as a notice.
async fn back_to_order(
    session: &Session,
    event_id: EventId,
    order_id: OrderId,
    outcome: AppResult<String>,
) -> AppResult<Redirect> {
    let location = format!("/staff/events/{event_id}/orders/{order_id}");
    crate::web::notices::back_with_notice(session, &location, outcome).await
}

pub(super) fn refunded_text(refunded: &Refunded) -> String {
    let done = words::refunded(
        refunded.tickets,
        refunded.seat_ids.len(),
        refunded.ga_places,
    );
    if refunded.provider_refund {
        format!(
            "{done} The money goes back to the buyer's card through Stripe (see Refunds below)."
        )
    } else {
        done
    }
}

async fn refund_order(
    State(state): State<AppState>,
    IdPath((event_id, order_id)): IdPath<(EventId, OrderId)>,
    staff: Staff<Manager>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let outcome = db::order_changes::refund(&state.pool, staff.actor(), event_id, order_id, None)
        .await
        .map(|refunded| refunded_text(&refunded));
    back_to_order(&staff.session, event_id, order_id, outcome).await
}

async fn refund_ticket(
    State(state): State<AppState>,
    IdPath((event_id, order_id, ticket_id)): IdPath<(EventId, OrderId, TicketId)>,
    staff: Staff<Manager>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    let outcome = db::order_changes::refund(
        &state.pool,
        staff.actor(),
        event_id,
        order_id,
        Some(&[ticket_id]),
    )
    .await
    .map(|refunded| refunded_text(&refunded));
    back_to_order(&staff.session, event_id, order_id, outcome).await
}

#[derive(Deserialize)]
struct ReseatForm {
    #[serde(default)]
    seat: String,
}

async fn reseat_ticket(
    State(state): State<AppState>,
    IdPath((event_id, order_id, ticket_id)): IdPath<(EventId, OrderId, TicketId)>,
    staff: Staff<BoxOffice>,
    CsrfForm(form): CsrfForm<ReseatForm>,
) -> AppResult<Redirect> {
    let outcome = async {
        let name = match rules::seat_names(&form.seat)?.as_slice() {
            [one] => one.clone(),
            _ => return Err(AppError::Invalid(Invalid::SeatName(form.seat.clone()))),
        };
        let to = {
            let client = state.pool.get().await?;
            db::order_changes::seats_named(&client, event_id, std::slice::from_ref(&name)).await?[0]
        };
        db::order_changes::reseat(&state.pool, staff.actor(), event_id, ticket_id, to).await?;
        Ok(format!(
            "Moved the ticket to {name}; its old seat is back on sale."
        ))
    }
    .await;
    back_to_order(&staff.session, event_id, order_id, outcome).await
}

#[derive(Deserialize)]
struct TransferForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    lang: String,
}

/// Passes a ticket on at the counter: audited, and not held to the
/// event's transfer rules (the holder's own transfer is).
async fn transfer_ticket(
    State(state): State<AppState>,
    IdPath((event_id, order_id, ticket_id)): IdPath<(EventId, OrderId, TicketId)>,
    staff: Staff<BoxOffice>,
    CsrfForm(form): CsrfForm<TransferForm>,
) -> AppResult<Redirect> {
    let outcome = async {
        let to =
            crate::web::buyer::recipient::recipient(&form.name, &form.email, Some(&form.lang))?;
        let code = {
            let client = state.pool.get().await?;
            db::transfers::current_code(&client, event_id, ticket_id, Some(order_id)).await?
        };
        db::transfers::transfer(&state.pool, &code, &to, Some(staff.actor())).await?;
        Ok(format!(
            "Sent the ticket to {} <{}>; its old code no longer gets in.",
            to.name,
            to.email.as_str()
        ))
    }
    .await;
    back_to_order(&staff.session, event_id, order_id, outcome).await
}
