//! The box office's console: the staff index and each event's console.
//! Every page needs a signed-in staff member; every action is a
//! CSRF-checked form post that redirects back to the console with a notice
//! (works without JavaScript).

use askama::Template;
use axum::Router;
use axum::extract::State;
use axum::response::{Html, Redirect};
use axum::routing::{get, post};
use serde::Deserialize;
use time::OffsetDateTime;
use tower_sessions::Session;

use crate::db::box_office::{HoldOverview, OrderOverview, SeatOccupant};
use crate::db::order_changes::WalkUp;
use crate::db::{self, GenericClient};
use crate::domain::ids::{EventId, HoldId, SeatId, SectionId};
use crate::domain::locale::EventLocale;
use crate::domain::payment::OrderStatus;
use crate::domain::refusal::Refusal;
use crate::domain::rules;
use crate::domain::seat::{SeatIds, SeatState};
use crate::domain::ticket::Tender;
use crate::error::{AppError, AppResult, Invalid, Missing};
use crate::web::auth::{Staff, floor::BoxOffice, floor::Door, floor::Manager};
use crate::web::event_header::EventHeader;
use crate::web::extract::{IdPath, QueryInput};
use crate::web::map::{self, SeatCanvas};
use crate::web::map_overview::{self, Overview};
use crate::web::notices::{Notice, take_notice};
use crate::web::render::render;
use crate::web::seat_view::StatusLegend;
use crate::web::seat_view::TierLegend;
use crate::web::security::{CsrfForm, NoFields};
use crate::web::state::AppState;
use crate::words;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/staff", get(index))
        .route("/staff/events/{event_id}", get(console))
        .route(
            "/staff/events/{event_id}/holds/{hold_id}/release",
            post(release_hold),
        )
        .route(
            "/staff/events/{event_id}/holds/{hold_id}/seats/{seat_id}/release",
            post(release_seat),
        )
        .route(
            "/staff/events/{event_id}/holds/{hold_id}/revive",
            post(revive_hold),
        )
        .route(
            "/staff/events/{event_id}/seats/{seat_id}/block",
            post(block),
        )
        .route(
            "/staff/events/{event_id}/seats/{seat_id}/unblock",
            post(unblock),
        )
        .route("/staff/events/{event_id}/seats/{seat_id}/sell", post(sell))
        .route("/staff/events/{event_id}/close-sales", post(close_sales))
        .route("/staff/events/{event_id}/cancel", post(cancel_event))
}

#[derive(Template)]
#[template(path = "staff/index.html")]
struct IndexPage {
    staff_bar: crate::web::auth::StaffBar,
    events: Vec<EventHeader>,
    /// The role reaches the console (box office and above); the door's
    /// staff get each event's door page instead.
    console: bool,
}

async fn index(State(state): State<AppState>, staff: Staff<Door>) -> AppResult<Html<String>> {
    let client = state.pool.get().await?;
    let events = db::events::list_for_staff(&client).await?;
    render(&IndexPage {
        staff_bar: staff.bar(),
        events: events.iter().map(EventHeader::from).collect(),
        console: staff.role.covers(crate::domain::role::Role::BoxOffice),
    })
}

/// A hold as a console row.
struct HoldRow {
    hold_id: String,
    short_id: String,
    buyer: String,
    seats: Vec<(SeatId, String)>,
    ga_lines: Vec<String>,
    held_since: String,
    expires_at: String,
    expired_at: String,
    server_now: String,
    remaining: String,
    email: String,
}

/// The first 8 hex digits of a hold's or order's id: enough to tell them
/// apart on one console.
fn short(id: impl std::fmt::Display) -> String {
    id.to_string().chars().take(8).collect()
}

impl HoldRow {
    fn new(hold: HoldOverview, now: OffsetDateTime, locale: &EventLocale) -> HoldRow {
        let remaining = (hold.expires_at - now).whole_seconds().max(0);
        HoldRow {
            hold_id: hold.hold_id.to_string(),
            short_id: short(hold.hold_id),
            buyer: short(hold.buyer_id),
            seats: hold.seat_ids.into_iter().zip(hold.seat_names).collect(),
            ga_lines: hold.ga_lines,
            held_since: locale.clock(hold.created_at),
            expires_at: crate::words::rfc3339(hold.expires_at),
            expired_at: locale.clock(hold.expires_at),
            server_now: crate::words::rfc3339(now),
            remaining: format!("{:02}:{:02}", remaining / 60, remaining % 60),
            email: hold.email.unwrap_or_default(),
        }
    }
}

struct OrderRow {
    id: String,
    short_id: String,
    name: String,
    email: String,
    seats: String,
    total: String,
    when: String,
    sold_by: String,
    tender: String,
    refunded: i64,
}

impl OrderRow {
    fn new(order: OrderOverview, locale: &EventLocale) -> OrderRow {
        OrderRow {
            id: order.id.to_string(),
            short_id: short(order.id),
            name: order.buyer_name,
            email: order.buyer_email.unwrap_or_default(),
            seats: order.seat_names.join("; "),
            total: locale.price(order.total_cents),
            when: locale.time(order.created_at),
            sold_by: order.sold_by.unwrap_or_else(|| "online".into()),
            tender: match order.status {
                OrderStatus::Paid | OrderStatus::Refunded => order.tender,
                OrderStatus::PendingPayment => "awaiting payment".into(),
                OrderStatus::Lapsed => "not paid in time".into(),
                OrderStatus::RefundedUnfulfilled => "paid too late: refunded".into(),
            },
            refunded: order.refunded,
        }
    }
}

struct AuditRow {
    when: String,
    who: String,
    action: String,
    seats: String,
    detail: String,
}

/// The seat the console has selected on its map, and what can be done to it.
struct SeatPanel {
    id: SeatId,
    name: String,
    status: String,
    can_block: bool,
    can_unblock: bool,
    can_sell: bool,
    hold: Option<HoldRow>,
    order: Option<OrderRow>,
}

#[derive(Template)]
#[template(path = "staff/event.html")]
struct ConsolePage {
    staff_bar: crate::web::auth::StaffBar,
    csrf: String,
    event: EventHeader,
    notice: Option<Notice>,
    canvas: Option<SeatCanvas>,
    overview: Option<Overview>,
    tiers: Vec<TierLegend>,
    statuses: Vec<StatusLegend>,
    selected: Option<SeatPanel>,
    live: Vec<HoldRow>,
    lapsed: Vec<HoldRow>,
    query: String,
    orders: Vec<OrderRow>,
    audit: Vec<AuditRow>,
    payment: super::payments::PaymentSection,
    accessible: super::accessible::AccessibleSection,
    waitlist: super::waitlist::WaitlistSection,
    queue: Option<crate::web::queue::page::QueueSection>,
    bulk: super::bulk_seats::BulkSection,
    oob: bool,
}

#[derive(Deserialize)]
struct ConsoleQuery {
    seat: Option<SeatId>,
    q: Option<String>,
    section: Option<SectionId>,
}

/// The map a box-office page shows: every seat of a small venue; a big
/// one's overview of sections (each linking to `page?section=`), or the
/// chosen section's seats with the overview beside them, as buyers see it.
pub(crate) struct StaffMap {
    pub canvas: Option<SeatCanvas>,
    pub overview: Option<Overview>,
}

pub(crate) async fn staff_map(
    state: &AppState,
    client: &impl GenericClient,
    event_id: EventId,
    tiers: &[db::events::Tier],
    section: Option<SectionId>,
    page: &str,
) -> AppResult<StaffMap> {
    let shapes = db::map::shapes(client, event_id, None).await?;
    let big = shapes.seat_count() > i64::from(state.config.overview_above_seats);
    let all_prices = map::PriceFilter::new(tiers, None, None);
    let chosen = section.filter(|id| big && shapes.sections.iter().any(|s| s.id == *id));
    Ok(match (big, chosen) {
        (false, _) => {
            let seats = db::seats::for_event(client, event_id, None).await?;
            StaffMap {
                canvas: Some(map::seat_canvas(&seats, tiers, &shapes, true)),
                overview: None,
            }
        }
        (true, Some(id)) => {
            let seats = db::seats::for_section(client, event_id, None, id).await?;
            StaffMap {
                canvas: Some(map::seat_canvas(&seats, tiers, &shapes, false)),
                overview: Some(map_overview::overview(
                    page,
                    &shapes,
                    tiers,
                    Some(id),
                    &all_prices,
                )),
            }
        }
        (true, None) => StaffMap {
            canvas: None,
            overview: Some(map_overview::overview(
                page,
                &shapes,
                tiers,
                None,
                &all_prices,
            )),
        },
    })
}

async fn seat_panel(
    client: &impl GenericClient,
    event_id: EventId,
    seat: &crate::domain::seat::Seat,
    now: OffsetDateTime,
    locale: &EventLocale,
) -> AppResult<SeatPanel> {
    let occupant = db::box_office::occupant(client, event_id, seat.id).await?;
    let (hold, order) = match occupant {
        SeatOccupant::Hold(hold) => (Some(HoldRow::new(hold, now, locale)), None),
        SeatOccupant::Order(order) => (None, Some(OrderRow::new(order, locale))),
        SeatOccupant::Nobody => (None, None),
    };
    let mut status = crate::web::seat_view::state_label(seat.state);
    if seat.state == SeatState::Blocked
        && let Some(purpose) = db::bulk_seats::blocked_for(client, seat.id).await?
    {
        status = format!("{status}, for {purpose}");
    }
    Ok(SeatPanel {
        id: seat.id,
        name: crate::words::seat_name(seat),
        status,
        can_block: seat.state == SeatState::Available,
        can_unblock: seat.state == SeatState::Blocked,
        can_sell: matches!(seat.state, SeatState::Available | SeatState::Blocked),
        hold,
        order,
    })
}

async fn console(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    QueryInput(query): QueryInput<ConsoleQuery>,
    staff: Staff<BoxOffice>,
) -> AppResult<Html<String>> {
    let client = state.pool.get().await?;
    let event = db::events::find(&client, event_id)
        .await?
        .ok_or_else(|| AppError::NotFound(Missing::Event))?;
    let now = OffsetDateTime::now_utc();
    // Every time on the console in the venue's zone, named, as the
    // buyer's order page shows it.
    let locale = crate::i18n::locale(event.currency, &event.time_zone);
    let tiers = db::events::tiers(&client, event_id).await?;
    let selected_seat = match query.seat {
        Some(id) => db::seats::by_ids(&client, event_id, &[id], None)
            .await?
            .into_iter()
            .next(),
        None => None,
    };
    let selected = match &selected_seat {
        Some(seat) => Some(seat_panel(&client, event_id, seat, now, &locale).await?),
        None => None,
    };
    let search = query.q.as_deref().map(str::trim).filter(|q| !q.is_empty());
    if search.is_some_and(|q| !crate::domain::text::is_plain(q, 254)) {
        return Err(AppError::Invalid(Invalid::Search { max_chars: 254 }));
    }
    let live = db::box_office::live_holds(&client, event_id).await?;
    let lapsed = db::box_office::lapsed_holds(&client, event_id).await?;
    let orders = db::box_office::orders(&client, event_id, search, 100).await?;
    let audit = db::audit::recent(&client, event_id, 50).await?;
    let payment = super::payments::PaymentSection::load(&state, &client, event_id, &locale).await?;
    let accessible = super::accessible::AccessibleSection::load(&client, event_id, &locale).await?;
    let waitlist = super::waitlist::WaitlistSection::load(&client, event_id, &locale).await?;
    let bulk = super::bulk_seats::BulkSection::load(&client, event_id).await?;
    let queue = crate::web::queue::page::QueueSection::load(&client, event_id, &locale).await?;
    // A big venue's console opens on its overview; a seat asked about
    // opens its section.
    let section = query.section.or(selected_seat.map(|seat| seat.section_id));
    let page = format!("/staff/events/{event_id}");
    let StaffMap {
        mut canvas,
        overview,
    } = staff_map(&state, &client, event_id, &tiers, section, &page).await?;
    let seats = canvas.iter_mut().flat_map(|c| c.sections.iter_mut());
    for seat in seats.flat_map(|s| s.seats.iter_mut()) {
        seat.for_staff(query.seat);
    }
    render(&ConsolePage {
        staff_bar: staff.bar(),
        csrf: staff.csrf.value(),
        event: EventHeader::from(&event),
        notice: take_notice(&staff.session).await?,
        canvas,
        overview,
        tiers: crate::web::seat_view::tier_legend(&tiers),
        // Staff hold nothing themselves, so "held by you" never shows here.
        statuses: crate::web::seat_view::status_legend()
            .into_iter()
            .filter(|status| status.state != SeatState::Mine.as_str())
            .collect(),
        selected,
        live: live
            .into_iter()
            .map(|h| HoldRow::new(h, now, &locale))
            .collect(),
        lapsed: lapsed
            .into_iter()
            .map(|h| HoldRow::new(h, now, &locale))
            .collect(),
        query: search.unwrap_or_default().to_string(),
        orders: orders
            .into_iter()
            .map(|order| OrderRow::new(order, &locale))
            .collect(),
        audit: audit
            .into_iter()
            .map(|entry| AuditRow {
                when: locale.time(entry.at),
                who: entry.staff.unwrap_or_else(|| "system".into()),
                action: entry.action.replace('_', " "),
                seats: entry.seats.join("; "),
                detail: entry.detail,
            })
            .collect(),
        payment,
        accessible,
        waitlist,
        queue,
        bulk,
        oob: false,
    })
}

/// Back to the console (showing `seat`, if any) with the action's outcome.
async fn back_to_console(
    session: &Session,
    event_id: EventId,
    seat: Option<SeatId>,
    outcome: AppResult<String>,
) -> AppResult<Redirect> {
    let location = match seat {
        Some(seat) => format!("/staff/events/{event_id}?seat={seat}"),
        None => format!("/staff/events/{event_id}"),
    };
    crate::web::notices::back_with_notice(session, &location, outcome).await
}

/// A hold must belong to the console's event (the URL says which).
async fn hold_of_event(state: &AppState, event_id: EventId, hold_id: HoldId) -> AppResult<()> {
    // Whatever state the hold is in now: a console row can go stale (the
    // hold bought, released or its seats taken) between the page and the
    // click, and the action then explains that on the console.
    let client = state.pool.get().await?;
    if db::box_office::hold_belongs_to(&client, hold_id, event_id).await? {
        Ok(())
    } else {
        Err(AppError::NotFound(Missing::Hold))
    }
}

async fn release_hold(
    State(state): State<AppState>,
    IdPath((event_id, hold_id)): IdPath<(EventId, HoldId)>,
    staff: Staff<BoxOffice>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    hold_of_event(&state, event_id, hold_id).await?;
    let outcome = db::box_office::release(&state.pool, staff.actor(), hold_id, None)
        .await
        .map(|(_, seats)| {
            format!(
                "Released hold {} ({}).",
                short(hold_id),
                words::count(seats.len(), "seat", "seats")
            )
        });
    back_to_console(&staff.session, event_id, None, outcome).await
}

async fn release_seat(
    State(state): State<AppState>,
    IdPath((event_id, hold_id, seat_id)): IdPath<(EventId, HoldId, SeatId)>,
    staff: Staff<BoxOffice>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    hold_of_event(&state, event_id, hold_id).await?;
    let outcome = db::box_office::release(&state.pool, staff.actor(), hold_id, Some(seat_id))
        .await
        .map(|_| format!("Released seat {seat_id} from hold {}.", short(hold_id)));
    back_to_console(&staff.session, event_id, Some(seat_id), outcome).await
}

async fn revive_hold(
    State(state): State<AppState>,
    IdPath((event_id, hold_id)): IdPath<(EventId, HoldId)>,
    staff: Staff<BoxOffice>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    hold_of_event(&state, event_id, hold_id).await?;
    let locale = crate::web::event_header::event_header(&state, event_id)
        .await?
        .locale;
    let outcome =
        db::box_office::revive(&state.pool, staff.actor(), hold_id, state.config.hold_ttl)
            .await
            .map(|hold| {
                format!(
                    "Revived: {} held again until {}.",
                    words::count(hold.seat_ids.len(), "seat", "seats"),
                    locale.clock(hold.expires_at)
                )
            });
    back_to_console(&staff.session, event_id, None, outcome).await
}

/// Blocks (`block = true`) or unblocks one seat from the console.
async fn set_blocked(
    state: &AppState,
    (event_id, seat_id): (EventId, SeatId),
    staff: &crate::web::auth::StaffUser,
    block: bool,
) -> AppResult<Redirect> {
    let done = if block {
        "Seat blocked: it is no longer offered to buyers."
    } else {
        "Seat unblocked: it is on sale again."
    };
    let outcome = db::box_office::set_blocked(
        &state.pool,
        staff.actor(),
        event_id,
        &SeatIds::new([seat_id]),
        block.then_some(None),
    )
    .await
    .map(|_| done.to_string());
    back_to_console(&staff.session, event_id, Some(seat_id), outcome).await
}

async fn block(
    State(state): State<AppState>,
    IdPath(seat): IdPath<(EventId, SeatId)>,
    staff: Staff<BoxOffice>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    set_blocked(&state, seat, &staff, true).await
}

async fn unblock(
    State(state): State<AppState>,
    IdPath(seat): IdPath<(EventId, SeatId)>,
    staff: Staff<BoxOffice>,
    CsrfForm(_): CsrfForm<NoFields>,
) -> AppResult<Redirect> {
    set_blocked(&state, seat, &staff, false).await
}

#[derive(Deserialize)]
struct SellForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    tender: String,
    #[serde(default)]
    comp_reason: String,
}

async fn sell(
    State(state): State<AppState>,
    IdPath((event_id, seat_id)): IdPath<(EventId, SeatId)>,
    staff: Staff<BoxOffice>,
    CsrfForm(form): CsrfForm<SellForm>,
) -> AppResult<Redirect> {
    let sale =
        rules::walk_up_buyer(&form.name, &form.email).and_then(|buyer| -> Result<_, Refusal> {
            Ok(WalkUp {
                seat_ids: SeatIds::new([seat_id]),
                ga: Vec::new(),
                buyer,
                tender: Tender::parse(&form.tender, &form.comp_reason)?,
                choices: Default::default(),
            })
        });
    let outcome = match sale {
        Ok(sale) => db::order_changes::walk_up_sale(&state.pool, staff.actor(), event_id, &sale)
            .await
            .map(|sold| {
                format!(
                    "Sold to {} ({}): order {}.",
                    sale.buyer.name,
                    sale.tender.as_str(),
                    short(sold.order_id)
                )
            }),
        Err(err) => Err(err.into()),
    };
    back_to_console(&staff.session, event_id, Some(seat_id), outcome).await
}

/// Closes sales (`cancel = false`) or cancels the event, from the console.
/// Closing sales or cancelling changes the whole event: the form carries
/// a box the member of staff ticks to say they mean it.
#[derive(Deserialize)]
pub(crate) struct WholeEventChange {
    confirm: Option<String>,
}

async fn end_sales(
    state: &AppState,
    event_id: EventId,
    staff: &crate::web::auth::StaffUser,
    cancel: bool,
    change: WholeEventChange,
) -> AppResult<Redirect> {
    if change.confirm.as_deref() != Some("yes") {
        let refused = Err(AppError::Invalid(Invalid::NotConfirmed));
        return back_to_console(&staff.session, event_id, None, refused).await;
    }
    let outcome = db::box_office::close_sales(&state.pool, staff.actor(), event_id, cancel)
        .await
        .map(|closed| {
            let done = if cancel {
                format!(
                    "Event cancelled. {} kept and flagged for refund.",
                    words::count(closed.orders_flagged, "order", "orders")
                )
            } else {
                "Sales closed.".to_string()
            };
            let held = words::counts_and(&[
                (closed.seats_released, "seat", "seats"),
                (
                    closed.ga_tickets_released,
                    "general-admission ticket",
                    "general-admission tickets",
                ),
            ]);
            match held {
                Some(held) => format!(
                    "{done} Released {} ({held}).",
                    words::count(closed.holds_released, "hold", "holds")
                ),
                None => format!("{done} No hold was live."),
            }
        });
    back_to_console(&staff.session, event_id, None, outcome).await
}

async fn close_sales(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(change): CsrfForm<WholeEventChange>,
) -> AppResult<Redirect> {
    end_sales(&state, event_id, &staff, false, change).await
}

async fn cancel_event(
    State(state): State<AppState>,
    IdPath(event_id): IdPath<EventId>,
    staff: Staff<Manager>,
    CsrfForm(change): CsrfForm<WholeEventChange>,
) -> AppResult<Redirect> {
    end_sales(&state, event_id, &staff, true, change).await
}
